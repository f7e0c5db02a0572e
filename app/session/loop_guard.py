"""A loud failure for a coroutine scheduled in the window before its asyncio loop has started.

The window's loop starts at the first ``qt_asyncio.ensure_running()`` (app/session/qt_asyncio.py). Code that
schedules a coroutine from a Qt slot without calling it first would, on Python 3.11, reach asyncio's "no current
loop" path, which quietly makes a new loop that nothing ever runs: the coroutine never starts and the window
waits for it forever. While the window's loop is noted but not started, that path raises ``LoopNotStartedError``
naming ``ensure_running`` instead (an event loop policy whose ``get_event_loop`` refuses on the main thread).

asyncio is not imported for this: an idle window never imports it (issue 17, ~3 MB with ssl and sockets). If it is
not imported yet, a meta path finder waits for its import and sets the policy as soon as the package has loaded,
before any caller can use it. ``uninstall`` puts the previous policy back.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType
from typing import Any

MESSAGE = ("the window's asyncio loop has not started: call app.session.qt_asyncio.ensure_running() before "
           "scheduling a coroutine from a Qt slot (without it the coroutine would wait on a loop that never runs)")


class LoopNotStartedError(RuntimeError):
    """A coroutine was scheduled in the window before ``qt_asyncio.ensure_running()``: a bug in the caller."""


_previous: list[Any] = []  # the policy ours replaced, while ours is set
_finders: list[_InstallOnImport] = []  # waiting in sys.meta_path for asyncio's first import


def install(waiting: Callable[[], bool]) -> None:
    """Refuse asyncio's implicit loop on the main thread while ``waiting()`` is true (the loop noted, not started)."""
    uninstall()
    asyncio = sys.modules.get("asyncio")
    if asyncio is not None and hasattr(asyncio, "DefaultEventLoopPolicy"):
        _set_policy(asyncio, waiting)
        return
    finder = _InstallOnImport(waiting)
    _finders.append(finder)
    sys.meta_path.insert(0, finder)


def uninstall() -> None:
    """Stop waiting for asyncio's import and put back the policy ours replaced."""
    for finder in _finders:
        if finder in sys.meta_path:
            sys.meta_path.remove(finder)
    _finders.clear()
    if _previous:
        import asyncio

        asyncio.set_event_loop_policy(_previous.pop())


def _set_policy(asyncio: ModuleType, waiting: Callable[[], bool]) -> None:
    class RefuseUntilStarted(asyncio.DefaultEventLoopPolicy):  # type: ignore[name-defined,misc]
        """asyncio's default policy, except no implicit loop in the window before its loop has started."""

        def get_event_loop(self) -> Any:
            if waiting() and threading.current_thread() is threading.main_thread():
                raise LoopNotStartedError(MESSAGE)
            return super().get_event_loop()

    _previous.append(asyncio.get_event_loop_policy())
    asyncio.set_event_loop_policy(RefuseUntilStarted())


class _InstallOnImport:
    """A meta path finder for ``asyncio`` alone: the package loads as usual, then the policy is set."""

    def __init__(self, waiting: Callable[[], bool]) -> None:
        self.waiting = waiting

    def find_spec(self, name: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if name != "asyncio":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)  # once: asyncio is imported only once
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        load = spec.loader.exec_module
        waiting = self.waiting

        def exec_module(module: ModuleType) -> None:
            load(module)
            _set_policy(module, waiting)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec
