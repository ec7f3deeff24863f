"""A value in another spelling is still the value: redacted by `add`, reported by `validate`.

Full-width digits, no-break spaces between a card's groups, a zero-width character inside an
e-mail's domain, a percent-encoded `mailto:`, an HTML character reference for `@`, a password in
a URL's userinfo: each used to pass both. The scan reads a normalized view and replaces the
original spelling; the pseudonym is the normalized value's, so `forget` with the plain spelling
finds every spelling. Files are read back with a plain byte search, not through the scanner.
"""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import NamedTuple

import pytest

from corpus_tool.redact import RedactionKey, redact, scan
from corpus_tool.redact.normalize import changing, foldable
from tests.conftest import EXAMPLES, Cli

EMAIL = "zhang.wei@corp-mail.cn"
CARD = "4111 1111 1111 1111"


class Spelling(NamedTuple):
    text: str  # what the incident or the hand edit holds
    secret: tuple[str, ...]  # what no written file may hold afterwards
    rule: str
    plain: str = ""  # the same text with the value spelled plainly ("" for URL passwords)


def _email_in(domain_spelling: str) -> Spelling:
    text = f"write to zhang.wei@{domain_spelling} today"
    return Spelling(
        text, ("zhang.wei", domain_spelling), "redaction.email", f"write to {EMAIL} today"
    )


SPELLINGS = {
    "fullwidth-mobile": Spelling(
        "call me on １３８１２３４５６７８ tonight",
        ("１３８１２３４５６７８", "13812345678", "３８１２３４"),
        "redaction.cn_mobile",
        "call me on 13812345678 tonight",
    ),
    **{
        f"{name}-card": Spelling(
            f"card {CARD.replace(' ', space)} please",
            (CARD.replace(" ", space), "4111111111111111", "1111" + space),
            "redaction.payment_card",
            f"card {CARD} please",
        )
        for name, space in (("nbsp", "\u00a0"), ("narrow-nbsp", "\u202f"))
    },
    **{
        f"{name}-email": _email_in(f"corp-ma{char}il.cn")
        for name, char in (
            ("zwj", "\u200d"),
            ("zwsp", "\u200b"),
            ("zwnj", "\u200c"),
            ("word-joiner", "\u2060"),
            ("bom", "\ufeff"),
            ("soft-hyphen", "\u00ad"),
        )
    },
    "mailto-percent": Spelling(
        '<a href="mailto:zhang.wei%40corp-mail.cn">mail us</a>',
        ("zhang.wei",),
        "redaction.email",
        f'<a href="mailto:{EMAIL}">mail us</a>',
    ),
    **{
        f"entity-{name}": Spelling(
            f"write to zhang.wei{entity}corp-mail.cn today",
            ("zhang.wei",),
            "redaction.email",
            f"write to {EMAIL} today",
        )
        for name, entity in (("decimal", "&#64;"), ("hex", "&#x40;"), ("named", "&commat;"))
    },
    "userinfo-postgres": Spelling(
        "DATABASE_URL=postgres://app:Pg-s3cret-77@db.internal/orders",
        ("Pg-s3cret-77",),
        "redaction.url_password",
    ),
    "userinfo-https": Spelling(
        "git clone https://deploy:Tok3n-xyz-99@git.example.com/shop.git failed",
        ("Tok3n-xyz-99",),
        "redaction.url_password",
    ),
}
SAME_VALUE = [name for name, s in SPELLINGS.items() if s.plain]


def _incident(tmp_path: Path, name: str, message: str) -> Path:
    data = json.loads((EXAMPLES / "incidents" / "refund-success.json").read_text("utf-8"))
    data["traceId"] = f"t-{name}"
    data["input"]["userMessage"] = message
    data["events"][1]["result"]["note"] = message  # a tool result too
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _add(cli: Cli, corpus: Path, tmp_path: Path, name: str, message: str) -> Path:
    result = cli("-C", corpus, "add", _incident(tmp_path, name, message), "--id", name)
    assert result.code == 0, result.err
    return corpus / "cases" / name


def _leaks(corpus: Path, secret: tuple[str, ...]) -> list[str]:
    """Every (file, spelling) where a written file holds the secret, by a plain byte search."""
    found = []
    for path in sorted(p for p in corpus.rglob("*") if p.is_file()):
        raw = path.read_bytes()
        found += [f"{path.name}: {s!r}" for s in secret if s.encode("utf-8") in raw]
    return found


def _user_message(case: Path) -> str:
    trace = (case / "trace.yaml").read_text(encoding="utf-8")
    return trace.split("user_message: ", 1)[1].splitlines()[0]


@pytest.mark.parametrize("name", SPELLINGS)
def test_add_redacts_a_value_in_any_spelling(
    name: str, corpus_dir: Path, tmp_path: Path, cli: Cli
) -> None:
    spelling = SPELLINGS[name]
    case = _add(cli, corpus_dir, tmp_path, name, spelling.text)
    assert _leaks(corpus_dir, spelling.secret) == []
    assert cli("-C", corpus_dir, "validate").code == 0
    if spelling.rule == "redaction.url_password":  # user and host stay, like a query secret
        assert ":REDACTED@" in _user_message(case)


