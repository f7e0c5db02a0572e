"""``parley local download``: a GGUF model from Hugging Face into the data folder, then into the library.

``REPO FILE`` names any repository's .gguf file; a single NAME picks one of the curated models
(``--list`` shows them with their sizes). Progress goes to stderr about once a second. Ctrl+C stops the
download and keeps what was fetched, so the same command continues it. Only a verified file is registered.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from app.cli.cli_common import EXIT_ERROR, EXIT_INTERRUPTED, EXIT_OK, UsageError
from app.cli.cli_context import paths_from_args, save_settings_from_args, settings_from_args
from app.engine import catalog, download, library, memory

PROGRESS_EVERY_S = 1.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("repo", metavar="REPO", nargs="?",
                        help="a Hugging Face repository (OWNER/NAME), or a name from --list")
    parser.add_argument("file", metavar="FILE", nargs="?", help="the .gguf file in that repository")
    parser.add_argument("--list", action="store_true", help="list popular small instruct models and their sizes")
    parser.add_argument("--name", help="the name to use it by (default: from the file name)")
    parser.add_argument("--default", action="store_true", help="make it the default model")


def models_dir(args: argparse.Namespace) -> Path:
    return paths_from_args(args).data_dir / download.MODELS_FOLDER


def _print_catalog() -> int:
    for model in catalog.CATALOG:
        print(f"{model.name}\t{model.size / 1e9:.1f} GB\t{model.license}\t{model.repo} {model.file}\t{model.note}")
    print("Download one with `parley local download NAME` (or any GGUF file: `parley local download REPO FILE`).",
          file=sys.stderr)
    return EXIT_OK


class _Printer:
    """Progress lines on stderr, at most one a second and one per phase change."""

    def __init__(self) -> None:
        self.last = 0.0
        self.phase = ""

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        finished = total is not None and done >= total
        if phase == self.phase and now - self.last < PROGRESS_EVERY_S and not finished:
            return
        self.last, self.phase = now, phase
        share = f" ({100 * done / total:.0f} %)" if total else ""
        of = f" of {total / 1e6:,.1f} MB" if total else " MB"
        verb = "downloading" if phase == "download" else "checking"
        print(f"[{verb}: {done / 1e6:,.1f}{of}{share}]", file=sys.stderr, flush=True)


def run_download(args: argparse.Namespace) -> int:
    if args.list:
        return _print_catalog()
    repo, file = args.repo, args.file
    if repo and not file:
        picked = catalog.find(repo)
        if picked is None:
            raise UsageError(f"{repo!r} is not a model from `parley local download --list`; give REPO and FILE")
        repo, file = picked.repo, picked.file
    if not repo or not file:
        raise UsageError("give REPO FILE (a Hugging Face repository and its .gguf file), a NAME from --list, "
                         "or --list")
    settings = settings_from_args(args)
    engine = settings.engine
    folder = models_dir(args)
    print(f"parley: downloading {file} from {repo} to {folder}", file=sys.stderr)
    try:
        path = download.download(repo, file, folder, progress=_Printer())
    except KeyboardInterrupt:
        print("parley: download stopped; run the same command again to continue where it stopped",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except download.DownloadError as exc:
        print(f"parley: {exc}", file=sys.stderr)
        return EXIT_ERROR
    existing = next((m for m in engine.models if Path(m.path) == path.resolve()), None)
    if existing is not None:
        name = existing.name
        message = f"{file} is downloaded and already in the library as {name}"
    else:
        try:
            name = library.add(engine, path, args.name).name
        except library.ModelFileError as exc:
            print(f"parley: {exc}", file=sys.stderr)
            return EXIT_ERROR
        except ValueError as exc:
            raise UsageError(f"{exc}; the file is kept at {path}") from None
        message = f"downloaded {file} and added it as {name} ({path})"
    if args.default:
        engine.default_model = name
        message += ", the default model"
    save_settings_from_args(args, settings)
    print(message, file=sys.stderr)
    warning = memory.too_big_warning(path.stat().st_size)
    if warning:
        print(f"parley: note: {warning}", file=sys.stderr)
    return EXIT_OK
