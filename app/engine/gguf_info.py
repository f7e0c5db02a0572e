"""What a GGUF file says about itself (quantization, context length, license, parameters), read with the
``gguf`` package, and whether the file is whole.

Reading the metadata parses the whole header, tokenizer vocabulary included: about 2 s for the demo model and
more for models with big vocabularies, so the window has a child process read it (app/engine/worker_main.py);
``InfoCache`` keeps the results by path, size and modification time so each file is read once.
"""

from __future__ import annotations

import json
import logging
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

CACHE_NAME = "model_info.json"


class DamagedModelError(ValueError):
    """A GGUF file whose header cannot be read or whose tensors run past its end (a truncated download)."""


@dataclass(frozen=True)
class GgufInfo:
    size: int
    architecture: str | None = None
    quantization: str | None = None
    context_length: int | None = None
    license: str | None = None
    title: str | None = None
    parameters: str | None = None


def _field(reader: object, key: str) -> object:
    field = reader.fields.get(key)  # type: ignore[attr-defined]
    if field is None:
        return None
    try:
        return field.contents()
    except (ValueError, IndexError, TypeError):
        return None


def _quantization(file_type: object) -> str | None:
    from gguf.constants import LlamaFileType

    if not isinstance(file_type, int):
        return None
    try:
        name = LlamaFileType(file_type).name
    except ValueError:
        return f"type {file_type}"
    return name.removeprefix("MOSTLY_").removeprefix("ALL_")


def read_info(path: Path) -> GgufInfo:
    """The file's metadata; raises DamagedModelError for a file that is truncated or not readable as GGUF."""
    import gguf  # numpy and the gguf tables: only when a file is actually read

    size = path.stat().st_size
    try:
        reader = gguf.GGUFReader(path, "r")
        end = max((t.data_offset + t.n_bytes for t in reader.tensors), default=reader.data_offset)
    except (ValueError, IndexError, KeyError, OSError, TypeError) as exc:
        raise DamagedModelError(f"{path} is damaged or truncated ({exc}); download it again") from None
    if end > size:
        raise DamagedModelError(f"{path} is truncated: its tensors need {end:,} bytes but the file has {size:,}; "
                                "download it again")
    arch = _field(reader, "general.architecture")
    arch = arch if isinstance(arch, str) else None
    context = _field(reader, f"{arch}.context_length") if arch else None
    licence = _field(reader, "general.license")
    title = _field(reader, "general.name")
    params = _field(reader, "general.size_label")
    return GgufInfo(size=size, architecture=arch, quantization=_quantization(_field(reader, "general.file_type")),
                    context_length=int(context) if isinstance(context, int) else None,
                    license=licence if isinstance(licence, str) else None,
                    title=title if isinstance(title, str) else None,
                    parameters=params if isinstance(params, str) else None)


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
        key = self._key(path)
        if key:
            self._entries = {k: v for k, v in self._entries.items() if not k.startswith(f"{path}|")}
            self._entries[key] = asdict(info)
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                temp = self.path.with_suffix(".tmp")
                temp.write_text(json.dumps(self._entries), encoding="utf-8")
                os.replace(temp, self.path)
            except OSError as exc:
                log.warning("cannot save %s: %s", self.path, exc)
