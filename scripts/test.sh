#!/usr/bin/env bash
# Run the whole suite: ruff, then pytest offscreen. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
export QT_QPA_PLATFORM=offscreen
.venv/bin/ruff check .
.venv/bin/python -m pytest -q "$@"
