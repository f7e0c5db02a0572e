"""Wiring: the command line (``cli``), the window's wiring (``session``), what both use to run a chat
(``runs``), and the storage, secrets, settings, attachments, built-in engine and usage they share
(docs/architecture.md has the tree)."""
