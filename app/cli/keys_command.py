"""``parley keys``: store, list, delete and check API keys in the OS keyring (never in a file, never printed)."""

from __future__ import annotations

import argparse
import getpass
import json
import sys

from app.cli.cli_common import EXIT_ERROR, EXIT_OK, UsageError
from app.cli.cli_context import secret_store, settings_from_args
from app.secrets import EntryNameError, SecretStoreError, normalize_entry_name, provider_entry, search_entry
from app.secrets.store import clean_key
from app.settings.model import SEARCH_BACKENDS
from tools.mcp import secret_entry

NAME_HELP = ("a provider id (e.g. openai), provider:ID, search:BACKEND (" + ", ".join(SEARCH_BACKENDS) + ") or "
             "mcp:SERVER:NAME (a secret variable or header of an MCP server)")


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
               parents: list[argparse.ArgumentParser]) -> None:
    keys = sub.add_parser("keys", parents=parents, help="API keys in the OS keyring",
                          description="Keys live only in the OS keyring (service 'parley'); Parley never writes "
                                      "them to a file. Without a usable keyring, pass keys per run with "
                                      "--api-key-env VAR.")
    actions = keys.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    set_key = actions.add_parser("set", parents=parents, help="store a key (read from standard input or a hidden "
                                                             "prompt)")
    set_key.add_argument("name", metavar="NAME", help=NAME_HELP)
    listing = actions.add_parser("list", parents=parents, help="which keys are stored (names only, never values)")
    listing.add_argument("--json", action="store_true", help="print as JSON")
    delete = actions.add_parser("delete", parents=parents, help="remove a key from the keyring")
    delete.add_argument("name", metavar="NAME", help=NAME_HELP)
    actions.add_parser("status", parents=parents, help="check that the keyring can store keys (stores and removes a "
                                                       "test entry)")


def _entry(name: str) -> str:
    try:
        return normalize_entry_name(name)
    except EntryNameError as exc:
        raise UsageError(str(exc)) from None


def _read_key(entry: str) -> str:
    if sys.stdin is not None and sys.stdin.isatty():
        value = getpass.getpass(f"Key for {entry} (input hidden): ")
    else:
        if sys.stdin is None or sys.stdin.closed:
            raise UsageError("no key given: pipe it on standard input or run in a terminal to be prompted")
        value = sys.stdin.read()
    try:
        return clean_key(value)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def _set(args: argparse.Namespace) -> int:
    entry = _entry(args.name)
    store = secret_store(args)
    verdict = store.status(probe=False)
    if not verdict.usable:  # say so before asking for the key
        raise SecretStoreError(f"{entry} was not saved. {verdict.problem}")
    store.store(entry, _read_key(entry))
    print(f"Saved {entry} in the keyring ({verdict.backend}).")
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    names = [provider_entry(p.id) for p in settings.providers] + [search_entry(b) for b in SEARCH_BACKENDS]
    names += [secret_entry(m.name, secret) for m in settings.mcp_servers for secret in [*m.secret_env,
                                                                                      *m.secret_headers]]
    store = secret_store(args)
    verdict = store.status(probe=False)
    rows = []
    for name in names:
        where = (store.location(name) or "not set") if verdict.usable else "keyring unavailable"
        rows.append({"name": name, "stored": where})
    if args.json:
        print(json.dumps({"backend": verdict.backend, "usable": verdict.usable, "keys": rows}, indent=2))
        return EXIT_OK
    if not verdict.usable:
        print(f"parley: {verdict.problem}", file=sys.stderr)
    width = max(len(r["name"]) for r in rows)
    print(f"{'NAME':<{width}}  STORED")
    for r in rows:
        print(f"{r['name']:<{width}}  {r['stored']}")
    return EXIT_OK


def _delete(args: argparse.Namespace) -> int:
    entry = _entry(args.name)
    removed = secret_store(args).delete(entry)
    print(f"Deleted {entry} from the keyring." if removed else f"No key was stored for {entry}.")
    return EXIT_OK


def _status(args: argparse.Namespace) -> int:
    verdict = secret_store(args).status(probe=True)
    if verdict.usable:
        print(f"The keyring works: {verdict.backend}")
        return EXIT_OK
    print(f"parley: the keyring cannot store keys: {verdict.backend}", file=sys.stderr)
    print(f"parley: {verdict.problem}", file=sys.stderr)
    return EXIT_ERROR


def run_keys(args: argparse.Namespace) -> int:
    return {"set": _set, "list": _list, "delete": _delete, "status": _status}[args.keys_command](args)
