"""LaTeX math in answers drawn as images that Parley makes itself, with ziamath (pure Python, no TeX, no network).

The SVG ziamath writes is drawn into a QImage at twice the size (sharp on high-density screens) and added to the
document as a resource under a ``parley-math:`` name; nothing is ever loaded from a path or URL. Expressions are
cached, so re-rendering a streamed tail does not draw them again. An expression ziamath cannot read, or one longer
than ``MAX_MATH_CHARS``, is shown as its source.
"""

from __future__ import annotations

import hashlib
import warnings
from functools import lru_cache

from PySide6.QtCore import QByteArray, QRectF, Qt, QUrl
from PySide6.QtGui import QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

MAX_MATH_CHARS = 1_000  # longer expressions are shown as source (drawing cost grows with size)
SCALE = 2  # device pixels per logical pixel in the drawn image
CACHE_SIZE = 512


@lru_cache(maxsize=CACHE_SIZE)
def math_image(latex: str, size_px: float, color: str, display: bool) -> tuple[QUrl, QImage] | None:
    """The drawn expression and the resource name to add it under, or None when it cannot be drawn."""
    if not latex.strip() or len(latex) > MAX_MATH_CHARS:
        return None
    try:
        with warnings.catch_warnings():  # its font loading uses a deprecated importlib API
            warnings.simplefilter("ignore", DeprecationWarning)
            import ziamath  # imported on first use: it loads its math font

            ziamath.config.svg2 = False  # plain paths: Qt's SVG renderer does not draw SVG 2 <symbol>s
            svg = ziamath.Latex(latex, size=size_px, color=color, inline=not display).svg()
    except Exception:  # ziamath/latex2mathml raise many kinds on input they cannot read
        return None
    renderer = QSvgRenderer(QByteArray(svg.encode()))
    if not renderer.isValid():
        return None
    size = renderer.defaultSize()
    if size.isEmpty():
        return None
    image = QImage(size.width() * SCALE, size.height() * SCALE, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter, QRectF(0, 0, image.width(), image.height()))
    painter.end()
    image.setDevicePixelRatio(SCALE)
    digest = hashlib.sha1(f"{latex}\0{size_px}\0{color}\0{display}".encode()).hexdigest()[:20]
    return QUrl(f"parley-math:{digest}"), image
