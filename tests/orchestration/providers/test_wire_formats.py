"""Each wire format is registered once (orchestration/providers/wire_formats.py) and every lookup of a kind
goes through that registration: its adapter, its model lister and its starting preset all exist and agree, and
a kind that is not registered is UnsupportedKindError wherever it is looked up."""

from __future__ import annotations

import inspect

import pytest

from orchestration.providers import ADAPTER_KINDS, UnsupportedKindError, adapter_for
from orchestration.providers.base import HTTPChatAdapter
from orchestration.providers.openai_chat import OpenAIChatAdapter
from orchestration.providers.presets import KIND_PRESETS, PRESETS, provider_from_preset
from orchestration.providers.wire_formats import WIRE_FORMATS, WIRE_KINDS, wire_format


def test_every_kind_has_one_registration_under_its_own_name() -> None:
    assert list(WIRE_FORMATS) == list(WIRE_KINDS) == list(ADAPTER_KINDS)
    assert all(f.kind == kind for kind, f in WIRE_FORMATS.items())
    assert len({f.display_name for f in WIRE_FORMATS.values()}) == len(WIRE_KINDS)


@pytest.mark.parametrize("kind", WIRE_KINDS)
def test_a_registration_names_an_adapter_a_lister_and_a_preset_of_its_kind(kind: str) -> None:
    fmt = wire_format(kind)
    adapter = fmt.adapter_class()
    assert isinstance(adapter, type)
    assert issubclass(adapter, HTTPChatAdapter | OpenAIChatAdapter)
    assert inspect.iscoroutinefunction(fmt.model_lister())
    assert PRESETS[fmt.preset].kind == kind and KIND_PRESETS[kind] == fmt.preset
    config = provider_from_preset(fmt.preset, base_url="http://127.0.0.1:9")
    assert type(adapter_for(config)) is adapter


def test_every_preset_is_of_a_registered_kind() -> None:
    assert {p.kind for p in PRESETS.values()} <= set(WIRE_KINDS)


def test_an_unknown_kind_is_an_error_in_every_lookup() -> None:
    config = provider_from_preset("openai", base_url="http://127.0.0.1:9").model_copy(update={"kind": "mystery"})
    for lookup in (lambda: wire_format("mystery"), lambda: adapter_for(config)):
        with pytest.raises(UnsupportedKindError, match="'mystery' is not supported"):
            lookup()
