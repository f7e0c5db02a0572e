"""Downloads through the real ``huggingface_hub`` client from a loopback server that answers like the Hub:
progress, a transfer cut off half-way that resumes, a stop (Ctrl+C, Cancel) that the next attempt continues,
a corrupted copy refused and deleted, too little disk space, unknown repositories and files. Nothing may reach
huggingface.co: every name lookup other than the loopback's fails the test."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import pytest

from app.engine import download
from tests.support.fake_hub import FakeHub
from tests.support.gguf_files import write_gguf

REPO = "tiny-org/Tiny-GGUF"
FILE = "tiny-q4_k_m.gguf"
PIECE = 10 * 1024 * 1024  # huggingface_hub's DOWNLOAD_CHUNK_SIZE: what it reads and writes at a time


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """HF_HOME in a temp dir, HF_HUB_OFFLINE unset, and any DNS lookup of an outside name is a failure."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.delenv("HF_TOKEN", raising=False)
    looked_up: list[str] = []
    real = socket.getaddrinfo

    def guarded(host, *args, **kwargs):  # type: ignore[no-untyped-def]
        if host not in ("127.0.0.1", "localhost", "::1"):
            looked_up.append(str(host))
            raise OSError(f"test tried to look up {host}")
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", guarded)
    from huggingface_hub import constants

    # as if huggingface_hub had been imported before HF_ENDPOINT was set, with no cached agent registry (which it
    # fetches from its endpoint once a day)
    monkeypatch.setattr(constants, "ENDPOINT", "https://huggingface.co")
    monkeypatch.setattr(constants, "HUGGINGFACE_CO_URL_TEMPLATE",
                        "https://huggingface.co/{repo_id}/resolve/{revision}/{filename}")
    monkeypatch.setattr(constants, "AGENT_HARNESSES_PATH", str(tmp_path / "hf-home" / "agent_harnesses.json"))
    yield looked_up
    assert looked_up == []


@pytest.fixture
def model_bytes(tmp_path: Path) -> bytes:
    """12 MB: more than one of huggingface_hub's 10 MiB read pieces, so a cut or a stop keeps whole pieces."""
    return write_gguf(tmp_path / "source.gguf", tensor_bytes=12_000_000).read_bytes()


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, model_bytes: bytes):  # type: ignore[no-untyped-def]
    with FakeHub() as fake:
        fake.add(REPO, FILE, model_bytes)
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


def test_a_download_reports_progress_verifies_and_lands_under_its_final_name(hub: FakeHub, tmp_path: Path,
                                                                             model_bytes: bytes) -> None:
    seen: list[tuple[str, int, int | None]] = []
    path = download.download(REPO, FILE, tmp_path / "models", progress=lambda *p: seen.append(p))
    assert path == tmp_path / "models" / "tiny-org--Tiny-GGUF" / FILE
    assert path.read_bytes() == model_bytes
    assert [p for p in path.parent.iterdir()] == [path]  # no part file left
    assert seen[-1] == ("verify", len(model_bytes), len(model_bytes))
    assert ("download", len(model_bytes), len(model_bytes)) in seen
    assert all(r.header("host", "").startswith("127.0.0.1") for r in hub.server.requests + hub.transfers())
    assert "/api/agent-harnesses" in [r.path for r in hub.server.requests]  # huggingface_hub's own, kept here


def test_a_transfer_cut_off_half_way_resumes_from_where_it_stopped(hub: FakeHub, tmp_path: Path,
                                                                   model_bytes: bytes) -> None:
    hub.break_after = [11_000_000]
    path = download.download(REPO, FILE, tmp_path / "models")
    assert path.read_bytes() == model_bytes
    ranges = [r.header("range") for r in hub.transfers()]
    assert ranges == [None, f"bytes={PIECE}-"]  # the piece read before the cut is kept, not fetched again


def test_a_stopped_download_keeps_its_part_and_the_next_attempt_continues(hub: FakeHub, tmp_path: Path,
                                                                          model_bytes: bytes) -> None:
    cancel = threading.Event()
    with pytest.raises(download.DownloadCancelled):
        download.download(REPO, FILE, tmp_path / "models", progress=lambda *p: cancel.set(), cancel=cancel)
    target = download.destination(tmp_path / "models", REPO, FILE)
    part = target.with_name(target.name + ".part")
    kept = part.stat().st_size
    assert 0 < kept < len(model_bytes) and not target.exists()

    path = download.download(REPO, FILE, tmp_path / "models")
    assert path.read_bytes() == model_bytes and not part.exists()
    assert hub.transfers()[-1].header("range") == f"bytes={kept}-"


