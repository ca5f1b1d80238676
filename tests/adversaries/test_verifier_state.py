"""A verifier's state is unchanged after a FairPlayViolation (demo5); judging without a
usable response is the layer's own error; a timeout the cards contradict is flagged."""

import dataclasses

import pytest

from unonet.fair import FairPlayViolation, FairStateError, audit

from .helpers import DECKS, signed_response, table, w4_table


def _state(v):
    lg = v.ledger
    return (lg.digest, lg.phase, [dataclasses.astuple(p) for p in lg.positions], lg.counts.copy(),
            dict(v._known), {k: list(x) for k, x in v._evidence.items()},
            [(c.answered, c.guilty) for c in lg.challenges])


def test_a_deal_that_does_not_open_leaves_the_holder_unchanged():
    """demo5: the bad deal used to be recorded first, leaving a 'held' card with no opening."""
    t = table(2, seed="demo5")
    t.start()
    ev = t.dealer.deal(0)
    forged = dataclasses.replace(ev, sealed=ev.sealed[:-1] + bytes([ev.sealed[-1] ^ 1]))
    v = t.verifiers[0]
    before = _state(v)
    with pytest.raises(FairPlayViolation, match="does not open for seat 0"):
        v.receive(forged)
    assert _state(v) == before
    assert v.ledger.held_by(0) == () and v.hand == {}
    v.receive(ev)  # the genuine deal still goes through
    assert list(v.hand) == [ev.position]


def test_a_challenge_response_that_does_not_open_leaves_the_challenger_unchanged():
    t, w4 = w4_table(guilty=True, strict=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    good = t.verifiers[0].answer_challenge()
    garbage, _ = signed_response(t, sealed=bytes(len(good.sealed)))
    v = t.verifiers[1]
    v.dispute_bad_responses = False  # raise instead of disputing
    before = _state(v)
    with pytest.raises(FairPlayViolation, match="does not open for the challenger"):
        v.receive(garbage)
    assert _state(v) == before and v.pending_action is None
    v.receive(good)
    assert v.pending_action == "judge-challenge" and v.judge_challenge().guilty


def test_judging_without_a_usable_response_is_a_state_error_not_a_key_error():
    t, w4 = w4_table(guilty=True, strict=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    good = t.verifiers[0].answer_challenge()
    v = t.verifiers[1]
    v.ledger.apply(good)  # recorded without the evidence (as a verifier built before the fix would)
    with pytest.raises(FairStateError, match="no usable response"):
        v.judge_challenge()


def test_a_false_verdict_leaves_the_challenger_unchanged():
    t, w4 = w4_table(guilty=True)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(t.verifiers[0].answer_challenge(), 0)
    v = t.verifiers[1]
    lie = dataclasses.replace(v.judge_challenge(), guilty=False, proof=None)
    before = _state(v)
    with pytest.raises(FairPlayViolation, match="a challenge-verdict in seat 1's name that seat 1 never made"):
        v.receive(lie)
    assert _state(v) == before


def test_a_timeout_the_cards_contradict_is_flagged_at_round_end():
    """The host withheld an innocent seat's answer and called a timeout: the audit flags it."""
    t, w4 = w4_table(guilty=False)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.publish([t.dealer.challenge_timeout()])  # seat 0's answer never forwarded
    t.finish()
    r = audit(t.lines, decks=DECKS)
    assert r.ok and len(r.flags) == 1
    assert "found guilty by a timeout, but its cards show its wild draw was legal" in r.flags[0]
    assert "flagged: line" in r.summary
    # a guilty seat that times out is not flagged
    t, w4 = w4_table(guilty=True)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.publish([t.dealer.challenge_timeout()])
    t.finish()
    assert audit(t.lines, decks=DECKS).flags == ()
