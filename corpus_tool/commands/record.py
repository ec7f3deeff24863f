"""`corpus record -- COMMAND...`: run the agent as the team runs it, its provider calls through a
recording proxy, and write the run as a native incident `corpus add` takes."""

from __future__ import annotations

import json
import subprocess
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from corpus_tool.errors import AgentFailed, UsageError
from corpus_tool.ingest.exchanges import incident
from corpus_tool.io.files import atomic_write
from corpus_tool.replay.doubles.proxy import BASE_URL_ENV, DEFAULT_UPSTREAMS, RecordingProxy
from corpus_tool.replay.engine import TERMINAL_STATUSES


@dataclass(frozen=True)
class RecordOptions:
    """What `corpus record` was given."""

    command: tuple[str, ...]
    out: Path | None
    trace_id: str | None
    agent_name: str | None
    agent_version: str | None
    upstreams: Mapping[str, str | None]
    """Per API (`openai`, `anthropic`), the upstream given on the command line, if any."""


def record(
    options: RecordOptions, env: Mapping[str, str], cwd: Path, out: TextIO, err: TextIO
) -> int:
    """Run the command, write the incident; 0 once it is written (whatever the agent's status)."""
    if not options.command:
        raise UsageError("give the agent's command after `--`: corpus record -- python -m my_agent")
    trace_id = options.trace_id or f"rec-{uuid.uuid4().hex[:12]}"
    path = options.out or cwd / "incidents" / f"{trace_id}.json"
    if path.exists():
        raise UsageError("exists; give another --out (a recording never overwrites)", path)
    agent = {"name": options.agent_name or cwd.name, "version": _version(options, cwd)}
    with RecordingProxy(_upstreams(options, env)) as proxy:
        code, last = _run(options.command, {**env, **proxy.base_urls()}, cwd, out)
    exchanges = list(proxy.exchanges)
    doc = incident(exchanges, {"traceId": trace_id, "agent": agent}, _final(code, last, exchanges))
    models = [e for e in doc["events"] if e["type"] == "llm_request"]
    if not models:
        raise AgentFailed(  # exit 1: the run, not the command line
            f"the command made no model call through {', '.join(BASE_URL_ENV.values())}; "
            "does the agent read its base URL from the environment?"
        )
    if doc["events"][-1]["output"] is None:  # no report of its own: the model's last words
        doc["events"][-1]["output"] = models[-1]["response"].get("content")
    atomic_write(path, json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    tools = sum(e["type"] == "tool_call" for e in doc["events"])
    print(
        f"recorded {len(models)} model call(s) and {tools} tool call(s) to {path} (the agent "
        f"exited {code}); `corpus add {path}` makes it a case",
        file=err,
    )
    return 0


def _upstreams(options: RecordOptions, env: Mapping[str, str]) -> dict[str, str]:
    """Each API's upstream: the option, else the user's own base URL, else the provider's."""
    return {
        api: options.upstreams.get(api) or env.get(BASE_URL_ENV[api]) or default
        for api, default in DEFAULT_UPSTREAMS.items()
    }


def _version(options: RecordOptions, cwd: Path) -> str:
    if options.agent_version:
        return options.agent_version
    try:
        done = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=cwd, capture_output=True, text=True
        )
    except OSError:
        done = None
    if done is None or done.returncode != 0 or not done.stdout.strip():
        raise UsageError("not in a git repository: give the agent's --agent-version")
    return done.stdout.strip()


def _run(
    command: Sequence[str], env: Mapping[str, str], cwd: Path, out: TextIO
) -> tuple[int, str | None]:
    """Run the agent, its stdout passed on line by line; (exit status, its last stdout line)."""
    try:
        child = subprocess.Popen(
            list(command), cwd=cwd, env=dict(env), stdout=subprocess.PIPE, text=True
        )
    except OSError as err:
        raise UsageError(f"cannot run {command[0]}: {err.strerror or err}") from None
    last = None
    assert child.stdout is not None
    try:
        for line in child.stdout:
            out.write(line)
            out.flush()
            last = line if line.strip() else last
        return child.wait(), last
    except BaseException:
        child.kill()
        child.wait()
        raise


def _final(code: int, last: str | None, exchanges: Sequence[Any]) -> dict[str, Any]:
    """The final event: the agent's last stdout line `{"status", "output"}` when it printed
    one (as `agent.command` reports), else succeeded on exit 0 (failed otherwise) with the
    model's last answer as the output."""
    try:
        said = json.loads(last) if last else None
    except ValueError:
        said = None
    if isinstance(said, dict) and said.get("status") in TERMINAL_STATUSES:
        return {"status": said["status"], "output": said.get("output")}
    return {"status": "succeeded" if code == 0 else "failed", "output": None}
