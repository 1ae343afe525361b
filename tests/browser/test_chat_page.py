"""A real browser converses with paor: headless Chromium, driven by Playwright, types a request into a chat page
built on the LangGraph SDK's `useStream` (what Agent Chat UI is built on) and sees the answer.

Needs what `tests/browser/setup.sh` installs: Debian's `chromium` (Playwright's own browser download is not
used: `PAOR_CHROMIUM` or `chromium` on PATH), the `playwright` Python package, and the page built with npm. The
test skips, naming what is missing, without them. `PAOR_BROWSER_SCREENSHOT=FILE` keeps the last screenshot.
"""

from __future__ import annotations

import functools
import os
import shutil
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.langgraph_dev import scripted_langgraph_dev
from tests.support.scenarios import PRIMES_PROMPT, script_primes

PAGE = Path(__file__).parent / "page"
CHROMIUM = os.environ.get("PAOR_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")

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
    """The built page, served from loopback like any static site."""
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
    with scripted_langgraph_dev(tmp_path_factory.mktemp("browser"), script_primes) as url:
        yield url


def test_a_request_typed_in_the_browser_gets_the_answer(page_url: str, api_url: str, tmp_path: Path) -> None:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{page_url}?api={api_url}")
            page.locator("#prompt").wait_for(timeout=15_000)
            assert not errors, errors
            page.fill("#prompt", PRIMES_PROMPT)
            page.click("button[type=submit]")

            answer = page.locator(".message.ai", has_text="Here are the first 1000 prime numbers")
            answer.wait_for(timeout=120_000)
            page.locator("#working").wait_for(state="detached", timeout=60_000)
            shot = Path(os.environ.get("PAOR_BROWSER_SCREENSHOT") or tmp_path / "chat.png")
            page.screenshot(path=str(shot), full_page=False)

            assert not errors and page.locator("#error").count() == 0, errors
            assert page.locator(".message").evaluate_all("els => els.map(e => e.dataset.type)") == ["human", "ai"]
            assert "2, 3, 5, 7, 11, 13" in answer.inner_text()
            assert "Deliverables:" in answer.inner_text() and "result.md" in answer.inner_text()
        finally:
            browser.close()
