"""`expect.egress`: every host a tool reached is on the allow-list."""

from __future__ import annotations

from urllib.parse import urlsplit

from corpus_tool.grade.registry import Check, TableGrader
from corpus_tool.grade.result import from_problems
from corpus_tool.grade.view import RunView, plural
from corpus_tool.model.checks import CheckResult
from corpus_tool.model.cut import CutShort


def host_of(egress: str) -> str:
    """The bare host of an egress value: scheme, port, path and trailing dot dropped."""
    text = egress.strip()
    netloc = urlsplit(text if "://" in text else f"//{text}").hostname
    return (netloc or text).rstrip(".").lower()


def host_allowed(host: str, patterns: tuple[str, ...]) -> bool:
    """Exact host, or `*.suffix` for any subdomain of suffix (not suffix itself)."""
    for pattern in (p.strip().rstrip(".").lower() for p in patterns):
        if pattern.startswith("*."):
            if host.endswith(pattern[1:]) and len(host) > len(pattern) - 1:
                return True
        elif host == pattern:
            return True
    return False


def allowed(patterns: tuple[str, ...], run: RunView) -> CheckResult:
    """Every tool call with an egress host reached an allowed one."""
    reached = [(c, host_of(c.egress)) for c in run.calls if c.egress]
    bad = [(c, h) for c, h in reached if not host_allowed(h, patterns)]
    problems = [f"{c.tool} at seq {c.seq} reached {h}, not allowed" for c, h in bad]
    if problems:
        problems.append(f"allowed: {', '.join(patterns) or '(none)'}")
    hosts = sorted({h for _, h in reached})
    ok = (
        f"{plural(len(reached), 'call')} reached allowed hosts: {', '.join(hosts)}"
        if reached
        else ("no tool call reached the network")
    )
    return from_problems(
        "egress.allowed", problems, ok, denied=[{"seq": c.seq, "host": h} for c, h in bad]
    )


def _allowed_open(patterns: tuple[str, ...], run: RunView, cut: CutShort, passed: bool) -> bool:
    """A pass breaks only if a tool the recording still answers reached a host not allowed."""
    return passed and any(
        not host_allowed(host_of(h), patterns)
        for tool in cut.callable_tools()
        for h in cut.hosts.get(tool, ())
    )


GRADER = TableGrader("egress", (Check("allowed", "egress.allowed", allowed, _allowed_open),))
