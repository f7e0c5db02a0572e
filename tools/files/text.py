"""Telling text files from binary ones, and reading text the same way in every file tool.

A file is treated as binary when its first ``SAMPLE_BYTES`` hold a NUL byte or mostly control characters
(images, archives, executables, databases). Text is decoded as UTF-8 (a leading byte-order mark dropped);
undecodable bytes become U+FFFD rather than failing the read.
"""

from __future__ import annotations

from pathlib import Path

SAMPLE_BYTES = 8192
CONTROL_SHARE_LIMIT = 0.1  # above this share of control characters a file is not text
_TEXT_CONTROLS = frozenset(b"\t\n\r\f\b\x1b")


def looks_binary(sample: bytes) -> bool:
    if not sample:
        return False
    if b"\x00" in sample:
        return True
    controls = sum(1 for byte in sample if byte < 32 and byte not in _TEXT_CONTROLS)
    return controls / len(sample) > CONTROL_SHARE_LIMIT


def read_sample(path: Path) -> bytes:
    with path.open("rb") as handle:
        return handle.read(SAMPLE_BYTES)


def decode_line(raw: bytes) -> str:
    return raw.decode("utf-8", errors="replace").removeprefix("\ufeff").rstrip("\r\n")


def human_size(count: int) -> str:
    if count < 1024:
        return f"{count} B"
    if count < 1024 * 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count / 1024 / 1024:.1f} MiB"
