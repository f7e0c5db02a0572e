"""Why an attachment was refused, before anything is sent (each front end shows the message as it is)."""

from __future__ import annotations

from typing import Literal

AttachmentProblem = Literal["unreadable", "empty", "too_large", "too_many", "unsupported", "corrupt"]


class AttachmentError(ValueError):
    """A file that cannot be attached; ``str()`` names the file and says what is wrong and what to do."""

    def __init__(self, problem: AttachmentProblem, name: str, message: str) -> None:
        super().__init__(message)
        self.problem = problem
        self.name = name
