"""The options shared by the ``parley`` commands, accepted at every level of the command line.

A user types ``parley tools list --data-dir X`` as readily as ``parley --data-dir X tools list``, and
``parley history --json list`` as readily as ``parley history list --json``. argparse only knows an option at
the level that declared it, so ``--data-dir`` is added to every command and action (its value given earlier
is kept: SUPPRESS), and ``--json`` is added to every level above an action that prints JSON. ``--json`` given
before an action that prints no JSON is a usage error naming the action, never silently ignored.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator

from app.cli.cli_common import UsageError

DATA_DIR_HELP = ("keep the history and settings under DIR (DIR/data, DIR/config) instead of the platform's "
                 "folders; PARLEY_HOME does the same")
# ``--json`` given above the action that prints: kept apart from the action's own ``json`` (whose default,
# False, argparse copies over anything an outer level set) and folded into it by apply_json_before_action.
_JSON_BEFORE = "json_before_action"


def data_dir_parent() -> argparse.ArgumentParser:
    """A parent parser for every command and action: ``--data-dir`` after it, keeping a value given before."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--data-dir", metavar="DIR", default=argparse.SUPPRESS, help=DATA_DIR_HELP)
    return parent


def _children(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action.choices.values()


def _prints_json(parser: argparse.ArgumentParser) -> bool:
    return "--json" in parser._option_string_actions


def offer_json_before_actions(parser: argparse.ArgumentParser) -> bool:
    """Give every level of the tree above an action with ``--json`` a ``--json`` of its own; whether ``parser``
    or anything under it prints JSON."""
    below = [offer_json_before_actions(child) for child in _children(parser)]  # a list: visit every child
    if any(below) and not _prints_json(parser):
        parser.add_argument("--json", dest=_JSON_BEFORE, action="store_true", default=argparse.SUPPRESS,
                            help="print as JSON (the same as --json after the action)")
    return any(below) or _prints_json(parser)


def apply_json_before_action(args: argparse.Namespace) -> None:
    """Fold a ``--json`` given before the action into the action's own; a usage error where it prints none."""
    if not getattr(args, _JSON_BEFORE, False):
        return
    delattr(args, _JSON_BEFORE)
    if hasattr(args, "json"):
        args.json = True
        return
    if args.command is None:
        raise UsageError("--json goes with a command that prints JSON (see `parley --help`); alone it would "
                         "open the window")
    action = getattr(args, f"{args.command}_command", None)  # each command keeps its action as COMMAND_command
    named = args.command if action is None else f"{args.command} {action}"
    raise UsageError(f"--json does not apply to `parley {named}`: it prints no JSON")
