"""Import httpx without its command-line extras.

``import httpx`` also imports its own command-line tool's libraries (click, rich and pygments) whenever they are
installed, which costs about 100 ms and several MB at every start (bench/startup.py); Parley never uses that
tool. The entry points (app/cli.py, app/gui.py) call ``import_httpx`` before anything imports httpx: click is
marked absent for that one import, so httpx skips its tool, and is restored at once, so anything that imports
click (or rich, pygments) later gets the real module.
"""

from __future__ import annotations

import sys

HIDDEN_FROM_HTTPX = ("click",)  # httpx/_main.py imports click first; without it, httpx leaves out its tool


def import_httpx() -> None:
    if "httpx" in sys.modules:
        return
    hidden = [name for name in HIDDEN_FROM_HTTPX if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        import httpx  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]
