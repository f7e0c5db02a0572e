"""The window's behaviour: what Send, Stop, selecting, searching, renaming and deleting conversations do.

This is the one place that joins the widgets to the database, the settings file, the keyring and the run
controller. Widgets only emit signals and show what they are given; this module reads and writes.
Sending goes through the run service (app/runs/run_service.py), the same one ``parley chat`` uses: it writes the
user's message before a request starts; when that write or the provider setup fails, the text goes back into
the composer, so nothing typed is lost.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog

from app.engine.manager import Applied, BuiltinEngine
from app.engine.window_link import EngineLink, builtin_choices, outside_change_note, welcome_note
from app.errors import EnvironmentProblem
from app.secrets import SecretStoreError
from app.secrets.names import provider_entry
from app.secrets.store import SecretStore
from app.session import qt_asyncio
from app.session.chat_actions import ChatActions
from app.session.chat_settings_binding import ChatSettingsBinding
from app.session.conversation_pages import show_conversations
from app.session.conversation_views import ConversationViews
from app.session.damaged_notice import DamagedNotice
from app.session.dialog_factories import add_provider_dialog, preferences_dialog
from app.session.key_recheck import SendKeyRecheck, stored_key
from app.session.keyring_status import KeyringStatusLine
from app.session.live_runs import LiveRun, LiveRuns
from app.session.search_wiring import SearchWiring
from app.session.settings_watch import SettingsWatch
from app.session.window_attachments import DraftAttachments, stored_views
from app.session.window_usage import UsageWiring
from app.settings import ProviderSettings, Settings
from app.settings.model import (
    MAX_FONT_SIZE,
    MAX_SEARCH_RESULTS,
    MAX_SYSTEM_PROMPT_CHARS,
    MIN_FONT_SIZE,
    SEARCH_BACKENDS,
)
from app.settings.shared_file import SettingsFile
from app.storage import History, StorageError
from orchestration.messages import Message, UserMessage
from tools.mcp import McpManager, McpServerSettings, ServerStatus, exposed_name, secret_entry
from tools.mcp import summary as mcp_summary
from widgets.conversation_display import leave_empty
from widgets.conversation_list import SearchHit
from widgets.main_window import MainWindow
from widgets.preferences_keys import KeyActions
from widgets.preferences_schema import SettingsSchema
from widgets.search_snippet import MARK_END, MARK_START
from widgets.theme import ThemeController

# Loaded on first use, not with the window (issue 17: the idle window's memory): the run service with the chat
# loop (the first send), export and import (the first menu use), the add-provider checks, local-server discovery,
# the run inspector's traces, conversation search and the approval bar's wiring. Functions import them where
# they are called; tests/app/test_start_path_imports.py keeps them off the idle window.
if TYPE_CHECKING:
    import asyncio  # with the loop, started when first needed (app/session/qt_asyncio.py)

    from app.attachments import PreparedAttachment
    from app.runs.chat_recording import Placement
    from app.runs.chat_turn import ChatSettings
    from app.runs.run_service import RegistryFactory
    from app.session.local_discovery import LocalDiscovery
    from orchestration.loop import RunResult
    from orchestration.providers.config import ProviderConfig

log = logging.getLogger(__name__)

SEARCH_LIMIT = 50  # hits shown for a conversation search
QUIT_RUN_WAIT_S = 5.0  # on quit, how long a stopped run may take to save its partial answer

ExportPathChooser = Callable[[str], str | None]


def export_start_path(filename: str) -> str:
    """Where a save dialog starts: ``filename`` in the user's Documents folder, never the program's working folder."""
    from app.session.conversation_files import documents_folder

    return str(documents_folder() / filename)


def parley_version() -> str:
    from importlib import metadata

    try:
        return metadata.version("parley")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return ""


def choose_export_path(suggested: str) -> str | None:
    path, _ = QFileDialog.getSaveFileName(None, "Export the run as JSON", export_start_path(suggested),
                                          "JSON (*.json)")
    return path or None


# The settings model as the Preferences dialog sees it (widgets never import app).
SETTINGS_SCHEMA = SettingsSchema(settings_model=Settings, provider_model=ProviderSettings,
                                 search_backends=SEARCH_BACKENDS, max_search_results=MAX_SEARCH_RESULTS,
                                 min_font_size=MIN_FONT_SIZE, max_font_size=MAX_FONT_SIZE,
                                 max_system_prompt_chars=MAX_SYSTEM_PROMPT_CHARS)


def preference_keys(secrets: SecretStore) -> KeyActions:
    """The preferences dialog's access to keys: through the SecretStore, which refuses plaintext storage."""
    def keyring_problem() -> str | None:
        status = secrets.status(probe=False)
        return None if status.usable else (status.problem or f"The keyring ({status.backend}) cannot be used.")

    return KeyActions(location=secrets.location, store=secrets.store, store_for_session=secrets.store_for_session,
                      delete=secrets.delete, keyring_problem=keyring_problem)


