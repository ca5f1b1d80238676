"""Cheating players: caught by the host, by every peer, and by the audit."""

import dataclasses

import pytest

from unonet.fair import Card, ChallengeResponse, FairPlayViolation, Opening

from .helpers import signed_play, signed_response, assert_audit_fails, seal_challenge, started, w4_table


def test_player_plays_a_card_never_dealt():
    t = started(seed="undealt")
    j = t.dealer.next_position()  # still in the draw pile
    leaked = t.dealer.opening(j)  # even with the true opening (say, from a colluding host)
    play = signed_play(t, 1, leaked)
    with pytest.raises(FairPlayViolation, match=f"seat 1 does not hold position {j}: it was never dealt to seat 1") as ei:
        t.dealer.accept(play, 1)
    assert (ei.value.seat, ei.value.position) == (1, j)
    with pytest.raises(FairPlayViolation, match="never dealt"):
        t.publish([play])
    assert_audit_fails(t.lines, line=len(t.lines), match=f"seat 1 does not hold position {j}", signer=t.host_identity)


def test_player_plays_a_card_dealt_to_someone_else():
    t = started(seed="other")
    j = min(t.dealer.hand(2))
    with pytest.raises(FairPlayViolation, match=f"does not hold position {j}: it is held by seat 2"):
        t.dealer.accept(signed_play(t, 1, t.dealer.opening(j)), 1)


def test_player_invents_an_opening():
    t = started(seed="invent")
    j = min(t.verifiers[0].hand)
    fake = Opening(j, Card("W+4"), bytes(32))
    with pytest.raises(FairPlayViolation, match=f"play of position {j} \\(seat 0\\) opens to 'W\\+4' but its commitment says otherwise"):
        t.dealer.accept(signed_play(t, 0, fake), 0)


def test_player_alters_a_played_card():
    t = started(seed="palter")
    real = t.verifiers[1].play(min(t.verifiers[1].hand))
    altered = signed_play(t, 1, dataclasses.replace(real.opening, card=Card("W")))
    with pytest.raises(FairPlayViolation, match="opens to 'W' but its commitment says otherwise") as ei:
        t.dealer.accept(altered, 1)
    assert ei.value.seat == 1


def test_player_replays_an_old_opening():
    t = started(seed="replay")
    j = min(t.verifiers[0].hand)
    old = t.verifiers[0].play(j)
    t.send(old, 0)
    with pytest.raises(FairPlayViolation, match="act 0 of seat 0, but its next act is number 1 \\(replayed\\)"):
        t.dealer.accept(old, 0)  # the very same signed act
    again = signed_play(t, 0, old.opening)  # signed afresh, as act 1
    with pytest.raises(FairPlayViolation, match=f"seat 0 does not hold position {j}: seat 0 already played it"):
        t.dealer.accept(again, 0)
    with pytest.raises(FairPlayViolation, match="an opening cannot be replayed"):
        t.publish([again])
    assert_audit_fails(t.lines, line=len(t.lines), match=f"already played it on line {len(t.lines) - 1}", signer=t.host_identity)




def test_player_hides_a_matching_card_in_a_challenge_is_named_by_the_challenger():
    t, w4 = w4_table(guilty=True)
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    held = t.dealer.ledger.challenge.positions
    hidden = next(j for j in held if t.dealer.card(j).secret.startswith("G"))
    other = next(j for j in held if j != hidden)
    # another card shown twice in its place: the response keeps its padded size
    shown = [t.dealer.opening(other if j == hidden else j) for j in held]
    resp, key = signed_response(t, shown)
    t.send(resp, 0)
    v = t.verifiers[1]
    reason = v._unopened[t.dealer.ledger.challenge.number]
    assert "challenge response from seat 0 shows positions" in reason and f"(hides [{hidden}])" in reason
    assert v.pending_action == "dispute-challenge"  # not jammed: the challenger disputes
    t.send(v.dispute_challenge(), 1)
    t.send(key(), 0)  # the disclosed key shows everyone the short hand
    ch = t.dealer.ledger.challenges[-1]
    assert ch.guilty and "does not stand" in ch.resolution and str(list(held)) in ch.resolution


def test_player_swaps_a_card_in_a_challenge_response():
    t, w4 = w4_table(guilty=True)
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    held = t.dealer.ledger.challenge.positions
    shown = [t.dealer.opening(j) for j in held]
    k = next(i for i, o in enumerate(shown) if o.card.secret.startswith("G"))
    shown[k] = dataclasses.replace(shown[k], card=Card("B9"))
    resp, key = signed_response(t, shown)
    t.send(resp, 0)
    v = t.verifiers[1]
    assert f"challenge response of position {held[k]} (from seat 0) opens to 'B9'" in \
        v._unopened[t.dealer.ledger.challenge.number]
    t.send(v.dispute_challenge(), 1)
    t.send(key(), 0)
    ch = t.dealer.ledger.challenges[-1]
    assert ch.guilty and "opens to 'B9'" in ch.resolution


def test_player_lists_a_short_hand_in_public():
    t, w4 = w4_table(guilty=True)
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "G")])
    held = t.dealer.ledger.challenge.positions
    short = held[1:]
    resp = ChallengeResponse(challenger=1, challenged=0, positions=short,
                             sealed=seal_challenge(t, [t.dealer.opening(j) for j in short]))
    with pytest.raises(FairPlayViolation, match="challenge response lists positions") as ei:
        t.dealer.accept(resp, 0)
    assert ei.value.seat == 0
