#!/bin/sh
# Usage: scripts/with_secret_service.sh COMMAND [ARGS...]
# Runs COMMAND in a private D-Bus session with an unlocked gnome-keyring (a real Secret Service) whose files
# live in a temporary XDG_DATA_HOME that is removed afterwards. Needs dbus-run-session and gnome-keyring-daemon
# (Debian: dbus dbus-bin gnome-keyring). Used by scripts/test.sh for the keyring tests.
set -eu
if [ "$#" -eq 0 ]; then
  echo "usage: $0 COMMAND [ARGS...]" >&2
  exit 2
fi
exec dbus-run-session -- sh -c '
  keyring_home=$(mktemp -d)
  trap "rm -rf \"$keyring_home\"" EXIT
  export XDG_DATA_HOME="$keyring_home"
  if [ -z "${XDG_RUNTIME_DIR:-}" ]; then
    export XDG_RUNTIME_DIR="$keyring_home/run"
    mkdir -m 700 "$XDG_RUNTIME_DIR"
  fi
  # A fixed password unlocks the throw-away login keyring; it protects nothing real.
  printf "%s" "parley-test-keyring" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
  "$@"
' with_secret_service "$@"
