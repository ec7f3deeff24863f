"""`corpus affected` over committed changes: each kind of changed file selects what it should."""

from __future__ import annotations

from tests.select.affected_repo import CASES, GitCorpus

ALL = sorted(CASES)


def test_affected_case_file_edit_selects_that_case(repo: GitCorpus) -> None:
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("evals/cases/stock-zero/expected.yaml", "schema_version: 1\ntier: fast\n")
    repo.commit()
    result = repo.affected("--base", "main", "--format", "json")
    assert result.code == 0
    assert result.json()["selected"] == ["stock-zero"]
    assert result.json()["reasons"]["stock-zero"][0]["rule"] == "case file"


def test_affected_waiver_edit_selects_its_case(repo: GitCorpus) -> None:
    text = (repo.root / "evals/waivers/W-1.yaml").read_text()
    repo.write("evals/waivers/W-1.yaml", text.replace("lands next week", "lands in May"))
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--explain", "--format", "text")
    assert "1 of 5 cases" in result.out
    assert "order-lookup" in result.out
    assert "evals/waivers/W-1.yaml (modified): waiver of order-lookup" in result.out


def test_affected_waiver_moved_to_another_case_selects_both(repo: GitCorpus) -> None:
    text = (repo.root / "evals/waivers/W-1.yaml").read_text()
    repo.write("evals/waivers/W-1.yaml", text.replace("case: order-lookup", "case: refund-ok"))
    repo.commit()
    assert repo.affected("--base", "HEAD~1").ids == ["order-lookup", "refund-ok"]


