"""Checks that run before any parser sees the bytes: size caps and zip-bomb detection for Office files.

Declared zip sizes can be trusted as a bound: `zipfile` stops reading a member at its declared size and fails
the CRC check when the real data is longer, so python-docx/openpyxl/python-pptx never inflate more than this.
"""

from __future__ import annotations

import io
import zipfile

from core.errors import DocumentRejected
from tools.document import limits


def check_input_size(data: bytes, name: str) -> None:
    """Reject empty and oversized inputs with messages the model can act on."""
    if not data:
        raise DocumentRejected(f"{name} is empty")
    if len(data) > limits.MAX_INPUT_BYTES:
        raise DocumentRejected(
            f"{name} is {len(data)} bytes, over the {limits.MAX_INPUT_BYTES} byte limit for documents"
        )


def check_zip_container(data: bytes, name: str) -> None:
    """Refuse corrupt zips and zip bombs (total size, member count, per-member compression ratio)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, ValueError) as exc:
        raise DocumentRejected(f"{name} is not a valid Office file (corrupt zip container: {exc})") from exc
    if len(members) > limits.MAX_ZIP_MEMBERS:
        raise DocumentRejected(
            f"{name} has {len(members)} zip members, over the limit of {limits.MAX_ZIP_MEMBERS} (zip bomb?)"
        )
    total = sum(member.file_size for member in members)
    if total > limits.MAX_UNCOMPRESSED_BYTES:
        raise DocumentRejected(
            f"{name} would unpack to {total} bytes, over the {limits.MAX_UNCOMPRESSED_BYTES} byte limit (zip bomb?)"
        )
    for member in members:
        if member.file_size < limits.RATIO_CHECK_MIN_BYTES:
            continue
        ratio = member.file_size / max(member.compress_size, 1)
        if ratio > limits.MAX_COMPRESSION_RATIO:
            raise DocumentRejected(
                f"{name}: member {member.filename} is compressed {ratio:.0f}:1, over the limit of "
                f"{limits.MAX_COMPRESSION_RATIO}:1 (zip bomb?)"
            )
