"""A real browser converses with paor as Agent Chat UI users do: headless Chromium, driven by Playwright, on a chat
page built on the LangGraph SDK's `useStream` (what Agent Chat UI is built on) that sends exactly the requests
Agent Chat UI sends — compared here with the request bodies captured from Agent Chat UI itself (tests/fixtures/chat)
— to a `langgraph dev` with auth on, served from another origin than the page.

It uploads a PDF (and sees the step counter while the loop run works), an image, and a PDF with an image in one
message (the PDF read, the image named below the answer); watches a direct answer stream in token by token into one
message; sends a follow-up that carries the conversation; clicks a deliverable link (signed, so it opens without the
key the page sends in its headers) and opens an expired one (its 410 page); and starts a page with a wrong key,
which shows the server's 401 detail (readable only with the CORS headers paor's gate adds to its refusals). The same
page against `paor serve` (Aegra, PostgreSQL, Redis; where `tests/engine` can run) clicks its answer's link from the
page's origin.

Needs what `tests/browser/setup.sh` installs: Debian's `chromium` (Playwright's own browser download is not
used: `PAOR_CHROMIUM` or `chromium` on PATH), the `playwright` Python package, and the page built with npm. The
test skips, naming what is missing, without them. `PAOR_BROWSER_SCREENSHOTS=DIR` keeps every screenshot,
`PAOR_BROWSER_SCREENSHOT=FILE` the last one.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import re
import shutil
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from core.schemas import DocumentRef
from nodes.attachments import NO_IMAGES
from server.keys import REFUSAL, identity_of
from server.urls import document_url
from tests.support import deadlines
from tests.support.chat import captured_run
from tests.support.chat_scenarios import FIRST_10, FOLLOW_UP, PRICE_LIST, PRODUCT, PRODUCT_ANSWER, script_chat
from tests.support.langgraph_dev import langgraph_dev, scripted_env
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

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


@dataclass
class Api:
    """The server the pages talk to, its data folder (to sign links as it does) and its model (to see what it was
    asked)."""

    url: str
    home: Path
    llm: ScriptedLLM


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """`langgraph dev` with auth on; the model streams its tokens with a pause, as a real one does."""
    workdir = tmp_path_factory.mktemp("browser")
    with ScriptedLLM(stream_delay_s=0.05) as llm:
        script_chat(llm)
        env = scripted_env(llm.base_url, workdir / "paor-home", PAOR_SERVER_API_KEY=KEY)
        with langgraph_dev(workdir, env) as url:
            yield Api(url, workdir / "paor-home", llm)


#: "seen" once the newest AI message (not a step's tool call) matches the pattern while the run works, "ended" if
#: the run ends first.
_SEEN_WHILE_WORKING = """pattern => {
  const working = document.querySelector("#working");
  const ai = [...document.querySelectorAll(".message.ai")].filter(m => !m.querySelector(".tool-call")).at(-1);
  if (working && ai && new RegExp(pattern).test(ai.innerText)) return "seen";
  return working ? false : "ended";
}"""


@dataclass
class Chat:
    """One page of the chat, and the run requests it sent."""

    page: Any
    sent: list[dict[str, Any]]
    shots: Path

    def say(
        self, text: str, *files: Path, working: re.Pattern[str] | None = None, held: threading.Event | None = None
    ) -> Any:
        """Send `text` with `files` attached and wait for the run to end; `working`: a text the newest AI message
        must show while the run still works, `held`: the model's answers it waits on (see `_model_held`)."""
        if files:
            self.page.set_input_files("#file-input", [str(f) for f in files])
            self.page.locator("#attached").filter(has_text=files[-1].name).wait_for()
        self.page.fill("#prompt", text)
        with self.page.expect_request(lambda r: r.url.endswith("/runs/stream")):
            self.page.click("button[type=submit]")
        if working is not None:  # the newest AI message shows it while the page says working (once it does)
            self.page.locator("#working").wait_for()
            seen = self.page.wait_for_function(_SEEN_WHILE_WORKING, arg=working.pattern).json_value()
            assert seen == "seen", f"the run ended without showing {working.pattern!r}"
            self.shoot("working")
            if held is not None:
                held.set()
        self.page.locator("#working").wait_for(state="detached")
        self.shoot(str(len(self.sent)))
        return self.page.locator(".message.ai").last.locator("pre").last

    def shoot(self, name: str) -> None:
        self.page.screenshot(path=str(self.shots / f"{name}.png"))
        if os.environ.get("PAOR_BROWSER_SCREENSHOT"):  # the last one, e.g. for docs/chat-ui.png
            self.page.screenshot(path=os.environ["PAOR_BROWSER_SCREENSHOT"])

    def kinds(self) -> list[str]:
        return list(self.page.locator(".message").evaluate_all("els => els.map(e => e.dataset.type)"))


@contextlib.contextmanager
def _model_held(llm: ScriptedLLM, route: str) -> Iterator[threading.Event]:
    """The model answers nothing on `route` until the event is set: a step shown while it works cannot be gone
    before the page is looked at, however fast the step."""
    released = threading.Event()

    def hold(request: RecordedRequest) -> None:
        if request.route == route:
            released.wait(deadlines.HTTP_S)

    llm.fault = hold
    try:
        yield released
    finally:
        released.set()
        llm.fault = None


