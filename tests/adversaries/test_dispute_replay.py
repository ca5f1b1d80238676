"""A challenger's dispute names the challenge it disputes (spec §6.1.1 `challenge-dispute.number`).

Before, a `challenge-dispute` signed the two seats and the round digest it was made at
(`seen`), nothing of which challenge: a host holding a challenger's dispute from an earlier
challenge of the round attempt between the same two seats could relay it again in a later one,
in place of the challenger's verdict. Every verifier took it (a good signature, a digest the
round had) - the challenger's own too, as it had made those very bytes - the challenged seat
disclosed its key, its response stood, and the honest challenger lost the challenge and was
recorded (at every seat, the scorekeeper and the audit) as the maker of a false claim."""

from __future__ import annotations

from unonet.fair import audit
from unonet.fair.testing import FairTable

from .helpers import DECKS, SMALL, signed_response


def _two_wild_fours():
    """Seat 0 holds two Wild Draw Fours (and a G card: guilty both times)."""
    for i in range(400):
        t = FairTable(2, seed=f"adv-dispute-replay-{i}", deck_name="small", deck=SMALL, strict=False)
        t.start()
        t.deal_hands(6)
        hand = t.dealer.hand(0)
        w4 = [j for j, c in hand.items() if c.secret == "W+4"]
        if len(w4) >= 2 and any(c.secret.startswith("G") for c in hand.values()):
            return t, w4
    raise AssertionError("no seed found")


def _challenge_zero_disputed():
    """Challenge 0 of seat 0's first Wild Draw Four: seat 0 (in league with the host) answers
    garbage and seat 1 disputes it honestly; the dispute, on its way to the host, and the rest."""
    t, (w4a, w4b, *_) = _two_wild_fours()
    v0, v1 = t.verifiers
    t.turn_up()
    t.play(0, w4a)
    t.publish([t.dealer.challenge(1, 0, "G")])
    good = v0.answer_challenge()
    garbage, _ = signed_response(t, sealed=bytes(len(good.sealed)))
    t.send(garbage, 0)
    assert v1.pending_action == "dispute-challenge"
    return t, v0, v1, w4b, v1.dispute_challenge()


def _replayed_dispute():
    """Challenge 0: seat 0 (in league with the host) answers garbage, seat 1 disputes it
    honestly, seat 0 never discloses its key (guilty). Challenge 1: seat 0 answers honestly,
    seat 1 judges it guilty; the host withholds that verdict and relays seat 1's dispute of
    challenge 0 instead."""
    t, v0, v1, w4b, old = _challenge_zero_disputed()
    t.send(old, 1)
    t.publish([t.dealer.challenge_timeout()])
    assert t.dealer.ledger.challenges[0].guilty and not t.violations
    t.play(0, w4b)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(v0.answer_challenge(), 0)
    assert v1.pending_action == "judge-challenge"
    verdict = v1.judge_challenge()  # on its way to the host, which sits on it
    assert verdict.guilty
    t.dealer.check_self = False
    t.publish([old])
    return t, old


def test_a_dispute_names_its_challenge():
    t, old = _replayed_dispute()
    assert old.number == 0


def test_a_dispute_from_an_earlier_challenge_relayed_again_convicts_the_host_not_the_challenger():
    t, _ = _replayed_dispute()
    who = {w for w, _ in t.violations}
    assert who == {"seat 0", "seat 1", "observer"}, t.violations
    for _, exc in t.violations:
        assert exc.seat is None and "the host relayed" in exc.reason and "replayed" in exc.reason, exc.reason
    for v in t.everyone:
        assert 1 not in v.ledger.false_claims
    # the offline audit names the host at the relayed dispute's line, never seat 1
    report = audit(t.lines, decks=DECKS)
    assert not report.ok and report.seat is None and "replayed" in report.reason, report.summary
    assert report.line == len(t.lines), report.summary


def test_the_host_refuses_a_seat_sending_its_old_dispute_again():
    """On the challenger's own link the same replay is the challenger's doing: the host refuses
    it, blaming that seat (it signed it)."""
    import pytest

    from unonet.fair import FairPlayViolation

    t, v0, v1, w4b, old = _challenge_zero_disputed()
    t.send(old, 1)
    t.publish([t.dealer.challenge_timeout()])
    t.play(0, w4b)
    t.publish([t.dealer.challenge(1, 0, "G")])
    t.send(v0.answer_challenge(), 0)
    with pytest.raises(FairPlayViolation) as info:
        t.dealer.accept(old, 1)
    assert info.value.seat == 1 and "replayed" in info.value.reason
