"""The kinds of content ``web_fetch`` reads and the shape of an extracted page, without loading the HTML
libraries that ``extract.py`` needs (they load on the first fetch, not when the tools are listed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ContentKind = Literal["html", "text", "markdown", "json"]


@dataclass(frozen=True)
class ExtractedPage:
    title: str | None
    text: str
