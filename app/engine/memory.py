"""How much memory the machine can give a model, to warn before loading one that cannot fit.

A GGUF model needs about its file size in memory (the weights are mapped whole) plus the context cache, so a
file larger than the memory available now will swap or be killed; Parley says so before it starts the engine
and when a model is added or downloaded.
"""

from __future__ import annotations

import os
from pathlib import Path

MEMINFO = Path("/proc/meminfo")


def available_memory() -> int | None:
    """Bytes of memory available to a new process now (Linux MemAvailable), else physical memory, else None."""
    try:
        for line in MEMINFO.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def too_big_warning(size: int, available: int | None = None) -> str | None:
    """A sentence saying the model will not fit, or None when it may."""
    free = available_memory() if available is None else available
    if free is None or size <= free:
        return None
    return (f"this model needs about {size / 1e9:.1f} GB of memory but only {free / 1e9:.1f} GB is available: "
            "it will load very slowly or fail; pick a smaller model or a smaller quantization (such as Q4_K_M)")
