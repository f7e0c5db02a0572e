"""``parley local download`` as a real process against a loopback server that answers like the Hugging Face
Hub (HF_ENDPOINT; HF_HOME in a temp folder, HF_HUB_OFFLINE unset): progress on stderr, the verified file
registered; Ctrl+C mid-transfer keeps the fetched part and the same command continues it; a corrupted copy is
refused and nothing is registered; the curated list."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from app.engine import catalog
from tests.support.cli_process import REPO, parley_command, run_parley
from tests.support.fake_hub import FakeHub
from tests.support.gguf_files import write_gguf

HUB_REPO = "tiny-org/Tiny-GGUF"
FILE = "tiny-q4_k_m.gguf"
PIECE = 10 * 1024 * 1024


@pytest.fixture
def hub(tmp_path: Path):  # type: ignore[no-untyped-def]
    data = write_gguf(tmp_path / "source.gguf", tensor_bytes=12_000_000).read_bytes()
    with FakeHub() as fake:
        fake.add(HUB_REPO, FILE, data)
        yield fake


def hub_env(hub: FakeHub, tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_TOKEN")}
    return {**env, "HF_ENDPOINT": hub.url, "HF_HOME": str(tmp_path / "hf-home")}


def saved_engine() -> dict:
    path = Path(os.environ["PARLEY_HOME"]) / "config" / "settings.json"
    return json.loads(path.read_text())["engine"] if path.exists() else {}


def test_a_download_is_verified_registered_and_made_the_default(hub: FakeHub, tmp_path: Path) -> None:
    done = run_parley("local", "download", HUB_REPO, FILE, "--default", env=hub_env(hub, tmp_path))
    assert done.returncode == 0, done.stderr
    assert "[downloading:" in done.stderr and "(100 %)]" in done.stderr and "[checking:" in done.stderr
    engine = saved_engine()
    assert engine["default_model"] == "tiny-q4_k_m"
    path = Path(engine["models"][0]["path"])
    assert path.name == FILE and path.read_bytes() == hub.files[(HUB_REPO, FILE)].data


def test_ctrl_c_keeps_the_part_and_the_same_command_continues(hub: FakeHub, tmp_path: Path) -> None:
    hub.pause_at = 11_000_000
    env = hub_env(hub, tmp_path)
    child = subprocess.Popen([*parley_command(), "local", "download", HUB_REPO, FILE], cwd=REPO, env=env,
                             stderr=subprocess.PIPE, text=True)
    folder = Path(os.environ["PARLEY_HOME"]) / "data" / "models" / "tiny-org--Tiny-GGUF"
    part = folder / (FILE + ".part")
    deadline = time.monotonic() + 30
    while not (part.exists() and part.stat().st_size >= PIECE) and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGINT)
    _, stderr = child.communicate(timeout=30)
    assert child.returncode == 130, stderr
    assert "run the same command again to continue" in stderr
    assert part.stat().st_size == PIECE and not (folder / FILE).exists() and saved_engine() == {}

    again = run_parley("local", "download", HUB_REPO, FILE, env=env)
    assert again.returncode == 0, again.stderr
    assert hub.transfers()[-1].header("range") == f"bytes={PIECE}-"
    assert (folder / FILE).read_bytes() == hub.files[(HUB_REPO, FILE)].data and not part.exists()
    assert saved_engine()["models"][0]["name"] == "tiny-q4_k_m"


def test_a_corrupted_copy_is_refused_and_nothing_is_registered(hub: FakeHub, tmp_path: Path) -> None:
    hub.corrupt = True
    refused = run_parley("local", "download", HUB_REPO, FILE, env=hub_env(hub, tmp_path))
    assert refused.returncode == 1
    assert "does not match the Hub's checksum" in refused.stderr and "download it again" in refused.stderr
    assert saved_engine() == {}
    assert list((Path(os.environ["PARLEY_HOME"]) / "data" / "models").rglob("*.gguf*")) == []


def test_the_curated_list_names_sizes_and_an_unknown_name_is_a_usage_error(hub: FakeHub, tmp_path: Path) -> None:
    listed = run_parley("local", "download", "--list")
    assert listed.returncode == 0
    assert all(m.name in listed.stdout and m.repo in listed.stdout for m in catalog.CATALOG)
    assert "0.5 GB" in listed.stdout
    unknown = run_parley("local", "download", "no-such-model", env=hub_env(hub, tmp_path))
    assert unknown.returncode == 2 and "--list" in unknown.stderr
    assert hub.server.requests == []
