"""Where a corpus sits in its repository, and what kind of corpus file a changed path is."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from corpus_tool.store.corpus import CASES, CONFIG_NAME, WAIVERS, is_case_id

ROOT_SCHEMAS = "schemas/"
"""corpus-tool's own schemas at the top of a repository (this project, or a vendored copy)."""


@dataclass(frozen=True)
class Layout:
    """The corpus directory as a repository-relative prefix: "" or "evals/" (POSIX, with /)."""

    prefix: str

    @classmethod
    def at(cls, relative: str) -> Layout:
        """The layout of a corpus at a repository-relative directory ("." for the root)."""
        clean = relative.replace("\\", "/").strip("/")
        return cls("" if clean in ("", ".") else clean + "/")

    def pathspecs(self) -> list[str]:
        """What the head side must list: cases, waivers and corpus.yaml."""
        return [f"{self.prefix}{CASES}/", f"{self.prefix}{WAIVERS}/", self.config_path]

    @property
    def cases_dir(self) -> str:
        return f"{self.prefix}{CASES}/"

    @property
    def config_path(self) -> str:
        return self.prefix + CONFIG_NAME

    def case_path(self, case_id: str, name: str) -> str:
        return f"{self.prefix}{CASES}/{case_id}/{name}"

    def case_of(self, path: str) -> str | None:
        """The case id when the path lies inside a case directory (cases/<id>/...).

        Only a valid case id: a directory named `x;cmd` is no case, so no report ever prints
        it into a CI matrix or a shell command (validate reports it instead).
        """
        inner = self._inside(path, CASES)
        if inner is None or "/" not in inner:
            return None
        case_id = inner.split("/", 1)[0]
        return case_id if is_case_id(case_id) else None

    def case_ids(self, paths: Iterable[str]) -> set[str]:
        """The cases these files lie in, as case_of() names them, each id checked once per
        case directory, not once per file (a corpus of 100,000 cases lists 200,000 files)."""
        start = f"{self.prefix}{CASES}/"
        cut = len(start)
        names = set()
        for path in paths:
            if path.startswith(start):
                slash = path.find("/", cut)
                if slash >= 0:
                    names.add(path[cut:slash])
        return {name for name in names if is_case_id(name)}

    def case_of_link(self, path: str) -> str | None:
        """The case a submodule at `path` is (cases/<id>) or lies in (cases/<id>/...)."""
        inner = self._inside(path, CASES)
        case_id = inner.split("/", 1)[0] if inner else ""
        return case_id if is_case_id(case_id) else None

    def is_waiver(self, path: str) -> bool:
        inner = self._inside(path, WAIVERS)
        return inner is not None and "/" not in inner and inner.endswith((".yaml", ".yml"))

    def is_global(self, path: str) -> bool:
        """corpus.yaml and the schemas: a change there can affect every case."""
        if path == self.config_path or self._inside(path, "schemas") is not None:
            return True
        return path.startswith(ROOT_SCHEMAS) and path.endswith(".schema.json")

    def _inside(self, path: str, folder: str) -> str | None:
        start = f"{self.prefix}{folder}/"
        return path[len(start) :] if path.startswith(start) else None
