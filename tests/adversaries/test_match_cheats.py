"""The match around the rounds (issue 11 classes 1, 3, 4): cheats on the header, the set-up,
attempts, aborts and co-signs, each mounted by a host (or player) that signs its own lies
with its own key through the project's API, and each caught live — by every honest seat
and an observer, at the event that carries the lie — and offline by `unonet audit`, both
naming the cheat and the cheater."""

from __future__ import annotations

import dataclasses

import pytest

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair import FairPlayViolation, Identity
from unonet.fair._events import MatchJoin, RoundSign, RoundStart
from unonet.fair._seatsig import sign_seat_event
from unonet.fair.testing import det_randbytes
from unonet.table import LocalTable, TableHost, TableSeat, audit_transcript, make_table
from tests.adversaries.helpers import assert_convicted_when_signed, assert_unproven

RULES = make_rules()


def _bots(n, seed):
    return [make_bot("heuristic", f"{seed}/{s}") for s in range(n)]


def _table(seed, players=3, host_cls=TableHost, **kw) -> LocalTable:
    rb = det_randbytes(seed)
    host_id = Identity.generate(rb)
    ids = [Identity.generate(rb) for _ in range(players)]
    host = host_cls(RULES, players, identity=host_id, seats=[i.public for i in ids], randbytes=rb, **kw)
    seats = [TableSeat(s, ids[s], host_id.public, randbytes=rb) for s in range(players)]
    return LocalTable(host, seats, [TableSeat(None, None, host_id.public)], strict=False)


def _play(t: LocalTable, seed: str) -> None:
    rnd = t.start_round()
    rnd.start()
    if not rnd.over:
        play_round(rnd, _bots(len(t.seats), seed))


def caught_live(t: LocalTable, match: str, *, honest=None, cheater: int | None = None) -> None:
    """Every honest seat and the observer saw the violation, blaming `cheater` (None: the host)."""
    parties = [s for s in t.seats if honest is None or s.seat in honest] + t.observers
    for p in parties:
        v = p.violation
        who = "observer" if p.seat is None else f"seat {p.seat}"
        assert v is not None, f"{who} did not catch it"
        assert match in v.reason, f"{who}: {v.reason}"
        assert v.seat == cheater, f"{who} blames {v.party}"


def caught_offline(lines, match: str, *, cheater: int | None = None, relayed: bool = False, signer=None) -> None:
    """``relayed``: the lie is a seat's word the host relayed, in a record that stops at it: no
    round the host signed covers it, so the file alone blames nobody (the live peers convict).
    ``signer``: the cheating host's key; a host lie in a record that stops at it (no later host
    signature covers it) blames nobody until the host goes on to sign a round over it
    (docs/fair-play.md §11.13), which the test then shows with that key."""
    report = audit_transcript(lines)
    if relayed:
        assert_unproven(report, match=match)
        return
    if cheater is None and report.unproven:
        assert signer is not None, f"the file alone proves nothing: {report.summary}"
        assert_convicted_when_signed(lines, signer, match=match, auditor=audit_transcript)
        return
    assert not report.ok and match in report.reason, report.summary
    assert report.to_json()["blame"] == ("host" if cheater is None else f"seat {cheater}")


def _no_cosign(seat: TableSeat) -> None:
    """This seat never sends its co-sign (it sends everything else)."""
    owed = seat.owed
    seat.owed = lambda: [e for e in owed() if e.EV != "round-sign"]


def _round_without_cosign(seed: str, seat: int) -> LocalTable:
    """A round played to its end, at which seat `seat` withholds its co-sign."""
    t = _table(seed)
    t.start_match()
    rnd = t.start_round()
    rnd.start()
    _no_cosign(t.seats[seat])
    play_round(rnd, _bots(3, seed))
    return t


def _broadcast(t: LocalTable, events) -> None:
    for e in events:
        t.host._publish([e])
    t.broadcast(events)


# ------------------------------------------------------------------ class 3: the set-up
class SetupCheat(TableHost):
    """A host that edits the set-up it publishes and plays by it (its own engine follows)."""

    edit = staticmethod(lambda setup, rnd: setup)

    def _open(self) -> None:
        self._setup = self.edit(dict(self._setup), self.round_no)
        super()._open()


