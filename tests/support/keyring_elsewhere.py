"""Keys put into the real Secret Service the way another keyring tool would, not through Parley: ``secret-tool
store`` when it is installed, else the keyring library's own backend."""

from __future__ import annotations

import shutil
import subprocess

from app.secrets import SERVICE


def store_elsewhere(name: str, key: str) -> None:
    """Store ``key`` as another keyring tool would, not through Parley."""
    if shutil.which("secret-tool"):
        done = subprocess.run(["secret-tool", "store", "--label", f"{SERVICE} {name}", "service", SERVICE,
                               "username", name], input=key, capture_output=True, text=True, timeout=20)
        assert done.returncode == 0, done.stderr
        return
    from keyring.backends import SecretService

    SecretService.Keyring().set_password(SERVICE, name, key)


def remove(name: str) -> None:
    from keyring.backends import SecretService

    backend = SecretService.Keyring()
    if backend.get_password(SERVICE, name) is not None:
        backend.delete_password(SERVICE, name)
