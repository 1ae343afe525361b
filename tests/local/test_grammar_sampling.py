"""The launcher's grammar-last sampling answers with the library's tokens, only sooner (cli/grammar_sampling.py).

A real tiny model answers paor's Stage-1 shape in process, greedy, once with llama-cpp-python's own sampler chain
and once with the grammar checked last: the answers must be the same to the character, and the second must have
gone through `GrammarLast`. Sampling with a temperature keeps the library's chain.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from bench.grammar_sampling import stage_1_answer
from tests.local import LLAMA_THREADS, NEEDS_SMOLLM2

pytestmark = NEEDS_SMOLLM2
REQUEST = "What changed in the EU AI Act?"


@pytest.fixture(scope="module")
def llama() -> Iterator[Any]:
    import llama_cpp.llama_cpp as lib
    from llama_cpp import Llama

    from cli.llama_server import disable_extra_bufts
    from cli.local_model import local_model_path

    with pytest.MonkeyPatch.context() as patch:  # the launcher's change, for this model only
        patch.setattr(lib, "llama_model_default_params", lib.llama_model_default_params)
        disable_extra_bufts()
        model = Llama(
            model_path=str(local_model_path()), n_ctx=2048, n_threads=LLAMA_THREADS, n_threads_batch=1, verbose=False
        )
    yield model
    model.close()


def _digits_answer(llama: Any) -> str:
    """A grammar the model's own choice breaks at every step (it wants to write words): the grammar decides."""
    from llama_cpp.llama_grammar import LlamaGrammar

    llama.reset()
    grammar = LlamaGrammar.from_string('root ::= [0-9]+ " " [a-z]+', verbose=False)
    out = llama.create_completion("Write a short poem about cats:\n", grammar=grammar, temperature=0, max_tokens=24)
    return str(out["choices"][0]["text"])


def test_greedy_answers_are_the_librarys_token_for_token_and_go_through_grammar_last(
    llama: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cli import grammar_sampling

    grammar_sampling.uninstall()
    library = [stage_1_answer(llama, REQUEST, 96)[1], _digits_answer(llama)]
    used: list[int] = []
    sample = grammar_sampling.GrammarLast.sample
    monkeypatch.setattr(grammar_sampling.GrammarLast, "sample", lambda self, *a: used.append(1) or sample(self, *a))
    grammar_sampling.install()
    try:
        ours = [stage_1_answer(llama, REQUEST, 96)[1], _digits_answer(llama)]
    finally:
        grammar_sampling.uninstall()
    assert ours == library, ours
    assert ours[1].split(" ")[0].isdigit()
    assert len(used) > 5, "the answer did not go through GrammarLast"


def test_sampling_with_a_temperature_keeps_the_librarys_chain(llama: Any) -> None:
    from llama_cpp import Llama
    from llama_cpp.llama_grammar import LlamaGrammar

    from cli import grammar_sampling

    grammar_sampling.install()
    try:
        grammar = LlamaGrammar.from_string('root ::= "yes" | "no"', verbose=False)
        hot = Llama._init_sampler(llama, temp=0.7, grammar=grammar)
        cold = Llama._init_sampler(llama, temp=0.0, grammar=grammar)
        plain = Llama._init_sampler(llama, temp=0.0, grammar=None)
    finally:
        grammar_sampling.uninstall()
    assert isinstance(cold, grammar_sampling.GrammarLast)
    assert not isinstance(hot, grammar_sampling.GrammarLast)
    assert not isinstance(plain, grammar_sampling.GrammarLast)


def test_a_llama_cpp_without_what_it_relies_on_keeps_the_librarys_sampling(monkeypatch: pytest.MonkeyPatch) -> None:
    import llama_cpp.llama_cpp as lib
    from llama_cpp import Llama

    from cli import grammar_sampling

    library = Llama._init_sampler
    monkeypatch.delattr(lib, "llama_sampler_apply")
    assert grammar_sampling.install() is False
    assert Llama._init_sampler is library
