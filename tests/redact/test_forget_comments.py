"""Forget needles find a subject's pseudonyms in any format; YAML comments are scanned."""

from __future__ import annotations

from corpus_tool.redact import RedactionKey, holds, needles, redact, scan, yaml_comments

from .examples import POSITIVE


def test_needles_find_phone_in_every_written_form(key: RedactionKey) -> None:
    doc = {"a": "call 138 1234 5678", "b": ["+86-138-1234-5678"], "c": 13812345678}
    redacted = redact(doc, key).value
    wanted = needles("13812345678", key)
    for field in ("a", "b", "c"):
        assert holds({field: redacted[field]}, wanted), field


def test_needles_find_token_bare_and_in_header(key: RedactionKey) -> None:
    token = POSITIVE["github_token"][0]
    redacted = redact({"h": f"Authorization: Bearer {token}"}, key).value
    assert holds(redacted, needles(token, key))


def test_needles_miss_other_subjects_and_other_keys(
    key: RedactionKey, other_key: RedactionKey
) -> None:
    redacted = redact({"a": "mail alice.w@corp-mail.cn"}, key).value
    assert not holds(redacted, needles("bob@corp-mail.cn", key))
    assert not holds(redacted, needles("alice.w@corp-mail.cn", other_key))
    assert holds(redacted, needles("ALICE.W@corp-mail.cn", key))


def test_needles_empty_for_values_no_detector_knows(key: RedactionKey) -> None:
    assert needles("just a name", key) == []


def test_yaml_comments_found_with_lines_outside_strings() -> None:
    text = (
        "# owner alice.w@corp-mail.cn\n"
        'title: "order # 12 for bob@x.cn"  # ping 13812345678\n'
        "notes: |\n  literal # carol@x.cn\n"
    )
    comments = yaml_comments(text)
    assert [line for line, _ in comments] == [1, 2]
    assert [h.detector for _, c in comments for h in scan(c)] == ["email", "cn_mobile"]
