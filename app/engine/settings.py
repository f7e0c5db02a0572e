"""The built-in engine's settings section (``engine`` in settings.json): the machine's limits and the models.

Every limit has a named default chosen for a laptop without a GPU; docs/providers.md ("Built-in engine")
lists them.
"""

from __future__ import annotations

import os

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_CONTEXT_SIZE = 4096  # tokens; SmolLM2 was trained on 8,192, most small models take at least 4,096
MIN_CONTEXT_SIZE = 512
MAX_CONTEXT_SIZE = 262_144
MAX_THREADS = 256
DEFAULT_GPU_LAYERS = 0  # the engine bootstrap builds is CPU-only; a CUDA/Metal build can take -1 (all layers)
START_TIMEOUT_S = 180.0  # loading a multi-GB model from a slow disk takes a while; past this, it is stuck
DEFAULT_IDLE_STOP_MINUTES = 10.0  # the engine gives its memory back after this long without a run; 0: never
MODEL_NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$"


def default_threads() -> int:
    """Half the logical CPUs (about the physical cores, which is what llama.cpp runs fastest on), at least 1."""
    return max(1, (os.cpu_count() or 2) // 2)


class LocalModel(BaseModel):
    """A GGUF file in the library, by the name runs and the CLI use."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=MODEL_NAME_PATTERN)
    path: str = Field(min_length=1, description="absolute path of the .gguf file")


class EngineSettings(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    enabled: bool = Field(True, description="offer the built-in engine (provider builtin); false: never start it")
    context_size: int = Field(DEFAULT_CONTEXT_SIZE, ge=MIN_CONTEXT_SIZE, le=MAX_CONTEXT_SIZE,
                              description="tokens the engine keeps in context (llama.cpp n_ctx)")
    threads: int | None = Field(None, ge=1, le=MAX_THREADS, description="CPU threads; null: half the CPUs")
    gpu_layers: int = Field(DEFAULT_GPU_LAYERS, ge=-1, le=10_000,
                            description="layers offloaded to the GPU (-1: all; needs a GPU build of llama.cpp)")
    idle_stop_minutes: float = Field(DEFAULT_IDLE_STOP_MINUTES, ge=0, le=24 * 60,
                                     description="stop the engine after this long without a run; 0: never")
    models: list[LocalModel] = Field(default_factory=list, description="GGUF files added to the library")
    default_model: str | None = Field(None, description="a model name; null: the bundled demo model")

    @model_validator(mode="after")
    def _names_unique(self) -> EngineSettings:
        names = [m.name for m in self.models]
        repeated = sorted({n for n in names if names.count(n) > 1})
        if repeated:
            raise ValueError(f"local model names must be unique; repeated: {', '.join(repeated)}")
        return self

    def effective_threads(self) -> int:
        return self.threads or default_threads()
