"""``get_current_time``: the current date and time, locally or in a named IANA time zone.

Models have no clock: they know their training cut-off, not today's date, and they guess badly at time-zone
arithmetic (daylight saving in particular). This tool gives them the real instant from the user's machine,
with the weekday and UTC offset spelled out so they need not work either out themselves.

Time zones come from ``zoneinfo`` (the system database, or the ``tzdata`` package where the system has none,
as on Windows). An unknown zone is an argument error whose message shows how to write one and suggests close
names. Without a zone the user's local zone is used: its IANA name when the system exposes one (``TZ``,
``/etc/localtime``, ``/etc/timezone``), otherwise the operating system's local offset, and UTC if even that
cannot be read.
"""

from __future__ import annotations

import contextlib
import functools
import os
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

from pydantic import Field, field_validator
from pydantic_core import PydanticCustomError

from orchestration.tool_api import ToolContext, ToolOutput
from tools.arguments import ToolArguments
from tools.registry import Tool

NAME = "get_current_time"
EXAMPLES = "'Europe/Paris', 'America/New_York', 'Asia/Tokyo' or 'UTC'"

# Where Unix systems say which zone is local; module attributes so tests can point them elsewhere.
LOCALTIME_PATH = Path("/etc/localtime")
TIMEZONE_FILE = Path("/etc/timezone")


def _load_zone(key: str) -> ZoneInfo | None:
    """The zone for an exact IANA key, or None (unknown key, a directory such as 'Europe', a bad path)."""
    try:
        return ZoneInfo(key)
    except (ZoneInfoNotFoundError, ValueError, OSError):
        return None


@functools.cache
def _known_zones() -> dict[str, str]:
    """Every available IANA key by its lower-case form (read from disk once)."""
    return {key.lower(): key for key in available_timezones()}


def _suggestions(text: str) -> list[str]:
    """Up to three known zones that look like what was meant ('paris' -> 'Europe/Paris')."""
    import difflib  # only for a zone the model got wrong, not at every start

    known = _known_zones()
    wanted = text.strip().lower().replace(" ", "_")
    by_city = sorted(key for lower, key in known.items() if lower.rsplit("/", 1)[-1] == wanted)
    close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)
    return list(dict.fromkeys([*by_city, *(known[c] for c in close)]))[:3]


def resolve_zone(text: str) -> str:
    """The IANA key for ``text`` (exact, or the same name in other letter case); ValueError when unknown."""
    key = text.strip()
    if _load_zone(key) is not None:
        return key
    canonical = _known_zones().get(key.lower())
    if canonical is not None and _load_zone(canonical) is not None:
        return canonical
    message = f"unknown time zone {text!r}. Use an IANA time zone name such as {EXAMPLES}"
    if not _known_zones():
        message += " (no time-zone database is installed, so only 'UTC' works)"
    suggestions = _suggestions(text)
    if suggestions:
        message += f"; did you mean {', '.join(repr(s) for s in suggestions)}?"
    raise ValueError(message)


def _key_from_path(path: str) -> str | None:
    """'…/zoneinfo/Europe/Paris' -> 'Europe/Paris'."""
    marker = "zoneinfo/"
    where = path.replace(os.sep, "/").rfind(marker)
    return path.replace(os.sep, "/")[where + len(marker):] if where >= 0 else None


def local_zone_key() -> str | None:
    """The local zone's IANA name when the system exposes one, else None."""
    candidates: list[str | None] = []
    tz_variable = os.environ.get("TZ", "").strip().lstrip(":")
    if tz_variable:
        candidates.append(_key_from_path(tz_variable) if tz_variable.startswith("/") else tz_variable)
    try:
        if LOCALTIME_PATH.is_symlink():
            candidates.append(_key_from_path(str(LOCALTIME_PATH.resolve())))
    except OSError:
        pass
    with contextlib.suppress(OSError, UnicodeDecodeError):
        candidates.append(TIMEZONE_FILE.read_text(encoding="utf-8").strip())
    for key in candidates:
        if key and _load_zone(key) is not None:
            return key
    return None


def local_zone() -> tuple[tzinfo, str | None]:
    """The local zone and its IANA name (None when only the operating system's offset is known)."""
    key = local_zone_key()
    if key is not None:
        return ZoneInfo(key), key
    try:
        system = datetime.now().astimezone().tzinfo
    except (OSError, OverflowError, ValueError):
        system = None
    return (system, None) if system is not None else (UTC, "UTC")


def _format_offset(moment: datetime) -> str:
    offset = moment.utcoffset()
    if offset is None:
        return "+00:00"
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    hours, minutes = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{minutes:02d}"


def describe(moment: datetime, zone_name: str | None) -> ToolOutput:
    """The tool's answer for an aware ``moment``; ``zone_name`` None: a local zone without an IANA name."""
    abbreviation = moment.tzname() or ""
    offset = _format_offset(moment)
    shown_zone = zone_name if zone_name is not None else f"local time ({abbreviation or 'UTC' + offset})"
    if zone_name is not None and abbreviation and abbreviation != zone_name:
        shown_zone += f" ({abbreviation})"
    iso = moment.isoformat(timespec="seconds")
    weekday = moment.strftime("%A")
    text = f"time: {iso}\nweekday: {weekday}\nutc_offset: {offset}\ntimezone: {shown_zone}"
    data: dict[str, Any] = {
        "iso": iso,
        "weekday": weekday,
        "utc_offset": offset,
        "timezone": zone_name,
        "abbreviation": abbreviation,
    }
    return ToolOutput(text=text, data=data)


class CurrentTimeArguments(ToolArguments):
    timezone: str | None = Field(
        default=None,
        max_length=100,
        description=f"IANA time zone name, e.g. {EXAMPLES}. Omit for the user's local time zone.",
    )

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str | None) -> str | None:
        if value is None or not value.strip():
            return None
        try:
            return resolve_zone(value)
        except ValueError as exc:
            # A custom error keeps pydantic's "Value error, " prefix out of the message the model reads.
            raise PydanticCustomError("unknown_timezone", str(exc)) from None


async def _current_time(arguments: CurrentTimeArguments, context: ToolContext) -> ToolOutput:
    if arguments.timezone is None:
        zone, name = local_zone()
    else:
        zone, name = ZoneInfo(arguments.timezone), arguments.timezone
    return describe(datetime.now(zone), name)


def current_time_tool() -> Tool:
    return Tool(
        name=NAME,
        description="Get the current date and time (ISO 8601, weekday, UTC offset), in the user's local "
        "time zone or in a given IANA time zone.",
        arguments=CurrentTimeArguments,
        handler=_current_time,
        category="utility",
        visibility="hidden",
        parallel_safe=True,
        needs_approval=False,
    )
