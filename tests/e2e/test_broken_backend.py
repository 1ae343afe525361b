"""A tool backend that cannot be imported takes only its own actions down; the agent keeps working.

Each case runs the real `paor` command in a fresh interpreter in which one backend's import is broken on purpose
(`sys.modules[name] = None` makes every `import name` fail, as a broken upstream release does), against the
scripted loopback model.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import deadlines
from tests.support.scenarios import FIRST_1000_PRIMES, PRIMES_PROMPT, script_primes
from tests.support.scripted_llm import ScriptedLLM
from tools.code.available import unavailable_reason

REPO = Path(__file__).resolve().parents[2]


def paor_without(module: str, *args: str, base_url: str, home: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    """`paor ARGS` in a new process where `import MODULE` fails."""
    bootstrap = f"import sys; sys.modules[{module!r}] = None; from cli.app import main; main()"
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "OPENAI_BASE_URL": base_url,
        "PAOR_MODEL": "scripted",
        "PAOR_MAX_RETRIES": "0",
        "PAOR_HOME": str(home),
    }
    return subprocess.run(
        [sys.executable, "-c", bootstrap, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS_S,
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    folder = tmp_path / "work"
    folder.mkdir()
    return folder


def test_a_broken_web_backend_leaves_web_actions_out_and_the_primes_run_completes(
    scripted_llm: ScriptedLLM, isolated_home: Path, workdir: Path
) -> None:
    script_primes(scripted_llm)

    done = paor_without(
        "trafilatura", "run", PRIMES_PROMPT, "--json", base_url=scripted_llm.base_url, home=isolated_home, cwd=workdir
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["status"] == "completed"
    delivered = Path(result["deliverables"][0]["path"]).read_text()
    assert [int(n) for n in delivered.replace(",", " ").split() if n.isdigit()][-1000:] == FIRST_1000_PRIMES
    # The run says which actions it could not use, and why.
    notes = "\n".join(result["notes"])
    for action in ("web.search", "web.scrape", "web.crawl"):
        assert f"{action} is unavailable" in notes
    assert "trafilatura" in notes
    # Stage 1 was offered only what can run: no web action in the catalog text or in the schema's action enum.
    for request in scripted_llm.requests_for("ActionSelection"):
        assert "web.scrape" not in request.text
        assert "ai.process" in request.text
        assert "web.search" not in json.dumps(request.body.get("response_format"))


def test_doctor_names_the_unavailable_actions_and_the_reason_but_still_reports_ready(
    scripted_llm: ScriptedLLM, isolated_home: Path, workdir: Path
) -> None:
    done = paor_without("trafilatura", "doctor", base_url=scripted_llm.base_url, home=isolated_home, cwd=workdir)

    assert done.returncode == 0, done.stdout + done.stderr
    sandboxed = unavailable_reason() is None  # code.execute runs only where programs can be isolated
    assert f"{3 + sandboxed} available, {3 + (not sandboxed)} unavailable" in done.stdout
    assert "web.crawl is unavailable: tools.web.crawl_tool cannot be imported" in done.stdout
    assert "trafilatura" in done.stdout
    assert "ready" in done.stdout
