"""pydantic without its plugin discovery.

When the first model class is built, pydantic looks for plugins: it reads the entry points of every installed
package (importlib.metadata, 5 to 20 ms of each start on this machine's environment, bench/startup.py). Parley
uses no pydantic plugin, and a plugin installed beside it for another program (an observability hook, say)
has no business inspecting Parley's settings, events and keys. The CLI marks the discovery as done, with no
plugin, before any model is built. pydantic has no public switch for this but the ``PYDANTIC_DISABLE_PLUGINS``
environment variable, which would also reach the programs Parley starts (MCP servers, the engine), so the
loader's cache is set instead; if a pydantic version no longer has it, nothing is changed.
"""

from __future__ import annotations


def skip_plugin_discovery() -> None:
    from pydantic.plugin import _loader

    if getattr(_loader, "_plugins", None) is None and hasattr(_loader, "_plugins"):
        _loader._plugins = {}
