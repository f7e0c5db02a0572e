"""The ``parley`` command: argument parsing and dispatch to the subcommands.

Exit codes: 0 success, 1 a provider or run error, or a problem with the disk, the database, the settings
file or the keyring (with a one-line reason on stderr), 2 bad usage, 130 interrupted, 141 standard output closed
by its reader (``parley history list | head``; quietly, as for SIGPIPE).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from pathlib import Path

from app.cli.cli_common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageError
from app.cli.common_options import DATA_DIR_HELP, apply_json_before_action, data_dir_parent, offer_json_before_actions
from app.errors import EnvironmentProblem


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


def _call_timeout(text: str) -> float:
    from orchestration.limits import MAX_CALL_TIMEOUT

    value = _positive_float(text)
    if value > MAX_CALL_TIMEOUT:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_CALL_TIMEOUT:,} seconds, got {text}")
    return value


def _temperature(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0 <= value <= 2:
        raise argparse.ArgumentTypeError(f"expected 0 to 2, got {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, got {text}")
    return value


# The subcommands whose parsers live in their own modules. Those modules import the database, the settings or the
# keyring, so only the one a command line names is imported (start-up: docs/architecture.md, bench/startup.py).
_HISTORY = "app.cli.history_command"
MODULE_COMMANDS = {"keys": "app.cli.keys_command", "providers": "app.cli.providers_command",
                   "mcp": "app.cli.mcp_command", "history": _HISTORY, "search": _HISTORY, "export": _HISTORY,
                   "import": _HISTORY, "local": "app.cli.local_command", "usage": "app.cli.usage_command"}
INLINE_COMMANDS = ("chat", "models", "tools")
# Commands that open no connection unless configured to (``tools list`` starts MCP servers only when some are set
# up, and imports httpx leanly itself then), so httpx is not imported up front for them.
NO_HTTP_COMMANDS = ("tools",)
# Commands that may finish without pydantic: ``tools list`` reads plain settings when it can
# (app/cli/listing_settings.py) and skips pydantic's plugin search itself before it builds a model.
NO_MODEL_COMMANDS = ("tools",)


def _named_command(argv: Sequence[str]) -> str | None:
    """The subcommand an argument list names (the first word that is not an option or an option's value)."""
    words = iter(argv)
    for word in words:
        if word == "--data-dir":
            next(words, None)
        elif word == "--":
            return None
        elif not word.startswith("-"):
            return word
    return None


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The whole parser, or, given the argument list, one whose other subcommands are bare placeholders.

    A placeholder is never shown: ``--help`` (anywhere) and an unknown command get the whole parser, and a
    subcommand's own errors and help come from its own parser.
    """
    named = None if argv is None or "-h" in argv or "--help" in argv else _named_command(argv)
    whole = argv is None or "-h" in argv or "--help" in argv or (
        named is not None and named not in MODULE_COMMANDS and named not in INLINE_COMMANDS)

    parser = argparse.ArgumentParser(
        prog="parley", description="Parley: chat with LLMs from your own machine. With no command, the window "
                                    "opens; the commands below work in a terminal.")
    parser.add_argument("--version", action=_VersionAction)
    parser.add_argument("--data-dir", metavar="DIR", default=None, help=DATA_DIR_HELP)
    parents = [data_dir_parent()]  # --data-dir after every command and action too (app/cli/common_options.py)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    if whole or named == "chat":
        _add_chat_parser(sub, parents)
    else:
        sub.add_parser("chat")
    if whole or named == "models":
        _add_models_parser(sub, parents)
    else:
        sub.add_parser("models")
    tools = sub.add_parser("tools", parents=parents, help="list the tools the model can use")
    tools_sub = tools.add_subparsers(dest="tools_command", metavar="ACTION")
    tools_list = tools_sub.add_parser("list", parents=parents, help="list the registered tools")
    tools_list.add_argument("--json", action="store_true", help="print as JSON")

    added: set[str] = set()
    for command, module_name in MODULE_COMMANDS.items():
        if module_name in added:
            continue
        if whole or MODULE_COMMANDS.get(named or "") == module_name:
            module = importlib.import_module(module_name)
            (module.add_parsers if module_name == _HISTORY else module.add_parser)(sub, parents)
            added.add(module_name)
        else:
            sub.add_parser(command)
    offer_json_before_actions(parser)
    return parser


class _VersionAction(argparse.Action):
    """``--version``, with the installed version looked up only when asked for: importlib.metadata costs a
    noticeable share of every other start, the window's included (bench/startup.py)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: str = argparse.SUPPRESS, help: str = "show program's version number and exit") -> None:
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: object,
                 option_string: str | None = None) -> None:
        print(f"parley {_version()}")
        parser.exit()


