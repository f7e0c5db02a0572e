"""The tools Parley ships with: small, local, side-effect-free helpers every model can be offered.

Each lives in its own module (``time``, ``calculator``) with a factory returning a fresh ``Tool``;
``builtin_tools()`` gathers them so ``tools.default_registry()`` and tests build from one list.
"""

from __future__ import annotations

from tools.builtin.calculator import calculator_tool
from tools.builtin.time import current_time_tool
from tools.registry import Tool

__all__ = ["builtin_tools", "calculator_tool", "current_time_tool"]


def builtin_tools() -> list[Tool]:
    """New instances of every built-in tool, in the order they are offered."""
    return [current_time_tool(), calculator_tool()]
