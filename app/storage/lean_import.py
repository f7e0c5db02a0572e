"""Import sqlite-utils without numpy and pandas.

sqlite-utils imports numpy and pandas, when they are installed, only to map their number types to column types
on insert. Parley never inserts their values, yet importing numpy costs about 100-200 ms and 10-15 MB at every
start (bench/startup.py), and another package may have installed it. So sqlite-utils is imported first with
those two marked as absent; anything that imports them later still gets the real modules.
"""

from __future__ import annotations

import sys

SKIPPED = ("numpy", "pandas")


def import_sqlite_utils() -> None:
    if "sqlite_utils" in sys.modules:
        return
    hidden = [name for name in SKIPPED if name not in sys.modules]
    for name in hidden:
        sys.modules[name] = None  # type: ignore[assignment]  # makes `import name` raise ImportError
    try:
        import sqlite_utils  # noqa: F401
    finally:
        for name in hidden:
            if sys.modules.get(name) is None:
                del sys.modules[name]
