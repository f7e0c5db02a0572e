"""Widgets take plain values and view models: no module under widgets/ imports app/ (the wiring imports the
widgets, never the reverse). Every import is read with ``ast``, including those inside functions."""

from __future__ import annotations

import ast
from pathlib import Path

WIDGETS = Path(__file__).resolve().parents[2] / "widgets"


def imported_modules(source: str) -> list[str]:
    names: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.append(node.module)
    return names


def app_imports(source: str) -> list[str]:
    return [name for name in imported_modules(source) if name == "app" or name.startswith("app.")]


def test_the_scan_sees_every_kind_of_import():
    source = "import app\nfrom app.settings import Settings\ndef later():\n    import app.storage as s\n" \
             "from application import x\nimport apparatus\n"
    assert app_imports(source) == ["app", "app.settings", "app.storage"]


def test_no_widget_imports_app():
    files = sorted(WIDGETS.rglob("*.py"))
    assert files, f"no widget modules found under {WIDGETS}"
    offenders = {str(f.relative_to(WIDGETS.parent)): app_imports(f.read_text(encoding="utf-8")) for f in files}
    assert {name: found for name, found in offenders.items() if found} == {}
