"""The staged change as `validate --staged` sees it: what the git index holds, deletions included.

pre-commit hands a hook only files that still exist, so a deleted trace.yaml, a deleted case a
waiver still names, or a deleted corpus.yaml would pass unseen. `--staged` reads the change from
the index itself (`git diff --cached` against HEAD) and copies the index's version of each
touched corpus into a scratch directory: corpus.yaml, every waiver, the touched cases whole, and
the cases the checked waivers name as empty directories (so a waiver's `case` still finds them).
Validation runs on that copy; findings name the repository's paths. What is checked is what
would be committed. Only what the change touches is listed from the index and copied, so the
hook's run costs what the change holds, not what the corpus does (a change of corpus.yaml
checks every case).
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from corpus_tool.errors import CorpusError, UsageError
from corpus_tool.io import files
from corpus_tool.model.findings import Finding
from corpus_tool.store import erasure, staging
from corpus_tool.store.corpus import CASES, CONFIG_NAME, WAIVERS

EMPTY_TREE_INPUT = b""
"""`git hash-object -t tree --stdin` of nothing: the tree a first commit is compared with."""


@dataclass
class StagedCorpus:
    """One corpus the staged change touches, as repository-relative POSIX paths."""

    prefix: str  # "" or "evals/"
    config: bool = False  # corpus.yaml added or modified
    cases: set[str] = field(default_factory=set)  # names under cases/ with a changed file
    waivers: set[str] = field(default_factory=set)  # changed waiver files still staged
    leftovers: set[str] = field(default_factory=set)  # staged paths an interrupted write left

    @property
    def config_path(self) -> str:
        return self.prefix + CONFIG_NAME


class Index:
    """The git repository holding a directory, read through its index.

    git reads the whole index file for any question about it (23.5 MB for 200,000 files), so
    the index is read once, by the staged diff: the index holds HEAD's version of every path
    that diff does not name and the diff's new blob of every path it does, and the listings
    and the copy are made from HEAD's tree and that diff. This holds for an index that marks
    no entry intent-to-add or skip-worktree, and is not split: a version-2 index file, which
    cannot hold those flags. Any other index (version 3 or 4, a split one) is asked as git
    asks it, with `ls-files` and `checkout-index`.
    """

    def __init__(self, start: Path) -> None:
        # one rev-parse answers the work tree, the index file and whether HEAD names a commit
        # (a run does not commit): exit 1 with the first two answers printed is an unborn HEAD
        ask = ("--show-toplevel", "--path-format=absolute", "--git-path", "index")
        done = self._spawn(start, "rev-parse", *ask, "--verify", "--quiet", "HEAD^{commit}")
        lines = done.stdout.splitlines()
        if done.returncode not in (0, 1) or len(lines) < 2:
            raise UsageError(
                f"{start}: not inside a git work tree; --staged checks what the git index holds"
            )
        top, index_file = (os.fsdecode(line) for line in lines[:2])
        self.root = Path(top).resolve()
        self._index_file = Path(index_file)
        self._has_head = done.returncode == 0 and len(lines) >= 3
        self._staged: dict[str, tuple[str, str] | None] = {}  # path -> (mode, blob); None: gone
        self._known: dict[str, tuple[str, str]] = {}  # path -> (mode, blob), as listed
        # HEAD's entries under the pathspecs the change can ask about, listed once by
        # changed(): (pathspecs, path -> (mode, kind, blob)); None until then, or past MANY_CASES
        self._head: tuple[frozenset[str], dict[str, tuple[str, str, str]]] | None = None

    def changed(self) -> list[str]:
        """Every path the staged change adds, modifies or deletes (a rename is both paths)."""
        base = "HEAD" if self._has_head else self._empty_tree()
        raw = self.run("diff", "--cached", "--raw", "-z", "--no-renames", "--no-abbrev", base, "--")
        self._staged = _parse_raw(raw)
        if self._has_head and len(self._staged) <= MANY_CASES:
            self._head = self._list_head(_head_specs(self._staged))
        return list(self._staged)

    def listed(self, paths: Iterable[str]) -> dict[str, str]:
        """Index entries (path -> mode) at or under these paths; gitlinks and conflicts left out."""
        paths = list(paths)
        if not self._plain:
            return self._ls_files(paths)
        found = self._at_head_under(paths)
        for path, entry in self._staged.items():
            if _within(path, paths):
                if entry is None or entry[0].startswith("160"):
                    found.pop(path, None)
                else:
                    found[path] = entry
        self._known.update(found)
        return {path: mode for path, (mode, _blob) in found.items()}

    def at_head(self, paths: list[str]) -> set[str]:
        """Which of these paths HEAD holds (a file, a directory or a gitlink)."""
        if not paths or not self._has_head:
            return set()
        listing = self._listed_head(paths)
        if listing is not None:
            return {path for path in paths if path in listing}
        return set(_split(self.run("ls-tree", "-z", "--name-only", "HEAD", "--", *paths)))

    def copy_out(self, paths: list[str], scratch: Path) -> None:
        """Write the index's version of each path under `scratch` (links stay links)."""
        if not paths:
            return
        stdin = b"".join(os.fsencode(p) + b"\0" for p in paths)
        if not self._plain or any(p not in self._known for p in paths):
            self.run("checkout-index", "-z", "--stdin", f"--prefix={scratch}/", stdin=stdin)
            return
        # checkout-index of the same entries from an index of their own: git converts each
        # file as the real index would (attributes: the .gitattributes the index holds in
        # the file's directories first, then the work tree's), reading a few entries, not all
        attributes = self.listed(sorted({a for p in paths for a in _attribute_files(p)}))
        entries = {**{p: self._known[p] for p in attributes}, **{p: self._known[p] for p in paths}}
        info = b"".join(
            f"{mode} {blob}\t".encode() + os.fsencode(path) + b"\0"
            for path, (mode, blob) in sorted(entries.items())
        )
        with tempfile.TemporaryDirectory(prefix="corpus-staged-index-") as own:
            env = {**os.environ, "GIT_INDEX_FILE": os.path.join(own, "index")}
            local = ("-c", "core.splitIndex=false", "-c", "core.fsmonitor=false")
            self.run(*local, "update-index", "-z", "--index-info", stdin=info, env=env)
            self.run(
                *local,
                "checkout-index",
                "-z",
                "--stdin",
                f"--prefix={scratch}/",
                stdin=stdin,
                env=env,
            )

    def run(
        self, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
    ) -> bytes:
        return self._git(self.root, "--literal-pathspecs", *args, stdin=stdin, env=env)

    def _ls_files(self, paths: list[str]) -> dict[str, str]:
        found: dict[str, str] = {}
        for entry in _split(self.run("ls-files", "-s", "-z", "--", *paths)):
            meta, _, path = entry.partition("\t")
            mode, _blob, stage = meta.split()
            if stage == "0" and not mode.startswith("160"):
                found[path] = mode
        return found

    def _at_head_under(self, paths: list[str]) -> dict[str, tuple[str, str]]:
        """HEAD's files at or under these paths (path -> (mode, blob)), gitlinks left out."""
        if not paths or not self._has_head:
            return {}
        listing = self._listed_head(paths)
        if listing is None:
            listing = self._list_head(paths)[1]
        return {
            path: (mode, blob)
            for path, (mode, kind, blob) in listing.items()
            if kind == "blob" and _within(path, paths)
        }

    def _listed_head(self, paths: list[str]) -> dict[str, tuple[str, str, str]] | None:
        """HEAD's one listing, when it lists all that listing `paths` would; else None."""
        if self._head is None:
            return None
        specs, listing = self._head
        return listing if all(_covered(path, specs) for path in paths) else None

    def _list_head(
        self, specs: Iterable[str]
    ) -> tuple[frozenset[str], dict[str, tuple[str, str, str]]]:
        """HEAD's entries at or under these pathspecs, trees shown too (`ls-tree -r -t`)."""
        specs = frozenset(specs)
        found: dict[str, tuple[str, str, str]] = {}
        for entry in _split(self.run("ls-tree", "-r", "-t", "-z", "HEAD", "--", *sorted(specs))):
            meta, _, path = entry.partition("\t")
            mode, kind, blob = meta.split()
            found[path] = (mode, kind, blob)
        return specs, found

    @functools.cached_property
    def _plain(self) -> bool:
        """Whether the index is a version-2 file of its own (no intent-to-add, skip-worktree
        or split entries): then HEAD and the staged diff say what it holds."""
        try:
            with open(self._index_file, "rb") as index:
                header = index.read(8)
            shared = any(
                name.startswith("sharedindex.") for name in os.listdir(self._index_file.parent)
            )
        except OSError:
            return False
        return header == b"DIRC\0\0\0\2" and not shared

    def _empty_tree(self) -> str:
        """The empty tree's name, which a first commit's change is listed against."""
        return (
            self.run("hash-object", "-t", "tree", "--stdin", stdin=EMPTY_TREE_INPUT)
            .decode()
            .strip()
        )

    @staticmethod
    def _spawn(
        where: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
    ) -> subprocess.CompletedProcess[bytes]:
        """`git ARGS` run in `where`, whatever its exit status."""
        try:
            return subprocess.run(
                ["git", *args], cwd=where, input=stdin, capture_output=True, check=False, env=env
            )
        except OSError:
            raise UsageError("git is not installed or not on PATH") from None

    @staticmethod
    def _git(
        where: Path, *args: str, stdin: bytes | None = None, env: dict[str, str] | None = None
    ) -> bytes:
        done = Index._spawn(where, *args, stdin=stdin, env=env)
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise UsageError(f"git {args[0]} failed: {message[-1] if message else 'no message'}")
        return done.stdout


