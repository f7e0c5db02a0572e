"""Whether a chat printed an answer, and if not, why: a run can end well and still say nothing (the model's
final call only asked for tools, which the final call does not run, or its text was empty). A script sees an
empty stdout and exit 0 and cannot tell that apart from an empty reply it asked for, so ``parley chat`` says
what happened on stderr and exits ``EXIT_NO_ANSWER`` (app/cli/cli_common.py).

It watches the run's events on their way to the printer, so plain and ``--json`` output are judged alike.
"""

from __future__ import annotations

from app.runs.run_service import Subscriber
from orchestration.events import ContentDelta, RunEvent, ToolCalls

# Finish reasons after which the run's last model call was meant to be the answer.
ANSWERING_FINISHES = frozenset({"stop", "length", "tool_limit", "max_iterations"})


class AnswerWatch:
    """A subscriber that passes every event on to ``inner`` and remembers, per model call (iteration), whether
    it sent text and how many tool calls it asked for."""

    def __init__(self, inner: Subscriber) -> None:
        self.inner = inner
        self._last_iteration = 0
        self._text = False  # the last model call sent text other than white space
        self._calls = 0  # tool calls the last model call asked for

    def __call__(self, event: RunEvent) -> None:
        if event.iteration != self._last_iteration:
            self._last_iteration, self._text, self._calls = event.iteration, False, 0
        match event:
            case ContentDelta():
                self._text = self._text or bool(event.content.strip())
            case ToolCalls():
                self._calls += len(event.calls)
            case _:
                pass
        self.inner(event)

    def missing_answer(self, finish_reason: str) -> str | None:
        """What to tell the user when the run ended without answer text; None when it answered, or when it
        ended another way (an error or Ctrl+C, which say so themselves)."""
        if finish_reason not in ANSWERING_FINISHES or self._text:
            return None
        if self._calls:  # the last call's tool calls are not run: had they been, another call would follow
            noun = "tool call was" if self._calls == 1 else "tool calls were"
            return f"the model sent no text ({self._calls} {noun} asked for and not run)"
        return "the model sent an empty answer"


__all__ = ["ANSWERING_FINISHES", "AnswerWatch"]
