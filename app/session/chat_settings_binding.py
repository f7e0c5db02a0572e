"""The window's chat settings per conversation: fills the composer's pickers (provider and model, tools,
reasoning effort, the chat settings popover) from the open conversation's kept settings, or from the defaults
for a new chat; keeps them when the user changes one; tells the composer which controls the chosen provider and
model cannot take and why (orchestration/providers/chat_controls.py); and turns the composer's choices into the
run service's ``ChatSettings``.

Kept with ``ChatSettingsStore`` (app/storage/chat_settings.py); the run service keeps them too whenever a
message is sent, so the window and ``parley chat -c`` continue a conversation the same way.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from app.runs.chat_turn import ChatSettings, ChatTarget
from app.runs.provider_setup import ProviderSetupError, provider_config
from app.settings import Settings
from app.storage import History, StorageError
from app.storage.chat_settings import ChatSettingsStore, StoredChatSettings
from orchestration.providers.chat_controls import chat_controls
from orchestration.providers.config import ProviderConfig
from orchestration.reasoning_effort import effort_for_request
from tools.mcp import McpManager
from tools.registry import ToolRegistry
from widgets.chat_settings_popover import ChatOptions, ControlSupport
from widgets.composer import REASONING_EFFORTS, Composer
from widgets.tool_picker import ToolOption

log = logging.getLogger(__name__)

TOOL_GROUPS = {"utility": "Built-in", "search": "Web", "file": "Workspace"}
"""The picker's heading per tool category; MCP tools are listed per server ("MCP: NAME")."""

RegistryFor = Callable[[Settings], ToolRegistry]


def tool_group(category: str, name: str) -> str:
    if category == "mcp":
        return f"MCP: {name.split('__', 1)[0]}"
    return TOOL_GROUPS.get(category, "Other")


def composer_effort(stored: str | None) -> str:
    """A kept reasoning effort as the composer's picker shows it ("minimal", which only the CLI sets, as Low)."""
    if stored == "minimal":
        return "low"
    return stored if stored in REASONING_EFFORTS else "off"


class ChatSettingsBinding:
    def __init__(self, composer: Composer, *, settings: Callable[[], Settings], history: History | None,
                 conversation_id: Callable[[], int | None], registry: RegistryFor,
                 mcp: Callable[[], McpManager | None], report: Callable[[str], None]) -> None:
        self.composer = composer
        self.settings = settings
        self.history = history
        self.conversation_id = conversation_id
        self.registry = registry
        self.mcp = mcp
        self.report = report
        self._loading = False
        composer.chat_settings_changed.connect(self._changed)
        composer.model_changed.connect(lambda _provider, _model: self._changed())

    # --- what the composer offers -----------------------------------------------------------------------
    def refresh(self) -> None:
        self.refresh_tools()
        self.refresh_support()

    def refresh_tools(self) -> None:
        """The tools the settings offer (Preferences > Tools; denied ones are left out), the pick kept."""
        settings = self.settings()
        registry = self.registry(settings)
        manager = self.mcp()
        if manager is not None:
            manager.register_into(registry)
        enabled = settings.tools.enabled
        options = [ToolOption(t.name, tool_group(t.category, t.name), t.description) for t in registry
                   if enabled.get(t.name, True) and settings.tools.approval.get(t.name) != "deny"]
        self.composer.set_tool_options(options, self.composer.selected_tools())

    def refresh_support(self) -> None:
        """Disable, with the reason, every control the chosen provider and model cannot take."""
        config = self._config()
        if config is None:
            self.composer.set_control_support(ControlSupport(), reasoning_effort=None)
            return
        provider, model = config
        controls = chat_controls(provider, model, self.composer.reasoning_effort())
        caps = provider.capabilities.for_model(model)
        self.composer.set_control_support(
            ControlSupport(temperature=controls.temperature, max_output_tokens=controls.max_output_tokens,
                           temperature_max=controls.temperature_max),
            reasoning_effort=controls.reasoning_effort,
            tools=None if caps.tools else f"{provider.display_name} takes no tools")

    def _config(self) -> tuple[ProviderConfig, str] | None:
        current = self.composer.current_model()
        if current is None:
            return None
        entry = self.settings().provider(current[0])
        if entry is None or not current[1]:
            return None
        try:
            return provider_config(entry, None), current[1]
        except ProviderSetupError:
            return None

    # --- one conversation's settings --------------------------------------------------------------------
    def show_conversation(self, conversation_id: int | None) -> None:
        """The composer shows the conversation's kept settings (a new chat: the defaults)."""
        kept = StoredChatSettings(system_prompt=self.settings().chat.system_prompt or None)
        if conversation_id is not None and self.history is not None:
            try:
                kept = ChatSettingsStore(self.history).load(conversation_id)
            except (StorageError, LookupError) as problem:
                self.report(str(problem))
        self._loading = True
        try:
            if conversation_id is None:
                self._select_default_model()
            elif kept.provider and kept.model:
                self.composer.set_current_model(kept.provider, kept.model)  # False: not configured any more
            self.composer.set_selected_tools(kept.tools)
            self.composer.set_reasoning_effort(composer_effort(kept.reasoning_effort))
            self.composer.set_chat_options(ChatOptions(kept.system_prompt or "", kept.temperature,
                                                       kept.max_output_tokens))
        finally:
            self._loading = False
        self.refresh_support()

    def _select_default_model(self) -> None:
        settings = self.settings()
        default = settings.provider(settings.default_provider) if settings.default_provider else None
        if default is not None:
            self.composer.set_current_model(default.id, default.default_model or "")

    def _changed(self) -> None:
        self.refresh_support()
        if self._loading:
            return
        conversation_id = self.conversation_id()
        if conversation_id is None or self.history is None:
            return
        current = self.composer.current_model() or (None, None)
        options = self.composer.chat_options()
        kept = StoredChatSettings(provider=current[0], model=current[1], system_prompt=options.system_prompt,
                                  tools=self.composer.selected_tools(),
                                  reasoning_effort=self.composer.reasoning_effort(),
                                  temperature=options.temperature, max_output_tokens=options.max_output_tokens)
        try:
            ChatSettingsStore(self.history).save(conversation_id, kept)
        except (StorageError, LookupError) as problem:
            self.report(f"The chat settings could not be kept: {problem}")

    # --- the next run -----------------------------------------------------------------------------------
    def chat_settings(self) -> ChatSettings:
        """The composer's choices for the next run; a disabled control is not sent."""
        from app.runs.conversation_chat import tools_spec  # with the first send, not with the window (issue 17)

        provider_id, model = self.composer.current_model() or ("", "")
        options = self.composer.chat_options()
        effort = effort_for_request(self.composer.reasoning_effort()) if self.composer.effort_available() else None
        tools = "none" if not self.composer.tool_picker().isEnabled() else tools_spec(self.composer.selected_tools())
        return ChatSettings(provider=provider_id or None, model=model or None, reasoning_effort=effort,
                            tools=tools, system=options.system_prompt, temperature=options.temperature,
                            max_output_tokens=options.max_output_tokens)

    @staticmethod
    def expects_reasoning(target: ChatTarget) -> bool:
        """Whether the run asks for reasoning: only then does the reasoning pane wait for it."""
        if not target.reasoning_effort:
            return False
        return chat_controls(target.config, target.model).reasoning_effort is None