def test_a_corrupted_copy_is_refused_and_deleted(hub: FakeHub, tmp_path: Path) -> None:
    hub.corrupt = True
    with pytest.raises(download.ChecksumMismatch, match=r"does not match the Hub's checksum.*deleted"):
        download.download(REPO, FILE, tmp_path / "models")
    folder = tmp_path / "models" / "tiny-org--Tiny-GGUF"
    assert list(folder.iterdir()) == []


def test_a_part_file_of_another_version_is_started_afresh(hub: FakeHub, tmp_path: Path, model_bytes: bytes) -> None:
    target = download.destination(tmp_path / "models", REPO, FILE)
    target.parent.mkdir(parents=True)
    target.with_name(target.name + ".part").write_bytes(b"x" * 5000)
    target.with_name(target.name + ".part.json").write_text('{"sha256": "old", "size": 1}')
    assert download.download(REPO, FILE, tmp_path / "models").read_bytes() == model_bytes
    assert hub.transfers()[0].header("range") is None


def test_too_little_disk_space_is_refused_before_anything_is_fetched(hub: FakeHub, tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(download, "DISK_MARGIN", 10**18)
    with pytest.raises(download.NotEnoughSpace, match="not enough free disk space"):
        download.download(REPO, FILE, tmp_path / "models")
    assert hub.transfers() == []


def test_unknown_repositories_files_and_bad_names_say_what_to_do(hub: FakeHub, tmp_path: Path) -> None:
    with pytest.raises(download.DownloadError, match="there is no repository nobody/none"):
        download.download("nobody/none", FILE, tmp_path)
    with pytest.raises(download.DownloadError, match=r"has no file other\.gguf"):
        download.download(REPO, "other.gguf", tmp_path)
    with pytest.raises(download.DownloadError, match=r"not a Hugging Face repository id"):
        download.download("no-slash", FILE, tmp_path)
    with pytest.raises(download.DownloadError, match=r"not a \.gguf file"):
        download.download(REPO, "../../etc/passwd.gguf", tmp_path)
    assert hub.transfers() == []


def test_a_refused_transfer_is_reported_not_retried(hub: FakeHub, tmp_path: Path) -> None:
    hub.cdn_status = 403
    with pytest.raises(download.DownloadError, match=r"answered HTTP 403.*try again later"):
        download.download(REPO, FILE, tmp_path / "models")
    assert len(hub.transfers()) == 1


def test_a_server_that_is_gone_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        port = spare.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    with pytest.raises(download.DownloadError, match=r"cannot reach http://127\.0\.0\.1"):
        download.download(REPO, FILE, tmp_path)


HOLDER = """
import sys
from pathlib import Path
from app.engine.download_claim import claimed
with claimed(Path(sys.argv[1])) as mine:
    print("held" if mine else "busy", flush=True)
    sys.stdin.readline()
"""


def test_a_second_download_of_the_same_file_is_told_it_is_busy_and_the_part_is_kept(
        hub: FakeHub, tmp_path: Path, model_bytes: bytes) -> None:
    """Another process downloading the same file (its claim held by a real second process): this one does not
    append into the shared part file, which would fail the checksum and delete both copies, but says so."""
    import subprocess
    import sys

    target = download.destination(tmp_path / "models", REPO, FILE)
    part = target.with_name(target.name + ".part")
    target.parent.mkdir(parents=True)
    part.write_bytes(model_bytes[:PIECE])  # the other download's progress
    lock = target.with_name(target.name + ".part.lock")
    repo_root = Path(__file__).resolve().parents[3]
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(lock)], cwd=repo_root, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(download.DownloadBusy, match="already being downloaded by another Parley"):
            download.download(REPO, FILE, tmp_path / "models")
        assert part.read_bytes() == model_bytes[:PIECE] and not target.exists()
        assert hub.transfers() == []
    finally:
        holder.communicate("\n", timeout=30)
    assert holder.returncode == 0 and not lock.exists()  # the holder removed its lock file
    path = download.download(REPO, FILE, tmp_path / "models")  # the claim is free again
    assert path.read_bytes() == model_bytes
    assert list(path.parent.iterdir()) == [path]
