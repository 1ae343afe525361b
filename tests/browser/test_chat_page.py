"""A real browser converses with paor as Agent Chat UI users do: headless Chromium, driven by Playwright, on a chat
page built on the LangGraph SDK's `useStream` (what Agent Chat UI is built on) that sends exactly the requests
Agent Chat UI sends — compared here with the request bodies captured from Agent Chat UI itself (tests/fixtures/chat)
— to a `langgraph dev` with auth on, served from another origin than the page.

It uploads a PDF and an image, watches a direct answer stream in token by token into one message, sends a follow-up,
and clicks a deliverable link (signed, so it opens without the key the page sends in its headers).

Needs what `tests/browser/setup.sh` installs: Debian's `chromium` (Playwright's own browser download is not
used: `PAOR_CHROMIUM` or `chromium` on PATH), the `playwright` Python package, and the page built with npm. The
test skips, naming what is missing, without them. `PAOR_BROWSER_SCREENSHOTS=DIR` keeps every screenshot,
`PAOR_BROWSER_SCREENSHOT=FILE` the last one.
"""

from __future__ import annotations

import base64
import functools
import json
import os
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support import deadlines
from tests.support.chat import captured_run
from tests.support.chat_scenarios import FIRST_10, FOLLOW_UP, PRICE_LIST, PRODUCT, PRODUCT_ANSWER, script_chat
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scripted_llm import ScriptedLLM

