"""Safe reading (size limits, C loader, one-line errors) and atomic writing of corpus files."""

from __future__ import annotations

import codecs
import contextlib
import functools
import gc
import json
import os
import re
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import yaml

from corpus_tool.errors import InputError
from corpus_tool.io import yaml_build, yaml_read
from corpus_tool.io.locks import exclusive
from corpus_tool.io.yaml_build import ScalarExtent
from corpus_tool.io.yaml_quote import is_plain_safe

_BaseLoader: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # C speed where libyaml is built


class Loader(_BaseLoader):  # type: ignore[misc]
    """Safe loader that keeps timestamps as the strings they were written as.

    Corpus files are JSON-shaped: `expires: 2026-12-31` must read as the string the schemas
    describe, whether or not the author quoted it. A key written twice in one mapping is refused:
    YAML would keep the last silently, so `tier: fast` above `tier: archive` hid a case.
    """

    _tags: ClassVar[
        dict[str, str]
    ] = {}  # plain scalar -> its tag: a memo of a pure function, bounded

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: tuple[bool, bool]) -> Any:
        """The tag of a node; plain scalars (`seq`, `type`, `model_call` ...) recur, so memoised.

        With no path resolvers, the tag of a plain scalar depends on its text alone.
        """
        if kind is not yaml.ScalarNode or not implicit[0]:
            return super().resolve(kind, value, implicit)
        tag = self._tags.get(value)
        if tag is None:
            if len(self._tags) > 50_000:
                self._tags.clear()
            tag = self._tags[value] = super().resolve(kind, value, implicit)
        return tag

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        """Nothing to do without path resolvers (the C composer calls it for every node)."""

    def ascend_resolver(self) -> None:
        """Nothing to do without path resolvers."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> Any:
        seen: set[tuple[str, str]] = set()
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue
            key = (key_node.tag, key_node.value)
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key_node.value!r}; keep one", key_node.start_mark
                )
            seen.add(key)
        return super().construct_mapping(node, deep)


Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
}

MAX_INPUT_BYTES = 256 * 1024 * 1024
"""Largest file we read unless CORPUS_MAX_INPUT_BYTES says otherwise (a runaway export)."""

MAX_DEPTH = 200
"""Deepest nesting of lists and mappings we accept: every walker downstream may recurse."""


def input_limit() -> int:
    """The size limit in force: CORPUS_MAX_INPUT_BYTES, else MAX_INPUT_BYTES."""
    raw = os.environ.get("CORPUS_MAX_INPUT_BYTES", "")
    return int(raw) if raw.isdigit() else MAX_INPUT_BYTES


NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
"""0 where the system has no O_NOFOLLOW: `read_plain` then follows links, so callers that rely
on it refusing one check NOFOLLOW first."""
_PLAIN_OPEN = os.O_RDONLY | NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)


def read_plain(path: str | Path, limit: int, private: bool = False) -> bytes | None:
    """The bytes of a regular file that is no link, up to `limit` bytes; None for anything
    else (a link, a FIFO, which never blocks, a device, a file too big, growing or shrinking,
    an error). `private`: also None unless this user owns it and nobody else may write it (a
    cache entry only this user could have written)."""
    read = read_plain_stat(path, limit, private)
    return None if read is None else read[0]


def read_plain_stat(
    path: str | Path, limit: int, private: bool = False
) -> tuple[bytes, os.stat_result] | None:
    """`read_plain`, with the file's `fstat` taken before the read."""
    try:
        fd = os.open(path, _PLAIN_OPEN)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        if private and info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return None
        if private and hasattr(os, "getuid") and info.st_uid != os.getuid():
            return None
        # One read: a regular file gives what it has up to the count asked, so exactly its
        # size means the whole file; more (it grew) or less (it shrank) is no plain answer.
        data = os.read(fd, info.st_size + 1)
        return (data, info) if len(data) == info.st_size else None
    except OSError:
        return None
    finally:
        os.close(fd)


