"""Issue 22 class 2: re-deals on demand.

The host sees the last `player-reveal` first and then knows the deck. A host that then
withholds it and aborts (naming the last revealer as the staller, or nobody) could deal
again until the deal suits it, and so could a colluding seat that stalls its reveal. Every
verifier now enforces the limits: a seat that sent its seed message refuses an abort that
names it; a give-up in the reveal phase convicts the host; a seat named by STALL_CAP aborts
of one round is dealt absent; no round is tried more than MAX_ATTEMPTS times."""

from __future__ import annotations

import pytest

from unonet.engine import make_bot, play_round
from unonet.fair._match import MAX_ATTEMPTS, STALL_CAP
from unonet.table import LocalTable, audit_transcript
from tests.adversaries.helpers import assert_convicted_when_signed

from .helpers import match_table



def _table(seed: str, players: int = 3) -> LocalTable:
    return match_table(seed, players)


def _to_reveals(t: LocalTable, *, revealing=(0, 2)) -> None:
    """An attempt's start and every commitment; the reveals of `revealing` only."""
    t.broadcast(t.host.start_round())
    for s in range(len(t.seats)):
        for m in t.seats[s].owed():
            t.send(s, m)
    assert t.host.dealer.ledger.phase.value == "seed-reveals"
    for s in revealing:
        for m in t.seats[s].owed():
            t.send(s, m)


def _abort_line(t: LocalTable) -> int:
    return max(i for i, e in enumerate(t.host.events, 1) if e.EV == "round-abort")


def test_a_host_that_withholds_a_commitment_and_blames_its_sender_is_refused_by_that_seat():
    """Two such false stalls would get seat 1 dealt absent (STALL_CAP): seat 1 refuses the first."""
    t = _table("withhold-commit")
    t.start_match()
    t.broadcast(t.host.start_round())
    for s in (0, 2):
        t.send(s, t.seats[s].owed()[0])
    (commit,) = t.seats[1].owed()  # sent ... and swallowed by the host
    abort = t.host.timeout(1, "commit-seed")
    t.broadcast(abort)
    v = t.seats[1].violation
    assert v is not None and v.seat is None and t.seats[1].violation_event is abort[0]
    assert "naming seat 1 as stalling, but seat 1 sent its seed commitment: the host withheld it" in v.reason


def test_a_host_that_withholds_the_last_reveal_and_blames_its_sender_is_refused_by_that_seat():
    """Seat 1 sends its reveal; the host takes it (now it knows the deck), keeps it to
    itself and aborts naming seat 1 as the staller. Seat 1 knows it sent it: it refuses the
    abort at once, naming the host."""
    t = _table("withhold")
    t.start_match()
    _to_reveals(t)
    (reveal,) = t.seats[1].owed()  # sent ... and swallowed by the host
    assert reveal.EV == "player-reveal"
    abort = t.host.timeout(1, "reveal-seed")
    t.broadcast(abort)
    v = t.seats[1].violation
    assert v is not None and v.seat is None and t.seats[1].violation_event is abort[0]
    assert "naming seat 1 as stalling, but seat 1 sent its seed reveal: the host withheld it" in v.reason
    # the others cannot tell a withheld reveal from a late one; they count the abort
    assert all(p.violation is None for p in t.everyone if p.seat != 1)
    report = audit_transcript(t.lines)  # nor can the audit: it counts the stall (STALL_CAP bounds them)
    assert report.ok and report.stalls == ((1, 1),), report.summary


def test_a_host_that_gives_up_in_the_reveal_phase_is_convicted_by_everyone_and_the_audit():
    t = _table("give-up")
    t.start_match()
    _to_reveals(t)
    t.seats[1].owed()
    out = [t.host.dealer.abort("the host gave up")]  # names nobody (its own match ledger would refuse it)
    t.host._publish(out)
    t.broadcast(out)
    for p in t.everyone:
        v = p.violation
        assert v is not None and v.seat is None, p.seat
        assert "gives up round 1 in its seed reveals" in v.reason, v.reason
    # the record stops at the abort: it blames nobody until the host signs a round after it
    assert_convicted_when_signed(t.lines, t.host.identity, line=_abort_line(t), match="a re-deal on demand",
                                 auditor=audit_transcript)