@pytest.mark.parametrize("name", SPELLINGS)
def test_validate_finds_a_hand_edited_value_in_any_spelling(
    name: str, corpus_dir: Path, cli: Cli
) -> None:
    added = cli("-C", corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c")
    assert added.code == 0, added.err
    trace = corpus_dir / "cases/c/trace.yaml"
    text = trace.read_text(encoding="utf-8")
    note = f"    note: {json.dumps(SPELLINGS[name].text)}\n"  # a double-quoted YAML scalar
    trace.write_text(text.replace("  context:\n", "  context:\n" + note, 1), encoding="utf-8")
    result = cli("-C", corpus_dir, "validate", "--format", "json")
    assert result.code == 1
    findings = json.loads(result.out)["findings"]
    assert [f["rule"] for f in findings] == [SPELLINGS[name].rule]
    assert all(s not in result.out for s in SPELLINGS[name].secret[:1])


@pytest.mark.parametrize("name", SAME_VALUE)
def test_one_pseudonym_for_every_spelling_and_forget_finds_it_by_the_plain_one(
    name: str, corpus_dir: Path, tmp_path: Path, cli: Cli
) -> None:
    spelling = SPELLINGS[name]
    spelled = _add(cli, corpus_dir, tmp_path, "spelled", spelling.text)
    plain = _add(cli, corpus_dir, tmp_path, "plain", spelling.plain)
    _add(cli, corpus_dir, tmp_path, "bystander", "call me on 13912345678 tonight")
    assert _user_message(spelled) == _user_message(plain)
    value = next(hit.value for hit in scan(spelling.plain))
    listed = cli("-C", corpus_dir, "forget", value, "--dry-run", "--format", "json")
    assert json.loads(listed.out)["cases"] == ["plain", "spelled"]
    assert cli("-C", corpus_dir, "forget", value).code == 0
    assert sorted(p.name for p in (corpus_dir / "cases").iterdir() if p.is_dir()) == ["bystander"]


def test_validate_gives_every_spelling_the_plain_value_s_fingerprint(
    corpus_dir: Path, cli: Cli
) -> None:
    added = cli("-C", corpus_dir, "add", EXAMPLES / "incidents/refund-success.json", "--id", "c")
    assert added.code == 0, added.err
    trace = corpus_dir / "cases/c/trace.yaml"
    names = ["zwj-email", "entity-named", "mailto-percent"]
    notes = "".join(f"    note{i}: {json.dumps(SPELLINGS[n].text)}\n" for i, n in enumerate(names))
    notes += f"    plain: {EMAIL}\n"
    text = trace.read_text(encoding="utf-8")
    trace.write_text(text.replace("  context:\n", "  context:\n" + notes, 1), encoding="utf-8")
    findings = json.loads(cli("-C", corpus_dir, "validate", "--format", "json").out)["findings"]
    prints = {f["message"].split("fingerprint ", 1)[1].split(":", 1)[0] for f in findings}
    assert len(findings) == 4 and len(prints) == 1


@pytest.mark.parametrize(
    ("text", "redacted"),
    [
        ("\u200bzhang.wei@corp-mail.cn\u200b!", "\u200b{email}\u200b!"),  # outside stays
        ("a https://shop.example/u?to=zhang.wei&#64;corp-mail.cn&x=1#top", None),
        ("https://shop.example/u?a=1&amp;to=zhang.wei%40corp-mail.cn", None),
        ("卡号，4111111111111111，谢谢", "卡号，{card}，谢谢"),  # CJK commas: no guard appears
        ("x https://u:p@host.example.com/ and zhang.wei@corp-mail.cn", None),
        ("postgres://app:p%E2%80%8D@db.example.com/x", "postgres://app:REDACTED@db.example.com/x"),
        ("https://ops&#64;shop:p@corp-mail.cn/", "https://ops&#64;shop:REDACTED@corp-mail.cn/"),
        ("card 4111\u00a01111\u00a01111\u00a01111+86zhang.wei@corp-mail.cn１/", None),
    ],
)
def test_redaction_replaces_exactly_the_original_spelling(
    text: str, redacted: str | None, key: RedactionKey
) -> None:
    done = redact(text, key).value
    assert "zhang.wei" not in done and "4111" not in done and ":p" not in done
    assert scan(done) == []  # and validate finds nothing left
    if redacted is not None:
        email = redact(EMAIL, key).value
        card = redact("4111111111111111", key).value
        assert done == redacted.format(email=email, card=card)


@pytest.mark.parametrize(
    "text", ["中文，没有。", "a & b, 100% sure", "R&D costs 5%", "naïve café", "ｶﾀｶﾅ"]
)
def test_text_without_a_value_is_left_byte_for_byte(text: str, key: RedactionKey) -> None:
    assert scan(text) == [] and redact(text, key).value == text


def test_view_finds_every_character_it_folds() -> None:
    """The table of foldable characters holds every one under this Python's Unicode."""
    missed = [
        f"U+{code:04X}"
        for code in range(0x80, 0x110000)
        if not 0xD800 <= code <= 0xDFFF and foldable(chr(code)) and not changing(chr(code))
    ]
    assert missed == [], f"Unicode {unicodedata.unidata_version}: add these to _FOLDABLE"