def window_problem(problem: Exception) -> str:
    """A problem found before a run, worded for the window (its menus and pickers, not the CLI's flags)."""
    from app.runs.run_service import MissingKeyError, MissingModelError, NoProviderError, UnknownProviderError

    if isinstance(problem, NoProviderError | UnknownProviderError):
        return ("No provider is set up. Add one with “Add a provider…” below (or `parley providers add` in a "
                "terminal), then send again.")
    if isinstance(problem, MissingModelError):
        return f"Provider {problem.provider} has no model chosen. Pick one in the model picker."
    if isinstance(problem, MissingKeyError):
        return (f"No API key is stored for {problem.provider}. Add it with Preferences (Ctrl+,) or with "
                f"`parley keys set {problem.provider}`.")
    return str(problem)


if TYPE_CHECKING:  # built on first use (app/session/dialog_factories.py), off the start path
    from widgets.add_provider_dialog import AddProviderDialog, NewProvider
    from widgets.preferences_dialog import PreferencesDialog
    from widgets.preferences_mcp import McpHooks

DialogFactory = Callable[..., "AddProviderDialog"]
PreferencesFactory = Callable[..., "PreferencesDialog"]


class ChatSession(QObject):
    def __init__(self, window: MainWindow, history: History | None, settings: Settings, settings_path: Any,
                 secrets: SecretStore, registry_factory: RegistryFactory, *,
                 dialog_factory: DialogFactory = add_provider_dialog, storage_problem: str | None = None,
                 discover: bool = True, theme: ThemeController | None = None,
                 preferences_factory: PreferencesFactory = preferences_dialog, engine_dir: Path | None = None) -> None:
        super().__init__(window)
        self.window = window
        self.history = history
        self.damaged_notice = DamagedNotice(window, history.path) if history is not None else None
        self.settings = settings
        self.settings_path = settings_path
        self.settings_file = SettingsFile(Path(str(settings_path)), settings)  # shared with `parley` commands
        self.secrets = secrets
        self.registry_factory = registry_factory
        self.dialog_factory = dialog_factory
        self.preferences_factory = preferences_factory
        self.theme = theme
        self.preferences: PreferencesDialog | None = None
        self.controller = LiveRuns(self)  # one run per conversation; runs of different ones may overlap
        self.views = ConversationViews(window, self.controller)
        # the built-in engine: nothing starts until a run needs it (app/engine)
        self.engine = BuiltinEngine(settings.engine, engine_dir or Path(str(settings_path)).parent)
        self.engine_link = EngineLink(self.engine, window)
        self.conversation_id: int | None = None
        self._discovery: LocalDiscovery | None = None
        self._discover_enabled = discover
        self._memory_history: list[Message] = []
        self._mcp_reconnect: asyncio.Future[None] | None = None
        self._mcp_server_reconnects: set[asyncio.Future[None]] = set()
        self.mcp = McpManager(settings.mcp_servers, self._secret_lookup)
        self.mcp.add_listener(self._mcp_changed)
        self.chat_binding = ChatSettingsBinding(
            window.composer, settings=lambda: self.settings, history=history,
            conversation_id=lambda: self.conversation_id,
            registry=lambda s: self.registry_factory(s, self._secret_lookup), mcp=lambda: self.mcp,
            report=window.show_error_in_chat)

        w = window
        self.draft = DraftAttachments(w.composer, [w.chat_view.viewport(), w.composer.input_widget()],
                                      w.show_error_in_chat)
        self._sent_attachments: dict[int | None, list[PreparedAttachment]] = {}  # by conversation, while it runs
        w.composer.send_requested.connect(self.send)
        w.composer.stop_requested.connect(lambda: self.controller.stop_conversation(self.conversation_id))
        w.conversations.conversation_selected.connect(self.open_conversation)
        w.conversations.new_chat_requested.connect(self.new_chat)
        w.conversations.search_changed.connect(self.search)
        w.conversations.rename_requested.connect(self.rename)
        w.conversations.delete_requested.connect(self.delete)
        w.conversations.pin_requested.connect(self.pin)
        w.welcome.add_provider_requested.connect(self.add_provider)
        w.preferences_requested.connect(self.open_preferences)
        self.controller.run_ended.connect(self._run_finished)
        self.controller.crashed.connect(self._run_crashed)
        self.choose_export_path: ExportPathChooser = choose_export_path
        w.inspector_run_selected.connect(self.show_run)  # the drawer is built when first opened
        w.inspector_export_requested.connect(self.export_run)
        w.inspector_shown.connect(self.refresh_runs)
        self.choose_conversation_file: Callable[[Path, str], str | None] = self._choose_conversation_file
        self.choose_import_file: Callable[[], str | None] = self._choose_import_file
        self._import_task: asyncio.Task[None] | None = None
        w.menus.export_requested.connect(self.export_conversation)
        w.menus.import_requested.connect(self.import_file)
        w.menus.theme_requested.connect(self.set_theme)
        w.menus.version_lookup = parley_version  # read when About opens: importlib.metadata is ~3.5 MB idle
        w.menus.set_theme(settings.ui.theme)
        self.views.show_new()  # the window opens on a new chat, with its hint
        if storage_problem:
            w.show_error_in_chat(storage_problem)
        self.actions = ChatActions(self, window_problem, parent=self)  # the per-message actions (chat_actions.py)
        self.keyring_line = KeyringStatusLine(window, secrets)  # filled when the keyring is first used
        self.key_recheck = SendKeyRecheck(self, window_problem)  # a key added elsewhere since the note said "no key"
        self.refresh_providers()
        self.chat_binding.show_conversation(None)
        self.refresh_conversations()
        self.start_mcp()
        self._apply_appearance(self.settings)
        self.usage = UsageWiring(self, parent=self)  # spend in the status bar, budget, answers' costs (window_usage.py)
        self.search_wiring = SearchWiring(self, parent=self)  # hits open at their message; older attachments indexed
        self.settings_watch = SettingsWatch(self, self.settings_file, lambda: self.settings,  # `parley local set`
                                            self.adopt_outside_settings, w.show_error_in_chat)  # and others

    # --- providers ----------------------------------------------------------------------------------
    def refresh_providers(self) -> None:
        models = [(p.id, p.default_model or "") for p in self.settings.providers]
        models = models + builtin_choices(self.settings)
        self.window.composer.set_models(models)
        self.actions.set_models([m for m in models if m[1]])
        default = next((p for p in self.settings.providers if p.id == self.settings.default_provider), None)
        if default is not None and self.conversation_id is None:  # an open conversation keeps its own model
            self.window.composer.set_current_model(default.id, default.default_model or "")
        self.window.welcome.set_offline_note(welcome_note(self.settings) if not self.settings.providers else "")
        self.window.show_welcome(not self.settings.providers and self.conversation_id is None)
        self.chat_binding.refresh()
        if not self.settings.providers and self._discover_enabled:
            self.start_discovery()
        elif not self.settings.providers:
            self.window.welcome.set_servers([])
        self._update_status()

    def background_tasks(self) -> list[asyncio.Future[Any]]:
        """MCP reconnects, imports and a key being looked for (key_recheck.py) still running."""
        return [t for t in (self._mcp_reconnect, self._import_task, *self._mcp_server_reconnects,
                            *self.key_recheck.tasks()) if t is not None and not t.done()]

    def quitting(self) -> None:
        """The application is about to quit (called synchronously from ``aboutToQuit``): stop the run and cancel
        background work at once, before Qt can step their tasks outside the running loop."""
        self.controller.stop()
        self.search_wiring.stop()
        self.settings_watch.stop()
        for task in self.background_tasks():
            task.cancel()

    async def aclose(self) -> None:
        """Quitting: stop the run (its partial answer is saved, marked interrupted), cancel background work and
        stop the MCP servers, so nothing is left running on a loop about to close."""
        import asyncio

        self.quitting()
        try:
            await asyncio.wait_for(self.controller.wait(), QUIT_RUN_WAIT_S)
        except TimeoutError:
            log.warning("the run did not end within %g s of quitting; its answer so far was checkpointed",
                        QUIT_RUN_WAIT_S)
        await asyncio.gather(*self.background_tasks(), return_exceptions=True)
        await self.mcp.aclose()
        await self.engine.aclose()

    def start_discovery(self) -> None:
        """Look for local servers on a thread, without the asyncio loop (app/session/local_discovery.py); the
        welcome panel lists what answers."""
        if self._discovery is None:
            from app.session.local_discovery import LocalDiscovery

            self._discovery = LocalDiscovery(self.window.welcome.set_servers, self)
        self._discovery.start()

    def add_provider(self, preset: str = "", base_url: str = "") -> AddProviderDialog:
        """Show the dialog (window-modal, not blocking the loop, so "List models" and "Test" run); OK adds it."""
        qt_asyncio.ensure_running()  # its buttons run coroutines
        dialog = self.dialog_factory(self.window, preset=preset, base_url=base_url,
                                     taken_ids={p.id for p in self.settings.providers},
                                     list_models=self._draft_models, test_provider=self._draft_test)
        dialog.accepted.connect(lambda: self._provider_added(dialog.result_provider()))
        dialog.finished.connect(dialog.deleteLater)
        dialog.open()
        return dialog

    async def _draft_models(self, new: NewProvider) -> list[str]:
        from app.runs.provider_check import model_names

        return await model_names(self._draft_config(new))

    async def _draft_test(self, new: NewProvider) -> str:
        from app.runs.provider_check import trial_reply

        return await trial_reply(self._draft_config(new), new.model)

    def _draft_config(self, new: NewProvider) -> ProviderConfig:
        from app.runs.provider_check import draft_config

        return draft_config(new.kind, new.preset, new.base_url, new.api_key, new.id)

    def _provider_added(self, new: NewProvider) -> None:
        entry = ProviderSettings(id=new.id, kind=new.kind, preset=new.preset, base_url=new.base_url,
                                 default_model=new.model)
        self.settings.providers.append(entry)
        if not self.settings.default_provider:
            self.settings.default_provider = entry.id
        try:
            self.save_settings(self.settings)
        except EnvironmentProblem as problem:
            self.window.show_error_in_chat(f"{problem} The provider is kept for this session only.")
        if new.api_key:
            try:
                self.secrets.store(provider_entry(new.id), new.api_key)
            except EnvironmentProblem as problem:
                self.secrets.store_for_session(provider_entry(new.id), new.api_key)
                self.window.show_error_in_chat(f"{problem} The key is kept in memory for this session only.")
        self.window.welcome.show_notice("")
        self.refresh_providers()

    # --- preferences --------------------------------------------------------------------------------
    async def list_provider_models(self, entry: ProviderSettings, typed_key: str | None) -> list[str]:
        """The dialog's "Test connection": the key typed in the dialog, else the stored one (the keyring asked off
        the UI thread when only the stored-key note says there is none, app/session/key_recheck.py)."""
        from app.runs.provider_setup import key_required, provider_config

        key = typed_key or await stored_key(self.secrets, provider_entry(entry.id), key_required(entry))
        from orchestration.providers.models import list_models

        return [m.id for m in await list_models(provider_config(entry, key))]

    def open_preferences(self) -> PreferencesDialog:
        """Show the dialog (window-modal, not blocking the loop, so connection tests run); OK applies it."""
        qt_asyncio.ensure_running()  # its tests, MCP checks and the local models' reads run coroutines
        if self.preferences is not None and self.preferences.isVisible():
            self.preferences.raise_()
            return self.preferences
        from app.runs.tool_setup import tool_registry

        every_tool = tool_registry(Settings(), self._secret_lookup)  # deny policies hide tools from a run
        self.mcp.register_into(every_tool)  # MCP tools listed so far get their policies here too
        tools = [(tool.name, tool.description) for tool in every_tool]
        dialog = self.preferences_factory(self.window, settings=self.settings, schema=SETTINGS_SCHEMA,
                                          keys=preference_keys(self.secrets),
                                          tools=tools, test_connection=self.list_provider_models,
                                          mcp=self.mcp_hooks(),
                                          tool_defaults={tool.name: "ask" if tool.needs_approval else "allow"
                                                         for tool in every_tool})
        opened_with = self.settings.model_copy(deep=True)  # what the dialog shows; others may save meanwhile
        dialog.accepted.connect(lambda: self.apply_preferences(
            dialog.result_settings(), provider_renames=dialog.providers.renames(),
            mcp_renames=dialog.mcp_servers.renames(), opened_with=opened_with))
        from app.engine.local_models_panel import attach_local_models  # with the dialog, not at start

        attach_local_models(dialog, self)
        dialog.finished.connect(self._preferences_closed)
        dialog.finished.connect(dialog.deleteLater)
        self.preferences = dialog
        dialog.open()
        return dialog

    def _preferences_closed(self) -> None:
        self.preferences = None  # the dialog is deleted once closed; the next Ctrl+, builds a new one

    def apply_preferences(self, settings: Settings, *, provider_renames: dict[str, str] | None = None,
                          mcp_renames: dict[str, str] | None = None, opened_with: Settings | None = None) -> None:
        """Save and apply at once: providers and models in the composer, theme, chat font size; a changed MCP
        server list reconnects in the background; renamed providers take their key, renamed MCP servers their
        secrets and tool settings. Only what the dialog changed since ``opened_with`` is saved: what a
        ``parley`` command saved while it was open stays (app/settings/merge.py)."""
        from app.settings.merge import merge_settings

        settings = Settings.model_validate(settings.model_dump())
        for old, new in (provider_renames or {}).items():
            self._rename_provider(old, new)
        for old, new in (mcp_renames or {}).items():
            self._rename_mcp_server(settings, old, new)
        if opened_with is not None:
            settings = merge_settings(opened_with, settings, self.settings)
        try:
            settings = self.settings_file.save(settings)
        except EnvironmentProblem as problem:
            self.window.show_error_in_chat(f"{problem} The new preferences apply to this session only.")
        self._take_settings(settings)

    def save_settings(self, settings: Settings) -> None:
        """Save ``settings`` to the file shared with ``parley`` commands; what they saved meanwhile is kept and
        applied. Raises EnvironmentProblem (``settings`` still apply to this session)."""
        try:
            merged = self.settings_file.save(settings)
        except EnvironmentProblem:
            self.settings = settings
            raise
        if merged != settings:
            self._take_settings(merged)
        self.settings = merged

    def adopt_outside_settings(self, settings: Settings) -> None:
        """settings.json was changed by another process (app/session/settings_watch.py): applied as Preferences'
        OK applies it, and the status bar says what became of a changed engine setting."""
        engine_changed = settings.engine != self.settings.engine
        applied = self._take_settings(settings)
        panel = getattr(self.preferences, "local_models_panel", None)
        if panel is not None:
            panel.refresh()  # the boxes the user is editing keep their values
        if engine_changed:
            self.window.statusBar().showMessage(outside_change_note(applied), 15000)

    def _take_settings(self, settings: Settings) -> Applied:
        mcp_changed = settings.mcp_servers != self.settings.mcp_servers
        self.settings = settings
        applied = self.engine.apply_settings(settings.engine)  # a restart happens now or after the run
        self.refresh_providers()
        self._apply_appearance(settings)
        self.usage.refresh()  # the budget may have changed
        if mcp_changed:
            import asyncio

            qt_asyncio.ensure_running()
            self._mcp_reconnect = asyncio.ensure_future(self.reconnect_mcp(settings.mcp_servers))
        return applied

    def _apply_appearance(self, settings: Settings) -> None:
        """Theme, then chat font size: the one path for startup and for Preferences > OK."""
        if self.theme is not None and self.theme.mode != settings.ui.theme:
            self.theme.set_mode(settings.ui.theme)
        self.window.chat_view.set_font_size(settings.ui.font_size)
        self.window.menus.set_theme(settings.ui.theme)

    def _rename_provider(self, old: str, new: str) -> None:
        """Move a renamed provider's key to ``provider:<new>``; a failure is reported and the rename still applies
        (conversations record the provider's display name, not its id, so they need no change)."""
        try:
            self.secrets.move(provider_entry(old), provider_entry(new))
        except SecretStoreError as problem:
            self.window.show_error_in_chat(f"Provider {old} was renamed to {new}, but its key could not be moved; "
                                           f"store it again in Preferences > Providers. {problem}")

    def _rename_mcp_server(self, settings: Settings, old: str, new: str) -> None:
        """Move a renamed server's secrets to ``mcp:<new>:NAME`` and its tools' approval and offered settings to
        ``<new>__tool``; a secret that cannot be moved is reported, the rename still applies."""
        server = next((s for s in settings.mcp_servers if s.name == new), None)
        if server is None:
            return
        failed = []
        for secret in [*server.secret_env, *server.secret_headers]:
            try:
                self.secrets.move(secret_entry(old, secret), secret_entry(new, secret))
            except SecretStoreError as problem:
                failed.append(f"{secret_entry(old, secret)}: {problem}")
        if failed:
            self.window.show_error_in_chat(f"MCP server {old} was renamed to {new}, but these secrets could not be "
                                           f"moved; store them again in Preferences > MCP servers. "
                                           f"{' '.join(failed)}")
        prefix = exposed_name(old, "")
        tables: tuple[dict[str, Any], ...] = (settings.tools.approval, settings.tools.enabled)
        for table in tables:
            for name in [n for n in table if n.startswith(prefix)]:
                table[exposed_name(new, name[len(prefix):])] = table.pop(name)

    def always_allow(self, tool_name: str) -> None:
        """The approval panel's "Always allow": the tool's policy becomes ``allow`` and is saved."""
        self.settings.tools.approval[tool_name] = "allow"
        try:
            self.save_settings(self.settings)
        except EnvironmentProblem as problem:
            self.window.show_error_in_chat(f"{problem} {tool_name} is allowed for this session only.")

    def _secret_lookup(self, name: str) -> str | None:
        return self.secrets.lookup(name)

    # --- sending ------------------------------------------------------------------------------------
    def send(self, text: str) -> None:
        if self.controller.is_running(self.conversation_id):  # one run per conversation (Send is Stop then)
            self.window.composer.restore_text(text)
            return
        from app.runs.run_service import RunSetupError  # the first send loads the run service

        self.window.send_refusal.clear()
        try:
            self.start_run(text)
        except (EnvironmentProblem, RunSetupError) as problem:
            self.window.composer.restore_text(text)
            if not self.key_recheck.begin(text, problem):  # a key only the note says is missing: key_recheck.py
                self.refuse_send(window_problem(problem))

    def refuse_send(self, message: str) -> None:
        """Say why a send was refused: in the welcome before any provider exists, else near the composer."""
        if not self.settings.providers and self.conversation_id is None:
            self.window.welcome.show_notice(message)  # the welcome, with its "Add a provider…", stays
            self.window.show_welcome(True)
        else:
            self.window.send_refusal.show_refusal(message)  # near the composer: no answer failed

    def chat_settings(self) -> ChatSettings:
        """The composer's choices for the next run (app/session/chat_settings_binding.py)."""
        return self.chat_binding.chat_settings()

    def start_run(self, text: str | None, *, placement: Placement | None = None,
                  chat: ChatSettings | None = None, attachments: list[PreparedAttachment] | None = None) -> None:
        """Start a run: ``text`` after the open conversation's last message, or where ``placement`` says (the
        message actions: ``text`` None to answer again or continue). A new question takes the draft's
        attachments unless ``attachments`` are given (an edited question keeps its own)."""
        from app.runs.run_service import RunService
        from app.session.window_approver import WindowApprover

        service = RunService(self.settings, self.secrets, mcp=self.mcp, registry_factory=self.registry_factory,
                             engine=self.engine)
        from_draft = attachments is None and text is not None
        if attachments is None:
            attachments = self.draft.items() if text is not None else []
        plan = service.plan(text, chat or self.chat_settings(), attachments)
        if not self.usage.confirm_spend(plan.pricer):  # over the monthly budget and the user said no
            if text is not None:
                self.window.composer.restore_text(text)
            return
        self.window.inspector.set_secrets(plan.secrets)
        prepared = service.begin(plan, self.history, self.conversation_id, memory=self._memory_history,
                                 placement=placement)
        if self.history is None and text is not None:  # without a database the conversation lives in memory only
            self._memory_history.append(UserMessage(content=text, attachments=[a.part for a in attachments]))
        self.conversation_id = conversation_id = prepared.conversation_id
        self.views.saved_as(conversation_id)
        state = self.views.state(conversation_id)
        state.secrets = list(plan.secrets)
        state.expect_reasoning = self.chat_binding.expects_reasoning(plan.target)
        approver = WindowApprover(self.window.approval, lambda: self.settings, self.always_allow,
                                  is_shown=lambda: self.conversation_id == conversation_id,
                                  on_pending=lambda call_ids: self.views.pending(conversation_id, call_ids))
        self.window.show_welcome(False)
        leave_empty(self.window)
        if placement is not None:
            self.actions.reload()  # the branch up to where the run goes
        elif text is not None:
            self.window.chat_view.add_user_message(text, self.draft.views())
        if attachments:
            self._sent_attachments[conversation_id] = attachments
        if from_draft and attachments:
            self.draft.clear()  # only now: a send refused before this point keeps its attachments
        self.window.reasoning_pane.expect_reasoning(state.expect_reasoning)
        self.controller.start(prepared, text or "", approver)
        self.views.starting(conversation_id)
        self.window.set_status(model=f"{plan.target.config.id} · {plan.target.model}")
        self.refresh_conversations()

    def _run_finished(self, live: LiveRun, result: RunResult) -> None:
        if self.history is None:
            self._memory_history.extend(result.new_messages)
        shown = live.conversation_id == self.conversation_id
        self.views.ended(live)
        recorder = live.recorder
        if recorder is not None and recorder.save_error is not None:
            self._report(shown, f"The answer could not be saved: {recorder.save_error}")
        attachments = self._sent_attachments.pop(live.conversation_id, [])
        if result.finish_reason == "error" and not result.answer and recorder is None and shown:
            self.window.composer.restore_text(live.text)
            self.draft.restore(attachments)
        self.refresh_conversations()
        if shown:
            self.actions.after_run()  # the answer gets its id and versions (app/session/chat_actions.py)
            self.refresh_runs()
            self.window.composer.focus_input()

    def _run_crashed(self, live: LiveRun, trace: str) -> None:
        last = trace.strip().splitlines()[-1] if trace.strip() else "unknown error"
        shown = live.conversation_id == self.conversation_id
        self.views.ended(live)
        self._report(shown, f"Internal error in Parley (this is a bug): {last}. The details are in the log; your "
                            "message was saved.")
        if shown:
            self.window.composer.set_running(False)

    def _report(self, in_chat: bool, message: str) -> None:
        """A problem of a run: in the chat when its conversation is on screen, else in the status bar."""
        if in_chat:
            self.window.show_error_in_chat(message)
        else:
            self.window.statusBar().showMessage(message, 10000)

    # --- conversations ------------------------------------------------------------------------------
    def refresh_conversations(self) -> None:
        self.window.menus.set_conversation_open(self.history is not None and self.conversation_id is not None)
        if self.history is None or self.window.conversations.searching:
            return
        show_conversations(self.window.conversations, self.history, self.controller.is_running, self.conversation_id,
                           self.window.show_error_in_chat)  # ids first, rows when shown (conversation_pages.py)

    def new_chat(self) -> None:
        if self.history is None and self.controller.running:  # without a database there is one conversation
            return
        self.conversation_id = None
        self.window.conversations.mark_open(None)
        self.window.forget_live_answer()
        self.views.show_new()
        self.actions.actions.reset()
        self.refresh_runs()
        self.chat_binding.show_conversation(None)
        self.window.show_welcome(not self.settings.providers)
        self.window.composer.focus_input()
        self.refresh_conversations()

    def open_conversation(self, conversation_id: int) -> None:
        if self.history is None:
            return
        try:
            records = self.history.branch(conversation_id)
        except (StorageError, LookupError) as problem:
            self.window.show_error_in_chat(str(problem))
            return
        self.conversation_id = conversation_id
        registry = self.registry_factory(self.settings, self._secret_lookup)

        def visibility_of(name: str) -> str:
            tool = registry.get(name)
            return tool.visibility if tool is not None else "primary"

        self.window.show_welcome(False)
        self.window.forget_live_answer()
        self.actions.actions.reset()
        try:
            store = self.history.attachments
            self.views.show(self.history, conversation_id, records, visibility_of,
                            lambda record: stored_views(store, record), footers=self.usage.footers(conversation_id))
        except StorageError as problem:
            self.window.show_error_in_chat(str(problem))
        self.chat_binding.show_conversation(conversation_id)
        self.window.conversations.mark_open(conversation_id)
        self.window.menus.set_conversation_open(True)
        self.refresh_runs()
        self.window.composer.focus_input()

    def search(self, text: str) -> None:
        if self.history is None:
            return
        if not text:
            self.window.conversations.set_conversations([])  # leaves search mode
            self.refresh_conversations()
            return
        try:
            from app.storage.search import HistorySearch

            hits = HistorySearch(self.history).search(text, limit=SEARCH_LIMIT, marks=(MARK_START, MARK_END))
        except (StorageError, ValueError) as problem:
            self.window.conversations.set_search_results([SearchHit(0, "Search problem", str(problem))])
            return
        best: dict[int, Any] = {}  # one row per conversation: its best message match, else its title
        for hit in hits:
            if hit.conversation_id not in best or (best[hit.conversation_id].message_id is None
                                                   and hit.message_id is not None):
                best[hit.conversation_id] = hit
        self.window.conversations.set_search_results(
            [SearchHit(h.conversation_id, h.conversation_title, h.snippet, h.message_id, h.attachment_id is not None)
             for h in best.values()])

    def rename(self, conversation_id: int, title: str) -> None:
        self._change(lambda h: h.rename(conversation_id, title))

    def delete(self, conversation_id: int) -> None:
        if self.controller.is_running(conversation_id):
            self.window.show_error_in_chat("Stop the running answer before deleting this conversation.")
            return
        self._change(lambda h: h.delete(conversation_id))
        if conversation_id == self.conversation_id:
            self.new_chat()

    def pin(self, conversation_id: int, pinned: bool) -> None:
        self._change(lambda h: h.set_pinned(conversation_id, pinned))

    def _change(self, action: Callable[[History], object]) -> None:
        if self.history is None:
            return
        try:
            action(self.history)
        except (StorageError, LookupError) as problem:
            self.window.show_error_in_chat(str(problem))
        self.refresh_conversations()

    # --- File menu: export and import ----------------------------------------------------------------
    def export_conversation(self, fmt: str) -> None:
        """Export the open conversation (File > Export conversation) to a file the user picks."""
        if self.history is None or self.conversation_id is None:
            self.window.statusBar().showMessage("Open a conversation to export it.", 5000)
            return
        try:
            title = self.history.conversation(self.conversation_id).title
        except (StorageError, LookupError) as problem:
            self.window.show_error_in_chat(str(problem))
            return
        from app.session.conversation_files import suggested_path, write_export  # File > Export's first use

        path = self.choose_conversation_file(suggested_path(title, fmt), fmt)
        if path is None:
            return
        try:
            write_export(self.history, self.conversation_id, fmt, Path(path))
        except (EnvironmentProblem, LookupError) as problem:
            self.window.show_error_in_chat(f"The conversation could not be exported: {problem}.")
            return
        self.window.statusBar().showMessage(f"Exported the conversation to {path}.", 5000)

    def _choose_conversation_file(self, suggested: Path, fmt: str) -> str | None:
        from app.session.conversation_files import choose_export_file

        return choose_export_file(self.window, suggested, fmt)

    def _choose_import_file(self) -> str | None:
        from app.session.conversation_files import choose_import_file

        return choose_import_file(self.window)

    def import_file(self) -> asyncio.Task[None] | None:
        """File > Import: read and check the file off the UI thread, add it as a new conversation, open it."""
        if self.history is None:
            self.window.show_error_in_chat("Conversations cannot be imported: the history database is not open.")
            return None
        path = self.choose_import_file()
        if path is None:
            return None
        import asyncio

        qt_asyncio.ensure_running()
        self._import_task = asyncio.ensure_future(self._import(Path(path)))
        return self._import_task

    async def _import(self, path: Path) -> None:
        import asyncio

        from app.storage.exchange import import_conversation, read_export
        from app.storage.import_notes import import_note

        try:
            document = await asyncio.to_thread(read_export, path)
            if self.history is None:
                return
            conversation_id = import_conversation(self.history, document)
        except EnvironmentProblem as problem:
            self.window.show_error_in_chat(f"Not imported: {problem}.")
            return
        self.refresh_conversations()
        self.open_conversation(conversation_id)
        note = import_note(document)  # fields a newer Parley added, left out; attachment names cut
        imported = f"Imported “{document.conversation.title}” ({len(document.messages)} messages)."
        self.window.statusBar().showMessage(imported if note is None else f"{imported} {note}",
                                            5000 if note is None else 15000)

    def set_theme(self, mode: str) -> None:
        """View > Theme: applied at once and saved, as Preferences' appearance tab does."""
        self.settings.ui.theme = mode  # type: ignore[assignment]  # a View > Theme choice, one of THEME_MODES
        if self.theme is not None:
            self.theme.set_mode(mode)
        self.window.menus.set_theme(mode)
        try:
            self.save_settings(self.settings)
        except EnvironmentProblem as problem:
            self.window.show_error_in_chat(f"{problem} The theme applies to this session only.")

    # --- inspector ----------------------------------------------------------------------------------
    def refresh_runs(self) -> None:
        """The inspector's run list for the open conversation, newest first (only while it is shown)."""
        if not self.window.inspector_open():
            return
        if self.history is None or self.conversation_id is None:
            self.window.inspector.set_runs([])
            return
        try:
            records = self.history.runs(self.conversation_id)
        except StorageError as problem:
            self.window.show_error_in_chat(str(problem))
            return
        from orchestration.run_trace import RunSummary  # with the inspector, when it is first shown

        self.window.inspector.set_runs([
            RunSummary(run_id=r.id, started_ms=r.started_at, ended_ms=r.ended_at, iterations=r.iterations,
                       finish_reason=r.finish_reason, input_tokens=r.input_tokens, output_tokens=r.output_tokens,
                       error=(r.error or {}).get("message")) for r in reversed(records)])

    def show_run(self, run_id: str) -> None:
        """A stored run's trace, rebuilt from its saved events (already redacted when they were written)."""
        if self.history is None:
            return
        try:
            events = self.history.run_events(run_id)
        except StorageError as problem:
            self.window.show_error_in_chat(str(problem))
            return
        from orchestration.run_trace import RunTrace

        self.window.inspector.show_trace(RunTrace.from_stored(events))

    def export_run(self, run_id: str, document: str) -> None:
        path = self.choose_export_path(f"parley-run-{run_id[:12]}.json")
        if path is None:
            return
        try:
            Path(path).write_text(document + "\n", encoding="utf-8")
        except OSError as error:
            self.window.show_error_in_chat(f"The run could not be exported to {path}: {error.strerror or error}.")
            return
        self.window.statusBar().showMessage(f"Exported the run to {path}.", 5000)

    # --- MCP servers --------------------------------------------------------------------------------
    # The API a Preferences tab can build on: mcp_statuses() for the list, mcp.add_listener() for live
    # changes, apply_mcp_servers() after editing, tools.mcp.probe_server() for a "Test" button.
    def start_mcp(self) -> None:
        """Connect the enabled MCP servers in the background; each reports its status as it goes."""
        if self.mcp.statuses():  # a server to connect: the loop starts now (app/session/qt_asyncio.py)
            qt_asyncio.ensure_running()
        try:
            self.mcp.start()
        except RuntimeError:  # no running event loop (tests without qasync): nothing is started
            return
        self._mcp_changed(None)

    def mcp_statuses(self) -> list[ServerStatus]:
        return self.mcp.statuses()

    def mcp_hooks(self) -> McpHooks:
        """The Preferences tab's view of the servers; the listeners follow ``self.mcp`` when it is replaced."""
        from tools.mcp import probe_server
        from widgets.preferences_mcp import McpHooks  # with the Preferences dialog

        return McpHooks(statuses=self.mcp_statuses, add_listener=lambda listener: self.mcp.add_listener(listener),
                        remove_listener=lambda listener: self.mcp.remove_listener(listener),
                        probe=lambda server: probe_server(server, self._secret_lookup),
                        reconnect=self.reconnect_mcp_server)

    def reconnect_mcp_server(self, name: str) -> None:
        """Reconnect one server in the background (Preferences' Reconnect); its status reports the outcome."""
        import asyncio

        qt_asyncio.ensure_running()
        task = asyncio.ensure_future(self.mcp.reconnect(name))
        self._mcp_server_reconnects.add(task)
        task.add_done_callback(self._mcp_server_reconnects.discard)

    async def apply_mcp_servers(self, servers: list[McpServerSettings]) -> None:
        """Save a changed server list and reconnect: every server is stopped and the enabled ones started."""
        self.settings = self.settings.model_copy(update={"mcp_servers": servers})
        self.save_settings(self.settings)
        await self.reconnect_mcp(servers)

    async def reconnect_mcp(self, servers: list[McpServerSettings]) -> None:
        """Stop every server and start the enabled ones of ``servers`` (already saved by the caller)."""
        self.mcp.remove_listener(self._mcp_changed)
        await self.mcp.aclose()
        self.mcp = McpManager(servers, self._secret_lookup)
        self.mcp.add_listener(self._mcp_changed)
        self.start_mcp()

    def _mcp_changed(self, _status: ServerStatus | None) -> None:
        statuses = self.mcp.statuses()
        detail = "\n".join(f"{s.name}: {s.state}" + (f" ({s.message})" if s.message else "") for s in statuses)
        self.window.set_status(mcp=mcp_summary(statuses), mcp_detail=detail)
        self.window.set_mcp_servers(statuses)  # kept for the inspector until it is first opened
        self.chat_binding.refresh_tools()

    # --- status -------------------------------------------------------------------------------------
    def _update_status(self) -> None:
        self.keyring_line.refresh()
        provider_id, model = self.window.composer.current_model() or ("", "")
        if provider_id:
            self.window.set_status(model=f"{provider_id} · {model}")

