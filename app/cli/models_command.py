"""``parley models``: a provider's models (``--provider``, ``--kind``/``--preset``, ``--base-url``, else the
default provider; app/cli/models_target.py), or with ``--local`` the model servers already running on this
machine."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from typing import Any

from app.cli.cli_common import EXIT_ERROR, EXIT_OK
from app.cli.cli_context import settings_from_args
from app.cli.models_target import models_provider
from app.engine import library
from orchestration.errors import ProviderError
from orchestration.providers.discovery import discover_local_servers
from orchestration.providers.models import list_models


def run_models(args: argparse.Namespace) -> int:
    if args.local:
        return _run_local(args)
    config = models_provider(args, settings_from_args(args))
    try:
        models = asyncio.run(list_models(config))
    except ProviderError as error:
        print(f"parley: {error.user_message}", file=sys.stderr)
        return EXIT_ERROR
    if args.json:
        print(json.dumps([{"id": m.id, "name": m.name} for m in models], indent=2))
        return EXIT_OK
    for model in models:
        print(model.id if not model.name or model.name == model.id else f"{model.id}\t{model.name}")
    if not models:
        print(f"{config.display_name} lists no models.", file=sys.stderr)
    return EXIT_OK


def _run_local(args: argparse.Namespace) -> int:
    servers = asyncio.run(discover_local_servers())
    engine = settings_from_args(args).engine
    builtin = [m.name for m in library.models(engine)] if library.engine_installed() else []
    if args.json:
        rows: list[dict[str, Any]] = [{"preset": s.preset, "title": s.title, "base_url": s.base_url,
                                       "models": s.models} for s in servers]
        if builtin:  # no base URL: the engine is started on a free port when a run needs it
            rows.append({"preset": "builtin", "title": "Built-in engine", "base_url": None, "models": builtin})
        print(json.dumps(rows, indent=2))
        return EXIT_OK
    if not servers:
        print("No local model server found (looked for Ollama, LM Studio, llama.cpp and vLLM on their usual ports).",
              file=sys.stderr)
    for server in servers:
        print(f"{server.title} at {server.base_url} (--preset {server.preset}): "
              f"{', '.join(server.models) or 'no models loaded'}")
    if builtin:
        print(f"Built-in engine (--provider builtin, started when needed): {', '.join(builtin)}")
    return EXIT_OK
