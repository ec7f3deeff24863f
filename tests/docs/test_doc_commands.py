"""Every `corpus` command line in README.md and docs/*.md runs as written.

Each line runs in a scratch git repository built from the examples (tests/docs/scratch.py),
with `bash -u`, as a user would paste it: every `corpus` it starts must exit 0 or 1 — never 2
(a usage or input error) — without a traceback. What is not run is reported here, by kind:
synopses (placeholders in capitals, `[optional]`, `a|b`; their flags are checked by
test_doc_flags.py), bare command names (test_command_names.py), blocks another test runs whole,
and lines under an `<!-- illustrative: REASON -->` marker, which must stay few and say why.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.doc_lines import DocLine, command_lines, docs
from tests.docs.running import prepare, run_lines
from tests.docs.scratch import this_repository, your_repository

# Fenced blocks another test runs whole, in the setting they need: (doc, section) -> test.
RUN_ELSEWHERE = {
    ("README.md", "Quick start in your repository"): "tests/docs/test_quickstart.py",
    ("README.md", "A GitHub Actions workflow"): "tests/gate/test_readme_workflow.py",
    ("docs/replay.md", "Two model sources: recorded and live"): "tests/replay/test_live.py",
}
MOST_ILLUSTRATIVE = 3
Templates = Callable[[str], Path]


def _elsewhere(line: DocLine) -> bool:
    return line.block is not None and (line.doc, line.section) in RUN_ELSEWHERE


def runnable(root: Path, doc: Path) -> list[list[DocLine]]:
    """The command lines of `doc` to run, grouped: a fenced block's lines run in one shell."""
    units: dict[tuple[int, int], list[DocLine]] = {}
    for line in command_lines(root, doc):
        if line.kind == "command" and not _elsewhere(line):
            key = (0, line.block) if line.block is not None else (1, line.number)
            units.setdefault(key, []).append(line)
    return list(units.values())


def family(unit: list[DocLine]) -> str:
    """This repository's examples, or a user's repository with its corpus in evals/."""
    return "this" if any("examples/" in line.text for line in unit) else "yours"


@pytest.fixture(scope="session")
def templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Templates]:
    """The two scratch areas, each built the first time a line needs it."""
    built: dict[str, Path] = {}
    builders = {"this": this_repository, "yours": your_repository}

    def template(name: str) -> Path:
        if name not in built:
            area = tmp_path_factory.mktemp(f"docs-{name}")
            builders[name](area)
            built[name] = area
        return built[name]

    yield template
    for area in built.values():
        shutil.rmtree(area, ignore_errors=True)


def problems_of(units: list[list[DocLine]], templates: Templates, scratch: Path) -> list[str]:
    """Every way the lines of `units` are not true as written."""
    found: list[str] = []
    for number, unit in enumerate(units):
        area = prepare(templates(family(unit)), scratch / f"unit-{number}")
        for outcome in run_lines(unit, area):
            found += outcome.problems()
    return found


DOCS = [d for d in docs(ROOT) if runnable(ROOT, d)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_command_line_of_the_doc_runs(
    doc: Path, templates: Templates, tmp_path: Path
) -> None:
    problems = problems_of(runnable(ROOT, doc), templates, tmp_path)
    assert not problems, "\n".join(problems)


def _all_lines(root: Path) -> list[DocLine]:
    return [line for doc in docs(root) for line in command_lines(root, doc)]


def test_the_walk_finds_the_documented_lines() -> None:
    """Commands of every kind are found, so the tests above cannot pass on nothing."""
    kinds: dict[str, set[str]] = {}
    for line in _all_lines(ROOT):
        kinds.setdefault(line.kind, set()).add(line.text)
    assert "corpus -C examples/corpus check --mode lenient" in kinds["command"]  # inline
    assert any(t.startswith("corpus forget --dry-run") for t in kinds["command"])  # fenced
    assert any(t.startswith("corpus add INCIDENT... [--keep-going]") for t in kinds["synopsis"])
    assert "corpus validate" in kinds["name"]
    assert sum(len(unit) for doc in docs(ROOT) for unit in runnable(ROOT, doc)) >= 25


def test_lines_not_run_are_few_and_say_why() -> None:
    """The lines no test here runs: each marked one has a reason, and they stay few; the
    blocks run elsewhere are run by a test that reads them from their section."""
    illustrative = [line for line in _all_lines(ROOT) if line.kind == "illustrative"]
    assert all(len(line.illustrative or "") > 20 for line in illustrative), illustrative
    shown = "\n".join(f"{line.where}: {line.illustrative}" for line in illustrative)
    assert len(illustrative) <= MOST_ILLUSTRATIVE, f"too many illustrative lines:\n{shown}"
    elsewhere = [line for line in _all_lines(ROOT) if _elsewhere(line)]
    assert {(line.doc, line.section) for line in elsewhere} == set(RUN_ELSEWHERE)
    for (_, section), test in RUN_ELSEWHERE.items():
        assert section in (ROOT / test).read_text(encoding="utf-8"), f"{test} runs {section}"


@pytest.mark.parametrize(
    ("planted", "line", "said"),
    [
        ("Run `corpus -C examples/corpus check --fast-only`.", 3, "exited 2"),
        ("```sh\ncorpus validate --staged\ncorpus mv refund-success\n```", 5, "exited 2"),
        ('```sh\ncorpus -C evals affected --base "$NO_SUCH_VARIABLE"\n```', 4, "unbound variable"),
        (
            "```yaml\n- run: corpus -C evals affected --base ${{ secrets.BASE }}\n```",
            4,
            "bad subst",
        ),
    ],
)
def test_a_documented_line_that_fails_is_reported(
    planted: str, line: int, said: str, templates: Templates, tmp_path: Path
) -> None:
    docs_root = tmp_path / "docs-copy"
    (docs_root / "docs").mkdir(parents=True)
    (docs_root / "docs/planted.md").write_text(f"# Planted\n\n{planted}\n", encoding="utf-8")
    units = runnable(docs_root, docs_root / "docs/planted.md")
    found = problems_of(units, templates, tmp_path / "scratch")
    assert found and all(p.startswith(f"docs/planted.md:{line}: ") for p in found), found
    assert any(said in problem for problem in found), found
