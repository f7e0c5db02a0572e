"""The settings' part of every tool approval: ``allow`` and ``deny`` in settings.tools.approval decide a call
without asking; the rest are left for the front end (the terminal's ``--approve`` flag or question, the window's
approval panel). One place so both front ends settle the same calls the same way."""

from __future__ import annotations

from collections.abc import Mapping

from app.settings.model import ApprovalPolicy
from orchestration.tool_turn import ApprovalRequest, Decision


def settle_by_policy(policies: Mapping[str, ApprovalPolicy],
                     requests: list[ApprovalRequest]) -> tuple[dict[str, Decision], list[ApprovalRequest]]:
    """The decisions the settings make (call id -> ``allow``/``deny``) and the requests still to ask about,
    in their original order."""
    decisions: dict[str, Decision] = {}
    undecided: list[ApprovalRequest] = []
    for request in requests:
        policy = policies.get(request.name)
        if policy == "allow" or policy == "deny":
            decisions[request.call_id] = policy
        else:
            undecided.append(request)
    return decisions, undecided
