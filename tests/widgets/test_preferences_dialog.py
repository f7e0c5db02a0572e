"""The preferences dialog on its own: providers against a loopback server, keys in an in-memory keyring (or a
failing one), validation at the fields, and the settings it hands back."""

from __future__ import annotations

import asyncio

from keyring.backends import fail
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from app.runs.provider_setup import provider_config
from app.secrets.store import SecretStore
from app.session.chat_session import SETTINGS_SCHEMA, preference_keys
from app.settings import ProviderSettings, Settings
from orchestration.limits import LoopLimits
from orchestration.providers.models import list_models
from tests.support.loopback import Response
from tests.support.memory_keyring import MemoryKeyring
from widgets.preferences_dialog import PreferencesDialog, limit_bounds

TOOLS = [("web_search", "Search the web"), ("read_file", "Read a file in the workspace")]
FAKE_KEY = "test-key-not-real"


def make_dialog(qtbot, settings: Settings | None = None, secrets: SecretStore | None = None,
                tester=None) -> PreferencesDialog:
    dialog = PreferencesDialog(schema=SETTINGS_SCHEMA, settings=settings or Settings(),
                               keys=preference_keys(secrets or SecretStore(MemoryKeyring())),
                               tools=TOOLS, test_connection=tester)
    qtbot.addWidget(dialog)
    return dialog


async def loopback_models(entry: ProviderSettings, typed_key: str | None) -> list[str]:
    return [m.id for m in await list_models(provider_config(entry, typed_key))]


def test_add_provider_test_connection_and_store_key(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response.json({"data": [{"id": "tiny-1"}, {"id": "tiny-2"}]}))
    keyring = MemoryKeyring()
    dialog = make_dialog(qtbot, secrets=SecretStore(keyring), tester=loopback_models)
    tab = dialog.providers
    qtbot.mouseClick(tab.add_button, Qt.MouseButton.LeftButton)
    tab.preset.setCurrentIndex(tab.preset.findData("custom"))
    tab.id.setText("local")
    tab.base_url.setText(loopback.url + "/v1")
    tab.key.field.setText(FAKE_KEY)

    qtbot.mouseClick(tab.test_button, Qt.MouseButton.LeftButton)
    assert tab.test_result.text() == "Connecting…"
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, 5))
    assert tab.test_result.text().startswith("Connected: 2 models. tiny-1, tiny-2")
    assert [tab.model.itemText(i) for i in range(tab.model.count())] == ["tiny-1", "tiny-2"]
    assert tab.model.currentText() == "tiny-1"
    assert loopback.requests[0].header("Authorization") == f"Bearer {FAKE_KEY}"  # the typed key, not yet stored

    qtbot.mouseClick(tab.key.store_button, Qt.MouseButton.LeftButton)
    assert keyring.entries[("parley", "provider:local")] == FAKE_KEY
    assert tab.key.field.text() == ""
    assert tab.key.status.text() == "A key is stored in the keyring."
    assert FAKE_KEY not in " ".join(w.text() for w in dialog.findChildren(QLineEdit))

    assert dialog.ok_button.isEnabled()
    result = dialog.result_settings()
    assert [(p.id, p.preset, p.base_url, p.default_model) for p in result.providers] == [
        ("local", "custom", loopback.url + "/v1", "tiny-1")]
    assert result.default_provider == "local"


def test_test_connection_shows_the_providers_error(qtbot, qasync_loop, loopback):
    loopback.add("GET", "/v1/models", Response.json({"error": {"message": "Incorrect API key provided"}},
                                                   status=401))
    settings = Settings(providers=[ProviderSettings(id="hosted", base_url=loopback.url + "/v1")])
    dialog = make_dialog(qtbot, settings, tester=loopback_models)
    qtbot.mouseClick(dialog.providers.test_button, Qt.MouseButton.LeftButton)
    qasync_loop.run_until_complete(asyncio.wait_for(dialog.providers.test_task, 5))
    assert dialog.providers.test_result.text().startswith("Failed:")
    assert "Incorrect API key provided" in dialog.providers.test_result.text()
    assert dialog.providers.test_button.isEnabled()


