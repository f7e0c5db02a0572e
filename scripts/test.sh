#!/usr/bin/env bash
# Run the whole suite: ruff, then the type checker (mypy, docs/testing.md), then pytest offscreen.
# Extra arguments go to pytest.
# When dbus-run-session and gnome-keyring-daemon are installed (scripts/bootstrap.sh installs them as root),
# pytest runs inside a private D-Bus session with a real Secret Service, so the keyring tests run too;
# otherwise those tests skip.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen
.venv/bin/ruff check .
.venv/bin/python -m mypy
if command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
  exec scripts/with_secret_service.sh .venv/bin/python -m pytest -q "$@"
fi
echo "test.sh: dbus-run-session or gnome-keyring-daemon missing; the Secret Service tests will skip" >&2
exec .venv/bin/python -m pytest -q "$@"
