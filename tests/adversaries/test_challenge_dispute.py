"""A challenge response that does not open for the challenger must not jam the round (demo1).

The challenged seat signs its response; the challenger disputes it; the challenged seat must
then publish the seal's ephemeral private key (signed), so anyone can open the response.
Refusal (a timeout) or a response that does not stand makes it guilty."""

import dataclasses

import pytest

from unonet.fair import ChallengeVerdict, FairPlayViolation, audit

from .helpers import DECKS, signed_response, w4_table


def _challenged(guilty=True):
    t, w4 = w4_table(guilty=guilty)
    t.turn_up()
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    return t


def test_garbage_response_disputed_then_refused_is_guilty():
    """demo1: the garbage answer used to leave the challenger with a KeyError and no way out."""
    t = _challenged()
    good = t.verifiers[0].answer_challenge()
    garbage, _ = signed_response(t, sealed=bytes(len(good.sealed)))
    t.send(garbage, 0)
    v = t.verifiers[1]
    assert v.pending_action == "dispute-challenge"
    t.send(v.dispute_challenge(), 1)
    assert t.dealer.ledger.challenge.disputed
    t.publish([t.dealer.challenge_timeout()])  # seat 0 will not disclose its key
    ch = t.dealer.ledger.challenges[-1]
    assert ch.guilty and ch.timed_out
    t.finish()
    r = audit(t.lines, decks=DECKS)
    assert r.ok and r.flags == (), r.summary


def test_garbage_response_with_a_disclosed_key_is_guilty_for_everyone():
    t = _challenged()
    good = t.verifiers[0].answer_challenge()
    garbage, key = signed_response(t, sealed=b"\x07" * 32 + bytes(len(good.sealed) - 32))
    t.send(garbage, 0)
    t.send(t.verifiers[1].dispute_challenge(), 1)
    t.send(key(), 0)  # a key that is not the seal's
    for v in t.everyone:
        ch = v.ledger.challenges[-1]
        assert ch.guilty and "does not stand" in ch.resolution
    t.finish()
    assert audit(t.lines, decks=DECKS).ok


@pytest.mark.parametrize("guilty", [False, True])
def test_a_false_dispute_opens_the_honest_hand_and_costs_the_challenger_the_challenge(guilty):
    """The response stands: the challenger lied about it, so it loses the challenge even
    against a guilty hand (it saw that hand when it disputed), and the audit flags it."""
    t = _challenged(guilty=guilty)
    t.send(t.verifiers[0].answer_challenge(), 0)
    v1 = t.verifiers[1]
    assert v1.pending_action == "judge-challenge"
    v1._unopened[t.dealer.ledger.challenge.number] = "pretend"  # a challenger lying about the response
    t.send(v1.dispute_challenge(), 1)
    v0 = t.verifiers[0]
    assert v0.pending_action == "disclose-key"
    t.send(v0.disclose_challenge_key(), 0)
    for v in t.everyone:
        ch = v.ledger.challenges[-1]
        assert ch.guilty is False and "the challenger's dispute was false" in ch.resolution
        assert v.ledger.false_claims == {1: 1}
    assert all(t.observer.ledger.positions[j].public_card is not None for j in ch.positions)
    t.finish()
    report = audit(t.lines, decks=DECKS)
    assert report.ok and any("seat 1 disputed seat 0's challenge response" in f for f in report.flags)


def test_the_host_cannot_forge_a_response_or_a_key():
    t = _challenged()
    good = t.verifiers[0].answer_challenge()
    forged = dataclasses.replace(good, sealed=bytes(len(good.sealed)))  # the seat's signature no longer fits
    with pytest.raises(FairPlayViolation, match="challenge response is not signed by seat 0"):
        t.publish([forged])
    t2 = _challenged()
    garbage, key = signed_response(t2, sealed=bytes(len(good.sealed)))
    t2.send(garbage, 0)
    t2.send(t2.verifiers[1].dispute_challenge(), 1)
    bad_key = dataclasses.replace(key(), sig=bytes(64))
    with pytest.raises(FairPlayViolation, match="challenge key is not signed by seat 0"):
        t2.publish([bad_key])


def test_no_verdict_during_a_dispute_and_no_dispute_without_a_response():
    t = _challenged()
    from unonet.fair import ChallengeDispute
    with pytest.raises(FairPlayViolation, match="before the response"):
        t.dealer.accept(ChallengeDispute(challenger=1, challenged=0), 1)
    t.send(t.verifiers[0].answer_challenge(), 0)
    t.send(t.verifiers[1]._signed(ChallengeDispute(challenger=1, challenged=0)), 1)
    with pytest.raises(FairPlayViolation, match="during a dispute"):
        t.dealer.accept(ChallengeVerdict(challenger=1, challenged=0, guilty=False), 1)
    with pytest.raises(FairPlayViolation, match="names seat 1 as the challenged seat, but seat 0 sent it|but seat"):
        t.dealer.accept(dataclasses.replace(t.verifiers[0].disclose_challenge_key(), challenged=1), 0)
