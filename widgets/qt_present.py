"""Qt getters that the bindings type as Optional, read where Parley knows the object exists.

PySide6 types ``QWidget.layout()``, ``QTreeWidgetItem.child(i)``, ``QTreeWidget.topLevelItem(i)`` and the like as
``X | None`` because Qt returns null for a missing one. Where the caller has just counted the children or built
the layout itself, ``present`` says so once and fails with a clear message instead of an AttributeError on None.
"""

from __future__ import annotations

from typing import TypeVar

T = TypeVar("T")


def present(value: T | None, what: str) -> T:
    """``value``, which the caller knows Qt returns; LookupError naming ``what`` if it is None after all."""
    if value is None:
        raise LookupError(f"{what} is missing")
    return value