PAGE = Path(__file__).parent / "page"
CHROMIUM = os.environ.get("PAOR_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
KEY = "browser-test-key"

if CHROMIUM is None:
    pytest.skip("no chromium: apt-get install chromium (or set PAOR_CHROMIUM)", allow_module_level=True)
if not (PAGE / "dist" / "app.js").is_file():
    pytest.skip("the chat page is not built: tests/browser/setup.sh", allow_module_level=True)
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (tests/browser/setup.sh)")
pytest.importorskip("langgraph_api", reason="langgraph dev needs langgraph-cli[inmem]: pip install -e '.[server]'")


class _QuietPage(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def page_url() -> Iterator[str]:
    """The built page, served from loopback like any static site (another origin than the API)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietPage, directory=str(PAGE)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/index.html"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def api_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`langgraph dev` with auth on; the model streams its tokens with a pause, as a real one does."""
    workdir = tmp_path_factory.mktemp("browser")
    with ScriptedLLM(stream_delay_s=0.05) as llm:
        script_chat(llm)
        env = scripted_env(llm.base_url, workdir / "paor-home", PAOR_SERVER_API_KEY=KEY)
        with langgraph_dev(workdir, env) as url:
            yield url


@dataclass
class Chat:
    """One page of the chat, and the run requests it sent."""

    page: Any
    sent: list[dict[str, Any]]
    shots: Path

    def say(self, text: str, *files: Path) -> Any:
        if files:
            self.page.set_input_files("#file-input", [str(f) for f in files])
            self.page.locator("#attached").filter(has_text=files[-1].name).wait_for()
        self.page.fill("#prompt", text)
        with self.page.expect_request(lambda r: r.url.endswith("/runs/stream")):
            self.page.click("button[type=submit]")
        self.page.locator("#working").wait_for(state="detached")
        self.page.screenshot(path=str(self.shots / f"{len(self.sent)}.png"))
        if os.environ.get("PAOR_BROWSER_SCREENSHOT"):  # the last one, e.g. for docs/chat-ui.png
            self.page.screenshot(path=os.environ["PAOR_BROWSER_SCREENSHOT"])
        return self.page.locator(".message.ai").last.locator("pre").last

    def kinds(self) -> list[str]:
        return list(self.page.locator(".message").evaluate_all("els => els.map(e => e.dataset.type)"))


@pytest.fixture
def chat(page_url: str, api_url: str, tmp_path: Path) -> Iterator[Chat]:
    shots = Path(os.environ.get("PAOR_BROWSER_SCREENSHOTS") or tmp_path)
    shots.mkdir(parents=True, exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900}, accept_downloads=True)
            page.set_default_timeout(deadlines.HTTP_S * 1000)  # every wait: a hang bound (a whole run at most)
            errors: list[str] = []
            sent: list[dict[str, Any]] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on(
                "request",
                lambda r: sent.append(json.loads(r.post_data or "{}")) if r.url.endswith("/runs/stream") else None,
            )
            page.goto(f"{page_url}?api={api_url}&key={KEY}")
            page.locator("#prompt").wait_for()
            yield Chat(page, sent, shots)
            assert not errors, errors
        finally:
            browser.close()


def _file_of(fixture: str, name: str, folder: Path) -> Path:
    """The file Agent Chat UI uploaded when it sent `fixture`: the bytes of its block."""
    block = captured_run(fixture)["input"]["messages"][0]["content"][1]
    path = folder / name
    path.write_bytes(base64.b64decode(block["data"]))
    return path


def _same_request(sent: dict[str, Any], captured: dict[str, Any]) -> None:
    """The page sent Agent Chat UI's request: the same body but for the fresh message id and the checkpoint."""

    def normal(body: dict[str, Any]) -> dict[str, Any]:
        messages = [{**m, "id": "ID"} for m in body["input"]["messages"]]
        checkpoint = {k: "CP" for k in body.get("checkpoint") or {}}
        return {**body, "input": {**body["input"], "messages": messages}, "checkpoint": checkpoint}

    assert normal(sent) == normal(captured)


def test_a_pdf_upload_is_sent_as_agent_chat_ui_sends_it_and_its_content_answers(chat: Chat, tmp_path: Path) -> None:
    answer = chat.say(PRICE_LIST, _file_of("agent-chat-ui-pdf.json", "bakery.pdf", tmp_path))

    _same_request(chat.sent[0], captured_run("agent-chat-ui-pdf.json"))
    assert "sourdough loaf 4.20 EUR" in answer.inner_text() and "Deliverables:" in answer.inner_text()
    assert chat.kinds() == ["human", "ai"]
    assert "bakery.pdf" in chat.page.locator(".message.human").inner_text()


def test_an_image_is_named_in_the_answer_with_why_it_cannot_be_read(chat: Chat, tmp_path: Path) -> None:
    answer = chat.say(PRICE_LIST, _file_of("agent-chat-ui-image.json", "chart.png", tmp_path))

    _same_request(chat.sent[0], captured_run("agent-chat-ui-image.json"))
    assert "chart.png cannot be read: it is an image (image/png)" in answer.inner_text()
    assert "chart.png cannot be read" in chat.page.locator("#error").inner_text()


def test_the_answer_streams_into_one_message_and_its_link_opens_from_another_origin(chat: Chat) -> None:
    answer = chat.say(PRODUCT)

    frames: list[str] = chat.page.evaluate("window.paorFrames")
    streamed = [f for f in frames if PRODUCT_ANSWER.startswith(f.strip()) and f.strip() != PRODUCT_ANSWER]
    assert len(streamed) >= 3, f"the answer arrived at once: {frames}"
    assert frames[0].startswith("Working on it. I understood: an answer"), "the first sign of life"
    assert chat.kinds() == ["human", "ai"] and answer.inner_text().startswith(PRODUCT_ANSWER)

    link = answer.locator("a", has_text="result.md")
    href = link.get_attribute("href") or ""
    api = urlsplit(chat.page.evaluate("new URLSearchParams(location.search).get('api')"))
    assert urlsplit(href).netloc == api.netloc != urlsplit(chat.page.url).netloc, "absolute, to the API's origin"
    assert "signature=" in href and "expires=" not in href, "bound to the thread, not to a clock"
    with chat.page.expect_download() as download:
        link.click()
    assert Path(download.value.path()).read_text() == PRODUCT_ANSWER, "the link alone opens the document"
    assert httpx.get(href.replace("result.md", "other.md"), timeout=deadlines.HTTP_S).status_code == 410


def test_a_follow_up_is_sent_as_agent_chat_ui_sends_it_and_finishes(chat: Chat) -> None:
    chat.say(PRODUCT)
    answer = chat.say(FOLLOW_UP)

    _same_request(chat.sent[1], captured_run("agent-chat-ui-follow-up.json"))
    assert answer.inner_text().startswith(FIRST_10)
    assert chat.kinds() == ["human", "ai", "human", "ai"]
