"""Issue 22 classes 4 and 6: a host that swallows a seat's word to make the record go its way.

Only the seat knows it spoke, so the seat itself refuses at the event that proves the host
withheld it: the next `round-start` that comes without the co-sign it sent (a host that told
it another story of the round would drop exactly that co-sign), and a `challenge-timeout` that
finds it guilty after it answered (or disclosed its key when the challenger disputed)."""

from __future__ import annotations

from unonet.engine import Challenge, make_bot, play_round
from unonet.fair._events import RoundSign
from unonet.table import TableHost, audit_transcript
from unonet.table._round import action_json

from .helpers import match_table
from .test_live_replay import _w4_on_the_table



class Swallower(TableHost):
    """Takes seat `victim`'s co-sign off the wire and never relays it."""

    victim = 1

    def receive(self, seat, event):
        if isinstance(event, RoundSign) and seat == self.victim:
            return []
        return super().receive(seat, event)


def test_a_host_that_drops_a_seats_co_sign_is_refused_by_that_seat_at_the_next_round():
    t = match_table("swallow-cosign", 3, Swallower)
    host = t.host
    rnd = t.start_round()
    rnd.start()
    play_round(rnd, [make_bot("heuristic", f"sw/{s}") for s in range(3)])
    t.pump()
    assert [(o.seat, o.kind) for o in host.owed()] == [(1, "round-sign")]
    t.broadcast(host.timeout(1, "round-sign"))  # "seat 1 never co-signed"
    out = host.start_round()
    t.broadcast(out)
    start = next(e for e in out if e.EV == "round-start")
    v = t.seats[1].violation
    assert v is not None and v.seat is None and t.seats[1].violation_event is start
    assert "without seat 1's co-sign of round 1, which seat 1 sent" in v.reason
    assert all(p.violation is None for p in t.everyone if p.seat != 1)
    # offline, a missing co-sign is all there is to see (the record stops in round 2's seed)
    assert audit_transcript(t.lines).unsigned == ("round 1: seats [1]",)


def test_a_host_that_swallows_a_challenge_answer_and_calls_a_timeout_is_refused_by_the_answerer():
    t = _w4_on_the_table(TableHost, "swallow-answer")
    rnd = t.host.round
    nxt, challenged = rnd.turn, rnd.wild_four.seat
    t.send(nxt, t.seats[nxt].act(action_json(rnd, Challenge(nxt))))
    (answer,) = t.seats[challenged].owed()  # sent ... and swallowed
    assert answer.EV == "challenge-response"
    out = t.host.timeout(challenged, "answer-challenge")  # guilty by timeout
    t.broadcast(out)
    timeout = next(e for e in out if e.EV == "challenge-timeout")
    v = t.seats[challenged].violation
    assert v is not None and v.seat is None and t.seats[challenged].violation_event is timeout
    assert f"though seat {challenged} sent its challenge response" in v.reason
    assert all(p.violation is None for p in t.everyone if p.seat != challenged)
