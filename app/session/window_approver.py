"""The window's answer to the loop's approval question: settings first, then the inline approval panel.

A tool whose policy in settings.tools.approval is ``allow`` (including one the user chose "Always allow" for
earlier in the same run) runs without asking, ``deny`` is refused; the rest are shown in the chat area's
ApprovalPanel and the run waits for the user. "Always allow" is reported through ``remember_always`` so the app
can save it. Stopping the run cancels the wait, and the panel is cleared.

Each run of the window has its own approver and the panel is shared: a run whose conversation is not on screen
(``is_shown`` false) keeps its question without showing it, and ``show_again`` puts it back on the panel when
the user returns to that conversation. ``on_pending`` reports the call ids waiting (then ``[]``), so the chat
can show their chips as waiting for approval.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

from app.runs.approval_policy import settle_by_policy
from app.settings import Settings
from orchestration.tool_turn import ApprovalRequest, Decision
from widgets.approval_panel import ALWAYS, DENY, ApprovalPanel, PendingCall


class WindowApprover:
    def __init__(self, panel: ApprovalPanel, settings: Callable[[], Settings],
                 remember_always: Callable[[str], None], *, is_shown: Callable[[], bool] = lambda: True,
                 on_pending: Callable[[list[str]], None] = lambda call_ids: None) -> None:
        self.panel = panel
        self.settings = settings
        self.remember_always = remember_always
        self.is_shown = is_shown
        self.on_pending = on_pending
        self._waiting: asyncio.Future[dict[str, str]] | None = None
        self._asking: list[PendingCall] = []
        panel.decided.connect(self._decided)

    @property
    def waiting(self) -> bool:
        return self._waiting is not None and not self._waiting.done()

    async def __call__(self, requests: list[ApprovalRequest]) -> dict[str, Decision]:
        decisions, asking = settle_by_policy(self.settings().tools.approval, requests)
        if not asking:
            return decisions
        self._waiting = asyncio.get_running_loop().create_future()
        self._asking = [PendingCall(r.call_id, r.name, r.arguments, r.preview) for r in asking]
        self.on_pending([r.call_id for r in asking])
        if self.is_shown():
            self.panel.ask(self._asking)
        try:
            chosen = await self._waiting
        finally:
            self._waiting = None
            self._asking = []
            if self.is_shown():
                self.panel.clear()
            self.on_pending([])
        names = {r.call_id: r.name for r in asking}
        for call_id, choice in chosen.items():
            if choice == ALWAYS:
                self.remember_always(names[call_id])
            decisions[call_id] = "deny" if choice == DENY else "allow"
        return decisions

    def show_again(self) -> None:
        """The run's conversation is on screen again: its open question goes back on the panel."""
        if self.waiting and self._asking:
            self.panel.ask(self._asking)

    def close(self) -> None:
        """The run ended: this approver no longer listens to the shared panel."""
        with contextlib.suppress(RuntimeError, TypeError):  # already disconnected, or the panel is gone
            self.panel.decided.disconnect(self._decided)

    def _decided(self, choices: dict[str, str]) -> None:
        if self._waiting is not None and not self._waiting.done() and self.is_shown():
            self._waiting.set_result(choices)
