"""corpus.yaml as a frozen value: every setting a command reads, with its default.

Built once (`Config.from_document`) from a document already checked against
schemas/corpus.schema.json, and reached as `corpus.config`; no other code looks a setting up
by its path. The defaults a corpus.yaml without a setting gets live here and nowhere else
(docs/corpus-files.md lists them, and a test holds the two together).

Who reads corpus.yaml itself: `store/corpus.py` (the loader: `load_config` for a corpus on
disk, `config_from_bytes` for one revision's blob, as `corpus affected` and `gate` read the
head side). Three others touch the file for their own ends and keep to that: validation's
config rule (`validate/rules.check_config`: the parse and schema findings, with lines),
`corpus init` (writes the template) and `corpus migrate` (rewrites the file to the current
schema version); the redaction guard looks up the line of `redaction.key_file` for its finding,
and the findings cache hashes the file's bytes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeGuard, TypeVar

from corpus_tool.model.vocabulary import StrEnum

V = TypeVar("V")
ModelSource = Literal["recorded", "live"]
"""Where a replay's model answers come from (`replay.model`)."""
LiveUnmatched = Literal["placeholder", "stub", "divergence"]
"""What answers a live run's tool call no recorded call answers (`replay.live.unmatched`)."""
RequestFields = Literal["shared", "all"]
"""Which model request fields strict mode compares (`replay.request_fields`)."""
Unmapped = Literal["all", "none"]
"""What a changed file no impact rule names selects (`impact.unmapped`)."""

DEFAULT_KEY_ENV = "CORPUS_REDACTION_KEY"
DEFAULT_TIMEOUT_S = 60.0
DEFAULT_RETRIES = 2
DEFAULT_BACKOFF_S = 0.5
DEFAULT_MAX_DAYS = 90
"""How far ahead a waiver may expire (and a new one does) when corpus.yaml sets no
waivers.max_days."""
LEXICAL_SCORER = "lexical"
"""The built-in similarity scorer: the one scorer name corpus.yaml need not register."""


class Mode(StrEnum):
    """How replay matches the agent's requests against the recording.

    Here rather than in `model.results` (which reads the document that records it): corpus.yaml's
    `replay.mode` is one, and loading a corpus then builds no results or trace models."""

    STRICT = "strict"
    LENIENT = "lenient"
    LIVE = "live"  # the model live, the tools from the recording: requests not compared


