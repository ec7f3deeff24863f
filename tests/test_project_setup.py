"""What a contributor and a new user set up, as the docs say it: the project's hooks pinned, a
`[pytest]` extra for the plugin, install forms pip accepts, the suite's skips and fast lane."""

from __future__ import annotations

import re
from typing import Any

import pytest
import yaml

from tests.conftest import ROOT


def _pyproject() -> dict[str, Any]:
    tomllib = pytest.importorskip("tomllib")  # Python 3.11+
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_every_hook_dependency_is_pinned_as_the_docs_say() -> None:
    hooks = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    deps = [
        d
        for repo in hooks["repos"]
        for h in repo["hooks"]
        for d in h.get("additional_dependencies", [])
    ]
    assert deps, "the hooks install their tools"
    assert [d for d in deps if not re.fullmatch(r"[\w.\-\[\],]+==[\w.]+", d)] == []
    assert "at pinned versions" in (ROOT / "docs/contributing.md").read_text(encoding="utf-8")


def test_the_pytest_extra_installs_what_the_plugin_needs() -> None:
    project = _pyproject()["project"]
    names = {
        re.split(r"[<>=!~ \[]", d, maxsplit=1)[0]
        for d in project["optional-dependencies"]["pytest"]
    }
    assert names == {"pytest", "pytest-xdist"}
    assert "[pytest]" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_install_shows_forms_pip_accepts() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert re.search(r"pip install \./\S+", install), "a path to a clone"
    assert "git+file:///" in install, "a clone on disk as a URL pip takes after git+"
    assert "`git remote get-url origin`" in install, "why its output may not do"


def test_contributors_find_the_sample_skips_and_the_fast_lane() -> None:
    guide = (ROOT / "docs/contributing.md").read_text(encoding="utf-8")
    assert "../shared/samples" in guide and "CORPUS_SHARED_SAMPLES" in guide
    assert '-m "not slow"' in guide
    assert re.search(r"about \d+ minutes with `-n 2` on 2 idle cores\*\* \(measured", guide)
    config = _pyproject()
    markers = config["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("slow:") for m in markers)


def test_the_release_tag_the_readme_names_is_the_packaged_version() -> None:
    """`pip install git+<repo-url>@<tag>` means a release: the tag the README names is the
    version the package says it is (git tags it `v` + corpus_tool/version.py)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    version = re.search(r'__version__ = "([^"]+)"', (ROOT / "corpus_tool/version.py").read_text())
    assert version is not None
    named = re.findall(r"release tag \(such\s+as `(v[\w.]+)`\)", readme)
    assert named == [f"v{version.group(1)}"], named
