"""A long session's heap: what start-up made is set aside from the cycle collector.

A table's rounds leave reference cycles behind them (a dealt round and its fair backend, a
round ledger's states) that only CPython's full collection frees.  That one runs when the
objects promoted to the oldest generation since the last run outnumber a quarter of those
already there, and after start-up those are everything the imports made (trio, cryptography,
prompt_toolkit: ~100k objects): tens of rounds of garbage piled up between two runs and a
process's RSS grew with the match (issue 26).  `settle()` collects once and freezes what is
left (`gc.freeze`): a full collection then walks the match's own objects only (a few ms), and
`round_over()` runs one as each round ends (the host as it broadcasts the round's end, a seat
as it reads it), so a round's garbage never outlives the next one.  In a process that did not
settle (a test run, a library caller) `round_over()` does nothing: a full collection there would
walk everything.
"""

from __future__ import annotations

import gc

__all__ = ["round_over", "settle"]

_settled = False


def settle() -> None:
    """Call once start-up is over (every import made), before a session's event loop runs."""
    global _settled
    gc.collect()
    gc.freeze()
    _settled = True


_last: object = None


def round_over(end: object = None) -> None:
    """A round has ended (``end``: its `round_end` message): free its garbage now (after
    `settle()` only), once per message in a process -- the host and the seats it runs in
    its own process read the same one (a seat's part then goes at the next round's end)."""
    global _last
    if _settled and (end is None or end is not _last):
        _last = end
        gc.collect()