def read_bytes(path: Path, limit: int | None = None, within: Path | None = None) -> bytes:
    """Read a whole file, refusing directories, devices, missing files and files over the limit.

    With `within` (a corpus root), a file that a symlink takes outside that directory is refused:
    findings quote what they read, so a link to a runner's secrets must not be followed.
    """
    limit = input_limit() if limit is None else limit
    if within is not None:
        _check_within(path, within)
    try:
        info = _readable(path, limit)
        with open(path, "rb") as handle:
            # a file may grow, or lie about its size (/proc): read past what it claims, up to
            # the limit (asking for the limit at once allocates that much on every read)
            data = handle.read(min(info.st_size, limit) + 1)
            if len(data) > info.st_size:
                data += handle.read(limit + 1 - len(data))
        if len(data) > limit:
            raise too_big(path, "more than that", limit)
        return data
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except PermissionError:
        raise InputError("permission denied", path) from None
    except OSError as err:  # name too long, a loop of symlinks, an I/O error: still one line
        raise InputError(f"cannot read: {err.strerror or err}", path) from None


def check_input(path: Path, limit: int | None = None) -> int:
    """The size of a file read_bytes would read, or its one-line refusal (a directory, a
    device, a missing file, one over the limit): for readers that read a file in chunks."""
    try:
        return _readable(path, input_limit() if limit is None else limit).st_size
    except FileNotFoundError:
        raise InputError("no such file", path) from None
    except PermissionError:
        raise InputError("permission denied", path) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", path) from None


def _readable(path: Path, limit: int) -> os.stat_result:
    info = path.stat()
    if stat.S_ISDIR(info.st_mode):
        raise InputError("is a directory; give a file", path)
    if not stat.S_ISREG(info.st_mode):  # /dev/zero never ends, a FIFO blocks the open
        raise InputError("not a regular file (a device, pipe or socket); give a file", path)
    if info.st_size > limit:
        raise too_big(path, f"{info.st_size:,} bytes", limit)
    return info


def _check_within(path: Path, root: Path) -> None:
    if _plainly_inside(os.fspath(path), os.fspath(root)):
        return
    try:
        target = path.resolve()
        inside = target.is_relative_to(root.resolve())
    except (OSError, RuntimeError):  # a symlink loop: read_bytes reports it
        return
    if not inside:
        raise InputError(
            f"is a symlink to {target}, outside the corpus; replace the link with the file", path
        )


def _plainly_inside(path: str, root: str) -> bool:
    """True when `path` is written below `root` and no name below `root` on the way is a
    symlink: then it resolves inside wherever `root` resolves (one lstat per name below the
    root, where resolving both costs one per name from the file system's root, twice)."""
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not path.startswith(prefix):
        return False
    names = path[len(prefix) :].split(os.sep)
    if any(name in ("", ".", "..") or (os.altsep and os.altsep in name) for name in names):
        return False
    current = prefix[:-1]
    for name in names:
        current += os.sep + name
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return False
        except OSError:  # missing, a name too long: the full check decides
            return False
    return True


def too_big(path: Path, size: str, limit: int) -> InputError:
    return InputError(
        f"file is {size}, over the {limit:,}-byte limit; "
        "cut it with the exporter, or raise CORPUS_MAX_INPUT_BYTES",
        path,
    )


