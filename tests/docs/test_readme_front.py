"""The README is a front door: its first screen (60 lines) says what a newcomer needs before
anything else — the requirements, the loop in three steps, what replay needs from an agent, the
two set-up commands — and each section about a command links the docs page that holds its
reference. `.ci/run` runs exactly the README's test command."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import ROOT

FIRST_SCREEN = 60
MAIN_JOB = ".venv/bin/pip install . && .venv/bin/corpus -C examples/corpus check"
TESTS = ".venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest -n 2"
# the sections of the README that are about commands, from "Commands" to "Reference pages"
FIRST_COMMAND_SECTION, LAST = "## Commands", "## Reference pages"


def _readme(root: Path = ROOT) -> list[str]:
    return (root / "README.md").read_text(encoding="utf-8").splitlines()


def _blocks(lines: list[str]) -> list[tuple[str, list[str]]]:
    """(language, lines) of each fenced block."""
    found, opened, body = [], None, []
    for line in lines:
        fence = re.match(r"^```(\w*)", line)
        if fence and opened is None:
            opened, body = fence.group(1), []
        elif line.startswith("```") and opened is not None:
            found.append((opened, body))
            opened = None
        elif opened is not None:
            body.append(line)
    return found


def first_screen_gaps(lines: list[str]) -> list[str]:
    """What the first screen of a README lacks."""
    screen = lines[:FIRST_SCREEN]
    text = "\n".join(screen)
    gaps = []
    for needed in ("Python ≥ 3.10", "git", "Linux", "macOS"):
        if needed not in text:
            gaps.append(f"requirements: no {needed!r}")
    steps = [line for line in screen if re.match(r"^[1-3]\. ", line)]
    loop = " ".join(steps)
    if len(steps) != 3 or not all(w in loop for w in ("corpus add", "expected.yaml", "check")):
        gaps.append("the loop: no three numbered steps add -> review expected.yaml -> check")
    sketches = [body for lang, body in _blocks(screen) if lang == "python"]
    if not any("rt.model(" in "\n".join(b) and "rt.tool(" in "\n".join(b) for b in sketches):
        gaps.append("the agent sketch: no python block calling rt.model and rt.tool")
    elif min(len(b) for b in sketches) > 12:
        gaps.append("the agent sketch is longer than a dozen lines")
    commands = [line for lang, body in _blocks(screen) if lang == "sh" for line in body]
    for command in (MAIN_JOB, TESTS):
        if not any(line.endswith(command) for line in commands):
            gaps.append(f"the two commands: no `{command}`")
    return gaps


def unlinked_sections(lines: list[str]) -> list[str]:
    """Command sections of the README without a link to a page of docs/."""
    start, end = lines.index(FIRST_COMMAND_SECTION), lines.index(LAST)
    sections: dict[str, list[str]] = {}
    current = ""
    for line in lines[start:end]:
        if re.match(r"#{2,3} ", line):
            current = line
        sections.setdefault(current, []).append(line)
    return [
        heading
        for heading, body in sections.items()
        if not re.search(r"\]\(docs/[\w-]+\.md", "\n".join(body))
    ]


def test_the_first_screen_holds_what_a_newcomer_needs() -> None:
    assert first_screen_gaps(_readme()) == []


def test_every_command_section_links_its_docs_page() -> None:
    lines = _readme()
    assert unlinked_sections(lines) == []
    table = [line for line in lines if line.startswith("| ") and "`corpus " in line]
    assert len(table) >= 10, "the command table"
    assert [row for row in table if "](docs/" not in row and "<repo-url>" not in row] == []


def test_ci_runs_exactly_the_readme_test_command() -> None:
    ci = (ROOT / ".ci/run").read_text(encoding="utf-8").strip().splitlines()[-1]
    readme = [line for _, body in _blocks(_readme()[:FIRST_SCREEN]) for line in body]
    assert ci in readme and ci.endswith(TESTS)


def test_a_readme_of_reference_first_is_refused() -> None:
    """The checks are not vacuous: the first screen of a README that starts with reference
    (the shape of this README before it became a front door) is found lacking."""
    lines = ["# tool", "", "## Commands", "", "| command | what |", *["text"] * 70]
    gaps = first_screen_gaps(lines)
    assert any(g.startswith("requirements") for g in gaps)
    assert any(g.startswith("the loop") for g in gaps)
    assert any(g.startswith("the agent sketch") for g in gaps)
    assert sum(g.startswith("the two commands") for g in gaps) == 2
    lines += ["### `corpus add`", "adds", "## Reference pages"]
    assert unlinked_sections(lines) == ["## Commands", "### `corpus add`"]
