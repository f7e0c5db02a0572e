"""docs/providers.md's capability table says what the presets say."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestration.providers.presets import PRESETS, Preset

DOC = Path(__file__).resolve().parents[3] / "docs" / "providers.md"


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def table_row(name: str, preset: Preset) -> str:
    caps = preset.capabilities
    parallel = {None: "provider", False: "off", True: "on"}[caps.parallel_tool_calls_default]
    control = "–" if caps.reasoning_control == "none" else caps.reasoning_control
    if caps.reasoning_control != "none" and caps.reasoning_models:
        control += " (" + ", ".join(caps.reasoning_models) + ")"
    cells = [f"`{name}`", preset.kind, _yes(caps.streaming), _yes(caps.tools), _yes(caps.parallel_tool_calls),
             parallel, _yes(caps.tool_ids), _yes(caps.reasoning_output), control, _yes(caps.response_format),
             _yes(caps.vision), str(caps.max_tools or "–"), _yes(caps.think_tags)]
    return "| " + " | ".join(cells) + " |"


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_capability_row_matches_the_preset(name: str) -> None:
    assert table_row(name, PRESETS[name]) in DOC.read_text(encoding="utf-8").splitlines()


@pytest.mark.parametrize("name", sorted(n for n, p in PRESETS.items() if p.capabilities.families))
def test_model_families_are_documented(name: str) -> None:
    text = DOC.read_text(encoding="utf-8")
    for family in PRESETS[name].capabilities.families:
        prefixes = ", ".join(f"`{p}`" for p in family.prefixes)
        assert f"| `{name}` | {prefixes} |" in text
