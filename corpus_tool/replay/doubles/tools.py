"""`replay.tools`: the agent's own Python tool functions, answered from the recording.

Each `module:function` corpus.yaml names is patched once, in the worker, after the agent is
imported. The function object itself is changed (its code replaced by a trampoline), so every
reference the agent holds — `from pkg.tools import lookup`, a list of tools built at import
time, a framework's tool wrapper — reaches the patch. While a case replays, a call becomes
`rt.tool(function name, arguments by parameter name)` on the case's Runtime: the recorded result
is returned, a recorded error raises `corpus_tool.ToolError`, a divergence stops the run as
through the Runtime. Outside a case the function runs its own code. A function with a closure
(one made by a decorator) cannot take new code: the module attribute and the agent modules'
references to it are replaced instead (docs/limits.md).
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import sys
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from corpus_tool.errors import InputError
from corpus_tool.replay.runtime import Runtime

DISPATCH = "__corpus_tool_replay_tools__"
"""The global, put in the tool's module, through which its trampoline reaches the patch."""


@dataclass
class ActiveCase:
    """The case being replayed, if any: its Runtime and the lock its doubles share."""

    runtime: Runtime | None = None
    lock: threading.Lock | None = None


ACTIVE = ActiveCase()


@contextlib.contextmanager
def active(rt: Runtime, lock: threading.Lock) -> Iterator[None]:
    """Patched tools answer from `rt` inside the block."""
    ACTIVE.runtime, ACTIVE.lock = rt, lock
    try:
        yield
    finally:
        ACTIVE.runtime, ACTIVE.lock = None, None


@dataclass(frozen=True)
class PatchedTool:
    """One patched function: the name a call records, and where it came from."""

    spec: str
    name: str


def patch_tools(specs: Sequence[str], config_path: Any = None) -> tuple[PatchedTool, ...]:
    """Patch each `module:function`; an unknown module or attribute is a one-line error."""
    return tuple(_patch(spec, config_path) for spec in specs)


def replayed_tool(function: Callable[..., Any]) -> Callable[..., Any]:
    """The decorator form: `@replayed_tool` on a tool function patches it as `replay.tools`
    does (the recorded tool name is the function's name)."""
    _install(function, f"{function.__module__}:{function.__qualname__}")
    return function


def _patch(spec: str, config_path: Any) -> PatchedTool:
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as err:
        raise InputError(
            f"replay.tools: cannot import {module_name} ({type(err).__name__}: {err})",
            config_path,
        ) from None
    function = getattr(module, attr, None)
    if not callable(function):
        raise InputError(f"replay.tools: {module_name} has no function {attr!r}", config_path)
    name = getattr(function, "__name__", attr)
    replacement = _install(function, spec)
    if replacement is not function:  # no new code possible: rebind the references instead
        _rebind(function, replacement)
    return PatchedTool(spec, name)


def _install(function: Callable[..., Any], spec: str) -> Callable[..., Any]:
    """Make calls of `function` answer from the active case; returns what now stands for it
    (the function itself when its code could be replaced, else a wrapper)."""
    name = getattr(function, "__name__", spec)
    signature = inspect.signature(function)
    is_async = inspect.iscoroutinefunction(function)
    if isinstance(function, types.FunctionType) and function.__closure__ is None:
        original = _copy(function)
        function.__globals__[DISPATCH] = {
            **function.__globals__.get(DISPATCH, {}),
            spec: _dispatcher(original, name, signature, is_async),
        }
        function.__code__ = _trampoline(function, spec, is_async)
        function.__defaults__ = function.__kwdefaults__ = None  # the original copy keeps them
        function.__signature__ = signature  # type: ignore[attr-defined]  # what inspect shows
        return function
    return functools.wraps(function)(_dispatcher(function, name, signature, is_async))


def _copy(function: types.FunctionType) -> types.FunctionType:
    copy = types.FunctionType(
        function.__code__,
        function.__globals__,
        function.__name__,
        function.__defaults__,
        function.__closure__,
    )
    copy.__kwdefaults__ = function.__kwdefaults__
    return copy


def _trampoline(function: types.FunctionType, spec: str, is_async: bool) -> types.CodeType:
    head = "async def" if is_async else "def"
    call = f"{DISPATCH}[{spec!r}](*args, **kwargs)"
    body = f"return await {call}" if is_async else f"return {call}"
    source = f"{head} {function.__name__}(*args, **kwargs):\n    {body}\n"
    space: dict[str, Any] = {}
    exec(compile(source, function.__code__.co_filename, "exec"), space)
    code: types.CodeType = space[function.__name__].__code__
    return code.replace(co_firstlineno=function.__code__.co_firstlineno)


def _dispatcher(
    original: Callable[..., Any], name: str, signature: inspect.Signature, is_async: bool
) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        rt, lock = ACTIVE.runtime, ACTIVE.lock
        if rt is None or lock is None:
            return original(*args, **kwargs)
        arguments = _arguments(signature, args, kwargs)
        with lock:
            return rt.tool(name, arguments)

    async def acall(*args: Any, **kwargs: Any) -> Any:
        if ACTIVE.runtime is None:
            return await original(*args, **kwargs)
        return call(*args, **kwargs)

    return acall if is_async else call


def _arguments(
    signature: inspect.Signature, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The call's arguments by parameter name (`**kwargs` spread, defaults left out), as a
    model's tool call names them."""
    bound = signature.bind(*args, **kwargs)
    out: dict[str, Any] = {}
    for key, value in bound.arguments.items():
        kind = signature.parameters[key].kind
        if kind is inspect.Parameter.VAR_KEYWORD:
            out.update(value)
        elif kind is inspect.Parameter.VAR_POSITIONAL:
            out[key] = list(value)
        else:
            out[key] = value
    return out


def _rebind(function: Any, replacement: Any) -> None:
    """Replace references to `function` in module globals (the `from x import f` copies)."""
    for module in list(sys.modules.values()):
        space = getattr(module, "__dict__", None)
        if not isinstance(space, dict):
            continue
        for key, value in list(space.items()):
            if value is function:
                space[key] = replacement
