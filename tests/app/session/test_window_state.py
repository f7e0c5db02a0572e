"""The window-layout file: where it lives, how a stray window is fitted to the screens, and that a damaged or
foreign file means the default layout. The restart itself is tested with the real app in
tests/e2e/test_window_layout_restart.py."""

from __future__ import annotations

from PySide6.QtCore import QRect

from app.paths import resolve_paths
from app.session.window_state import WINDOW_STATE_NAME, load, save, state_file
from widgets.window_layout import SEARCH, WindowLayout, fit_to_screens


def test_fitting_keeps_a_window_on_the_screen_it_is_on_and_pulls_a_stray_one_in():
    primary, second = QRect(0, 0, 1920, 1080), QRect(1920, 0, 2560, 1440)
    on_second = QRect(2100, 100, 1200, 800)
    assert fit_to_screens(on_second, [primary, second], primary) == on_second
    lost = fit_to_screens(on_second, [primary], primary)  # the second monitor was unplugged
    assert primary.contains(lost) and lost.size() == on_second.size()
    half_off = fit_to_screens(QRect(-300, 500, 1000, 700), [primary], primary)
    assert primary.contains(half_off) and half_off.size() == QRect(0, 0, 1000, 700).size()
    too_big = fit_to_screens(QRect(0, 0, 4000, 3000), [primary], primary)
    assert primary.contains(too_big)
    barely = fit_to_screens(QRect(1900, 1060, 800, 600), [primary, second], primary)  # a corner peeks out
    assert primary.contains(barely) or second.contains(barely)


def test_a_layout_is_read_back_as_it_was_written(tmp_path):
    layout = WindowLayout(x=-5, y=40, width=1400, height=900, maximized=True, splitter=(260, 700, 340),
                          panes_shown=False, pane=SEARCH, inspector_open=True, resting_width=1180)
    save(state_file(tmp_path), layout)
    assert load(state_file(tmp_path)) == layout


def test_a_damaged_or_foreign_state_file_means_the_default_layout(tmp_path):
    path = state_file(tmp_path)
    path.parent.mkdir(parents=True)
    assert load(path) is None  # nothing saved yet
    for data in (b"\x00\xff[[[ not ini", b"[General]\nversion=1\nx=zero\ny=1\nwidth=9\nheight=9\n",
                 b"[General]\nversion=99\nx=1\ny=1\nwidth=700\nheight=500\n",
                 b"[General]\nversion=1\nx=1\ny=1\nwidth=700\nheight=500\nsplitter=1,2,x\n",
                 b"[General]\nversion=1\nx=1\ny=1\nwidth=700\nheight=99999999\n",
                 b"[General]\nversion=1\nx=1\ny=1\nwidth=0\nheight=500\n"):
        path.write_bytes(data)
        assert load(path) is None, data


def test_the_state_file_sits_beside_settings_json(monkeypatch, tmp_path):
    monkeypatch.delenv("PARLEY_HOME", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert state_file() == resolve_paths().config_dir / WINDOW_STATE_NAME
    assert state_file(tmp_path / "home") == resolve_paths(tmp_path / "home").config_dir / WINDOW_STATE_NAME