def _version() -> str:
    from importlib import metadata

    try:
        return metadata.version("parley")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _add_chat_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                     parents: list[argparse.ArgumentParser]) -> None:
    from app.cli.provider_args import add_provider_arguments
    from orchestration.limits import MAX_CALL_TIMEOUT, LoopLimits
    from orchestration.reasoning_effort import REASONING_EFFORTS

    chat = sub.add_parser("chat", parents=parents, help="send one prompt and stream the answer (tools included); "
                                                        "saved unless --no-save",
                          description="Send a prompt (or standard input) and stream the answer. The conversation "
                                      "is saved in the history (see `parley history`) unless --no-save is given.")
    chat.add_argument("prompt", nargs="?", help="the message; read from standard input when absent (on a "
                                                "terminal: end it with Ctrl+D; the line breaks that end it are "
                                                "not sent)")
    chat.add_argument("--provider", metavar="NAME",
                      help="a provider from `parley providers list`, with its key from the keyring (default: the "
                           "default provider, unless --preset, --base-url or --kind is given)")
    chat.add_argument("-c", "--conversation", type=_positive_int, metavar="ID",
                      help="continue a saved conversation (its current branch) instead of starting a new one, with "
                           "its chat settings (provider, model, system prompt, tools, reasoning effort, temperature, "
                           "output limit) where no flag says otherwise")
    chat.add_argument("--regenerate", action="store_true",
                      help="with --conversation: answer its last user message again, as a new branch")
    chat.add_argument("--continue", dest="continue_answer", action="store_true",
                      help="with --conversation: go on with its last answer where it stopped (after Ctrl+C or an "
                           "error), in the same answer (the window's Continue)")
    chat.add_argument("--no-save", action="store_true", help="do not save this chat in the history")
    chat.add_argument("--attach", action="append", type=Path, default=[], metavar="FILE",
                      help="attach a file (repeatable): an image (PNG, JPEG, WebP, GIF; needs a model with vision), "
                           "a PDF, or a text, Markdown, code, CSV or JSON file")
    add_provider_arguments(chat, preset_alias=False)
    chat.add_argument("--model", help="model name as the provider knows it (default: the provider's default model)")
    chat.add_argument("--idle-timeout", type=_positive_float, metavar="SECONDS",
                      help="seconds without a byte before a stream is an error (default: 60, local servers 300)")
    chat.add_argument("--system", help="a system prompt (\"\" for none; default: the conversation's, else the "
                                       "settings' chat.system_prompt)")
    chat.add_argument("--tools", default=None, metavar="NAMES|all|none",
                      help="comma-separated tool names, all (default, or the conversation's) or none")
    chat.add_argument("--over-budget", action="store_true",
                      help="send even when this month's spend has reached usage.monthly_budget_usd")
    chat.add_argument("--approve", choices=["all", "none"], default=None,
                      help="tools that need approval (file tools, policy ask): run all or none of them without "
                           "asking; default: ask on a terminal, otherwise none")
    chat.add_argument("--tool-choice", default="auto", metavar="auto|none|required|NAME",
                      help="whether and which tool the model must call (default: auto)")
    defaults = LoopLimits()
    chat.add_argument("--max-iterations", type=_positive_int, default=None,
                      help=f"tool-using model calls before a final answer is forced (default: from the settings, "
                           f"{defaults.max_iterations} unless changed)")
    chat.add_argument("--call-timeout", type=_call_timeout, default=None, metavar="SECONDS",
                      help=f"seconds one model call may take in all, however slowly it streams (default: from the "
                           f"settings' limits.model_call_timeout, {defaults.model_call_timeout:g} unless changed; "
                           f"at most {MAX_CALL_TIMEOUT:,})")
    chat.add_argument("--reasoning-effort", choices=REASONING_EFFORTS,
                      help="ask for more or less reasoning, where the model supports it")
    chat.add_argument("--max-output-tokens", type=_positive_int, help="limit the answer length in tokens")
    chat.add_argument("--temperature", type=_temperature, metavar="T",
                      help="sampling temperature, from 0 (up to 1 or 2, as the wire format takes; refused where the "
                           "model takes none)")
    chat.add_argument("--no-stream", action="store_true", help="ask for the whole answer at once")
    chat.add_argument("--no-reasoning", action="store_true", help="do not print reasoning to stderr")
    chat.add_argument("--json", action="store_true", help="print every run event as one JSON line")


def _add_models_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
                       parents: list[argparse.ArgumentParser]) -> None:
    from app.cli.provider_args import add_provider_arguments

    models = sub.add_parser("models", parents=parents,
                            help="list a provider's models, or the local servers already running",
                            description="List the models a provider offers (--provider NAME, else "
                                        "--kind/--preset, --base-url, else the default provider), or with "
                                        "--local the model servers running on this machine.")
    models.add_argument("--provider", metavar="NAME", default=None,
                        help="a provider from `parley providers list`, with its key from the keyring (default: "
                             "the default provider, unless --preset, --base-url or --kind is given)")
    add_provider_arguments(models, preset_alias=False)
    models.add_argument("--local", action="store_true",
                        help="look for Ollama, LM Studio, llama.cpp and vLLM on this machine instead")
    models.add_argument("--json", action="store_true", help="print as JSON")