@pytest.mark.parametrize("name, edit, match", [
    # (round 1's set-up names no dealer, drawn from the seat reveals: naming any seat there is the cheat)
    ("picks the dealer", lambda s, r: dict(s, dealer=((s["dealer"] or 0) + 1) % s["players"]), "names the dealer"),
    ("starts its own seat at 300", lambda s, r: dict(s, scores=[300] + s["scores"][1:]), "the starting scores"),
    ("cuts the target", lambda s, r: dict(s, rules=dict(s["rules"], target=50)), "names the rules"),
    ("turns challenges off", lambda s, r: dict(s, rules=dict(s["rules"], preset="street")), "names the rules"),
    ("renumbers the round in its set-up", lambda s, r: dict(s, round=5), "names the round number"),
    ("seats fewer players", lambda s, r: dict(s, active=[0, 1]), "names the seats in play"),
])
def test_a_host_that_rewrites_the_set_up_is_caught(name, edit, match):
    t = _table(f"setup-{name}", host_cls=SetupCheat)
    t.host.edit = edit
    try:
        _play(t, "setup")
    except Exception:  # the cheater's own round may break once the others left
        pass
    caught_live(t, match)
    caught_offline(t.lines, match, signer=t.host.identity)


def test_a_host_that_rewrites_the_set_up_of_round_two_is_caught():
    """Scores must continue from round 1's verified result, not the host's say-so."""
    t = _table("setup-r2", host_cls=SetupCheat)
    t.host.edit = lambda s, r: dict(s, scores=[0] * len(s["scores"])) if r == 2 else s
    _play(t, "r1")
    assert not t.violations and max(t.host.referee.match.scores) > 0
    try:
        _play(t, "r2")
    except Exception:
        pass
    caught_live(t, "the starting scores")
    caught_offline(t.lines, "the starting scores", signer=t.host.identity)


# ------------------------------------------------------------- class 1: attempts and aborts
class Regrinder(TableHost):
    """Restarts a round once its deck is known (it knows every card at level A)."""

    def restart(self, round_no: int, attempt: int, *, abort: str | None = None, stalled=()):
        out = []
        if abort is not None:
            ev = self.dealer.abort(abort, stalled)
            out.append(ev)
            self._publish([ev])
        self.finished, self.round = True, None
        self.match.next_round = lambda: (round_no, attempt)   # its own ledger is in on it
        self.match.check_round_start = lambda ev, line=None: None
        return out + self.start_round()


def _seeded(t: LocalTable):
    """Round 1 started, its deck committed and dealt."""
    rnd = t.start_round()
    rnd.start()
    assert t.host.dealer.ledger.phase.value == "live"
    return rnd


@pytest.mark.parametrize("how, kw, match", [
    ("same attempt again", {"round_no": 1, "attempt": 1}, "round 1 attempt 1 again"),
    ("next attempt without an abort", {"round_no": 1, "attempt": 2}, "before round 1 (attempt 1) ended or was aborted"),
    ("an abort once the deck is known", {"round_no": 1, "attempt": 2, "abort": "host gave up"},
     "once the deck is committed"),
    ("an abort blaming a seat that committed", {"round_no": 1, "attempt": 2, "abort": "seat 1 stalled",
                                               "stalled": (1,)}, "once the deck is committed"),
])
def test_a_host_that_redeals_a_round_it_dislikes_is_caught(how, kw, match):
    t = _table(f"regrind-{how}", host_cls=Regrinder)
    t.start_match()
    _seeded(t)
    out = t.host.restart(**kw)
    t.broadcast(out)
    caught_live(t, match)
    caught_offline(t.lines, match, signer=t.host.identity)


def test_an_abort_naming_a_seat_that_sent_its_commitment_is_caught():
    """During the seed exchange, the host aborts blaming seat 0, which did commit."""
    t = _table("false-staller", host_cls=Regrinder)
    t.start_match()
    events = t.host.start_round()
    t.broadcast(events)
    t.send(0, t.seats[0].owed()[0])  # seat 0 commits; seats 1 and 2 have not yet
    out = t.host.restart(1, 2, abort="seats 0 and 1 stalled", stalled=(0, 1))
    t.broadcast(out)
    caught_live(t, "names seat(s) [0] as stalled")
    caught_offline(t.lines, "names seat(s) [0] as stalled", signer=t.host.identity)