class Frozen(Mapping[str, V]):
    """A read-only name -> value table of corpus.yaml.

    A plain class rather than a mapping proxy, so a Config pickles (a replay worker is sent
    one)."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, V] | None = None) -> None:
        self._items = dict(items or {})

    def __getitem__(self, name: str) -> V:
        return self._items[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(tuple(self._items.items()))

    def __repr__(self) -> str:
        return f"Frozen({self._items!r})"

    def __getstate__(self) -> dict[str, V]:
        return self._items

    def __setstate__(self, state: dict[str, V]) -> None:
        self._items = state


Table = Frozen[str]
"""A name -> `module:callable` table (`scorers`, `judges`)."""
ToolFields = Frozen[tuple[str, ...]]
"""A tool name -> argument names table (`replay.live.ignore_arguments`)."""


@dataclass(frozen=True)
class AgentSection:
    """`agent`: the agent under test and its current versions (what drift compares with)."""

    entrypoint: str | None = None
    command: tuple[str, ...] = ()
    """`agent.command`: the agent as the team runs it (argv; `{input}` is the case input file)."""
    prompt_version: str | None = None
    models: tuple[str, ...] = ()
    version: str | None = None
    tool_schema_hash: str | None = None


@dataclass(frozen=True)
class RedactionSection:
    """`redaction`: where the key comes from, which key is current, what else is dropped."""

    key_env: str = DEFAULT_KEY_ENV  # an empty name is no name: the default
    key_file: str | None = None  # as written: `redact.keys` resolves it
    key_id: str | None = None
    drop_keys: tuple[str, ...] = ()


@dataclass(frozen=True)
class LiveSection:
    """`replay.live`: how a live replay answers tools the recording does not, and retries."""

    unmatched: LiveUnmatched = "placeholder"
    ignore_arguments: ToolFields = field(default_factory=ToolFields)
    retries: int = DEFAULT_RETRIES
    backoff_s: float = DEFAULT_BACKOFF_S


@dataclass(frozen=True)
class ReplaySection:
    """`replay`: the defaults of a replay that a case or an option does not set."""

    mode: Mode = Mode.STRICT
    ignore_request_fields: tuple[str, ...] = ()
    request_fields: RequestFields = "shared"
    scorer: str | None = None  # a name under `scorers`, or `lexical`; None: no default scorer
    timeout_s: float = DEFAULT_TIMEOUT_S  # as written (an integer stays one)
    env: tuple[str, ...] = ()
    model: ModelSource = "recorded"
    live_model: str | None = None  # pkg.module:factory, loaded in the grading process
    live: LiveSection = field(default_factory=LiveSection)
    mcp: Table = field(default_factory=Table)  # MCP server name -> stdio | http
    tools: tuple[str, ...] = ()  # the agent's own tool functions, module:function


@dataclass(frozen=True)
class ImpactRule:
    """One `impact.rules` entry as written (`select/rules.Rule` is its compiled form)."""

    paths: tuple[str, ...]
    tools: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    cases: tuple[str, ...] = ()
    all: bool = False


@dataclass(frozen=True)
class ImpactSection:
    """`impact`: which changed paths select which cases (`corpus affected`, `gate`)."""

    rules: tuple[ImpactRule, ...] = ()
    unmapped: Unmapped = "all"


@dataclass(frozen=True)
class WaiversSection:
    """`waivers`: how far ahead a waiver may expire."""

    max_days: int | None = None  # None: unset (messages say so), and `days` is the default

    @property
    def days(self) -> int:
        """The limit in force: max_days, else the default."""
        return DEFAULT_MAX_DAYS if self.max_days is None else self.max_days


@dataclass(frozen=True)
class GateSection:
    """`gate`: how `corpus gate --model live` judges repeated runs (docs/gate.md)."""

    repeat: int | Literal["auto"] | None = None  # None: --repeat, else one attempt per side
    alpha: float = 0.05  # the one-sided exact test's level, per case
    min_detectable: float = 0.3  # the drop `unchanged` must have been able to detect
    min_base_rate: float = 0.5  # below it, the base is too flaky to gate anything
    correction: Literal["none", "holm"] = "none"  # across the cases of one gate run
    block_on_suite: bool = False  # a suite regression (the sign test) blocks too


@dataclass(frozen=True)
class Config:
    """corpus.yaml, schema-checked, with every default applied."""

    schema_version: int = 1
    name: str | None = None  # None: unset (reports name the corpus by its directory)
    agent: AgentSection = field(default_factory=AgentSection)
    redaction: RedactionSection = field(default_factory=RedactionSection)
    replay: ReplaySection = field(default_factory=ReplaySection)
    scorers: Table = field(default_factory=Table)
    impact: ImpactSection = field(default_factory=ImpactSection)
    judges: Table = field(default_factory=Table)
    waivers: WaiversSection = field(default_factory=WaiversSection)
    gate: GateSection = field(default_factory=GateSection)

    @classmethod
    def from_document(cls, doc: Mapping[str, Any]) -> Config:
        """The config of a corpus.yaml document that fits its schema (an empty one: defaults)."""
        return cls(
            schema_version=int(doc.get("schema_version", 1)),
            name=_text(doc.get("name")),
            agent=_agent(_section(doc, "agent")),
            redaction=_redaction(_section(doc, "redaction")),
            replay=_replay(_section(doc, "replay")),
            scorers=_table(doc.get("scorers")),
            impact=_impact(_section(doc, "impact")),
            judges=_table(doc.get("judges")),
            waivers=WaiversSection(_integer(_section(doc, "waivers").get("max_days"))),
            gate=_gate(_section(doc, "gate")),
        )


def unregistered_scorer(name: object, scorers: Mapping[str, str]) -> str | None:
    """Why a case (or replay.scorer) may not name this scorer; None when it may."""
    if name == LEXICAL_SCORER or (isinstance(name, str) and name in scorers):
        return None
    names = ", ".join(sorted({LEXICAL_SCORER, *scorers}))
    return (
        f"scorer {name!r} is not registered in corpus.yaml `scorers` (known: {names}); a case "
        "names a scorer, and only corpus.yaml maps a name to code"
    )


def _agent(section: Mapping[str, Any]) -> AgentSection:
    return AgentSection(
        entrypoint=_text(section.get("entrypoint")),
        command=_texts(section.get("command")),
        prompt_version=_text(section.get("prompt_version")),
        models=_texts(section.get("models")),
        version=_text(section.get("version")),
        tool_schema_hash=_text(section.get("tool_schema_hash")),
    )


def _redaction(section: Mapping[str, Any]) -> RedactionSection:
    return RedactionSection(
        key_env=_text(section.get("key_env")) or DEFAULT_KEY_ENV,
        key_file=_text(section.get("key_file")),
        key_id=_text(section.get("key_id")) or None,
        drop_keys=_texts(section.get("drop_keys")),
    )


def _replay(section: Mapping[str, Any]) -> ReplaySection:
    timeout = section.get("timeout_s")
    scorer = section.get("scorer")
    return ReplaySection(
        mode=Mode.LENIENT if section.get("mode") == "lenient" else Mode.STRICT,
        ignore_request_fields=_texts(section.get("ignore_request_fields")),
        request_fields="all" if section.get("request_fields") == "all" else "shared",
        scorer=scorer if isinstance(scorer, str) else None,
        timeout_s=timeout if _is_number(timeout) else DEFAULT_TIMEOUT_S,
        env=_texts(section.get("env")),
        model="live" if section.get("model") == "live" else "recorded",
        live_model=_text(section.get("live_model")),
        live=_live(_section(section, "live")),
        mcp=_table(section.get("mcp")),
        tools=_texts(section.get("tools")),
    )


def _live(section: Mapping[str, Any]) -> LiveSection:
    unmatched = section.get("unmatched")
    retries, backoff = section.get("retries"), section.get("backoff_s")
    ignored = section.get("ignore_arguments")
    return LiveSection(
        unmatched=unmatched if unmatched in ("stub", "divergence") else "placeholder",
        ignore_arguments=ToolFields(
            {str(tool): _texts(names) for tool, names in ignored.items()}
            if isinstance(ignored, Mapping)
            else {}
        ),
        retries=retries
        if isinstance(retries, int) and not isinstance(retries, bool)
        else DEFAULT_RETRIES,
        backoff_s=float(backoff) if _is_number(backoff) else DEFAULT_BACKOFF_S,
    )


def _gate(section: Mapping[str, Any]) -> GateSection:
    default = GateSection()
    repeat = section.get("repeat")

    def number(key: str, fallback: float) -> float:
        value = section.get(key)
        return float(value) if _is_number(value) else fallback

    return GateSection(
        repeat="auto" if repeat == "auto" else _integer(repeat),
        alpha=number("alpha", default.alpha),
        min_detectable=number("min_detectable", default.min_detectable),
        min_base_rate=number("min_base_rate", default.min_base_rate),
        correction="holm" if section.get("correction") == "holm" else "none",
        block_on_suite=section.get("block_on_suite") is True,
    )


def _impact(section: Mapping[str, Any]) -> ImpactSection:
    rules = section.get("rules")
    entries = rules if isinstance(rules, list) else []
    return ImpactSection(
        rules=tuple(_rule(entry) for entry in entries if isinstance(entry, Mapping)),
        unmapped="none" if section.get("unmapped") == "none" else "all",
    )


def _rule(entry: Mapping[str, Any]) -> ImpactRule:
    return ImpactRule(
        paths=_texts(entry.get("paths")),
        tools=_texts(entry.get("tools")),
        tags=_texts(entry.get("tags")),
        cases=_texts(entry.get("cases")),
        all=bool(entry.get("all", False)),
    )


def _section(doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = doc.get(key)
    return value if isinstance(value, Mapping) else {}


def _table(value: object) -> Table:
    """Only string entries count: a name maps to code only as `module:callable` text."""
    if not isinstance(value, Mapping):
        return Table()
    return Table({str(k): v for k, v in value.items() if isinstance(v, str)})


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _texts(value: object) -> tuple[str, ...]:
    return tuple(str(item) for item in value) if isinstance(value, list | tuple) else ()


def _integer(value: object) -> int | None:
    """A schema integer (which JSON Schema lets be written `90.0`)."""
    return int(value) if _is_number(value) else None


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool)
