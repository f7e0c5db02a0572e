"""The room the inspector drawer gets: the window grows when the screen allows, else the drawer takes a bounded
share, the right panes give way and the sidebar and chat keep their minimum widths."""

from __future__ import annotations

import pytest

from widgets.drawer_space import (
    CHAT_DRAWER_WIDTH,
    CHAT_MIN_WIDTH,
    DRAWER_MAX_SHARE,
    DRAWER_MIN_WIDTH,
    DRAWER_WIDTH,
    PANES_MIN_WIDTH,
    SIDE_MIN_WIDTH,
    drawer_space,
)


def test_the_window_grows_and_every_column_keeps_its_width_when_the_screen_has_room():
    space = drawer_space(window_width=1280, screen_width=1920, side=260, chat=670, panes=340, chrome=10)
    assert space.window_width == 260 + 670 + 340 + DRAWER_WIDTH + 10
    assert (space.side, space.chat, space.panes, space.drawer) == (260, 670, 340, DRAWER_WIDTH)


def test_without_room_to_grow_the_panes_give_way_and_the_chat_keeps_its_minimum():
    space = drawer_space(window_width=1280, screen_width=1280, side=260, chat=670, panes=340, chrome=10)
    assert space.window_width == 1280
    assert space.side >= SIDE_MIN_WIDTH and space.chat >= CHAT_MIN_WIDTH and space.panes == 0
    assert space.drawer <= DRAWER_MAX_SHARE * 1280
    assert space.side + space.chat + space.panes + space.drawer + 10 == 1280


def test_panes_shrink_before_they_are_hidden():
    space = drawer_space(window_width=1700, screen_width=1700, side=260, chat=700, panes=400, chrome=0)
    assert space.drawer == DRAWER_WIDTH and PANES_MIN_WIDTH <= space.panes < 400
    assert space.chat == CHAT_DRAWER_WIDTH  # the panes shrink only past the chat's roomy width


def test_a_maximised_window_does_not_grow():
    space = drawer_space(window_width=1280, screen_width=2560, side=260, chat=670, panes=340, can_grow=False)
    assert space.window_width == 1280 and space.chat >= CHAT_MIN_WIDTH


@pytest.mark.parametrize("width", [700, 900, 1100, 1400, 1600])
def test_the_sidebar_is_never_squeezed_below_its_minimum(width):
    space = drawer_space(window_width=width, screen_width=width, side=120, chat=400, panes=200)
    assert space.side == SIDE_MIN_WIDTH and space.chat >= CHAT_MIN_WIDTH and space.drawer >= 0
    assert space.side + space.chat + space.panes + space.drawer == width


def test_on_a_1280_px_screen_the_sidebar_and_the_drawer_yield_so_the_chat_keeps_its_roomy_width():
    """User pass 4: with the inspector open on a 1280 px screen the chat sat at its 480 px minimum and the model
    picker elided "pass-model · pass-n"; the conversation list now yields first, then the drawer narrows."""
    space = drawer_space(window_width=1280, screen_width=1280, side=260, chat=670, panes=340, chrome=10)
    assert space.chat == CHAT_DRAWER_WIDTH
    assert space.side == SIDE_MIN_WIDTH and DRAWER_MIN_WIDTH <= space.drawer < DRAWER_WIDTH
    assert space.side + space.chat + space.panes + space.drawer + 10 == 1280


def test_a_sidebar_already_narrow_enough_keeps_its_width():
    space = drawer_space(window_width=1500, screen_width=1500, side=240, chat=700, panes=0, chrome=10)
    assert space.side == 240 and space.chat >= CHAT_DRAWER_WIDTH and space.drawer == DRAWER_WIDTH


def test_the_drawer_never_narrows_below_its_minimum_for_the_roomy_width():
    space = drawer_space(window_width=1100, screen_width=1100, side=260, chat=500, panes=0)
    assert space.side == SIDE_MIN_WIDTH and space.drawer == DRAWER_MIN_WIDTH
    assert space.chat == 1100 - SIDE_MIN_WIDTH - DRAWER_MIN_WIDTH  # between the minimum and the roomy width
