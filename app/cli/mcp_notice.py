"""What ``parley chat`` says about MCP servers that did not come up before the run.

The window shows each server's state in Preferences and the inspector; a terminal chat had no such place, so a
server whose command is missing or that failed to start left its tools out of the chat without a word. One
line per such server goes to stderr, naming the reason and where to look (``parley mcp list``).

A command that starts the servers, looks once and exits never restarts one, so a server the manager would
restart ("…; restarting in 1 s") is shown as failed, without the retry it will not get (``as_seen_once``).
``missing_command`` lets ``parley mcp add`` warn at once about a command that is not there (it is still saved:
it may be installed later).
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import sys
from typing import TextIO

from app.cli.terminal_text import terminal_safe
from tools.mcp.status import ServerStatus

QUIET_STATES = ("running", "disabled")
RETRY_NOTE = re.compile(r"; restarting in [^;]*$")


def as_seen_once(status: ServerStatus) -> ServerStatus:
    """``status`` as a command that exits now should show it: a pending restart is a failure."""
    if status.state != "restarting":
        return status
    message = RETRY_NOTE.sub("", status.message) if status.message else None
    return dataclasses.replace(status, state="failed", message=message)


def report_unready_servers(statuses: list[ServerStatus], out: TextIO | None = None) -> None:
    """One line per enabled server that is not running now: its tools are not in this chat."""
    for status in statuses:
        status = as_seen_once(status)
        if status.state in QUIET_STATES:
            continue
        reason = status.message or status.state
        print(terminal_safe(f"parley: MCP server {status.name} is not available ({reason}); its tools are not "
                            f"in this chat. `parley mcp list` shows its state."), file=out or sys.stderr)


def missing_command(command: str, cwd: str | None) -> bool:
    """True when ``command`` is neither on PATH nor a file (relative to ``cwd`` when given), so that starting
    the server would fail with "the command was not found"."""
    if os.sep in command or (os.altsep and os.altsep in command):
        path = os.path.join(cwd, command) if cwd and not os.path.isabs(command) else command
        return not os.path.isfile(os.path.expanduser(path))
    return shutil.which(command) is None
