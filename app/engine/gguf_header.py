"""Our own reader of a GGUF file's header: its metadata values and where its tensor data starts and ends.

Why not ``gguf.GGUFReader``: it builds a numpy view for every element of every metadata array, the tokenizer's
vocabulary and merges included, which took seconds for the 98 MB demo model. The Local models tab needs a few
scalars and strings and one number (where the last tensor ends, to spot a truncated download); this reader
skips arrays by their lengths without building their elements, so a header reads in milliseconds.

The format (GGUF versions 2 and 3, little-endian; https://github.com/ggml-org/ggml/blob/master/docs/gguf.md):

- ``GGUF`` magic, u32 version, u64 tensor count, u64 key-value count;
- key-value pairs: a string key (u64 length + UTF-8 bytes), a u32 value type, the value; an array is a u32
  element type, a u64 count and the elements (arrays of arrays are allowed);
- tensor infos: a string name, a u32 dimension count, that many u64 dimensions, a u32 ggml type, a u64 offset
  relative to the data start;
- the data start is the end of the tensor infos rounded up to ``general.alignment`` (default 32).

The file is untrusted (a download may be cut off or garbled). Every length is checked against what is left
of the file before anything is read or allocated for it, and against the limits below, which are named in the
errors; anything wrong raises ``DamagedModelError``, never another exception.

``gguf.constants`` supplies the tables the format does not carry (ggml tensor type block sizes, file type
names). ``import gguf.constants`` runs the package's ``__init__``, which imports numpy and the whole package:
0.25-0.45 s on the shared test machine, half of a metadata child's life. The module itself needs only ``enum``
and ``typing``, so ``gguf_tables`` loads that one file on its own (about 10 ms) and falls back to the ordinary
import if a future ``gguf`` makes that impossible.
"""

from __future__ import annotations

import functools
import importlib.util
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import BinaryIO

MAGIC = b"GGUF"
VERSIONS = (2, 3)
DEFAULT_ALIGNMENT = 32

# Limits on what an untrusted header may claim. Real models stay far below them: about 30 key-value pairs,
# at most a few thousand tensors, vocabularies of up to ~260k tokens, chat templates of tens of kB.
MAX_KV = 65_536
MAX_TENSORS = 1_000_000
MAX_KEY_BYTES = 65_536
MAX_STRING_BYTES = 16 * 1024 * 1024
MAX_ARRAY_ITEMS = 16 * 1024 * 1024
MAX_ARRAY_DEPTH = 4
MAX_DIMS = 4  # GGML_MAX_DIMS
MAX_ALIGNMENT = 1 << 20

CHUNK = 1 << 20  # bytes read from the file at a time

# Value types (gguf.md): fixed-size scalars by struct format; 7 is bool, 8 string, 9 array.
_SCALARS: dict[int, struct.Struct] = {
    0: struct.Struct("<B"), 1: struct.Struct("<b"), 2: struct.Struct("<H"), 3: struct.Struct("<h"),
    4: struct.Struct("<I"), 5: struct.Struct("<i"), 6: struct.Struct("<f"), 7: struct.Struct("<?"),
    10: struct.Struct("<Q"), 11: struct.Struct("<q"), 12: struct.Struct("<d"),
}
_STRING, _ARRAY = 8, 9
_U32, _U64 = struct.Struct("<I"), struct.Struct("<Q")


class DamagedModelError(ValueError):
    """A GGUF file whose header cannot be read or whose tensors run past its end (a truncated download)."""


@dataclass(frozen=True)
class Array:
    """A metadata array, skipped: its element type and length only."""
    item_type: int
    count: int


class Undecodable(bytes):
    """A string value that is not valid UTF-8, kept as its bytes."""


Value = int | float | bool | str | Undecodable | Array


@dataclass(frozen=True)
class Header:
    version: int
    tensor_count: int
    metadata: dict[str, Value] = field(repr=False)
    alignment: int
    data_start: int  # absolute offset of the tensor data
    data_end: int  # where the last tensor's bytes end (data_start when there are no tensors)


