"""`corpus replay` and `corpus check` with 1 and 2 replay workers on a few hundred cases.

    python bench/replay_bench.py [--copies 50] [--repeat 3] [--agent-ms 0] [--workers 1,2]

Builds a git repository in a temporary directory holding the example agent and `--copies`
copies of each of the six example cases (300 by default: passing, failing and known_unknown
ones, ids suffixed `-0001` ...), then times each command as a user runs it (a fresh
`python -m corpus_tool` process each time) with each worker count, and checks that the text
reports of all worker counts are byte-identical. `--agent-ms N` wraps the example agent in one
that first computes for N ms per case, a stand-in for an agent doing real work (parsing,
templating, tokenizing) between its model and tool calls.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
WRAPPER = """
import time

from examples.refund_agent.agent import run as example


def run(case_input, rt):
    until = time.process_time() + {seconds}
    while time.process_time() < until:  # CPU work, as an agent's own code does between calls
        pass
    return example(case_input, rt)
"""


def build(repo: Path, copies: int, agent_ms: float) -> Path:
    """A git repository with the example agent and copies of the example cases."""
    shutil.copytree(EXAMPLES / "refund_agent", repo / "examples" / "refund_agent")
    corpus = repo / "evals"
    (corpus / "waivers").mkdir(parents=True)
    config = (EXAMPLES / "corpus" / "corpus.yaml").read_text(encoding="utf-8")
    if agent_ms:
        (repo / "busy_agent.py").write_text(WRAPPER.format(seconds=agent_ms / 1000), "utf-8")
        config = config.replace("examples.refund_agent.agent:run", "busy_agent:run")
    (corpus / "corpus.yaml").write_text(config, encoding="utf-8")
    for case in sorted(p for p in (EXAMPLES / "corpus" / "cases").iterdir() if p.is_dir()):
        for n in range(1, copies + 1):
            target = corpus / "cases" / f"{case.name}-{n:04d}"
            target.mkdir(parents=True)
            for name in ("trace.yaml", "expected.yaml"):
                text = (case / name).read_text(encoding="utf-8")
                text = text.replace(f"id: {case.name}\n", f"id: {target.name}\n", 1)
                (target / name).write_text(text, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return corpus


def timed(corpus: Path, command: str, workers: int) -> tuple[float, str, int]:
    """Seconds, text report and exit status of one `corpus COMMAND -n WORKERS`."""
    argv = [sys.executable, "-m", "corpus_tool", "-C", str(corpus), command, "-n", str(workers)]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=os.environ.copy())
    return time.perf_counter() - started, done.stdout, done.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=50, help="copies of each example case")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--agent-ms", type=float, default=0.0, help="CPU work per case, in ms")
    parser.add_argument("--workers", default="1,2", help="worker counts to compare")
    args = parser.parse_args()
    counts = [int(n) for n in args.workers.split(",")]
    with tempfile.TemporaryDirectory(prefix="replay-bench-") as where:
        corpus = build(Path(where) / "repo", args.copies, args.agent_ms)
        cases = len(list((corpus / "cases").iterdir()))
        print(f"{cases} cases, agent work {args.agent_ms:g} ms/case, {os.cpu_count()} cores")
        print(f"{'command':<8} {'workers':>7} {'median s':>9} {'min s':>7} {'cases/s':>8}")
        for command in ("replay", "check"):
            reports = {}
            for workers in counts:
                runs = [timed(corpus, command, workers) for _ in range(args.repeat)]
                seconds = [s for s, _, _ in runs]
                reports[workers] = {(out, code) for _, out, code in runs}
                median = statistics.median(seconds)
                print(
                    f"{command:<8} {workers:>7} {median:>9.2f} {min(seconds):>7.2f} "
                    f"{cases / median:>8.0f}"
                )
            same = len({r for rs in reports.values() for r in rs}) == 1
            print(f"{command:<8} reports byte-identical across worker counts: {same}")
            if not same:
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
