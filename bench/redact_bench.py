"""Scan throughput of corpus-tool's redaction scanner against detect-secrets, on the same files.

    python bench/redact_bench.py [--traces 2000] [--kb 25] [--keep DIR]

Generates a corpus of trace.yaml files (synthetic agent traces: chat messages in English and
Chinese, tool calls with JSON bodies and URLs, a few planted values of every kind, decoys),
then, in one run, times:

- corpus-tool, parse + scan: read each file, parse YAML (C loader), scan every value;
- corpus-tool, scan only: the same documents already parsed;
- detect-secrets (all default plugins and filters, one process) scanning the same files.

Figures go to stdout as a small Markdown table; MB are 10^6 bytes of YAML on disk.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from corpus_tool.files import dump_yaml, read_yaml  # noqa: E402
from corpus_tool.redact import scan  # noqa: E402
from corpus_tool.testing.planted import GENERATORS, decoys  # noqa: E402

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
        return {"seq": seq, "type": "model_call", "model": "deepseek-chat",
                "request": {"messages": messages}, "response": {"content": _sentence(rng)}}  # fmt: skip
    body = {"items": [{"sku": f"A{i}", "stock": rng.randint(0, 50), "note": _sentence(rng)}
                      for i in range(rng.randint(1, 4))], "summary": text, "decoys": decoys(rng)[:6]}  # fmt: skip
    return {"seq": seq, "type": "tool_call", "tool": "http_get", "call_id": f"c{seq}",
            "arguments": {"url": f"https://inventory.internal/v2/stock?sku=A{seq}&page={seq}"},
            "result": {"status": 200, "body": json.dumps(body, ensure_ascii=False)},
            "duration_ms": rng.randint(5, 2000)}  # fmt: skip


def make_trace(rng: random.Random, index: int, kb: int) -> tuple[dict[str, Any], int]:
    """One synthetic trace.yaml document of about `kb` kilobytes, and how many values it plants."""
    planted = [make(rng) for make in rng.sample(list(GENERATORS.values()), 4)]
    events, size, seq = [], 0, 0
    while size < kb * 1000:
        seq += 1
        events.append(_event(rng, seq, planted))
        size += len(json.dumps(events[-1], ensure_ascii=False).encode())
    doc = {"schema_version": 1, "id": f"bench-{index:05d}", "input": {"user_message": _sentence(rng)},
           "events": events, "terminal": {"status": "failed", "output": None}}  # fmt: skip
    return doc, 4 - len(planted)


def generate(root: Path, traces: int, kb: int) -> tuple[list[Path], int]:
    """Write the corpus; return the files and the number of planted values."""
    rng = random.Random(2025)
    paths, planted = [], 0
    for i in range(traces):
        path = root / "cases" / f"bench-{i:05d}" / "trace.yaml"
        path.parent.mkdir(parents=True)
        doc, count = make_trace(rng, i, kb)
        path.write_text(dump_yaml(doc), encoding="utf-8")
        paths.append(path)
        planted += count
    return paths, planted


def time_ours(paths: list[Path]) -> tuple[float, float, int]:
    """Seconds for parse + scan, seconds for scan alone, findings."""
    start = time.perf_counter()
    docs = [read_yaml(p) for p in paths]
    parsed = time.perf_counter()
    found = sum(len(scan(doc)) for doc in docs)
    done = time.perf_counter()
    return done - start, done - parsed, found


def time_detect_secrets(paths: list[Path]) -> tuple[float, int]:
    """Seconds and findings for detect-secrets with its default plugins, one process."""
    from detect_secrets import SecretsCollection
    from detect_secrets.settings import default_settings

    with default_settings():
        collection = SecretsCollection()
        start = time.perf_counter()
        collection.scan_files(*map(str, paths), num_processors=1)
        seconds = time.perf_counter() - start
    return seconds, sum(len(found) for _, found in collection.data.items())


def main() -> int:
    """Generate, time both tools, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=2000)
    parser.add_argument("--kb", type=int, default=25, help="approximate size of one trace")
    parser.add_argument("--keep", type=Path, help="generate into this directory and keep it")
    args = parser.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="redact-bench-"))
    try:
        paths, planted = generate(root, args.traces, args.kb)
        megabytes = sum(p.stat().st_size for p in paths) / 1e6
        total, scan_only, ours = time_ours(paths)
        ds_seconds, ds_found = time_detect_secrets(paths)
        print(f"{len(paths)} files, {megabytes:.1f} MB of YAML, {planted} planted values\n")
        _table(megabytes, total, scan_only, ours, ds_seconds, ds_found)
    finally:
        if args.keep is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


def _table(mb: float, total: float, scan_only: float, ours: int,
           ds_seconds: float, ds_found: int) -> None:  # fmt: skip
    rows = [
        ("corpus-tool (parse YAML + scan)", total, ours),
        ("corpus-tool (scan parsed values)", scan_only, ours),
        ("detect-secrets (default plugins)", ds_seconds, ds_found),
    ]
    print("| scanner | seconds | MB/s | findings |\n| --- | ---: | ---: | ---: |")
    for name, seconds, found in rows:
        print(f"| {name} | {seconds:.1f} | {mb / seconds:.1f} | {found} |")
    print(f"\nparse + scan is {ds_seconds / total:.1f}x the throughput of detect-secrets")


if __name__ == "__main__":
    raise SystemExit(main())
