"""A damaged provider or model name on a run, for the usage figures: shown marked, priced as unknown, counted.

``runs.provider`` and ``runs.model`` are text Parley writes itself; a BLOB there comes from another program or a
damaged file (app/storage/damaged_values.py). The usage report groups by these names in SQL and the backfill
prices by them, so each reads them directly instead of through the history's checked records: this module gives
both the same treatment the history gives a damaged title. A BLOB name is shown as ``[damaged value] …`` (its
bytes decoded leniently; equal bytes still group together, apart from the intact name they may resemble), a run
with one is priced as unknown (the name cannot be trusted to find a price, and a wrong price is worse than none),
and each damaged value is counted once in the same note the CLI and the window show for the rest of the history.
(The columns' TEXT affinity turns a number written there into text, so a BLOB is the only wrong type they hold.)
"""

from __future__ import annotations

from collections.abc import Sequence

from app.storage.damaged_values import note_damaged, shown_text
from app.storage.history import History
from app.storage.integrity import check_value

NAME_COLUMNS = ("provider", "model")


def shown_name(value: object) -> str:
    """A grouped name as shown: a BLOB as marked text (counted by ``note_damaged_names``), else its text."""
    return shown_text(value) if isinstance(value, bytes) else str(value)


def note_damaged_names(history: History, where: str, params: Sequence[object],
                       columns: Sequence[str] = NAME_COLUMNS) -> None:
    """Count each BLOB in ``columns`` of the runs matching ``where`` (an SQL condition on ``runs``), as the rows a
    report groups are not single runs and cannot be counted one by one. Reads only the runs with a BLOB there."""
    for column in columns:
        if column not in NAME_COLUMNS:
            raise ValueError(f"not a name column of runs: {column}")
        for (run_id,) in history.db.execute(f"SELECT id FROM runs WHERE typeof({column}) = 'blob' AND ({where})",
                                            list(params)).fetchall():
            note_damaged(history.path, "runs", run_id, column)


def checked_name(history: History, run_id: str, column: str, value: object) -> str | None:
    """A run's provider or model for pricing: the text, None when unset or damaged (a BLOB: counted, priced as
    unknown)."""
    if value is None:
        return None
    checked = check_value(history.path, "runs", column, value, run_id)
    return None if isinstance(value, bytes) else str(checked)
