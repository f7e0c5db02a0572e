"""The Local models tab with its app side, on real files: a GGUF file added from disk shows its metadata (read
off the UI thread) and is saved at once; a file that is not GGUF or is truncated is refused and nothing is
saved; a download from a loopback Hub moves the progress bar and registers the verified file; Cancel and a
corrupted copy leave nothing registered; deleting a downloaded model deletes its file; preload and restart run
the engine (a stand-in server) and its log shows in the tab."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from app.engine import download, library
from app.engine.local_models_panel import LocalModelsPanel
from app.engine.manager import BuiltinEngine
from app.settings import Settings, save_settings
from tests.support.fake_hub import FakeHub
from tests.support.gguf_files import write_gguf
from widgets.preferences_local_models import LocalModelsTab

REPO, FILE = "tiny-org/Tiny-GGUF", "tiny-q4_k_m.gguf"
PIECE = 10 * 1024 * 1024  # huggingface_hub writes what it reads in pieces this big


class Session:
    def __init__(self, tmp_path: Path, python: str | None = None) -> None:
        self.settings = Settings()
        self.settings_path = tmp_path / "config" / "settings.json"
        self.engine = BuiltinEngine(self.settings.engine, tmp_path / "data",
                                    **({"python": python} if python else {}))
        self.refreshed = 0

    def refresh_providers(self) -> None:
        self.refreshed += 1

    def save_settings(self, settings: Settings) -> None:
        self.settings = settings
        save_settings(settings, self.settings_path)

    def saved_engine(self) -> dict:
        if not self.settings_path.exists():
            return {}
        return json.loads(self.settings_path.read_text())["engine"]


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session(tmp_path)


def make_panel(qtbot, session: Session) -> tuple[LocalModelsTab, LocalModelsPanel]:
    tab = LocalModelsTab([], LocalModelsPanel.choices(), confirm=lambda _p, _q: True)
    qtbot.addWidget(tab)
    panel = LocalModelsPanel(session, tab)
    closers.append(panel.close)
    return tab, panel


closers: list = []


@pytest.fixture(autouse=True)
def close_panels(qtbot):  # type: ignore[no-untyped-def]
    """As the dialog's finished signal does: children stopped before qtbot deletes the tab."""
    yield
    while closers:
        closers.pop()()


def row_cells(tab: LocalModelsTab, name: str) -> list[str]:
    index = next(i for i, r in enumerate(tab.rows) if r.name == name)
    return [tab.table.item(index, c).text() for c in range(tab.table.columnCount())]


def test_a_file_added_from_disk_is_saved_and_shows_its_metadata(qtbot, session: Session, tmp_path: Path) -> None:
    model = write_gguf(tmp_path / "Mine-Q4_K_M.gguf", context_length=16384, license="mit")
    tab, _panel = make_panel(qtbot, session)
    tab.add_requested.emit(str(model))
    assert session.saved_engine()["models"] == [{"name": "mine-q4_k_m", "path": str(model)}]
    assert session.refreshed == 1 and tab.selected_name() == "mine-q4_k_m"
    qtbot.waitUntil(lambda: row_cells(tab, "mine-q4_k_m")[2:] == ["Q4_K_M", "16,384", "mit"], timeout=10_000)
    qtbot.waitUntil(lambda: row_cells(tab, library.DEMO_MODEL)[2] == "Q4_1", timeout=20_000)  # the demo's own

    tab.default_chosen.emit("mine-q4_k_m")
    assert session.saved_engine()["default_model"] == "mine-q4_k_m"
    assert session.engine.settings.default_model == "mine-q4_k_m"  # the running engine uses it at once
    assert "★ default" in row_cells(tab, "mine-q4_k_m")[0]


