"""The ``parley`` command: argument parsing and dispatch to the subcommands.

Exit codes: 0 success, 1 a provider or run error, or a problem with the disk, the database, the settings
file or the keyring (with a one-line reason on stderr), 2 bad usage, 130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from app.cli_common import EXIT_ERROR, EXIT_OK, EXIT_USAGE, UsageError
from app.errors import EnvironmentProblem
from app.provider_args import add_provider_arguments
from orchestration.limits import MAX_CALL_TIMEOUT, LoopLimits


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
    return value


DATA_DIR_HELP = ("keep the history and settings under DIR (DIR/data, DIR/config) instead of the platform's "
                 "folders; PARLEY_HOME does the same")


def _call_timeout(text: str) -> float:
    value = _positive_float(text)
    if value > MAX_CALL_TIMEOUT:
        raise argparse.ArgumentTypeError(f"expected at most {MAX_CALL_TIMEOUT:,} seconds, got {text}")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected more than 0 seconds, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    from app import history_command, keys_command, mcp_command, providers_command
    from app.usage import command as usage_command

    parser = argparse.ArgumentParser(
        prog="parley", description="Parley: chat with LLMs from your own machine. With no command, the window "
                                    "opens; the commands below work in a terminal.")
    parser.add_argument("--data-dir", metavar="DIR", default=None, help=DATA_DIR_HELP)
    # --data-dir is accepted after the subcommand too; SUPPRESS keeps the value given before it.
    data_dir = argparse.ArgumentParser(add_help=False)
    data_dir.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS, help=DATA_DIR_HELP)
    parents = [data_dir]
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    chat = sub.add_parser("chat", parents=parents, help="send one prompt and stream the answer (tools included); "
                                                        "saved unless --no-save",
                          description="Send a prompt (or standard input) and stream the answer. The conversation "
                                      "is saved in the history (see `parley history`) unless --no-save is given.")
    chat.add_argument("prompt", nargs="?", help="the message; read from standard input when absent")
    chat.add_argument("--provider", metavar="NAME",
                      help="a provider from `parley providers list`, with its key from the keyring (default: the "
                           "default provider, unless --preset, --base-url or --kind is given)")
    chat.add_argument("--conversation", type=_positive_int, metavar="ID",
                      help="continue a saved conversation (its current branch) instead of starting a new one")
    chat.add_argument("--regenerate", action="store_true",
                      help="with --conversation: answer its last user message again, as a new branch")
    chat.add_argument("--no-save", action="store_true", help="do not save this chat in the history")
    add_provider_arguments(chat, preset_alias=False)
    chat.add_argument("--model", help="model name as the provider knows it (default: the provider's default model)")
    chat.add_argument("--idle-timeout", type=_positive_float, metavar="SECONDS",
                      help="seconds without a byte before a stream is an error (default: 60, local servers 300)")
    chat.add_argument("--system", help="a system prompt")
    chat.add_argument("--tools", default="all", metavar="NAMES|all|none",
                      help="comma-separated tool names, all (default) or none")
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
    chat.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"],
                      help="ask for more or less reasoning, where the model supports it")
    chat.add_argument("--max-output-tokens", type=_positive_int, help="limit the answer length in tokens")
    chat.add_argument("--no-stream", action="store_true", help="ask for the whole answer at once")
    chat.add_argument("--no-reasoning", action="store_true", help="do not print reasoning to stderr")
    chat.add_argument("--json", action="store_true", help="print every run event as one JSON line")

    models = sub.add_parser("models", parents=parents,
                            help="list a provider's models, or the local servers already running",
                            description="List the models a provider offers (--kind/--preset, --base-url), or "
                                        "with --local the model servers running on this machine.")
    add_provider_arguments(models)
    models.add_argument("--local", action="store_true",
                        help="look for Ollama, LM Studio, llama.cpp and vLLM on this machine instead")
    models.add_argument("--json", action="store_true", help="print as JSON")

    tools = sub.add_parser("tools", parents=parents, help="list the tools the model can use")
    tools_sub = tools.add_subparsers(dest="tools_command", metavar="ACTION")
    tools_list = tools_sub.add_parser("list", help="list the registered tools")
    tools_list.add_argument("--json", action="store_true", help="print as JSON")

    keys_command.add_parser(sub, parents)
    providers_command.add_parser(sub, parents)
    mcp_command.add_parser(sub, parents)
    history_command.add_parsers(sub, parents)
    usage_command.add_parser(sub, parents)
    return parser


def _dispatch(args: argparse.Namespace) -> int | None:
    if args.command == "chat":
        from app.chat_command import run_chat

        return run_chat(args)
    if args.command == "tools":
        from app.tools_command import run_tools

        return run_tools(args)
    if args.command == "models":
        from app.models_command import run_models

        return run_models(args)
    if args.command == "keys":
        from app.keys_command import run_keys

        return run_keys(args)
    if args.command == "mcp":
        from app.mcp_command import run_mcp

        return run_mcp(args)
    if args.command == "providers":
        from app.providers_command import run_providers

        return run_providers(args)
    if args.command == "usage":
        from app.usage.command import run_usage

        return run_usage(args)
    from app import history_command

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
    from app.gui import main as gui_main

    return gui_main(getattr(args, "data_dir", None))


def main(argv: Sequence[str] | None = None) -> int:
    """Everything written to stdout and stderr goes through app/terminal_text.py: model, tool, provider and
    stored text can hold terminal control sequences."""
    from app.terminal_text import safe_output

    with safe_output():
        return _main(argv)


def _main(argv: Sequence[str] | None) -> int:
    from app.mcp_command import split_server_command

    parser = build_parser()
    argv, server_command = split_server_command(list(sys.argv[1:] if argv is None else argv))
    try:
        args = parser.parse_args(argv)
        if server_command is not None:
            args.server_command = server_command
    except SystemExit as exc:  # argparse exits 2 on bad usage and 0 for --help
        return int(exc.code or 0)
    from app.storage import NotFoundError

    try:
        code = _dispatch(args)
    except (UsageError, NotFoundError) as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except EnvironmentProblem as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_ERROR
    if code is not None:
        return code
    if args.command is None:
        return _open_window(args)
    parser.print_help()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
