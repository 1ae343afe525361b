"""The catalog: unavailable actions are left out with their reason; a bad allow-list is a configuration error."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import tools.catalog as catalog_module
from core.errors import ConfigurationError
from tools.catalog import (
    allowed_entries,
    catalog,
    mark_unavailable,
    render_tiny_catalog,
    unavailable,
    unavailable_notes,
)


@pytest.fixture
def scrape_withdrawn() -> Iterator[None]:
    """web.scrape withdrawn as a failed import would; the registry is restored afterwards."""
    saved, saved_missing = dict(catalog()), unavailable()
    mark_unavailable("web.scrape", "tools.web.scrape_tool cannot be imported (ImportError: broken)")
    yield
    catalog_module._REGISTRY.clear()
    catalog_module._REGISTRY.update(saved)
    catalog_module._UNAVAILABLE.clear()
    catalog_module._UNAVAILABLE.update(saved_missing)


def test_an_unavailable_action_is_offered_nowhere_and_named_with_its_reason(scrape_withdrawn: None) -> None:
    assert "web.scrape" not in catalog()
    assert "web.scrape" not in [e.display_name for e in allowed_entries()]
    assert unavailable_notes() == [
        "web.scrape is unavailable: tools.web.scrape_tool cannot be imported (ImportError: broken)"
    ]


def test_an_allow_list_drops_the_unavailable_action_and_keeps_the_rest(scrape_withdrawn: None) -> None:
    chosen = allowed_entries(["ai.process", "web.scrape"])
    assert [e.display_name for e in chosen] == ["ai.process"]
    assert unavailable_notes(["ai.process", "web.scrape"]) != []
    assert unavailable_notes(["ai.process"]) == []  # not allowed anyway: nothing to tell this run


def test_an_allow_list_of_which_nothing_can_run_is_a_configuration_error(scrape_withdrawn: None) -> None:
    with pytest.raises(ConfigurationError, match=r"none of the allowed actions .* is available here"):
        allowed_entries(["web.scrape"])


def test_an_allow_list_naming_an_action_that_does_not_exist_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown actions \['web.teleport'\]"):
        allowed_entries(["ai.process", "web.teleport"])


def test_the_tiny_catalog_names_every_parameter_once_and_an_extension_by_what_it_extends() -> None:
    """web.scrape takes web.search's ten parameters and two more: Stage 1 reads them once, not twice."""
    lines = render_tiny_catalog(allowed_entries(["web.search", "web.scrape", "code.execute"])).splitlines()
    search, scrape, code = lines
    assert search.startswith("- web.search(query,maxResults,searchDepth,timeRange,topic,includeDomains,")
    assert scrape.startswith("- web.scrape(web.search's parameters,extractDepth,format) — ")
    assert code.startswith("- code.execute(code,documentList) — ")
    alone = render_tiny_catalog(allowed_entries(["web.scrape"]))  # nothing listed before it to refer to
    assert alone.startswith("- web.scrape(query,maxResults,") and alone.count("\n") == 0
