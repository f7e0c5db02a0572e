"""Reasoning written inside the answer text as ``<think>...</think>``, split out while streaming.

Many local and open models (Qwen, DeepSeek distills, gpt-oss through some servers) put their reasoning in the
text instead of a separate field. Every adapter whose provider has ``Capabilities.think_tags`` on routes its
text through ``InlineReasoning``, so the reasoning pane shows it and the answer does not.
"""

from __future__ import annotations

from orchestration.accumulate import ResponseAccumulator
from orchestration.engine import ProviderEvent


class ThinkTagSplitter:
    """Splits inline ``<think>...</think>`` reasoning out of streamed text.

    Only a ``<think>`` at the very start of the answer (after whitespace) opens reasoning, so prose that
    mentions the tag later is left alone. Tags may arrive split across deltas; text that might be the start
    of a tag is held back until the next delta (or ``flush``). ``feed`` returns ``(kind, text)`` pieces, kind
    being ``"text"`` or ``"reasoning"``.
    """

    OPEN = "<think>"
    CLOSE = "</think>"

    def __init__(self) -> None:
        self._state = "start"  # start -> think -> text, or start -> text
        self._buffer = ""
        self._trim_leading = False  # drop the whitespace that follows </think>

    def feed(self, text: str) -> list[tuple[str, str]]:
        if not text:
            return []
        if self._state == "text":
            return self._emit_text(text)
        self._buffer += text
        out: list[tuple[str, str]] = []
        if self._state == "start":
            stripped = self._buffer.lstrip()
            if stripped.startswith(self.OPEN):
                self._state = "think"
                self._buffer = stripped[len(self.OPEN):]
            elif self.OPEN.startswith(stripped):
                return []  # whitespace or a partial "<think" so far
            else:
                self._state = "text"
                pending, self._buffer = self._buffer, ""
                return self._emit_text(pending)
        end = self._buffer.find(self.CLOSE)
        if end >= 0:
            reasoning, rest = self._buffer[:end], self._buffer[end + len(self.CLOSE):]
            self._buffer = ""
            self._state = "text"
            self._trim_leading = True
            if reasoning:
                out.append(("reasoning", reasoning))
            out.extend(self._emit_text(rest))
            return out
        keep = _partial_suffix(self._buffer, self.CLOSE)
        ready = self._buffer[:len(self._buffer) - keep]
        self._buffer = self._buffer[len(self._buffer) - keep:]
        if ready:
            out.append(("reasoning", ready))
        return out

    def flush(self) -> list[tuple[str, str]]:
        """Whatever is held back, at the end of the stream."""
        pending, self._buffer = self._buffer, ""
        if not pending:
            return []
        if self._state == "think":
            return [("reasoning", pending)]
        self._state = "text"
        return self._emit_text(pending)

    def _emit_text(self, text: str) -> list[tuple[str, str]]:
        if self._trim_leading:
            text = text.lstrip()
            if not text:
                return []
            self._trim_leading = False
        return [("text", text)] if text else []


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that is a proper start of ``tag``."""
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if text.endswith(tag[:size]):
            return size
    return 0


class InlineReasoning:
    """Text for one response: split by a ``ThinkTagSplitter`` when enabled, then fed to the accumulator."""

    def __init__(self, acc: ResponseAccumulator, *, enabled: bool) -> None:
        self._acc = acc
        self._splitter = ThinkTagSplitter() if enabled else None

    def text(self, text: str) -> list[ProviderEvent]:
        if self._splitter is None:
            return self._acc.text(text)
        return self._route(self._splitter.feed(text))

    def flush(self) -> list[ProviderEvent]:
        """Whatever the splitter held back; call at the end of the response (or when it breaks off)."""
        return self._route(self._splitter.flush()) if self._splitter is not None else []

    def _route(self, pieces: list[tuple[str, str]]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        for kind, piece in pieces:
            events += self._acc.reasoning(piece) if kind == "reasoning" else self._acc.text(piece)
        return events
