"""Syntax colours for fenced code blocks in the chat document, without changing the document.

A ``QSyntaxHighlighter`` paints formats in the layout only, so the document stays exactly what the markdown
render produced (the streaming render is tested against a full render) while code blocks get Pygments
colours. Each line is lexed on its own: fast and incremental, at the price of multi-line strings and comments
being coloured line by line.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument, QTextFormat

LIGHT_STYLE = "default"
DARK_STYLE = "monokai"
MAX_HIGHLIGHTED_LINE = 2_000  # characters; longer lines (minified code) stay plain
# Built ahead when the first answer begins: Pygments itself (23 ms, 2.0 MB) and the answers' commonest languages
# (python 29 ms / 1.2 MB, javascript 11 ms / 0.8 MB, the others under 8 ms and 0.1 MB). Any other language's lexer
# is built at its first code block, a one-off pause of 2 to 45 ms (css 45, sql 20, c 12; java, sql and css
# 1.1 to 1.2 MB each), measured on this project's 2-core machine (bench/RESULTS.md, issue 17).
WARM_LANGUAGES = ("python", "javascript", "typescript", "bash", "json")
WARM_UP_STEP_MS = 20  # between two lexers, so input and painting get their turn


if TYPE_CHECKING:
    from pygments.lexer import Lexer


@lru_cache(maxsize=1)
def _builtin_aliases() -> frozenset[str]:
    from pygments.lexers._mapping import LEXERS

    return frozenset(alias for entry in LEXERS.values() for alias in entry[2])


@lru_cache(maxsize=64)
def _lexer(language: str) -> Lexer | None:
    from pygments.lexers import get_lexer_by_name  # imported on first use: Pygments is slow to import
    from pygments.util import ClassNotFound

    if language not in _builtin_aliases():
        # An unknown name (a half-streamed "```pyt", "mermaid") would make Pygments scan installed plugins,
        # which imports importlib.metadata: a 100+ ms stall in the middle of a stream.
        return None
    try:
        return get_lexer_by_name(language, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def warm_up(languages: tuple[str, ...] = WARM_LANGUAGES) -> None:
    """Build the common lexers ahead of time: a lexer compiles its regular expressions on first use (tens
    of ms for some), which would otherwise stall the first streamed code block. Call it while idle."""
    for language in languages:
        lexer = _lexer(language)
        if lexer is not None:
            for _ in lexer.get_tokens("x = 1"):
                pass


_warm_up_started = False


def warm_up_in_steps(languages: tuple[str, ...] = WARM_LANGUAGES) -> None:
    """``warm_up`` one language per event-loop turn, once per process; later calls do nothing. The chat view
    calls it when its first answer begins: the wait for the model's first token hides the work (up to ~35 ms a
    lexer, 3 to 7 MB in all), and a window that never shows an answer never pays for it (issue 17's idle
    memory). All at once they take hundreds of ms, which would stall input."""
    global _warm_up_started
    if _warm_up_started:
        return
    _warm_up_started = True
    pending = list(languages)

    def step() -> None:
        if pending:
            warm_up((pending.pop(0),))
            QTimer.singleShot(WARM_UP_STEP_MS, step)

    QTimer.singleShot(0, step)


class CodeHighlighter(QSyntaxHighlighter):
    def __init__(self, document: QTextDocument, dark: bool = False) -> None:
        super().__init__(document)
        self._formats: dict[Any, QTextCharFormat] = {}
        self._dark = dark
        self._style: Any = None

    def set_dark(self, dark: bool) -> None:
        if dark == self._dark:
            return
        self._dark = dark
        self._style = None
        self._formats.clear()
        self.rehighlight()

    def _format(self, token: Any) -> QTextCharFormat:
        cached = self._formats.get(token)
        if cached is not None:
            return cached
        if self._style is None:
            from pygments.styles import get_style_by_name

            self._style = get_style_by_name(DARK_STYLE if self._dark else LIGHT_STYLE)
        style = self._style.style_for_token(token)
        fmt = QTextCharFormat()
        if style["color"]:
            fmt.setForeground(QColor(f"#{style['color']}"))
        if style["bold"]:
            fmt.setFontWeight(QFont.Weight.Bold)
        if style["italic"]:
            fmt.setFontItalic(True)
        self._formats[token] = fmt
        return fmt

    def highlightBlock(self, text: str) -> None:
        block_format = self.currentBlock().blockFormat()
        if not block_format.hasProperty(QTextFormat.Property.BlockCodeLanguage):
            return
        language = block_format.stringProperty(QTextFormat.Property.BlockCodeLanguage).strip().lower()
        lexer = _lexer(language) if language else None
        if lexer is None or len(text) > MAX_HIGHLIGHTED_LINE:
            return
        position = 0
        for token, value in lexer.get_tokens(text):
            if value:
                fmt = self._format(token)
                coloured = fmt.foreground().style() != Qt.BrushStyle.NoBrush
                if coloured or fmt.fontWeight() == QFont.Weight.Bold or fmt.fontItalic():
                    self.setFormat(position, len(value), fmt)
                position += len(value)