def _dispatch(args: argparse.Namespace) -> int | None:
    if args.command == "chat":
        from app.cli.chat_command import run_chat

        return run_chat(args)
    if args.command == "tools":
        from app.cli.tools_command import run_tools

        return run_tools(args)
    if args.command == "models":
        from app.cli.models_command import run_models

        return run_models(args)
    if args.command == "keys":
        from app.cli.keys_command import run_keys

        return run_keys(args)
    if args.command == "mcp":
        from app.cli.mcp_command import run_mcp

        return run_mcp(args)
    if args.command == "providers":
        from app.cli.providers_command import run_providers

        return run_providers(args)
    if args.command == "local":
        from app.cli.local_command import run_local

        return run_local(args)
    if args.command == "usage":
        from app.cli.usage_command import run_usage

        return run_usage(args)
    from app.cli import history_command

    commands = {"history": history_command.run_history, "search": history_command.run_search,
                "export": history_command.run_export, "import": history_command.run_import}
    command = commands.get(args.command)
    return None if command is None else command(args)


def _open_window(args: argparse.Namespace) -> int:
    """``parley`` with no subcommand opens the window; without a display it says how to get one."""
    import os

    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
                                                 or os.environ.get("QT_QPA_PLATFORM")):
        print("parley: no display found (DISPLAY and WAYLAND_DISPLAY are unset), so the window cannot open. Run it "
              "in a desktop session, under `xvfb-run -a parley`, or use the command line: `parley --help`.",
              file=sys.stderr)
        return EXIT_ERROR
    import gc

    # The window's imports (PySide6 builds thousands of enum members and types) set off dozens of cycle
    # collections before the first frame, each scanning more; what they make lives as long as the app. The
    # window's own collector (app/session/gui_thread_gc.py) takes collection over once the application exists.
    gc.disable()
    from app.session.pyside_import import drop_feature_import

    drop_feature_import()  # before the window's modules: PySide6 would read each one's source (pyside_import.py)
    from app.session.gui import main as gui_main

    return gui_main(getattr(args, "data_dir", None))


def main(argv: Sequence[str] | None = None) -> int:
    """Everything written to stdout and stderr goes through app/cli/terminal_text.py: model, tool, provider and
    stored text can hold terminal control sequences. Output cut by a closed pipe ends every command quietly with
    status 141 (app/cli/closed_output.py)."""
    from app.cli.terminal_text import safe_output

    try:
        with safe_output():
            status = _main(argv)
            _say_damaged_values()
            return status
    except BrokenPipeError:
        from app.cli.closed_output import quiet_exit, stdout_closed

        if not stdout_closed():
            raise
        return quiet_exit()


def _say_damaged_values() -> None:
    """Once per command, on stderr: how many damaged values were shown marked (app/storage/damaged_values.py)."""
    values = sys.modules.get("app.storage.damaged_values")  # not loaded: no history read, nothing to say
    line = values.notice() if values is not None else None
    if line is not None:
        print(f"parley: note: {line}", file=sys.stderr)


def _main(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    server_command = None
    named = _named_command(argv)
    if named is not None and named not in NO_MODEL_COMMANDS:
        # a command: its settings are pydantic models, built without a plugin search
        from app.pydantic_plugins import skip_plugin_discovery

        skip_plugin_discovery()
    if named is not None and named not in NO_HTTP_COMMANDS:
        # a command: httpx may be imported, without its own CLI's libraries
        from app.lean_imports import import_httpx

        import_httpx()
    if "mcp" in argv:
        from app.cli.mcp_command import split_server_command

        argv, server_command = split_server_command(argv)
    parser = build_parser(argv)
    try:
        args = parser.parse_args(argv)
        if server_command is not None:
            args.server_command = server_command
        apply_json_before_action(args)
    except UsageError as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except SystemExit as exc:  # argparse exits 2 on bad usage and 0 for --help
        return int(exc.code or 0)
    if args.command is None:  # the window: no command's module is imported before its first frame
        return _open_window(args)
    try:
        code = _dispatch(args)
    except EnvironmentProblem as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:
        if not (isinstance(exc, UsageError) or _not_found(exc)):
            raise
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if code is not None:
        return code
    parser.print_help()
    return EXIT_OK


def _not_found(exc: Exception) -> bool:
    """A history lookup of a missing id. Checked without importing the database layer: when it was never
    imported, nothing can have raised its error."""
    history = sys.modules.get("app.storage.history")
    return history is not None and isinstance(exc, history.NotFoundError)


if __name__ == "__main__":
    sys.exit(main())
