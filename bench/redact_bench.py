"""Scan throughput of corpus-tool's redaction scanner against detect-secrets, on the same files.

    python bench/redact_bench.py [--traces 2000] [--kb 25] [--keep DIR]

Generates a corpus of trace.yaml files (synthetic agent traces: chat messages in English and
Chinese, tool calls with JSON bodies and URLs, a few planted values of every kind, decoys),
then, in one run, times:

- corpus-tool, parse + scan: read each file, parse YAML (C loader), scan every value;
- corpus-tool, scan only: the same documents already parsed;
- detect-secrets (all default plugins and filters, one process) scanning the same files.

and counts, for each, how many planted values it found (detect-secrets: a finding on a line the
value occupies) and how many other findings it made (false positives: every other value is a
decoy or plain text). Figures go to stdout as a Markdown table; MB are 10^6 bytes on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NamedTuple

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus_tool.io.files import dump_yaml, read_yaml
from corpus_tool.redact import scan
from corpus_tool.testing.planted import GENERATORS, decoys

SENTENCES = [
    "The customer asked why the refund for order {order} has not arrived yet.",
    "查一下 {sku} 的库存，并告诉我东区仓库什么时候补货。",
    "I checked the warehouse east: stock is {n} units, next delivery on 2025-06-0{d}.",
    "Calling search_inventory with sku={sku} returned an empty list; retrying once.",
    "退款已提交，退款单号为 R{n}，预计 3-5 个工作日到账。",
    "The tool returned HTTP 503 from inventory.internal after {n} ms; falling back to cache.",
    "Summarise the conversation so far and decide whether a human needs to take over.",
    "用户说订单 {order} 的地址写错了，需要修改为新的收货地址。",
]


def _sentence(rng: random.Random) -> str:
    return rng.choice(SENTENCES).format(
        order=f"ORD-2025-{rng.randint(0, 999999):06d}", sku=f"A{rng.randint(100, 999)}",
        n=rng.randint(0, 99999), d=rng.randint(1, 9),
    )  # fmt: skip


def _event(rng: random.Random, seq: int, planted: list[str]) -> dict[str, Any]:
    text = " ".join(_sentence(rng) for _ in range(rng.randint(2, 6)))
    if planted and rng.random() < 0.3:
        text += " " + planted.pop()
    if seq % 2:
        messages = [{"role": "system", "content": "你是库存助手。" + _sentence(rng)},
                    {"role": "user", "content": text}]  # fmt: skip
        reply = {"content": _sentence(rng)}
        return {"seq": seq, "type": "model_call", "model": "deepseek-chat",
                "request": {"messages": messages}, "response": reply}  # fmt: skip
    items = [{"sku": f"A{i}", "stock": rng.randint(0, 50), "note": _sentence(rng)}
             for i in range(rng.randint(1, 4))]  # fmt: skip
    body = {"items": items, "summary": text, "decoys": decoys(rng)[:6]}
    return {"seq": seq, "type": "tool_call", "tool": "http_get", "call_id": f"c{seq}",
            "arguments": {"url": f"https://inventory.internal/v2/stock?sku=A{seq}&page={seq}"},
            "result": {"status": 200, "body": json.dumps(body, ensure_ascii=False)},
            "duration_ms": rng.randint(5, 2000)}  # fmt: skip


Planted = list[tuple[str, str]]
"""(kind, value) pairs planted in one file."""


class Run(NamedTuple):
    """One scanner's figures: time, and planted values found versus other findings."""

    name: str
    seconds: float
    found: int
    other: int


def make_trace(rng: random.Random, index: int, kb: int) -> tuple[dict[str, Any], Planted]:
    """One synthetic trace.yaml document of about `kb` kilobytes, and the values it plants."""
    kinds = rng.sample(sorted(GENERATORS), 4)
    planted = [(kind, GENERATORS[kind](rng)) for kind in kinds]
    waiting = [value for _, value in planted]
    events, size, seq = [], 0, 0
    while size < kb * 1000:
        seq += 1
        events.append(_event(rng, seq, waiting))
        size += len(json.dumps(events[-1], ensure_ascii=False).encode())
    doc = {"schema_version": 1, "id": f"bench-{index:05d}",
           "input": {"user_message": _sentence(rng)}, "events": events,
           "terminal": {"status": "failed", "output": None}}  # fmt: skip
    return doc, [(kind, value) for kind, value in planted if value not in waiting]