@contextlib.contextmanager
def _chat_page(page_url: str, api_url: str, key: str, shots: Path) -> Iterator[Chat]:
    """The chat page in a fresh headless Chromium, sending `key`; fails the test on any error of the page's code."""
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
            page.goto(f"{page_url}?api={api_url}&key={key}")
            page.locator("#prompt").wait_for()
            yield Chat(page, sent, shots)
            assert not errors, errors
        finally:
            browser.close()


@pytest.fixture
def shots(request: pytest.FixtureRequest, tmp_path: Path) -> Path:
    """Where a test's screenshots go: kept under `PAOR_BROWSER_SCREENSHOTS`, one folder per test."""
    kept = os.environ.get("PAOR_BROWSER_SCREENSHOTS")
    return Path(kept) / request.node.name if kept else tmp_path


@pytest.fixture
def chat(page_url: str, api: Api, shots: Path) -> Iterator[Chat]:
    with _chat_page(page_url, api.url, KEY, shots) as chat:
        yield chat


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


def _expired(api: Api, link: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The link to the same document as the server signs it under an operator's TTL (`PAOR_SERVER_LINK_TTL_S`), made
    two hours ago with a one-hour TTL: signed here with the server's key and records, as tests/server/
    test_lasting_links.py does, so the one server of the module serves both lasting and expired links."""
    thread = urlsplit(link).path.split("/")[3]
    listed = httpx.get(
        f"{api.url}/paor/threads/{thread}/deliverables", headers={"x-api-key": KEY}, timeout=deadlines.HTTP_S
    ).json()
    listing = next(d for d in listed["deliverables"] if d["url"] == link)
    ref = DocumentRef.model_validate({k: v for k, v in listing.items() if k != "url"})
    monkeypatch.setenv("PAOR_SERVER_API_KEY", KEY)
    monkeypatch.setenv("PAOR_HOME", str(api.home))
    monkeypatch.delenv("PAOR_SERVER_LINK_SECRET", raising=False)
    monkeypatch.setenv("PAOR_SERVER_LINK_TTL_S", "3600")
    return document_url(thread, ref, base=api.url, now=time.time() - 7200, owner=identity_of(KEY))


#: The loop's progress line while its first step works (nodes/select.py): the summary's one step.
STEP_1 = re.compile(r"Step 1 of at most \d+: document\.extract — Read the attached price list")


def test_a_pdf_upload_is_sent_as_agent_chat_ui_sends_it_and_its_content_answers(
    chat: Chat, api: Api, tmp_path: Path
) -> None:
    pdf = _file_of("agent-chat-ui-pdf.json", "bakery.pdf", tmp_path)
    with _model_held(api.llm, "text") as summary:  # the step's summary waits until the page shows the step
        answer = chat.say(PRICE_LIST, pdf, working=STEP_1, held=summary)

    _same_request(chat.sent[0], captured_run("agent-chat-ui-pdf.json"))
    assert "sourdough loaf 4.20 EUR" in answer.inner_text() and "Deliverables:" in answer.inner_text()
    assert chat.kinds() == ["human", "ai"]
    assert "bakery.pdf" in chat.page.locator(".message.human").inner_text()
    frames: list[str] = chat.page.evaluate("window.paorFrames")
    stepped = [i for i, frame in enumerate(frames) if STEP_1.search(frame)]
    assert stepped and frames[stepped[0]].startswith("Working on it. I understood: "), frames
    assert "Step " not in frames[-1], "the answer replaces the progress message"


def test_an_image_is_named_in_the_answer_with_why_it_cannot_be_read(chat: Chat, tmp_path: Path) -> None:
    answer = chat.say(PRICE_LIST, _file_of("agent-chat-ui-image.json", "chart.png", tmp_path))

    _same_request(chat.sent[0], captured_run("agent-chat-ui-image.json"))
    assert "chart.png cannot be read: it is an image (image/png)" in answer.inner_text()
    assert "chart.png cannot be read" in chat.page.locator("#error").inner_text()


def test_a_pdf_with_an_image_reads_the_pdf_and_names_the_image_below_the_answer(chat: Chat, tmp_path: Path) -> None:
    """The scripted model takes no images (HTTP 400 to the probe), so the PNG is left out and the PDF answers."""
    pdf = _file_of("agent-chat-ui-pdf.json", "bakery.pdf", tmp_path)
    answer = chat.say(PRICE_LIST, pdf, _file_of("agent-chat-ui-image.json", "chart.png", tmp_path))

    text_block, pdf_block = captured_run("agent-chat-ui-pdf.json")["input"]["messages"][0]["content"]
    image_block = captured_run("agent-chat-ui-image.json")["input"]["messages"][0]["content"][1]
    assert chat.sent[0]["input"]["messages"][-1]["content"] == [text_block, pdf_block, image_block]
    text = answer.inner_text()
    assert "sourdough loaf 4.20 EUR" in text and "Deliverables:" in text, "the PDF was read"
    assert f"chart.png — not read: {NO_IMAGES}" in text
    assert chat.page.locator("#error").count() == 0, "the round went on: no error"


def test_the_answer_streams_into_one_message_and_its_link_opens_from_another_origin(
    chat: Chat, api: Api, monkeypatch: pytest.MonkeyPatch
) -> None:
    answer = chat.say(PRODUCT)

    frames: list[str] = chat.page.evaluate("window.paorFrames")
    streamed = [f for f in frames if PRODUCT_ANSWER.startswith(f.strip()) and f.strip() != PRODUCT_ANSWER]
    assert len(streamed) >= 3, f"the answer arrived at once: {frames}"
    assert frames[0].startswith("Working on it. I understood: an answer"), "the first sign of life"
    assert chat.kinds() == ["human", "ai"] and answer.inner_text().startswith(PRODUCT_ANSWER)

    link = answer.locator("a", has_text="result.md")
    href = link.get_attribute("href") or ""
    page_api = urlsplit(chat.page.evaluate("new URLSearchParams(location.search).get('api')"))
    assert urlsplit(href).netloc == page_api.netloc != urlsplit(chat.page.url).netloc, "absolute, to the API's origin"
    assert "signature=" in href and "expires=" not in href, "bound to the thread, not to a clock"
    with chat.page.expect_download() as download:
        link.click()
    assert Path(download.value.path()).read_text() == PRODUCT_ANSWER, "the link alone opens the document"

    tab = chat.page.context.browser.new_page()  # a dead link, opened as a click opens it: its page says why
    for name, dead, title, why in (
        ("expired", _expired(api, href, monkeypatch), "This download link has expired", "result.md expired at"),
        ("changed", href.replace("result.md", "other.md"), "This download link no longer works", "not one this"),
    ):
        response = tab.goto(dead)
        assert response is not None and response.status == 410, dead
        assert tab.title() == tab.locator("h1").inner_text() == title
        shown = tab.locator("body").inner_text()
        assert why in shown and "fresh link" in shown and PRODUCT_ANSWER not in shown, shown
        tab.screenshot(path=str(chat.shots / f"dead-{name}.png"))


def test_a_follow_up_is_sent_as_agent_chat_ui_sends_it_and_finishes(chat: Chat, api: Api) -> None:
    chat.say(PRODUCT)
    answer = chat.say(FOLLOW_UP)

    _same_request(chat.sent[1], captured_run("agent-chat-ui-follow-up.json"))
    assert answer.inner_text().startswith(FIRST_10)
    assert chat.kinds() == ["human", "ai", "human", "ai"]
    answering = [r for r in api.llm.requests_for("text") if FOLLOW_UP in r.text]
    assert answering and PRODUCT in answering[-1].text and PRODUCT_ANSWER in answering[-1].text, "the conversation"


def test_a_wrong_key_is_told_on_the_page(page_url: str, api: Api, shots: Path) -> None:
    """The page reads the gate's 401 and its detail (without CORS headers on it, only "Failed to fetch")."""
    with _chat_page(page_url, api.url, "not-the-key", shots) as chat:
        chat.page.fill("#prompt", PRODUCT)
        chat.page.click("button[type=submit]")
        error = chat.page.locator("#error")
        error.wait_for()
        chat.shoot("wrong-key")
        assert error.inner_text() == f"{REFUSAL} (HTTP 401)", "the server's own words"


@pytest.fixture(scope="module")
def paor_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """One `paor serve` instance (Aegra, PostgreSQL, Redis) with auth on, for the same page (issues 51 and 53)."""
    from tests.support.paor_serve import MISSING, service

    if MISSING:
        pytest.skip(MISSING)
    root = tmp_path_factory.mktemp("browser-serve")
    with ScriptedLLM(stream_delay_s=0.05) as llm:
        script_chat(llm)
        with service(root, llm.base_url, KEY) as running:
            [instance] = running.start(1)
            yield Api(instance.url, root / "paor-home", llm)


def test_on_paor_serve_the_answers_link_is_absolute_and_opens_from_the_chats_origin(
    page_url: str, paor_serve: Api, shots: Path
) -> None:
    """The link in a chat answer on `paor serve` was relative (Aegra passes no request headers to runs): clicked on
    the chat's own origin, it landed on the chat's 404."""
    with _chat_page(page_url, paor_serve.url, KEY, shots) as chat:
        answer = chat.say(PRODUCT)
        assert chat.kinds() == ["human", "ai"] and answer.inner_text().startswith(PRODUCT_ANSWER)
        href = answer.locator("a", has_text="result.md").get_attribute("href") or ""
        served = urlsplit(paor_serve.url).netloc
        assert urlsplit(href).netloc == served != urlsplit(chat.page.url).netloc, href
        with chat.page.expect_download() as download:
            answer.locator("a", has_text="result.md").click()
        assert Path(download.value.path()).read_text() == PRODUCT_ANSWER, "the link alone opens the document"
        chat.shoot("paor-serve")
