"""Reading and writing the settings file: validated on load, written atomically, never crashing on a bad file.

A file that is not valid JSON, is larger than 1 MiB, is nested more than 100 levels deep or does not match
the schema is moved aside to ``settings.json.bad-<timestamp>``
(so nothing the user wrote is lost and the next save cannot overwrite it), the problem is reported naming the
file and the field, and Parley starts with defaults. Saving writes a temporary file in the same directory and
renames it over the old one, so a crash or a full disk never leaves a half-written settings file.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from app.errors import EnvironmentProblem, describe_os_error, describe_validation_error
from app.settings.model import Settings
from orchestration.bounded_json import JSONLimitError, JSONTooLargeError, check_bounds, format_bytes

MAX_SETTINGS_BYTES = 1024 * 1024  # a settings file is a few KiB; past 1 MiB it is not one


class SettingsError(EnvironmentProblem):
    """The settings file could not be read or written."""


@dataclass(frozen=True)
class LoadedSettings:
    settings: Settings
    problem: str | None = None  # what was wrong with the file, for the user; None when it loaded cleanly
    backup: Path | None = None  # where the invalid file was moved


def _move_aside(path: Path) -> Path | None:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = path.with_name(f"{path.name}.bad-{stamp}")
    counter = 1
    while target.exists():
        counter += 1
        target = path.with_name(f"{path.name}.bad-{stamp}-{counter}")
    try:
        os.replace(path, target)
    except OSError:
        return None
    return target


def _past_limit(error: JSONLimitError) -> str:
    if isinstance(error, JSONTooLargeError):
        limit = format_bytes(MAX_SETTINGS_BYTES)
        return f"it is more than {limit}, over the limit of {limit} for a settings file"
    return f"it is nested more than {error.limit} levels deep, over the limit of {error.limit} for JSON"


class InvalidSettingsText(ValueError):
    """The bytes of a settings file are not valid settings; the message says what is wrong, for the user."""


def parse_settings(data: bytes) -> Settings:
    """The settings in a file's bytes (read up to ``MAX_SETTINGS_BYTES`` plus one); raises InvalidSettingsText."""
    try:
        check_bounds(data, what="it", max_bytes=MAX_SETTINGS_BYTES)  # before decoding: the read stops past the limit
        raw = data.decode("utf-8")
        return Settings.model_validate_json(raw)
    except UnicodeDecodeError:
        raise InvalidSettingsText("it is not UTF-8 text") from None
    except (ValidationError, JSONLimitError) as exc:
        if isinstance(exc, JSONLimitError):
            what = _past_limit(exc)
        else:
            try:
                json.loads(raw)
                what = describe_validation_error(exc)
            except ValueError:
                what = "it is not valid JSON"
        raise InvalidSettingsText(what) from None


def read_limited(path: Path) -> bytes:
    """The file's first ``MAX_SETTINGS_BYTES`` plus one bytes (enough to tell it is too large); raises OSError."""
    with path.open("rb") as handle:
        return handle.read(MAX_SETTINGS_BYTES + 1)


def load_settings(path: Path) -> LoadedSettings:
    """The settings in ``path``; defaults when it does not exist. Never raises for a bad or unreadable file."""
    try:
        data = read_limited(path)
    except FileNotFoundError:
        return LoadedSettings(Settings())
    except OSError as exc:
        return LoadedSettings(Settings(), problem=f"could not read the settings file {path} "
                                                  f"({describe_os_error(exc)}); using default settings")
    try:
        return LoadedSettings(parse_settings(data))
    except InvalidSettingsText as exc:
        return _invalid(path, str(exc))


def _invalid(path: Path, what: str) -> LoadedSettings:
    """Defaults, with the file moved aside so that the next save cannot overwrite what the user wrote."""
    backup = _move_aside(path)
    kept = f"the file was moved to {backup}" if backup else "the file was left in place"
    return LoadedSettings(Settings(), problem=f"the settings file {path} is invalid: {what}; {kept} and "
                                              "default settings are used", backup=backup)


def settings_json(settings: Settings) -> str:
    return settings.model_dump_json(indent=2) + "\n"


def save_settings(settings: Settings, path: Path) -> None:
    """Write ``settings`` to ``path`` atomically; raises SettingsError naming the file when that fails."""
    text = settings_json(Settings.model_validate(settings.model_dump()))
    temp_name: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp_name, path)
        temp_name = None
    except OSError as exc:
        raise SettingsError(f"could not save the settings file {path} ({describe_os_error(exc)}); "
                            "the previous file is unchanged") from exc
    finally:
        if temp_name is not None:
            with contextlib.suppress(OSError):
                os.unlink(temp_name)
