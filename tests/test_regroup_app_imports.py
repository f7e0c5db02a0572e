"""scripts/regroup_app_imports.py: old app.* paths become the grouped ones, and nothing else changes."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "regroup_app_imports.py"


def _script():
    spec = importlib.util.spec_from_file_location("regroup_app_imports", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rewrite(text: str) -> str:
    script = _script()
    return script.rewrite(text, *script.mappings())


def test_imports_monkeypatch_strings_and_paths_move_to_their_group():
    old = ('from app.chat_session import ChatSession\nimport app.run_service\n'
           'monkeypatch.setattr("app.tool_setup.MCP_CONNECT_TIMEOUT_S", 1)\n'
           'from app.cli import build_parser\nfrom tests.app.test_chat_session_preferences import open_window\n'
           'see app/cli_common.py and app/cli.py\n')
    assert _rewrite(old) == (
        'from app.session.chat_session import ChatSession\nimport app.runs.run_service\n'
        'monkeypatch.setattr("app.runs.tool_setup.MCP_CONNECT_TIMEOUT_S", 1)\n'
        'from app.cli.entry import build_parser\nfrom tests.app.session.test_chat_session_preferences import '
        'open_window\nsee app/cli/cli_common.py and app/cli/entry.py\n')


def test_names_already_moved_or_never_moved_are_left_alone():
    text = ('from app.cli import main\nfrom app.cli.cli_common import EXIT_OK\nfrom app.storage import History\n'
            'from app.session.gui import build_window\nmyapp.gui_thing\nwidgets/app/gui.py\n')
    assert _rewrite(text) == text
