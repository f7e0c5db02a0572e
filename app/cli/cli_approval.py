"""Tool approval for ``parley chat``: ``--approve all|none``, or a question per batch on a terminal.

Settings come first: a tool whose policy is ``allow`` runs, ``deny`` is refused. For the rest, ``--approve all``
allows and ``--approve none`` denies; without the flag, a terminal (stdin and stderr both TTYs) is asked once per
batch of calls, showing each call's arguments in full (control characters escaped: the model wrote them), and
anything else denies. An answer that is not y, n, a or e (or yes, no, always, each) asks again; the end of input
denies. "Always" saves ``allow`` for those tools in the settings file. The answer is read on a
daemon thread so that Ctrl+C (which cancels the run) never waits for a line that will not come.
"""

from __future__ import annotations

import asyncio
import json
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from app.cli.terminal_text import terminal_safe
from app.runs.approval_policy import settle_by_policy
from app.settings import Settings
from orchestration.tool_turn import ApprovalRequest, Approver, Decision

APPROVE_CHOICES = ("all", "none")

ReadLine = Callable[[], str]
# What may be typed at the question: the letter or the whole word, in any case.
ANSWER_WORDS = {word: word[0] for word in ("yes", "no", "always", "each")} | {
    letter: letter for letter in "ynae"}


def _read_stdin_line() -> str:
    return sys.stdin.readline()


def _read_in_background(read_line: ReadLine) -> asyncio.Future[str]:
    loop = asyncio.get_running_loop()
    answer: asyncio.Future[str] = loop.create_future()

    def reader() -> None:
        try:
            line = read_line()
        except (OSError, ValueError):
            line = ""

        def deliver() -> None:
            if not answer.done():
                answer.set_result(line)

        loop.call_soon_threadsafe(deliver)

    threading.Thread(target=reader, name="parley-approval-input", daemon=True).start()
    return answer


def describe_call(request: ApprovalRequest) -> str:
    """The call's name, then the tool's own account of it (a write's diff) or else its arguments as JSON."""
    shown = request.preview if request.preview is not None else json.dumps(request.arguments, indent=2,
                                                                          ensure_ascii=False, sort_keys=True)
    return f"{request.name}\n" + "\n".join("    " + line for line in shown.splitlines())


class TerminalApprover:
    """Asks on the terminal; ``remember`` is called with the tool names the user allowed always."""

    def __init__(self, remember: Callable[[list[str]], None], *, read_line: ReadLine = _read_stdin_line,
                 out: TextIO | None = None) -> None:
        self.remember = remember
        self.read_line = read_line
        self.out = out

    def _print(self, text: str) -> None:
        print(terminal_safe(text), file=self.out or sys.stderr, flush=True)

    async def _ask(self, question: str, letters: str) -> str:
        """One of ``letters`` (the first letter of the word typed), or "n" at the end of input. Anything else
        (a typo, a bare Enter) asks again: a guess could run a tool the user meant to refuse."""
        while True:
            print(terminal_safe(question), end="", file=self.out or sys.stderr, flush=True)
            line = await _read_in_background(self.read_line)
            if not line:
                return "n"  # end of input: nobody can answer
            answer = ANSWER_WORDS.get(line.strip().lower())
            if answer is not None and answer in letters:
                return answer
            self._print(f"Please answer {', '.join(letters[:-1])} or {letters[-1]}.")

    async def __call__(self, requests: list[ApprovalRequest]) -> dict[str, Decision]:
        count = len(requests)
        self._print(f"\nThe model wants to run {count} tool call{'s' if count > 1 else ''}:")
        for number, request in enumerate(requests, 1):
            self._print(f"  {number}. {describe_call(request)}")
        each = " / [e]ach" if count > 1 else ""
        answer = await self._ask(f"Allow? [y]es / [n]o / [a]lways for {'these tools' if count > 1 else 'this tool'}"
                                 f"{each}: ", "ynae" if count > 1 else "yna")
        if answer == "e":
            decisions: dict[str, Decision] = {}
            always: list[str] = []
            for number, request in enumerate(requests, 1):
                one = await self._ask(f"  {number}. {request.name}: [y]es / [n]o / [a]lways: ", "yna")
                decisions[request.call_id] = "allow" if one in ("y", "a") else "deny"
                if one == "a":
                    always.append(request.name)
            if always:
                self.remember(always)
            return decisions
        if answer == "a":
            self.remember(sorted({r.name for r in requests}))
        allowed: Decision = "allow" if answer in ("y", "a") else "deny"
        return {r.call_id: allowed for r in requests}


def cli_approver(settings: Settings, approve: str | None, *, interactive: bool,
                 remember: Callable[[list[str]], None], read_line: ReadLine = _read_stdin_line,
                 out: TextIO | None = None) -> Approver:
    """The approver for one ``parley chat``; ``interactive`` when a person can answer on the terminal."""
    terminal = TerminalApprover(remember, read_line=read_line, out=out) if interactive and approve is None else None

    async def approve_calls(requests: list[ApprovalRequest]) -> dict[str, Decision]:
        decisions, undecided = settle_by_policy(settings.tools.approval, requests)
        if approve in APPROVE_CHOICES:
            flagged: Decision = "allow" if approve == "all" else "deny"
            decisions.update((request.call_id, flagged) for request in undecided)
            undecided = []
        if undecided and terminal is not None:
            decisions.update(await terminal(undecided))
        for request in undecided:
            decisions.setdefault(request.call_id, "deny")
        return decisions

    return approve_calls


def is_interactive() -> bool:
    return bool(sys.stdin and sys.stdin.isatty() and sys.stderr.isatty())
