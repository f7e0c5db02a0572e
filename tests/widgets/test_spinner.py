"""The spinner animates only while started and visible."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from widgets.spinner import Spinner


def test_spinner_animates_only_while_running_and_visible(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    spinner = Spinner(host)
    host.show()
    assert not spinner.is_animating()
    spinner.start()
    assert spinner.is_animating()
    first_frame = spinner.grab().toImage()
    qtbot.waitUntil(lambda: spinner.grab().toImage() != first_frame, timeout=2000)
    spinner.hide()
    assert spinner.is_running() and not spinner.is_animating()
    spinner.show()
    assert spinner.is_animating()
    spinner.stop()
    assert not spinner.is_running() and not spinner.is_animating()


def test_spinner_started_while_hidden_waits_until_shown(qtbot):
    host = QWidget()
    qtbot.addWidget(host)
    spinner = Spinner(host)
    spinner.start()
    assert spinner.is_running() and not spinner.is_animating()
    host.show()
    assert spinner.is_animating()
