"""An honest seat's act that reaches the host after its round is over and the next one has
begun is late, never forged (redteam15).

A seat's act is signed over its round (the match id, the round, the round's context digest).
A seat on a slow uplink (a laptop's bloated queue: every frame late, none lost, spec §5 step 6,
`test_slow_uplink.py`) calls UNO or catches a player just as another seat goes out; its act and
then its co-sign sit in its queue past the host's co-sign clock; the host waives the co-sign and
deals the next round, and only then does the act come in.  `TableHost._on_act` checked the act's
signature against the *current* round before anything else, so the honest seat's act "was not
signed by" it: the host dropped the seat as a cheat (fatal `fair-play`).  Now an act whose
signature fails over the current round but holds over the round just before (the host keeps that
round's ledger) is refused as `stale` (too late), not a cheat; one that holds over neither is
still a forgery."""

from __future__ import annotations

import dataclasses

import pytest

from unonet.engine import make_bot, play_round
from unonet.fair import FairPlayViolation
from unonet.table import Refusal, TableSeat

from tests.adversaries.helpers import match_table

SLOW = 1


def _round_one_over_with_a_late_act(seed: str):
    """Round 1 played out; seat SLOW's act, signed in round 1, never reached the host (taken
    back unanswered, as a seat does after 10 s); its co-sign waived by the host's clock; round
    2 dealt.  Returns the table and the late act."""
    t = match_table(seed, 3, strict=True)
    rnd = t.start_round()
    rnd.start()
    assert not rnd.over
    slow = t.seats[SLOW]
    # its UNO call, signed in round 1 and still in its uplink's queue
    late = slow.act({"t": "calluno", "seat": SLOW})
    slow.withdraw(late, refused=False)  # (unanswered: taken back, still its word)
    queued = []  # its co-sign, made and sent, behind the act in its queue

    def owed(seat=slow):
        out = TableSeat.owed(seat)
        queued.extend(m for m in out if m.EV == "round-sign")
        return [m for m in out if m.EV != "round-sign"]

    slow.owed = owed
    play_round(rnd, [make_bot("heuristic", f"{seed}/{s}") for s in range(3)])
    t.pump()
    assert t.host.finished and queued
    t.broadcast(t.host.timeout(SLOW, "round-sign"))  # the co-sign clock ran out: waived
    t.seats[SLOW].held_up = True  # (its own word came late: it does not contest the waiver)
    t.broadcast(t.host.start_round())
    t.seats[SLOW].held_up = False
    assert t.host.round_no == 2
    return t, late


@pytest.mark.parametrize("seed", ["stale-act-a", "stale-act-b"])
def test_an_act_of_the_last_round_that_comes_in_the_next_is_refused_stale_not_a_cheat(seed):
    t, late = _round_one_over_with_a_late_act(seed)
    with pytest.raises(Refusal) as refused:
        t.host.receive(SLOW, late)  # round 2's seed exchange under way
    assert refused.value.code == "stale", refused.value
    assert "round 1" in refused.value.reason, refused.value.reason
    t.pump()  # the table goes on: round 2 is dealt with the slow seat in it
    assert t.host.round is not None and not t.violations
    # and once round 2 is live, the same (round 2 has its own acts numbered from 0)
    with pytest.raises(Refusal) as again:
        t.host.receive(SLOW, late)
    assert again.value.code == "stale", again.value


def test_an_act_signed_over_neither_round_is_still_a_forgery():
    t, late = _round_one_over_with_a_late_act("stale-act-forged")
    forged = dataclasses.replace(late, sig=bytes(64))
    with pytest.raises(FairPlayViolation) as caught:
        t.host.receive(SLOW, forged)
    assert caught.value.seat == SLOW and "not signed by seat" in caught.value.reason
