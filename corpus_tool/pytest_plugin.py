"""pytest plugin: `pytest --corpus DIR` collects each case of a corpus as a test item.

Items carry markers by tier (`tier_fast`) and tag (`tag_inventory`), are named by case id (so
`-k refund-success` picks one), and spread over processes with pytest-xdist (`-n 2`).
Without `--corpus` the plugin does nothing.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from corpus_tool.errors import CorpusError
from corpus_tool.io import escapes
from corpus_tool.store.corpus import (
    CASES,
    CONFIG_NAME,
    WAIVERS,
    Corpus,
    find_root,
    locate,
    open_corpus,
)

if TYPE_CHECKING:
    from corpus_tool.replay.cases import CaseResult, LoadedCase
    from corpus_tool.replay.runner import RunOptions
    from corpus_tool.replay.workers.pool import Pool
    from corpus_tool.validate.run import Caches, ValidationRun
    from corpus_tool.waivers.book import Book

_POOL = pytest.StashKey["Pool"]()
_CORPUS = pytest.StashKey[Corpus]()
_BOOK = pytest.StashKey["Book"]()
_VALIDATION: pytest.StashKey[tuple[Caches, ValidationRun]] = pytest.StashKey()
_REPLAYS = pytest.StashKey["Replays"]()
_ORDER = pytest.StashKey["list[str]"]()

MARKERS = {
    "tier_fast": "corpus case of tier fast (every commit)",
    "tier_full": "corpus case of tier full (nightly)",
    "tier_archive": "corpus case of tier archive (kept, not run)",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("corpus", "corpus-tool regression cases")
    group.addoption(
        "--corpus",
        metavar="DIR",
        default=None,
        help="collect every case of the corpus in DIR (the directory of corpus.yaml)",
    )
    group.addoption(
        "--corpus-mode",
        choices=("strict", "lenient"),
        default=None,
        help="matching mode for every case (overrides expected.yaml and corpus.yaml)",
    )
    group.addoption(
        "--corpus-model",
        choices=("recorded", "live"),
        default=None,
        help="where the model's answers come from (live: corpus.yaml replay.live_model)",
    )
    group.addoption(
        "--corpus-case",
        metavar="ID",
        action="append",
        default=None,
        help="collect only this case (repeatable; `corpus affected --format pytest` prints these)",
    )


CORPUS_ROOT = pytest.StashKey[Path]()
"""The corpus directory this run collects (from --corpus, or found for --corpus-case)."""


def pytest_configure(config: pytest.Config) -> None:
    given = config.getoption("corpus", default=None)
    wanted = config.getoption("corpus_case", default=None) or []
    if not given and not wanted:
        return
    if not given:  # never a silent run of 0 items: find the corpus, or say what is missing
        given = str(_found_corpus(config))
    for name, text in MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    root = Path(given).resolve()
    if not (root / CONFIG_NAME).is_file():
        raise pytest.UsageError(f"--corpus {given}: no {CONFIG_NAME} there")
    config.stash[CORPUS_ROOT] = root
    unknown = sorted(set(wanted) - set(Corpus(root).case_ids()))
    if unknown:
        raise pytest.UsageError(f"--corpus-case: no such case {', '.join(unknown)} in {given}")
    # Without explicit paths pytest would collect `testpaths`; --corpus asks for the corpus.
    if config.args_source != pytest.Config.ArgsSource.ARGS:
        config.args = [str(root)]
    elif not any(Path(a.split("::")[0]).resolve() == root for a in config.args):
        config.args.append(str(root))


def _found_corpus(config: pytest.Config) -> Path:
    """The corpus `corpus` itself would use here: walking up from the current directory (then
    the rootdir), else the one corpus.yaml the git repository tracks; a usage error if none."""
    starts = (config.invocation_params.dir, config.rootpath)
    found = next((r for r in map(find_root, starts) if r is not None), None)
    if found is not None:
        return found
    try:
        return locate(None, config.invocation_params.dir)
    except CorpusError:
        raise pytest.UsageError(
            f"--corpus-case needs --corpus DIR: no {CONFIG_NAME} in the current directory, "
            f"the rootdir {config.rootpath}, or above them, and the git repository tracks "
            f"none or several"
        ) from None


def _corpus(config: pytest.Config, root: Path) -> Corpus:
    """The corpus (corpus.yaml read and checked) once per pytest process, not once per item."""
    corpus = config.stash.get(_CORPUS, None)
    if corpus is None:
        corpus = config.stash[_CORPUS] = open_corpus(root, root)
    return corpus


def _book(config: pytest.Config, corpus: Corpus) -> Book:
    """The corpus's waivers, read once per pytest process like the corpus."""
    from corpus_tool.waivers.book import read_book

    book = config.stash.get(_BOOK, None)
    if book is None:
        book = config.stash[_BOOK] = read_book(corpus, date.today())
    return book


