"""The entry points' name for orchestration/lean_imports.py (httpx without its command-line tool's libraries)."""

from __future__ import annotations

from orchestration.lean_imports import HIDDEN_FROM_HTTPX, import_httpx, import_without

__all__ = ["HIDDEN_FROM_HTTPX", "import_httpx", "import_without"]
