"""Finding a corpus, reading corpus.yaml (the one module that does: `model/config.py` is what
it reads into), listing its cases and waivers."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from corpus_tool.errors import InputError, UsageError
from corpus_tool.io import files, schema, yaml_lines
from corpus_tool.model.config import Config

CONFIG_NAME = "corpus.yaml"
CASES = "cases"
WAIVERS = "waivers"
CASE_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,79}")
WINDOWS_DEVICE = re.compile(r"(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?", re.IGNORECASE)
"""Names Windows reserves for devices, whatever the extension (`nul.txt` opens NUL too)."""
ID_RULE = "use 1-80 of a-z 0-9 . _ - starting with a letter or digit"
DERIVED = "~"
"""Separates a derived case's source id from what it derives (`corpus vary`: a fault variant)."""
VARIANT_SUFFIX = re.compile(
    r"(timeout|error|http[0-9]{3}|drift|empty|duplicate)-[a-z0-9]([a-z0-9._-]{0,38}[a-z0-9_-])?"
)
VARIANT_RULE = (
    "a derived case's id is <source id>~<kind>-<tool> (one `~`; kind one of timeout, error, "
    "httpNNN, drift, empty, duplicate; tool 1-40 of a-z 0-9 . _ -)"
)


def case_id_problem(text: str) -> str | None:
    """Why `text` is no case id, or None when it is one.

    An id is a directory name that every file system a corpus is checked out on holds as
    itself: lower-case ASCII only, so no two ids differ only in case or Unicode normalization
    (which macOS and Windows fold into one name); no trailing dot and no device name, which
    Windows drops or refuses.
    """
    if DERIVED in text:
        return _derived_problem(text)
    if CASE_ID.fullmatch(text) is None or ".." in text:
        if not text.isascii():
            return (
                f"{ID_RULE} (ASCII only: a name can be written in more than one Unicode form, "
                "which macOS and Windows take for one name)"
            )
        return ID_RULE
    if text.endswith("."):
        return "it ends with a dot, which Windows drops from a file name; remove the dot"
    if WINDOWS_DEVICE.fullmatch(text):
        return (
            f"{text.split('.', 1)[0]!r} is a device name Windows reserves (with any extension), "
            "so no Windows checkout can hold the case; pick another id"
        )
    return None


def _derived_problem(text: str) -> str | None:
    """Why `<source>~<suffix>` is no derived case id: `~` appears only there, once."""
    source, _, suffix = text.partition(DERIVED)
    if DERIVED in suffix or VARIANT_SUFFIX.fullmatch(suffix) is None or ".." in suffix:
        return VARIANT_RULE
    problem = case_id_problem(source)
    return None if problem is None else f"its source id {source!r}: {problem}"


def derived_source(case_id: str) -> str | None:
    """The id a derived case's id names as its source (`a~timeout-b` -> `a`); None for others."""
    return case_id.partition(DERIVED)[0] if DERIVED in case_id else None


def is_case_id(text: str) -> bool:
    """True for a valid case id (see case_id_problem)."""
    return case_id_problem(text) is None


def check_case_id(case_id: str) -> str:
    """Return a valid case id or raise UsageError saying why it is none."""
    problem = case_id_problem(case_id)
    if problem is not None:
        shown = case_id if case_id else "(empty)"
        raise UsageError(f"invalid case id {shown!r}: {problem}")
    return case_id


def folded(name: str) -> str:
    """A directory name as a case-insensitive, normalizing file system compares it (macOS
    folds case and Unicode normalization, Windows case and trailing dots and spaces)."""
    once = unicodedata.normalize("NFKC", name).casefold()
    return unicodedata.normalize("NFKC", once).rstrip(". ")


