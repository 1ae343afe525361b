"""Processes started as from a terminal, whatever the suite itself was started from."""

from __future__ import annotations

import signal


def default_signals() -> None:
    """`preexec_fn` for a child that must react to Ctrl-C and a closed terminal as it would in one: a suite started
    in the background (`cmd &` in a script) hands its children SIGINT ignored, and one started under `nohup` SIGHUP;
    Python keeps both ignored. A paor that ignored SIGHUP ended only when its stuck call timed out."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
