"""`corpus add` of a long native incident, streamed (author.streamed), against the
whole-document path: the same bytes on many generated incidents, the same refusals, and
nothing written when a refusal comes late in the file.

The incidents are generated here and what they hold is counted from their JSON by this file,
never by the importer.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from corpus_tool.author import streamed
from corpus_tool.io import files, json_stream
from tests.conftest import Cli

WHOLE, STREAM = 1 << 62, 0  # streamed.STREAM_FROM: never, always

_TEXTS = [
    "Where is my order?",
    "write to jane.doe@example.com or call +1 415 555 0134",
    "我的邮箱是 li.wei@example.cn，电话 +86 138 0013 8000。",
    "a: colon, then # a hash",
    "- looks like a list",
    "line one\nline two",
    "  padded  ",
    "'quoted' and \"double\"",
    "yes",
    "",
    "x" * 150 + " " + "y" * 30,
    "tab\there",
    '{"nested": "json with bob@example.org", "n": [1, 2]}',
    "https://shop.example/api?token=abcdef123456&page=2",
]


def _incident(rng: random.Random, n: int, trace_id: str = "t-stream") -> dict[str, Any]:
    """A native incident of about `n` events: model calls asking for tools (call ids reused
    by some models), tool results and errors, retries, side effects, unknown keys."""
    events: list[dict[str, Any]] = []
    restart = rng.random() < 0.5  # call ids restart every turn (`call_0`)
    wire = rng.random() < 0.5  # assistant messages as a gateway logs them off the wire
    history: list[dict[str, Any]] = [{"role": "user", "content": rng.choice(_TEXTS)}]

    def add(event: dict[str, Any]) -> None:
        minutes, seconds = divmod(len(events), 60)
        stamp = f"2025-06-01T{minutes // 60:02d}:{minutes % 60:02d}:{seconds:02d}Z"
        events.append({"seq": len(events) + 1, **event, "timestamp": stamp})

    turn = 0
    while len(events) < n - 2:
        turn += 1
        call_id = "call_0" if restart else f"call_{turn}"
        tool = rng.choice(["search", "refund", "lookup"])
        args: dict[str, Any] = {"q": rng.choice(_TEXTS), "page": rng.randint(1, 3)}
        if rng.random() < 0.2:
            args["phone"] = 4155550134 + rng.randint(0, 9)
        request: dict[str, Any] = {
            "type": "llm_request",
            "model": rng.choice(["m-1", "m-2"]),
            "messages": [{"role": "system", "content": "You help."}, *history[-4:]],
            "tools": [{"type": "function", "function": {"name": tool}}],
            "response": {
                "content": None,
                "toolCalls": [
                    {"id": call_id, "type": "function", "name": tool, "arguments": json.dumps(args)}
                ],
            },
        }
        if rng.random() < 0.3:
            request["presencePenalty"] = 0.5
        if rng.random() < 0.3:
            request["temperature"] = rng.choice([0, 0.0, 1.5])
        add(request)
        asked: dict[str, Any] = {"id": call_id, "name": tool, "arguments": json.dumps(args)}
        said: dict[str, Any] = {"role": "assistant", "content": None}
        if wire:
            function = {"name": tool, "arguments": json.dumps(args)}
            asked = {"id": call_id, "type": "function", "function": function}
            said.update(refusal=None, annotations=[])
        history.append({**said, "tool_calls": [asked]})
        call: dict[str, Any] = {"type": "tool_call", "tool": tool, "callId": call_id, "input": args}
        if rng.random() < 0.15:
            add(
                {
                    **call,
                    "error": {
                        "type": "TimeoutError",
                        "message": "late",
                        "code": 504,
                        "retryable": True,
                    },
                }
            )
            add({"type": "retry", "of": len(events), "attempt": 2})
        result = {"ok": True, "note": rng.choice(_TEXTS), "items": [rng.randint(0, 10**10)]}
        add({**call, "result": result, "durationMs": rng.randint(1, 900)})
        history.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(result)})
        if rng.random() < 0.1:
            add(
                {
                    "type": "side_effect",
                    "kind": f"{tool}_done",
                    "target": "O-1",
                    "data": {"email": "c@shop.example.org"},
                }
            )
        if rng.random() < 0.1:
            add(
                {
                    "type": "state_change",
                    "key": "stage",
                    "value": rng.choice(_TEXTS),
                    "node": "planner",
                }
            )
        if rng.random() < 0.2:
            history.append({"role": "user", "content": rng.choice(_TEXTS)})
    add(
        {
            "type": "llm_request",
            "model": "m-1",
            "messages": history[-3:],
            "response": {"content": rng.choice(_TEXTS[:3]), "finishReason": "stop"},
        }
    )
    head: dict[str, Any] = {"schemaVersion": "1.0", "traceId": trace_id}
    tail: dict[str, Any] = {
        "startedAt": "2025-06-01T00:00:00Z",
        "agent": {"name": "support", "version": "2.0", "team": "desk"},
        "input": {"userMessage": history[0]["content"], "context": {"tier": "gold"}},
        "region": "eu",
    }
    if rng.random() < 0.3:  # no input: the first model call's user message is the case's
        del tail["input"]
    final = {
        "seq": len(events) + 1,
        "type": "final",
        "status": rng.choice(["ok", "failed", "escalated"]),
        "output": rng.choice(_TEXTS),
        "node": "end",
    }
    if rng.random() < 0.5:  # the keys before or after the events: a streamed read meets both
        return {**head, **tail, "events": [*events, final]}
    return {**head, "events": [*events, final], **tail}


def _add(cli: Cli, corpus: Path, incident: Path, *args: str) -> tuple[int, str, Path | None]:
    code, out, err = cli("-C", corpus, "add", incident, *args)
    case = None
    if code == 0:
        case = corpus / "cases" / out.split("added case ", 1)[1].split(":", 1)[0]
    return code, err, case


def _both(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, incident: Path, *args: str
) -> dict[int, tuple[int, str, Path | None]]:
    """The incident added by each path, each into a corpus of its own."""
    done = {}
    for mode in (WHOLE, STREAM):
        corpus = tmp_path / f"corpus-{mode}"
        if not corpus.exists():
            assert cli("init", corpus).code == 0
        monkeypatch.setattr(streamed, "STREAM_FROM", mode)
        done[mode] = _add(cli, corpus, incident, *args)
    return done


def _streams(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """What each call of the streamed path returned (None: it left the file to the whole)."""
    took: list[object] = []
    real = streamed.add_streamed

    def add_streamed(*args: Any) -> Any:
        took.append(real(*args))
        return took[-1]

    monkeypatch.setattr(streamed, "add_streamed", add_streamed)
    return took


def _events_written(trace: Path) -> int:
    """`- seq:` lines at the top of the events list, counted in the text."""
    return trace.read_text(encoding="utf-8").count("\n- seq: ")


@pytest.mark.parametrize("seed", range(12))
def test_streamed_add_writes_the_bytes_the_whole_document_path_writes(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, seed: int
) -> None:
    rng = random.Random(seed)
    doc = _incident(rng, rng.choice([3, 40, 250, 1300]), f"t-{seed}")
    incident = tmp_path / "incident.json"
    incident.write_text(json.dumps(doc, ensure_ascii=rng.random() < 0.5), encoding="utf-8")
    monkeypatch.setattr(streamed, "BATCH", rng.choice([1, 7, 1000]))
    monkeypatch.setattr(json_stream, "CHUNK", rng.choice([97, 333, 1 << 20]))  # (tiny: below)
    before_calls = [e["seq"] - 1 for e in doc["events"][1:] if e["type"] == "llm_request"]
    end = rng.choice(before_calls) if before_calls else 1  # every call asked is answered
    args = rng.choice([(), ("--id", f"given-{seed}"), ("--start", "1", "--end", str(end))])
    took = _streams(monkeypatch)
    done = _both(cli, monkeypatch, tmp_path, incident, *args)
    assert len(took) == 1 and took[0] is not None  # the streamed path wrote it
    (code_w, err_w, whole), (code_s, err_s, stream) = done[WHOLE], done[STREAM]
    assert (code_s, err_s) == (code_w, err_w)
    assert code_w == 0, err_w
    assert whole is not None and stream is not None
    for name in ("trace.yaml", "expected.yaml"):
        assert (stream / name).read_bytes() == (whole / name).read_bytes(), name
    expected = sum(1 for e in doc["events"] if e["type"] != "final")
    if args[:1] == ("--start",):
        expected = sum(1 for e in doc["events"] if e["type"] != "final" and e["seq"] <= end)
    assert _events_written(stream / "trace.yaml") == expected
    assert not [p.name for p in stream.parent.iterdir() if p.name not in (".gitkeep", stream.name)]


def _late(doc: dict[str, Any], bad: Any) -> dict[str, Any]:
    """The incident with `bad` as its last event but the final one."""
    events = doc["events"]
    return {**doc, "events": [*events[:-1], bad, events[-1]]}


HANDED_ON = ("cut-short", "syntax-and-event")  # refused by the whole path's read


@pytest.mark.parametrize(
    "spoil",
    [
        pytest.param(
            lambda d: json.dumps(_late(d, {"seq": 9999, "type": "telepathy"})), id="unknown-type"
        ),
        pytest.param(lambda d: json.dumps(_late(d, {"seq": "x", "type": "retry"})), id="bad-seq"),
        pytest.param(
            lambda d: json.dumps(
                _late(d, {"seq": 9999, "type": "tool_call", "tool": "search", "input": {}})
            ),
            id="incomplete",
        ),
        pytest.param(
            lambda d: json.dumps(_late(d, {"seq": 9999, "type": "state_change", "key": 5})),
            id="schema",
        ),
        pytest.param(lambda d: json.dumps(_late(d, [1, 2])), id="not-an-object"),
        pytest.param(lambda d: json.dumps(d)[:-40], id="cut-short"),
        pytest.param(
            lambda d: json.dumps(d).replace('"events": [', '"events": [1, ', 1)[:-1] + "}}",
            id="syntax-and-event",
        ),
        pytest.param(lambda d: json.dumps({**d, "mcpServers": 3}), id="mcp-servers"),
    ],
)
def test_a_refusal_late_in_a_streamed_file_is_the_whole_paths_and_writes_nothing(
    cli: Cli,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    spoil: Any,
    request: pytest.FixtureRequest,
) -> None:
    incident = tmp_path / "bad.json"
    incident.write_text(spoil(_incident(random.Random(3), 400)), encoding="utf-8")
    monkeypatch.setattr(json_stream, "CHUNK", 4096)
    took = _streams(monkeypatch)
    done = _both(cli, monkeypatch, tmp_path, incident)
    (code_w, err_w, _), (code_s, err_s, _) = done[WHOLE], done[STREAM]
    assert code_w == code_s == 2
    assert err_s == err_w
    # JSON the streamed read cannot read is handed to the whole path (None); the rest the
    # streamed path refuses itself (it raised: nothing returned)
    assert took == ([None] if request.node.callspec.id in HANDED_ON else []), took
    assert len(err_s.strip().splitlines()) == 1 and str(incident) in err_s
    cases = tmp_path / f"corpus-{STREAM}" / "cases"
    assert sorted(p.name for p in cases.iterdir()) == [".gitkeep"]


def test_streamed_force_over_a_case_keeps_its_reviewed_expectations(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    incident = tmp_path / "incident.json"
    incident.write_text(json.dumps(_incident(random.Random(5), 60)), encoding="utf-8")
    first = _both(cli, monkeypatch, tmp_path, incident)
    for mode in (WHOLE, STREAM):
        case = first[mode][2]
        assert case is not None
        (case / "expected.yaml").write_text("# reviewed\n", encoding="utf-8")
        (case / "notes.md").write_text("kept\n", encoding="utf-8")
    again = _both(cli, monkeypatch, tmp_path, incident, "--force")
    (_, _, whole), (code, err, stream) = again[WHOLE], again[STREAM]
    assert code == 0, err
    assert whole is not None and stream is not None
    for name in ("trace.yaml", "expected.yaml", "notes.md"):
        assert (stream / name).read_bytes() == (whole / name).read_bytes()
    assert (stream / "expected.yaml").read_text(encoding="utf-8") == "# reviewed\n"
    refused = _both(cli, monkeypatch, tmp_path, incident)  # no --force: the case exists
    assert refused[STREAM][0] == refused[WHOLE][0] == 2
    assert refused[STREAM][1].replace(f"corpus-{STREAM}", "corpus-X") == refused[WHOLE][1].replace(
        f"corpus-{WHOLE}", "corpus-X"
    )


@pytest.mark.parametrize("name", ["trace.yaml", ".events.part"])
def test_streamed_force_over_a_directory_in_the_case_is_the_whole_paths_refusal(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str
) -> None:
    """A directory where the streamed add writes a file (the trace, or its part file) is the
    one-line refusal the whole path gives, exit 2 (it was an internal error)."""
    incident = tmp_path / "incident.json"
    incident.write_text(json.dumps(_incident(random.Random(6), 40)), encoding="utf-8")
    first = _both(cli, monkeypatch, tmp_path, incident)
    for mode in (WHOLE, STREAM):
        case = first[mode][2]
        assert case is not None
        (case / name).unlink(missing_ok=True)
        (case / name).mkdir()
    took = _streams(monkeypatch)
    again = _both(cli, monkeypatch, tmp_path, incident, "--force")
    (code_w, err_w, _), (code_s, err_s, _) = again[WHOLE], again[STREAM]
    assert code_s == 2 and "internal error" not in err_s, err_s
    assert "is a directory in the case; move it out, then rerun" in err_s
    assert len(err_s.strip().splitlines()) == 1
    if name == "trace.yaml":  # the whole path writes no part file: only here do both refuse
        assert code_w == 2 and err_w.rsplit(":", 1)[1] == err_s.rsplit(":", 1)[1], err_w
    assert took[-1:] != [None]  # the streamed path itself refused it


@pytest.mark.parametrize(
    "shape",
    [
        pytest.param(lambda d: json.dumps(d)[:-1] + ', "events": []}', id="events-twice"),
        pytest.param(lambda d: json.dumps({"events": d["events"], **d}), id="trace-id-after"),
        pytest.param(
            lambda d: json.dumps({k: v for k, v in d.items() if k != "traceId"}), id="no-trace-id"
        ),
    ],
)
def test_a_file_the_streamed_read_does_not_take_on_is_added_whole(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, shape: Any
) -> None:
    incident = tmp_path / "incident.json"
    incident.write_text(shape(_incident(random.Random(8), 50)), encoding="utf-8")
    took = _streams(monkeypatch)
    done = _both(cli, monkeypatch, tmp_path, incident)
    assert took == [None]  # left to the whole-document path
    (code_w, err_w, whole), (code_s, err_s, stream) = done[WHOLE], done[STREAM]
    assert (code_s, err_s) == (code_w, err_w) and code_w == 0
    assert whole is not None and stream is not None
    for name in ("trace.yaml", "expected.yaml"):
        assert (stream / name).read_bytes() == (whole / name).read_bytes(), name


@pytest.mark.parametrize("chunk", [1, 2, 3, 7, 64])
def test_json_stream_reads_what_json_loads_reads_across_chunk_edges(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, chunk: int
) -> None:
    monkeypatch.setattr(json_stream, "CHUNK", chunk)
    doc = {
        "a": 12345678901234567890,
        "b": [1.5e300, -0.0, True, None, "\ud800 cut", "é\u2028"],
        "events": [123456, "x", {"k": [1, {"z": "\\"}]}, [], {}, 7e-5, "💡"],
        "c": {"d": "tail"},
        "e": 987654321,
    }
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc, indent=None if chunk % 2 else 2), encoding="utf-8")
    with json_stream.StreamedObject(path, "events") as stream:
        assert stream.before == ("a", "b")
        items = list(stream.items())
    assert items == json.loads(path.read_bytes())["events"]
    rest = {k: v for k, v in files.parse_json(path.read_bytes(), path).items() if k != "events"}
    assert stream.fields == rest
    assert stream.fields["b"][4] == "\ufffd cut"  # a lone surrogate mended, as parse_json does
    assert stream.sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("chunk", [1, 3, 64, 1 << 20])
def test_json_stream_items_mend_lone_surrogates_and_refuse_depth_where_each_item_is(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, chunk: int
) -> None:
    """Each item's own text decides: a lone surrogate escape at an item's very end is mended
    (as parse_json mends it), an item nested past the limit leaves the file to the whole parse,
    whatever comes before it in the buffer."""
    monkeypatch.setattr(json_stream, "CHUNK", chunk)
    path = tmp_path / "doc.json"
    path.write_text(
        '{"events": [{"a": [[[[1]]]]}, {"b": "x \\ud800"}, "\\udc00", "plain"], "z": 1}',
        encoding="utf-8",
    )
    with json_stream.StreamedObject(path, "events") as stream:
        items = list(stream.items())
    assert items == [{"a": [[[[1]]]]}, {"b": "x \ufffd"}, "\ufffd", "plain"]
    deep = "[" * (files.MAX_DEPTH + 1) + "]" * (files.MAX_DEPTH + 1)
    path.write_text('{"events": [' + "[[[]]], " * 50 + deep + "]}", encoding="utf-8")
    with pytest.raises(json_stream.NotStreamed), json_stream.StreamedObject(path, "events") as s:
        list(s.items())


ROOT = Path(__file__).resolve().parents[2]


def _native_files() -> list[Path]:
    """Every native incident the repository holds (a JSON object with an `events` list and a
    trace id or schema version: native's shape, read here without the importer)."""
    found = []
    for path in sorted([*ROOT.glob("examples/**/*.json"), *ROOT.glob("tests/**/*.json")]):
        try:
            doc = json.loads(path.read_bytes())
        except ValueError:
            continue
        if isinstance(doc, dict) and isinstance(doc.get("events"), list):
            if "traceId" in doc or "schemaVersion" in doc:
                found.append(path)
    return found


@pytest.mark.parametrize("incident", _native_files(), ids=lambda p: p.name)
def test_every_native_incident_of_the_repository_streams_to_the_same_case(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, incident: Path
) -> None:
    took = _streams(monkeypatch)
    done = _both(cli, monkeypatch, tmp_path, incident)
    (code_w, err_w, whole), (code_s, err_s, stream) = done[WHOLE], done[STREAM]
    assert (code_s, err_s) == (code_w, err_w)
    if code_w == 0:
        assert took and took[0] is not None
        assert whole is not None and stream is not None
        for name in ("trace.yaml", "expected.yaml"):
            assert (stream / name).read_bytes() == (whole / name).read_bytes(), name


def test_the_repository_holds_native_incidents() -> None:
    assert len(_native_files()) >= 8
