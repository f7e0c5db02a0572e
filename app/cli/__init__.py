"""The ``parley`` command line: argument parsing (``entry``), the subcommands (``*_command``) and how they talk
to a terminal (``cli_*``, ``terminal_text``). The window's wiring never imports from here: what both need lives
in app/runs/ or at app/'s root.

``main`` is the console script's entry point (pyproject: ``parley = "app.cli:main"``). It imports ``entry`` only
when called, so importing one subcommand module loads nothing else, and a ``parley`` script installed before
the regroup (app/cli.py, a module then) keeps working without a reinstall.
"""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    from app.cli.entry import main as run

    return run(argv)
