"""README stays the front door: short, its links resolve (on GitHub, where it is read), and its test command is CI's.

The docs site's own links and anchors are checked by `mkdocs build --strict` in `.ci/run`; these tests guard what
that build never sees (README.md lives outside `docs/`) and run without MkDocs installed.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
MAX_README_LINES = 300
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]


def _tokens(path: Path) -> list[Token]:
    return MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))


def _inline_text(token: Token) -> str:
    """A heading's text as GitHub renders it: code spans keep their content, markup goes."""
    return "".join(child.content for child in token.children or [] if child.type in {"text", "code_inline"})


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, each space a hyphen."""
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file; a repeated heading gets -1, -2, … as on GitHub."""
    tokens, seen, found = _tokens(path), Counter[str](), set()
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            slug = github_slug(_inline_text(tokens[i + 1]))
            found.add(f"{slug}-{seen[slug]}" if seen[slug] else slug)
            seen[slug] += 1
    return found


def relative_links(path: Path) -> list[str]:
    """The targets of the file's links and images that point into the repository (code blocks excluded)."""
    targets = []
    for token in _tokens(path):
        for child in token.children or []:
            target = child.attrs.get("href") if child.type == "link_open" else child.attrs.get("src")
            if child.type in {"link_open", "image"} and isinstance(target, str) and not urlsplit(target).scheme:
                targets.append(target)
    return targets


def unresolved(path: Path, target: str) -> str | None:
    """Why `target` (as written in `path`) leads nowhere, or None when its file and anchor exist."""
    parts = urlsplit(target)
    file = (path.parent / unquote(parts.path)).resolve() if parts.path else path
    if parts.path.startswith("/") or not file.is_relative_to(REPO):
        return f"{target}: not a path inside the repository"
    if not file.exists():
        return f"{target}: no file {file.relative_to(REPO)}"
    if parts.fragment and file.suffix == ".md" and parts.fragment not in anchors(file):
        return f"{target}: {file.relative_to(REPO)} has no heading #{parts.fragment}"
    return None


def test_readme_stays_a_front_door_of_at_most_300_lines() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, f"README.md has {lines} lines; move the detail into a docs/ page"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_resolves_to_a_file_and_anchor(page: Path) -> None:
    broken = [reason for target in relative_links(page) if (reason := unresolved(page, target))]
    assert not broken, "\n".join(broken)


def test_readme_links_into_the_docs_pages() -> None:
    targets = {urlsplit(t).path for t in relative_links(README)}
    assert {"docs/index.md", "docs/configuration.md", "docs/server.md"} <= targets


def test_a_broken_link_or_anchor_is_named() -> None:
    page = REPO / "docs" / "index.md"
    assert unresolved(page, "usage.md#python") is None
    assert (
        unresolved(page, "usage.md#no-such-heading")
        == "usage.md#no-such-heading: docs/usage.md has no heading #no-such-heading"
    )
    assert unresolved(page, "missing.md") == "missing.md: no file docs/missing.md"
    assert unresolved(page, "/docs/usage.md") == "/docs/usage.md: not a path inside the repository"


def test_github_slugs_of_the_headings_links_use() -> None:
    assert github_slug("Set-up (two commands)") == "set-up-two-commands"
    assert github_slug("paor's own routes") == "paors-own-routes"
    assert github_slug("Scoring a model: bench.models") == "scoring-a-model-benchmodels"


def _ci_test_command() -> str:
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    marker = lines.index("# The test command from README.md:")
    return next(line.strip() for line in lines[marker + 1 :] if line.strip())


def _setup_commands() -> list[str]:
    tokens = _tokens(README)
    start = next(i for i, t in enumerate(tokens) if t.type == "inline" and t.content.startswith("Set-up"))
    block = next(t for t in tokens[start:] if t.type == "fence")
    return [line for line in block.content.splitlines() if line.strip()]


def test_readmes_two_set_up_commands_run_the_agent_and_cis_exact_test_command() -> None:
    install_and_run, test = _setup_commands()
    assert "pip install -c constraints.txt" in install_and_run and "paor run " in install_and_run
    assert test == _ci_test_command() == "python -m pytest"
