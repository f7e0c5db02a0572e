"""Run events with known secrets hidden, for everything that leaves the run: the terminal, ``--json`` and the
stored event stream.

A model can echo the key it was called with: in its answer, its reasoning, a tool call's arguments, and from
there in a tool's result. Whole events (tool calls, results, errors, warnings) have every known secret
replaced in every text field; errors and warnings also lose key-like URL parameters and bearer tokens.

Answer and reasoning text arrive in pieces, and a key can be split across them, so replacing it in each piece
is not enough. A piece whose end could be the start of a key is held back until the next piece of the same
text shows whether the key follows: then the pieces are joined and redacted, what is safe goes out under the
held event, and a new possible start stays held under the newer one. Any other event lets a held piece go
first, as it was. Events are never reordered; a piece whose text moved entirely into a later one is dropped, so
``seq`` stays strictly increasing but may skip a number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from orchestration.events import ContentDelta, ReasoningDelta, RunError, RunEvent, RunWarning
from orchestration.redaction import MIN_SECRET_CHARS, redact_text, replace_secrets, withhold_secret_start

Sink = Callable[[RunEvent], None]
_Delta = ContentDelta | ReasoningDelta


def _replace_in(value: Any, secrets: list[str]) -> Any:
    if isinstance(value, str):
        return replace_secrets(value, secrets)
    if isinstance(value, dict):
        return {k: _replace_in(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_in(v, secrets) for v in value]
    return value


def redact_event(event: RunEvent, secrets: list[str]) -> RunEvent:
    """A whole event with the known secrets replaced in every text; errors and warnings fully redacted."""
    fully = isinstance(event, RunError | RunWarning)
    if not secrets and not fully:
        return event
    fields = event.model_dump()
    redacted = _replace_in(fields, secrets)
    if fully:
        redacted["message"] = redact_text(redacted["message"], secrets)
    return event if redacted == fields else type(event).model_validate(redacted)


class RedactingEmitter:
    """An emit callback that passes events on to ``sink`` with ``secrets`` hidden (see the module docstring)."""

    def __init__(self, sink: Sink, secrets: Iterable[str]) -> None:
        self.sink = sink
        self.secrets = [s for s in secrets if s and len(s) >= MIN_SECRET_CHARS]
        self._held: _Delta | None = None

    def __call__(self, event: RunEvent) -> None:
        if isinstance(event, ContentDelta | ReasoningDelta) and self.secrets:
            self._piece(event)
            return
        self.flush()
        self.sink(redact_event(event, self.secrets))

    def flush(self) -> None:
        """Send a held piece on as it is (nothing followed that could complete a key)."""
        held, self._held = self._held, None
        if held is not None:
            self.sink(held)

    def _piece(self, event: _Delta) -> None:
        held = self._held
        if held is not None and (type(held), held.iteration) != (type(event), event.iteration):
            self.flush()
            held = None
        text = replace_secrets((held.content if held is not None else "") + event.content, self.secrets)
        safe, possible_key = withhold_secret_start(text, self.secrets)
        if held is None:  # one event cannot carry both parts: hold all of it until the next piece
            if possible_key:
                self._held = event.model_copy(update={"content": text})
            else:
                self.sink(event.model_copy(update={"content": text}))
            return
        self._held = None
        if safe:
            self.sink(held.model_copy(update={"content": safe}))
        if possible_key:
            self._held = event.model_copy(update={"content": possible_key})


__all__ = ["RedactingEmitter", "redact_event"]
