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

What a collection frees goes back to the allocator, not always to the system: glibc's malloc
keeps freed chunks in its heap for reuse, and a process's RSS is the high-water mark of
what it ever held between two long-lived allocations (issue 26: the full-screen client's RSS
grew ~3 MB over 200 rounds while its Python objects grew ~0.6 MB).  After each of those
collections `malloc_trim(0)` hands the heap's free pages back (glibc only; a few µs).
"""

from __future__ import annotations

import gc

__all__ = ["frame_drawn", "round_over", "settle"]

_settled = False
_trim = None  # glibc's malloc_trim, once settled (None elsewhere: musl, macOS)


def _malloc_trim():
    """glibc's ``malloc_trim``, or None where the C library has none."""
    try:
        import ctypes

        return ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, ImportError, TypeError):  # (Windows: no CDLL(None))
        return None


def _collect() -> None:
    gc.collect()
    if _trim is not None:
        _trim(0)


def settle() -> None:
    """Call once start-up is over (every import made), before a session's event loop runs."""
    global _settled, _trim
    _trim = _malloc_trim()
    _collect()
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
        _collect()


def frame_drawn(_app: object = None) -> None:
    """The full-screen client drew a frame (prompt_toolkit's ``after_render``): free what
    drawing it left in reference cycles (after `settle()` only).  prompt_toolkit's
    ``Window._copy_body`` defines a ``copy_line`` that calls itself, a closure over the frame's
    screen buffers and its position map (for an 80x24 table ~2,000 cells and as many tuples):
    every frame leaves one such cycle, which a round's garbage kept waiting for the next full
    collection (issue 26: ~1 MB of the client's peak).  A young collection catches it while
    it is young; it walks only the objects made since the last one."""
    if _settled:
        gc.collect(1)
