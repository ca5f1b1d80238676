"""Issue 22 classes 4 and 6: a host that swallows a seat's word to make the record go its way.

Class 4: the next `round-start` needs every co-sign of the last round relayed or waived (every
verifier and the audit refuse one that drops a co-sign silently), and carries the round history
every verifier compares with its own; a seat that sent its co-sign contests a waiver naming it
(a host that told it another story of the round must drop exactly that co-sign). Class 6: a
`challenge-timeout` that finds a seat guilty after it answered (or disclosed its key when the
challenger disputed) is refused by that seat. Only the seat knows it spoke."""

from __future__ import annotations

import dataclasses
import json

import pytest

from unonet.engine import Challenge, make_bot, play_round
from unonet.fair import FairPlayViolation
from unonet.fair._events import Deal, Event, RoundEnd, RoundSign
from unonet.fair._match import MatchLedger
from unonet.fair._seal import deal_ad, seal
from unonet.fair._shuffle import pad_openings, round_end_message
from unonet.fair.testing import det_randbytes
from unonet.table import Refusal, TableHost, TableSeat, audit_transcript
from tests.adversaries.helpers import assert_convicted_when_signed
from unonet.table._driver import DrivenRound
from unonet.table._round import action_json

from .helpers import match_table
from .test_live_replay import _w4_on_the_table



class Swallower(TableHost):
    """Takes seat `victim`'s co-sign off the wire and never relays it; its next round-start
    waives it, as for a seat that dropped (the honest host's `start_round`)."""

    victim = 1

    def receive(self, seat, event):
        if isinstance(event, RoundSign) and seat == self.victim:
            return []
        return super().receive(seat, event)


class _Unwaiving(MatchLedger):
    """The cheating host's own match ledger: it reports no co-sign missing (so its round-start
    waives nothing) and skips the checks that would refuse its own round-start."""

    def missing_signs(self):
        return []

    def _check_history(self, ev, cur):
        pass


class Dropper(Swallower):
    """Drops seat 1's co-sign and starts the next round as if it had come: no waiver."""

    def start_round(self, absent=()):
        self.match.__class__ = _Unwaiving
        try:
            return super().start_round(absent)
        finally:
            self.match.__class__ = MatchLedger


class HistoryForger(TableHost):
    """Starts round 2 with a round history that is not the chain of round 1's digest."""

    def start_round(self, absent=()):
        if self.match.current is not None and self.match.current.status == "ended":
            self.match.history = bytes(32)
        return super().start_round(absent)


def _round_one(host_cls, seed: str, *, gone: int | None = None):
    """Round 1 played and co-signed; seat `gone`'s link is lost before it co-signs."""
    t = match_table(seed, 3, host_cls)
    t.start_match()
    if gone is not None:
        owed = t.seats[gone].owed
        t.seats[gone].owed = lambda: [] if t.host.finished else owed()
    rnd = t.start_round()
    rnd.start()
    play_round(rnd, [make_bot("heuristic", f"{seed}/{s}") for s in range(3)])
    t.pump()
    return t


def _next_round_start(t):
    """The host's next round-start, broadcast; with its transcript line."""
    out = t.host.start_round()
    t.broadcast(out)
    start = next(e for e in out if e.EV == "round-start")
    return start, t.host.events.index(start) + 1


def _convicted_at(t, start, line, match):
    for p in t.everyone:
        assert p.violation is not None and p.violation.seat is None and p.violation_event is start, p.seat
        assert match in p.violation.reason, p.violation.reason
    # the record stops at the lie: it blames nobody until the host signs a round over it
    assert_convicted_when_signed(t.lines, t.host.identity, line=line, match=match, auditor=audit_transcript)


def test_a_host_that_drops_a_co_sign_without_a_waiver_is_convicted_by_every_verifier():
    """The next round needs every co-sign of the last relayed, or a waiver naming the seat."""
    t = _round_one(Dropper, "drop-cosign")
    assert 1 not in t.host.match.current.signs  # swallowed; round 2 starts at once
    start, line = _next_round_start(t)
    assert start.waived is None
    _convicted_at(t, start, line, "starts without seat(s) [1]'s co-sign of round 1 and waives none of them")


def test_a_host_that_waives_a_seat_that_co_signed_is_refused_by_that_seat():
    """Seat 1 sent its co-sign: a waiver naming it says it dropped, and only it knows better."""
    t = _round_one(Swallower, "swallow-cosign")
    host = t.host
    assert [(o.seat, o.kind) for o in host.owed()] == [(1, "round-sign")]
    t.broadcast(host.timeout(1, "round-sign"))  # "seat 1 never co-signed"
    start, _ = _next_round_start(t)
    assert start.waived == (1,)
    v = t.seats[1].violation
    assert v is not None and v.seat is None and t.seats[1].violation_event is start
    assert "waiving seat 1's co-sign of round 1, which seat 1 sent" in v.reason
    assert all(p.violation is None for p in t.everyone if p.seat != 1)
    # offline the waiver is in the record (the host said seat 1 dropped); the record only stops
    report = audit_transcript(t.lines)
    assert report.waived == ("round 1: seats [1]",) and report.unsigned == (), report.summary
    assert report.line == len(t.lines) and "transcript ends in phase" in report.reason, report.summary


