"""Issue 22 class 7, at the table: a co-sign carries its seat's tally (the round digest and
the result its own engine gave, `unonet.ledger.tally_message`), which a scorekeeper keeps to
anchor its stored points. A seat that signs a tally over another result is refused by the
host, naming that seat; a host that relays such a co-sign anyway is convicted by every seat,
the observer and the audit, and the seat named in it is not."""

from __future__ import annotations

import dataclasses

import pytest

from unonet.engine import make_bot, play_round
from unonet.fair import FairPlayViolation
from unonet.fair._seatsig import sign_seat_event
from unonet.ledger import tally_message
from unonet.table import TableHost, audit_transcript
from tests.adversaries.helpers import assert_convicted_when_signed

from .helpers import match_table

LIAR = 1


def _lying_tally(t, seat: int):
    """Seat ``seat`` co-signs its round with a tally over hand points of its own making
    (signed with its own key): one point more in its own hand's place."""
    me = t.seats[seat]
    honest = me.owed

    def owed():
        out = []
        for e in honest():
            if e.EV == "round-sign":
                end = me.replay.last_end
                hands = list(end["hand_points"])
                hands[seat] += 1
                lie = me.identity.sign(tally_message(e.digest, end["winner"], end["points"], hands))
                lg = me.verifier.ledger
                e = sign_seat_event(me.identity, lg.table, lg.round_no, lg.start_digest,
                                    dataclasses.replace(e, tally=lie, sig=b""))
            out.append(e)
        return out

    me.owed = owed


def _round(t, seed: str) -> None:
    rnd = t.start_round()
    rnd.start()
    play_round(rnd, [make_bot("heuristic", f"{seed}/{s}") for s in range(len(t.seats))])


def test_every_honest_co_sign_carries_a_tally_that_verifies():
    t = match_table("tally-honest")
    _round(t, "tally-honest")
    t.pump()
    assert not t.violations
    signs = [e for e in t.host.events if e.EV == "round-sign"]
    assert len(signs) == 3 and all(e.tally is not None and len(e.tally) == 64 for e in signs)
    assert audit_transcript(t.lines).ok


def test_a_seat_that_co_signs_another_result_is_refused_by_the_host_naming_it():
    t = match_table("tally-liar")
    _lying_tally(t, LIAR)
    with pytest.raises(FairPlayViolation, match=f"seat {LIAR}'s co-sign of round 1 carries no tally") as ei:
        _round(t, "tally-liar")
        t.pump()
    assert ei.value.seat == LIAR
    assert not any(e.EV == "round-sign" and e.seat == LIAR for e in t.host.events)  # never relayed


class _Relaying(TableHost):
    """A host that passes a co-sign on without checking its tally (it colludes with the
    seat that lied, or lets a lie through to frame it)."""

    def _check_tally(self, seat, ev):
        pass


def test_a_host_that_relays_a_co_sign_with_a_false_tally_is_convicted_and_the_seat_is_not():
    t = match_table("tally-relay", host_cls=_Relaying)
    _lying_tally(t, LIAR)
    _round(t, "tally-relay")
    t.pump()
    bad = next(e for e in t.host.events if e.EV == "round-sign" and e.seat == LIAR)
    for p in t.everyone:
        if p.seat == LIAR:
            continue  # (its own word: it knows what it signed)
        v = p.violation
        who = "observer" if p.seat is None else f"seat {p.seat}"
        assert v is not None and v.seat is None, (who, v)
        assert p.violation_event is bad, who
        assert v.reason.startswith(f"the host relayed a round-sign in seat {LIAR}'s name whose tally"), v.reason
    # the co-sign is a match-level line: a file proves the host relayed it only under a later
    # round the host signs (the record stops at it: it blames nobody)
    assert_convicted_when_signed(t.lines, t.host.identity, line=next(i for i, e in enumerate(t.host.events, 1) if e is bad),
                                 auditor=audit_transcript)