def test_a_real_stall_is_aborted_naming_the_staller_and_the_audit_counts_it():
    t = _table("stall")
    t.start_match()
    t.broadcast(t.host.start_round())
    for s in (0, 2):
        t.send(s, t.seats[s].owed()[0])
    # seat 1 never makes (nor sends) its commitment
    assert [(o.seat, o.kind) for o in t.host.owed()] == [(1, "commit-seed")]
    abort = t.host.timeout(1, "commit-seed")
    t.broadcast(abort)
    assert [e.EV for e in abort] == ["round-abort"] and abort[0].stalled == (1,)
    rnd = t.start_round()  # the same round, attempt 2
    assert (t.host.round_no, t.host.attempt) == (1, 2)
    rnd.start()
    play_round(rnd, _bots(3, "stall"))
    assert not t.violations
    report = audit_transcript(t.lines)
    assert report.ok and report.aborts == 1 and report.stalls == ((1, 1),), report.summary
    assert "1 aborted attempt (stalled: seat 1 x1)" in report.summary


# ---------------------------------------------------------- classes 2 and 4: identity, splices
def test_a_host_that_replays_a_join_from_another_match_is_caught():
    """Same host, same players, another night: last match's signed join does not fit."""
    t1 = _table("night-1")
    t1.start_match()
    old = next(e for e in t1.host.events if isinstance(e, MatchJoin) and e.seat == 1)
    t = _table("night-1")  # the same identities (same seed), a fresh match nonce
    t.host.randbytes = det_randbytes("night-2")
    t.broadcast(t.host.start_match())
    for s in (0, 2):
        t.send(s, t.seats[s].owed()[0])
    t.seats[1].owed()  # seat 1 joins tonight, but the host swaps in its old join
    _broadcast(t, [old])
    caught_live(t, "names another match-start", honest=[0, 2])
    assert t.seats[1].violation is not None and "never made" in t.seats[1].violation.reason
    caught_offline(t.lines, "names another match-start", relayed=True)


def test_a_host_that_splices_a_round_from_another_match_is_caught():
    t1 = _table("splice-1")
    _play(t1, "s1")
    t = _table("splice-1")
    t.host.randbytes = det_randbytes("splice-2")
    t.start_match()
    # the host re-signs a round-start for tonight's chain head, but with last match's id
    host = t.host
    host.match.check_round_start = lambda ev, line=None: None
    host.match.match_id, tonight = t1.host.match.match_id, host.match.match_id
    try:
        events = host.start_round()
    finally:
        host.match.match_id = tonight
    t.broadcast(events)
    caught_live(t, "a round from another match")
    caught_offline(t.lines, "a round from another match", signer=t.host.identity)


def test_a_host_that_changes_the_seat_list_between_rounds_is_caught():
    t = _table("reseat")
    _play(t, "a")
    stranger = Identity.generate(det_randbytes("stranger")).public
    host = t.host
    host.match.check_round_start = lambda ev, line=None: None
    host.seat_ids = [host.seat_ids[0], stranger, host.seat_ids[2]]
    t.broadcast(host.start_round())
    caught_live(t, "seats other identities than the match's seat list", honest=[0, 2])
    caught_offline(t.lines, "seats other identities", signer=t.host.identity)


def test_a_co_sign_forged_by_the_host_is_caught():
    """The host signs seat 1's co-sign with its own key (it has no other)."""
    t = _round_without_cosign("forge-cosign", 1)  # the host makes seat 1's up
    lg = t.host.dealer.ledger
    fake = sign_seat_event(t.host.identity, lg.table, lg.round_no, lg.start_digest,
                           RoundSign(seat=1, digest=lg.digest))
    _broadcast(t, [fake])
    caught_live(t, "round-sign of seat 1 is not signed by seat 1", honest=[0, 2])
    assert "never made" in t.seats[1].violation.reason
    caught_offline(t.lines, "round-sign of seat 1 is not signed by seat 1", relayed=True)


def test_a_host_that_told_a_seat_another_story_is_exposed_by_its_co_sign():
    """Seat 2 was shown another round (its co-sign is over that story's digest): relayed,
    the co-sign convicts the host at every other seat and in the audit."""
    t = _round_without_cosign("two-stories", 2)
    lg = t.host.dealer.ledger
    other_story = bytes(32 - 1) + b"\x01"
    fooled = sign_seat_event(t.seats[2].identity, lg.table, lg.round_no, lg.start_digest,
                             RoundSign(seat=2, digest=other_story))
    _broadcast(t, [fooled])
    caught_live(t, "the host told the peers different stories", honest=[0, 1])
    caught_offline(t.lines, "the host told the peers different stories", relayed=True)