def twins(names: Iterable[str]) -> list[list[str]]:
    """Groups of names that such a file system takes for one (each group sorted)."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(folded(name), []).append(name)
    return sorted(sorted(group) for group in groups.values() if len(group) > 1)


def find_root(start: Path) -> Path | None:
    """The nearest directory at or above `start` that holds corpus.yaml."""
    here = start.resolve()
    try:
        if here.is_file() or not here.exists():
            here = here.parent
    except OSError:  # a name too long to exist, a symlink loop: look from its directory
        here = here.parent
    for candidate in (here, *here.parents):
        if (candidate / CONFIG_NAME).is_file():
            return candidate
    return None


@dataclass(frozen=True)
class Corpus:
    """A corpus directory: corpus.yaml, cases/<id>/, waivers/<id>.yaml."""

    root: Path
    config: Config = field(default_factory=Config)

    @property
    def config_path(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def cases_dir(self) -> Path:
        return self.root / CASES

    @property
    def waivers_dir(self) -> Path:
        return self.root / WAIVERS

    def case_dir(self, case_id: str) -> Path:
        """The directory of a case (the id is checked, so no path tricks get through)."""
        return self.cases_dir / check_case_id(case_id)

    def check_no_twins(self, case_ids: Iterable[str]) -> None:
        """UsageError when a directory in cases/ is another spelling of one of these ids.

        A valid id folds to itself, so only a directory whose name is no id can be a twin.
        """
        others = [name for name in self.case_ids() if not is_case_id(name)]
        taken = {folded(name): name for name in others}
        for case_id in case_ids:
            twin = taken.get(folded(case_id))
            if twin is not None:
                raise UsageError(
                    f"case id {case_id!r} and the directory {twin!r} in {self.cases_dir} differ "
                    "only in case, Unicode normalization or trailing dots: macOS and Windows "
                    f"hold only one of them; rename {twin!r} first (`corpus validate` flags it)"
                )

    def case_ids(self) -> list[str]:
        """Ids of every case directory, sorted; interned, so the ids the file-stats table
        keeps (marshal interns them as it loads) are these very strings, not a second copy
        (6 MB at 100,000 cases), as are the names of the paths built from them."""
        if not self.cases_dir.is_dir():
            return []
        with os.scandir(self.cases_dir) as entries:  # the entry's type, not a stat per name
            names = (e.name for e in entries if not e.name.startswith(".") and _is_dir(e))
            return sorted(map(sys.intern, names))

    def waiver_paths(self) -> list[Path]:
        """Every waiver file, sorted."""
        if not self.waivers_dir.is_dir():
            return []
        return sorted(p for p in self.waivers_dir.glob("*.y*ml") if not p.name.startswith("."))


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Path.is_dir() of a directory entry (a symlink to a directory is one), from the type the
    directory listing gives, a stat only for a link: on 100,000 cases, 0.4 s instead of 5."""
    try:
        return entry.is_dir()
    except OSError:  # what Path.is_dir makes of it (False, or the error it raises)
        return Path(entry.path).is_dir()


def outside_links(corpus: Corpus) -> list[tuple[Path, str]]:
    """corpus.yaml, cases/ and waivers/ where a symlink takes them out of the corpus directory.

    Each with where it leads. Files written through such a link land where the corpus's git
    repository does not track them (or somewhere else entirely), and a config read through one
    is not the one the repository reviews.
    """
    root = corpus.root.resolve()
    found = []
    for path in (corpus.config_path, corpus.cases_dir, corpus.waivers_dir):
        if not path.is_symlink():
            continue
        try:
            target = path.resolve(strict=False)
        except (OSError, RuntimeError):  # a loop of links leads nowhere the corpus holds
            found.append((path, "a loop of symbolic links"))
            continue
        if not target.is_relative_to(root):
            found.append((path, str(target)))
    return found


def outside_message(path: Path, target: str) -> str:
    """What is wrong with a link `outside_links` found, and what to do (one line)."""
    kind = "file" if path.name == CONFIG_NAME else "directory"
    return (
        f"is a symbolic link to {target}, outside the corpus; nothing is written through it: "
        f"replace the link with the {kind} itself (move what it points at into the corpus)"
    )


