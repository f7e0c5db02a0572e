"""Import a library with optional modules it does not need for Parley hidden from it.

Some libraries import big optional packages when they are installed, only for features Parley never uses:
``import httpx`` loads its command-line tool's libraries (click, rich, pygments: about 100 ms and several MB).
httpx itself is imported where a client is first made (``providers/transport.py``), not when the adapters are
imported, so a window that sends nothing never loads it (issue 17); it goes through ``import_httpx`` there and at
the CLI's entry point. The optional modules are marked absent for that one import, so the library leaves its extra
out, and are restored at once, so anything that imports them later gets the real modules.
"""

from __future__ import annotations

import importlib
import sys

HIDDEN_FROM_HTTPX = ("click",)  # httpx/_main.py imports click first; without it, httpx leaves out its tool


def import_without(module: str, hidden_names: tuple[str, ...]) -> None:
    """Import ``module`` (once) while ``hidden_names`` look uninstalled to it."""
    if module in sys.modules:
        return
    hidden = [name for name in hidden_names if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        importlib.import_module(module)
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]


def import_httpx() -> None:
    import_without("httpx", HIDDEN_FROM_HTTPX)
