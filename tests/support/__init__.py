"""Shared test helpers (a loopback HTTP server for provider and transport tests)."""
