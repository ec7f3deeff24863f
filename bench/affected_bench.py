"""Cold and warm `corpus affected` on a generated corpus of 10,000 cases.

    python bench/affected_bench.py [--cases 10000] [--repeat 3] [--keep DIR]

Builds a git repository in a temporary directory: 12 tool modules under src/tools/ mapped to
their tools by corpus.yaml rules, and N cases with small traces (3 to 13 events; a model call
before each tool call, tools drawn from a skewed, realistic mix). Then times, as a user runs it
(a fresh `python -m corpus_tool` process each time):

- a change to one tool module (selects the cases calling its tools: every trace is consulted);
- a corpus.yaml edit (selects everything), plain and with --shard 1/4 (event counts needed);

each cold (cache deleted first) and warm (cache filled by the previous run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MODULES = {
    "refund": ["create_refund", "check_refund", "cancel_refund"],
    "orders": ["get_order", "list_orders", "update_order"],
    "inventory": ["search_inventory", "reserve_stock"],
    "shipping": ["track_parcel", "create_label"],
    "payments": ["charge_card", "void_charge"],
    "customers": ["get_customer", "update_address"],
    "notify": ["send_email", "notify_operator"],
    "search": ["search_kb"],
    "tickets": ["open_ticket", "close_ticket"],
    "pricing": ["quote_price"],
    "calendar": ["book_slot"],
    "fraud": ["score_risk"],
}
TOOLS = [tool for tools in MODULES.values() for tool in tools]
ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z",
}


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True)


def trace(case_id: str, rng: random.Random) -> str:
    """A small trace.yaml in the shape `corpus add` writes."""
    weights = [1.0 / (i + 1) for i in range(len(TOOLS))]  # a few tools dominate, as in life
    calls = rng.choices(TOOLS, weights, k=rng.randint(1, 6))
    lines = [
        "schema_version: 1",
        f"id: {case_id}",
        f"source: {{format: native, trace_id: t-{case_id}}}",
        "input: {user_message: please help, context: {}, conversation: []}",
        "events:",
    ]
    seq = 0
    for call in calls:
        seq += 2
        lines += [
            f"- seq: {seq - 1}",
            "  type: model_call",
            "  model: gpt-4.1-2025-04-14",
            f"  response: {{tool_calls: [{{id: c{seq}, name: {call}, arguments: {{n: {seq}}}}}]}}",
            f"- {{seq: {seq}, type: tool_call, call_id: c{seq}, tool: {call}, "
            f"arguments: {{n: {seq}}}, result: {{ok: true}}, duration_ms: {rng.randint(5, 900)}}}",
        ]
    lines += [f"- {{seq: {seq + 1}, type: model_call, model: gpt-4.1-2025-04-14}}"]
    lines += ["terminal: {status: succeeded, output: done}", ""]
    return "\n".join(lines)


def expected(case_id: str, rng: random.Random) -> str:
    tier = rng.choice(["fast", "fast", "fast", "full", "archive"])
    return (
        f"schema_version: 1\nid: {case_id}\ntitle: bench case\nstatus: active\n"
        f"tier: {tier}\nowner: bench\ntags: [{rng.choice(['refund', 'orders', 'stock'])}]\n"
    )


def build(repo: Path, cases: int) -> None:
    rng = random.Random(20260101)
    git(repo, "init", "-q", "-b", "main")
    rules = "\n".join(
        f'    - {{paths: ["src/tools/{m}.py"], tools: [{", ".join(t)}]}}'
        for m, t in MODULES.items()
    )
    (repo / "evals").mkdir()
    (repo / "evals/corpus.yaml").write_text(
        f"schema_version: 1\nname: bench\nimpact:\n  rules:\n{rules}\n  unmapped: all\n"
    )
    (repo / "src/tools").mkdir(parents=True)
    for module in MODULES:
        (repo / f"src/tools/{module}.py").write_text(f"# {module}\n")
    for i in range(cases):
        case_id = f"case-{i:05d}"
        folder = repo / "evals/cases" / case_id
        folder.mkdir(parents=True)
        (folder / "trace.yaml").write_text(trace(case_id, rng))
        (folder / "expected.yaml").write_text(expected(case_id, rng))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "bench corpus")


def run(repo: Path, *args: str) -> tuple[float, float, int]:
    """Wall and CPU seconds of one `corpus affected` process (git children included), and how
    many cases it selected. CPU time is the steadier figure on a shared machine."""
    before = _children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "corpus_tool", "affected", "--base", "main", *args],
        cwd=repo / "evals",
        env={**os.environ, **ENV, "PYTHONPATH": str(ROOT)},
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - started, _children_cpu() - before, len(done.stdout.split())


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(repo: Path, label: str, repeat: int, *args: str) -> dict[str, object]:
    cache = repo / ".git" / "corpus-tool"
    colds: list[tuple[float, float, int]] = []
    warms: list[tuple[float, float, int]] = []
    for _ in range(repeat):
        shutil.rmtree(cache, ignore_errors=True)
        colds.append(run(repo, *args))
        warms.append(run(repo, *args))

    def median(runs: list[tuple[float, float, int]], which: int) -> float:
        return round(statistics.median(r[which] for r in runs), 2)

    row = {
        "change": label,
        "args": " ".join(args),
        "selected": colds[0][2],
        "cold_s": median(colds, 0),
        "cold_cpu_s": median(colds, 1),
        "warm_s": median(warms, 0),
        "warm_cpu_s": median(warms, 1),
    }
    print(json.dumps(row), flush=True)
    return row


def change(repo: Path, branch: str, path: str, text: str) -> None:
    git(repo, "checkout", "-q", "main")
    git(repo, "checkout", "-q", "-b", branch)
    with (repo / path).open("a", encoding="utf-8") as handle:
        handle.write(text)
    git(repo, "commit", "-q", "-am", branch)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--keep", type=Path, help="build the repository here and keep it")
    args = parser.parse_args()
    os.environ.update(ENV)
    work = args.keep or Path(tempfile.mkdtemp(prefix="affected-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    build(work, args.cases)
    print(f"built {args.cases} cases in {time.perf_counter() - started:.1f} s at {work}")
    try:
        change(work, "tool-change", "src/tools/inventory.py", "# v2\n")
        measure(work, "one tool module (inventory.py)", args.repeat)
        measure(work, "one tool module (inventory.py)", args.repeat, "--shard", "1/4")
        change(work, "config-change", "evals/corpus.yaml", "# reviewed\n")
        measure(work, "corpus.yaml edit", args.repeat)
        measure(work, "corpus.yaml edit", args.repeat, "--shard", "1/4")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
