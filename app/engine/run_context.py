"""The context size a model is actually run with: the engine setting, but never more than that model's trained
context when its GGUF metadata says it.

The setting is checked against the default model's trained context when it is changed (app/engine/tuning.py),
yet one engine setting serves every local model, and a conversation may run another model trained on less. Such
a model is started with its own trained context (past it a model only rambles, and llama.cpp would allocate for
tokens the model cannot use), and the engine's status says so, naming both numbers. A model whose trained
context is not known (its metadata cannot be read) gets the setting as it is.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

from app.engine import gguf_info
from app.engine.settings import MIN_CONTEXT_SIZE

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunContext:
    tokens: int  # what llama.cpp is given (n_ctx)
    note: str = ""  # why it is not the setting, for the user; "" when it is the setting


def limited_note(model: str, trained: int, setting: int) -> str:
    return (f"context {trained:,} tokens, what {model} was trained on (the engine setting of {setting:,} is more "
            "than it can use)")


def run_context(setting: int, model: str, trained: int | None) -> RunContext:
    """``setting``, or ``trained`` with a note when the model was trained on less."""
    if trained is None or trained < MIN_CONTEXT_SIZE or trained >= setting:
        return RunContext(setting)
    return RunContext(trained, limited_note(model, trained, setting))


class TrainedContexts:
    """Each model file's trained context, read from its GGUF header once (milliseconds) and kept in the data
    folder's metadata cache (``gguf_info.InfoCache``, by path, size and modification time)."""

    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._cache: gguf_info.InfoCache | None = None

    def of(self, path: Path) -> int | None:
        """The trained context of ``path``; None when its metadata cannot be read or does not say."""
        if self._cache is None:
            self._cache = gguf_info.InfoCache(self.data_dir)
        try:
            return self._cache.read(path).context_length
        except (gguf_info.DamagedModelError, OSError) as exc:
            log.info("the trained context of %s is not known: %s", path, exc)
            return None
