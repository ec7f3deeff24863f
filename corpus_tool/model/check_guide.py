"""How to write each check: one YAML example and one sentence per check name.

The single source of the examples `corpus explain` prints, the hints a wrong shape gets in
`corpus validate` and in the `grade` API, and the examples in docs/grading.md (a test holds the
doc to this table, another grades every example and expects exactly its check to run).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Guide:
    """One check: the `expect` key and sub-key it is written under, an example value (YAML flow
    style), and when it passes."""

    name: str
    value: str
    passes: str

    @property
    def key(self) -> str:
        return self.name.split(".")[0]

    @property
    def sub(self) -> str | None:
        """The sub-key under `key`; None where the key's value is the check's whole spec."""
        return None if self.key in WHOLE_KEYS else self.name.split(".", 1)[1]

    def block(self) -> str:
        """The example as it sits in expected.yaml."""
        if self.sub is None:
            return f"expect:\n  {self.key}: {self.value}\n"
        return f"expect:\n  {self.key}:\n    {self.sub}: {self.value}\n"

    def line(self) -> str:
        """The example on one line, for messages: `key: {sub: value}`."""
        if self.sub is None:
            return f"{self.key}: {self.value}"
        return f"{self.key}: {{{self.sub}: {self.value}}}"


WHOLE_KEYS = ("side_effects", "idempotency")
"""`expect` keys whose value is the check's spec itself (a list), with no sub-key."""

GUIDES: tuple[Guide, ...] = (
    Guide(
        "errors.forbidden",
        "[ZeroDivisionError]",
        "no error of a listed type occurred",
    ),
    Guide(
        "errors.required",
        "[OutOfStock]",
        "every listed type occurred at least once (a fixed agent reporting the fault)",
    ),
    Guide("tools.required", "[notify_operator]", "every listed tool was called at least once"),
    Guide("tools.forbidden", "[place_order]", "no listed tool was called"),
    Guide("tools.allowed", "[get_order, create_refund]", "every call is of a listed tool"),
    Guide(
        "tools.order",
        "[[get_order, create_refund]]",
        "each listed list is a subsequence of the calls (other calls may come between)",
    ),
    Guide(
        "tools.args",
        "[{tool: create_refund, match: {amount: 19900}, mode: subset}]",
        "for each `{tool, match, mode}`, at least one call of the tool matches",
    ),
    Guide(
        "tools.max_calls",
        "{create_refund: 1}",
        "each listed tool was called at most its bound",
    ),
    Guide("retries.max", "1", "the run retried at most `max` times"),
    Guide(
        "egress.allowed",
        '[orders.internal, "*.payments.internal"]',
        "every tool call that reached a host (`egress`) reached an allowed one",
    ),
    Guide(
        "side_effects.count",
        "[{type: refund_created, count: 1}]",
        "for each `{type, count}`, exactly `count` `side_effect` events of that `kind`",
    ),
    Guide(
        "idempotency.reuse_key",
        "{tools: [create_refund]}",
        "every repeat of a listed tool's call carries the same idempotency key as the first",
    ),
    Guide("terminal.status", "submitted", "the terminal status is exactly the expected one"),
    Guide("output.contains", '["submitted"]', "every listed substring is in the output"),
    Guide(
        "output.not_contains", '["refunded to your card"]', "no listed substring is in the output"
    ),
    Guide(
        "output.regex",
        "['R\\d{3}']",
        "every pattern matches somewhere (Python `re.search`; use `(?i)` etc. for flags)",
    ),
    Guide(
        "output.similar",
        '{reference: "Your refund has been submitted.", min_score: 0.85, scorer: lexical}',
        "the scorer rates the output at least `min_score` (default 0.8) similar to `reference`",
    ),
)

REPLAY_GUIDES: dict[str, str] = {
    "replay.divergence": "the run never asked for something the recording does not hold "
    "(replay adds it to every case; `replay: {mode: lenient}` in expected.yaml loosens matching)",
    "replay.determinism": "`--repeat N` runs of the case all produced the same trajectory",
}
"""Replay's own checks: no `expect` key; a waiver can still name them."""

BY_NAME: dict[str, Guide] = {g.name: g for g in GUIDES}
"""Every grader check (a test holds this to `GRADER_CHECKS`, in order)."""


def of_key(key: str) -> tuple[Guide, ...]:
    """The guides of one `expect` key, in result order."""
    return tuple(g for g in GUIDES if g.key == key)


def hint(path: tuple[str | int, ...]) -> str:
    """How to write what sits at `path` inside `expect` (a JSON path below it), for messages."""
    parts = [p for p in path if isinstance(p, str)]
    guides = of_key(parts[0]) if parts else ()
    if not guides:
        keys = ", ".join(dict.fromkeys(g.key for g in GUIDES))
        return f"expect takes {keys} (`corpus explain` lists every check)"
    chosen = [g for g in guides if g.sub is None or (len(parts) > 1 and g.sub == parts[1])]
    if len(chosen) == 1 or len(guides) == 1:
        guide = (chosen or list(guides))[0]
        return f"write it like `{guide.line()}` (`corpus explain {guide.name}`)"
    subs = ", ".join(str(g.sub) for g in guides)
    return f"{parts[0]} takes {subs}, e.g. `{guides[0].line()}` (`corpus explain {parts[0]}`)"
