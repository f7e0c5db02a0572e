"""After a crash: runs that never finished, and messages left mid-stream, are marked interrupted.

A run records the id of the process writing it. When the database is opened, a run still marked ``running``
whose process is gone was cut off (killed, crashed, power lost): its run row and its streaming messages are
marked ``interrupted``, keeping whatever text the last checkpoint saved. Runs of a live process (another
Parley writing at the same time) are left alone.
"""

from __future__ import annotations

import os
import sys
import time

from app.storage.connection import Database
from app.storage.transactions import write_transaction


def process_alive(pid: int | None) -> bool:
    """Whether a process with this id exists (POSIX). Elsewhere only our own process counts as alive."""
    if pid is None:
        return False
    if pid == os.getpid():
        return True
    if sys.platform == "win32":
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def recover_interrupted_runs(db: Database) -> list[str]:
    """Mark the runs of dead processes and their streaming messages interrupted; returns those run ids."""
    running = db.execute("SELECT id, owner_pid FROM runs WHERE status = 'running'").fetchall()
    dead = [run_id for run_id, pid in running if not process_alive(pid)]
    orphans = db.execute("SELECT COUNT(*) FROM messages WHERE status = 'streaming' AND (run_id IS NULL OR run_id "
                         "NOT IN (SELECT id FROM runs WHERE status = 'running'))").fetchone()[0]
    if not dead and not orphans:
        return []
    now = int(time.time() * 1000)
    with write_transaction(db):
        for run_id in dead:
            db.execute("UPDATE runs SET status = 'interrupted', ended_at = COALESCE(ended_at, ?) WHERE id = ?",
                       [now, run_id])
            db.execute("UPDATE messages SET status = 'interrupted', updated_at = ? WHERE run_id = ? AND "
                       "status = 'streaming'", [now, run_id])
        db.execute("UPDATE messages SET status = 'interrupted', updated_at = ? WHERE status = 'streaming' AND "
                   "(run_id IS NULL OR run_id NOT IN (SELECT id FROM runs WHERE status = 'running'))", [now])
    return dead
