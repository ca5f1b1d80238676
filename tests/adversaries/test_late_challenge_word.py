"""A seat's challenge word that comes in after the host's clock settled its challenge, while a
later challenge of the round is open, is late, never a cheat (redhost19).

The host refused, without naming the seat, a challenge answer that raced its `challenge-timeout`
and a verdict that raced its `verdict-timeout` (issue 22 class 8) -- but only while no other
challenge was open: the phase check (`ALLOWED`) let the late word through whenever the round was
in a challenge again, and the ledger then checked it against *that* challenge ("challenge
response names the wrong seats", "... is not signed by seat 0", "challenge verdict signed for
challenge 0, given in challenge 1 (... replayed)"), on the seat's own link: the honest host
dropped the honest seat as a cheat.  Reachable at any table of 3 or more: seat A plays a Wild
Draw Four on B, B challenges, A's answer is late (a process held up, a slow uplink: the seat
reads the challenge from a backlog and answers it) and the 10 s clock finds A guilty; B plays on
at once (its turn after a won challenge) and lays a Wild Draw Four on C, who challenges -- no act
of A's needed -- and A's answer then arrives.  Now a challenge word that verifies over an
earlier challenge of the round, one the host's clock settled against that very word, is refused
`stale`; one that verifies over no challenge is still a forgery."""

from __future__ import annotations

import dataclasses

import pytest

from unonet.fair import ChallengeDispute, FairPlayViolation, FairStateError
from unonet.fair.testing import FairTable

from .helpers import SMALL


def _table(seed: str):
    """3 seats, small deck, seats 0 and 1 each holding a Wild Draw Four."""
    for i in range(300):
        t = FairTable(3, seed=f"{seed}-{i}", deck_name="small", deck=SMALL)
        t.start()
        t.deal_hands(5)
        w4 = [[j for j, c in t.dealer.hand(s).items() if c.secret == "W+4"] for s in range(3)]
        if w4[0] and w4[1]:
            t.turn_up()
            return t, w4
    raise AssertionError("no seed found")


def _second_challenge(t, w4):
    """Seat 1 lays its Wild Draw Four on seat 2, who challenges: challenge 1 is open."""
    t.play(1, w4[1][0])
    t.publish([t.dealer.challenge(2, 1, "G")])
    assert t.dealer.ledger.challenge.number == 1


def _late_answer(seed):
    t, w4 = _table(seed)
    t.play(0, w4[0][0])
    t.publish([t.dealer.challenge(1, 0, "G")])
    late = t.verifiers[0].answer_challenge()  # made ... and held up on its way
    t.verifiers[0].held_up = True
    t.publish([t.dealer.challenge_timeout()])  # the host's clock: guilty
    t.verifiers[0].held_up = False
    _second_challenge(t, w4)
    return t, late


def test_an_answer_that_raced_its_timeout_is_refused_stale_while_another_challenge_is_open():
    t, late = _late_answer("late-answer")
    with pytest.raises(FairStateError, match="stale"):
        t.dealer.accept(late, 0)
    assert t.dealer.late_challenge_word(late, 0)
    # the open challenge goes on: seat 1 answers, seat 2 judges, nobody is named
    t.send(t.verifiers[1].answer_challenge(), 1)
    t.send(t.verifiers[2].judge_challenge(), 2)
    assert t.dealer.ledger.challenge is None and not t.violations


def test_an_answer_signed_over_no_challenge_is_still_a_forgery():
    t, late = _late_answer("late-answer-forged")
    with pytest.raises(FairPlayViolation) as caught:
        t.dealer.accept(dataclasses.replace(late, sig=bytes(64)), 0)
    assert caught.value.seat == 0


def test_a_verdict_that_raced_its_timeout_is_refused_stale_while_another_challenge_is_open():
    t, w4 = _table("late-verdict")
    t.play(0, w4[0][0])
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    late = t.verifiers[1].judge_challenge()  # held up on its way
    t.verifiers[1].held_up = True  # (its word left late: it does not contest the timeout)
    t.publish([t.dealer.verdict_timeout()])
    t.verifiers[1].held_up = False
    _second_challenge(t, w4)
    with pytest.raises(FairStateError, match="stale"):
        t.dealer.accept(late, 1)
    assert t.dealer.late_challenge_word(late, 1)