class _Reader:
    """Sequential reads from ``handle`` that never go past ``size`` and never read more than asked plus a
    bounded chunk."""

    def __init__(self, handle: BinaryIO, size: int) -> None:
        self.handle, self.size = handle, size
        self.buffer, self.start, self.pos = b"", 0, 0

    def _at(self, n: int, what: str) -> int:
        """Makes bytes [pos, pos + n) available; returns their offset in ``buffer``."""
        if n > self.size - self.pos:
            raise DamagedModelError(f"the header is cut off: {what} at byte {self.pos:,} needs {n:,} bytes but "
                                    f"the file has {self.size:,}")
        offset = self.pos - self.start
        if offset + n <= len(self.buffer):
            return offset
        self.handle.seek(self.pos)
        data = self.handle.read(max(n, CHUNK))
        if len(data) < n:
            raise DamagedModelError(f"the file ended at byte {self.pos + len(data):,} while reading {what}")
        self.buffer, self.start = data, self.pos
        return 0

    def unpack(self, shape: struct.Struct, what: str) -> object:
        offset = self._at(shape.size, what)
        self.pos += shape.size
        return shape.unpack_from(self.buffer, offset)[0]

    def u32(self, what: str) -> int:
        value = self.unpack(_U32, what)
        assert isinstance(value, int)
        return value

    def u64(self, what: str) -> int:
        value = self.unpack(_U64, what)
        assert isinstance(value, int)
        return value

    def take(self, n: int, what: str) -> bytes:
        offset = self._at(n, what)
        self.pos += n
        return self.buffer[offset:offset + n]

    def skip(self, n: int, what: str) -> None:
        if n > self.size - self.pos:
            raise DamagedModelError(f"the header is cut off: {what} at byte {self.pos:,} needs {n:,} bytes but "
                                    f"the file has {self.size:,}")
        self.pos += n

    def skip_strings(self, count: int) -> None:
        """Skips ``count`` strings (u64 length + bytes) in one tight loop: vocabularies have 10^5 of them."""
        for _ in range(count):
            offset = self.pos - self.start
            if offset + 8 > len(self.buffer):
                offset = self._at(8, "a string's length in an array")
            (length,) = _U64.unpack_from(self.buffer, offset)
            if length > MAX_STRING_BYTES:
                raise DamagedModelError(f"a string in an array at byte {self.pos:,} claims {length:,} bytes, over "
                                        f"the limit of {MAX_STRING_BYTES:,}")
            self.skip(8 + length, "a string in an array")


def _string(reader: _Reader, limit: int, what: str) -> bytes:
    length = reader.u64(f"the length of {what}")
    if length > limit:
        raise DamagedModelError(f"{what} at byte {reader.pos - 8:,} claims {length:,} bytes, over the limit of "
                                f"{limit:,}")
    return reader.take(length, what)


def _text(raw: bytes, what: str) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise DamagedModelError(f"{what} is not UTF-8: {raw[:40]!r}") from None


def _skip_array(reader: _Reader, depth: int) -> Array:
    if depth > MAX_ARRAY_DEPTH:
        raise DamagedModelError(f"arrays nested deeper than {MAX_ARRAY_DEPTH} at byte {reader.pos:,}")
    item_type = reader.u32("an array's element type")
    count = reader.u64("an array's length")
    if count > MAX_ARRAY_ITEMS:
        raise DamagedModelError(f"an array at byte {reader.pos - 12:,} claims {count:,} elements, over the limit "
                                f"of {MAX_ARRAY_ITEMS:,}")
    if item_type in _SCALARS:
        reader.skip(count * _SCALARS[item_type].size, "an array's elements")
    elif item_type == _STRING:
        reader.skip_strings(count)
    elif item_type == _ARRAY:
        for _ in range(count):
            _skip_array(reader, depth + 1)
    else:
        raise DamagedModelError(f"unknown array element type {item_type} at byte {reader.pos - 12:,}")
    return Array(item_type, count)


def _value(reader: _Reader, kind: int, key: str) -> Value:
    if kind in _SCALARS:
        value = reader.unpack(_SCALARS[kind], f"the value of {key}")
        assert isinstance(value, (int, float, bool))
        return value
    if kind == _STRING:
        raw = _string(reader, MAX_STRING_BYTES, f"the value of {key}")
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return Undecodable(raw)
    if kind == _ARRAY:
        return _skip_array(reader, 1)
    raise DamagedModelError(f"{key} has unknown value type {kind}")


