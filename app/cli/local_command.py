"""``parley local``: the built-in engine's model library (list, add, remove, default) in the settings file.

Adding checks the file is a GGUF model before anything is saved, so a wrong file is never registered. The
demo model that comes with Parley is always listed and cannot be removed. ``download`` (from Hugging Face)
lives in app/cli/local_download_command.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.cli import local_download_command, local_settings_command
from app.cli.cli_common import EXIT_ERROR, EXIT_OK, UsageError
from app.cli.cli_context import save_settings_from_args, settings_from_args
from app.engine import library, memory


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser],
               parents: list[argparse.ArgumentParser]) -> None:
    local = sub.add_parser("local", parents=parents, help="the built-in engine's models (provider builtin)",
                           description="GGUF models the built-in engine (provider builtin) can run. The demo "
                                       f"model ({library.DEMO_LABEL}) comes with Parley.")
    actions = local.add_subparsers(dest="local_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", parents=parents, help="list the models; * marks the default")
    listing.add_argument("--json", action="store_true", help="print as JSON")
    add = actions.add_parser("add", parents=parents, help="add a GGUF file from disk")
    add.add_argument("path", metavar="PATH", help="the .gguf file")
    add.add_argument("--name", help="the name to use it by (default: from the file name)")
    add.add_argument("--default", action="store_true", help="make it the default model")
    remove = actions.add_parser("remove", parents=parents, help="forget a model (the file stays on disk)")
    remove.add_argument("name", metavar="NAME")
    default = actions.add_parser("default", parents=parents, help="the model `--provider builtin` uses")
    default.add_argument("name", metavar="NAME")
    download = actions.add_parser("download", parents=parents, help="download a GGUF file from Hugging Face",
                                  description="Download a GGUF model from Hugging Face (HF_ENDPOINT) into the data "
                                              "folder and add it; Ctrl+C stops, the same command continues.")
    local_download_command.add_arguments(download)
    shown = actions.add_parser("settings", parents=parents, help="the engine's context, threads, GPU layers and "
                                                                 "idle stop, with their limits")
    set_ = actions.add_parser("set", parents=parents, help="set context, threads, gpu-layers or idle-stop",
                              description="Set one engine setting, checked against its limit (`parley local "
                                          "settings` lists them), e.g. `parley local set context 8192`.")
    local_settings_command.add_arguments(shown, set_)


def run_local(args: argparse.Namespace) -> int:
    action = args.local_command
    if action == "list":
        return _list(args)
    if action == "download":
        return local_download_command.run_download(args)
    if action == "settings":
        return local_settings_command.run_settings(args)
    if action == "set":
        return local_settings_command.run_set(args)
    settings = settings_from_args(args)
    engine = settings.engine
    if action == "add":
        try:
            entry = library.add(engine, args.path, args.name)
        except library.ModelFileError as exc:
            print(f"parley: {exc}", file=sys.stderr)
            return EXIT_ERROR
        except ValueError as exc:
            raise UsageError(str(exc).splitlines()[0]) from None
        if args.default:
            engine.default_model = entry.name
        message = f"added {entry.name} ({entry.path})" + (", the default model" if args.default else "")
        warning = memory.too_big_warning(Path(entry.path).stat().st_size)
        if warning:
            message += f"\nparley: note: {warning}"
    elif action == "remove":
        try:
            library.remove(engine, args.name)
        except (library.UnknownModelError, ValueError) as exc:
            raise UsageError(str(exc).strip('"')) from None
        message = f"removed {args.name} (the file is still on disk)"
    else:
        names = [m.name for m in library.models(engine)]
        if args.name not in names:
            raise UsageError(str(library.UnknownModelError(args.name, names)).strip('"'))
        engine.default_model = None if args.name == library.DEMO_MODEL else args.name
        message = f"{args.name} is the default model of the built-in engine"
    save_settings_from_args(args, settings)
    print(message, file=sys.stderr)
    return EXIT_OK


def _list(args: argparse.Namespace) -> int:
    engine = settings_from_args(args).engine
    default = library.default_model_name(engine)
    rows: list[dict[str, Any]] = []
    for entry in library.models(engine):
        size: int | None
        try:
            size = entry.path.stat().st_size
        except OSError:
            size = None
        rows.append({"name": entry.name, "path": str(entry.path), "size": size, "default": entry.name == default,
                     "demo": entry.demo, "label": entry.label})
    if args.json:
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    if not library.engine_installed():
        print("parley: the built-in engine is not installed; run `make run` or scripts/bootstrap.sh to build it",
              file=sys.stderr)
    for row in rows:
        shown = "missing" if row["size"] is None else f"{row['size'] / 1e6:,.0f} MB"
        demo = f"  ({library.DEMO_LABEL})" if row["demo"] else ""
        print(f"{'*' if row['default'] else ' '} {row['name']}\t{shown}\t{row['path']}{demo}")
    if not rows:
        print("No local models: add a GGUF file with `parley local add PATH`.", file=sys.stderr)
    elif all(row["demo"] for row in rows):
        print(library.BETTER_MODEL_HINT, file=sys.stderr)
    return EXIT_OK
