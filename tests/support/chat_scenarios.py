"""One scripted model for what a chat user does with paor, shared by the chat server tests, the browser test and
the hand-run Agent Chat UI session of docs/chat.md.

It answers by the request it is working on: a one-line question (a direct answer, streamed), the primes scenario
(code first, then data), the follow-up "Now give me only the first 10", and a summary of an attached price list
(document.extract with a prompt, quoting the prices it was given). The content judge accepts what code cannot
decide.

`python -m tests.support.chat_scenarios [--api-key KEY] [--port 8123]` serves it: `langgraph dev` of this checkout
on loopback with the scripted model, until Ctrl-C.
"""

from __future__ import annotations

import argparse
import json
import re
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support import scenarios
from tests.support.scripted_llm import RecordedRequest, ScriptedLLM

PRODUCT = "What is 12 multiplied by 11?"
PRODUCT_ANSWER = "Twelve times eleven is 132: ten elevens are 110, and two more make 132."
FOLLOW_UP = "Now give me only the first 10"
FIRST_10 = "2, 3, 5, 7, 11, 13, 17, 19, 23, 29"
PRICE_LIST = "Summarise the attached price list"

_ANSWER_INTENT = {"dataType": "answer", "expectedFormat": "markdown", "successCriteria": ["gives 12 × 11"]}
_FOLLOW_UP_INTENT = {
    "dataType": "list",
    "expectedFormat": "markdown",
    "successCriteria": ["the first 10 prime numbers"],
    "itemCount": 10,
    "numberProperty": "prime",
}
_SUMMARY_INTENT = {"dataType": "text", "expectedFormat": "markdown", "successCriteria": ["summarises the price list"]}
_SUMMARY_CONTEXT = "Summarise the bakery price list in two sentences."
_SUMMARY_SELECTION = {
    "action": "document.extract",
    "actionObjective": "Read the attached price list and summarise it",
    "requiredInputDocuments": ["docList:input"],
    "parametersContext": _SUMMARY_CONTEXT,
    "parametersSchema": {"fields": [{"name": "aiPrompt", "type": "string", "required": True}]},
}
_PRICE = re.compile(r"([A-Za-z][a-z]+(?: [a-z]+)?) (\d+\.\d\d) EUR")


def _about(request: RecordedRequest) -> str:
    text = request.text
    if FOLLOW_UP in text:  # first: a follow-up's calls carry the conversation before it, the product request too
        return "follow-up"
    if PRODUCT in text:
        return "product"
    if PRICE_LIST in text or _SUMMARY_CONTEXT in text:
        return "summary"
    return "primes"


def _summary(request: RecordedRequest) -> str:
    """Quotes the prices it was given, so a test sees that the attachment reached the model."""
    prices = [f"{item.lower()} {price} EUR" for item, price in _PRICE.findall(request.text)]
    if not prices:
        return "The attached document did not reach me."
    return f"The bakery's price list has {len(prices)} items: " + ", ".join(prices) + "."


def _by(answers: dict[str, Any]) -> Callable[[RecordedRequest], Any]:
    def answer(request: RecordedRequest) -> Any:
        chosen = answers[_about(request)]
        return chosen(request) if callable(chosen) else chosen

    return answer


def script_chat(llm: ScriptedLLM) -> ScriptedLLM:
    llm.on(
        "Intent",
        _by(
            {
                "product": json.dumps(_ANSWER_INTENT),
                "follow-up": json.dumps(_FOLLOW_UP_INTENT),
                "summary": json.dumps(_SUMMARY_INTENT),
                "primes": json.dumps(scenarios.PRIMES_INTENT),
            }
        ),
    )
    llm.on("ActionSelection", _by({"summary": _SUMMARY_SELECTION, "primes": scenarios.selection}))
    summary_parameters = {"schema": "parameters_v1", "parameters": {"aiPrompt": _SUMMARY_CONTEXT}}
    llm.on("ParametersAnswer", _by({"summary": summary_parameters, "primes": scenarios.parameters}))
    llm.on(
        "text",
        _by({"product": PRODUCT_ANSWER, "follow-up": FIRST_10, "summary": _summary, "primes": scenarios.ai_process}),
    )
    return llm.on("ContentJudgement", {"criteriaMet": [True], "qualityScore": 0.9, "issues": [], "decision": "stop"})


def main() -> None:
    from tests.support.langgraph_dev import langgraph_dev, scripted_env

    parser = argparse.ArgumentParser(description="langgraph dev of this checkout with the scripted chat model")
    parser.add_argument("--api-key", default="", help="PAOR_SERVER_API_KEY (auth on, signed links)")
    parser.add_argument("--port", type=int, default=8123, help="the server's port (0: any free one)")
    parser.add_argument("--url-file", type=Path, help="write the server's URL here once it answers")
    parser.add_argument("--stream-delay", type=float, default=0.15, help="seconds before each streamed token")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))  # stops the server too, as Ctrl-C does
    workdir = Path(tempfile.mkdtemp(prefix="paor-chat-"))
    extra = {"PAOR_SERVER_API_KEY": args.api_key} if args.api_key else {}
    with ScriptedLLM(stream_delay_s=args.stream_delay) as llm:
        script_chat(llm)
        env = scripted_env(llm.base_url, workdir / "paor-home", **extra)
        with langgraph_dev(workdir, env, port=args.port or None) as url:
            if args.url_file:
                args.url_file.write_text(url)
            print(f"paor (scripted model) at {url}; data in {workdir}; Ctrl-C stops it", flush=True)
            try:
                while True:
                    time.sleep(1)
            except KeyboardInterrupt:
                pass


if __name__ == "__main__":
    main()