def generate(root: Path, traces: int, kb: int) -> dict[Path, Planted]:
    """Write the corpus; return each file with the values planted in it."""
    rng = random.Random(2025)
    corpus: dict[Path, Planted] = {}
    for i in range(traces):
        path = root / "cases" / f"bench-{i:05d}" / "trace.yaml"
        path.parent.mkdir(parents=True)
        doc, planted = make_trace(rng, i, kb)
        path.write_text(dump_yaml(doc), encoding="utf-8")
        corpus[path] = planted
    return corpus


def time_ours(corpus: dict[Path, Planted]) -> tuple[Run, Run]:
    """Parse + scan, and scan alone, of every file."""
    start = time.perf_counter()
    docs = [read_yaml(p) for p in corpus]
    parsed = time.perf_counter()
    hits = [[h.value for h in scan(doc)] for doc in docs]
    done = time.perf_counter()
    found = other = 0
    for values, planted in zip(hits, corpus.values(), strict=True):
        matched = [v for v in values if any(v in p or p in v for _, p in planted)]
        found += sum(any(v in p or p in v for v in values) for _, p in planted)
        other += len(values) - len(matched)
    return (
        Run("corpus-tool (parse YAML + scan)", done - start, found, other),
        Run("corpus-tool (scan parsed values)", done - parsed, found, other),
    )


def time_detect_secrets(corpus: dict[Path, Planted]) -> Run:
    """detect-secrets with its default plugins and filters, one process, the same files."""
    from detect_secrets.core.secrets_collection import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        collection = SecretsCollection()
        start = time.perf_counter()
        collection.scan_files(*map(str, corpus), num_processors=1)
        seconds = time.perf_counter() - start
    # detect-secrets keys its results by paths relative to the working directory.
    results = {os.path.abspath(name): found for name, found in collection.data.items()}
    found = other = 0
    for path, planted in corpus.items():
        flagged = {s.line_number for s in results.get(str(path), set())}
        spans = [_lines_of(path.read_text(encoding="utf-8"), value) for _, value in planted]
        found += sum(bool(flagged & span) for span in spans)
        other += len(flagged - set().union(*spans)) if spans else len(flagged)
    return Run("detect-secrets 1.5 (default plugins)", seconds, found, other)


def _lines_of(text: str, value: str) -> set[int]:
    """The lines of the YAML scalar holding a planted value, from its key's line to its end.

    detect-secrets reports a value in a YAML file at the line where its scalar starts, and a
    long scalar spans several folded lines, so the whole span counts.
    """
    token = max(value.split(), key=len)
    stack = [yaml.compose(text, Loader=yaml.CSafeLoader)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.MappingNode):
            for key, item in node.value:
                if isinstance(item, yaml.ScalarNode) and token in item.value:
                    return set(range(key.start_mark.line + 1, item.end_mark.line + 2))
                stack.append(item)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return set()


def main() -> int:
    """Generate, time both tools, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--kb", type=int, default=25, help="approximate size of one trace")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="redact-bench-"))
    try:
        corpus = generate(root, args.traces, args.kb)
        megabytes = sum(p.stat().st_size for p in corpus) / 1e6
        planted = sum(len(v) for v in corpus.values())
        runs = [*time_ours(corpus), time_detect_secrets(corpus)]
        print(f"{len(corpus)} files, {megabytes:.1f} MB of YAML, {planted} planted values\n")
        _table(megabytes, planted, runs)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _table(mb: float, planted: int, runs: list[Run]) -> None:
    print("| scanner | seconds | MB/s | planted found | other findings |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for run in runs:
        print(
            f"| {run.name} | {run.seconds:.1f} | {mb / run.seconds:.1f} | "
            f"{run.found}/{planted} | {run.other} |"
        )
    ratio = runs[2].seconds / runs[0].seconds
    print(f"\nparse + scan is {ratio:.1f}x the throughput of detect-secrets")


if __name__ == "__main__":
    raise SystemExit(main())
