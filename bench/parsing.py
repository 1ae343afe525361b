"""`python -m bench.parsing`: what reading a document in a child of the parse server costs, and what it saves.

Per document kind: the median time of one extraction in process (`readers.extract_text`, as the tools did before)
and through the parse server (`parsing.read_document`, as they do now), and the first extraction of a fresh
process either way (the imports, or the server's start). Per bomb (~190 MB of XML at ~80:1 inside a few MB, under
the zip checks): in process, in a subprocess watched from outside — its peak resident memory and whether it
finished within `--cap` seconds; through the parse server, the asking process's peak growth, how the child ended
and how soon the server was idle. Nothing is asserted; timings are noisy on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

from tests.unit.documents.bombs import docx_bomb, xlsx_bomb
from tests.unit.documents.builders import docx_bytes, pdf_bytes, pptx_bytes, xlsx_bytes
from tools.document import parsing
from tools.document.readers import extract_text

ROOT = Path(__file__).resolve().parents[1]
MB = 1024 * 1024
KINDS: dict[str, Callable[[], bytes]] = {
    "a.txt": lambda: b"plain text\n" * 100,
    "a.csv": lambda: b"name,score\n" + b"ada,3\n" * 200,
    "a.html": lambda: b"<html><body><h1>T</h1>" + b"<p>Paragraph text.</p>" * 200 + b"</body></html>",
    "a.docx": docx_bytes,
    "a.xlsx": xlsx_bytes,
    "a.pptx": pptx_bytes,
    "a.pdf": lambda: pdf_bytes("First page", "Second page", "Third page"),
}
_FIRST = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    data, name = Path(sys.argv[2]).read_bytes(), Path(sys.argv[2]).name
    start = time.perf_counter()
    if sys.argv[1] == "in-process":
        from tools.document.readers import extract_text
        extract_text(data, name)
    else:
        from tools.document.parsing import read_document
        read_document(data, name, timeout_s=60)
    print(time.perf_counter() - start)
    """
)
_IN_PROCESS = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from tools.document.readers import extract_text
    try:
        extract_text(Path(sys.argv[1]).read_bytes(), sys.argv[2])
        print("read")
    except Exception as exc:
        print(type(exc).__name__, str(exc)[:120])
    """
)


def per_document(repeat: int) -> list[str]:
    lines = ["| document | in process (before) | parse server (now) | difference |", "|---|---:|---:|---:|"]
    parsing.read_document(b"warm", "warm.txt", timeout_s=60)
    for name, build in KINDS.items():
        data = build()
        extract_text(data, name)
        before, now = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            extract_text(data, name)
            before.append(time.perf_counter() - start)
            start = time.perf_counter()
            parsing.read_document(data, name, timeout_s=60)
            now.append(time.perf_counter() - start)
        b, n = statistics.median(before) * 1000, statistics.median(now) * 1000
        lines.append(f"| {name} | {b:.1f} ms | {n:.1f} ms | +{n - b:.1f} ms |")
    return lines


def first_extraction() -> list[str]:
    """The first document a fresh process reads: the reader's imports, or the server's start and the reader's."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lines = ["| first document of a process | in process (before) | parse server (now) |", "|---|---:|---:|"]
    with tempfile.TemporaryDirectory() as folder:
        for name in ("a.txt", "a.docx", "a.pdf"):
            path = Path(folder) / name
            path.write_bytes(KINDS[name]())
            took = []
            for how in ("in-process", "parse-server"):
                done = subprocess.run(
                    [sys.executable, "-c", _FIRST, how, str(path)],
                    env=env,
                    capture_output=True,
                    text=True,
                    check=True,
                    cwd=ROOT,
                )
                took.append(float(done.stdout) * 1000)
            lines.append(f"| {name} | {took[0]:.0f} ms | {took[1]:.0f} ms |")
    return lines


def bombs(cap_s: float, timeout_s: float) -> list[str]:
    lines = []
    for name, build in (("bomb.docx", docx_bomb), ("bomb.xlsx", xlsx_bomb)):
        data = build()
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / name
            path.write_bytes(data)
            lines.append(f"- {name} ({len(data) / MB:.1f} MB on disk), in process: {_in_process(path, name, cap_s)}")
        lines.append(f"- {name}, parse server: {_isolated(data, name, timeout_s)}")
    return lines


def _in_process(path: Path, name: str, cap_s: float) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", _IN_PROCESS, str(path), name], env=env, stdout=subprocess.PIPE, text=True
    )
    start, peak = time.monotonic(), 0
    while process.poll() is None and time.monotonic() - start < cap_s:
        peak = max(peak, _rss(process.pid))
        time.sleep(0.2)
    elapsed = time.monotonic() - start
    if process.poll() is None:
        process.kill()
        process.wait()
        return f"still parsing after {cap_s:.0f} s, at a peak of {peak / MB:.0f} MB resident (killed by the bench)"
    assert process.stdout is not None
    return f"{process.stdout.read().strip()} after {elapsed:.1f} s, peak {peak / MB:.0f} MB resident"


def _isolated(data: bytes, name: str, timeout_s: float) -> str:
    own, peak, done = _rss(os.getpid()), [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.05):
            peak[0] = max(peak[0], _rss(os.getpid()) - own)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    start = time.monotonic()
    try:
        parsing.read_document(data, name, timeout_s=timeout_s)
        outcome = "read"
    except Exception as exc:
        outcome = f"{type(exc).__name__}: {exc}"
    elapsed = time.monotonic() - start
    done.set()
    sampler.join()
    server = parsing.server_pid()
    children = Path(f"/proc/{server}/task/{server}/children").read_text().split() if server else []
    return (
        f"{outcome} after {elapsed:.1f} s; the asking process grew by at most {peak[0] / MB:.0f} MB; "
        f"children of the server left: {len(children)}"
    )


def _rss(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, IndexError, ValueError):
        return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--cap", type=float, default=60.0, help="seconds an in-process bomb parse may run")
    parser.add_argument("--timeout", type=float, default=60.0, help="the parse server's deadline per bomb")
    args = parser.parse_args()
    print("\n".join(["## One extraction", "", *per_document(args.repeat), "", *first_extraction()]))
    print("\n".join(["", "## Bombs", "", *bombs(args.cap, args.timeout)]))


if __name__ == "__main__":
    main()
