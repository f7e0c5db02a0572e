"""Whether this machine's llama.cpp build can offload layers to a GPU, asked without loading llama.cpp here.

Asking means importing ``llama_cpp``, which maps llama.cpp's shared libraries into the process for good and
takes a quarter of a second or more; the window must not pay that, so the metadata child asks
(``worker_main gpu``, driven by app/engine/gpu_check.py) and this module keeps the answer. The answer is stored
in ``gpu_support.json`` in the data folder, keyed by the installed ``llama-cpp-python`` version and the size and
modification time of its ``libllama`` (a rebuild with GPU support at the same version changes those), so a later
session reads it instead of starting a child. Finding the key imports nothing from llama.cpp (nor
importlib.metadata) and takes about a millisecond.
"""

from __future__ import annotations

import importlib.util
import json
import logging
from pathlib import Path

from app.file_write import replace_text

log = logging.getLogger(__name__)

CACHE_NAME = "gpu_support.json"
DISTRIBUTION = "llama_cpp_python"


def probe() -> bool | None:
    """Import llama.cpp and ask it (``llama_supports_gpu_offload``); None when it is missing or does not load.
    Only for processes that may keep llama.cpp loaded: the metadata child and the command line."""
    try:
        import llama_cpp
    except (ImportError, OSError):  # not installed, or its shared library does not load on this machine
        return None
    return bool(llama_cpp.llama_supports_gpu_offload())


def build_key() -> str | None:
    """What identifies the installed llama.cpp build, or None when ``llama_cpp`` is not installed."""
    spec = importlib.util.find_spec("llama_cpp")  # a top-level package: found, not imported
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(next(iter(spec.submodule_search_locations)))
    version = _version(folder.parent)
    libraries = sorted((folder / "lib").glob("libllama*")) or sorted(folder.glob("libllama*"))
    stamp = "no-libllama"
    for library in libraries:
        try:
            stat = library.stat()
        except OSError:
            continue
        stamp = f"{stat.st_size}|{stat.st_mtime_ns}"
        break
    return f"{version}|{folder}|{stamp}"


def _version(site: Path) -> str:
    """The installed version from its dist-info next to the package; read here rather than through
    importlib.metadata, whose import alone took ~38 ms of the window's thread (it brings the email parser)."""
    for info in sorted(site.glob(f"{DISTRIBUTION}-*.dist-info")):
        try:
            with (info / "METADATA").open(encoding="utf-8") as handle:
                for line in handle:
                    if line.startswith("Version:"):
                        return line.removeprefix("Version:").strip()
                    if not line.strip():
                        break  # the headers ended
        except OSError:
            continue
    return "unknown"


def read_cached(data_dir: Path, key: str) -> bool | None:
    """The stored answer for ``key``; None when there is none (or it is for another build)."""
    try:
        stored = json.loads((data_dir / CACHE_NAME).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if isinstance(stored, dict) and stored.get("key") == key and isinstance(stored.get("offload"), bool):
        return bool(stored["offload"])
    return None


def remember(data_dir: Path, key: str, offload: bool) -> None:
    path = data_dir / CACHE_NAME
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        replace_text(path, json.dumps({"key": key, "offload": offload}))
    except OSError as exc:
        log.warning("cannot save %s: %s", path, exc)