def test_a_key_that_raced_its_timeout_is_refused_stale_while_another_challenge_is_open():
    """Seat 1 disputes seat 0's answer (a lie, or its own bad luck: nothing here depends on
    it); seat 0's key is late, the host's clock finds it guilty; challenge 1 opens; the key
    comes in."""
    t, w4 = _table("late-key")
    t.play(0, w4[0][0])
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    v1 = t.verifiers[1]
    t.send(v1._signed(ChallengeDispute(challenger=1, challenged=0, seen=v1.ledger.digest, number=0)), 1)
    late = t.verifiers[0].disclose_challenge_key()
    t.verifiers[0].held_up = True
    t.publish([t.dealer.challenge_timeout()])
    t.verifiers[0].held_up = False
    _second_challenge(t, w4)
    with pytest.raises(FairStateError, match="stale"):
        t.dealer.accept(late, 0)


def test_a_word_for_the_open_challenge_is_taken_as_before():
    """(No word of an open challenge is taken for a late one.)"""
    t, w4 = _table("open-word")
    t.play(0, w4[0][0])
    t.publish([t.dealer.challenge(1, 0, "G")])
    answer = t.verifiers[0].answer_challenge()
    assert not t.dealer.late_challenge_word(answer, 0)
    t.send(answer, 0)
    assert t.dealer.ledger.challenge.answered


def test_the_table_host_refuses_the_late_answer_stale_and_plays_on():
    """The same through `TableHost` (what the net host runs: a `Refusal` is a non-fatal `error`
    to that seat; a `FairPlayViolation` the seat's drop as a cheat): bots play a 3-seat round;
    the first Wild Draw Four is challenged and its answer held up until the host's clock finds
    the seat guilty; play goes on to the next challenge, and the answer comes in then."""
    from unonet.engine import Challenge
    from unonet.table import Refusal, TableHost
    from unonet.table._round import action_json

    from .test_live_replay import BluffBot, _play_until, _table

    for k in range(60):
        t = _table(TableHost, f"late-word-{k}", players=3)
        t.start_round().start()
        bots = [BluffBot(f"late-word-{k}/{s}") for s in range(3)]
        if not _play_until(t, bots, lambda: t.host.round.phase.value == "challenge"):
            continue
        rnd = t.host.round
        nxt, challenged = rnd.turn, rnd.wild_four.seat
        t.send(nxt, t.seats[nxt].act(action_json(rnd, Challenge(nxt))))
        (late,) = t.seats[challenged].owed()  # made, and held up on its way
        assert late.EV == "challenge-response"
        t.seats[challenged].held_up = True  # (it left late: the seat does not contest the timeout)
        t.broadcast(t.host.timeout(challenged, "answer-challenge"))
        t.seats[challenged].held_up = False
        # the next Wild Draw Four, challenged by whoever is next -- unless it is the late seat
        # (its act would follow its answer on its link)
        if not _play_until(t, bots, lambda: t.host.round.phase.value == "challenge"):
            continue
        rnd = t.host.round
        nxt2 = rnd.turn
        if challenged in (nxt2, rnd.wild_four.seat):
            continue
        t.send(nxt2, t.seats[nxt2].act(action_json(rnd, Challenge(nxt2))))
        assert t.host.dealer.ledger.challenge is not None and t.host.dealer.ledger.challenge.number == 1
        with pytest.raises(Refusal) as refused:
            t.host.receive(challenged, late)
        assert refused.value.code == "stale", refused.value
        t.pump()  # challenge 1 is answered and judged; nobody is named
        assert t.host.dealer.ledger.challenge is None
        assert not t.violations and all(p.violation is None for p in t.everyone)
        return
    pytest.fail("no two challenges in a row between the other seats in 60 rounds")
