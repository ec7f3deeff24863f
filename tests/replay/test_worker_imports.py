"""What an entrypoint imports stays imported for the worker's life: a library loaded at import
time is the one the agent meets during a case, and its repository stays importable."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

from corpus_tool import ModelResponse
from corpus_tool.cli import main
from tests.conftest import git
from tests.recording import load_module, record_incident
from tests.replay.two_cases import corpus_check

AGENT = """
    from teamagent.lib import Thing  # loaded with the entrypoint, as frameworks are


    def run(case_input, rt):
        reply = rt.model([{"role": "user", "content": case_input["user_message"]}], model="m")
        from teamagent import lib  # the agent's lazy imports, during a case
        from teamagent.later import VALUE  # a module of the repository not imported yet

        same = lib.Thing is Thing  # a second copy of the library would be another class
        return {"status": "succeeded" if same else "failed", "output": reply.content + VALUE}
"""


def test_modules_imported_with_the_entrypoint_are_the_ones_a_case_sees(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    package = repo / "teamagent"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "lib.py").write_text("class Thing:\n    pass\n")
    (package / "later.py").write_text("VALUE = '!'\n")
    (package / "agent.py").write_text(textwrap.dedent(AGENT))
    git(repo, "init", "-q", "-b", "main")
    corpus = repo / "evals"
    assert main(["init", str(corpus)]) == 0
    config = corpus / "corpus.yaml"
    text = config.read_text().replace("  # entrypoint: my_agent.main:run",
                                      "  entrypoint: teamagent.agent:run")  # fmt: skip
    config.write_text(text)
    sys.path.insert(0, str(repo))
    try:
        agent = load_module(package / "agent.py", "teamagent.agent").run
        incident = tmp_path / "incident.json"
        record_incident(agent, [ModelResponse("ok")], {}, incident, trace_id="t-1", message="hi")
    finally:
        sys.path.remove(str(repo))
        for name in [n for n in sys.modules if n.startswith("teamagent")]:
            del sys.modules[name]
    assert main(["-C", str(corpus), "add", str(incident), "--id", "lazy"]) == 0

    done = corpus_check(corpus, tmp_path, "--format", "json")
    (case,) = json.loads(done.stdout)["cases"]
    assert (done.returncode, case["verdict"], case["error"]) == (0, "passed", None), case
    assert case["trajectory"]["terminal"] == {"status": "succeeded", "output": "ok!"}
