"""How many lines one peer may put on the operator's screen: a hostile peer's errors,
problems and refused connections are news once, not a flood (issue 23: one observer made
~9,500 "problem" lines a second).  A few lines per key in each window, then quiet until
the window turns; the number kept quiet is told with the next line that passes."""

from __future__ import annotations

import trio

__all__ = ["LineBudget"]


class LineBudget:
    """``allow(key)``: may one more line about ``key`` be shown now?  At most ``burst``
    lines per key every ``window`` seconds (trio's clock); at most ``keys`` keys are
    remembered (a flood of new keys forgets the oldest)."""

    def __init__(self, burst: int = 5, window: float = 10.0, keys: int = 256) -> None:
        self.burst, self.window, self.keys = burst, window, keys
        self._seen: dict[object, list] = {}  # key -> [window start, lines shown, lines held back]

    def allow(self, key: object) -> bool:
        now = trio.current_time()
        entry = self._seen.get(key)
        if entry is None or now - entry[0] >= self.window:
            if entry is None and len(self._seen) >= self.keys:
                self._seen.pop(next(iter(self._seen)))
            held = entry[2] if entry is not None else 0
            entry = self._seen[key] = [now, 0, held]
        if entry[1] >= self.burst:
            entry[2] += 1
            return False
        entry[1] += 1
        return True

    def spent(self, key: object) -> bool:
        """Has ``key`` used up this window's lines (without using one)?"""
        entry = self._seen.get(key)
        return entry is not None and trio.current_time() - entry[0] < self.window and entry[1] >= self.burst

    def hold(self, key: object) -> None:
        """One more line about ``key`` kept quiet (told with the next one shown)."""
        entry = self._seen.get(key)
        if entry is not None:
            entry[2] += 1

    def held_back(self, key: object) -> int:
        """Lines about ``key`` kept quiet since the last one shown (and forget them)."""
        entry = self._seen.get(key)
        if entry is None:
            return 0
        n, entry[2] = entry[2], 0
        return n
