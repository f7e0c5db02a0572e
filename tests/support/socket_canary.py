"""A TCP listener on 127.0.0.1 that only counts connections: a canary for "nothing was fetched".

Anything that connects counts, whatever it would have sent, so a test can assert that rendering untrusted text
made no connection at all (``count == 0``) without trusting any one code path.
"""

from __future__ import annotations

import socket
import threading


class SocketCanary:
    def __init__(self) -> None:
        self._server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._server.bind(("127.0.0.1", 0))
        self._server.listen(16)
        self._server.settimeout(0.1)
        self.port = self._server.getsockname()[1]
        self.count = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._server.accept()
            except (TimeoutError, OSError):
                continue
            self.count += 1
            connection.close()

    def __enter__(self) -> SocketCanary:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self._server.close()
