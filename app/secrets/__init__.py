"""API keys in the OS keyring (service ``parley``), with a probe for unusable keyrings and session-only keys.

Wiring code creates one ``SecretStore`` and hands ``store.lookup`` (a ``SecretLookup``: entry name -> key or
None) to whatever needs keys, e.g. the web search tools (``search:tavily``, ``search:brave``, ``search:exa``,
``search:searxng``) and provider set-up (``provider:<id>``).
"""

from app.secrets.names import SERVICE, EntryNameError, normalize_entry_name, provider_entry, search_entry
from app.secrets.probe import KeyringStatus, judge_backend, probe_keyring
from app.secrets.store import KeyLocation, SecretLookup, SecretStore, SecretStoreError

__all__ = [
    "SERVICE",
    "EntryNameError",
    "KeyLocation",
    "KeyringStatus",
    "SecretLookup",
    "SecretStore",
    "SecretStoreError",
    "judge_backend",
    "normalize_entry_name",
    "probe_keyring",
    "provider_entry",
    "search_entry",
]
