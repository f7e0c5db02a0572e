"""A tool's approval preview reaches the approver with the request; a failing preview still asks."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from orchestration.scripted import ScriptedModel, Step
from orchestration.tool_api import ToolContext
from orchestration.tool_turn import ApprovalRequest
from tests.orchestration.test_loop import run
from tools.registry import Tool, ToolRegistry


class NoteArgs(BaseModel):
    text: str


async def note(args: NoteArgs, ctx: ToolContext) -> str:
    return "noted"


async def shows(args: NoteArgs) -> str:
    return f"Will note {args.text.upper()!r}"  # from the validated arguments


async def breaks(args: NoteArgs) -> str:
    raise RuntimeError("disk on fire")


@pytest.mark.parametrize(("preview", "expected"), [
    (shows, "Will note 'HI'"),
    (breaks, "(no preview: RuntimeError: disk on fire)"),
    (None, None),
])
def test_the_approver_gets_the_tools_preview(preview, expected):
    scripted: list[ScriptedModel] = []
    registry = ToolRegistry([Tool("note", "Note", NoteArgs, note, needs_approval=True, preview=preview)])
    asked: list[ApprovalRequest] = []

    async def approver(requests: list[ApprovalRequest]) -> dict[str, str]:
        asked.extend(requests)
        return {r.call_id: "allow" for r in requests}

    _, rec, _ = run(scripted, registry, [Step(calls=[("note", {"text": "hi"})]), Step(text="ok")], approver=approver)
    assert [(r.arguments, r.preview) for r in asked] == [({"text": "hi"}, expected)]
    assert rec.of("tool_result")[0].status == "ok"
    scripted[0].assert_exhausted()