def _parse_raw(raw: bytes) -> dict[str, tuple[str, str] | None]:
    """`git diff --cached --raw -z --no-renames`: each path -> the index's (mode, blob), or
    None where the index holds no stage-0 entry (deleted, or unmerged)."""
    tokens = raw.split(b"\0")
    found: dict[str, tuple[str, str] | None] = {}
    for meta, path in zip(tokens[0::2], tokens[1::2], strict=False):
        if not meta:
            break
        _old_mode, new_mode, _old, new, status = meta.decode().lstrip(":").split()
        name = os.fsdecode(path)
        found[name] = None if status.startswith(("D", "U")) else (new_mode, new)
    return found


def _within(path: str, specs: list[str]) -> bool:
    """Whether a pathspec of `specs` (a file, or a directory with or without its slash) holds
    `path`, as `git ls-files -- specs` matches it."""
    return any(path == s or path.startswith(s if s.endswith("/") else s + "/") for s in specs)


def _covered(path: str, specs: frozenset[str]) -> bool:
    """Whether listing `specs` lists everything listing `path` would: `path` is one of them,
    or lies under one naming a directory (literal pathspecs)."""
    return path in specs or any(s.endswith("/") and path.startswith(s) for s in specs)


def _head_specs(changed: Iterable[str]) -> set[str]:
    """What of HEAD the staged run can ask about, as pathspecs, known from the changed paths
    alone: in each directory above a changed path, the corpus.yaml a corpus there would have,
    its waivers, its cases' .gitattributes, the .gitattributes there, and the changed case."""
    specs: set[str] = set()
    for path in changed:
        for prefix in _ancestors(path):
            specs.update(
                prefix + name
                for name in (
                    CONFIG_NAME,
                    ".gitattributes",
                    f"{WAIVERS}/",
                    f"{CASES}/.gitattributes",
                )
            )
            name, slash, inside = path[len(prefix) :].partition("/")
            case, slash_, _ = inside.partition("/")
            if name == CASES and slash and case and slash_:
                specs.add(f"{prefix}{CASES}/{case}/")
    return specs


