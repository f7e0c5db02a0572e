"""A key put into the keyring by another tool after Parley noted "no key": looked for once, off the UI thread.

The stored-key note (app/secrets/key_index.py) lets a send for a keyless provider skip opening the keyring. Its
price was that a key added with ``secret-tool store`` or ``keyring set`` after Parley noted "no key" was never
seen: the send was refused with "No API key is stored". Now, when a send, a connection test or a model listing
would fail for a missing key and only the note says so, the keyring is asked once in a worker thread (opening it
may wait on D-Bus or an unlock prompt) before refusing; a key found updates the note, and the send goes ahead.

The question's text is back in the composer while the keyring is asked (as for any refused send), so quitting or
switching meanwhile loses nothing. It is sent when the key is found only if the composer still holds exactly that
text in the same conversation; otherwise the refusal line says the key was found and to press Send again.
What it uses of the session (app/session/chat_session.py, which creates it) is ``RecheckSession``, and the wording
of a refusal is handed in, so the two modules do not import each other.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from app.errors import EnvironmentProblem
from app.session import qt_asyncio

if TYPE_CHECKING:
    import asyncio  # with the window's loop, started when first needed (app/session/qt_asyncio.py)

    from app.runs.run_service import MissingKeyError
    from app.secrets.store import SecretStore
    from widgets.main_window import MainWindow


async def stored_key(secrets: SecretStore, name: str, required: bool) -> str | None:
    """The key for ``name``: the usual lookup, and when that finds none, a key is ``required`` and only the note
    said "no key", the keyring asked in a worker thread (the note follows its answer)."""
    import asyncio

    key = secrets.lookup(name)
    if key is None and required and secrets.noted_missing(name):
        key = await asyncio.to_thread(secrets.recheck, name)
    return key


class RecheckSession(Protocol):
    """What the recheck uses of the window's session (``ChatSession``)."""

    @property
    def window(self) -> MainWindow: ...
    @property
    def secrets(self) -> SecretStore: ...
    @property
    def conversation_id(self) -> int | None: ...
    def send(self, text: str) -> None: ...
    def refuse_send(self, message: str) -> None: ...


class SendKeyRecheck:
    """The window's send refused for a key only the note says is missing: ask the keyring, then send or refuse."""

    def __init__(self, session: RecheckSession, describe_problem: Callable[[Exception], str]) -> None:
        self.session = session
        self.describe_problem = describe_problem  # a refusal worded for the window (chat_session.window_problem)
        self._task: asyncio.Task[None] | None = None

    def tasks(self) -> list[asyncio.Task[None]]:
        """The recheck under way, if any (cancelled with the session's other background work at quit)."""
        return [self._task] if self._task is not None and not self._task.done() else []

    def begin(self, text: str, problem: Exception) -> bool:
        """Start the recheck when ``problem`` is a key that only the note says is missing; False otherwise (the
        caller refuses at once). A newer send's recheck replaces one still under way."""
        from app.runs.run_service import MissingKeyError

        if not isinstance(problem, MissingKeyError) or not problem.unchecked or not problem.entry:
            return False
        if self._task is not None:
            self._task.cancel()
        self.session.window.statusBar().showMessage(f"Looking in the keyring for {problem.provider}'s key…", 5000)
        import asyncio

        qt_asyncio.ensure_running()  # a send refused before any run: the loop may not have started yet
        self._task = asyncio.ensure_future(self._recheck(text, problem, self.session.conversation_id))
        return True

    async def _recheck(self, text: str, problem: MissingKeyError, conversation_id: int | None) -> None:
        import asyncio

        session = self.session
        try:
            key = await asyncio.to_thread(session.secrets.recheck, problem.entry)
        except EnvironmentProblem as error:  # the keyring exists but could not be read: its own explanation
            session.refuse_send(str(error))
            return
        if key is None:
            session.refuse_send(self.describe_problem(problem))
            return
        session.window.statusBar().clearMessage()
        composer = session.window.composer
        if composer.text() != text or session.conversation_id != conversation_id:
            session.refuse_send(f"The key for {problem.provider} was found in the keyring; press Send again.")
            return
        composer.input_widget().clear()  # taken from the composer, as Send does
        session.send(text)
