"""A table's rounds do not pile up in memory (issue 26; unonet/heap.py).

A dealt round (`FairRound`, its backend, its ledger) is freed by the cycle collector only; a
real `unonet host` process (its own seat and three bots: five parties' copies of every round)
is counted from inside, with a weak set of every round it opens: at no moment do more than a
few rounds' worth exist, dead or alive.  Before the fix tens of dead rounds waited there for a
full collection (56-73 of 225-305 opened in a 2000-point match)."""

from __future__ import annotations

import random

import pytest

from unonet import heap

from .session_helpers import finish, reaped, unonet

#: run in the host's process before `unonet` starts: counts the rounds that exist at each open
PRELUDE = """
import atexit, sys, weakref
import unonet.table._round as R
_alive, _most = weakref.WeakSet(), [0, 0]
_open = R.FairRound.open.__func__
def _counted(cls, *a, **kw):
    r = _open(cls, *a, **kw)
    _alive.add(r.hooks)  # the round's fair side, freed with it (a compiled Round takes no weak reference)
    _most[0], _most[1] = max(_most[0], len(_alive)), _most[1] + 1
    return r
R.FairRound.open = classmethod(_counted)
atexit.register(lambda: print("ROUNDS", _most[0], _most[1], file=sys.stderr))
"""


@pytest.mark.slow
def test_a_long_match_keeps_a_few_rounds_not_all():
    proc = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--players", "4",
                  "--bots", "3", "--target", "1500", "--discovery-port", str(random.randint(40000, 60000)),
                  prelude=PRELUDE)
    with reaped(proc):
        code, out, err = finish(proc, limit=300)
    assert code == 0, err
    most, opened = map(int, next(x for x in err.splitlines() if x.startswith("ROUNDS")).split()[1:])
    assert opened >= 60  # (five parties: a dozen rounds or more)
    assert most <= 15, f"{most} of the {opened} rounds opened existed at once"


def test_round_over_frees_cycles_only_in_a_settled_process(monkeypatch):
    """`round_over` frees a round's cyclic garbage after `settle()`, and leaves it before (a
    test run or a library caller: a full collection there would walk everything)."""
    import gc
    import weakref

    class Node:
        pass

    was = gc.isenabled()
    gc.disable()  # (no automatic collection in between)
    try:
        a, b = Node(), Node()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        monkeypatch.setattr(heap, "_settled", False)
        heap.round_over()
        assert ref() is not None
        monkeypatch.setattr(heap, "_settled", True)
        heap.round_over()
        assert ref() is None
    finally:
        if was:
            gc.enable()


def test_round_over_hands_the_freed_heap_back_after_settle(monkeypatch):
    """After its collection a settled process trims the C heap (glibc's ``malloc_trim(0)``):
    what a round freed leaves the RSS instead of waiting in the allocator; before `settle()`
    nothing is trimmed, and a C library without it is no error."""
    import platform

    calls = []
    monkeypatch.setattr(heap, "_trim", calls.append)
    monkeypatch.setattr(heap, "_settled", False)
    heap.round_over()
    assert calls == []
    monkeypatch.setattr(heap, "_settled", True)
    heap.round_over()
    assert calls == [0]
    monkeypatch.setattr(heap, "_trim", None)
    heap.round_over()  # (musl, macOS: nothing to call)
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        trim = heap._malloc_trim()
        assert trim is not None and trim(0) in (0, 1)
