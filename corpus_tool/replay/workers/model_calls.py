"""Live model calls in flight, in the grading process: one thread per worker, so that with
`-n N` one slow provider answer does not hold up the other workers' replies.

The pool's selector waits on `wake` as on a worker's pipe: each finished call writes a byte
there, and `done` hands back the answers ready, each under the key it was started with.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from corpus_tool.replay.workers.model_link import ModelReply

Key = tuple[int, int]
"""A worker's place in the pool and the run number the call is for."""


class ModelCalls:
    """Model calls running on threads, each under a key (a worker's slot and run)."""

    def __init__(self, threads: int) -> None:
        self._threads = max(1, threads)
        self._executor: ThreadPoolExecutor | None = None  # started at the first live call
        self._flight: dict[Key, Future[ModelReply]] = {}
        self.wake, self._signal = os.pipe()
        os.set_blocking(self.wake, False)
        os.set_blocking(self._signal, False)

    @property
    def busy(self) -> bool:
        """Whether a call is in flight."""
        return bool(self._flight)

    def start(self, key: Key, call: Callable[[], ModelReply]) -> None:
        """Run `call` on a thread; its answer comes back from `done` under `key`."""
        if self._executor is None:
            self._executor = ThreadPoolExecutor(self._threads, thread_name_prefix="corpus-live")
        future = self._executor.submit(call)
        self._flight[key] = future
        future.add_done_callback(lambda _: self._ring())

    def done(self) -> list[tuple[Key, ModelReply]]:
        """The calls finished since the last look (the wake pipe drained)."""
        with contextlib.suppress(BlockingIOError, OSError):
            while os.read(self.wake, 4096):
                pass
        ready = [(key, f) for key, f in self._flight.items() if f.done()]
        for key, _ in ready:
            del self._flight[key]
        return [(key, _reply(future)) for key, future in ready]

    def drop(self, key: Key) -> None:
        """Forget a call whose worker is gone (its answer, when it comes, is thrown away)."""
        self._flight.pop(key, None)

    def close(self) -> None:
        """Stop taking calls; a provider call still running is not waited for."""
        if self._executor is not None:
            self._executor.shutdown(wait=False, cancel_futures=True)
        self._flight.clear()
        for fd in (self.wake, self._signal):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _ring(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._signal, b".")


def _reply(future: Future[ModelReply]) -> ModelReply:
    try:
        return future.result()
    except Exception as err:  # a bug in the bookkeeping must not take the run down
        return ModelReply(None, error=f"the live model call failed: {type(err).__name__}: {err}")
