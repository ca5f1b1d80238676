"""Issue 22 class 5 (in part): an elected host cannot continue a match below the last round
every seat co-signed. Each follower knows that floor from its own record (`cosigned_rounds`):
every seat verified that round, so no honest peer reported fewer, and a confirmation that
continues after fewer rounds drops co-signed ones."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from unonet.engine import make_bot, play_round
from unonet.net._election import NO_HEAD, Follower
from unonet.net._seat import SeatProblem
from unonet.protocol import Election
from unonet.table import cosigned_rounds

from .helpers import match_table


def _two_rounds(seed: str, *, unsigned_last: int | None = None):
    t = match_table(seed)
    for r in range(2):
        if r == 1 and unsigned_last is not None:  # that seat never co-signs round 2
            owed = t.seats[unsigned_last].owed
            t.seats[unsigned_last].owed = lambda: [e for e in owed() if e.EV != "round-sign"]
        rnd = t.start_round()
        rnd.start()
        play_round(rnd, [make_bot("heuristic", f"{seed}/{r}/{s}") for s in range(3)])
        t.pump()
        if r == 1 and unsigned_last is not None:
            t.broadcast(t.host.timeout(unsigned_last, "round-sign"))
    assert not t.violations
    return t


def test_the_floor_is_the_last_round_every_seat_co_signed():
    assert cosigned_rounds(_two_rounds("floor-all").seats[0]) == 2
    assert cosigned_rounds(_two_rounds("floor-one-missing", unsigned_last=2).seats[0]) == 1


def test_a_follower_refuses_a_continuation_that_drops_co_signed_rounds():
    """The new host's confirmation names round 0's head (which is on the follower's chain,
    so the head check alone would take it), but two rounds were co-signed by every seat."""
    seat = _two_rounds("floor-drop").seats[0]
    game = SimpleNamespace(seat=seat, ledger=None, snapshots={}, snapshot=lambda: None)
    me = bytes([7]) * 32
    f = Follower(game, 2, me)
    with pytest.raises(SeatProblem, match="continues before the first round ended, but round 2 was co-signed by every seat") as exc:
        f.confirm(Election(term=2, host=me, head=NO_HEAD, rounds=0))
    assert exc.value.cheat


def test_the_new_host_holds_a_seats_co_sign_beyond_a_report_of_fewer_rounds():
    """The new host's side of the floor (spec §7 step 5, `signed_beyond`): a seat whose co-sign
    of a later round is in the new host's record reported fewer rounds than it completed (it
    co-signs a round only after its ledger took it) - refused (the seat away), or it would
    pull the continuation below rounds every seat co-signed and every follower would blame the
    honest new host (tests/net/test_election.py, the same over loopback). A seat whose co-sign
    of the last round never reached the new host is not called a liar (the split round)."""
    from unonet.net._carry import signed_beyond

    heads = [bytes([r]) * 32 for r in range(3)]  # (only their number matters here)
    seat = _two_rounds("floor-host").seats[0]
    game = SimpleNamespace(seat=seat)
    assert signed_beyond(game, 1, 0, heads) == 2   # it co-signed rounds 1 and 2, reports none
    assert signed_beyond(game, 1, 1, heads) == 2
    assert signed_beyond(game, 1, 2, heads) is None  # the honest report
    seat = _two_rounds("floor-host-unsigned", unsigned_last=2).seats[0]
    game = SimpleNamespace(seat=seat)
    assert signed_beyond(game, 2, 1, heads) is None  # its co-sign of round 2 is not held: no proof
    assert signed_beyond(game, 2, 0, heads) == 1
    assert signed_beyond(SimpleNamespace(seat=None), 1, 0, heads) is None  # no record of the match


def _genesis_only(genesis: bytes, floor: int = 0):
    """A follower's game that read round 1's set-up and completed nothing (its ledger: the
    genesis), its record showing round ``floor`` co-signed by every seat (0: none)."""
    led = SimpleNamespace(header=SimpleNamespace(genesis=genesis), entries=[], rounds=0)
    game = SimpleNamespace(seat=None, ledger=led, snapshots={0: object()}, snapshot=lambda: None)
    f = Follower(game, 1, bytes([7]) * 32)
    f.floor = floor
    return f


def test_a_follower_with_the_genesis_takes_a_fresh_start_confirmed_with_the_all_zero_head():
    """The lost host died sending round 1's set-up: some party never read it and has no ledger
    (the all-zero head after 0 rounds), so the new host confirms that head after 0 rounds and
    starts the match afresh (spec §7 step 5). A follower that did read it (its head there: the
    genesis) takes it - nothing was completed on either side - and carries nothing (before:
    "a head nobody can justify", the honest new host named a cheat)."""
    me = bytes([7]) * 32
    carry = _genesis_only(bytes([1]) * 32).confirm(Election(term=1, host=me, head=NO_HEAD, rounds=0))
    assert carry.continuation is None and carry.ledger() is None and carry.rounds == 0


def test_the_all_zero_head_passes_only_after_0_rounds_and_above_the_floor():
    """A real lie still cannot pass: the all-zero head after 1 round is on nobody's chain, and
    after 0 rounds it cannot drop round 2, which every seat co-signed (the floor)."""
    me = bytes([7]) * 32
    with pytest.raises(SeatProblem, match="a head nobody can justify") as exc:
        _genesis_only(bytes([1]) * 32).confirm(Election(term=1, host=me, head=NO_HEAD, rounds=1))
    assert exc.value.cheat
    with pytest.raises(SeatProblem, match="it drops co-signed rounds") as exc:
        _genesis_only(bytes([1]) * 32, floor=2).confirm(Election(term=1, host=me, head=NO_HEAD, rounds=0))
    assert exc.value.cheat
