"""A conversation-search snippet as plain text with the matched words marked.

The history search (SQLite FTS5) returns a few words of a message around the match, as written: markdown and
all. This turns such a snippet into what a reader sees (headings, emphasis, code marks, links, images, quotes,
list bullets, table pipes and HTML tags stripped) and splits it into pieces, each marked or not, so the list
can draw the matched words highlighted and every other character literally. The search puts ``MARK_START`` and
``MARK_END`` around each matched word (FTS5's own choice of match, stemming included); they are private-use
characters, so text a user or model wrote is not mistaken for them in practice. No Qt, no app imports.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

MARK_START = "\ue000"
MARK_END = "\ue001"
_MARKS = MARK_START + MARK_END

_FENCE = re.compile(r"^\s*(```|~~~)[^`\n]*$")
_RULE = re.compile(r"^\s*([-*_]\s*){3,}$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_LINE_PREFIX = re.compile(r"^\s{0,3}(#{1,6}\s+|(>\s?)+|[-*+]\s+(\[[ xX]\]\s+)?|\d{1,9}[.)]\s+)+")
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\](\([^)]*\)|\[[^\]]*\])")
_LINK_TAIL = re.compile(r"\]\([^)\s]*\)")  # a link cut at the snippet's start: "…text](https://…)"
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]*)>")
_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(\s+[A-Za-z_:][-\w:.]*(\s*=\s*(\"[^\"]*\"|'[^']*'|[^\s>]+))?)*\s*/?>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])([*_])(?=[^\s*_])(.+?)(?<=[^\s*_])\1(?![\w*])")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_CODE = re.compile(r"`+")
_SPACE = re.compile(r"\s+")
_EMPTY_MARK = re.compile(f"{MARK_START}(\\s*){MARK_END}")


@dataclass(frozen=True)
class Piece:
    text: str
    marked: bool  # one of the words the search matched


def _strip_line(line: str) -> str:
    line = _LINE_PREFIX.sub("", line)
    line = _IMAGE.sub(r"\1", line)
    line = _LINK.sub(r"\1", line)
    line = _LINK_TAIL.sub("", line)
    line = _AUTOLINK.sub(r"\1", line)
    line = _TAG.sub(" ", line)
    for pattern in (_STRONG, _EMPHASIS):
        line = pattern.sub(r"\2", line)
    line = _STRIKE.sub(r"\1", line)
    line = _CODE.sub("", line)
    if line.strip().startswith("|") or line.count("|") >= 2:
        line = " · ".join(cell.strip() for cell in line.strip().strip("|").split("|"))
    return line


def plain_text(snippet: str) -> str:
    """The snippet as a reader sees it: markdown stripped, entities decoded, on one line. Marks are kept."""
    lines = [line for line in snippet.splitlines()
             if not (_FENCE.match(line) or _RULE.match(line) or _TABLE_RULE.match(line))]
    text = " ".join(_strip_line(line) for line in lines)
    text = _EMPTY_MARK.sub(r"\1", html.unescape(text))  # a match that was all markup
    return _SPACE.sub(" ", text).strip()


def snippet_pieces(snippet: str) -> list[Piece]:
    """The snippet as plain text split into pieces: the words between the search's marks are ``marked``.
    Adjacent pieces with the same marking are joined; no piece is empty."""
    pieces: list[Piece] = []
    marked = False
    for part in re.split(f"([{_MARKS}])", plain_text(snippet)):
        if part == MARK_START:
            marked = True
        elif part == MARK_END:
            marked = False
        elif part:
            if pieces and pieces[-1].marked == marked:
                pieces[-1] = Piece(pieces[-1].text + part, marked)
            else:
                pieces.append(Piece(part, marked))
    return pieces


def unmarked(pieces: list[Piece]) -> str:
    """The pieces' text without marks (for a tooltip or an accessible name)."""
    return "".join(piece.text for piece in pieces)
