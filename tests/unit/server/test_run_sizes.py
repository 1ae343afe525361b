"""What a run request's parts weigh once its files are uploads (server/run_sizes.py), measured away from the
server's event loop: a file inside a message is discounted, an image (the model may see it) is not, and junk that
merely sits beside a file key is counted."""

from __future__ import annotations

import asyncio
import base64

import orjson

from server.run_sizes import UPLOADED_BLOCK_BYTES, measured, part_sizes

PDF = base64.b64encode(b"%PDF-1.7 " + b"x" * 600_000).decode()


def _body(content: list[object], **parts: object) -> bytes:
    return orjson.dumps(
        {"assistant_id": "paor", "input": {"messages": [{"type": "human", "content": content}]}, **parts}
    )


def test_an_inline_file_weighs_what_its_upload_reference_will() -> None:
    sizes = part_sizes(
        _body([{"type": "text", "text": "Summarise"}, {"type": "file", "mimeType": "application/pdf", "data": PDF}])
    )
    assert sizes is not None and sizes["input"] < 100 + 2 * UPLOADED_BLOCK_BYTES


def test_an_inline_image_and_junk_beside_a_file_key_count_in_full() -> None:
    image = {"type": "image", "mimeType": "image/png", "data": PDF}
    junk = {"type": "text", "text": "y" * 500_000, "note": {"data": "z"}}
    for content in ([image], [junk]):
        sizes = part_sizes(_body(content))
        assert sizes is not None and sizes["input"] > 500_000, content


def test_every_part_is_measured_and_a_body_that_is_no_object_is_left_to_langgraph() -> None:
    sizes = part_sizes(_body([], context={"junk": "c" * 1000}, config={"configurable": {}}, command={"resume": "r"}))
    assert sizes is not None and set(sizes) == {"input", "context", "config", "command"} and sizes["context"] > 1000
    assert part_sizes(b"[1, 2]") is None and part_sizes(b"{not json") is None


def test_the_measurement_runs_in_a_child_process() -> None:
    assert asyncio.run(measured(_body([], context={"junk": "c" * 2000})))["context"] > 2000


def test_junk_under_a_file_key_is_no_file_and_counts_in_full() -> None:
    """A hostile client named 9 MB of junk a file to have the measurement discount it (then the event loop parsed
    it twice); only valid base64, what an upload can be made of, is discounted."""
    junk = {"type": "file", "mimeType": "application/pdf", "data": "not base64 at all! " * 40_000}
    sizes = part_sizes(_body([junk]))
    assert sizes is not None and sizes["input"] > 700_000