def test_a_seat_that_co_signs_another_digest_is_refused_by_the_host():
    t = _round_without_cosign("bad-cosign", 1)
    lg = t.seats[1].ledger
    lie = sign_seat_event(t.seats[1].identity, lg.table, lg.round_no, lg.start_digest,
                          RoundSign(seat=1, digest=bytes(32)))
    with pytest.raises(FairPlayViolation, match="seat 1 co-signed round 1 over a digest that is not the round's") as ei:
        t.host.receive(1, lie)
    assert ei.value.seat == 1
    report = audit_transcript(t.lines)
    assert report.ok and report.unsigned == ("round 1: seats [1]",)
    assert "co-signs missing: round 1: seats [1]" in report.summary


def test_a_join_in_another_seats_name_is_refused_and_a_forged_one_caught():
    t = _table("join-forge")
    t.broadcast(t.host.start_match())
    join0 = t.seats[0].owed()[0]
    with pytest.raises(FairPlayViolation, match="names seat 0, but seat 2 sent it") as ei:
        t.host.receive(2, join0)  # seat 2 relays seat 0's join as its own
    assert ei.value.seat == 2
    # the host makes up seat 1's join with its own key
    from unonet.fair._match import sign_match_join

    fake = sign_match_join(t.host.identity, MatchJoin(seat=1, start=t.host.match.start_hash, nonce=bytes(16)))
    _broadcast(t, [fake])
    caught_live(t, "match-join of seat 1 is not signed by seat 1", honest=[0, 2])
    assert "never made" in t.seats[1].violation.reason
    caught_offline(t.lines, "match-join of seat 1 is not signed by seat 1", relayed=True)


def test_a_whole_match_carries_its_header_co_signs_and_rotation():
    t = make_table(RULES, 3, randbytes=det_randbytes("whole-match"))
    dealers = []
    for k in range(3):
        rnd = t.start_round()
        dealers.append(t.host.round.dealer)
        rnd.start()
        play_round(rnd, _bots(3, f"w{k}"))
    assert dealers[1] == (dealers[0] + 1) % 3 and dealers[2] == (dealers[1] + 1) % 3
    evs = [e.EV for e in t.host.events]
    assert evs[:4] == ["match-start", "match-join", "match-join", "match-join"]
    assert evs.count("round-sign") == 9 and all(s.violation is None for s in t.everyone)
    report = audit_transcript(t.lines)
    assert report.ok and report.rounds == 3 and report.unsigned == () and report.aborts == 0, report.summary
    assert isinstance(t.host.events[4], RoundStart) and t.host.events[4].table == t.host.match.match_id
    assert dataclasses.replace(t.host.events[4], attempt=1) == t.host.events[4]


def test_a_hand_the_host_never_opens_is_the_hosts_fault_not_its_holders():
    """The host opens every hand at the end itself: one it skips convicts the host."""
    from unonet.fair import FairDealer

    class Skipper(FairDealer):
        check_self = False

        def open_hands(self):
            out = []
            for seat in range(len(self._start.seats)):
                unopened = [j for j in self.ledger.held_by(seat) if self.ledger.positions[j].public_card is None]
                if unopened and seat != 1:
                    out += self._emit(self.reveal_event(seat, unopened))
            return out

        def finish(self):
            return self.reveal_secrets() + self._emit(self.round_end_event())

    for k in range(10):  # a round that ends with seat 1 still holding cards
        t = _table(f"skip-{k}", dealer_cls=Skipper)
        rnd = t.start_round()
        rnd.start()
        play_round(rnd, _bots(3, f"skip-{k}"))
        if t.host.round.hands[1]:
            break
    assert t.host.round.hands[1]
    caught_live(t, "was never opened (the host opens every hand at the end)")
    # the moment: the record of the action that ended the round, when the hands must be open
    last = next(e for e in reversed(t.host.events) if e.EV == "game" and e.data["g"] == "act")
    assert all(p.violation_event is last for p in t.everyone if p.seat != 1)
    # seat 1 knows its own hand (its copy's result is right): it refuses the round-end that lacks it
    assert t.seats[1].violation_event.EV == "round-end"
    caught_offline(t.lines, "was never opened (the host opens every hand at the end)", signer=t.host.identity)