def parse_json(raw: bytes, path: Path) -> Any:
    """Parse JSON bytes, turning a syntax error into a one-line InputError with its line."""
    try:
        with collector_paused():  # JSON builds no cycles: nothing for the collector to find
            data = check_depth(json.loads(raw), path)
    except UnicodeDecodeError:
        raise InputError("not UTF-8 text; is this a binary file?", path) from None
    except json.JSONDecodeError as err:
        raise InputError(
            f"not valid JSON: {err.msg} (column {err.colno})", path, err.lineno
        ) from None
    except RecursionError:
        raise _too_deep(path) from None
    except ValueError as err:  # an integer of more than 4300 digits
        raise InputError(f"not usable JSON: {str(err).split(';')[0]}", path) from None
    return mend_surrogates(data) if _SURROGATE_ESCAPE.search(raw) else data


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def mend_surrogates(value: Any) -> Any:
    """A lone `\\ud800` (a string cut inside a UTF-16 pair by an exporter) becomes U+FFFD.

    JSON allows it, UTF-8 cannot encode it: kept, it fails the first write of the case.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [mend_surrogates(v) for v in value]
    if isinstance(value, dict):
        return {mend_surrogates(k): mend_surrogates(v) for k, v in value.items()}
    return value


def parse_yaml(text: str | bytes, path: Path) -> Any:
    """Parse one YAML document with the safe (C) loader."""
    return parse_yaml_spans(text, path)[0]


def parse_yaml_spans(text: str | bytes, path: Path) -> tuple[Any, list[ScalarExtent] | None]:
    """The parsed document, and where its scalars holding a `#` are written; bytes must be
    UTF-8.

    The spans tell comments (which the parsed value does not hold) from text cheaply
    (`redact.comments`); None when they are unknown. YAML would also read UTF-16 and UTF-32
    (after a byte-order mark), but git shows such a file as binary, so no reviewer sees it,
    and byte-level scans (comments) miss what it holds.
    """
    if isinstance(text, bytes) and text.startswith(_WIDE_BOMS):
        raise InputError(
            "not UTF-8 text (UTF-16 or UTF-32, after a byte-order mark); save it as UTF-8", path
        )
    try:
        loaded: tuple[Any, list[ScalarExtent] | None] = _without_gc(_load, text, path)
        return loaded
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        line = mark.line + 1 if mark is not None else None
        raise InputError(f"not valid YAML: {err.problem}", path, line) from None
    except yaml.reader.ReaderError as err:  # its str() spans two lines
        what = (
            "not UTF-8 text"
            if isinstance(err.character, int) and err.character > 0x7F
            else ("a control character")
        )
        raise InputError(
            f"not valid YAML: {what} at byte {err.position}; is this a binary file?", path
        ) from None
    except yaml.YAMLError as err:
        raise InputError(f"not valid YAML: {' '.join(str(err).split())}", path) from None
    except RecursionError:
        raise _too_deep(path) from None
    except ValueError as err:  # an integer of more than 4300 digits
        raise InputError(f"not usable YAML: {str(err).split(';')[0]}", path) from None


def _load(text: str | bytes, path: Path) -> tuple[Any, list[ScalarExtent] | None]:
    budget = max(len(text), 1000)
    loader = Loader(text)  # every parse makes one (1.5 us; the suite counts parses by it)
    try:
        written = _read_written(text)  # the layout dump_yaml writes, read without libyaml
        if written is not None:
            return written
        root = loader.get_single_node()  # parsed and composed in C
        if root is None:
            return None, []
        with contextlib.suppress(Exception):  # the general constructor decides, below
            return yaml_build.build(root, loader, MAX_DEPTH, budget)
    finally:
        loader.dispose()
    # Unusual documents (aliases, tags, duplicate keys, errors): built as PyYAML always did,
    # so their value or error is the one the constructor gives.
    return check_depth(yaml.load(text, Loader=Loader), path, budget), None


def _read_written(text: str | bytes) -> tuple[Any, list[ScalarExtent]] | None:
    """The document read as the layout dump_yaml writes (yaml_read), or None when it is not
    certainly in that layout: libyaml parses it then."""
    try:
        decoded = text.decode("utf-8") if isinstance(text, bytes) else text
        return yaml_read.read(decoded, _scalars())
    except Exception:  # OffLayout, not UTF-8, too deep: libyaml gives the value or the error
        return None


@functools.cache
def _scalars() -> yaml_read.Scalars:
    return yaml_read.Scalars(Loader(""))


_WIDE_BOMS = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE, codecs.BOM_UTF32_BE)
"""UTF-16 LE's mark also starts UTF-32 LE's."""


def check_depth(data: Any, path: Path, budget: int | None = None, depth: int = 0) -> Any:
    """Return `data`, or refuse it when lists and mappings nest deeper than MAX_DEPTH.

    `depth`: how deep `data` itself sits in its document (a part of one read incrementally).

    `budget` caps the values a walk of the tree may meet: YAML aliases can make a few bytes
    stand for billions of values (the "billion laughs"), which every walker downstream would
    then visit. A document without aliases never holds more values than it has bytes.
    """
    level = [data] if isinstance(data, (dict, list)) else []  # only containers are queued
    seen = 1
    while level:
        below: list[Any] = []
        for node in level:
            children = node.values() if isinstance(node, dict) else node
            if not children:
                continue
            if depth >= MAX_DEPTH:  # its values would sit deeper than MAX_DEPTH
                raise _too_deep(path)
            seen += len(children)
            below.extend(c for c in children if isinstance(c, (dict, list)))
        if budget is not None and seen > budget:
            raise InputError(
                "expands to more values than the file has bytes (YAML aliases?); write the "
                "values out",
                path,
            )
        level, depth = below, depth + 1
    return data


def _too_deep(path: Path) -> InputError:
    return InputError(
        f"nested deeper than {MAX_DEPTH} levels of lists and mappings; is this file generated "
        "by mistake?",
        path,
    )


def read_yaml(path: Path, limit: int | None = None) -> Any:
    """Read and parse a YAML file."""
    return parse_yaml(read_bytes(path, limit), path)


def atomic_write(path: Path, text: str) -> None:
    """Write text to path so that readers see the old file or the new one, never half."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as err:
        raise InputError(
            f"cannot write here: {err.strerror or err}; give another path", path
        ) from None
    if path.is_dir():
        os.close(fd)
        Path(tmp).unlink(missing_ok=True)
        raise InputError("is a directory; give a file name", path)
    try:
        os.fchmod(fd, mode_for(path, 0o666))  # mkstemp makes 0600: give what the umask gives
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_cache(path: Path, text: str | None) -> None:
    """Replace a cache file with `text` (None: only tidy up) under its lock, removing first the
    temporary files of saves that were killed (only the lock's holder can tell them from those
    of a save in progress). BusyError when another run is saving; OSError or InputError when
    the place cannot be written: a cache's callers treat both as "the next run does it"."""
    with saving(path):
        if text is not None:
            atomic_write(path, text)


