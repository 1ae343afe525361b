"""With many brought tools Stage 1 is offered the relevant few, in any language; paor's own actions and learned
tools always."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import pytest
from langgraph.store.memory import InMemoryStore

from bench.mcp_tools import REQUESTS, catalog_of_fifty
from core.context import Context
from core.llm import Models
from core.tokens import count_tokens
from graph.builder import RECURSION_LIMIT, make_builder
from nodes.services import Services
from tests.mcp.scenarios import ANSWER_INTENT, offered_actions, selection
from tests.support.scripted_llm import ScriptedLLM
from tools.catalog import CatalogEntry, catalog
from tools.extra.actions import ExtraActions
from tools.extra.ranking import OFFERED, describe, offered_entries, rank

#: The benchmark's requests as a German and a French user write them (bench/mcp_tools.py has the English ones).
TRANSLATED = [
    ("Wie spät ist es gerade in Tokio?", "mcp.time.get_current_time"),
    ("Rechne 9:30 Uhr New Yorker Zeit in Berliner Zeit um", "mcp.time.convert_time"),
    ("Zeige die letzten 5 Commits des Repositorys unter /srv/app", "mcp.git.git_log"),
    ("Welche Dateien in /srv/app sind geändert, aber nicht gestaged?", "mcp.git.git_diff_unstaged"),
    ("Erstelle im Repo /srv/app einen Branch namens release-2", "mcp.git.git_create_branch"),
    ("Addiere die Zahlen 17 und 25", "mcp.everything.get-sum"),
    ("Liste das Verzeichnis /data mit Dateigrößen auf", "mcp.filesystem.list_directory_with_sizes"),
    ("Durchsuche das Gedächtnis des Wissensgraphen nach Knoten über Alice", "mcp.memory.search_nodes"),
    ("Lies die Textdatei /data/notes.txt", "mcp.filesystem.read_text_file"),
    ("Speichere im Gedächtnis die Beziehung: Alice arbeitet bei Acme", "mcp.memory.create_relations"),
    ("Quelle heure est-il à Tokyo en ce moment ?", "mcp.time.get_current_time"),
    ("Convertis 9h30 à New York en heure de Berlin", "mcp.time.convert_time"),
    ("Montre les 5 derniers commits du dépôt /srv/app", "mcp.git.git_log"),
    ("Quels fichiers sont modifiés mais pas indexés dans /srv/app ?", "mcp.git.git_diff_unstaged"),
    ("Crée une branche nommée release-2 dans le dépôt /srv/app", "mcp.git.git_create_branch"),
    ("Additionne les nombres 17 et 25", "mcp.everything.get-sum"),
    ("Liste le répertoire /data avec la taille des fichiers", "mcp.filesystem.list_directory_with_sizes"),
    ("Cherche dans la mémoire du graphe de connaissances les nœuds sur Alice", "mcp.memory.search_nodes"),
    ("Lis le fichier texte /data/notes.txt", "mcp.filesystem.read_text_file"),
    ("Enregistre en mémoire la relation : Alice travaille chez Acme", "mcp.memory.create_relations"),
]


def test_a_tool_is_embedded_as_its_server_its_name_in_words_and_its_summary() -> None:
    [log] = [e for e in catalog_of_fifty() if e.display_name == "mcp.git.git_log"]

    assert describe(log) == f"git git log: {log.summary}"


def test_up_to_eight_brought_tools_are_all_offered() -> None:
    extra = catalog_of_fifty()[:OFFERED]
    entries = [*catalog().values(), *extra]

    assert offered_entries(entries, "anything at all") == entries


@pytest.mark.parametrize(("request_text", "needed"), [*REQUESTS, *TRANSLATED])
def test_among_fifty_tools_the_needed_one_is_offered_in_english_german_and_french(
    request_text: str, needed: str
) -> None:
    builtins = list(catalog().values())

    offered = offered_entries([*builtins, *catalog_of_fifty()], request_text)

    assert needed in [e.display_name for e in offered]
    assert all(e in offered for e in builtins)
    assert len(offered) == len(builtins) + OFFERED


def test_a_tool_a_learned_strategy_names_is_offered_even_when_it_ranks_last() -> None:
    fifty = catalog_of_fifty()
    request = "Wie spät ist es in Tokio?"
    last = rank(fifty, request)[-1].display_name

    offered = offered_entries([*catalog().values(), *fifty], request, learned={last})

    assert last in [e.display_name for e in offered]
    assert last not in [e.display_name for e in offered_entries(fifty, request)]


class Listed(ExtraActions):
    """Brought actions from a fixed list: no live servers."""

    def __init__(self, entries: Sequence[CatalogEntry]) -> None:
        super().__init__()
        self._own = {e.display_name: e for e in entries}


def stage1(request: str, needed: str, entries: Sequence[CatalogEntry], folder: Path) -> tuple[int, list[str]]:
    """o200k tokens of the Stage-1 request one step of the real graph sends, and the actions it offers."""
    with ScriptedLLM() as llm:
        llm.on("Intent", json.dumps(ANSWER_INTENT))
        llm.on("ActionSelection", selection(needed, "Answer the request", {}))
        llm.on("ParametersAnswer", {"schema": "parameters_v1", "parameters": {}})
        services = Services(Models(injected=llm.model()), actions=Listed(entries) if entries else None)
        graph = make_builder(services).compile(store=InMemoryStore())
        context = Context(max_steps=1, learning=False, direct_answer=False, store_dir=str(folder))
        graph.invoke({"prompt": request}, {"recursion_limit": RECURSION_LIMIT}, context=context)
        [asked] = llm.requests_for("ActionSelection")[:1]
    return count_tokens(asked.text), offered_actions(asked)


def test_a_german_request_over_fifty_tools_gets_its_tool_within_twice_the_stage_one_tokens(tmp_path: Path) -> None:
    request, needed = TRANSLATED[8]  # "Lies die Textdatei …": offered none of the 50 before (issue 32)

    alone, _ = stage1(request, needed, [], tmp_path)
    with_fifty, offered = stage1(request, needed, catalog_of_fifty(), tmp_path)

    assert needed in offered
    assert len([name for name in offered if name.startswith("mcp.")]) == OFFERED
    assert with_fifty <= 2 * alone
