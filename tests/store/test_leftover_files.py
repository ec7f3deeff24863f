"""What a killed `waivers new` or `forget` leaves beside the file it was writing.

A `waivers new` killed after writing its waiver aside leaves `waivers/.<id>.yaml.<random>.tmp`,
a complete waiver that `git add -A` stages; a `forget` killed while writing its plan leaves
`.corpus-forget.json.<random>.tmp`. Each kill is injected right after a chosen step
(CORPUS_KILL_AFTER_STEP). `validate` reports such a file as an interrupted write, the hook
(`validate --staged`) blocks it when staged, and the next writing command removes it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests import processes
from tests.conftest import EXAMPLES, Cli, git

INCIDENT = EXAMPLES / "incidents" / "refund-success.json"
NEW_WAIVER = ["waivers", "new", "c0", "--check", "all", "--reason", "lands soon", "--owner", "o"]
NEXT = (  # the writing commands that may run next: each removes what the kill left
    NEW_WAIVER,
    ["add", str(EXAMPLES / "incidents" / "inventory-zero-stock.json"), "--id", "c2"],
    ["forget", "nobody@example.org"],
)


SUBJECT = "jane.roe@example.org"


def _corpus(cli: Cli, corpus_dir: Path, tmp_path: Path) -> Path:
    """A corpus in a git work tree: case c1 holds SUBJECT, c0 does not."""
    data = json.loads(INCIDENT.read_text("utf-8"))
    data["input"]["userMessage"] = f"refund me, I am {SUBJECT}"
    incident = tmp_path / "c1.json"
    incident.write_text(json.dumps(data), encoding="utf-8")
    assert cli("-C", corpus_dir, "add", incident, "--id", "c1").code == 0
    assert cli("-C", corpus_dir, "add", INCIDENT, "--id", "c0").code == 0
    git(corpus_dir, "init", "-q")
    return corpus_dir


def _hidden(corpus: Path) -> list[str]:
    """Hidden entries at the corpus root and in waivers/ (what `git add -A` would stage)."""
    root = [p.name for p in corpus.iterdir() if p.name.startswith(".corpus")]
    waivers = [f"waivers/{p.name}" for p in (corpus / "waivers").iterdir() if p.name != ".gitkeep"]
    return sorted([*root, *(w for w in waivers if w.startswith("waivers/."))])


def _findings(cli: Cli, corpus: Path, *extra: str) -> list[dict[str, str]]:
    done = cli("-C", corpus, "validate", *extra, "--format", "json", cwd=corpus)
    found: list[dict[str, str]] = json.loads(done.out)["findings"]
    assert done.code == (1 if found else 0), done
    return found


def _killed_at_every_step(
    argv: list[str], corpus_dir: Path, tmp_path: Path, key: str, cli: Cli, left: str
) -> int:
    """Run argv killed after step 1, 2, ... until it completes; return how often it left `left`."""
    seen, step = 0, 0
    while True:
        step += 1
        corpus = tmp_path / f"k{step}"
        shutil.copytree(corpus_dir, corpus)
        env = {"CORPUS_REDACTION_KEY": key}
        ran = processes.run(["-C", str(corpus), *argv], tmp_path, env, tmp_path / "logs", step)
        if ran.code == 0:
            return seen
        assert ran.code == processes.KILLED, (step, ran)
        tmps = [h for h in _hidden(corpus) if h.endswith(".tmp")]
        if tmps:
            assert len(tmps) == 1 and tmps[0].startswith(left), (step, tmps)
            seen += 1
            _reported(cli, corpus, tmps[0])
        nxt = NEXT[step % len(NEXT)]
        done = cli("-C", corpus, *nxt)
        assert done.code == 0, (step, nxt, done)
        assert [h for h in _hidden(corpus) if h.endswith(".tmp")] == [], (step, nxt)
        assert not [h for h in _hidden(corpus) if h.endswith(".lock")], (step, nxt)
        assert _findings(cli, corpus) == [], (step, nxt)


def _reported(cli: Cli, corpus: Path, tmp: str) -> None:
    found = [f for f in _findings(cli, corpus) if not f["path"].endswith(".lock")]  # stale
    assert [f["path"] for f in found] == [tmp], found
    assert found[0]["rule"] in ("waiver.interrupted", "forget.interrupted")
    assert "Never commit it" in found[0]["message"]
    given_as = [str(Path(tmp).parent), tmp] if tmp.startswith("waivers/") else []
    for given in given_as:  # `validate waivers`, and the file as pre-commit passes it
        assert tmp in [f["path"] for f in _findings(cli, corpus, given)], given
    git(corpus, "add", "-A")
    staged = [f for f in _findings(cli, corpus, "--staged") if f["path"] == tmp]
    assert [f["rule"] for f in staged] == ["case.interrupted"], staged
    assert f"git rm -r --cached {tmp}" in staged[0]["message"]
    git(corpus, "reset", "-q")


def test_a_killed_waivers_new_leaves_a_copy_the_next_writing_command_removes(
    corpus_dir: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    corpus = _corpus(cli, corpus_dir, tmp_path)
    left = "waivers/.W-0001.yaml."
    assert _killed_at_every_step(NEW_WAIVER, corpus, tmp_path, redaction_key, cli, left) >= 1


def test_a_forget_killed_writing_its_plan_leaves_a_file_the_next_writing_command_removes(
    corpus_dir: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    corpus = _corpus(cli, corpus_dir, tmp_path)
    argv, left = ["forget", SUBJECT], ".corpus-forget.json."
    assert _killed_at_every_step(argv, corpus, tmp_path, redaction_key, cli, left) >= 1
