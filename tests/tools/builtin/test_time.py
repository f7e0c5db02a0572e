"""get_current_time: correct offsets and weekdays, friendly zone errors, and the local-zone fallbacks."""

from __future__ import annotations

import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from orchestration.tool_api import ToolArgumentsError, ToolContext, ToolOutput
from tools.builtin import time as time_tool
from tools.builtin.time import CurrentTimeArguments, current_time_tool, describe, local_zone, resolve_zone

pytestmark = pytest.mark.skipif(not time_tool._known_zones(), reason="no time-zone database installed")


async def run_tool(arguments: dict[str, Any]) -> ToolOutput:
    tool = current_time_tool()
    output = await tool.invoke(tool.validate(arguments), ToolContext(run_id="r", call_id="c"))
    assert isinstance(output, ToolOutput)
    return output


def fields(output: ToolOutput) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in output.text.splitlines())


def at(zone: str, *when: int) -> datetime:
    """An instant given in UTC, seen from ``zone``."""
    return datetime(*when, tzinfo=UTC).astimezone(ZoneInfo(zone))  # type: ignore[misc]


@pytest.fixture
def no_local_zone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No TZ variable and no /etc files: local-zone detection has nothing to go on."""
    monkeypatch.delenv("TZ", raising=False)
    monkeypatch.setattr(time_tool, "LOCALTIME_PATH", tmp_path / "no-localtime")
    monkeypatch.setattr(time_tool, "TIMEZONE_FILE", tmp_path / "no-timezone")
    return tmp_path


# --- what is reported ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone", "utc", "iso", "weekday", "offset", "shown"),
    [
        ("Europe/Paris", (2024, 7, 1, 12, 0), "2024-07-01T14:00:00+02:00", "Monday", "+02:00",
         "Europe/Paris (CEST)"),
        ("Europe/Paris", (2024, 1, 15, 12, 0), "2024-01-15T13:00:00+01:00", "Monday", "+01:00",
         "Europe/Paris (CET)"),
        ("America/New_York", (2024, 3, 10, 6, 59, 59), "2024-03-10T01:59:59-05:00", "Sunday", "-05:00",
         "America/New_York (EST)"),
        ("America/New_York", (2024, 3, 10, 7, 0), "2024-03-10T03:00:00-04:00", "Sunday", "-04:00",
         "America/New_York (EDT)"),
        ("Asia/Kolkata", (2024, 12, 31, 20, 0), "2025-01-01T01:30:00+05:30", "Wednesday", "+05:30",
         "Asia/Kolkata (IST)"),
        ("America/St_Johns", (2024, 1, 1, 0, 0), "2023-12-31T20:30:00-03:30", "Sunday", "-03:30",
         "America/St_Johns (NST)"),
        ("UTC", (2000, 2, 29, 23, 59, 59), "2000-02-29T23:59:59+00:00", "Tuesday", "+00:00", "UTC"),
    ],
)
def test_describe(zone: str, utc: tuple[int, ...], iso: str, weekday: str, offset: str, shown: str) -> None:
    output = describe(at(zone, *utc), zone)
    assert output.is_error is False
    assert fields(output) == {"time": iso, "weekday": weekday, "utc_offset": offset, "timezone": shown}
    assert output.data["iso"] == iso and output.data["timezone"] == zone
    assert datetime.fromisoformat(iso) == datetime(*utc, tzinfo=UTC)  # type: ignore[misc]


def test_describe_a_local_zone_without_a_name() -> None:
    from datetime import timezone

    moment = datetime(2024, 5, 5, 10, 0, tzinfo=timezone(timedelta(hours=-7), "PDT"))
    assert fields(describe(moment, None))["timezone"] == "local time (PDT)"
    unnamed = datetime(2024, 5, 5, 10, 0, tzinfo=timezone(timedelta(hours=9)))
    assert fields(describe(unnamed, None)) == {"time": "2024-05-05T10:00:00+09:00", "weekday": "Sunday",
                                               "utc_offset": "+09:00", "timezone": "local time (UTC+09:00)"}


async def test_tool_reports_the_current_time_in_a_zone() -> None:
    before = datetime.now(UTC).replace(microsecond=0)
    output = await run_tool({"timezone": "Asia/Tokyo"})
    after = datetime.now(UTC)
    reported = datetime.fromisoformat(fields(output)["time"])
    assert before <= reported <= after
    assert reported.utcoffset() == timedelta(hours=9)
    assert fields(output)["weekday"] == reported.strftime("%A")
    assert fields(output)["timezone"] == "Asia/Tokyo (JST)"


async def test_tool_without_a_zone_uses_the_local_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "Australia/Adelaide")
    output = await run_tool({})
    assert fields(output)["timezone"].startswith("Australia/Adelaide (AC")  # ACST or ACDT
    assert fields(output)["utc_offset"] in {"+09:30", "+10:30"}


@pytest.mark.parametrize("empty", [None, "", "   "])
async def test_blank_zone_means_local(monkeypatch: pytest.MonkeyPatch, empty: str | None) -> None:
    monkeypatch.setenv("TZ", "Europe/Oslo")
    assert CurrentTimeArguments.model_validate({"timezone": empty}).timezone is None
    assert fields(await run_tool({"timezone": empty}))["timezone"].startswith("Europe/Oslo")


# --- zone names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "key"),
    [
        ("Europe/Paris", "Europe/Paris"),
        ("  Europe/Paris ", "Europe/Paris"),
        ("europe/paris", "Europe/Paris"),
        ("AMERICA/NEW_YORK", "America/New_York"),
        ("utc", "UTC"),
        ("Etc/GMT+5", "Etc/GMT+5"),
    ],
)
def test_zone_names_are_resolved(given: str, key: str) -> None:
    assert resolve_zone(given) == key
    assert current_time_tool().validate({"timezone": given}).timezone == key


@pytest.mark.parametrize(
    ("given", "suggested"),
    [
        ("Paris", "'Europe/Paris'"),
        ("new york", "'America/New_York'"),
        ("Europe/Pari", "'Europe/Paris'"),
        ("Amerika/Chicago", "'America/Chicago'"),
    ],
)
def test_unknown_zone_explains_and_suggests(given: str, suggested: str) -> None:
    with pytest.raises(ToolArgumentsError) as caught:
        current_time_tool().validate({"timezone": given})
    message = str(caught.value)
    assert message.startswith(f"timezone: unknown time zone {given!r}. Use an IANA time zone name such as "
                              "'Europe/Paris'")
    assert "Value error" not in message
    assert f"did you mean {suggested}" in message


@pytest.mark.parametrize(
    "given", ["Mars/Olympus_Mons", "../../etc/passwd", "/etc/passwd", "Europe", "Europe/", "UTC+2", "a" * 100]
)
def test_not_a_zone(given: str) -> None:
    with pytest.raises(ToolArgumentsError, match=r"unknown time zone .* Use an IANA time zone name"):
        current_time_tool().validate({"timezone": given})


def test_overlong_zone_is_refused_by_the_schema() -> None:
    with pytest.raises(ToolArgumentsError, match="timezone: String should have at most 100 characters"):
        current_time_tool().validate({"timezone": "x" * 101})


# --- finding the local zone -------------------------------------------------------------------------------


@pytest.mark.parametrize("tz", ["Asia/Tokyo", ":Asia/Tokyo", "/usr/share/zoneinfo/Asia/Tokyo"])
def test_local_zone_from_tz_variable(monkeypatch: pytest.MonkeyPatch, no_local_zone: Path, tz: str) -> None:
    monkeypatch.setenv("TZ", tz)
    assert time_tool.local_zone_key() == "Asia/Tokyo"


@pytest.mark.skipif(sys.platform == "win32", reason="symlinks need extra rights on Windows")
def test_local_zone_from_localtime_symlink(monkeypatch: pytest.MonkeyPatch, no_local_zone: Path) -> None:
    target = no_local_zone / "zoneinfo" / "America" / "Chicago"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"TZif")
    link = no_local_zone / "localtime"
    link.symlink_to(target)
    monkeypatch.setattr(time_tool, "LOCALTIME_PATH", link)
    assert time_tool.local_zone_key() == "America/Chicago"


def test_local_zone_from_timezone_file(monkeypatch: pytest.MonkeyPatch, no_local_zone: Path) -> None:
    (no_local_zone / "timezone").write_text("Africa/Nairobi\n", encoding="utf-8")
    monkeypatch.setattr(time_tool, "TIMEZONE_FILE", no_local_zone / "timezone")
    assert time_tool.local_zone_key() == "Africa/Nairobi"


def test_invalid_hints_are_skipped(monkeypatch: pytest.MonkeyPatch, no_local_zone: Path) -> None:
    monkeypatch.setenv("TZ", "CET-1CEST,M3.5.0,M10.5.0/3")  # a POSIX rule, not an IANA name
    (no_local_zone / "timezone").write_text("Asia/Singapore", encoding="utf-8")
    monkeypatch.setattr(time_tool, "TIMEZONE_FILE", no_local_zone / "timezone")
    assert time_tool.local_zone_key() == "Asia/Singapore"


def test_without_any_hint_the_system_offset_is_used(no_local_zone: Path) -> None:
    assert time_tool.local_zone_key() is None
    zone, name = local_zone()
    assert name is None
    assert zone.utcoffset(datetime.now()) == datetime.now().astimezone().utcoffset()


def test_utc_when_even_the_system_offset_is_unreadable(
    monkeypatch: pytest.MonkeyPatch, no_local_zone: Path
) -> None:
    class BrokenClock(datetime):
        @classmethod
        def now(cls, tz: Any = None) -> BrokenClock:
            raise OSError("no clock")

    monkeypatch.setattr(time_tool, "datetime", BrokenClock)
    assert local_zone() == (UTC, "UTC")


# --- the tool ------------------------------------------------------------------------------------------


def test_tool_metadata_and_spec() -> None:
    tool = current_time_tool()
    assert tool.name == "get_current_time"
    assert (tool.category, tool.visibility, tool.parallel_safe, tool.needs_approval) == (
        "utility", "hidden", True, False)
    parameters = tool.spec().parameters
    assert "required" not in parameters
    assert "Europe/Paris" in parameters["properties"]["timezone"]["description"]
