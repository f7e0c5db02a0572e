#!/usr/bin/env bash
# Prepare a fresh Debian/Ubuntu machine for running or testing Parley, idempotently:
# as root, install the Debian packages Qt and the tests need; create .venv; install Parley with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
# Qt's xcb/offscreen platforms, fonts, Xvfb for screenshots, D-Bus + gnome-keyring for the Secret Service tests.
DEB_PACKAGES="python3-venv libegl1 libgl1 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3 libxkbcommon0
 libxkbcommon-x11-0 libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
 libxcb-render-util0 libxcb-randr0 libxcb-shape0 libxcb-xfixes0 libxcb-xkb1 libxcb-sync1 libxcb-glx0 libxcb-shm0
 libxcb-render0 libxcb-util1 fonts-dejavu-core xvfb xauth dbus dbus-bin gnome-keyring libsecret-tools"

if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null && command -v dpkg-query >/dev/null; then
  missing=""
  for pkg in $DEB_PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
      missing="$missing $pkg"
    fi
  done
  if [ -n "$missing" ]; then
    echo "bootstrap: installing Debian packages:$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
  fi
elif [ "$(id -u)" != 0 ]; then
  echo "bootstrap: not root, skipping Debian packages (see scripts/bootstrap.sh for the list)" >&2
fi

if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "bootstrap: Parley needs Python 3.11 or newer; $PYTHON is $("$PYTHON" --version 2>&1)" >&2
  exit 1
fi

if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$PYTHON" -m venv .venv
fi

stamp=.venv/.parley-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  echo "bootstrap: installing Parley and its test extras into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e ".[test]"
  touch "$stamp"
fi
