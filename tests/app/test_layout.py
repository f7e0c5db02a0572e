"""The app/ groups keep their direction (docs/architecture.md): the window's wiring (app/session/) and what both
front ends share (app/runs/, app/usage/) never import the command line (app/cli/); what both share imports neither
front end nor Qt, so the CLI can use it without loading Qt. Every import is read with ``ast``, including those
inside functions. (tests/test_import_circles.py keeps the modules from importing each other.)"""

from __future__ import annotations

from pathlib import Path

from tests.widgets.test_layering import imported_modules

APP = Path(__file__).resolve().parents[2] / "app"


def _offenders(group: str, forbidden: tuple[str, ...]) -> dict[str, list[str]]:
    files = sorted((APP / group).rglob("*.py"))
    assert files, f"no modules found under app/{group}"
    found = {str(f.relative_to(APP.parent)): [name for name in imported_modules(f.read_text(encoding="utf-8"))
                                              if any(name == top or name.startswith(f"{top}.") for top in forbidden)]
             for f in files}
    return {name: names for name, names in found.items() if names}


def test_the_window_wiring_does_not_import_the_command_line():
    assert _offenders("session", ("app.cli",)) == {}


def test_what_both_front_ends_share_imports_neither_front_end_nor_qt():
    assert _offenders("runs", ("app.cli", "app.session", "PySide6", "qasync", "widgets")) == {}


def test_usage_keeps_only_what_both_front_ends_share():
    """``parley usage`` and the budget question are app/cli's, the spend in the window app/session's."""
    assert _offenders("usage", ("app.cli", "app.session", "PySide6", "qasync")) == {}
