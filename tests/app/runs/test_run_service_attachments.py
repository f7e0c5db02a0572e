"""Attachments through the run service, over loopback HTTP and a real SQLite file and attachment store: a
follow-up in the same conversation carries the earlier attachment in every wire format, an image for a model
without vision is refused before anything is saved or sent, and a conversation continued with such a model
gets a note instead of the image."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from app.attachments import attachment_from_bytes
from app.runs.attachment_check import IMAGE_LEFT_OUT
from app.runs.chat_turn import ChatSettings
from app.runs.provider_setup import provider_config
from app.runs.run_service import RunService, VisionUnsupportedError, run
from app.secrets import SecretStore
from app.settings import ProviderSettings, Settings
from app.storage import History
from orchestration.messages import ImagePart
from orchestration.providers.presets import provider_from_preset
from tests.support.attachment_files import image_bytes, text_pdf
from tests.support.attachment_wire import expected_user, turns
from tests.support.loopback import LoopbackServer
from tests.support.memory_keyring import MemoryKeyring
from tests.support.wire_kinds import KIND_IDS, KINDS, WireKind


@pytest.fixture
def history(tmp_path: Path):
    opened = History.open(tmp_path / "data" / "history.db")
    yield opened
    opened.close()


def chat_for(kind: WireKind, server: LoopbackServer, *, vision: bool = True) -> ChatSettings:
    config = provider_from_preset(kind.preset, base_url=server.url + kind.base_path, api_key="test-key-not-real")
    caps = config.capabilities.model_copy(update={"vision": vision, "families": ()})
    config = config.model_copy(update={"capabilities": caps, "max_attempts": 1})
    return ChatSettings(one_off=config, model=kind.model, tools="none")


def service() -> RunService:
    return RunService(Settings(), SecretStore(MemoryKeyring()))


@pytest.mark.parametrize("kind", KINDS, ids=KIND_IDS)
def test_a_follow_up_carries_the_earlier_attachments_from_the_store(kind: WireKind, loopback: LoopbackServer,
                                                                     history: History):
    photo = attachment_from_bytes("photo.png", image_bytes(12, 9))
    paper = attachment_from_bytes("paper.pdf", text_pdf("Otters sleep holding hands"))
    loopback.add("POST", kind.path, kind.answer("Two otters."), kind.answer("Grey."))
    svc, chat = service(), chat_for(kind, loopback)
    first = svc.begin(svc.plan("What is in these?", chat, [photo, paper]), history)
    assert asyncio.run(run(first, lambda e: None)).answer == "Two otters."
    follow = svc.begin(svc.plan("What colour are they?", chat), history, first.conversation_id)
    assert asyncio.run(run(follow, lambda e: None)).answer == "Grey."

    assert isinstance(photo.part, ImagePart)
    paper_text = "[Attached file: paper.pdf]\nOtters sleep holding hands\n[End of paper.pdf]"
    pieces = [("image", photo.part), ("text", paper_text), ("text", "What is in these?")]
    first_turn = expected_user(kind.name, pieces)
    assert turns(kind.name, loopback.requests[0].json)[0] == first_turn
    assert turns(kind.name, loopback.requests[1].json)[0] == first_turn  # read back from the database and store
    assert history.attachments.read(photo.part.sha256) == photo.part.data


def test_an_image_for_a_model_without_vision_is_refused_before_anything_is_saved(loopback: LoopbackServer,
                                                                                   history: History):
    kind = KINDS[0]
    photo = attachment_from_bytes("photo.png", image_bytes())
    with pytest.raises(VisionUnsupportedError, match=r"m \(.*\) does not accept images; remove photo.png") as caught:
        service().plan("What is this?", chat_for(kind, loopback, vision=False), [photo])
    assert caught.value.images == ["photo.png"]
    assert loopback.count == 0 and history.list_conversations() == []
    assert not history.attachments.root.exists()


def test_a_providers_vision_setting_wins_over_its_model_families():
    said_no = ProviderSettings(id="o", preset="ollama-native", kind="ollama", base_url="http://127.0.0.1:1",
                               capabilities={"vision": False})
    assert not provider_config(said_no, None).capabilities.for_model("llava:7b").vision
    said_yes = said_no.model_copy(update={"capabilities": {"vision": True}})
    assert provider_config(said_yes, None).capabilities.for_model("gemma3:1b").vision
    plain = said_no.model_copy(update={"capabilities": {}})
    assert provider_config(plain, None).capabilities.for_model("llava:7b").vision


def test_a_document_goes_to_a_model_without_vision(loopback: LoopbackServer, history: History):
    kind = KINDS[0]
    notes = attachment_from_bytes("notes.md", b"# Otters\nThey float.")
    loopback.add("POST", kind.path, kind.answer("They float."))
    svc, chat = service(), chat_for(kind, loopback, vision=False)
    prepared = svc.begin(svc.plan("Summarise", chat, [notes]), history)
    assert asyncio.run(run(prepared, lambda e: None)).answer == "They float."
    assert turns(kind.name, loopback.requests[0].json)[0]["content"][0]["text"].startswith("[Attached file: notes.md]")


def test_continuing_with_a_model_without_vision_sends_a_note_instead_of_the_image(loopback: LoopbackServer,
                                                                                   history: History):
    kind = KINDS[0]
    photo = attachment_from_bytes("photo.png", image_bytes())
    loopback.add("POST", kind.path, kind.answer("A square."), kind.answer("Red."))
    svc = service()
    first = svc.begin(svc.plan("What is this?", chat_for(kind, loopback), [photo]), history)
    asyncio.run(run(first, lambda e: None))
    follow = svc.begin(svc.plan("Colour?", chat_for(kind, loopback, vision=False)), history, first.conversation_id)
    assert asyncio.run(run(follow, lambda e: None)).answer == "Red."
    note = IMAGE_LEFT_OUT.format(name="photo.png", model="m")
    assert turns(kind.name, loopback.requests[1].json)[0]["content"] == [
        {"type": "text", "text": f"[Attached file: photo.png]\n{note}\n[End of photo.png]"},
        {"type": "text", "text": "What is this?"}]
