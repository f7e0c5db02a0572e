"""Our GGUF header reader: the same metadata and data extent as ``gguf.GGUFReader`` on real files (files the
``gguf`` package writes, with vocabularies and custom alignment, and the bundled demo model); absurd counts and
lengths refused with the limit named; truncated and garbled headers (hypothesis) raise DamagedModelError and
nothing else, and are never read past their end."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import gguf
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine import gguf_info, library
from app.engine.gguf_header import Array, DamagedModelError, Undecodable, parse, read_header
from tests.support.gguf_files import write_gguf


def reference(path: Path) -> tuple[dict[str, object], int, int]:
    """What gguf.GGUFReader finds: metadata (arrays as their lengths), data start, where the tensors end."""
    reader = gguf.GGUFReader(path, "r")
    metadata: dict[str, object] = {}
    for name, found in reader.fields.items():
        if name.startswith("GGUF."):
            continue  # the reader's own pseudo-fields for the header counts
        if found.types[0] == gguf.GGUFValueType.ARRAY:
            nested = found.types[1] == gguf.GGUFValueType.ARRAY  # the reader flattens these: compared apart
            metadata[name] = ("array", int(found.types[1]), "nested" if nested else len(found.data))
        else:
            metadata[name] = found.contents()
    end = max((t.data_offset + t.n_bytes for t in reader.tensors), default=reader.data_offset)
    return metadata, reader.data_offset, end


def ours(path: Path) -> tuple[dict[str, object], int, int]:
    header = read_header(path)
    metadata = {k: ("array", v.item_type, "nested" if v.item_type == 9 else v.count) if isinstance(v, Array) else v
                for k, v in header.metadata.items()}
    return metadata, header.data_start, header.data_end


@pytest.mark.parametrize("options", [
    {},
    {"license": None, "file_type": 7, "tensor_bytes": 1},
    {"vocabulary": 500, "size_label": "135M", "alignment": 64, "tensor_bytes": 10_000},
    {"vocabulary": 3, "alignment": 4096, "context_length": 131072, "name": "Ünïcode ✓"},
])
def test_files_the_gguf_package_writes_read_the_same_as_its_reader(tmp_path: Path, options: dict) -> None:
    path = write_gguf(tmp_path / "m.gguf", **options)
    mine = ours(path)
    assert mine == reference(path)
    assert mine[0]["tokenizer.ggml.tokens" if options.get("vocabulary") else "general.name"]  # not vacuous
    if options.get("vocabulary"):
        assert read_header(path).metadata["tokenizer.ggml.nested"] == Array(9, 3)
    assert 0 <= path.stat().st_size - mine[2] < 4096  # the writer ends the file with the tensor (padded)


def test_the_demo_model_reads_as_before(tmp_path: Path) -> None:
    path = library.demo_model_path()
    assert path is not None
    header = read_header(path)
    assert header.version == 3 and header.tensor_count == 272 and header.alignment == 32
    assert header.data_start == 1_785_664 and header.data_end == path.stat().st_size  # as GGUFReader said
    assert header.metadata["tokenizer.ggml.tokens"] == Array(8, 49_152)
    assert gguf_info.read_info(path) == gguf_info.GgufInfo(
        size=98_362_432, architecture="llama", quantization="Q4_1", context_length=8192, license="apache-2.0",
        title="Smollm2 135M 8k Lc100K Mix1 Ep2", parameters="135M")


def test_read_info_gives_the_panels_fields(tmp_path: Path) -> None:
    path = write_gguf(tmp_path / "m.gguf", context_length=16384, license="mit", size_label="1B", vocabulary=10)
    assert gguf_info.read_info(path) == gguf_info.GgufInfo(
        size=path.stat().st_size, architecture="llama", quantization="Q4_K_M", context_length=16384,
        license="mit", title="Tiny Test", parameters="1B")


@pytest.mark.parametrize("cut", [3000, 1, "header"])
def test_a_truncated_file_is_damaged(tmp_path: Path, cut: int | str) -> None:
    whole = write_gguf(tmp_path / "whole.gguf", tensor_bytes=8192, vocabulary=200).read_bytes()
    path = tmp_path / "cut.gguf"
    if cut == "header":
        path.write_bytes(whole[:read_header(tmp_path / "whole.gguf").data_start - 100])
        expected = "cut off"
    else:
        assert isinstance(cut, int)
        path.write_bytes(whole[:-cut])
        expected = r"truncated: its tensors need [\d,]+ bytes but the file has"
    with pytest.raises(DamagedModelError, match=expected):
        gguf_info.read_info(path)


def header(*parts: bytes) -> io.BytesIO:
    return io.BytesIO(b"".join(parts))


def u32(n: int) -> bytes:
    return struct.pack("<I", n)


def u64(n: int) -> bytes:
    return struct.pack("<Q", n)


def string(text: bytes) -> bytes:
    return u64(len(text)) + text


START = b"GGUF" + u32(3)


@pytest.mark.parametrize(("content", "message"), [
    (b"GGUF" + u32(1) + u64(0) + u64(0), "version 1 is not supported"),
    (START + u64(2**63) + u64(0), "over the limit of 1,000,000"),
    (START + u64(0) + u64(2**40), "over the limit of 65,536"),
    (START + u64(0) + u64(1) + u64(2**64 - 1), "metadata key .* over the limit of 65,536"),
    (START + u64(0) + u64(1) + string(b"k") + u32(8) + u64(2**62), "value of k .* over the limit of 16,777,216"),
    (START + u64(0) + u64(1) + string(b"k") + u32(9) + u32(8) + u64(2**60), "elements, over the limit"),
    (START + u64(0) + u64(1) + string(b"k") + u32(9) + u32(8) + u64(3) + u64(2**40), "in an array .* limit"),
    (START + u64(0) + u64(1) + string(b"k") + u32(9) + u32(4) + u64(1000), "cut off: an array's elements"),
    (START + u64(0) + u64(1) + string(b"k") + u32(99), "unknown value type 99"),
    (START + u64(0) + u64(1) + string(b"k") + u32(9) + (u32(9) + u64(1)) * 6 + u32(0) + u64(0), "nested deeper"),
    (START + u64(0) + u64(1) + string(b"general.alignment") + u32(4) + u32(48), "not a power of two"),
    (START + u64(0) + u64(1) + string(b"\xff\xfe") + u32(0) + b"\0", "key is not UTF-8"),
    (START + u64(1) + u64(0) + string(b"t") + u32(9), "claims 9 dimensions, over the limit of 4"),
    (START + u64(1) + u64(0) + string(b"t") + u32(1) + u64(4) + u32(9999) + u64(0), "unknown ggml type 9999"),
    (b"GGUG" + u32(3), "does not start with 'GGUF'"),
])
def test_absurd_or_broken_headers_are_refused_naming_what_is_wrong(content: bytes, message: str) -> None:
    with pytest.raises(DamagedModelError, match=message):
        parse(header(content), len(content))


def test_a_string_value_that_is_not_utf8_is_kept_as_bytes_and_not_shown() -> None:
    content = START + u64(0) + u64(1) + string(b"general.name") + u32(8) + string(b"\xffbad")
    parsed = parse(header(content), len(content))
    assert parsed.metadata["general.name"] == Undecodable(b"\xffbad") and parsed.data_end == parsed.data_start == 64


class CountingFile(io.BytesIO):
    """Records where reads start, to check the reader never reads at or past the end of the file."""

    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.starts: list[int] = []

    def read(self, size: int | None = -1, /) -> bytes:
        self.starts.append(self.tell())
        return super().read(size)


def sample() -> bytes:
    """A small real file with every part of a header: scalars, strings, arrays of strings, floats and ints, a
    nested array, custom alignment, a tensor."""
    global _SAMPLE
    if _SAMPLE is None:
        import tempfile

        with tempfile.TemporaryDirectory() as folder:
            path = write_gguf(Path(folder) / "s.gguf", vocabulary=20, size_label="1M", alignment=64, tensor_bytes=64)
            _SAMPLE = path.read_bytes()
    return _SAMPLE


_SAMPLE: bytes | None = None


def check(data: bytes) -> None:
    handle = CountingFile(data)
    try:
        parsed = parse(handle, len(data))
    except DamagedModelError:
        pass
    else:
        assert parsed.data_start <= len(data) + parsed.alignment
    assert all(start < len(data) for start in handle.starts)


FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(st.integers(min_value=0))
def test_any_truncation_is_damaged_or_whole(cut: int) -> None:
    data = sample()
    check(data[:cut % (len(data) + 1)])


@FUZZ
@given(st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 255)), min_size=1, max_size=8),
       st.integers(min_value=0))
def test_garbled_bytes_give_only_damaged_model_errors(changes: list[tuple[int, int]], cut: int) -> None:
    data = bytearray(sample())
    header_end = read_header_length(bytes(data))
    for where, byte in changes:
        data[where % header_end] = byte  # in the header, where the structure is
    check(bytes(data[:len(data) - cut % 64]))


@FUZZ
@given(st.binary(max_size=512))
def test_random_bytes_after_the_magic_give_only_damaged_model_errors(tail: bytes) -> None:
    check(START + tail)


def read_header_length(data: bytes) -> int:
    return parse(io.BytesIO(data), len(data)).data_start


def test_a_metadata_read_does_not_import_numpy(tmp_path: Path) -> None:
    """The child that reads metadata spends its time reading, not importing the gguf package and numpy."""
    import subprocess
    import sys

    path = write_gguf(tmp_path / "m.gguf")
    script = ("import sys; from pathlib import Path; from app.engine import gguf_info; "
              f"print(gguf_info.read_info(Path({str(path)!r})).quantization, 'numpy' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          cwd=Path(__file__).parents[3])
    assert done.stdout.split() == ["Q4_K_M", "False"]