def _pool(config: pytest.Config, corpus: Corpus) -> Pool:
    """One replay worker per pytest process, kept for all its items (closed at unconfigure).

    Under xdist each pytest worker runs its own items through its own replay worker, so no
    case runs twice and the agent is imported once per process.
    """
    from corpus_tool.replay.workers.launch import launch_for
    from corpus_tool.replay.workers.pool import Pool

    pool = config.stash.get(_POOL, None)
    if pool is None:
        pool = Pool(launch_for(corpus), size=1)
        config.stash[_POOL] = pool
    return pool


def _validation(config: pytest.Config, corpus: Corpus) -> ValidationRun:
    """The validation run cases are read through, as `corpus check` reads them: a case whose
    files are in the findings cache is read from the parsed-document cache, not parsed."""
    from corpus_tool.validate.run import Caches, ValidationRun, relative_to

    made = config.stash.get(_VALIDATION, None)
    if made is None:
        caches = Caches(os.environ)
        show = relative_to(config.invocation_params.dir)
        run = ValidationRun(corpus, date.today(), show, os.environ, caches.get(corpus.root))
        made = config.stash[_VALIDATION] = (caches, run)
    return made[1]


def _load(run: ValidationRun, case_id: str) -> LoadedCase:
    """A case for replay from what validation read and parsed (its findings are `corpus
    validate`'s to report; a broken file is the item's error, named by load_case)."""
    from corpus_tool.replay.cases import load_case

    checked = run.case(case_id, documents_wanted=True)
    return load_case(run.corpus, case_id, checked.valid, checked.documents, checked.trace_key)


def pytest_collection_finish(session: pytest.Session) -> None:
    """The order this process will run its case items in: one replay run streams them. Under
    pytest-xdist a process runs the items it is handed, not known ahead: none is replayed
    before pytest names it as the next (`pytest_runtest_protocol`), so no case runs twice."""
    config = session.config
    if CORPUS_ROOT in config.stash and not hasattr(config, "workerinput"):
        config.stash[_ORDER] = [i.name for i in session.items if isinstance(i, CaseItem)]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    if isinstance(item, CaseItem):
        item.coming = nextitem.name if isinstance(nextitem, CaseItem) else None


def pytest_unconfigure(config: pytest.Config) -> None:
    replays = config.stash.get(_REPLAYS, None)
    if replays is not None:
        replays.close()
    pool = config.stash.get(_POOL, None)
    if pool is not None:
        pool.close()
    validation = config.stash.get(_VALIDATION, None)
    if validation is not None:
        validation[0].save()


class Replays:
    """The verdicts of this process's case items from one replay run, as `corpus check` runs
    it: the next cases are read and replayed while pytest reports the current one.

    In one process a run covers the items from the one asked for to the last, in the order
    pytest runs them; under pytest-xdist, the one asked for and the next pytest names (`order`
    is empty there). Asked for a case the run will not yield, the run stops reading, its cases
    in flight finish and are kept, and a run from the asked-for case begins.
    """

    def __init__(
        self, order: list[str], start: Callable[[list[str], Callable[[], bool]], Iterator[Any]]
    ) -> None:
        self._order = {case_id: place for place, case_id in enumerate(order)}
        self._ids = order
        self._start = start
        self._ready: dict[str, CaseResult] = {}
        self._run: Iterator[CaseResult] | None = None
        self._coming: set[str] = set()  # ids the current run will still yield
        self._stopped = False
        self._answered: set[str] = set()  # asked for by an item already

    def result(self, case_id: str, coming: str | None = None) -> CaseResult:
        """The case's verdict (a run that raised, an agent that cannot be imported, is the
        item's error, and the next item starts a new run)."""
        self._answered.add(case_id)
        if case_id in self._ready:
            return self._ready.pop(case_id)
        if self._run is None or case_id not in self._coming:
            self._restart(case_id, coming)
        assert self._run is not None
        try:
            for result in self._run:
                self._coming.discard(result.case)
                if result.case == case_id:
                    return result
                self._ready[result.case] = result
        except BaseException:
            self._run, self._coming = None, set()
            raise
        raise LookupError(f"the replay run gave no verdict for case {case_id}")

    def _restart(self, case_id: str, coming: str | None) -> None:
        self.close()
        place = self._order.get(case_id)
        ids = self._ids[place:] if place is not None else [case_id, *([coming] if coming else [])]
        # the cases kept or already answered are not replayed again (only the one asked for)
        done = self._ready.keys() | self._answered
        ids = [case_id, *(i for i in ids[1:] if i not in done)]
        self._stopped = False
        self._coming = set(ids)
        self._run = self._start(ids, lambda: self._stopped)

    def close(self) -> None:
        """Stop the current run: what it has in flight finishes and is kept."""
        if self._run is None:
            return
        self._stopped = True
        for result in self._run:
            self._ready[result.case] = result
        self._run, self._coming = None, set()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """The corpus's cases and waivers directories are not walked: corpus.yaml's collector
    makes the items, and walking them (a directory node per case, hooks asked for each file)
    cost pytest more per case than replaying it."""
    root = config.stash.get(CORPUS_ROOT, None)
    if root is not None and collection_path.parent == root:
        if collection_path.name in (CASES, WAIVERS) and collection_path.is_dir():
            return True
    return None


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    root = parent.config.stash.get(CORPUS_ROOT, None)
    if root is not None and file_path.name == CONFIG_NAME and file_path.parent == root:
        return CorpusFile.from_parent(parent, path=file_path)
    return None


