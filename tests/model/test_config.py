"""corpus.yaml as a frozen Config: the defaults docs/corpus-files.md promises, read once, refused
whole when a value is wrong."""

from __future__ import annotations

import dataclasses
import pickle
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml

from corpus_tool.errors import InputError
from corpus_tool.model.config import Config
from corpus_tool.store.corpus import load_config, open_corpus
from tests.conftest import ROOT, Cli

DOC = ROOT / "docs" / "corpus-files.md"
ROW = re.compile(r"^\| `(?P<setting>[a-z_.]+)` \| `(?P<value>[^`]*)` \|", re.MULTILINE)


def _promised() -> dict[str, Any]:
    """The table of docs/corpus-files.md: setting -> the value it takes when unset."""
    text = DOC.read_text(encoding="utf-8")
    section = text.split("## What corpus.yaml leaves unset", 1)[1].split("\n## ", 1)[0]
    return {m["setting"]: yaml.safe_load(m["value"]) for m in ROW.finditer(section)}


def _plain(value: object) -> object:
    """A Config value as YAML writes it: tuples as lists, tables and sections as mappings."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _settings(config: Config) -> dict[str, object]:
    """Every setting of a Config by its dotted corpus.yaml path (schema_version aside)."""
    found: dict[str, object] = {}
    for top in dataclasses.fields(config):
        value = getattr(config, top.name)
        if top.name == "schema_version":
            continue
        if not dataclasses.is_dataclass(value):
            found[top.name] = _plain(value)
            continue
        for inner in dataclasses.fields(value):
            found[f"{top.name}.{inner.name}"] = _plain(getattr(value, inner.name))
    # max_days keeps "unset" apart (messages say "unset: the default"); what applies is `days`
    found["waivers.max_days"] = config.waivers.days
    return found


def test_a_corpus_yaml_with_no_section_gets_the_defaults_the_docs_promise(tmp_path: Path) -> None:
    (tmp_path / "corpus.yaml").write_text("schema_version: 1\n", encoding="utf-8")
    config = load_config(tmp_path)
    assert config == Config()
    promised = _promised()
    assert promised, f"{DOC} lost its table of defaults"
    assert _settings(config) == promised


def test_every_setting_of_the_schema_is_in_the_config() -> None:
    schema = yaml.safe_load((ROOT / "schemas" / "corpus.schema.json").read_text(encoding="utf-8"))
    paths = set()
    for name, spec in schema["properties"].items():
        inner = spec.get("properties") if spec.get("type") == "object" else None
        paths.update({f"{name}.{key}" for key in inner} if inner else {name})
    assert paths - {"schema_version"} == set(_settings(Config()))


def test_a_full_corpus_yaml_reads_into_typed_sections(tmp_path: Path) -> None:
    (tmp_path / "corpus.yaml").write_text(
        "schema_version: 1\n"
        "name: refunds\n"
        "agent: {entrypoint: 'app.agent:run', models: [m-1, m-2], prompt_version: v3}\n"
        "redaction: {key_env: MY_KEY, drop_keys: [password]}\n"
        "replay: {mode: lenient, request_fields: all, timeout_s: 5, env: [HOME]}\n"
        "scorers: {embedding: 'evals.scoring:similarity'}\n"
        "impact: {unmapped: none, rules: [{paths: [src/**], cases: [refund-*]}]}\n"
        "waivers: {max_days: 30}\n",
        encoding="utf-8",
    )
    config = open_corpus(None, tmp_path).config
    assert (config.name, config.agent.entrypoint, config.agent.models) == (
        "refunds",
        "app.agent:run",
        ("m-1", "m-2"),
    )
    assert (config.redaction.key_env, config.redaction.drop_keys) == ("MY_KEY", ("password",))
    assert config.replay.mode == "lenient" and config.replay.request_fields == "all"
    assert config.replay.timeout_s == 5 and config.replay.env == ("HOME",)
    assert dict(config.scorers) == {"embedding": "evals.scoring:similarity"}
    assert config.impact.unmapped == "none" and config.impact.rules[0].cases == ("refund-*",)
    assert (config.waivers.max_days, config.waivers.days) == (30, 30)


def test_config_is_immutable() -> None:
    config = Config.from_document(
        {"schema_version": 1, "scorers": {"e": "m:f"}, "replay": {"env": ["HOME"]}}
    )
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.replay = dataclasses.replace(config.replay, mode="lenient")  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.replay.mode = "lenient"  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.scorers["e"] = "other:code"  # type: ignore[index]
    assert isinstance(config.replay.env, tuple)
    sent = pickle.loads(pickle.dumps(config))  # as a replay worker gets it
    assert sent == config and hash(sent) == hash(config)
    assert dict(sent.scorers) == {"e": "m:f"} and sent.replay.env == ("HOME",)


def test_a_bad_value_is_one_error_naming_the_file_and_line(tmp_path: Path, cli: Cli) -> None:
    path = tmp_path / "corpus.yaml"
    path.write_text("schema_version: 1\nreplay:\n  mode: fast\n  timeout_s: 0\n", encoding="utf-8")
    with pytest.raises(InputError) as raised:
        load_config(tmp_path)
    assert (raised.value.path, raised.value.line) == (path, 3)
    code, out, err = cli("status", cwd=tmp_path)
    assert code == 2 and out == ""
    assert err == (
        f"corpus status: error: {path}:3: $.replay.mode: 'fast' is not one of "
        "['strict', 'lenient']; see `corpus validate`\n"
    )
