"""`corpus waivers new` as docs/gate.md and its --help describe it: several check names after
one --check, and the 90-day cap when corpus.yaml sets no waivers.max_days (validate too)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
import yaml

from tests.conftest import Cli, git
from tests.replay.conftest import copy_corpus


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    """The example corpus without its waiver and without waivers.max_days."""
    root = copy_corpus(tmp_path)
    (root / "waivers" / "W-0001.yaml").unlink()
    config = root / "corpus.yaml"
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("waivers:\n  max_days: 27000\n", ""), encoding="utf-8")
    assert "max_days" not in yaml.safe_load(config.read_text(encoding="utf-8")).get("waivers", {})
    git(root, "init", "-q")
    git(root, "config", "user.name", "Jane Reviewer")
    return root


def _checks(corpus: Path, waiver: str) -> list[str]:
    doc = yaml.safe_load((corpus / "waivers" / f"{waiver}.yaml").read_text(encoding="utf-8"))
    return list(doc["checks"])


def test_several_check_names_after_one_check(cli: Cli, corpus: Path) -> None:
    new = ["-C", corpus, "waivers", "new", "refund-wrong-unit", "--reason", "r"]
    done = cli(*new, "--check", "replay.divergence", "tools.args")
    assert done.code == 0, done.err
    assert _checks(corpus, "W-0001") == ["replay.divergence", "tools.args"]
    repeated = cli(*new, "--check", "replay.divergence", "--check", "terminal.status")
    assert repeated.code == 0, repeated.err
    assert _checks(corpus, "W-0002") == ["replay.divergence", "terminal.status"]


def test_waivers_new_caps_the_expiry_at_90_days_when_max_days_is_unset(
    cli: Cli, corpus: Path
) -> None:
    new = ["-C", corpus, "waivers", "new", "refund-wrong-unit", "--check", "all", "--reason", "r"]
    far = (date.today() + timedelta(days=91)).isoformat()
    refused = cli(*new, "--expires", far)
    assert refused.code == 2 and "more than 90 days ahead" in refused.err, refused.err
    assert not list((corpus / "waivers").glob("*.yaml")), "nothing written"
    last = (date.today() + timedelta(days=90)).isoformat()
    assert cli(*new, "--expires", last).code == 0


def test_validate_holds_a_waiver_to_90_days_when_max_days_is_unset(cli: Cli, corpus: Path) -> None:
    created = date.today()
    (corpus / "waivers" / "W-0007.yaml").write_text(
        "schema_version: 1\nid: W-0007\nkind: check\ncase: refund-wrong-unit\n"
        "checks: [replay.divergence]\nreason: r\nowner: o\n"
        f"expires: '{created + timedelta(days=91)}'\ncreated: '{created}'\n",
        encoding="utf-8",
    )
    done = cli("-C", corpus, "validate")
    assert done.code == 1, done.out
    assert "[waiver.max_days]" in done.out and "more than 90 days after" in done.out, done.out