@contextlib.contextmanager
def saving(path: Path) -> Iterator[None]:
    """Hold the save lock of the cache file at `path`, what killed saves of it left removed
    first (`save_cache`'s, and any cache's that writes `.NAME.*.tmp` beside it). BusyError
    when another run is saving; OSError or InputError when the place cannot be written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with exclusive(path.parent / f".{path.name}.lock", "another run is saving this cache"):
        for stale in cache_leftovers(path):
            with contextlib.suppress(OSError):
                stale.unlink()
        yield


def cache_leftovers(path: Path) -> list[Path]:
    """Temporary files of saves of the cache at `path` (atomic_write's names)."""
    try:
        names = os.listdir(path.parent)
    except OSError:
        return []
    prefix = f".{path.name}."
    return [path.parent / n for n in names if n.startswith(prefix) and n.endswith(".tmp")]


def checksummed_text(format_version: int, body: Mapping[str, Any]) -> str:
    """A cache file's text: a SHA-256 line, then one line of JSON (`body` and its format)."""
    text = json.dumps({**body, "format": format_version}, sort_keys=True, separators=(",", ":"))
    return f"sha256 {_sha256(text)}\n{text}"


def read_checksummed(path: Path, format_version: int) -> dict[str, Any] | None:
    """The JSON object of a file checksummed_text wrote; None for anything suspect (missing,
    not a regular file, too big, not UTF-8, a checksum or format that does not match, JSON too
    deep to decode): a cache is rebuilt, never trusted and never a reason to stop."""
    try:  # read_bytes refuses a FIFO (which would block), a device or a huge file
        header, _, text = read_bytes(path).decode("utf-8").partition("\n")
    except (InputError, UnicodeDecodeError):
        return None
    if header != f"sha256 {_sha256(text)}":
        return None
    try:
        data = _without_gc(json.loads, text)
    except (ValueError, RecursionError):  # a checksummed file can still nest too deep
        return None
    if not isinstance(data, dict) or data.get("format") != format_version:
        return None
    return data


def _without_gc(decode: Any, *args: Any) -> Any:
    """Decode with the cycle collector paused: JSON builds no cycles, and a cache of 100,000
    entries (400,000 lists) made it run its full collections over and over (3 s of 4). YAML
    likewise: the C composer's nodes and marks are thousands of young objects a file, and
    collecting them took about half of a parse (a recursive alias's cycle is collected later)."""
    with collector_paused():
        return decode(*args)


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cycle collector paused while building values that hold no cycles (decoded JSON,
    the typed values made of it): a million containers made it run its full collections
    again and again, each a walk of everything built so far (a results document of 106 MB:
    json.loads 2.05 s of CPU with it running, 0.84 s without; its typed cases 1.70 s,
    0.55 s). Once running again it walks them once, unless the caller has frozen them
    (`gc.freeze`, as `corpus regrade` does: they live as long as the command)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _sha256(text: str) -> str:
    import hashlib  # only the caches need it: commands that write no cache skip loading OpenSSL

    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def umask() -> int:
    """The process's umask (read by setting it and putting it straight back)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def mode_for(path: Path, full: int) -> int:
    """The mode a written file or directory gets: the one it has when it is replaced (a mode
    the user chose is kept), else what the umask makes of `full` (as `open` and `mkdir` do)."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return full & ~umask()


def json_text(document: Any) -> str:
    """A JSON document as commands print and write it: indented, unicode as is, newline-ended."""
    return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"


def canonical_json(value: Any) -> str:
    """One line of JSON, keys sorted, unicode as is: the stable text to compare or show a value."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def dump_yaml(data: Any) -> str:
    """Machine-written YAML: block style, key order kept, unicode as is, stable across runs."""
    # imported here: the commands that only read YAML (validate, the hook) load no writer
    from corpus_tool.io import yaml_stream, yaml_text

    options: dict[str, Any] = {
        "sort_keys": False,
        "allow_unicode": True,
        "default_flow_style": False,
        "width": 100,
    }

    def events(doc: Any) -> str:
        return yaml_stream.dump(doc, _Dumper, _str_style, **options)

    try:  # the same bytes as yaml.dump: as text, line by line (yaml_text)
        return yaml_text.dump(data, _str_style, events, options)
    except yaml_stream.Unplain:
        pass
    try:  # ... or as emitter events, without building the node tree first
        return events(data)
    except yaml_stream.Unplain:
        return yaml.dump(data, Dumper=_Dumper, **options)  # type: ignore[no-any-return]


_STR, _MAP, _SEQ = "tag:yaml.org,2002:str", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq"
_SCALARS: dict[type, tuple[str, Any]] = {
    int: ("tag:yaml.org,2002:int", str),
    bool: ("tag:yaml.org,2002:bool", lambda v: "true" if v else "false"),
    type(None): ("tag:yaml.org,2002:null", lambda v: "null"),
}


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Safe dumper that writes multi-line strings as literal blocks, for readable diffs.

    Its representer builds the nodes of str, int, bool, None, dict and list itself, as
    PyYAML's would (block style, key order kept, a dict or list met twice is the same node:
    an alias), without PyYAML's per-value dispatch: a trace holds hundreds of thousands of
    values. Other types go to PyYAML's representers."""

    def represent_data(self, data: Any) -> yaml.Node:
        kind = type(data)
        if self.default_style is not None:
            return super().represent_data(data)  # type: ignore[no-any-return]
        if kind is str:
            return yaml.ScalarNode(_STR, data, style=_str_style(data))
        scalar = _SCALARS.get(kind)
        if scalar is not None:
            return yaml.ScalarNode(scalar[0], scalar[1](data))
        if (kind is dict or kind is list) and self.default_flow_style is False:
            if not self.sort_keys or kind is list:
                return self._container(data)
        return super().represent_data(data)  # type: ignore[no-any-return]

    def _container(self, data: dict[Any, Any] | list[Any]) -> yaml.Node:
        known = self.represented_objects.get(id(data))
        if known is not None:
            return known  # type: ignore[no-any-return]
        self.object_keeper.append(data)
        node: yaml.Node
        if type(data) is dict:
            pairs: list[tuple[yaml.Node, yaml.Node]] = []
            node = yaml.MappingNode(_MAP, pairs, flow_style=False)
            self.represented_objects[id(data)] = node
            represent = self.represent_data
            pairs.extend((represent(k), represent(v)) for k, v in data.items())
        else:
            items: list[yaml.Node] = []
            node = yaml.SequenceNode(_SEQ, items, flow_style=False)
            self.represented_objects[id(data)] = node
            items.extend(map(self.represent_data, data))
        return node


def _str_style(value: str) -> str | None:
    style = "|" if "\n" in value and not value.endswith((" ", "\t")) else None
    if style is None and not is_plain_safe(value):  # `1e3`, `0o17`: PyYAML alone writes plain
        style = "'"
    return style


def _str_representer(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=_str_style(value))


_Dumper.add_representer(str, _str_representer)


def with_top_value(text: str, key: str, value: str, path: Path) -> str:
    """`text` with the top-level `key: ...` scalar set to `value`; every other byte kept.

    An edit in place, not a reload and rewrite: comments, quoting, key order and line wrapping
    of a reviewed file survive, so the git diff shows the one changed value.
    """
    try:
        root = yaml.compose(text, Loader=Loader)
    except yaml.YAMLError as err:
        raise InputError(f"not valid YAML: {' '.join(str(err).split())}", path) from None
    if isinstance(root, yaml.MappingNode):
        for key_node, node in root.value:
            if key_node.value == key and isinstance(node, yaml.ScalarNode):
                shown = dump_yaml(value).removesuffix("\n...\n").strip()
                return text[: node.start_mark.index] + shown + text[node.end_mark.index :]
    raise InputError(f"has no top-level `{key}:` value to change; see `corpus validate`", path)