def refuse_outside_links(corpus: Corpus) -> None:
    """InputError (exit 2) naming the first link out of the corpus, before a command writes."""
    for path, target in outside_links(corpus):
        raise InputError(outside_message(path, target), path)


def load_config(root: Path) -> Config:
    """Read and schema-check corpus.yaml; any problem is an InputError naming the line."""
    path = root / CONFIG_NAME
    raw = files.read_bytes(path)
    data, spans = files.parse_yaml_spans(raw, path)
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InputError("corpus.yaml must be a mapping; run `corpus init` for a template", path)
    problem = schema.version_problem("corpus", data)
    if problem:
        raise InputError(problem, path)
    errors = schema.errors("corpus", data, plain=spans is not None)
    if errors:
        first = errors[0]
        line = yaml_lines.line_at(raw, tuple(first.absolute_path))
        where = schema.json_path(first.absolute_path)
        raise InputError(f"{where}: {first.message}; see `corpus validate`", path, line)
    return Config.from_document(data)


def config_from_bytes(raw: bytes, where: Path) -> Config:
    """corpus.yaml as one revision holds it (`where` names the blob in messages), checked.

    Unlike `load_config` an empty file is no mapping here, and a problem is one line without
    a line number: the file is not on disk to point into.
    """
    data, spans = files.parse_yaml_spans(raw, where)
    if not isinstance(data, dict):
        raise InputError("corpus.yaml must be a mapping; see `corpus validate`", where)
    plain = spans is not None  # the fast path built it: the compiled check answers
    problems = [schema.version_problem("corpus", data), schema.first_problem("corpus", data, plain)]
    found = [p for p in problems if p]
    if found:
        raise InputError(f"{found[0]}; see `corpus validate`", where)
    return Config.from_document(data)


def locate(directory: Path | None, cwd: Path) -> Path:
    """The root of the corpus named by -C, else found by walking up from the current directory,
    else the one corpus.yaml the git repository around the current directory tracks."""
    if directory is None:
        found = find_root(cwd) or _tracked_root(cwd)
        if found is None:
            raise UsageError(
                "no corpus.yaml in this directory or above, nor tracked by a git repository "
                "here; use -C DIR or `corpus init`"
            )
        return found
    root = (cwd / directory).resolve()
    if not (root / CONFIG_NAME).is_file():
        raise UsageError(f"{directory}: no corpus.yaml here; run `corpus init {directory}` first")
    return root


def _tracked_root(cwd: Path) -> Path | None:
    """The directory of the one corpus.yaml the repository tracks; several are a usage error.

    This lets `corpus affected` run at the repository root of a corpus kept in `evals/`.
    """
    top = _git(cwd, "rev-parse", "--show-toplevel")
    if top is None:
        return None
    root = Path(top.strip())
    listed = _git(root, "ls-files", "-z", "--", f":(glob)**/{CONFIG_NAME}") or ""
    configs = sorted(root / name for name in listed.split("\0") if name)
    configs = [c for c in configs if c.is_file()]
    if len(configs) > 1:
        shown = ", ".join(os.path.relpath(c, cwd) for c in configs)
        raise UsageError(
            f"no corpus.yaml in this directory or above, and the repository tracks "
            f"{len(configs)}: {shown}; name one with -C DIR"
        )
    return configs[0].parent if configs else None


def _git(cwd: Path, *args: str) -> str | None:
    """git's output, or None when git is missing or cwd is not in a repository."""
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            capture_output=True,
            encoding="utf-8",
            errors="surrogateescape",
            check=False,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def open_corpus(directory: Path | None, cwd: Path) -> Corpus:
    """The corpus named by -C, or found by walking up from the current directory."""
    root = locate(directory, cwd)
    return Corpus(root=root, config=load_config(root))
