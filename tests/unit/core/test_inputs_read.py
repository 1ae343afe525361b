"""Which inputs a round must read (nodes/inputs_read.py): the documents new to it and those its request names."""

from __future__ import annotations

from core.schemas import dump
from nodes.inputs_read import to_read, unread
from tests.unit.core.factories import ref

Q1, Q2 = ref(name="q1.pdf", data=b"1"), ref(name="q2.pdf", data=b"2")


def test_a_first_round_must_read_every_input() -> None:
    assert to_read({}, [Q1, Q2], "Summarise these") == [Q1.item_reference, Q2.item_reference]


def test_a_later_round_must_read_only_what_is_new_or_named() -> None:
    """A caller's `documents` stay in the thread's state: "Now only the first 10" need not read them again."""
    earlier = {"input_documents": [dump(Q1), dump(Q2)]}
    assert to_read(earlier, [Q1, Q2], "Now only the first 10") == []
    assert to_read(earlier, [Q1, Q2], "What does Q2.pdf say about costs?") == [Q2.item_reference]
    changed = ref(name="q1.pdf", data=b"edited")
    assert to_read(earlier, [changed, Q2], "Again") == [changed.item_reference], "the same name with new content"


def test_a_round_checkpointed_before_the_field_must_read_all_its_inputs() -> None:
    state = {"input_documents": [dump(Q1), dump(Q2)]}
    assert [r.name for r in unread(state, [])] == ["q1.pdf", "q2.pdf"]
    assert unread({**state, "inputs_to_read": [Q2.item_reference]}, []) == [Q2]
