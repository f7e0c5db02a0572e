"""Fuzzing the settings loader: any bytes in settings.json load as settings or as defaults with a problem, the
file the user wrote is kept byte for byte, and settings that loaded can be saved again."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from app.settings import Settings, load_settings, save_settings
from app.settings.model import ProviderSettings, SearchSettings, ToolSettings
from tests.fuzz.strategies import damaged_bytes, encode_json, json_values, mutated
from tools.mcp.settings import McpServerSettings

RICH = Settings(
    providers=[ProviderSettings(id="local", base_url="http://127.0.0.1:11434/v1", default_model="llama3.1",
                                headers={"X-Team": "a"}, capabilities={"max_tools": 64})],
    default_provider="local",
    search=SearchSettings(backend="searxng", base_urls={"searxng": "http://127.0.0.1:8888"}),
    tools=ToolSettings(enabled={"calculate": True}, approval={"read_file": "ask"}),
    workspace_folders=["/tmp/work"],
    mcp_servers=[McpServerSettings(name="time", command="uvx", args=["mcp-server-time"], env={"TZ": "UTC"})],
).model_dump(mode="json")
RICH_TEXT = json.dumps(RICH)

file_contents = st.one_of(
    st.binary(max_size=200),
    json_values.map(encode_json).map(str.encode),
    mutated(RICH).map(encode_json).map(str.encode),
    mutated(RICH, None).map(encode_json).map(str.encode),
    damaged_bytes(RICH_TEXT),
)


def _load_then_save(folder: Path, content: bytes) -> None:
    path = folder / "settings.json"
    for old in folder.glob("settings.json*"):
        old.unlink()
    path.write_bytes(content)
    loaded = load_settings(path)
    assert isinstance(loaded.settings, Settings)
    if loaded.problem is None:
        save_settings(loaded.settings, path)  # what loaded cleanly must save again
        assert load_settings(path).problem is None
        return
    assert str(path) in loaded.problem
    # moved aside, so that the next save cannot overwrite what the user wrote
    assert loaded.backup is not None and not path.exists()
    assert loaded.backup.read_bytes() == content
    assert str(loaded.backup) in loaded.problem


@given(file_contents)
@example(b"\xff\xfe{}")  # not UTF-8: moved aside like any damaged file
@example(b'{"workspace_folders": ["\\ud800"]}')  # a lone surrogate that validates and must still save
@example(b'{"providers": [{"id": "a", "base_url": "http://x", "headers": {"X-A": "\\udfff"}}]}')
def test_any_settings_file_loads_and_is_kept(tmp_path_factory, content: bytes) -> None:
    _load_then_save(tmp_path_factory.mktemp("settings"), content)
