"""The app side of Preferences > Local models: library changes saved at once (as ``parley local`` does), GGUF
metadata read and downloads run in child processes, engine preload and restart, and the engine's state and log.

Library changes (add, delete, default, a finished download) are written to settings.json immediately and given
to the running session; the dialog's OK keeps the engine section as it is then (``PreferencesDialog.add_live_tab``).
Metadata reads and downloads run in child processes (app/engine/child_job.py), never on a thread of the window;
closing the dialog stops a download (its part file is kept for the next attempt). A file the user adds (or a
download finishes) is read whole when it is checked (``library.add_with_info``, milliseconds with our header
reader), and that read's metadata is shown at once, so it never waits behind the other files' reads; the
children read the other files, the user's before the bundled demo model.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, QTimer

from app.engine import catalog, download, gguf_info, library, memory
from app.engine.child_job import ChildJob
from app.engine.gpu_check import GpuCheck
from app.engine.manager import Applied, BuiltinEngine, EngineStatus
from app.engine.settings import EngineSettings
from app.engine.tuning_panel import TuningPanel
from app.settings import Settings, SettingsError
from widgets.preferences_local_models import DownloadChoice, LocalModelsTab, ModelRow

log = logging.getLogger(__name__)

LOG_LINES = 40
LOG_REFRESH_MS = 2000  # the log view follows engine.log this often while the tab is shown


class Session(Protocol):
    settings: Settings
    engine: BuiltinEngine

    def refresh_providers(self) -> None: ...

    def save_settings(self, settings: Settings) -> None: ...


def log_tail(path: Path, lines: int = LOG_LINES) -> str:
    try:
        with path.open("rb") as handle:
            handle.seek(0, 2)
            handle.seek(max(0, handle.tell() - 16_384))
            text = handle.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class LocalModelsPanel(QObject):
    def __init__(self, session: Session, tab: LocalModelsTab) -> None:
        super().__init__()  # not the tab's child: its child processes must outlive the tab until close()
        self.session, self.tab = session, tab
        self.data_dir = session.engine.log_path.parent
        self.models_dir = self.data_dir / download.MODELS_FOLDER
        self.cache = gguf_info.InfoCache(self.data_dir)
        self.problems: dict[str, str] = {}
        self.downloader: ChildJob | None = None
        self._reader: ChildJob | None = None
        self._unread: list[Path] = []
        self.closed = False
        self._shut = False  # close() has run
        self.state_text = ""
        self.log_timer = QTimer(self)
        self.log_timer.setInterval(LOG_REFRESH_MS)
        self.log_timer.timeout.connect(self._follow_log)
        self.log_timer.start()
        self._tasks: set[asyncio.Future[Any]] = set()
        self.last_model: str | None = None  # what "Restart engine" starts again, also after a crash
        tab.default_chosen.connect(self.make_default)
        tab.add_requested.connect(self.add)
        tab.delete_requested.connect(self.delete)
        tab.download_requested.connect(self.start_download)
        tab.cancel_requested.connect(self.cancel_download)
        tab.preload_requested.connect(self.preload)
        tab.restart_requested.connect(self.restart)
        session.engine.add_listener(self.show_engine)
        tab.destroyed.connect(self._tab_gone)
        self.gpu = GpuCheck(self, self.data_dir)  # asked of a child: llama.cpp stays out of the window
        self.tuning = TuningPanel(session.engine, tab.tuning, self.engine_settings, self.cache, self._commit, self.gpu)
        self.gpu.start(self._gpu_known)
        self.refresh()
        self.show_engine(session.engine.status)

    def _tab_gone(self, *_: object) -> None:
        self.closed = True  # nothing more is shown; close() still stops the children
        self.log_timer.stop()
        self.session.engine.remove_listener(self.show_engine)
        self.tuning.close()

    def close(self) -> None:
        """The dialog closed: stop the children (a download's part file stays) and stop listening."""
        if self._shut:
            return  # closed already (the panel may be gone): a second close does nothing
        self.closed = self._shut = True  # a reader ending below must not start the next one
        self.log_timer.stop()
        self.session.engine.remove_listener(self.show_engine)
        self.tuning.close()
        self.gpu.stop()
        for job in (self.downloader, self._reader):
            if job is not None and job.running():
                job.stop()
                job.process.waitForFinished(3000)
        self.downloader = self._reader = None
        self.deleteLater()

    @staticmethod
    def choices() -> list[DownloadChoice]:
        return [DownloadChoice(m.name, m.repo, m.file, m.size, m.license, m.note) for m in catalog.CATALOG]

    # --- rows ---------------------------------------------------------------------------------------
    def engine_settings(self) -> EngineSettings:
        return self.session.settings.engine

    def rows(self) -> list[ModelRow]:
        engine = self.engine_settings()
        default = library.default_model_name(engine)
        rows: list[ModelRow] = []
        unread: list[Path] = []
        unread_demo: list[Path] = []
        for entry in library.models(engine):
            try:
                size: int | None = entry.path.stat().st_size
            except OSError:
                size = None
            info = self.cache.cached(entry.path) if size is not None else None
            note = self.problems.get(str(entry.path), "")
            if size is None:
                note = "the file is missing: add it again or delete this entry"
            elif info is None and not note:
                note = "reading its metadata…"
                (unread_demo if entry.demo else unread).append(entry.path)
            elif not note:
                note = memory.too_big_warning(size) or ""
            rows.append(ModelRow(entry.name, str(entry.path), size, info.quantization if info else None,
                                 info.context_length if info else None,
                                 info.license if info else None, entry.name == default,
                                 entry.demo, note))
        self._read_in_background(unread + unread_demo)  # the demo, which is never new, last
        return rows

    def refresh(self) -> None:
        if not self.closed:
            self.tab.set_rows(self.rows())
            self.tuning.refresh()  # the default model's trained context bounds the context size

    def _gpu_known(self) -> None:
        if not self.closed:
            self.tuning.gpu_known()

    def _read_in_background(self, paths: list[Path]) -> None:
        """One child at a time reads the next unread file's metadata (``worker_main info``)."""
        self._unread = [p for p in paths if str(p) not in self.problems]
        if self.closed or (self._reader is not None and self._reader.running()):
            return
        if not self._unread:
            return
        path = self._unread.pop(0)

        def message(line: dict[str, Any]) -> None:
            if "info" in line:
                self.cache.remember(path, gguf_info.GgufInfo(**line["info"]))

        def ended(error: dict[str, Any] | None) -> None:
            if error is not None:
                self.problems[str(path)] = str(error["error"])
            self._reader = None
            self.refresh()

        self._reader = ChildJob(self, ["info", str(path)], message, ended)

    # --- library changes, saved at once --------------------------------------------------------------
    def _commit(self, engine: EngineSettings) -> Applied:
        session = self.session
        try:  # merged with what `parley` commands saved meanwhile (app/settings/shared_file.py)
            session.save_settings(session.settings.model_copy(update={"engine": engine}))
        except SettingsError as problem:
            self.tab.show_problem(f"{problem} The change applies to this session only.")
        applied = session.engine.apply_settings(session.settings.engine)
        session.refresh_providers()
        self.refresh()
        return applied

    def make_default(self, name: str) -> None:
        engine = self.engine_settings().model_copy(deep=True)
        engine.default_model = None if name == library.DEMO_MODEL else name
        self._commit(engine)

    def add(self, path: str) -> None:
        engine = self.engine_settings().model_copy(deep=True)
        try:
            entry, info = library.add_with_info(engine, path)
        except (library.ModelFileError, ValueError) as exc:
            self.tab.show_problem(f"Not added: {str(exc).splitlines()[0]}")
            return
        self.cache.remember(Path(entry.path), info)
        self._commit(engine)
        self.tab.select(entry.name)

    def delete(self, name: str) -> None:
        engine = self.engine_settings().model_copy(deep=True)
        entry = next((m for m in engine.models if m.name == name), None)
        try:
            library.remove(engine, name)
        except (library.UnknownModelError, ValueError) as exc:
            self.tab.show_problem(str(exc).strip('"'))
            return
        self._commit(engine)
        if entry is not None and Path(entry.path).resolve().is_relative_to(self.models_dir.resolve()):
            Path(entry.path).unlink(missing_ok=True)  # Parley downloaded it; a file the user added stays

    # --- downloads ----------------------------------------------------------------------------------
    def start_download(self, repo: str, file: str) -> None:
        if self.closed or (self.downloader is not None and self.downloader.running()):
            return
        try:
            download.check_names(repo, file)
        except download.DownloadError as exc:
            self.tab.download_finished(str(exc), ok=False)
            return
        self.tab.set_downloading(f"{file} from {repo}")
        result: dict[str, str] = {}

        def message(line: dict[str, Any]) -> None:
            if "progress" in line and not self.closed:
                phase, done, total = line["progress"]
                self.tab.set_download_progress(phase, done, total)
            elif "path" in line:
                result["path"] = line["path"]

        def ended(error: dict[str, Any] | None) -> None:
            job, self.downloader = self.downloader, None
            if job is not None and job.stopped:
                self._download_done(None, "Download stopped. Download it again to continue where it stopped.")
            elif error is not None or "path" not in result:
                self._download_done(None, str((error or {}).get("error", "The download ended without a file.")))
            else:
                self._download_done(Path(result["path"]), "")

        self.downloader = ChildJob(self, ["download", repo, file, str(self.models_dir)], message, ended)

    def cancel_download(self) -> None:
        if self.downloader is not None:
            self.downloader.stop()

    def _download_done(self, path: Path | None, message: str) -> None:
        if self.closed:
            return
        if path is None:
            self.tab.download_finished(message, ok=False)
            return
        engine = self.engine_settings().model_copy(deep=True)
        existing = next((m for m in engine.models if Path(m.path) == path.resolve()), None)
        if existing is not None:
            self.tab.download_finished(f"{path.name} is downloaded and already listed as {existing.name}.", ok=True)
            return
        try:
            entry, info = library.add_with_info(engine, path)
        except (library.ModelFileError, ValueError) as exc:
            self.tab.download_finished(f"Downloaded to {path}, but not added: {exc}", ok=False)
            return
        self.cache.remember(Path(entry.path), info)
        self._commit(engine)
        self.tab.select(entry.name)
        warning = memory.too_big_warning(path.stat().st_size)
        self.tab.download_finished(f"Downloaded and added {entry.name}." + (f" Note: {warning}." if warning else ""),
                                   ok=True)

    # --- the engine ---------------------------------------------------------------------------------
    def _run(self, coroutine) -> None:  # type: ignore[no-untyped-def]
        task = asyncio.ensure_future(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def preload(self, name: str) -> None:
        entry = library.resolve(self.engine_settings(), name)
        warning = memory.too_big_warning(entry.path.stat().st_size) if entry.path.exists() else None
        if warning:
            self.tab.show_problem(f"Loading anyway: {warning}.")
        self._run(self._guarded(self.session.engine.ensure(name)))

    def restart(self) -> None:
        engine = self.session.engine
        self._run(self._guarded(engine.restart(engine.running_model or self.last_model)))

    async def _guarded(self, coroutine) -> None:  # type: ignore[no-untyped-def]
        try:
            await coroutine
        except Exception as exc:  # shown in the tab; the engine has reported it to its listeners too
            if not self.closed:
                self.tab.set_engine(f"The engine could not start: {exc}",
                                    log_tail(self.session.engine.log_path))

    def show_engine(self, status: EngineStatus) -> None:
        engine = self.session.engine
        if status.model and status.phase in ("starting", "ready"):
            self.last_model = status.model
        if status.phase == "ready":
            text = f"Running {status.model} (pid {engine.pid})." + (f" Note: {status.note}." if status.note else "")
        elif status.phase == "starting":
            text = f"Loading: {status.detail}…"
        elif status.phase == "failed":
            text = f"Failed: {status.detail}. Restart engine tries again."
        else:
            text = "Not running: it starts when a run needs it, or with Load selected model now."
        self.state_text = text
        self.tab.set_engine(text, log_tail(engine.log_path))

    def _follow_log(self) -> None:
        if not self.closed and self.tab.isVisible():
            self.tab.set_engine(self.state_text, log_tail(self.session.engine.log_path))


def attach_local_models(dialog: object, session: Session) -> LocalModelsPanel | None:
    """Add the Local models tab to a Preferences dialog that takes live tabs; returns its panel."""
    add_live_tab = getattr(dialog, "add_live_tab", None)
    if add_live_tab is None:
        return None
    tab = LocalModelsTab([], LocalModelsPanel.choices())
    panel = LocalModelsPanel(session, tab)
    add_live_tab(tab, "Local models", "engine", lambda: session.settings.engine.model_dump())
    dialog.finished.connect(panel.close)  # type: ignore[attr-defined]
    dialog.local_models_panel = panel  # type: ignore[attr-defined]  # kept alive as long as the dialog
    return panel
