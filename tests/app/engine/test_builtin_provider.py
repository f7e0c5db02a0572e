"""The provider ``builtin`` in the run service: named, or chosen on a machine with no provider set up; a run
through it starts the engine (a stand-in server here) and answers; what it needs but lacks is a typed problem
that writes nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.engine import library
from app.engine.adapter import BuiltinAdapter
from app.engine.manager import BuiltinEngine
from app.engine.settings import EngineSettings
from app.runs.chat_turn import ChatSettings
from app.runs.run_service import EngineUnavailableError, NoProviderError, RunService, run
from app.secrets import SecretStore
from app.settings import ProviderSettings, Settings
from orchestration.events import RunEvent
from tests.support.memory_keyring import MemoryKeyring


@pytest.fixture
def installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stand-in server replaces llama-cpp-python, whether or not it is installed here."""
    monkeypatch.setattr(library, "engine_installed", lambda: True)


def service(settings: Settings, engine: BuiltinEngine | None) -> RunService:
    return RunService(settings, SecretStore(MemoryKeyring()), engine=engine)


async def test_a_run_with_provider_builtin_starts_the_engine_and_answers(
        installed: None, engine_settings: EngineSettings, tmp_path: Path, fake_python: str) -> None:
    engine = BuiltinEngine(engine_settings, tmp_path, python=fake_python)
    runs = service(Settings(engine=engine_settings), engine)
    plan = runs.plan("hi", ChatSettings(provider="builtin", tools="none"))
    assert plan.target.builtin and plan.target.model == "tiny" and plan.target.api_key is None
    assert engine.pid is None  # planning starts nothing
    prepared = runs.begin(plan, None)
    assert isinstance(prepared.adapter, BuiltinAdapter)
    events: list[RunEvent] = []
    result = await run(prepared, events.append)
    assert result.answer == "hello" and result.finish_reason == "stop"
    await engine.aclose()


def test_a_fresh_machine_without_providers_uses_the_builtin_engine(
        installed: None, engine_settings: EngineSettings, tmp_path: Path) -> None:
    runs = service(Settings(engine=engine_settings), BuiltinEngine(engine_settings, tmp_path))
    target = runs.target(ChatSettings())
    assert target.builtin and target.config.id == "builtin" and target.model == "tiny"


def test_configured_providers_win_over_the_builtin_engine(installed: None, engine_settings: EngineSettings,
                                                          tmp_path: Path) -> None:
    settings = Settings(engine=engine_settings,
                        providers=[ProviderSettings(id="mine", base_url="http://127.0.0.1:9/v1", default_model="m")],
                        default_provider="mine")
    assert not service(settings, BuiltinEngine(engine_settings, tmp_path)).target(ChatSettings()).builtin
    settings.default_provider = None  # providers set up but none is the default: ask, do not guess
    with pytest.raises(NoProviderError):
        service(settings, BuiltinEngine(engine_settings, tmp_path)).target(ChatSettings())


def test_without_the_engine_installed_builtin_says_how_to_get_it(
        monkeypatch: pytest.MonkeyPatch, engine_settings: EngineSettings, tmp_path: Path) -> None:
    monkeypatch.setattr(library, "engine_installed", lambda: False)
    runs = service(Settings(engine=engine_settings), BuiltinEngine(engine_settings, tmp_path))
    with pytest.raises(EngineUnavailableError, match="not installed: run `make run`"):
        runs.plan("hi", ChatSettings(provider="builtin"))
    with pytest.raises(NoProviderError):  # and a fresh machine gets the usual "add a provider"
        runs.target(ChatSettings())


def test_an_unknown_builtin_model_names_the_known_ones(installed: None, engine_settings: EngineSettings,
                                                       tmp_path: Path) -> None:
    runs = service(Settings(engine=engine_settings), BuiltinEngine(engine_settings, tmp_path))
    with pytest.raises(EngineUnavailableError, match=r"no local model 'big'.*tiny"):
        runs.target(ChatSettings(provider="builtin", model="big"))


def test_turned_off_the_engine_is_never_offered_or_started(installed: None, engine_settings: EngineSettings,
                                                           tmp_path: Path) -> None:
    engine_settings.enabled = False
    runs = service(Settings(engine=engine_settings), BuiltinEngine(engine_settings, tmp_path))
    with pytest.raises(NoProviderError):
        runs.target(ChatSettings())
    with pytest.raises(EngineUnavailableError, match=r"turned off \(engine.enabled"):
        runs.target(ChatSettings(provider="builtin"))
