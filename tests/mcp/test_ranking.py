"""With many brought tools Stage 1 is offered the relevant few; paor's own actions and learned tools always."""

from __future__ import annotations

from bench.mcp_tools import catalog_of_fifty
from tools.catalog import catalog
from tools.extra.ranking import OFFERED, offered_entries, words


def test_words_split_names_and_prose_into_stems() -> None:
    assert words("get_current_time") == ["current", "time"]
    assert words("gitLog listBranches") == ["git", "log", "list", "branche"]
    assert words("What are the commits in my repos?") == ["commit", "repo"]


def test_up_to_eight_brought_tools_are_all_offered() -> None:
    extra = catalog_of_fifty()[:OFFERED]
    entries = [*catalog().values(), *extra]

    assert offered_entries(entries, "anything at all") == entries


def test_among_fifty_tools_the_needed_one_is_offered_with_every_built_in_action() -> None:
    extra = catalog_of_fifty()
    builtins = list(catalog().values())
    entries = [*builtins, *extra]

    for request, needed in [
        ("What time is it in Tokyo right now?", "mcp.time.get_current_time"),
        ("Show the last 5 commits of the repository at /srv/app", "mcp.git.git_log"),
        ("Convert 9:30 in New York to Berlin time", "mcp.time.convert_time"),
        ("Add the numbers 17 and 25", "mcp.everything.get-sum"),
    ]:
        offered = offered_entries(entries, request)
        names = [e.display_name for e in offered]
        assert needed in names, request
        assert all(e in offered for e in builtins)
        assert len(offered) <= len(builtins) + OFFERED


def test_a_tool_a_learned_strategy_names_is_offered_even_when_the_words_do_not_match() -> None:
    entries = [*catalog().values(), *catalog_of_fifty()]

    offered = offered_entries(entries, "Wie spät ist es in Tokio?", learned={"mcp.time.get_current_time"})

    assert "mcp.time.get_current_time" in [e.display_name for e in offered]
