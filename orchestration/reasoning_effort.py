"""The reasoning-effort vocabulary, spelled once.

A run request, the engine's model request, the settings, the command-line choices, the composer's picker and each
wire format's budget table all name the same four levels; they import them from here so that a typo or a level
added in one place is a type error in the others instead of a request the engine rejects at run time.
"""

from __future__ import annotations

from typing import Literal, get_args

ReasoningEffort = Literal["minimal", "low", "medium", "high"]
"""How hard a reasoning model should think; None (no effort asked for) is spelled as ``ReasoningEffort | None``."""

REASONING_EFFORTS: tuple[ReasoningEffort, ...] = get_args(ReasoningEffort)
"""The levels in increasing order: the command line's ``choices`` and the settings forms list them."""

EffortChoice = Literal["off", "low", "medium", "high"]
"""The composer's picker: "off" asks for no particular effort; "minimal" is left to the settings and the CLI."""

EFFORT_CHOICES: tuple[EffortChoice, ...] = get_args(EffortChoice)


def effort_for_request(choice: str) -> ReasoningEffort | None:
    """The ``reasoning_effort`` a run request takes for a picker choice: None for "off".

    Raises ValueError for a word that is not one of ``EFFORT_CHOICES``.
    """
    if choice == "off":
        return None
    for effort in REASONING_EFFORTS:
        if choice == effort and effort != "minimal":
            return effort
    raise ValueError(f"reasoning effort must be one of {', '.join(EFFORT_CHOICES)}, not {choice!r}")