@functools.cache
def gguf_tables() -> ModuleType:
    """``gguf.constants``, without importing the ``gguf`` package (and numpy) when that module loads alone."""
    if "gguf.constants" in sys.modules:
        return sys.modules["gguf.constants"]
    package = importlib.util.find_spec("gguf")
    for folder in (package.submodule_search_locations or []) if package else []:
        spec = importlib.util.spec_from_file_location("_parley_gguf_constants", Path(folder) / "constants.py")
        if spec is None or spec.loader is None:
            continue
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # as importlib's recipe does: dataclasses and enums look their module up
        try:
            spec.loader.exec_module(module)
        except ImportError:  # it needs its package after all: the ordinary import below
            del sys.modules[spec.name]
            break
        if hasattr(module, "GGML_QUANT_SIZES") and hasattr(module, "LlamaFileType"):
            return module
    import gguf.constants

    return gguf.constants


@functools.cache
def _block_sizes() -> dict[int, tuple[int, int]]:
    """ggml tensor type -> (elements per block, bytes per block), from the ``gguf`` package's table."""
    return {int(kind): sizes for kind, sizes in gguf_tables().GGML_QUANT_SIZES.items()}


def read_header(path: Path) -> Header:
    """The header of the GGUF file at ``path``. Raises DamagedModelError (a ValueError) for anything that is not
    a whole, readable GGUF header, OSError when the file cannot be opened or read."""
    with path.open("rb") as handle:
        size = path.stat().st_size
        return parse(handle, size)


def parse(handle: BinaryIO, size: int) -> Header:
    """``read_header`` on an open file of ``size`` bytes."""
    reader = _Reader(handle, size)
    if reader.take(4, "the magic") != MAGIC:
        raise DamagedModelError("it does not start with 'GGUF'")
    version = reader.u32("the version")
    if version not in VERSIONS:
        raise DamagedModelError(f"GGUF version {version} is not supported (only {' and '.join(map(str, VERSIONS))})")
    tensor_count = reader.u64("the tensor count")
    kv_count = reader.u64("the metadata count")
    if tensor_count > MAX_TENSORS:
        raise DamagedModelError(f"it claims {tensor_count:,} tensors, over the limit of {MAX_TENSORS:,}")
    if kv_count > MAX_KV:
        raise DamagedModelError(f"it claims {kv_count:,} metadata entries, over the limit of {MAX_KV:,}")

    metadata: dict[str, Value] = {}
    for _ in range(kv_count):
        key = _text(_string(reader, MAX_KEY_BYTES, "a metadata key"), "a metadata key")
        kind = reader.u32(f"the value type of {key}")
        metadata[key] = _value(reader, kind, key)

    alignment = metadata.get("general.alignment", DEFAULT_ALIGNMENT)
    if (not isinstance(alignment, int) or isinstance(alignment, bool) or not 0 < alignment <= MAX_ALIGNMENT
            or alignment & (alignment - 1)):
        raise DamagedModelError(f"general.alignment is {alignment!r}, not a power of two up to {MAX_ALIGNMENT:,}")

    sizes = _block_sizes() if tensor_count else {}
    furthest = 0  # the largest offset + bytes of a tensor, relative to the data start
    for index in range(tensor_count):
        name = _text(_string(reader, MAX_KEY_BYTES, f"tensor {index}'s name"), f"tensor {index}'s name")
        dims = reader.u32(f"{name}'s dimension count")
        if dims > MAX_DIMS:
            raise DamagedModelError(f"tensor {name} claims {dims} dimensions, over the limit of {MAX_DIMS}")
        elements = 1
        for _ in range(dims):
            elements *= reader.u64(f"{name}'s shape")
        kind = reader.u32(f"{name}'s type")
        offset = reader.u64(f"{name}'s offset")
        if kind not in sizes:
            raise DamagedModelError(f"tensor {name} has unknown ggml type {kind}")
        block, block_bytes = sizes[kind]
        furthest = max(furthest, offset + elements * block_bytes // block)

    data_start = -(-reader.pos // alignment) * alignment
    return Header(version, tensor_count, metadata, alignment, data_start, data_start + furthest)