def test_validation_at_the_fields_disables_ok(qtbot):
    settings = Settings(providers=[ProviderSettings(id="one", base_url="http://127.0.0.1:1/v1")])
    dialog = make_dialog(qtbot, settings)
    tab = dialog.providers
    tab.add("custom")
    tab.id.setText("one")
    tab.base_url.setText("ftp://example.org")
    assert tab.errors["id"].text() == "another provider is already called one"
    assert "must start with http:// or https://" in tab.errors["base_url"].text()
    assert not tab.errors["id"].isHidden() and not tab.errors["base_url"].isHidden()
    assert not dialog.ok_button.isEnabled()
    dialog.buttons.accepted.emit()
    assert dialog.result() == 0  # refused while there are problems

    tab.headers.setPlainText("Authorization: Bearer x")
    assert "carries a credential" in tab.errors["headers"].text()
    tab.headers.setPlainText("X-Team: blue")
    tab.id.setText("two")
    tab.base_url.setText("http://127.0.0.1:2/v1")
    assert dialog.problems() == [] and dialog.ok_button.isEnabled()
    assert dialog.result_settings().provider("two").headers == {"X-Team": "blue"}


def test_limits_show_defaults_and_enforce_the_models_bounds(qtbot):
    dialog = make_dialog(qtbot)
    for name, field in LoopLimits.model_fields.items():
        assert dialog.limit_fields[name].value() == field.default
    hints = [label.text() for label in dialog.findChildren(QLabel)]
    assert "default 10, 1–100" in hints and "default 30, 0.1–3,600" in hints
    box = dialog.limit_fields["max_iterations"]
    assert (box.minimum(), box.maximum()) == limit_bounds("max_iterations") == (1, 100)
    box.lineEdit().selectAll()
    qtbot.keyClicks(box.lineEdit(), "500")
    box.interpretText()
    assert box.value() <= 100
    box.setValue(250)
    assert box.value() == 100
    timeout = dialog.limit_fields["tool_timeout"]
    assert timeout.minimum() > 0 and timeout.maximum() == 3600
    dialog.limit_fields["max_parallel_tools"].setValue(8)
    assert dialog.result_settings().limits.max_parallel_tools == 8


def test_search_tools_and_appearance_round_trip(qtbot):
    secrets = SecretStore(MemoryKeyring())
    dialog = make_dialog(qtbot, secrets=secrets)
    dialog.search_backend.setCurrentIndex(dialog.search_backend.findData("searxng"))
    assert "base URL" in dialog.searxng_error.text() and not dialog.ok_button.isEnabled()
    dialog.searxng_url.setText("searx.local")
    assert "http://" in dialog.searxng_error.text()
    dialog.searxng_url.setText("http://127.0.0.1:8888")
    dialog.result_count.setValue(9)
    dialog.safe_search.setCurrentText("strict")
    dialog.tool_checks["read_file"].setChecked(False)
    dialog.tool_policies["web_search"].setCurrentIndex(dialog.tool_policies["web_search"].findData("allow"))
    dialog.theme.setCurrentIndex(dialog.theme.findData("dark"))
    dialog.font_size.setValue(14)
    result = dialog.result_settings()
    assert (result.search.backend, result.search.base_urls, result.search.result_count,
            result.search.safe_search) == ("searxng", {"searxng": "http://127.0.0.1:8888"}, 9, "strict")
    assert result.tools.enabled == {"read_file": False}
    assert result.tools.approval == {"web_search": "allow"}
    assert (result.ui.theme, result.ui.font_size) == ("dark", 14)

    dialog.search_backend.setCurrentIndex(dialog.search_backend.findData("tavily"))
    dialog.search_key.field.setText(FAKE_KEY)
    dialog.search_key.store()
    assert secrets.lookup("search:tavily") == FAKE_KEY
    assert dialog.search_key.status.text() == "A key is stored in the keyring."
    qtbot.mouseClick(dialog.search_key.forget_button, Qt.MouseButton.LeftButton)
    assert secrets.lookup("search:tavily") is None
    assert dialog.search_key.status.text() == "No key stored."


