"""Documents are read in a child of the parse server: the same markdown and rejections as in process, and a
child past its memory or time limit is gone, with a typed reason, before the call returns."""

from __future__ import annotations

import os
import signal
import socket
import struct
import subprocess
import sys
import textwrap
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from core.errors import DocumentRejected
from tests.support import deadlines
from tests.unit.documents.bombs import (
    GB,
    docx_bomb,
    peak_rss_growth,
    server_children,
    wait_gone,
    wait_idle,
    xlsx_bomb,
)
from tests.unit.documents.builders import docx_bytes, encrypted_pdf, pdf_bytes, pptx_bytes, xlsx_bytes
from tools.document import limits, parsing
from tools.document.frames import FrameReader
from tools.document.parsing import ParseLimitExceeded, read_document
from tools.document.readers import extract_text

DOCUMENTS: dict[str, Callable[[], bytes]] = {
    "report.docx": docx_bytes,
    "sales.xlsx": xlsx_bytes,
    "plan.pptx": pptx_bytes,
    "pages.pdf": lambda: pdf_bytes("First page", "Second page"),
    "page.html": lambda: b"<html><head><title>T</title></head><body><h1>Head</h1><p>Body text here.</p></body></html>",
    "rows.csv": lambda: b"name,score\nada,3\nbob,5\n",
    "data.json": lambda: b'{"a": [1, 2], "b": "\xc3\xa9t\xc3\xa9"}',
    "notes.md": lambda: "# Notes\n\nZoë’s – text\n".encode(),
    "plain.txt": lambda: b"caf\xe9 in latin-1\n",
}


@pytest.mark.parametrize("name", list(DOCUMENTS))
def test_a_document_reads_the_same_as_in_process(name: str) -> None:
    data = DOCUMENTS[name]()
    assert read_document(data, name, timeout_s=60) == extract_text(data, name)
    assert server_children() == []


@pytest.mark.parametrize(
    ("name", "data", "reason"),
    [
        ("secret.pdf", None, "needs a password"),
        ("empty.txt", b"", "is empty"),
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 64, "legacy Office file"),
        ("noise.bin", bytes(range(256)) * 8, "cannot be read"),
    ],
)
def test_a_rejection_keeps_its_type_and_message(name: str, data: bytes | None, reason: str) -> None:
    data = encrypted_pdf("pw") if data is None else data
    with pytest.raises(DocumentRejected) as in_child:
        read_document(data, name, timeout_s=60)
    with pytest.raises(DocumentRejected) as in_process:
        extract_text(data, name)
    assert type(in_child.value) is DocumentRejected and reason in str(in_child.value)
    assert str(in_child.value) == str(in_process.value)


