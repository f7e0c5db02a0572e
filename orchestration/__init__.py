"""Parley's core: event contract, messages, provider adapters, the tool loop and tracing. No Qt here."""