@pytest.mark.parametrize("bad", ["not gguf", "truncated"])
def test_a_bad_file_is_refused_and_nothing_is_saved(qtbot, session: Session, tmp_path: Path, bad: str) -> None:
    path = tmp_path / "bad.gguf"
    if bad == "truncated":
        path.write_bytes(write_gguf(tmp_path / "whole.gguf", tensor_bytes=8192).read_bytes()[:-4000])
    else:
        path.write_text("<html>Not found</html>" * 100)
    tab, _panel = make_panel(qtbot, session)
    tab.add_requested.emit(str(path))
    assert tab.problem.text().startswith("Not added:") and tab.problem.isVisibleTo(tab)
    assert ("truncated" if bad == "truncated" else "is not a GGUF model") in tab.problem.text()
    assert session.saved_engine() == {} and [r.name for r in tab.rows] == [library.DEMO_MODEL]


@pytest.fixture
def hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf-home"))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    with FakeHub() as fake:
        fake.add(REPO, FILE, write_gguf(tmp_path / "source.gguf", tensor_bytes=12_000_000).read_bytes())
        monkeypatch.setenv("HF_ENDPOINT", fake.url)
        yield fake


def start_typed_download(qtbot, tab: LocalModelsTab) -> None:
    tab.choice.setCurrentIndex(tab.choice.count() - 1)
    tab.repo_field.setText(REPO)
    tab.file_field.setText(FILE)
    qtbot.mouseClick(tab.download_button, Qt.MouseButton.LeftButton)


def test_a_download_shows_progress_and_registers_the_verified_file(qtbot, session: Session, hub: FakeHub,
                                                                   tmp_path: Path) -> None:
    tab, panel = make_panel(qtbot, session)
    values: list[int] = []
    tab.progress.valueChanged.connect(values.append)
    start_typed_download(qtbot, tab)
    assert not tab.download_button.isEnabled()  # the UI thread is free while the worker downloads
    qtbot.waitUntil(lambda: tab.download_button.isEnabled(), timeout=30_000)
    assert tab.download_status.text().startswith("Downloaded and added tiny-q4_k_m"), tab.download_status.text()
    assert any(0 < v < 1000 for v in values) and tab.progress.value() == 1000
    saved = session.saved_engine()["models"]
    assert saved[0]["name"] == "tiny-q4_k_m"
    assert Path(saved[0]["path"]).parent == panel.models_dir / "tiny-org--Tiny-GGUF"

    tab.select("tiny-q4_k_m")
    tab.delete_requested.emit("tiny-q4_k_m")
    assert session.saved_engine()["models"] == [] and not Path(saved[0]["path"]).exists()


def test_cancel_leaves_nothing_registered_and_the_next_attempt_continues(qtbot, session: Session, hub: FakeHub) -> None:
    tab, panel = make_panel(qtbot, session)
    hub.pause_at = 11_000_000
    start_typed_download(qtbot, tab)
    part = download.destination(panel.models_dir, REPO, FILE).with_suffix(".gguf.part")
    qtbot.waitUntil(lambda: part.exists() and part.stat().st_size >= PIECE, timeout=30_000)
    assert tab.progress.value() > 0 and not tab.download_button.isEnabled()
    qtbot.mouseClick(tab.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: tab.download_button.isEnabled(), timeout=30_000)
    assert "Download stopped" in tab.download_status.text()
    assert session.saved_engine() == {}
    assert not list(panel.models_dir.rglob("*.gguf"))  # only the .part is kept, for the next attempt
    assert part.stat().st_size == PIECE

    start_typed_download(qtbot, tab)  # the next attempt continues from the part
    qtbot.waitUntil(lambda: tab.download_button.isEnabled(), timeout=30_000)
    assert tab.download_status.text().startswith("Downloaded and added"), tab.download_status.text()
    assert hub.transfers()[-1].header("range") == f"bytes={PIECE}-" and not part.exists()


def test_a_corrupted_copy_is_refused(qtbot, session: Session, hub: FakeHub) -> None:
    tab, panel = make_panel(qtbot, session)
    hub.corrupt = True
    start_typed_download(qtbot, tab)
    qtbot.waitUntil(lambda: tab.download_button.isEnabled(), timeout=30_000)
    assert "does not match the Hub's checksum" in tab.download_status.text()
    assert session.saved_engine() == {} and not list(panel.models_dir.rglob("*.gguf*"))