def _attribute_files(path: str) -> list[str]:
    """The .gitattributes files that can apply to `path`: one in each directory above it."""
    return [prefix + ".gitattributes" for prefix in _ancestors(path)]


def touched(index: Index, changed: list[str], only: str | None = None) -> list[StagedCorpus]:
    """The corpora the changed paths lie in, nearest corpus.yaml (index or HEAD) first.

    `only` (a repository-relative corpus prefix) keeps that corpus alone, for `-C DIR`.
    """
    candidates = {_config_of(d) for p in changed for d in _ancestors(p)}
    # The index holds a corpus.yaml the change touches or one HEAD holds unchanged: no need to
    # read the index (tens of megabytes in a corpus of 100,000 cases) once more to ask it.
    known = (candidates & set(changed)) | index.at_head(sorted(candidates))
    corpora: dict[str, StagedCorpus] = {}
    for path in changed:
        prefix = next((d for d in _ancestors(path) if _config_of(d) in known), None)
        if prefix is None or (only is not None and prefix != only):
            continue
        corpus = corpora.setdefault(prefix, StagedCorpus(prefix))
        _classify(corpus, path[len(prefix) :], path)
    return [corpora[p] for p in sorted(corpora)]


def _classify(corpus: StagedCorpus, rel: str, path: str) -> None:
    parts = PurePosixPath(rel).parts
    if rel == CONFIG_NAME:
        corpus.config = True
    elif rel in (erasure.JOURNAL, erasure.LOCK) or erasure.is_journal_tmp(rel):
        corpus.leftovers.add(path)
    elif len(parts) >= 3 and parts[0] == CASES:
        if staging.parse(parts[1]) is not None:
            corpus.leftovers.add(corpus.prefix + f"{CASES}/{parts[1]}")
        else:
            corpus.cases.add(parts[1])
    elif len(parts) == 2 and parts[0] == WAIVERS and staging.parse(parts[1]) is not None:
        corpus.leftovers.add(path)  # what a killed `waivers new` left beside its waiver
    elif len(parts) == 2 and parts[0] == WAIVERS and rel.endswith((".yaml", ".yml")):
        corpus.waivers.add(path)