def _stall_twice(t: LocalTable) -> None:
    """Seat 1 (a colluder, or a broken client) stalls its reveal in two attempts of round 1;
    each time the honest host's clock aborts naming it."""
    t.start_match()
    for _ in range(STALL_CAP):
        _to_reveals(t)
        t.broadcast(t.host.timeout(1, "reveal-seed"))
    assert not any(p.violation for p in t.everyone)


def test_a_seat_that_stalls_its_reveal_too_often_is_dealt_absent_and_the_round_goes_on():
    t = _table("stall-cap")
    _stall_twice(t)
    rnd = t.start_round()  # attempt 3: seat 1 gives no seed now
    assert (t.host.round_no, t.host.attempt) == (1, STALL_CAP + 1)
    assert t.host.dealer.ledger.start.absent == (1,)
    rnd.start()
    play_round(rnd, [make_bot("heuristic", f"cap/{s}") for s in range(3)])
    assert not t.violations, t.violations
    report = audit_transcript(t.lines)
    assert report.ok and report.aborts == STALL_CAP and report.stalls == ((1, STALL_CAP),), report.summary


def test_a_host_that_keeps_a_repeated_staller_in_is_caught_at_the_round_start():
    """The host keeps the colluder in: it could abort a third time once it saw the deck."""
    t = _table("stall-keep")
    _stall_twice(t)
    host = t.host
    host.match.must_be_absent = lambda: []
    host.match.check_round_start = lambda ev, line=None: None
    t.broadcast(host.start_round())
    for p in t.everyone:
        if p.seat == 1:
            continue
        v = p.violation
        assert v is not None and v.seat is None, p.seat
        assert "is dealt absent" in v.reason and p.violation_event.EV == "round-start", v.reason
    start = max(i for i, e in enumerate(host.events, 1) if e.EV == "round-start")
    assert_convicted_when_signed(t.lines, host.identity, line=start, auditor=audit_transcript)


def test_no_round_is_tried_more_than_the_cap():
    """Give-ups before any reveal tell the host nothing of the deck, but they are bounded too."""
    t = _table("attempt-cap")
    t.start_match()
    for _ in range(MAX_ATTEMPTS):
        t.broadcast(t.host.start_round())
        t.broadcast(t.host.abort("the host gave up"))
    assert not any(p.violation for p in t.everyone)
    t.host.match.check_round_start = lambda ev, line=None: None
    t.broadcast(t.host.start_round())
    for p in t.everyone:
        assert p.violation is not None and f"tried at most {MAX_ATTEMPTS} times" in p.violation.reason, p.seat
    report = audit_transcript(t.lines)
    assert not report.ok and f"tried at most {MAX_ATTEMPTS} times" in report.reason, report.summary


@pytest.mark.parametrize("phase", ["seed-commits", "seed-reveals"])
def test_a_late_seed_message_of_an_aborted_attempt_is_refused_not_a_cheat(phase):
    """Class 8: a seat's seed message that raced the host's abort (it arrives in the next
    attempt) is refused without naming the seat, and the seat then gives its new one."""
    from unonet.table import Refusal

    t = _table(f"late-{phase}")
    t.start_match()
    t.broadcast(t.host.start_round())
    if phase == "seed-commits":
        for s in (0, 2):
            t.send(s, t.seats[s].owed()[0])
        (late,) = t.seats[1].owed()
        t.seats[1].verifier._commits.clear()  # (see below)
        t.broadcast(t.host.timeout(1, "commit-seed"))
    else:
        for s in range(3):
            t.send(s, t.seats[s].owed()[0])
        for s in (0, 2):
            t.send(s, t.seats[s].owed()[0])
        (late,) = t.seats[1].owed()
        # the message was in flight past the seed clock (the seat itself would refuse the
        # abort then: docs/fair-play.md §11.13 says when that can happen to an honest host)
        t.seats[1].verifier._revealed.clear()
        t.broadcast(t.host.timeout(1, "reveal-seed"))
    assert not any(p.violation for p in t.everyone)
    t.broadcast(t.host.start_round())
    with pytest.raises(Refusal):
        t.host.receive(1, late)
    t.pump()
    assert t.host.dealer.ledger.phase.value == "live" and not any(p.violation for p in t.everyone)
