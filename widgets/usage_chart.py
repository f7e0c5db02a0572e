"""A bar chart of spend per day (the usage dialog's last 30 days), with each day's tokens as a line.

Drawn with QPainter: Parley ships the PySide6 Essentials wheel, which has no QtCharts. Bars use the palette's
highlight colour, the token line its text colour at half strength, so both themes read. Hovering a day shows
its numbers; days whose runs had no known price are marked with a dot above their bar.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPalette, QPen
from PySide6.QtWidgets import QToolTip, QWidget

from widgets.cost_text import money

MARGIN_LEFT = 64  # room for the spend axis labels
MARGIN_RIGHT = 56  # room for the token axis labels
MARGIN_TOP = 16
MARGIN_BOTTOM = 28  # room for the date labels


def nice_scale(value: float, lines: int = 5) -> tuple[float, int]:
    """An axis for values up to ``value``: a step of 1, 2 or 5 times a power of ten and the number of steps
    (about ``lines``) whose top is at least ``value``."""
    if value <= 0:
        return 1.0, 1
    rough = value / lines
    power = 10 ** math.floor(math.log10(rough))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= rough * (1 - 1e-9))
    return step, max(1, math.ceil(value / step - 1e-9))


def axis_money(value: float, step: float) -> str:
    """An axis label with as many decimals as the step needs: $0.10, $2.50, $40."""
    decimals = 0 if step >= 1 else max(2, -math.floor(math.log10(step)))
    return f"${value:,.{decimals}f}"


def axis_tokens(value: float) -> str:
    if value >= 1_000_000:
        return f"{value / 1_000_000:g}M"
    return f"{value / 1000:g}k" if value >= 1000 else f"{value:g}"


@dataclass(frozen=True)
class DayPoint:
    day: str  # YYYY-MM-DD
    cost_usd: float
    tokens: int
    runs: int
    unpriced: int = 0


class UsageChart(QWidget):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Spend and tokens per day")
        self.setMouseTracking(True)
        self.setMinimumHeight(200)
        self._days: list[DayPoint] = []

    def sizeHint(self) -> QSize:
        return QSize(720, 240)

    def set_days(self, days: list[DayPoint]) -> None:
        self._days = list(days)
        total = sum(d.cost_usd for d in days)
        self.setAccessibleDescription(f"{len(days)} days, {money(total)} in all")
        self.update()

    def days(self) -> list[DayPoint]:
        return list(self._days)

    def _plot(self) -> QRectF:
        return QRectF(MARGIN_LEFT, MARGIN_TOP, max(1, self.width() - MARGIN_LEFT - MARGIN_RIGHT),
                      max(1, self.height() - MARGIN_TOP - MARGIN_BOTTOM))

    def _slot(self, plot: QRectF) -> float:
        return plot.width() / max(1, len(self._days))

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        palette = self.palette()
        text = palette.color(QPalette.ColorRole.WindowText)
        faint = QColor(text)
        faint.setAlphaF(0.25)
        bar = palette.color(QPalette.ColorRole.Highlight)
        line = QColor(text)
        line.setAlphaF(0.55)
        plot = self._plot()
        small = QFont(self.font())
        small.setPointSizeF(max(6.0, self.font().pointSizeF() * 0.85))
        painter.setFont(small)
        if not self._days:
            painter.setPen(text)
            painter.drawText(plot, Qt.AlignmentFlag.AlignCenter, "No runs yet.")
            return
        cost_step, steps = nice_scale(max((d.cost_usd for d in self._days), default=0.0))
        top_cost = cost_step * steps
        token_step = nice_scale(max((d.tokens for d in self._days), default=0), steps)[0]
        top_tokens = token_step * steps  # the same grid lines for both axes
        for i in range(steps + 1):
            y = plot.bottom() - plot.height() * i / steps
            painter.setPen(QPen(faint, 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(QRectF(0, y - 8, MARGIN_LEFT - 6, 16), Qt.AlignmentFlag.AlignRight
                             | Qt.AlignmentFlag.AlignVCenter, axis_money(cost_step * i, cost_step))
            painter.drawText(QRectF(plot.right() + 6, y - 8, MARGIN_RIGHT - 6, 16), Qt.AlignmentFlag.AlignLeft
                             | Qt.AlignmentFlag.AlignVCenter, axis_tokens(top_tokens * i / steps))
        slot = self._slot(plot)
        width = max(1.0, slot * 0.7)
        path = QPainterPath()
        for index, day in enumerate(self._days):
            x = plot.left() + slot * index + (slot - width) / 2
            height = plot.height() * day.cost_usd / top_cost
            painter.fillRect(QRectF(x, plot.bottom() - height, width, height), bar)
            if day.unpriced:
                painter.setBrush(text)
                painter.setPen(Qt.PenStyle.NoPen)
                painter.drawEllipse(QPointF(x + width / 2, plot.bottom() - height - 5), 2.5, 2.5)
            point = QPointF(plot.left() + slot * (index + 0.5), plot.bottom() - plot.height() * day.tokens / top_tokens)
            if index == 0:
                path.moveTo(point)
            else:
                path.lineTo(point)
            if (len(self._days) - 1 - index) % 7 == 0:  # every seventh day, counted back from today
                painter.setPen(text)
                painter.drawText(QRectF(plot.left() + slot * index - 30 + slot / 2, plot.bottom() + 4, 60, 20),
                                 Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop, day.day[5:])
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.setPen(QPen(line, 1.5))
        painter.drawPath(path)
        painter.end()

    def day_at(self, x: float) -> DayPoint | None:
        plot = self._plot()
        if not self._days or not plot.left() <= x < plot.right():
            return None
        return self._days[min(len(self._days) - 1, int((x - plot.left()) / self._slot(plot)))]

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        day = self.day_at(event.position().x())
        if day is None:
            QToolTip.hideText()
            return
        note = f"\n{day.unpriced} run(s) with no known price" if day.unpriced else ""
        QToolTip.showText(event.globalPosition().toPoint(), f"{day.day}\nSpend: {money(day.cost_usd)}\n"
                          f"Tokens: {day.tokens:,}\nRuns: {day.runs}{note}", self)
