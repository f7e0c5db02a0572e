"""TypedSignal is a typed view of a real Qt signal: what is emitted reaches the connected slots through Qt, a
disconnected slot gets nothing more, and the raw signal still works with Qt APIs (qtbot.waitSignal)."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from widgets.typed_signal import TypedSignal


class Source(QObject):
    _pairs = Signal(object, str)

    def __init__(self) -> None:
        super().__init__()
        self.pairs: TypedSignal[int, str] = TypedSignal(self._pairs)


def test_emitted_values_reach_the_slot_until_it_is_disconnected(qtbot):
    source = Source()
    got: list[tuple[int, str]] = []

    def slot(number: int, text: str) -> None:
        got.append((number, text))

    source.pairs.connect(slot)
    source.pairs.emit(1, "one")
    assert source.pairs.disconnect(slot)
    source.pairs.emit(2, "two")
    assert got == [(1, "one")]


def test_the_qt_signal_is_there_for_qt_apis(qtbot):
    source = Source()
    with qtbot.waitSignal(source.pairs.signal, timeout=1000) as blocker:
        source.pairs.emit(3, "three")
    assert blocker.args == [3, "three"]