def test_affected_tool_module_edit_selects_exactly_the_callers(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# refund v2\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ["refund-ok", "refund-twice"]
    reason = result.json()["reasons"]["refund-ok"][0]
    assert reason == {
        "path": "src/tools/refund.py",
        "status": "modified",
        "rule": "impact.rules[0] (tools create_refund)",
    }


def test_affected_tool_named_only_in_a_model_response_counts(repo: GitCorpus) -> None:
    # The tool span was lost: only the model's request to call it was recorded.
    repo.write(
        "evals/cases/span-lost/trace.yaml",
        "events:\n- {seq: 1, type: model_call, response: {tool_calls: "
        "[{id: c1, name: create_refund, arguments: {}}]}}\n",
    )
    repo.commit("add span-lost")
    repo.write("src/tools/refund.py", "# refund v2\n")
    repo.commit()
    assert "span-lost" in repo.affected("--base", "HEAD~1").ids


def test_affected_unreadable_trace_is_selected_by_a_tool_rule(repo: GitCorpus) -> None:
    repo.write("evals/cases/order-lookup/trace.yaml", "events: [unclosed\n")
    repo.commit("break a trace")
    repo.write("src/tools/refund.py", "# refund v2\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1")
    assert result.ids == ["order-lookup", "refund-ok", "refund-twice"]


def test_affected_prompt_change_with_all_selects_everything(repo: GitCorpus) -> None:
    repo.write("src/prompts/system.txt", "You are a careful shop assistant.\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ALL
    assert result.json()["reasons"]["stock-zero"][0]["rule"] == "impact.rules[2] (all)"


def test_affected_tag_rule_on_a_directory_selects_tagged_cases(repo: GitCorpus) -> None:
    repo.write("src/inventory/stock.py", "STOCK = {'A100': 0}\n")
    repo.commit()
    assert repo.affected("--base", "HEAD~1").ids == ["stock-zero"]


def test_affected_case_glob_rule_selects_by_id(repo: GitCorpus) -> None:
    repo.write("src/legacy/x.py", "# legacy v2\n")
    repo.commit()
    assert repo.affected("--base", "HEAD~1").ids == ["legacy-export"]


def test_affected_unmapped_file_under_all_selects_everything(repo: GitCorpus) -> None:
    repo.write("src/app.py", "# app v2\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ALL
    rule = result.json()["reasons"]["refund-ok"][0]["rule"]
    assert rule.startswith("impact.unmapped: all")


def test_affected_unmapped_file_under_none_selects_nothing(repo: GitCorpus) -> None:
    repo.config(unmapped="none")
    repo.commit("unmapped: none")
    repo.write("src/app.py", "# app v2\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1")
    assert (result.code, result.out, result.err) == (0, "", "")


def test_affected_rule_without_selectors_maps_a_path_to_nothing(repo: GitCorpus) -> None:
    repo.write("docs/guide.md", "# guide, revised\n")
    repo.commit()
    assert repo.affected("--base", "HEAD~1").ids == []


def test_affected_corpus_yaml_edit_selects_everything(repo: GitCorpus) -> None:
    repo.write("evals/corpus.yaml", (repo.root / "evals/corpus.yaml").read_text() + "# note\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    assert result.json()["selected"] == ALL
    assert result.json()["reasons"]["order-lookup"][0]["rule"].startswith("global file")


def test_affected_rules_come_from_the_head_revision(repo: GitCorpus) -> None:
    # The head's corpus.yaml maps app.py to one tool; the worktree's does not decide.
    config = (repo.root / "evals/corpus.yaml").read_text()
    repo.write("evals/corpus.yaml", config.replace('"docs/**"', '"docs/**", "src/app.py"'))
    repo.commit("map app.py to nothing")
    repo.write("src/app.py", "# app v2\n")
    head = repo.commit()
    repo.git("checkout", "-q", "HEAD~2")
    assert repo.affected("--base", "HEAD", "--head", head).ids == ALL  # corpus.yaml changed
    assert repo.affected("--base", f"{head}~1", "--head", head).ids == []


def test_affected_diffs_from_the_merge_base(repo: GitCorpus) -> None:
    repo.git("checkout", "-q", "-b", "feature")
    repo.write("src/tools/orders.py", "# orders v2\n")
    repo.commit()
    repo.git("checkout", "-q", "main")
    repo.write("src/prompts/system.txt", "changed on main after the branch point\n")
    repo.commit()
    result = repo.affected("--base", "main", "--head", "feature")
    assert result.ids == ["order-lookup", "refund-ok"]


def test_affected_tier_filter_keeps_only_that_tier(repo: GitCorpus) -> None:
    repo.write("src/tools/refund.py", "# refund v2\n")
    repo.commit()
    assert repo.affected("--base", "HEAD~1", "--tier", "full").ids == ["refund-twice"]
    assert repo.affected("--base", "HEAD~1", "--tier", "fast,archive").ids == ["refund-ok"]


def test_affected_explain_names_a_reason_for_every_selected_case(repo: GitCorpus) -> None:
    repo.write("src/tools/orders.py", "# orders v2\n")
    repo.write("evals/cases/stock-zero/trace.yaml", "events: []\n")
    repo.write("evals/waivers/W-2.yaml", "case: legacy-export\n")
    repo.commit()
    result = repo.affected("--base", "HEAD~1", "--format", "json")
    reasons = result.json()["reasons"]
    assert sorted(reasons) == result.json()["selected"]
    assert all(reasons[case] for case in reasons)
    lines_run = repo.affected("--base", "HEAD~1", "--explain")
    assert lines_run.ids == result.json()["selected"]  # stdout stays one id per line
    for case in result.json()["selected"]:
        assert f"{case}:\n    " in lines_run.err


def test_affected_empty_selection_exits_zero_in_every_format(repo: GitCorpus) -> None:
    for output in ("lines", "pytest", "text"):
        result = repo.affected("--base", "HEAD", "--format", output)
        assert result.code == 0
    matrix = repo.affected("--base", "HEAD", "--format", "github-matrix")
    assert matrix.json() == {"include": []}
    assert repo.affected("--base", "HEAD", "--format", "pytest").out == ""


def test_affected_json_lists_every_case_reasons_once(repo: GitCorpus) -> None:
    for n in range(8):
        repo.write(f"src/misc/m{n}.py", "# new\n")
    repo.write("evals/cases/stock-zero/trace.yaml", "events: []\n")
    repo.commit()
    data = repo.affected("--base", "HEAD~1", "--format", "json").json()
    assert len(data["reasons_for_all"]) == 8
    assert data["reasons"]["stock-zero"][0]["rule"] == "case file"
    assert len(data["reasons"]["stock-zero"]) == 1 + 5
    text = repo.affected("--base", "HEAD~1", "--format", "text", "--explain").out
    assert "... and 4 more (see --format json)" in text


def test_affected_explain_of_an_empty_selection_names_each_file_and_rule(
    repo: GitCorpus,
) -> None:
    repo.config(unmapped="none")
    config = (repo.root / "evals/corpus.yaml").read_text()
    extra = '    - {paths: ["src/tools/mail.py"], tools: [send_mail]}\n    - {paths: ["docs/**"]}'
    repo.write("evals/corpus.yaml", config.replace('    - {paths: ["docs/**"]}', extra))
    repo.commit("rules")
    repo.write("docs/guide.md", "# guide, revised\n")
    repo.write("src/app.py", "# app v2\n")
    repo.write("src/tools/mail.py", "# mail v2\n")
    repo.commit()
    text = repo.affected("--base", "HEAD~1", "--explain", "--format", "text")
    assert text.code == 0
    assert "0 of 5 cases affected by 3 changed files" in text.out
    assert "no case selected; why, for each changed file:" in text.out
    assert "    docs/guide.md (modified): impact.rules[6] (selects nothing)\n" in text.out
    assert (
        "    src/app.py (modified): impact.unmapped: none (no rule names this file)\n" in text.out
    )
    assert (
        "    src/tools/mail.py (added): impact.rules[5] (tools send_mail): no case calls "
        "send_mail\n" in text.out
    )
    lines = repo.affected("--base", "HEAD~1", "--explain")
    assert lines.out == "", "stdout stays the (empty) list of ids"
    assert "src/tools/mail.py (added): impact.rules[5] (tools send_mail)" in lines.err
    data = repo.affected("--base", "HEAD~1", "--format", "json").json()
    assert [r["path"] for r in data["selecting_nothing"]] == [
        "docs/guide.md",
        "src/app.py",
        "src/tools/mail.py",
    ]
