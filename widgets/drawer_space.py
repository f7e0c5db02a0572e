"""How much room the run inspector drawer takes when it opens, so the sidebar and the chat stay usable.

A plain calculation (no Qt) so the rules can be read and tested on their own: the window grows towards the
screen's free width first, so every column keeps its width; without that room the drawer takes at most
``DRAWER_MAX_SHARE`` of the window, the reasoning/search panes give way (hidden below their minimum), the
conversation list yields down to its minimum and the drawer narrows (not below ``DRAWER_MIN_WIDTH``) so that the
chat keeps ``CHAT_DRAWER_WIDTH``: at 480 px (its minimum, which the main window also sets) the composer's row
elided a model name as short as "pass-model · pass-n" (user pass 4, on a 1280 px screen). Only a window too
narrow for all that takes the chat below it, down to ``CHAT_MIN_WIDTH``.
"""

from __future__ import annotations

from dataclasses import dataclass

SIDE_MIN_WIDTH = 200  # the conversation list: "Search conversations" and a short title stay readable
CHAT_MIN_WIDTH = 480  # the chat and the composer with its model, tools and effort pickers
CHAT_DRAWER_WIDTH = 560  # what the chat keeps beside the drawer when the sidebar and the drawer can give way
PANES_MIN_WIDTH = 240  # reasoning and search results, before they are hidden to make room
DRAWER_WIDTH = 560  # the drawer's width when there is room
DRAWER_MIN_WIDTH = 360  # the timeline's step, status and time columns
DRAWER_MAX_SHARE = 0.45  # the most of the window's width the drawer takes when the window cannot grow


@dataclass(frozen=True)
class DrawerSpace:
    window_width: int  # the window's new width (the old one when it cannot or need not grow)
    drawer: int
    side: int
    chat: int
    panes: int  # 0: the reasoning/search panes are hidden while the drawer is open


def drawer_space(*, window_width: int, screen_width: int, side: int, chat: int, panes: int,
                 can_grow: bool = True, chrome: int = 0) -> DrawerSpace:
    """Widths for the window's columns with the drawer open.

    ``side``, ``chat`` and ``panes`` are the columns' current widths; ``chrome`` is what the splitter handles
    and the drawer's frame take; ``screen_width`` is the screen's available width. The window grows to keep
    every column as it is; without that room the drawer takes at most its share, the panes give way next
    (hidden below their minimum), the sidebar and then the drawer give way to keep the chat at
    ``CHAT_DRAWER_WIDTH``, and the chat keeps at least its minimum.
    """
    side = max(side, SIDE_MIN_WIDTH)
    wanted = side + max(chat, CHAT_MIN_WIDTH) + panes + DRAWER_WIDTH + chrome
    width = window_width
    if can_grow and width < wanted:
        width = max(width, min(wanted, screen_width))
    if width < wanted:  # the conversation list yields first, down to its minimum, for the chat's roomy width
        drawer_wanted = min(DRAWER_WIDTH, int(width * DRAWER_MAX_SHARE))
        side = max(SIDE_MIN_WIDTH, min(side, width - chrome - CHAT_DRAWER_WIDTH - drawer_wanted))
    # the drawer narrows to its minimum before the chat goes below its roomy width
    chat_floor = max(CHAT_MIN_WIDTH, min(CHAT_DRAWER_WIDTH, width - chrome - side - DRAWER_MIN_WIDTH))
    room = max(0, width - chrome - side - chat_floor)  # for the drawer and the panes together
    drawer = min(DRAWER_WIDTH, int(width * DRAWER_MAX_SHARE), room)
    left = room - drawer
    kept_panes = panes if left >= panes else left if left >= PANES_MIN_WIDTH else 0
    return DrawerSpace(window_width=width, drawer=drawer, side=side,
                       chat=width - chrome - side - drawer - kept_panes, panes=kept_panes)
