"""The pytest plugin's one replay run (`Replays`) asked for its items out of order, as a rerun
or a `-k` selection asks: each case is replayed once, a case already replayed is answered from
what the run kept, and a verdict is never lost. The runs are counted from what each was asked
to replay (a stand-in for the replay pipeline that yields one verdict per id it is given)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

from corpus_tool.pytest_plugin import Replays


def _replays(order: list[str]) -> tuple[Replays, list[list[str]], list[str]]:
    started: list[list[str]] = []
    replayed: list[str] = []

    def start(ids: list[str], stop: Callable[[], bool]) -> Iterator[Any]:
        started.append(list(ids))
        in_flight = False
        for case_id in ids:
            if stop():
                if in_flight:
                    return
                in_flight = True  # the case being replayed when the run was stopped finishes
            replayed.append(case_id)
            yield SimpleNamespace(case=case_id)

    return Replays(order, start), started, replayed


def test_items_in_order_are_one_run() -> None:
    replays, started, _ = _replays(["a", "b", "c"])
    assert [replays.result(c).case for c in ("a", "b", "c")] == ["a", "b", "c"]
    assert started == [["a", "b", "c"]]


def test_an_item_asked_again_is_replayed_alone_and_the_kept_verdicts_are_not_run_twice() -> None:
    replays, started, replayed = _replays(["a", "b", "c", "d"])
    assert replays.result("a").case == "a"
    assert replays.result("b").case == "b"
    assert replays.result("a").case == "a"  # a rerun: the run in flight is stopped, kept
    assert [replays.result(c).case for c in ("c", "d")] == ["c", "d"]
    assert started == [["a", "b", "c", "d"], ["a", "d"]]  # c was in flight: kept, not rerun
    assert Counter(replayed) == Counter({"a": 2, "b": 1, "c": 1, "d": 1})
