"""`python -m bench`: every performance figure of corpus-tool, each beside its baseline.

    python -m bench [--cases 1000] [--big 10000] [--huge 100000] [--check-cases 1000]
                    [--incidents 200] [--repeat 3] [--only validate,check,...]
                    [--json bench-results.json] [--events 300000] [--work DIR] [--tiny]

Generates the corpora deterministically (bench/corpus.py), runs each figure's baseline and
candidate in the same loop (median of --repeat runs, every command a fresh process as a user
runs it), prints a Markdown table and writes the figures as JSON. The baselines need the
`bench` extra: `pip install -e '.[bench]'` (check-jsonschema, detect-secrets). `--tiny` runs
everything on a few cases: a smoke test, not a measurement.
"""

from __future__ import annotations

import argparse
import compileall
import dataclasses
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

from bench.figures import FIGURES, Bench, Row
from bench.measure import ROOT

TOOLS = (
    "corpus-tool",
    "check-jsonschema",
    "detect-secrets",
    "PyYAML",
    "jsonschema",
    "jsonschema-rs",
    "pytest-xdist",
)


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.tiny:
        args.cases, args.big, args.check_cases, args.incidents = 12, 30, 12, 6
        args.repeat, args.redact_mb, args.events, args.huge = 1, 0.05, 300, 40
    work = args.work or Path(tempfile.mkdtemp(prefix="corpus-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    bench = Bench(
        work,
        args.repeat,
        args.cases,
        args.big,
        args.check_cases,
        args.incidents,
        args.redact_mb,
        args.events,
        args.huge,
    )
    # an installed corpus-tool has its bytecode (pip compiles it); a checkout run with
    # PYTHONDONTWRITEBYTECODE set has none, and every process timed would compile it again
    compileall.compile_dir(ROOT / "corpus_tool", quiet=1)
    chosen = [f for f in args.only.split(",") if f] if args.only else list(FIGURES)
    started = time.time()
    rows: list[Row] = []
    failed = []
    try:
        for name in chosen:
            print(f"bench: {name} ...", file=sys.stderr, flush=True)
            try:
                measured = FIGURES[name](bench)
            except (Exception, SystemExit) as err:  # one broken figure must not lose the others
                print(f"bench: {name} failed: {err}", file=sys.stderr, flush=True)
                failed.append(name)
                continue
            for row in measured:
                print(json.dumps(dataclasses.asdict(row)), file=sys.stderr, flush=True)
            rows.extend(measured)
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)
    machine = _machine(time.time() - started)
    print(_table(rows, machine))
    document = {"machine": machine, "figures": [dataclasses.asdict(r) for r in rows]}
    args.json.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    return 1 if failed else 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=1000, help="cases of the validate corpus")
    parser.add_argument("--big", type=int, default=10_000, help="cases of the large corpus")
    parser.add_argument("--check-cases", type=int, default=1000, help="cases check replays")
    parser.add_argument("--incidents", type=int, default=200, help="incidents add ingests")
    parser.add_argument("--events", type=int, default=300_000, help="events of add's big incident")
    parser.add_argument("--huge", type=int, default=100_000, help="cases of the scale corpus")
    parser.add_argument("--redact-mb", type=float, default=3.0, help="MB the scanners compare on")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measure (median)")
    parser.add_argument("--only", help=f"comma-separated figures: {','.join(FIGURES)}")
    parser.add_argument("--json", type=Path, default=Path("bench-results.json"))
    parser.add_argument("--work", type=Path, help="generate here and keep it (default: a temp dir)")
    parser.add_argument("--tiny", action="store_true", help="a few cases each: a smoke test")
    return parser


def _machine(seconds: float) -> dict[str, object]:
    versions = {}
    for name in TOOLS:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "load_average": [round(x, 1) for x in os.getloadavg()],
        "versions": versions,
        "seconds": round(seconds),
    }


def _table(rows: list[Row], machine: dict[str, object]) -> str:
    lines = [
        "| figure | measure | value | before | baseline | ratio | target | met |",
        "| --- | --- | ---: | --- | --- | ---: | --- | --- |",
    ]
    for row in rows:
        base = f"{row.baseline} {row.baseline_value:.3g}" if row.baseline_value else row.baseline
        ratio = f"{row.ratio:.3g}x" if row.ratio is not None else ""
        met = "" if row.met is None else ("yes" if row.met else "**no**")
        value = "too few cases to tell" if row.value is None else f"{row.value:.3g} {row.unit}"
        lines.append(
            f"| {row.figure} | {row.measure} | {value} | {row.detail.get('before', '')} | {base} "
            f"| {ratio} | {row.target} | {met} |"
        )
    versions = ", ".join(f"{k} {v}" for k, v in machine["versions"].items())  # type: ignore[attr-defined]
    lines.append(
        f"\n{machine['platform']}, Python {machine['python']}, {machine['cpus']} cores, "
        f"load average {machine['load_average']} at the end; {versions}"
    )
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
