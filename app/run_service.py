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
from dataclasses import dataclass, replace

from app.chat_recording import ChatConversation, prepare_conversation
from app.provider_setup import key_required, provider_config
from app.secrets import SecretStore, provider_entry
from app.settings import ProviderSettings, Settings
from app.storage import History
from app.storage.run_recorder import RunRecorder
from app.tool_setup import add_mcp_tools, tool_registry
from app.usage.prices import Pricer
from orchestration.engine import ChatAdapter, NamedToolChoice, ToolChoice
from orchestration.event_redaction import RedactingEmitter
from orchestration.events import RunEvent
from orchestration.limits import LoopLimits
from orchestration.loop import PriceFn, RunLoop, RunRequest, RunResult
from orchestration.messages import Message
from orchestration.providers import ADAPTER_KINDS, adapter_for
from orchestration.providers.config import ProviderConfig
from orchestration.tool_api import ToolSet
from orchestration.tool_turn import Approver
from tools.mcp import McpManager
from tools.registry import ToolRegistry, UnknownToolError

Subscriber = Callable[[RunEvent], None]
RegistryFactory = Callable[[Settings, Callable[[str], str | None]], ToolRegistry]


@dataclass(frozen=True)
class ChatSettings:
    """What one chat turn asks for, whichever front end it comes from."""

    provider: str | None = None  # a provider id in the settings; None or "": the default provider
    model: str | None = None  # None: the provider's default model
    reasoning_effort: str | None = None  # None: the provider's own setting
    one_off: ProviderConfig | None = None  # a provider not kept in the settings (``parley chat --base-url``)
    api_key: str | None = None  # a key that wins over the keyring (``--api-key-env``)
    idle_timeout: float | None = None  # overrides the provider's
    tools: str = "all"  # "all", "none" or names separated by commas
    tool_choice: str = "auto"  # "auto", "none", "required" or one of the selected tools
    stream: bool = True
    max_output_tokens: int | None = None
    max_iterations: int | None = None  # overrides the settings' loop limit
    call_timeout: float | None = None  # overrides the settings' limit on one model call, in seconds
    system: str | None = None
    save: bool = True


@dataclass(frozen=True)
class ChatTarget:
    config: ProviderConfig
    model: str
    reasoning_effort: str | None = None
    preset: str | None = None  # the preset the provider was made from (prices are looked up by it)

    @property
    def api_key(self) -> str | None:
        return None if self.config.api_key is None else self.config.api_key.get_secret_value()


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
    def __init__(self, provider: str) -> None:
        super().__init__(f"provider {provider} needs an API key and none is stored")
        self.provider = provider


class MissingModelError(RunSetupError):
    def __init__(self, provider: str) -> None:
        super().__init__(f"provider {provider} has no model chosen and no default model")
        self.provider = provider


class ToolSelectionError(RunSetupError):
    """A tool name that is not offered (``str()`` says which, and what is)."""


class ToolChoiceError(RunSetupError):
    def __init__(self, choice: str, selected: list[str]) -> None:
        super().__init__(f"{choice!r} is not one of the selected tools ({', '.join(selected) or 'none'})")
        self.choice, self.selected = choice, selected


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
                 registry_factory: RegistryFactory = tool_registry) -> None:
        self.settings = settings
        self.secrets = secrets
        self.mcp = mcp
        self.registry_factory = registry_factory

    # --- checks, nothing written ----------------------------------------------------------------------
    def plan(self, prompt: str | None, chat: ChatSettings) -> RunPlan:
        """Raises a ``RunSetupError`` kind, ``UnsupportedKindError``, ``SecretStoreError`` (an unreadable key)
        or ``ProviderSetupError`` (a provider whose settings are unusable)."""
        target = self.target(chat)
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
        pricer = Pricer.for_provider(target.config, target.preset, self.settings.usage.prices)
        return RunPlan(prompt, chat, target, registry, names, choice, limits, pricer)

    def target(self, chat: ChatSettings) -> ChatTarget:
        """The provider, key and model ``chat`` names (else the settings' default provider)."""
        if chat.one_off is not None:
            if not chat.model:
                raise MissingModelError(chat.one_off.id)
            return ChatTarget(chat.one_off, chat.model, chat.reasoning_effort, preset=chat.one_off.id)
        if chat.provider:
            entry = self.settings.provider(chat.provider)
            if entry is None:
                raise UnknownProviderError(chat.provider, [p.id for p in self.settings.providers])
        else:
            entry = self.settings.provider(self.settings.default_provider) if self.settings.default_provider \
                else None
            if entry is None:
                raise NoProviderError()
        return self._settings_target(entry, chat)

    def _settings_target(self, entry: ProviderSettings, chat: ChatSettings) -> ChatTarget:
        key = chat.api_key if chat.api_key is not None else self.secrets.lookup(provider_entry(entry.id))
        if key is None and key_required(entry):
            raise MissingKeyError(entry.id)
        model = chat.model or entry.default_model
        if not model:
            raise MissingModelError(entry.id)
        return ChatTarget(provider_config(entry, key), model, chat.reasoning_effort or entry.reasoning_effort,
                          preset=entry.preset)

    def _selected(self, registry: ToolRegistry, spec: str) -> list[str]:
        """With ``all``, the tools the settings disable or deny are left out."""
        try:
            selected = registry.resolve(spec)
        except UnknownToolError as exc:
            raise ToolSelectionError(str(exc)) from None
        if spec == "all":
            tools = self.settings.tools
            selected = [n for n in selected if tools.enabled.get(n, True) and tools.approval.get(n) != "deny"]
        return selected

    # --- the user's message first ---------------------------------------------------------------------
    def begin(self, plan: RunPlan, history: History | None, conversation_id: int | None = None, *,
              regenerate: bool = False, memory: Sequence[Message] = ()) -> PreparedRun:
        """Record the user message (a new conversation when ``conversation_id`` is None and there is a history)
        and build the request. Raises StorageError or NotFoundError when that fails; then nothing is sent."""
        target, chat = plan.target, plan.chat
        conversation = prepare_conversation(
            history, conversation_id, plan.prompt, system=chat.system, regenerate=regenerate, save=chat.save,
            provider=target.config.id, model=target.model, secrets=plan.secrets, memory=memory)
        run_id = uuid.uuid4().hex
        if conversation.recorder is not None:
            conversation.recorder.begin(conversation.prompt, reply_to=conversation.reply_to, run_id=run_id,
                                        provider=target.config.id, model=target.model)
        cid = conversation.conversation_id
        request = RunRequest(model=target.model, messages=conversation.messages, tool_names=plan.tool_names,
                             tool_choice=plan.tool_choice, stream=chat.stream,
                             reasoning_effort=target.reasoning_effort, max_output_tokens=chat.max_output_tokens,
                             conversation_id=None if cid is None else str(cid), run_id=run_id)
        return PreparedRun(plan, adapter_for(target.config), request, conversation)


def _tool_choice(value: str, selected: list[str]) -> ToolChoice:
    if value in ("auto", "none", "required"):
        return value  # type: ignore[return-value]
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
