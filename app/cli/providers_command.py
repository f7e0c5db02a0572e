"""``parley providers``: add, list and remove the providers in the settings file (their keys stay in the keyring)."""

from __future__ import annotations

import argparse
from typing import Any

from pydantic import ValidationError

from app.cli.cli_common import EXIT_OK, UsageError
from app.cli.cli_context import save_settings_from_args, secret_store, settings_from_args
from app.cli.list_output import printed_json_or_empty
from app.errors import describe_validation_error
from app.runs.provider_setup import key_required
from app.secrets import SecretStoreError, provider_entry
from app.settings import ProviderSettings
from orchestration.providers.presets import PRESETS
from orchestration.reasoning_effort import REASONING_EFFORTS


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
               parents: list[argparse.ArgumentParser]) -> None:
    providers = sub.add_parser("providers", parents=parents, help="configured providers (settings file)",
                               description="Providers are saved in the settings file; their keys are stored "
                                           "separately with `parley keys set NAME`.")
    actions = providers.add_subparsers(dest="providers_command", metavar="ACTION", required=True)
    add = actions.add_parser("add", parents=parents, help="add a provider")
    add.add_argument("name", metavar="NAME", help="an id for it: letters, digits, '.', '_' or '-'")
    add.add_argument("--kind", default="openai", help="wire format (default: openai, i.e. OpenAI-compatible)")
    add.add_argument("--preset", choices=sorted(PRESETS), default=None,
                     help="a known provider: its base URL and capabilities (default: custom)")
    add.add_argument("--base-url", help="the API base URL (needed unless --preset gives one)")
    add.add_argument("--model", help="the model used when `parley chat` gets no --model")
    add.add_argument("--header", action="append", default=[], metavar="'NAME: VALUE'",
                     help="an extra non-secret header sent on every request (repeatable)")
    add.add_argument("--reasoning-effort", choices=REASONING_EFFORTS,
                     help="the default reasoning effort, where the model supports it")
    add.add_argument("--default", action="store_true",
                     help="make it the default provider (the first provider added always is)")
    listing = actions.add_parser("list", parents=parents, help="list the providers")
    listing.add_argument("--json", action="store_true", help="print as JSON")
    remove = actions.add_parser("remove", parents=parents, help="remove a provider")
    remove.add_argument("name", metavar="NAME")


def _headers(values: list[str]) -> dict[str, str]:
    headers = {}
    for value in values:
        name, sep, content = value.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"--header {value!r}: expected 'Name: value'")
        headers[name.strip()] = content.strip()
    return headers


def _kinds() -> tuple[str, ...] | None:
    """The wire formats this build has adapters for, when the providers package lists them."""
    import orchestration.providers

    kinds = getattr(orchestration.providers, "ADAPTER_KINDS", None)
    return tuple(kinds) if kinds else None


def _add(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if settings.provider(args.name) is not None:
        raise UsageError(f"there is already a provider {args.name!r}; remove it first with "
                         f"`parley providers remove {args.name}`")
    kinds = _kinds()
    if kinds is not None and args.kind not in kinds:
        raise UsageError(f"--kind {args.kind!r} is not supported; available: {', '.join(kinds)}")
    preset = args.preset or "custom"
    base_url = args.base_url or PRESETS[preset].base_url
    if not base_url:
        raise UsageError("--base-url is needed (or a --preset that has one)")
    try:
        entry = ProviderSettings(id=args.name, kind=args.kind, preset=preset, base_url=base_url,
                                 default_model=args.model, headers=_headers(args.header),
                                 reasoning_effort=args.reasoning_effort)
    except ValidationError as exc:
        raise UsageError(describe_validation_error(exc)) from None
    make_default = args.default or settings.default_provider is None
    updated = settings.model_copy(update={
        "providers": [*settings.providers, entry],
        "default_provider": entry.id if make_default else settings.default_provider,
    })
    save_settings_from_args(args, updated)
    print(f"Added provider {entry.id} ({entry.kind}, {entry.base_url})" + (", the default" if make_default else "")
          + ".")
    if key_required(entry):
        print(f"Store its API key with: parley keys set {entry.id}")
    return EXIT_OK


def _key_state(args: argparse.Namespace, name: str) -> str:
    store = secret_store(args)
    if not store.status(probe=False).usable:
        return "keyring unavailable"
    try:
        return store.location(provider_entry(name)) or "none"
    except SecretStoreError:
        return "keyring unavailable"


def _list(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    rows: list[dict[str, Any]] = [
        {"id": p.id, "kind": p.kind, "preset": p.preset, "base_url": p.base_url, "default_model": p.default_model,
         "default": p.id == settings.default_provider, "key": _key_state(args, p.id),
         "key_required": key_required(p)} for p in settings.providers]
    empty = "No providers yet. Add one with: parley providers add NAME --base-url URL --model M"
    if printed_json_or_empty(rows, as_json=args.json, empty=empty):
        return EXIT_OK
    table = [("  NAME", "KIND", "KEY", "MODEL", "BASE URL")]
    table += [(("* " if r["default"] else "  ") + str(r["id"]), str(r["kind"]), _key_cell(r),
               str(r["default_model"] or "-"), str(r["base_url"])) for r in rows]
    widths = [max(len(line[i]) for line in table) for i in range(4)]
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False)) + "  " + line[4])
    return EXIT_OK


def _key_cell(row: dict[str, Any]) -> str:
    """The table's KEY: where the key is, else whether the provider needs one."""
    if not row["key_required"] and row["key"] in ("none", "keyring unavailable"):
        return "not needed"
    return "missing" if row["key"] == "none" else str(row["key"])


def _remove(args: argparse.Namespace) -> int:
    settings = settings_from_args(args)
    if settings.provider(args.name) is None:
        raise UsageError(f"there is no provider {args.name!r}")
    updated = settings.model_copy(update={
        "providers": [p for p in settings.providers if p.id != args.name],
        "default_provider": None if settings.default_provider == args.name else settings.default_provider,
    })
    save_settings_from_args(args, updated)
    print(f"Removed provider {args.name}. Its key, if any, is still in the keyring: "
          f"`parley keys delete {args.name}` removes it.")
    return EXIT_OK


def run_providers(args: argparse.Namespace) -> int:
    return {"add": _add, "list": _list, "remove": _remove}[args.providers_command](args)
