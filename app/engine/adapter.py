"""The chat adapter for the provider ``builtin``: start the engine if needed, then speak OpenAI chat to it.

The first model call of a run waits for the engine (``BuiltinEngine.in_use``) and sends through an ordinary
``OpenAIChatAdapter`` bound to the engine's loopback URL, so the loop, the inspector's wire capture and every
quirk of the ``builtin`` preset apply unchanged. An engine that cannot start, or dies during the answer, is an
``EngineError`` (a ``ProviderError``, so the loop ends the run with an ``error`` event and keeps the partial
answer) whose message says what happened and what to do. The adapter lives for one run (``run_loop`` closes
it): it holds the engine from its first model call to ``aclose`` (``begin_run``/``end_run``), so settings
changed meanwhile restart the engine after the answer, not between its model calls.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from app.engine import BUILTIN_PROVIDER as BUILTIN_PROVIDER  # kept here too: its users import it from here
from app.engine.library import UnknownModelError
from app.engine.manager import BuiltinEngine
from app.engine.process import EngineStartError
from orchestration.engine import ModelRequest, ProviderEvent
from orchestration.errors import ConnectionFailedError, ProviderError, StreamError
from orchestration.providers.config import Capabilities, ProviderConfig
from orchestration.providers.openai_chat import OpenAIChatAdapter


class EngineError(ProviderError):
    """The built-in engine could not answer: it failed to start, or stopped during the answer."""

    code = "engine_failed"


class BuiltinAdapter:
    def __init__(self, engine: BuiltinEngine, config: ProviderConfig) -> None:
        self.engine = engine
        self.config = config
        self._inner: OpenAIChatAdapter | None = None
        self._holding = False

    @property
    def provider_name(self) -> str:
        return self.config.display_name

    @property
    def capabilities(self) -> Capabilities:
        return self.config.capabilities

    async def _adapter(self, base_url: str) -> OpenAIChatAdapter:
        if self._inner is not None and self._inner.config.base_url != base_url:
            await self._inner.aclose()  # the engine was restarted on another port
            self._inner = None
        if self._inner is None:
            self._inner = OpenAIChatAdapter(self.config.model_copy(update={"base_url": base_url}))
        return self._inner

    async def stream(self, request: ModelRequest) -> AsyncGenerator[ProviderEvent, None]:
        if not self._holding:
            self._holding = True
            self.engine.begin_run()
        try:
            session = self.engine.in_use(request.model)
            base_url = await session.__aenter__()
        except (EngineStartError, UnknownModelError) as exc:
            raise EngineError(f"{self.provider_name}: {exc}", provider=self.provider_name) from None
        try:
            adapter = await self._adapter(base_url)
            async for event in adapter.stream(request):
                yield event
        except ProviderError as error:
            dropped = isinstance(error, ConnectionFailedError | StreamError)
            crash = await self.engine.crash_after_disconnect() if dropped else self.engine.crashed()
            if crash is None:
                raise
            self.engine.note_crash(crash)
            replacement = EngineError(f"{self.provider_name}: {crash}", provider=self.provider_name)
            replacement.partial = error.partial
            raise replacement from None
        finally:
            await session.__aexit__(None, None, None)

    async def aclose(self) -> None:
        if self._holding:
            self._holding = False
            self.engine.end_run()
        if self._inner is not None:
            await self._inner.aclose()
            self._inner = None