def leftover_finding(path: str, show: str) -> Finding:
    """A staged leftover of an interrupted write: never to be committed."""
    message = (
        "staged, but left by an interrupted `corpus add`, `forget` or `waivers new`; never "
        "commit it: "
        f"unstage it (`git rm -r --cached {path}`), and rerun the interrupted command, which "
        "finishes or undoes it"
    )
    return Finding(show, None, "$", "case.interrupted", message)


def deleted_config(corpus: StagedCorpus, remaining: int, show: str) -> Finding:
    """corpus.yaml deleted while cases or waivers stay: nothing would validate them."""
    message = (
        f"corpus.yaml is deleted, but the corpus still holds {remaining} staged case and waiver "
        "files that nothing would check; restore it (`git restore --staged --worktree "
        f"{corpus.config_path}`), or delete the corpus whole"
    )
    return Finding(show, None, "$", "corpus.deleted", message)


def _ancestors(path: str) -> list[str]:
    """The directories holding `path` as prefixes, nearest first ("evals/cases/x/", ..., "")."""
    parts = PurePosixPath(path).parts[:-1]
    return [("/".join(parts[:n]) + "/") if n else "" for n in range(len(parts), -1, -1)]


def _config_of(prefix: str) -> str:
    return prefix + CONFIG_NAME


def _split(raw: bytes) -> list[str]:
    return [os.fsdecode(token) for token in raw.split(b"\0") if token]


@dataclass(frozen=True)
class StagedCopy:
    """One touched corpus copied out of the index, and what of it the change touched."""

    root: Path  # the corpus as the index holds it, under the scratch directory
    real_root: Path  # the same corpus in the work tree (where its key file is resolved)
    config: bool
    cases: frozenset[str]
    waivers: frozenset[Path]  # under `root`
    found: tuple[Finding, ...]  # staged leftovers of interrupted writes


def copies(
    index: Index, only: Path | None, scratch: Path, show: Callable[[Path], str]
) -> tuple[list[StagedCopy], list[Finding]]:
    """Copy each corpus the staged change touches out of the index; findings no copy can show.

    `only` (a corpus directory, from -C) keeps that corpus alone. A corpus whose corpus.yaml the
    change deletes is not copied: while cases or waivers stay, that deletion is the finding.
    """
    made: list[StagedCopy] = []
    found: list[Finding] = []
    for corpus in touched(index, index.changed(), _prefix(index, only)):
        listing = index.listed(_scope(corpus))
        config = listing.pop(corpus.config_path, None)
        left = [leftover_finding(p, show(index.root / p)) for p in sorted(corpus.leftovers)]
        if not config:
            listing = index.listed(_scope(corpus, every_case=True))
            listing.pop(corpus.config_path, None)
            rest = [p for p in listing if _case_name(corpus, p) or _is_waiver(corpus, p)]
            if rest:
                found.append(
                    deleted_config(corpus, len(rest), show(index.root / corpus.config_path))
                )
            found.extend(left)
            continue
        made.append(_copy(index, corpus, listing, scratch, left))
    return made, found


