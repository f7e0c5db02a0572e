"""Names a package exports but loads on first use (PEP 562): ``tools`` and ``tools.files`` keep their heavy
modules (tools with their libraries, regex engines, argument models) off the start path this way, and share
this one loader instead of each writing its own module ``__getattr__``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str], namespace: dict[str, Any]) -> Callable[[str], Any]:
    """The module ``__getattr__`` for ``package``: a name in ``homes`` is imported from its home module on first
    use and kept in ``namespace`` (the package's globals), so later uses are plain lookups; any other name is an
    ``AttributeError`` as usual."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__
