"""Decompression bombs shaped like the ones that took a server, and what tests measure while one is parsed.

A bomb is a few MB on disk with ~190 MB of XML inside at ~80:1, under the 100:1 ratio and 200 MB checks of
`tools.document.safety`, so only the parse limits stop it. It is built in the test by streaming one block of XML
through zipfile again and again: the block's little randomness sets the ratio, and nothing the size of the bomb
is ever held in memory.
"""

from __future__ import annotations

import io
import os
import random
import threading
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from functools import cache
from pathlib import Path

from tests.support import deadlines
from tests.unit.documents.builders import docx_bytes, xlsx_bytes
from tools.document import parsing

MB = 1024 * 1024
GB = 1024 * MB
_WORD = b'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_SHEET = b'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_SHARED_STRINGS_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"


@cache
def docx_bomb(inflated_mb: int = 190) -> bytes:
    """A DOCX whose word/document.xml is `inflated_mb` of paragraphs."""
    head = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<w:document ' + _WORD + b"><w:body>"
    return _replace_member(
        docx_bytes(),
        "word/document.xml",
        head,
        lambda letter: b"<w:p><w:r><w:t>Ledger row " + letter + b"</w:t></w:r></w:p>",
        b"</w:body></w:document>",
        inflated_mb,
    )


@cache
def xlsx_bomb(inflated_mb: int = 190) -> bytes:
    """An XLSX whose xl/sharedStrings.xml holds `inflated_mb` of strings (openpyxl loads them all up front)."""
    head = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst ' + _SHEET + b">"
    return _replace_member(
        xlsx_bytes(),
        "xl/sharedStrings.xml",
        head,
        lambda letter: b"<si><t>Item " + letter + b"</t></si>",
        b"</sst>",
        inflated_mb,
        content_type=_SHARED_STRINGS_TYPE,
    )


def _replace_member(
    base: bytes,
    name: str,
    head: bytes,
    element: Callable[[bytes], bytes],
    tail: bytes,
    inflated_mb: int,
    content_type: str | None = None,
) -> bytes:
    """`base` with member `name` (added if missing, declared with `content_type`) streamed from one block."""
    rng = random.Random(7)
    block = b"".join(element(bytes([rng.choice(b"ab")])) for _ in range(4000))  # ~80:1 once deflated
    source = zipfile.ZipFile(io.BytesIO(base))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for info in source.infolist():
            content = source.read(info)
            if info.filename == "[Content_Types].xml" and content_type is not None:
                override = f'<Override PartName="/{name}" ContentType="{content_type}"/></Types>'
                content = content.replace(b"</Types>", override.encode())
            if info.filename != name:
                archive.writestr(info, content)
        with archive.open(name, "w", force_zip64=True) as member:
            member.write(head)
            for _ in range(inflated_mb * MB // len(block)):
                member.write(block)
            member.write(tail)
    return out.getvalue()


@contextmanager
def peak_rss_growth() -> Iterator[list[int]]:
    """The most this process's resident memory grew above its start while the block ran (sampled every 20 ms)."""

    def rss() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    start, peak, done = rss(), [0], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], rss() - start)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        yield peak
    finally:
        done.set()
        sampler.join()
        peak[0] = max(peak[0], rss() - start)


def children_of(pid: int) -> list[int]:
    """Every child of `pid`, whichever of its threads started it (a thread that ends meanwhile has none)."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        with suppress(FileNotFoundError, ProcessLookupError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def server_children() -> list[int]:
    """The parse children the parse server has now (it has none between documents)."""
    pid = parsing.server_pid()
    assert pid is not None, "no parse server is running"
    return children_of(pid)


def state_of(pid: int) -> str | None:
    """R running, S sleeping, Z zombie…; None when the process is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def wait_gone(pid: int, within_s: float = deadlines.PROCESS_S) -> None:
    """Return once `pid` is gone (or a zombie nobody reaps any more); fail after `within_s`."""
    deadline = time.monotonic() + within_s
    while state_of(pid) not in (None, "Z", "X"):
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} is still there after {within_s:g}s ({state_of(pid)})")
        time.sleep(0.05)


def wait_idle(pid: int, within_s: float = deadlines.PROCESS_S) -> None:
    """Return once `pid` sleeps (the parse server waiting for work); fail after `within_s`."""
    deadline = time.monotonic() + within_s
    while state_of(pid) != "S":
        if time.monotonic() > deadline:
            raise AssertionError(f"process {pid} is not idle after {within_s:g}s ({state_of(pid)})")
        time.sleep(0.05)
