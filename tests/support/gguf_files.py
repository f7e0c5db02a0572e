"""Small but real GGUF files for tests, written with the ``gguf`` package: a header with the metadata the
library reads (architecture, file type, context length, license, name) and one tensor of ``tensor_bytes``;
optionally a tokenizer vocabulary (string, float and int arrays, and a nested array), a size label and a
custom alignment, as real models have."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from gguf import GGUFWriter


def write_gguf(path: Path, *, context_length: int = 2048, license: str | None = "apache-2.0",
               file_type: int = 15, name: str = "Tiny Test", tensor_bytes: int = 4096, vocabulary: int = 0,
               size_label: str | None = None, alignment: int | None = None) -> Path:
    """Writes the file and returns ``path``. file_type 15 is Q4_K_M (gguf.LlamaFileType)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    writer = GGUFWriter(str(path), "llama")
    writer.add_name(name)
    writer.add_file_type(file_type)
    writer.add_context_length(context_length)
    if license:
        writer.add_license(license)
    if size_label:
        writer.add_size_label(size_label)
    if alignment:
        writer.add_custom_alignment(alignment)
    if vocabulary:
        writer.add_token_list([f"tok{n}\u00e9" * (n % 5) for n in range(vocabulary)])
        writer.add_token_scores([n / 7 for n in range(vocabulary)])
        writer.add_token_types([n % 6 for n in range(vocabulary)])
        writer.add_array("tokenizer.ggml.nested", [[1, 2], [3], ["a", "bc"]])
    writer.add_tensor("weights", (np.arange(tensor_bytes, dtype=np.int64) % 251).astype(np.int8))
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