class CorpusFile(pytest.File):
    """corpus.yaml: one item per case, sorted by id."""

    def collect(self) -> Iterator[pytest.Item]:
        corpus = _corpus(self.config, self.path.parent)
        run = _validation(self.config, corpus)
        for case_id in _selected(corpus.case_ids(), self.config.getoption("corpus_case")):
            item = CaseItem.from_parent(self, name=case_id)
            _mark(item, _expected_doc(run, case_id))
            yield item


def _selected(case_ids: list[str], wanted: list[str] | None) -> list[str]:
    """The cases --corpus-case names (checked in pytest_configure), or all without it."""
    return [c for c in case_ids if c in set(wanted)] if wanted else case_ids


def _marker_name(prefix: str, value: str) -> str:
    return prefix + re.sub(r"\W", "_", value)


def _expected_doc(run: ValidationRun, case_id: str) -> Any:
    """expected.yaml's document: the parsed-document cache's when the case is cached, else
    parsed; None when it cannot be (the item itself reports the broken file when it runs)."""
    from corpus_tool.io import files

    kept = run.case(case_id, documents_wanted=True).documents
    if "expected" in kept:
        return kept["expected"]
    try:
        return files.read_yaml(run.corpus.case_dir(case_id) / "expected.yaml")
    except CorpusError:
        return None


def _mark(item: pytest.Item, expected: Any) -> None:
    if not isinstance(expected, dict):
        return
    item.add_marker(_marker_name("tier_", str(expected.get("tier", "fast"))))
    for tag in expected.get("tags") or []:
        name = _marker_name("tag_", str(tag))
        item.config.addinivalue_line("markers", f"{name}: corpus cases tagged {tag}")
        item.add_marker(name)
    if expected.get("status") == "known_unknown":
        item.add_marker(pytest.mark.xfail(reason="known_unknown: never counted", strict=False))


def _options(config: pytest.Config, cases: tuple[str, ...]) -> RunOptions:
    from corpus_tool.replay.runner import RunOptions

    mode = config.getoption("corpus_mode", default=None)
    model = config.getoption("corpus_model", default=None)
    return RunOptions(cases, mode, model=model)


def _replays(config: pytest.Config, root: Path) -> Replays:
    """This process's replay run over its case items (made at the first item)."""
    replays = config.stash.get(_REPLAYS, None)
    if replays is not None:
        return replays
    from corpus_tool.grade import grade_checks
    from corpus_tool.replay.runner import run_cases

    corpus = _corpus(config, root)
    load = functools.partial(_load, _validation(config, corpus))
    pool = _pool(config, corpus)

    def start(ids: list[str], stop: Callable[[], bool]) -> Iterator[CaseResult]:
        options = _options(config, tuple(ids))
        return run_cases(corpus, ids, options, grader=grade_checks, load=load, pool=pool, stop=stop)

    replays = config.stash[_REPLAYS] = Replays(config.stash.get(_ORDER, []), start)
    return replays


class CaseFailed(Exception):
    """A case failed or could not run; the message is the report."""


class CaseItem(pytest.Item):
    """One case: replay and grade it like `corpus replay CASE`, in this process's worker."""

    coming: str | None = None
    """The case of the item pytest runs after this one, when it is one (xdist: the next case
    known to be this process's)."""

    def runtest(self) -> None:
        from corpus_tool.model.results import Verdict
        from corpus_tool.replay import results
        from corpus_tool.waivers.book import waive

        result = _replays(self.config, self.path.parent).result(self.name, self.coming)
        result = waive(result, _book(self.config, _corpus(self.config, self.path.parent)))
        if result.verdict is Verdict.SKIPPED:
            pytest.skip(result.reason or "skipped")
        if result.verdict is Verdict.WAIVED:  # it failed; a reviewed waiver expects that, for now
            pytest.xfail(f"{results.reason(result)}; {results.waived_line(result)}")
        if result.counts_as_failure or (
            result.verdict is Verdict.KNOWN_UNKNOWN and result.failed_checks
        ):
            # the first line is what pytest's short summary shows: the root cause first
            mode = f" [{result.mode}]" if result.mode else ""
            lines = [
                f"{results.reason(result)}{mode}",
                results.headline(result),
                *results.detail_lines(result),
            ]
            raise CaseFailed(escapes.lines(lines).rstrip("\n"))

    def repr_failure(self, excinfo: Any, style: Any = None) -> str:
        if isinstance(excinfo.value, (CaseFailed, CorpusError)):
            return str(excinfo.value)
        return str(super().repr_failure(excinfo))

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.path, None, f"corpus case {self.name}"
