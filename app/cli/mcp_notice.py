"""What ``parley chat`` says about MCP servers that did not come up before the run.

The window shows each server's state in Preferences and the inspector; a terminal chat had no such place, so a
server whose command is missing or that failed to start left its tools out of the chat without a word. One
line per such server goes to stderr, naming the reason and where to look (``parley mcp list``).
"""

from __future__ import annotations

import sys
from typing import TextIO

from app.cli.terminal_text import terminal_safe
from tools.mcp.status import ServerStatus

QUIET_STATES = ("running", "disabled")


def report_unready_servers(statuses: list[ServerStatus], out: TextIO | None = None) -> None:
    """One line per enabled server that is not running now: its tools are not in this chat."""
    for status in statuses:
        if status.state in QUIET_STATES:
            continue
        reason = (status.message or status.state).split("; restarting in")[0]
        print(terminal_safe(f"parley: MCP server {status.name} is not available ({reason}); its tools are not "
                            f"in this chat. `parley mcp list` shows its state."), file=out or sys.stderr)