def test_unusable_keyring_offers_a_session_key(qtbot):
    secrets = SecretStore(fail.Keyring())
    settings = Settings(providers=[ProviderSettings(id="hosted", preset="openai", base_url="https://a.example/v1")])
    dialog = make_dialog(qtbot, settings, secrets=secrets)
    assert not dialog.keyring_notice.isHidden()
    assert "session only" in dialog.keyring_notice.text()
    row = dialog.providers.key
    assert row.store_button.text() == "Use for this session"
    row.field.setText(FAKE_KEY)
    qtbot.mouseClick(row.store_button, Qt.MouseButton.LeftButton)
    assert secrets.lookup("provider:hosted") == FAKE_KEY
    assert row.status.text() == "A key is kept for this session only."


def test_a_keyring_that_refuses_is_reported_at_the_key(qtbot):
    dialog = make_dialog(qtbot, Settings(providers=[ProviderSettings(id="p", base_url="http://127.0.0.1:1/v1")]))
    row = dialog.providers.key
    row.field.setText("two\nlines")
    row.store()
    assert row.status.text().startswith("Not stored:") and "several lines" in row.status.text()


def test_removing_the_default_provider_picks_another(qtbot):
    settings = Settings(providers=[ProviderSettings(id="a", base_url="http://127.0.0.1:1/v1"),
                                   ProviderSettings(id="b", base_url="http://127.0.0.1:2/v1")], default_provider="a")
    dialog = make_dialog(qtbot, settings)
    assert dialog.providers.is_default.isChecked()
    qtbot.mouseClick(dialog.providers.remove_button, Qt.MouseButton.LeftButton)
    result = dialog.result_settings()
    assert [p.id for p in result.providers] == ["b"] and result.default_provider == "b"
    assert [p.id for p in settings.providers] == ["a", "b"]  # the dialog edited a copy


def test_renaming_a_provider_keeps_its_key_where_it_is_until_ok(qtbot, qasync_loop):
    keyring = MemoryKeyring()
    SecretStore(keyring).store("provider:local", FAKE_KEY)
    tested: list[str] = []

    async def tester(entry: ProviderSettings, typed_key: str | None) -> list[str]:
        tested.append(entry.id)
        return ["m1"]

    settings = Settings(providers=[ProviderSettings(id="local", base_url="http://127.0.0.1:9/v1")],
                        default_provider="local")
    dialog = make_dialog(qtbot, settings, SecretStore(keyring), tester=tester)
    tab = dialog.providers
    tab.id.setText("home")
    assert tab.renames() == {"local": "home"}
    assert tab.list.item(0).text() == "home"
    assert tab.key.status.text() == "A key is stored in the keyring."  # still under provider:local
    tab.test_connection()
    qasync_loop.run_until_complete(asyncio.wait_for(tab.test_task, 5))
    assert tested == ["local"]  # the test looks the key up where it is kept until OK
    result = dialog.result_settings()
    assert ([p.id for p in result.providers], result.default_provider) == (["home"], "home")
    assert list(keyring.entries) == [("parley", "provider:local")]  # the app moves it on OK


def test_model_call_deadline_row_sits_with_the_limits(qtbot):
    dialog = make_dialog(qtbot)
    box = dialog.limit_fields["model_call_timeout"]
    assert box.accessibleName() == "Model call deadline (s)"
    assert box.value() == 600 and box.minimum() > 0 and box.maximum() == 86_400
    assert "default 600, 0.1–86,400" in [label.text() for label in dialog.findChildren(QLabel)]
    box.setValue(90)
    assert dialog.result_settings().limits.model_call_timeout == 90


def test_a_provider_can_say_its_models_take_images(qtbot):
    settings = Settings(providers=[ProviderSettings(id="lm", preset="lmstudio", base_url="http://127.0.0.1:1/v1",
                                                    capabilities={"max_tools": 8})])
    dialog = make_dialog(qtbot, settings)
    vision = dialog.providers.vision
    assert vision.currentData() == ""  # the preset's
    vision.setCurrentIndex(vision.findData("yes"))
    (entry,) = dialog.result_settings().providers
    assert entry.capabilities == {"max_tools": 8, "vision": True}
    assert provider_config(entry, None).capabilities.for_model("llava").vision
    vision.setCurrentIndex(vision.findData(""))
    (entry,) = dialog.result_settings().providers
    assert entry.capabilities == {"max_tools": 8}
