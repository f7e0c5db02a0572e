"""The window's model work in a child process: ``python -m app.engine.worker_main info PATH``, ``download
REPO FILE MODELS_DIR`` or ``gpu``, reporting as JSON lines on stdout.

Run as a child rather than a thread so the window's process never does it: downloading allocates a lot, and a
garbage collection started on a worker thread could destroy Qt objects from that thread. Reading a header is
quick now (tens of milliseconds with app/engine/gguf_header.py, bench/gguf_read.py), but a file on a slow or
network disk can still take long, the same thread hazard applies, and the child is already there; only the
file the user just added is read in the window's process, by the check that accepts it (``library.add``).
Stopping a download is killing the child: the part file keeps what was written and the next download continues
from it.

``gpu`` asks llama.cpp whether this build offloads layers to a GPU: importing it maps its shared libraries into
the process for good, which the window leaves to this child (app/engine/gpu_check.py).

Lines: ``{"progress": [phase, done, total]}``, then ``{"info": {...}}``, ``{"path": "..."}``, ``{"gpu": bool |
null}`` (null: llama.cpp is not installed or does not load) or
``{"error": "...", "kind": "damaged" | "download" | "failed"}``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict
from pathlib import Path


def say(**message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    from app.engine import gguf_info  # the download module (huggingface_hub, pydantic) only for a download

    try:
        if argv[:1] == ["info"] and len(argv) == 2:
            say(info=asdict(gguf_info.read_info(Path(argv[1]))))
        elif argv == ["gpu"]:
            return _gpu()
        elif argv[:1] == ["download"] and len(argv) == 4:
            return _download(*argv[1:])
        else:
            say(error=f"usage: info PATH | download REPO FILE DIR | gpu (got {argv})", kind="failed")
            return 2
    except gguf_info.DamagedModelError as exc:
        say(error=str(exc), kind="damaged")
        return 1
    except OSError as exc:
        say(error=str(exc), kind="failed")
        return 1
    return 0


def _gpu() -> int:
    from app.engine import gpu_support

    try:
        offload = gpu_support.probe()
    except Exception as exc:  # a broken build: the window shows this as the GPU note, it crashes nothing
        say(error=f"llama.cpp did not load ({type(exc).__name__}: {exc})", kind="failed")
        return 1
    say(gpu=offload)
    return 0


def _download(repo: str, file: str, folder: str) -> int:
    from app.engine import download

    try:
        path = download.download(repo, file, Path(folder),
                                 progress=lambda phase, done, total: say(progress=[phase, done, total]))
    except download.DownloadError as exc:
        say(error=str(exc), kind="download")
        return 1
    say(path=str(path))
    return 0

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
