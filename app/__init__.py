"""Wiring: settings, secrets, storage, the run controller, the CLI and the entry point."""