def test_a_host_that_told_a_seat_another_story_and_waived_its_co_sign_is_refused_by_that_seat():
    """The equivocation itself: seat 1's deals go out sealed under other ephemeral keys than
    everyone else's copy (both open for seat 1), so its round digest is another; the host signs
    seat 1's round end over seat 1's digest, drops its co-sign and waives it. Seat 1's round
    history is not the one the next round-start carries: it refuses it."""
    t = match_table("two-stories", 3, Swallower)
    host, victim = t.host, t.seats[1]
    rb = det_randbytes("two-stories/reseal")
    told = t.broadcast

    def broadcast(events):
        for e in events:
            story = e
            if isinstance(e, Deal) and e.seat == 1:
                d = host.dealer
                lg = d.ledger
                dh = lg.start.seats[1].dh_key
                story = dataclasses.replace(e, sealed=seal(
                    pad_openings([d._deck[e.position]], lg.opening_size), recipient_dh=dh,
                    ad=deal_ad(lg.table, lg.round_no, e.position, 1, dh), randbytes=rb))
            if isinstance(e, RoundEnd):
                d1 = victim.verifier.ledger.digest
                assert d1 != e.digest  # seat 1 was told another story
                story = RoundEnd(digest=d1, sig=host.identity.sign(round_end_message(host.table, host.round_no, d1)))
            for p in t.everyone:
                if isinstance(e, RoundSign) and p is victim:
                    continue  # the others' co-signs are over their story: seat 1 must not see them
                if p.violation is None:
                    try:
                        p.receive(story if p is victim else e)
                    except FairPlayViolation as exc:
                        t.violations.append((p.seat, exc))
    t.broadcast = broadcast
    t.start_match()
    real, sent = victim.owed, []

    def owed():  # what seat 1 sent is on its way (the host swallows its co-sign): not made again
        out = [e for e in real() if e not in sent]
        sent.extend(out)
        return out
    victim.owed = owed
    rnd = t.start_round()
    rnd.start()
    play_round(rnd, [make_bot("heuristic", f"two-stories/{s}") for s in range(3)])
    t.pump()
    assert not t.violations  # every story checks out for its reader
    t.broadcast = told
    t.broadcast(host.timeout(1, "round-sign"))
    start, _ = _next_round_start(t)
    assert start.waived == (1,)
    v = victim.violation
    assert v is not None and v.seat is None and victim.violation_event is start
    assert "carries the round history" in v.reason and "another story of the earlier rounds" in v.reason
    assert all(p.violation is None for p in t.everyone if p is not victim)


def test_a_forged_round_history_is_refused_by_every_verifier():
    t = _round_one(HistoryForger, "forged-history")
    start, line = _next_round_start(t)
    _convicted_at(t, start, line, "carries the round history 0000000000000000...")


# ------------------------------------------------------------------ honest: nobody accused
def _rebuilt(t, seat: int, *, secrets_from_key: bool = False) -> TableSeat:
    """Seat `seat`'s player back after a crash: a fresh seat that read the host's replay
    (``secrets_from_key``: as a net seat, `SeatGame`, its secrets derived from its key)."""
    back = TableSeat(seat, t.seats[seat].identity, t.host.identity.public, randbytes=det_randbytes("back"))
    back.secrets_from_key = secrets_from_key
    back.recovering = True
    for line in t.lines:
        obj = json.loads(line)
        obj.pop("prev")
        back.receive(Event.from_json(obj))
    back.recovering = False
    return back


def test_a_dropped_seats_missing_co_sign_is_waived_and_nobody_is_accused():
    """Seat 2 dropped before co-signing round 1: the host waives it, round 2 is played, and
    neither a verifier nor the audit names anyone; the record shows the waiver."""
    t = _round_one(TableHost, "dropped-cosign", gone=2)
    t.broadcast(t.host.timeout(2, "round-sign"))
    t.broadcast(t.host.start_round())
    assert t.host.dealer.ledger.start.waived == (2,)
    t.seats[2] = _rebuilt(t, 2)  # back: it reads the waiver in the replay, and plays round 2
    t.pump()
    rnd = t.round = DrivenRound(t)
    rnd.start()
    play_round(rnd, [make_bot("heuristic", f"dropped-cosign/2/{s}") for s in range(3)])
    t.pump()
    assert not t.violations and all(p.violation is None for p in t.everyone)
    report = audit_transcript(t.lines)
    assert report.ok and report.waived == ("round 1: seats [2]",) and report.unsigned == (), report.summary
    assert "co-signs waived: round 1: seats [2]" in report.summary


def test_a_seat_back_from_a_replay_whose_co_sign_crossed_the_waiver_does_not_contest_it():
    """Seat 2 crashed at round 1's end; rebuilt from the replay (which stops between rounds),
    it co-signs at once, but the host had already waived it and started round 2: its co-sign
    crossed the round-start on the way (`TableSeat._unsure`), so it does not cry foul."""
    t = _round_one(TableHost, "rejoin-cosign", gone=2)
    back = _rebuilt(t, 2)
    (cosign,) = [e for e in back.owed() if e.EV == "round-sign"]  # on its way ...
    t.seats[2] = back
    t.broadcast(t.host.timeout(2, "round-sign"))  # ... while the host's clock ran out
    start, _ = _next_round_start(t)
    assert start.waived == (2,) and back.violation is None
    with pytest.raises(Refusal):
        t.host.receive(2, cosign)  # too late: refused, not a cheat
    assert all(p.violation is None for p in t.everyone)


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


def test_a_co_sign_after_its_clock_but_before_the_next_round_is_taken_not_waived():
    """Back from a replay before the next round began, seat 2 co-signs late: the host takes
    it (no longer waived), so the next round-start waives nothing and nobody is accused."""
    t = _round_one(TableHost, "late-cosign", gone=2)
    t.broadcast(t.host.timeout(2, "round-sign"))
    t.seats[2] = back = _rebuilt(t, 2)
    (cosign,) = [e for e in back.owed() if e.EV == "round-sign"]
    t.send(2, cosign)
    start, _ = _next_round_start(t)
    assert start.waived is None and 2 in t.host.match.attempts[0].signs
    assert all(p.violation is None for p in t.everyone)
