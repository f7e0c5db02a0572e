"""pydantic without its plugin discovery.

When the first model class is built, pydantic looks for plugins: it reads the entry points of every installed
package (importlib.metadata, 5 to 20 ms of each start on this machine's environment, bench/startup.py). Parley
uses no pydantic plugin, and a plugin installed beside it for another program (an observability hook, say)
has no business inspecting Parley's settings, events and keys. The CLI marks the discovery as done, with no
plugin, before any model is built. pydantic has no public switch for this but the ``PYDANTIC_DISABLE_PLUGINS``
environment variable, which would also reach the programs Parley starts (MCP servers, the engine), so the
loader's cache is set instead; if a pydantic version no longer has it, nothing is changed.

Importing the loader alone costs more than the scan: its first line imports ``importlib.metadata`` (about 20 ms
on this machine, with email, zipfile, csv and their kin; issue 17, bench/RESULTS.md). So the loader is imported
while ``importlib.metadata`` is a stand-in holding only ``entry_points``, a function that imports the real module
at its first call and hands over to it; the stand-in is removed from ``sys.modules`` right after, so anything
importing ``importlib.metadata`` later gets the real module. With the cache set, pydantic never calls it.
"""

from __future__ import annotations

import sys
import types
from typing import Any

_METADATA = "importlib.metadata"
_LOADER = "pydantic.plugin._loader"


def _entry_points(*args: Any, **params: Any) -> Any:
    """``importlib.metadata.entry_points``, imported at its first call."""
    from importlib.metadata import entry_points

    return entry_points(*args, **params)


def _import_loader() -> types.ModuleType:
    """pydantic's plugin loader, imported without importing ``importlib.metadata`` (unless it already is)."""
    if _LOADER in sys.modules or _METADATA in sys.modules:
        from pydantic.plugin import _loader

        return _loader
    stand_in = types.ModuleType(_METADATA, "importlib.metadata, imported at entry_points' first call")
    stand_in.entry_points = _entry_points  # type: ignore[attr-defined]
    sys.modules[_METADATA] = stand_in
    try:
        from pydantic.plugin import _loader
    finally:
        if sys.modules.get(_METADATA) is stand_in:
            del sys.modules[_METADATA]
        importlib_package = sys.modules.get("importlib")
        if getattr(importlib_package, "metadata", None) is stand_in:
            delattr(importlib_package, "metadata")
    return _loader


def skip_plugin_discovery() -> None:
    loader: Any = _import_loader()
    if getattr(loader, "_plugins", None) is None and hasattr(loader, "_plugins"):
        loader._plugins = {}
