"""Issue 22 class 8: "I sent it, so the host has it" checks at a seat never accuse an honest
host around a rejoin. A seat just back from a replay sends the seed message it owes after
the replay; another seat's clock may run out before it arrives. The host's abort names
only the seats whose own clock ran out (`TableHost.timeout(..., late)`, what `HostGame`
passes), so the seat just back is not named and does not refuse the abort."""

from __future__ import annotations

import pytest

from unonet.fair import FairPlayViolation
from unonet.table import Refusal, TableSeat

from .test_rejoin import table_and_ids

BACK, STALLER = 3, 2


def _seed_phase_with_a_seat_just_back(seed: str):
    """Round 1's seed commitments: seats 0 and 1 committed, the staller never does, and
    seat 3 is rebuilt from the replay (its player back) with its commitment made and on
    its way to the host."""
    table, ids, host_id = table_and_ids(seed)
    table.start_match()
    table.broadcast(table.host.start_round())
    for s in table.seats[:2]:
        for m in s.owed():
            table.send(s.seat, m)
    back = TableSeat(BACK, ids[BACK], host_id.public)
    back.recovering = True
    for e in table.host.events:
        back.receive(e)
    back.recovering = False
    table.seats[BACK] = back
    on_its_way = back.owed()
    assert [e.EV for e in on_its_way] == ["player-commit"]
    return table, back, on_its_way


def test_an_abort_for_another_seats_clock_does_not_name_a_seat_just_back_and_nobody_is_accused():
    table, back, on_its_way = _seed_phase_with_a_seat_just_back("race-late")
    # the staller's clock ran out; seat 3's (restarted at its rejoin) did not
    out = table.host.timeout(STALLER, "commit-seed", late=[STALLER])
    abort = next(e for e in out if e.EV == "round-abort")
    assert list(abort.stalled) == [STALLER]
    table.broadcast(out)
    assert not table.violations and back.violation is None
    # its commitment arrives after the abort: refused as a lost race, not a cheat
    with pytest.raises(Refusal, match="out-of-turn"):
        table.host.receive(BACK, on_its_way[0])
    # the round is dealt again, seat 3 takes part and nobody is accused
    table.broadcast(table.host.start_round())
    table.pump()
    assert table.host.round is not None and not table.violations


def test_named_by_another_seats_clock_the_seat_just_back_would_refuse_the_abort():
    """Why the host names only the late seats: an abort naming every seat that still owes
    its commitment names the one just back, which sent it, and that seat refuses it."""
    table, back, _ = _seed_phase_with_a_seat_just_back("race-all")
    out = table.host.timeout(STALLER, "commit-seed")  # (no clocks known: every seat that owes)
    assert list(next(e for e in out if e.EV == "round-abort").stalled) == [STALLER, BACK]
    with pytest.raises(FairPlayViolation, match="the host withheld it"):
        back.receive(out[-1])
