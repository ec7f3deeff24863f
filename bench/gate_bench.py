"""The live gate's own overhead: 100 cases x 10 attempts per side, the model's latency out.

A real `corpus gate --base HEAD --all --model live --repeat 10 --format json --markdown FILE`
process, as a user runs it, over a git repository of CASES cases (`coin_repo`): a temporary
worktree of the base revision, the replay workers of both sides, 10 live replays per case and
side by the replay engine, each attempt graded, the exact tests per case, Holm, the sign test,
the shift, and the reports. The live model (`replay.live_model`, the corpus's coin_factory.py)
answers at once from a seeded coin per case (no network), so the time is everything but a
model's latency. The baseline is the same gate at `--repeat 1` (one live replay per case and
side) in the same run. The same corpus, 10 cases, is what tests/gate/test_gate_false_blocks.py
gates 200 times.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import yaml

from bench.measure import ROOT, Sample, corpus_cli, run

CASES, K = 100, 10
EXAMPLE = ROOT / "examples" / "corpus" / "cases" / "refund-success"
RATES = (0.5, 0.7, 0.8, 0.9, 0.95, 1.0)


def pass_rates(cases: int) -> list[float]:
    """Seeded pass rates of `cases` cases."""
    rng = random.Random(24)
    return [rng.choice(RATES) for _ in range(cases)]


def gate_step(repo: Path, repeat: int, work: Path) -> Callable[[], Sample]:
    """One fresh gate process over `repo` at `--repeat repeat` (the model's book emptied
    first, so every sample asks the same questions)."""
    book = work / f"book-{repeat}.jsonl"
    env = {"COIN_BOOK": str(book), "COIN_HEAD": str(repo.resolve()), "COIN_SEED": "bench"}
    argv = ("--base", "HEAD", "--all", "--model", "live", "--repeat", str(repeat))
    report = ("--format", "json", "--markdown", str(work / f"gate-{repeat}.md"))

    def step() -> Sample:
        book.unlink(missing_ok=True)
        sample = run(corpus_cli("-C", str(repo), "gate", *argv, *report), work, env, ok=(0, 1))
        calls = len(book.read_text(encoding="utf-8").splitlines())
        if calls != 2 * repeat * len(list((repo / "cases").iterdir())):
            raise SystemExit(f"bench: the gate at --repeat {repeat} made {calls} model calls")
        return sample

    return step


COIN_AGENT = """
def run(case_input, rt):
    reply = rt.model([{"role": "user", "content": case_input["user_message"]}], model="coin-model")
    return {"status": "succeeded", "output": reply.content}
"""
COIN_FACTORY = """
# The live model of this corpus: a seeded, stochastic coin per case, instant (no network).
# Asked about a case (its id is the user message), it answers "approved" with the case's known
# pass rate (coin_rates.json), else "declined", drawn from random.Random(seed, side, case, n):
# n counts the times this side asked about this case in the run, so repeated attempts vary
# while the run is repeatable. COIN_SEED is the run's seed; the side is COIN_SIDE when set
# (`corpus check` of one side), else "head" when this file is the one under COIN_HEAD (the
# working tree) and "base" when it is not (the gate's base worktree). Each
# answer is appended to COIN_BOOK (a JSON line: side, case, n, passed), which is also where n
# goes on from across the rounds of --repeat auto (each replay imports this module afresh).
import json
import os
import random
import threading
from pathlib import Path

from corpus_tool import ModelResponse, Usage

HERE = Path(__file__).resolve().parent
RATES = json.loads((HERE / "coin_rates.json").read_text(encoding="utf-8"))


def coin():
    seed = os.environ.get("COIN_SEED", "0")
    side = os.environ.get("COIN_SIDE") or (
        "head" if HERE == Path(os.environ.get("COIN_HEAD", "/")).resolve() else "base"
    )
    book = Path(os.environ["COIN_BOOK"])
    asked = {}
    if book.is_file():
        for line in book.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            if row["side"] == side:
                asked[row["case"]] = max(asked.get(row["case"], 0), row["n"])
    lock = threading.Lock()

    def model(messages, **kwargs):
        case = messages[-1]["content"]
        with lock:
            n = asked[case] = asked.get(case, 0) + 1
            passed = random.Random(f"{seed}:{side}:{case}:{n}").random() < RATES[case]
            with book.open("a", encoding="utf-8") as out:
                row = {"side": side, "case": case, "n": n, "passed": passed}
                out.write(json.dumps(row) + "\\n")
        said = "approved" if passed else "declined"
        return ModelResponse(said, model="coin-model", usage=Usage(8, 1))

    return model
"""
COIN_CONFIG = """schema_version: 1
name: coin-gate
agent: {entrypoint: "coin_agent:run"}
replay: {mode: strict, live_model: "coin_factory:coin"}
"""
GIT_ENV = {
    "GIT_AUTHOR_NAME": "gate",
    "GIT_AUTHOR_EMAIL": "gate@example.com",
    "GIT_COMMITTER_NAME": "gate",
    "GIT_COMMITTER_EMAIL": "gate@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def _coin_trace(case: str) -> dict[str, Any]:
    """The example's refund-success recording made this case's: one model call, answered."""
    doc = yaml.safe_load((EXAMPLE / "trace.yaml").read_text(encoding="utf-8"))
    doc["recorded"]["models"] = ["coin-model"]
    return {
        **doc,
        "id": case,
        "input": {"user_message": case},
        "events": [
            {
                "seq": 1,
                "type": "model_call",
                "model": "coin-model",
                "request": {"messages": [{"role": "user", "content": case}]},
                "response": {"content": "approved"},
                "timestamp": "2025-06-01T10:00:00.000Z",
            }
        ],
        "terminal": {"status": "succeeded", "output": "approved", "seq": 2},
    }


def _coin_expected(case: str) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": case,
        "status": "active",
        "tier": "fast",
        "owner": "gate",
        "expect": {"terminal": {"status": "succeeded"}, "output": {"contains": ["approved"]}},
    }


def coin_repo(where: Path, rates: Sequence[float]) -> Path:
    """A git repository whose root is a corpus of len(rates) cases (case-00, ...) with the coin
    agent and its live model beside them, in one commit. `rates`: each case's pass rate."""
    shutil.rmtree(where, ignore_errors=True)
    (where / "waivers").mkdir(parents=True)
    (where / "waivers" / ".gitkeep").write_text("", encoding="utf-8")
    (where / "corpus.yaml").write_text(COIN_CONFIG, encoding="utf-8")
    (where / "coin_agent.py").write_text(COIN_AGENT, encoding="utf-8")
    (where / "coin_factory.py").write_text(COIN_FACTORY, encoding="utf-8")
    ids = [f"case-{i:02d}" for i in range(len(rates))]
    table = dict(zip(ids, rates, strict=True))
    (where / "coin_rates.json").write_text(json.dumps(table, indent=1), encoding="utf-8")
    for case in ids:
        folder = where / "cases" / case
        folder.mkdir(parents=True)
        for name, doc in (("trace", _coin_trace(case)), ("expected", _coin_expected(case))):
            (folder / f"{name}.yaml").write_text(json.dumps(doc, indent=1), encoding="utf-8")
    env = {**os.environ, **GIT_ENV}
    for argv in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", *argv], cwd=where, env=env, check=True, capture_output=True)
    return where