def test_the_limits_in_force_here_apply_in_the_child(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_TABLE_ROWS", 1)
    extracted = read_document(b"n\n1\n2\n3\n", "rows.csv", timeout_s=60)
    assert extracted.notes == ["rows.csv: only the first 1 rows are shown"]
    assert extracted == extract_text(b"n\n1\n2\n3\n", "rows.csv")


def test_a_docx_bomb_dies_at_the_memory_limit_and_the_caller_stays_small(monkeypatch: pytest.MonkeyPatch) -> None:
    """~190 MB of XML at ~80:1 passes the zip checks; parsing it once grew a server by 3.4 GB."""
    bomb = docx_bomb()
    monkeypatch.setattr(limits, "PARSE_MEMORY_MB", 384)
    with peak_rss_growth() as grown, pytest.raises(ParseLimitExceeded, match="needs more than 384 MB of memory"):
        read_document(bomb, "bomb.docx", timeout_s=120)
    assert grown[0] < 1.5 * GB
    assert server_children() == []
    wait_idle(parsing.server_pid() or 0)


def test_an_xlsx_bomb_is_stopped_at_its_deadline_and_nothing_runs_on() -> None:
    """190 MB of shared strings once took 1.6 GB and 115 s; a child past its time is killed, not abandoned."""
    bomb = xlsx_bomb()
    with peak_rss_growth() as grown, pytest.raises(ParseLimitExceeded, match=r"took longer than 2\.0s to read"):
        read_document(bomb, "bomb.xlsx", timeout_s=2)
    assert grown[0] < 1.5 * GB
    assert server_children() == []
    wait_idle(parsing.server_pid() or 0)


def test_the_parse_server_gets_no_secrets_of_this_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-parse-canary")
    monkeypatch.setenv("PAOR_SERVER_API_KEY", "paor-parse-canary")
    parsing.stop_parses()  # a new server, started with this environment
    read_document(b"text", "a.txt", timeout_s=60)
    environment = Path(f"/proc/{parsing.server_pid()}/environ").read_bytes()
    assert b"canary" not in environment and b"OPENAI" not in environment and b"PAOR" not in environment


def test_a_frame_cut_by_a_timeout_is_completed_by_the_next_read() -> None:
    mine, theirs = socket.socketpair()
    with mine, theirs:
        mine.settimeout(0.05)
        frames = FrameReader(mine, 1024)
        whole = struct.pack(">Q", 10) + b"0123456789" + struct.pack(">Q", 2) + b"ok"
        theirs.sendall(whole[:12])
        assert frames.read() is None
        theirs.sendall(whole[12:])
        assert (frames.read(), frames.read()) == (b"0123456789", b"ok")
        theirs.sendall(struct.pack(">Q", 2048))
        with pytest.raises(ValueError, match="over the limit of 1024"):
            frames.read()


def test_no_time_left_reads_nothing() -> None:
    with pytest.raises(ParseLimitExceeded, match="no time was left"):
        read_document(b"text", "late.txt", timeout_s=0)


def test_documents_read_at_once_each_get_their_own_result() -> None:
    names = list(DOCUMENTS)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda name: read_document(DOCUMENTS[name](), name, timeout_s=60), names))
    assert results == [extract_text(DOCUMENTS[name](), name) for name in names]


def test_a_server_that_died_is_started_again() -> None:
    read_document(b"first", "a.txt", timeout_s=60)
    first = parsing.server_pid()
    assert first is not None
    os.kill(first, signal.SIGKILL)
    os.waitpid(first, 0)
    assert read_document(b"second", "b.txt", timeout_s=60).text.strip() == "second"
    assert parsing.server_pid() not in (None, first)


_EXITING = textwrap.dedent(
    """
    import sys, threading, time
    from pathlib import Path
    from tools.document import parsing
    bomb = Path(sys.argv[1]).read_bytes()

    def parse():
        try:
            parsing.read_document(bomb, "bomb.xlsx", timeout_s=600)
        except Exception as exc:
            print(type(exc).__name__, exc, flush=True)

    worker = threading.Thread(target=parse)
    worker.start()  # not a daemon: the interpreter waits for it at exit, as for the act node's tool threads
    while True:
        server = parsing.server_pid()
        if server and Path(f"/proc/{server}/task/{server}/children").read_text().split():
            break
        time.sleep(0.05)
    child = Path(f"/proc/{server}/task/{server}/children").read_text().split()[0]
    print(server, child, flush=True)
    sys.exit(0)  # the main thread ends while the parse is under way
    """
)


def test_a_process_exits_promptly_in_the_middle_of_a_parse(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.xlsx"
    bomb.write_bytes(xlsx_bomb())
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}
    process = subprocess.Popen([sys.executable, "-c", _EXITING, str(bomb)], env=env, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    server, child = (int(pid) for pid in process.stdout.readline().split())
    assert process.wait(timeout=deadlines.PROCESS_S) == 0
    assert process.stdout.read() == "DocumentRejected reading bomb.xlsx was stopped: paor is stopping\n"
    for pid in (child, server):
        wait_gone(pid)
