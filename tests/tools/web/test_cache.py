"""The TTL cache: entries expire after their time and the oldest go first when it is full."""

from __future__ import annotations

import pytest

from tools.web.cache import TTLCache


def test_entries_expire() -> None:
    now = [0.0]
    cache: TTLCache[str] = TTLCache(ttl=10, max_entries=4, clock=lambda: now[0])
    cache.put("a", "A")
    now[0] = 9.9
    assert cache.get("a") == "A"
    now[0] = 10.0
    assert cache.get("a") is None and len(cache) == 0


def test_least_recently_used_is_dropped_when_full() -> None:
    cache: TTLCache[int] = TTLCache(ttl=100, max_entries=2, clock=lambda: 0.0)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the oldest use
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def test_zero_ttl_stores_nothing() -> None:
    cache: TTLCache[int] = TTLCache(ttl=0, max_entries=2)
    cache.put("a", 1)
    assert cache.get("a") is None


def test_needs_room_for_one_entry() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        TTLCache(ttl=1, max_entries=0)
