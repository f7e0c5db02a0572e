"""What a GGUF file says about itself (quantization, context length, license, parameters), read with our own
header reader (app/engine/gguf_header.py), and whether the file is whole.

The header reader skips the tokenizer's arrays without building them, so a read takes milliseconds, not the
seconds ``gguf.GGUFReader`` took (bench/gguf_read.py). The window still has a child process read the files it
has no metadata for (app/engine/worker_main.py); ``InfoCache`` keeps the results by path, size and modification
time so each file is read once.
"""

from __future__ import annotations

import json
import logging
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from app.engine.gguf_header import DamagedModelError, Value, gguf_tables, read_header
from app.file_write import replace_text

log = logging.getLogger(__name__)

CACHE_NAME = "model_info.json"

__all__ = ["CACHE_NAME", "DamagedModelError", "GgufInfo", "InfoCache", "read_info"]


@dataclass(frozen=True)
class GgufInfo:
    size: int
    architecture: str | None = None
    quantization: str | None = None
    context_length: int | None = None
    license: str | None = None
    title: str | None = None
    parameters: str | None = None


def _quantization(file_type: Value | None) -> str | None:
    if not isinstance(file_type, int):
        return None
    try:
        name: str = gguf_tables().LlamaFileType(file_type).name
    except ValueError:
        return f"type {file_type}"
    return name.removeprefix("MOSTLY_").removeprefix("ALL_")


def _text(value: Value | None) -> str | None:
    return value if isinstance(value, str) else None


def read_info(path: Path) -> GgufInfo:
    """The file's metadata; raises DamagedModelError for a file that is truncated or not readable as GGUF."""
    size = path.stat().st_size
    try:
        header = read_header(path)
    except DamagedModelError as exc:
        raise DamagedModelError(f"{path} is damaged or truncated ({exc}); download it again") from None
    except OSError as exc:
        raise DamagedModelError(f"{path} cannot be read ({exc.strerror or exc}); download it again") from None
    if header.data_end > size:
        raise DamagedModelError(f"{path} is truncated: its tensors need {header.data_end:,} bytes but the file has "
                                f"{size:,}; download it again")
    meta = header.metadata
    arch = _text(meta.get("general.architecture"))
    context = meta.get(f"{arch}.context_length") if arch else None
    return GgufInfo(size=size, architecture=arch, quantization=_quantization(meta.get("general.file_type")),
                    context_length=int(context) if isinstance(context, int) else None,
                    license=_text(meta.get("general.license")), title=_text(meta.get("general.name")),
                    parameters=_text(meta.get("general.size_label")))


class InfoCache:
    """``read_info`` results kept in ``model_info.json`` in the data folder, keyed by path, size and mtime."""

    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / CACHE_NAME
        try:
            self._entries: dict[str, dict[str, Any]] = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self._entries = {}

    @staticmethod
    def _key(path: Path) -> str | None:
        try:
            stat = path.stat()
        except OSError:
            return None
        return f"{path}|{stat.st_size}|{stat.st_mtime_ns}"

    def cached(self, path: Path) -> GgufInfo | None:
        key = self._key(path)
        entry = self._entries.get(key) if key else None
        try:
            return GgufInfo(**entry) if entry else None
        except TypeError:
            return None

    def read(self, path: Path) -> GgufInfo:
        """Cached, or read now and remembered (raises what ``read_info`` raises)."""
        found = self.cached(path)
        if found is not None:
            return found
        info = read_info(path)
        self.remember(path, info)
        return info

    def remember(self, path: Path, info: GgufInfo) -> None:
        """Keep ``info`` and save the cache, merged with what other writers (the engine, the window's tab, a
        ``parley local`` command) saved meanwhile; each writer has its own temporary file."""
        key = self._key(path)
        if key:
            try:
                on_disk = json.loads(self.path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                on_disk = {}
            merged = {**(on_disk if isinstance(on_disk, dict) else {}), **self._entries}
            self._entries = {k: v for k, v in merged.items() if not k.startswith(f"{path}|")}
            self._entries[key] = asdict(info)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                replace_text(self.path, json.dumps(self._entries))
            except OSError as exc:
                log.warning("cannot save %s: %s", self.path, exc)
