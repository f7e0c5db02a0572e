"""Python's own import statement back in the window's process, without PySide6's ``__feature__`` layer.

Importing PySide6 replaces ``builtins.__import__`` with its ``__feature_import__``, which serves PySide6's opt-in
``from __feature__ import snake_case, true_property``. After every module imported from then on it reads that
module's whole source file (``inspect.getsource``) to see whether the text "PySide6" occurs in it, and keeps the
lines in ``linecache``. Parley imports about 100 modules before its first frame and 260 more between that frame
and "ready" (issue 17), so the window paid 40 to 60 ms of source reading between the two and held about 5 million
characters of source in memory (bench/RESULTS.md, branch ready3's start-up section: with it gone, the idle
window holds about 12 MB less).

Parley never selects a ``__feature__``; a module missing from PySide6's feature table is treated as one that
selects none, the same as one found to use PySide6. So the window puts back the import PySide6 saved as
``builtins.__orig_import__`` (PySide6's lazy type loading, which stays) once PySide6 is loaded. With another
PySide6 layout (the names gone), nothing is changed.
"""

from __future__ import annotations

import builtins

FEATURE_IMPORT = "__feature_import__"  # the names PySide6 (6.5 to 6.11) gives its layers in ``builtins``
SAVED_IMPORT = "__orig_import__"


def drop_feature_import() -> bool:
    """Import PySide6 (which installs its import layer) and take the ``__feature__`` layer out again; True when
    it was taken out by this call."""
    import PySide6.QtCore  # noqa: F401  (the layer is installed with PySide6's first module)

    feature = getattr(builtins, FEATURE_IMPORT, None)
    saved = getattr(builtins, SAVED_IMPORT, None)
    if feature is None or saved is None or builtins.__import__ is not feature:
        return False
    builtins.__import__ = saved
    return True
