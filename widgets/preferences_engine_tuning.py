"""Preferences > Local models > Engine settings: context size, threads, GPU layers and the idle stop of the
built-in engine, each in a spin box bounded by its named limit, with Apply.

A widget on plain values: the app (app/engine/tuning_panel.py) gives it the values and the limits with their
reasons, checks and saves what Apply sends, and says here what became of it ("restarting now", "applies after
the current answer"). Apply rather than saving on every step, so the engine restarts once per change.

A box the user has changed since the dialog opened (or since the last Apply) is never overwritten by a later
``show_values`` (a metadata read ending, the settings file changed by ``parley local set``): its value and the
text being typed stay, only its range widens to the new limit if needed, and Apply checks it against that limit.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QPushButton, QSpinBox, QVBoxLayout

from widgets.safe_text import plain_label, set_plain_text


@dataclass(frozen=True)
class TuningShown:
    """Values and their ranges; ``*_why`` is the reason for the upper limit, shown next to the box."""

    context: int
    threads: int
    gpu_layers: int
    idle_stop: int
    context_min: int
    context_max: int
    context_why: str
    threads_max: int
    threads_why: str
    gpu_layers_max: int
    gpu_note: str
    idle_stop_max: int


class EngineTuningBox(QGroupBox):
    apply_requested = Signal(int, int, int, int)  # context, threads, GPU layers, idle stop (minutes)

    def __init__(self) -> None:
        super().__init__("Engine settings")
        self.context = self._spin("Context size", " tokens")
        self.threads = self._spin("Threads", "")
        self.gpu_layers = self._spin("GPU layers", "")
        self.idle_stop = self._spin("Idle stop", " min")
        self.idle_stop.setSpecialValueText("never")
        self.context.setSingleStep(512)
        self.context_note, self.threads_note = plain_label(""), plain_label("")
        self.gpu_note, self.idle_note = plain_label(""), plain_label("0: never; stops the engine after this "
                                                                        "long without a run")
        form = QFormLayout()
        for label, spin, note in (("Context size", self.context, self.context_note),
                                  ("Threads", self.threads, self.threads_note),
                                  ("GPU layers", self.gpu_layers, self.gpu_note),
                                  ("Idle stop", self.idle_stop, self.idle_note)):
            row = QHBoxLayout()
            row.addWidget(spin)
            row.addWidget(note, 1)
            note.setWordWrap(True)
            form.addRow(label, row)
            spin.valueChanged.connect(self._edited)
            spin.valueChanged.connect(lambda _value, spin=spin: self._touched.add(spin))
            spin.lineEdit().textEdited.connect(lambda _text, spin=spin: self._touched.add(spin))
        self.apply_button = QPushButton("Apply")
        self.apply_button.setEnabled(False)
        self.apply_button.clicked.connect(self._apply)
        self.status = plain_label("")
        self.status.setAccessibleName("Engine settings status")
        self.status.setWordWrap(True)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.apply_button)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addLayout(bottom)
        self._shown: TuningShown | None = None
        self._touched: set[QSpinBox] = set()  # the boxes the user changed; show_values leaves their values alone

    @staticmethod
    def _spin(name: str, suffix: str) -> QSpinBox:
        spin = QSpinBox()
        spin.setAccessibleName(name)
        spin.setSuffix(suffix)
        spin.setGroupSeparatorShown(True)
        return spin

    def show_values(self, shown: TuningShown) -> None:
        """Show saved values and limits (a value outside today's limit shows clamped, and Apply offers the fix).
        A box the user has changed keeps its value and its text; its range only widens to hold them."""
        self._shown = shown
        for spin, low, high, value in ((self.context, shown.context_min, shown.context_max, shown.context),
                                       (self.threads, 1, shown.threads_max, shown.threads),
                                       (self.gpu_layers, 0, shown.gpu_layers_max, shown.gpu_layers),
                                       (self.idle_stop, 0, shown.idle_stop_max, shown.idle_stop)):
            spin.blockSignals(True)
            if spin in self._touched:  # a range holding the current value leaves the typed text as it is
                spin.setRange(min(low, spin.value()), max(high, spin.value()))
            else:
                spin.setRange(low, high)
                spin.setValue(value)
            spin.blockSignals(False)
        set_plain_text(self.context_note, f"{shown.context_min:,} to {shown.context_max:,}: {shown.context_why}")
        set_plain_text(self.threads_note, f"1 to {shown.threads_max}: {shown.threads_why}")
        self.show_gpu_note(shown.gpu_note)
        self._edited()

    def show_gpu_note(self, note: str) -> None:
        """The GPU layers' range and whether they do anything here; alone, so the answer arriving late keeps
        what the user has typed meanwhile."""
        high = self._shown.gpu_layers_max if self._shown else self.gpu_layers.maximum()
        set_plain_text(self.gpu_note, f"0 to {high} ({high}: all)" + (f"; {note}" if note else ""))

    def user_changed(self) -> list[str]:
        """The accessible names of the boxes the user has changed since the dialog opened or the last Apply."""
        return [spin.accessibleName() for spin in (self.context, self.threads, self.gpu_layers, self.idle_stop)
                if spin in self._touched]

    def forget_edits(self) -> None:
        """The values were saved: the next ``show_values`` shows the saved ones in every box."""
        self._touched.clear()

    def values(self) -> tuple[int, int, int, int]:
        return self.context.value(), self.threads.value(), self.gpu_layers.value(), self.idle_stop.value()

    def _edited(self) -> None:
        shown = self._shown
        saved = (shown.context, shown.threads, shown.gpu_layers, shown.idle_stop) if shown else None
        self.apply_button.setEnabled(saved is not None and self.values() != saved)

    def _apply(self) -> None:
        self.apply_requested.emit(*self.values())

    def show_status(self, message: str) -> None:
        set_plain_text(self.status, message)
