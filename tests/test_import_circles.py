"""No import circles among Parley's own modules (app/, widgets/, orchestration/ and tools/).

Two modules that import each other cannot be read, tested or moved apart, and their import order decides whether
a name exists yet. The graph is read with ``ast`` from the imports run when a module is imported: those at module
level and in class bodies, including those under ``if TYPE_CHECKING:``, which are marked as typing-only. Imports
inside functions are left out: they run later, and those on the start path are there on purpose (issue 17,
tests/app/test_start_path_imports.py). A circle is refused when at least one of its imports runs; a circle made
only of typing-only imports is allowed, since nothing of it runs. What the scan does not see: the package an
import loads on the way (``import app.x`` runs app/__init__.py first) and names loaded with ``importlib``.

One module's imports as read here: ``python -c "from tests.test_import_circles import REPO, import_graph;
print(import_graph(REPO)['app.session.chat_session'])"``.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("app", "widgets", "orchestration", "tools")

Graph = dict[str, dict[str, bool]]  # module -> {imported module: typing-only}


def module_files(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Each module's dotted name and file (a package is named by its __init__.py)."""
    found: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _named(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    """The dotted names an import statement asks for (``from a import b`` asks for ``a.b``, a module or a name)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    base = node.module or ""
    if node.level:
        parts = package.split(".")
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join([*parts, base] if base else parts)
    return [f"{base}.{alias.name}" for alias in node.names]


def _resolve(name: str, known: dict[str, Path]) -> str | None:
    """The module of ours ``name`` is, or is defined in (its longest dotted prefix that is one of ours)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def module_imports(name: str, source: str, known: dict[str, Path]) -> dict[str, bool]:
    """The modules of ours that importing ``name`` imports, each with whether it is only under TYPE_CHECKING."""
    is_package = known[name].name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found: dict[str, bool] = {}

    def visit(body: list[ast.stmt], typing_only: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                for asked in _named(node, package):
                    target = _resolve(asked, known)
                    if target is not None and target != name:
                        found[target] = found.get(target, True) and typing_only
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue  # runs when called, not when the module is imported
            elif isinstance(node, ast.If) and _is_type_checking(node.test):
                visit(node.body, True)
                visit(node.orelse, typing_only)
            else:  # class bodies, other ifs, try/except/else/finally, with: run at import
                for field in ("body", "orelse", "finalbody"):
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        visit(inner, typing_only)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body, typing_only)

    visit(ast.parse(source).body, False)
    return found


def import_graph(root: Path, packages: tuple[str, ...] = PACKAGES) -> Graph:
    known = module_files(root, packages)
    return {name: module_imports(name, path.read_text(encoding="utf-8"), known) for name, path in known.items()}


def _strongly_connected(graph: Graph) -> list[list[str]]:
    """Tarjan's algorithm, iterative: the groups of modules that reach each other, two or more."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, targets = work[-1]
            for target in targets:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph.get(target, {})))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))
    return groups


def circles(graph: Graph) -> list[list[str]]:
    """Every circle in which at least one import runs: each as its modules' imports of one another, one line per
    import, ``a -> b`` or ``a -> b (TYPE_CHECKING)``."""
    found = []
    for group in _strongly_connected(graph):
        members = set(group)
        inside = [(a, b, graph[a][b]) for a in group for b in sorted(graph[a]) if b in members]
        if any(not typing_only for _a, _b, typing_only in inside):
            found.append([f"{a} -> {b}" + (" (TYPE_CHECKING)" if typing_only else "") for a, b, typing_only in inside])
    return found


# --- the scan itself, on small trees written for it -------------------------------------------------------------
def _tree(tmp_path: Path, files: dict[str, str]) -> Graph:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return import_graph(tmp_path, ("pkg",))


def test_a_circle_of_module_level_imports_is_found(tmp_path):
    graph = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import B\n",
                             "pkg/b.py": "import pkg.c\n", "pkg/c.py": "from pkg import a\n"})
    assert circles(graph) == [["pkg.a -> pkg.b", "pkg.b -> pkg.c", "pkg.c -> pkg.a"]]


def test_a_circle_closed_under_type_checking_is_still_a_circle(tmp_path):
    graph = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from pkg.b import B\n",
                             "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                         "    from pkg.a import A\n"})
    assert circles(graph) == [["pkg.a -> pkg.b", "pkg.b -> pkg.a (TYPE_CHECKING)"]]


def test_typing_only_circles_and_imports_inside_functions_are_allowed(tmp_path):
    graph = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "import typing\nif typing.TYPE_CHECKING:\n"
                                                                "    from pkg.b import B\n",
                             "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                                         "    from pkg.a import A\n",
                             "pkg/c.py": "from pkg.d import D\n",
                             "pkg/d.py": "def later():\n    from pkg.c import C\n"
                                         "async def later_too():\n    import pkg.c\n"})
    assert graph["pkg.a"] == {"pkg.b": True} and graph["pkg.d"] == {}
    assert circles(graph) == []


def test_relative_imports_class_bodies_and_try_blocks_are_read(tmp_path):
    graph = _tree(tmp_path, {"pkg/__init__.py": "from .sub import x\n", "pkg/sub/__init__.py": "",
                             "pkg/sub/x.py": "from .. import y\n",
                             "pkg/y.py": "try:\n    from .sub.x import X\nexcept ImportError:\n    pass\n"
                                         "class C:\n    from pkg import z\n",
                             "pkg/z.py": "from . import other_name\n"})
    assert graph["pkg"] == {"pkg.sub.x": False}
    assert graph["pkg.sub.x"] == {"pkg.y": False}
    assert graph["pkg.y"] == {"pkg.sub.x": False, "pkg.z": False}
    assert graph["pkg.z"] == {"pkg": False}  # a name of the package: its __init__.py
    assert circles(graph) == [["pkg -> pkg.sub.x", "pkg.sub.x -> pkg.y", "pkg.y -> pkg.sub.x", "pkg.y -> pkg.z",
                               "pkg.z -> pkg"]]


def test_an_import_that_runs_anywhere_makes_the_edge_run(tmp_path):
    graph = _tree(tmp_path, {"pkg/__init__.py": "", "pkg/b.py": "",
                             "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.b\n"
                                         "from pkg.b import B\n"})
    assert graph["pkg.a"] == {"pkg.b": False}


# --- Parley --------------------------------------------------------------------------------------------------
def test_parley_has_no_import_circles():
    graph = import_graph(REPO)
    assert len(graph) > 200, "the scan found too few modules to be reading the repository"
    found = circles(graph)
    assert found == [], "import circles (break each by moving what both sides need to a module both import):\n" + \
        "\n\n".join("\n".join(circle) for circle in found)
