"""Child MCP servers never outlive Parley, not even a ``kill -9`` of it (Linux).

The SDK starts a stdio server in its own session (so Ctrl+C in the terminal reaches Parley, not the server)
and stops it when the connection is closed; a Parley that is killed never gets to close it, and the server is
left running, orphaned. On Linux the server is therefore started through a tiny launcher that asks the kernel
to SIGKILL it when its parent dies (``prctl(PR_SET_PDEATHSIG)``, kept across ``exec``), records its process id
(which is also its process group's id) for ``kill_group``, and then ``exec``s the real command in place. The
launcher is inline Python run with ``-I -S`` so it starts in milliseconds and depends on nothing installed.

Only the server process itself is tied to Parley's life: processes it starts in turn (``npx`` starting
``node``) are in its process group, which ``kill_group`` ends, but a SIGKILL of Parley reaches them only when
the server passes its own death on.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys

GUARD_SOURCE = """
import ctypes, os, signal, sys
pid_file, parent, command = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except (OSError, AttributeError):
    pass
if os.getppid() != parent:  # Parley died before the request took effect
    os._exit(1)
with open(pid_file, "w") as handle:
    handle.write(str(os.getpid()))
try:
    os.execv(command, [sys.argv[4], *sys.argv[5:]])
except OSError as exc:
    sys.stderr.write(f"cannot start {command}: {exc.strerror}\\n")
    os._exit(127)
"""


def available() -> bool:
    """Linux, and a Python interpreter to run the launcher with (not a frozen, bundled app)."""
    return sys.platform.startswith("linux") and bool(sys.executable) and not getattr(sys, "frozen", False)


def resolve_command(command: str, cwd: str | None, path: str | None) -> str:
    """The absolute program ``command`` names, as ``exec`` would find it; FileNotFoundError when there is none."""
    if os.sep in command:
        candidate = os.path.join(cwd or os.getcwd(), command)
        found = candidate if os.path.isfile(candidate) and os.access(candidate, os.X_OK) else None
    else:
        found = shutil.which(command, path=path)
    if found is None:
        raise FileNotFoundError(2, "No such file or directory", command)
    return os.path.abspath(found)


def guarded(command: str, args: list[str], *, pid_file: str, cwd: str | None, path: str | None
            ) -> tuple[str, list[str]]:
    """The launcher's command line for ``command args``: (program, arguments)."""
    program = resolve_command(command, cwd, path)
    return sys.executable, ["-I", "-S", "-c", GUARD_SOURCE, pid_file, str(os.getpid()), program, command, *args]


def read_pid(pid_file: str | None) -> int | None:
    if not pid_file:
        return None
    try:
        with open(pid_file, encoding="ascii") as handle:
            return int(handle.read().strip() or 0) or None
    except (OSError, ValueError):
        return None


def kill_group(pid: int | None) -> None:
    """SIGKILL the server's process group (the SDK starts it as a session leader); gone already is fine."""
    if pid is None or pid <= 1:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
