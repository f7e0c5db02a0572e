"""The ``parley`` command: argument parsing and dispatch to the subcommands.

Exit codes: 0 success, 1 a provider or run error (with a one-line reason on stderr), 2 bad usage,
130 interrupted.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from app.cli_common import EXIT_OK, EXIT_USAGE, UsageError
from app.provider_args import add_provider_arguments
from orchestration.limits import LoopLimits


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of at least 1, got {value}")
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
    parser = argparse.ArgumentParser(
        prog="parley", description="Parley: chat with LLMs from your own machine. Subcommands below.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    chat = sub.add_parser("chat", help="send one prompt and stream the answer (tools included)",
                          description="Send a prompt (or standard input) and stream the answer.")
    chat.add_argument("prompt", nargs="?", help="the message; read from standard input when absent")
    add_provider_arguments(chat)
    chat.add_argument("--model", required=True, help="model name as the provider knows it")
    chat.add_argument("--idle-timeout", type=_positive_float, metavar="SECONDS",
                      help="seconds without a byte before a stream is an error (default: 60, local servers 300)")
    chat.add_argument("--system", help="a system prompt")
    chat.add_argument("--tools", default="all", metavar="NAMES|all|none",
                      help="comma-separated tool names, all (default) or none")
    chat.add_argument("--tool-choice", default="auto", metavar="auto|none|required|NAME",
                      help="whether and which tool the model must call (default: auto)")
    defaults = LoopLimits()
    chat.add_argument("--max-iterations", type=_positive_int, default=defaults.max_iterations,
                      help=f"tool-using model calls before a final answer is forced (default: "
                           f"{defaults.max_iterations})")
    chat.add_argument("--reasoning-effort", choices=["minimal", "low", "medium", "high"],
                      help="ask for more or less reasoning, where the model supports it")
    chat.add_argument("--max-output-tokens", type=_positive_int, help="limit the answer length in tokens")
    chat.add_argument("--no-stream", action="store_true", help="ask for the whole answer at once")
    chat.add_argument("--no-reasoning", action="store_true", help="do not print reasoning to stderr")
    chat.add_argument("--json", action="store_true", help="print every run event as one JSON line")

    models = sub.add_parser("models", help="list a provider's models, or the local servers already running",
                            description="List the models a provider offers (--kind/--preset, --base-url), or "
                                        "with --local the model servers running on this machine.")
    add_provider_arguments(models)
    models.add_argument("--local", action="store_true",
                        help="look for Ollama, LM Studio, llama.cpp and vLLM on this machine instead")
    models.add_argument("--json", action="store_true", help="print as JSON")

    tools = sub.add_parser("tools", help="list the tools the model can use")
    tools_sub = tools.add_subparsers(dest="tools_command", metavar="ACTION")
    tools_list = tools_sub.add_parser("list", help="list the registered tools")
    tools_list.add_argument("--json", action="store_true", help="print as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on bad usage and 0 for --help
        return int(exc.code or 0)
    try:
        if args.command == "chat":
            from app.chat_command import run_chat

            return run_chat(args)
        if args.command == "models":
            from app.models_command import run_models

            return run_models(args)
        if args.command == "tools":
            from app.tools_command import run_tools

            return run_tools(args)
    except UsageError as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_USAGE
    parser.print_help()
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
