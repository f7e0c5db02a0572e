"""A short list of popular small instruct models in GGUF form on Hugging Face, for ``parley local download
--list`` and the Local models tab. Sizes are the files' sizes rounded (the download checks the real size).

Chosen to run on a laptop CPU: up to about 2.5 GB at Q4_K_M, each with a chat template llama.cpp knows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CatalogModel:
    name: str
    repo: str
    file: str
    size: int  # bytes, approximate
    license: str
    note: str


CATALOG: tuple[CatalogModel, ...] = (
    CatalogModel("qwen2.5-0.5b-instruct", "Qwen/Qwen2.5-0.5B-Instruct-GGUF", "qwen2.5-0.5b-instruct-q4_k_m.gguf",
                 491_000_000, "apache-2.0", "the smallest useful one; fast on any CPU"),
    CatalogModel("llama-3.2-1b-instruct", "bartowski/Llama-3.2-1B-Instruct-GGUF",
                 "Llama-3.2-1B-Instruct-Q4_K_M.gguf", 808_000_000, "llama3.2", "Meta's small model"),
    CatalogModel("smollm2-1.7b-instruct", "HuggingFaceTB/SmolLM2-1.7B-Instruct-GGUF",
                 "smollm2-1.7b-instruct-q4_k_m.gguf", 1_060_000_000, "apache-2.0", "the demo model's big sibling"),
    CatalogModel("qwen2.5-1.5b-instruct", "Qwen/Qwen2.5-1.5B-Instruct-GGUF", "qwen2.5-1.5b-instruct-q4_k_m.gguf",
                 1_120_000_000, "apache-2.0", "good with tools for its size"),
    CatalogModel("gemma-2-2b-it", "bartowski/gemma-2-2b-it-GGUF", "gemma-2-2b-it-Q4_K_M.gguf", 1_710_000_000,
                 "gemma", "Google's small model"),
    CatalogModel("llama-3.2-3b-instruct", "bartowski/Llama-3.2-3B-Instruct-GGUF",
                 "Llama-3.2-3B-Instruct-Q4_K_M.gguf", 2_020_000_000, "llama3.2", "a good all-rounder"),
    CatalogModel("phi-3.5-mini-instruct", "bartowski/Phi-3.5-mini-instruct-GGUF",
                 "Phi-3.5-mini-instruct-Q4_K_M.gguf", 2_390_000_000, "mit", "strong at reasoning; 3.8 B"),
)


def find(name: str) -> CatalogModel | None:
    return next((m for m in CATALOG if m.name == name.lower()), None)
