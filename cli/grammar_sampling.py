"""Greedy grammar-constrained sampling that checks the model's own choice first, as llama.cpp's common sampler does.

llama-cpp-python puts the JSON grammar in its sampler chain before the choice, so every token of a schema-constrained
answer checks the grammar against the whole vocabulary: with Gemma's 262,000 tokens that took 94 ms a token where
grammar-last takes 42 (Dec 2, a 200-token answer, one thread beside a busy core). Checked first, the token the model
prefers almost always fits the grammar (189 of 200 there), and only where it does not is the grammar applied to the
rest. For a greedy choice (temperature 0, what paor asks of a local model) the answer is the same token by token:
the best token that fits is the best token when the best fits. Other sampling keeps the library's chain, whose
distribution this would change. `python -m bench.grammar_sampling` measures whole Stage-1 answers, prompt included.
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    from llama_cpp import Llama


class GrammarLast:
    """A sampler for `Llama.generate`: `chain` without the grammar (penalties, then the greedy choice), the grammar
    applied only when the chain's choice breaks it; both accept the chosen token."""

    def __init__(self, chain: Any, llama: Llama, grammar: Any) -> None:
        import llama_cpp.llama_cpp as lib  # the `local` extra: imported where a server samples
        import numpy as np

        self._lib, self._np = lib, np
        self._chain = chain
        self._grammar = lib.llama_sampler_init_grammar(
            llama._model.vocab, grammar._grammar.encode("utf-8"), grammar._root.encode("utf-8")
        )
        self._n_vocab = llama.n_vocab()
        self._data = (lib.llama_token_data * self._n_vocab)()
        self._view = np.ctypeslib.as_array(self._data)
        self._ids = np.arange(self._n_vocab, dtype=np.int32)
        self._one = (lib.llama_token_data * 1)()

    def sample(self, ctx: Any, idx: int = -1) -> int:
        lib = self._lib
        logits = self._np.ctypeslib.as_array(lib.llama_get_logits_ith(ctx.ctx, idx), shape=(self._n_vocab,))
        token = self._choose(logits, constrained=False)
        if not self._fits(token):
            token = self._choose(logits, constrained=True)
        lib.llama_sampler_accept(self._grammar, token)
        self._chain.accept(token)
        return token

    def _choose(self, logits: np.ndarray, *, constrained: bool) -> int:
        self._view["id"] = self._ids
        self._view["logit"] = logits
        self._view["p"] = 0.0
        lib = self._lib
        candidates = lib.llama_token_data_array(self._data, self._n_vocab, -1, False)
        if constrained:
            lib.llama_sampler_apply(self._grammar, ctypes.byref(candidates))
        lib.llama_sampler_apply(self._chain.sampler, ctypes.byref(candidates))
        return int(self._view["id"][candidates.selected])

    def _fits(self, token: int) -> bool:
        lib = self._lib
        self._one[0] = lib.llama_token_data(token, 0.0, 0.0)
        lib.llama_sampler_apply(self._grammar, ctypes.byref(lib.llama_token_data_array(self._one, 1, -1, False)))
        return bool(self._np.isfinite(self._one[0].logit))

    def __del__(self) -> None:
        grammar, self._grammar = getattr(self, "_grammar", None), None
        if grammar is not None:
            self._lib.llama_sampler_free(grammar)


def grammar_last(init_sampler: Callable[..., Any]) -> Callable[..., Any]:
    """`Llama._init_sampler` with the grammar checked last where the choice is greedy."""

    @functools.wraps(init_sampler)
    def init(self: Llama, *args: Any, **kwargs: Any) -> Any:
        grammar = kwargs.get("grammar")
        if grammar is None or args or kwargs.get("temp") != 0.0 or kwargs.get("logits_processor") is not None:
            return init_sampler(self, *args, **kwargs)
        return GrammarLast(init_sampler(self, **{**kwargs, "grammar": None}), self, grammar)

    init.library_sampler = init_sampler  # type: ignore[attr-defined]
    return init


#: What `GrammarLast` calls of llama.cpp's C API and of `Llama`: a release without them keeps the library's sampling.
_NEEDS = ("llama_sampler_init_grammar", "llama_sampler_apply", "llama_sampler_accept", "llama_get_logits_ith")


def install() -> bool:
    """Every `Llama` in this process samples greedy grammar-constrained answers with `GrammarLast`; False (and the
    library's own sampling) where the installed llama-cpp-python lacks what it relies on."""
    import inspect

    import llama_cpp.llama_cpp as lib
    from llama_cpp import Llama

    if hasattr(Llama._init_sampler, "library_sampler"):
        return True
    takes = inspect.signature(Llama._init_sampler).parameters
    if not all(hasattr(lib, name) for name in _NEEDS) or not {"temp", "grammar", "logits_processor"} <= set(takes):
        return False
    Llama._init_sampler = grammar_last(Llama._init_sampler)  # type: ignore[method-assign]
    return True


def uninstall() -> None:
    """The library's own sampling again (the benchmark's baseline)."""
    from llama_cpp import Llama

    Llama._init_sampler = getattr(Llama._init_sampler, "library_sampler", Llama._init_sampler)  # type: ignore[method-assign]