MANY_CASES = 500
"""Past this many changed cases the index is listed whole, not case by case."""


def _scope(corpus: StagedCorpus, every_case: bool = False) -> list[str]:
    """What of the corpus to list from the index: corpus.yaml, the waivers, and the changed
    cases (every case when corpus.yaml changed, or when many did): a hook's run costs what
    the change holds, not what the corpus does."""
    cases = f"{corpus.prefix}{CASES}/"
    if every_case or corpus.config or len(corpus.cases) > MANY_CASES:
        chosen = [cases]
    else:
        chosen = [f"{cases}{name}/" for name in sorted(corpus.cases)]
    return [corpus.config_path, f"{corpus.prefix}{WAIVERS}/", *chosen]


def _copy(
    index: Index,
    corpus: StagedCorpus,
    listing: dict[str, str],
    scratch: Path,
    left: list[Finding],
) -> StagedCopy:
    ids = {name for name in map(lambda p: _case_name(corpus, p), listing) if name}
    # a changed corpus.yaml can change any case's verdict (a scorer unregistered, another key
    # id, other request fields): every case is checked then, not only the staged ones
    present = ids if corpus.config else corpus.cases & ids
    wanted = [corpus.config_path] + [
        p for p in listing if _is_waiver(corpus, p) or _case_name(corpus, p) in present
    ]
    index.copy_out(sorted(wanted), scratch)
    root = scratch / corpus.prefix
    for name in ids:  # every staged case exists, so a waiver naming it finds it
        (root / CASES / name).mkdir(parents=True, exist_ok=True)
    (root / WAIVERS).mkdir(exist_ok=True)
    waivers = {root / p[len(corpus.prefix) :] for p in corpus.waivers if p in listing}
    vanished = corpus.cases - ids
    if vanished:  # only a deleted case makes a waiver worth reading here
        waivers |= {w for w in (root / WAIVERS).iterdir() if _waiver_case(w) in vanished}
    _named_cases(index, corpus, waivers, ids, root)
    return StagedCopy(
        root,
        index.root / corpus.prefix,
        corpus.config,
        frozenset(present),
        frozenset(waivers),
        tuple(left),
    )


def _named_cases(
    index: Index, corpus: StagedCorpus, waivers: set[Path], ids: set[str], root: Path
) -> None:
    """The cases the checked waivers name that the index holds, as empty directories (so a
    waiver's `case` finds its case); the other cases are not listed at all."""
    named = {_waiver_case(w) for w in waivers} - ids - {None}
    wanted = [f"{corpus.prefix}{CASES}/{name}/" for name in sorted(n for n in named if n)]
    held = {_case_name(corpus, p) for p in index.listed(wanted)} if wanted else set()
    for name in held:
        if name:
            (root / CASES / name).mkdir(parents=True, exist_ok=True)


def _prefix(index: Index, only: Path | None) -> str | None:
    if only is None:
        return None
    try:
        rel = only.resolve().relative_to(index.root).as_posix()
    except ValueError:
        raise UsageError(f"{only}: not inside the git work tree {index.root}") from None
    return "" if rel == "." else rel + "/"


def _case_name(corpus: StagedCorpus, path: str) -> str | None:
    """The directory under cases/ a staged file lies in (not a leftover of a write)."""
    rest = path[len(corpus.prefix) :]  # git's own form: no "." or empty parts
    if not rest.startswith(f"{CASES}/"):
        return None
    name, slash, inside = rest[len(CASES) + 1 :].partition("/")
    if name and slash and inside and staging.parse(name) is None:
        return name
    return None


def _is_waiver(corpus: StagedCorpus, path: str) -> bool:
    parts = PurePosixPath(path[len(corpus.prefix) :]).parts
    return len(parts) == 2 and parts[0] == WAIVERS and path.endswith((".yaml", ".yml"))


def _waiver_case(path: Path) -> str | None:
    try:
        data = files.read_yaml(path)
    except CorpusError:
        return None
    case = data.get("case") if isinstance(data, dict) else None
    return case if isinstance(case, str) else None
