"""Which run events a side pane should drop: a pane follows one run at a time, and a stopped run's last events
can still arrive after the next run has started. One test, shared by the reasoning and search-results panes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where it is used: pydantic stays off the first frame
    from orchestration.events import RunEvent


def from_earlier_run(event: RunEvent, current_run_id: str | None) -> bool:
    """True for an event of a run other than ``current_run_id``; a ``RunStarted`` always belongs (it is how the
    pane learns the new run), and before any run every event does."""
    from orchestration.events import RunStarted

    return not isinstance(event, RunStarted) and current_run_id is not None and event.run_id != current_run_id
