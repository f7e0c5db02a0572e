"""A Qt signal whose payload types mypy checks where it is emitted and where it is connected.

PySide6 declares a signal's argument types for Qt's meta-object system only: its stubs type
``SignalInstance.emit(*args: Any)`` and ``connect(slot: object)``, and ``Signal`` is not generic, so a signal
declared ``Signal(object)`` to carry a run event lets any value in and any slot on. ``TypedSignal`` is a thin
view of one signal instance that narrows both ends: ``emit`` takes exactly the declared arguments and
``connect`` takes only a callable that accepts them. A class keeps its raw ``Signal(object)`` private and
exposes the view; nothing is queued or copied, so delivery (connection type, thread, order) is Qt's own.
``signal`` gives the Qt signal itself to APIs that need one (``QSignalSpy``, ``qtbot.waitSignal``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVarTuple

from PySide6.QtCore import QMetaObject, Qt, SignalInstance

Payload = TypeVarTuple("Payload")


class TypedSignal(Generic[*Payload]):
    """One signal instance, typed: ``TypedSignal[RunEvent]`` carries one run event."""

    def __init__(self, signal: SignalInstance) -> None:
        self.signal = signal

    def emit(self, *args: *Payload) -> None:
        self.signal.emit(*args)

    def connect(self, slot: Callable[[*Payload], object],
                kind: Qt.ConnectionType = Qt.ConnectionType.AutoConnection) -> QMetaObject.Connection:
        return self.signal.connect(slot, kind)

    def disconnect(self, slot: Callable[[*Payload], object] | None = None) -> bool:
        return self.signal.disconnect() if slot is None else self.signal.disconnect(slot)
