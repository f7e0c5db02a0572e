"""Rewrite old ``app.*`` module paths to the grouped layout (issue 18 item 6: app/cli, app/session, app/runs).

For branches started before the regroup: after ``git merge main``, run ``python scripts/regroup_app_imports.py``
from the repository root. It rewrites dotted names (imports, monkeypatch strings, ``-m`` arguments) and file
paths (docs, comments) in every tracked text file, and moves test files still at their old tests/app/ place.
Then ``ruff check --fix .`` sorts the rewritten imports. New modules and tests it does not know stay where they
are: move them into the matching group by hand. ``from app.cli import main`` is still the entry point and is
left alone. A one-off; delete it once no branch needs it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

GROUPS = {
    "cli": ["chat_command", "history_command", "keys_command", "local_command", "local_download_command",
            "mcp_command", "models_command", "providers_command", "tools_command", "cli_approval", "cli_common",
            "cli_context", "cli_input", "cli_interrupt", "cli_output", "provider_args", "terminal_text",
            "chat_target"],
    "session": ["gui", "chat_session", "chat_actions", "chat_settings_binding", "conversation_views",
                "conversation_files", "live_runs", "window_approver", "window_attachments", "gui_thread_gc",
                "startup_trace", "history_view", "run_controller"],
    "runs": ["run_service", "chat_recording", "conversation_chat", "provider_check", "provider_setup",
             "tool_setup", "attachment_check"],
}
TESTS = {
    "cli": ["test_chat_target", "test_cli_approval", "test_cli_input", "test_history_command", "test_keys_command",
            "test_provider_args", "test_providers_command", "test_terminal_text", "test_tools_command"],
    "session": ["test_chat_actions", "test_chat_session_attachments", "test_chat_session_chat_settings",
                "test_chat_session_files", "test_chat_session_local_models", "test_chat_session_preferences",
                "test_chat_session_quit", "test_chat_session_search", "test_chat_session_send_problems",
                "test_chat_session_stall", "test_chat_session_warnings", "test_first_run", "test_gui_thread_gc",
                "test_history_view", "test_run_controller", "test_window_approver", "test_window_attachments"],
    "runs": ["test_chat_controls_wire", "test_conversation_chat", "test_run_placement", "test_run_service",
             "test_run_service_attachments"],
}
TEXT_SUFFIXES = {".py", ".md", ".toml", ".sh", ".cfg", ".ini", ".txt", ".yml", ".yaml"}


def mappings() -> tuple[dict[str, str], dict[str, str]]:
    modules = {}
    paths = {"app/cli.py": "app/cli/entry.py"}
    for group, names in GROUPS.items():
        for name in names:
            modules[f"app.{name}"] = f"app.{group}.{name}"
            paths[f"app/{name}.py"] = f"app/{group}/{name}.py"
    for group, names in TESTS.items():
        for name in names:
            modules[f"tests.app.{name}"] = f"tests.app.{group}.{name}"
            paths[f"tests/app/{name}.py"] = f"tests/app/{group}/{name}.py"
    # the old module app.cli's own names: build_parser and friends live in app.cli.entry now
    modules["app.cli.build_parser"] = "app.cli.entry.build_parser"
    return modules, paths


def rewrite(text: str, modules: dict[str, str], paths: dict[str, str]) -> str:
    dotted = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, sorted(modules, key=len, reverse=True)))
                        + r")(?!\w)")
    slashed = re.compile(r"(?<![\w./])(" + "|".join(map(re.escape, sorted(paths, key=len, reverse=True)))
                         + r")(?!\w)")
    text = dotted.sub(lambda m: modules[m.group(1)], text)
    text = text.replace("from app.cli import build_parser", "from app.cli.entry import build_parser")
    return slashed.sub(lambda m: paths[m.group(1)], text)


def main() -> None:
    modules, paths = mappings()
    root = Path.cwd()
    for old, new in paths.items():
        if old.startswith("tests/") and (root / old).exists() and not (root / new).exists():
            subprocess.run(["git", "mv", old, new], check=True)
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split()
    for rel in tracked:
        path = root / rel
        if rel in {"scripts/regroup_app_imports.py", "app/cli/__init__.py"} or not path.is_file():
            continue
        if path.suffix not in TEXT_SUFFIXES and path.name != "Makefile":
            continue
        text = path.read_text(encoding="utf-8")
        new = rewrite(text, modules, paths)
        if new != text:
            path.write_text(new, encoding="utf-8")
            print("rewritten:", rel)


if __name__ == "__main__":
    main()
