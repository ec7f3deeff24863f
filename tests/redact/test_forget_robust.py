"""`corpus forget` against every spelling of a value, old pseudonyms, and a kill at every step.

One value is one pseudonym in any spelling, so forgetting a card or an IBAN however it is
written finds every case that held it however that case wrote it. A forget killed right after
any step (fault injection) is finished by the next writing command; nothing of the subject
remains, and validate's advice in between never re-adds the person being erased.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import pytest

from corpus_tool.redact.checksums import luhn_digit
from tests import processes
from tests.conftest import TEST_KEY, Cli
from tests.redact.incidents import add, incident

CARDS = {  # one card, three spellings; and a 15-digit card in two
    "card": ("4111 1111 1111 1111", "4111-1111-1111-1111", "4111111111111111"),
    "amex": ("3782 822463 10005", "378282246310005"),
    "long": ("4000 0566 5566 5556 122", "4000-0566-5566-5556-122", "4000056655665556122"),
}
IBANS = {
    "iban": ("DE98 7015 0000 6022 0070 16", "DE98701500006022007016", "DE98 70150000 6022007016")
}
OTHER = "DE89 3704 0044 0532 0130 00"


def _message(corpus: Path, case: str) -> str:
    trace = (corpus / "cases" / case / "trace.yaml").read_text(encoding="utf-8")
    return trace.split("user_message: ", 1)[1].splitlines()[0]


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum())


@pytest.mark.parametrize("values", [*CARDS.items(), *IBANS.items()], ids=lambda v: v[0])
def test_forget_finds_every_spelling_by_any_spelling(
    values: tuple[str, tuple[str, ...]], corpus_dir: Path, tmp_path: Path, cli: Cli
) -> None:
    kind, spellings = values
    names = [f"{kind}-{n}" for n in range(len(spellings))]
    for name, spelling in zip(names, spellings, strict=True):
        add(cli, corpus_dir, tmp_path, name, f"pay back to {spelling} please")
    add(cli, corpus_dir, tmp_path, "bystander", f"pay back to {OTHER} please")
    stored = {_digits(_message(corpus_dir, name)) for name in names}
    assert len(stored) == 1  # one value, one pseudonym in any spelling
    for spelling in spellings:
        listed = cli("-C", corpus_dir, "forget", spelling, "--dry-run", "--format", "json")
        assert json.loads(listed.out)["cases"] == names, spelling
    assert cli("-C", corpus_dir, "forget", spellings[-1]).code == 0
    left = sorted(p.name for p in (corpus_dir / "cases").iterdir() if p.is_dir())
    assert left == ["bystander"]


def _policy_one_card(grouped: str) -> str:
    """What corpus-tool 0.1 wrote for a grouped card: a 0 at each group start (its docstring)."""
    digits = _digits(grouped)
    message = b"pseudonym\x00payment_card\x00" + digits.encode()
    raw = hmac.new(TEST_KEY.encode(), message, hashlib.sha256).digest()
    keyed = f"{int.from_bytes(raw, 'big') % 10 ** (len(digits) - 5):0{len(digits) - 5}d}"
    body = list("0000" + keyed)
    count = 0
    for prev, ch in zip(" " + grouped[:-1], grouped, strict=True):
        if ch.isdigit():
            if prev == " " and count < len(body):
                body[count] = "0"
            count += 1
    text = "".join(body) + luhn_digit("".join(body))
    feed = iter(text)
    return "".join(next(feed) if ch.isdigit() else ch for ch in grouped)


def test_forget_finds_a_policy_one_grouped_card(corpus_dir: Path, tmp_path: Path, cli: Cli) -> None:
    add(cli, corpus_dir, tmp_path, "old", "pay back to 0000 0000 0000 0000 please")
    trace = corpus_dir / "cases" / "old" / "trace.yaml"
    old = _policy_one_card("4111 1111 1111 1111")
    text = trace.read_text(encoding="utf-8").replace("0000 0000 0000 0000", old)
    trace.write_text(text, encoding="utf-8")
    listed = cli("-C", corpus_dir, "forget", "4111111111111111", "--dry-run", "--format", "json")
    assert json.loads(listed.out)["cases"] == ["old"]


SUBJECT = "4111 1111 1111 1111"


@pytest.fixture
def erasable(corpus_dir: Path, tmp_path: Path, cli: Cli) -> Path:
    """Two cases hold the subject's card, one does not; a waiver names each case."""
    for name, message in (("a1", SUBJECT), ("a2", SUBJECT.replace(" ", "")), ("b1", OTHER)):
        add(cli, corpus_dir, tmp_path, name, f"refund to {message}")
        (corpus_dir / "waivers" / f"W-{name}.yaml").write_text(
            f"schema_version: 1\nid: W-{name}\ncase: {name}\nchecks: [all]\n"
            f"reason: lands next week\nowner: shop\nexpires: '{date.today() + timedelta(30)}'\n",
            encoding="utf-8",
        )
    return corpus_dir


def _everything(corpus: Path) -> str:
    return "".join(
        _digits(p.read_text(encoding="utf-8", errors="replace"))
        for p in corpus.rglob("*")
        if p.is_file()
    )


def test_kill_after_every_step_of_forget_then_finish(
    erasable: Path, tmp_path: Path, redaction_key: str, cli: Cli
) -> None:
    """After each kill, in turn, a forget or an add of another case runs next."""
    pseudonym = _digits(_message(erasable, "a1"))
    step = 0
    while True:
        step += 1
        corpus = tmp_path / f"k{step}"
        shutil.copytree(erasable, corpus)
        argv = ["-C", str(corpus), "forget", SUBJECT]
        env = {"CORPUS_REDACTION_KEY": redaction_key}
        ran = processes.run(argv, tmp_path, env, tmp_path / "logs", step)
        if ran.code == 0:
            break
        assert ran.code == processes.KILLED, ran
        _advice_never_re_adds(corpus, cli)
        journaled = (corpus / ".corpus-forget.json").exists()
        then = ("forget again", "an add")[step % 2]
        if then == "an add":  # any writing command finishes a journaled forget
            written = incident(tmp_path, "c1", "hello")
            assert cli("-C", corpus, "add", written, "--id", "c1").code == 0
        if then == "forget again" or not journaled:  # before its plan, a forget did nothing
            assert cli("-C", corpus, "forget", SUBJECT).code == 0
        _no_trace_of_the_subject(corpus, pseudonym, cli)
    assert step > 10  # locks, the plan, each rename and removal, each waiver


def _advice_never_re_adds(corpus: Path, cli: Cli) -> None:
    result = cli("-C", corpus, "validate", "--format", "json")
    for finding in json.loads(result.out)["findings"]:
        assert "re-add the case" not in finding["message"], finding
        assert "corpus add --force" not in finding["message"], finding


def _no_trace_of_the_subject(corpus: Path, pseudonym: str, cli: Cli) -> None:
    cases = corpus / "cases"
    assert sorted(p.name for p in cases.iterdir()) in (
        [".gitkeep", "b1"],
        [".gitkeep", "b1", "c1"],
    )
    assert sorted(p.name for p in (corpus / "waivers").iterdir()) == [".gitkeep", "W-b1.yaml"]
    assert not [p for p in corpus.iterdir() if p.name.startswith(".corpus-forget")]
    assert pseudonym not in _everything(corpus)
    again = cli("-C", corpus, "forget", SUBJECT, "--dry-run")
    assert "no case holds a pseudonym of this value" in again.out
    assert cli("-C", corpus, "validate").code == 0