def test_preload_and_restart_run_the_engine_and_show_its_log(qtbot, qasync_loop, tmp_path: Path,
                                                             fake_python: str, monkeypatch) -> None:
    session = Session(tmp_path, python=fake_python)
    model = write_gguf(tmp_path / "tiny.gguf")
    tab, _panel = make_panel(qtbot, session)
    tab.add_requested.emit(str(model))
    tab.select("tiny")
    qtbot.mouseClick(tab.preload_button, Qt.MouseButton.LeftButton)
    qasync_loop.run_until_complete(_wait(lambda: session.engine.status.phase == "ready"))
    assert tab.engine_state.text().startswith("Running tiny (pid ")
    assert tab.engine_state.text().endswith(" Note: context 2,048 tokens, what tiny was trained on (the engine "
                                            "setting of 4,096 is more than it can use).")  # run_context.py
    first = session.engine.pid

    monkeypatch.setenv("FAKE_ENGINE_MODE", "crash")
    qtbot.mouseClick(tab.restart_button, Qt.MouseButton.LeftButton)
    qasync_loop.run_until_complete(_wait(lambda: session.engine.status.phase == "failed"))
    assert tab.engine_state.text().startswith(("Failed:", "The engine could not start"))
    assert tab.log_view.toPlainText() != ""

    monkeypatch.setenv("FAKE_ENGINE_MODE", "ok")
    qtbot.mouseClick(tab.restart_button, Qt.MouseButton.LeftButton)
    qasync_loop.run_until_complete(_wait(lambda: session.engine.status.phase == "ready"))
    assert session.engine.pid != first and tab.engine_state.text().startswith("Running tiny")
    qasync_loop.run_until_complete(session.engine.aclose())


async def _wait(condition) -> None:  # type: ignore[no-untyped-def]
    import asyncio

    for _ in range(400):  # 20 s
        if condition():
            return
        await asyncio.sleep(0.05)
    raise AssertionError("timed out")


def test_the_log_view_follows_the_engine_log_while_shown(qtbot, session: Session) -> None:
    tab, _panel = make_panel(qtbot, session)
    tab.show()
    log = session.engine.log_path
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text("".join(f"line {n}\n" for n in range(100)) + "llama_model_load: loaded meta data\n")
    qtbot.waitUntil(lambda: tab.log_view.toPlainText().endswith("loaded meta data"), timeout=10_000)
    assert tab.log_view.toPlainText().count("\n") == 39  # the last 40 lines


def test_a_file_the_user_adds_shows_its_metadata_at_once(qtbot, session: Session, tmp_path: Path) -> None:
    """The check that accepts the file reads its header; the row shows that read at once instead of waiting for a
    child to read it after the demo model."""
    model = write_gguf(tmp_path / "Mine-Q4_K_M.gguf", context_length=16384, license="mit")
    tab, panel = make_panel(qtbot, session)
    assert panel._reader is not None and panel._reader.running()  # the demo model's read, in a child
    tab.add_requested.emit(str(model))
    assert row_cells(tab, "mine-q4_k_m")[2:] == ["Q4_K_M", "16,384", "mit"]  # no waiting


def test_files_the_user_added_are_read_before_the_demo_model(qtbot, session: Session, tmp_path: Path) -> None:
    from app.engine.settings import LocalModel

    model = write_gguf(tmp_path / "mine.gguf")
    session.settings.engine.models = [LocalModel(name="mine", path=str(model))]  # no metadata cached for it
    tab, panel = make_panel(qtbot, session)
    assert panel._reader is not None and panel._reader.process.arguments()[-1] == str(model)
    qtbot.waitUntil(lambda: row_cells(tab, "mine")[2] == "Q4_K_M", timeout=10_000)


def test_closing_twice_does_nothing_the_second_time(qtbot, session: Session) -> None:
    from PySide6.QtCore import QCoreApplication, QEvent

    _tab, panel = make_panel(qtbot, session)
    panel.close()
    QCoreApplication.sendPostedEvents(panel, QEvent.Type.DeferredDelete)  # the panel is gone
    panel.close()  # as the dialog's finished signal may do again; and the autouse fixture does
