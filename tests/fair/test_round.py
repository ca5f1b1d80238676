"""Whole honest rounds through FairDealer + FairVerifier + audit."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from unonet.fair import (
    Card, Deal, FairStateError, FairVerifier, Phase, PlayerCommit, SeedCommit, audit, classic_deck,
)
from unonet.fair.testing import FairTable

SMALL = tuple(Card(f) for f in ["G1", "G2", "G3", "Y5", "W+4", "W+4", "W+4", "W", "B9", "B8"] * 3)


def test_honest_round_audits_clean_and_everyone_agrees():
    t = FairTable(4)
    t.play_simple_round(plays=8, draws=4)
    report = audit(t.lines)
    assert report.ok, report.summary
    assert (report.rounds, report.positions, report.deals, report.plays) == (1, 108, 32, 8)
    assert report.summary.startswith("clean: 1 round, 108 positions, 32 deals, 8 plays")
    digests = {v.ledger.digest for v in t.everyone} | {t.dealer.ledger.digest}
    assert len(digests) == 1
    assert all(v.phase is Phase.ENDED for v in t.everyone)
    # after round end every card is known to everyone and matches the host's deck
    assert t.observer.ledger.cards == {j: t.dealer.card(j) for j in range(108)}


def test_each_seat_learns_only_its_own_cards_and_the_log_leaks_nothing():
    t = FairTable(3, seed="privacy")
    t.start()
    t.deal_hands()
    for s, v in enumerate(t.verifiers):
        assert v.hand == t.dealer.hand(s) and len(v.hand) == 7
        for other in range(3):
            if other != s:
                assert all(v.card(j) is None for j in t.dealer.hand(other))
    assert all(t.observer.card(j) is None for j in range(21))
    text = "\n".join(t.lines)
    for j in range(21):
        assert t.dealer.opening(j).salt.hex() not in text
        assert f'"{t.dealer.card(j).secret}"' not in text.split("\n", 1)[1]  # only the deck list names faces
    deal = t.events[-1]
    assert isinstance(deal, Deal) and set(deal.to_json()) == {"ev", "position", "seat", "sealed", "public"}


def test_players_commit_before_anyone_reveals():
    t = FairTable(3)
    t.publish(t.dealer.start())
    v0, v1, v2 = t.verifiers
    assert [v.pending_action for v in t.verifiers] == ["commit-seed"] * 3
    t.send(v0.commit_seed(), 0)
    with pytest.raises(FairStateError):
        v0.reveal_seed()  # not before everyone has committed
    t.send(v1.commit_seed(), 1)
    t.send(v2.commit_seed(), 2)
    assert [v.pending_action for v in t.verifiers] == ["reveal-seed"] * 3
    for v in t.verifiers:
        t.send(v.reveal_seed(), v.seat)
    assert t.observer.phase is Phase.LIVE and all(v.pending_action is None for v in t.verifiers)


def test_host_seat_does_not_contribute_and_still_plays():
    t = FairTable(3, host_seat=0, seed="hostseat")
    t.start()
    commits = [e for e in t.events if isinstance(e, PlayerCommit)]
    assert sorted(e.seat for e in commits) == [1, 2]
    t.deal_hands()
    t.turn_up()
    t.play(0, min(t.verifiers[0].hand))
    t.finish()
    assert audit(t.lines).ok


def test_lonely_host_shuffles_without_contributions():
    t = FairTable(1, host_seat=0, seed="alone")
    t.start()
    assert t.observer.phase is Phase.LIVE
    t.deal_hands(3)
    t.finish()
    assert audit(t.lines).ok


def test_discard_reshuffle_continues_position_numbers():
    t = FairTable(2, seed="reshuffle")
    t.start()
    t.deal_hands()
    top = t.turn_up()
    while t.dealer.next_position() is not None:
        t.draw(0)
    discards = [top]
    for j in sorted(t.verifiers[0].hand)[:5]:
        t.play(0, j)
        discards.append(j)
    t.reshuffle(discards[:-1])  # the top discard stays
    seed_commit = [e for e in t.events if isinstance(e, SeedCommit)][-1]
    assert (seed_commit.epoch, seed_commit.base, seed_commit.sources) == (1, 108, tuple(sorted(discards[:-1])))
    j = t.draw(1)
    assert j == 108
    assert t.verifiers[1].card(j) in [t.dealer.card(k) for k in discards[:-1]]
    t.play(1, j)
    with pytest.raises(Exception):
        t.play(0, discards[0])
    t.finish()
    report = audit(t.lines)
    assert report.ok and report.positions == 108 + 5


def test_wild_draw_four_first_discard_goes_back_and_the_pile_reshuffles():
    t = FairTable(2, seed="w4first-1")  # turns up a Wild Draw Four
    t.start()
    t.deal_hands()
    top = t.turn_up()
    rest = list(range(t.dealer.next_position(), 108))
    t.reshuffle([top] + rest)
    second = t.turn_up()
    assert second == 108
    t.draw(0)
    t.finish()
    r = audit(t.lines)
    assert r.ok and r.positions == 108 + 1 + len(rest)
    # the reshuffled epoch holds exactly the cards it was built from
    new = sorted(t.observer.ledger.cards[j].code() for j in range(108, r.positions))
    assert new == sorted(t.dealer.card(j).code() for j in [top] + rest)


def _table_with_w4(colour_cards_in_hand: bool) -> tuple[FairTable, int]:
    """Find a seed where seat 0 is dealt a W+4 (and does / does not hold a G card)."""
    for i in range(200):
        t = FairTable(2, seed=f"w4-{i}", deck_name="small", deck=SMALL)
        t.start()
        t.deal_hands(5)
        hand = t.verifiers[0].hand
        w4 = [j for j, c in hand.items() if c.secret == "W+4"]
        has_g = any(c.secret.startswith("G") for c in hand.values())
        if w4 and has_g == colour_cards_in_hand:
            return t, w4[0]
    raise AssertionError("no suitable seed")


@pytest.mark.parametrize("guilty", [True, False])
def test_wild_draw_four_challenge_on_evidence(guilty):
    t, w4 = _table_with_w4(colour_cards_in_hand=guilty)
    t.play(0, w4)
    held = sorted(t.verifiers[0].hand)
    t.challenge(1, 0, "G")
    verdict = t.events[-1]
    assert verdict.guilty is guilty
    if guilty:
        assert verdict.proof.position in held and verdict.proof.card.secret.startswith("G")
        assert t.observer.card(verdict.proof.position) == verdict.proof.card  # published as proof
    else:
        assert verdict.proof is None
    # nobody but the challenger learnt the rest of the hand
    others = [j for j in held if verdict.proof is None or j != verdict.proof.position]
    assert all(t.verifiers[1].card(j) == t.dealer.card(j) for j in held)
    assert all(t.observer.card(j) is None for j in others)
    t.finish()
    assert audit(t.lines, decks={"small": SMALL}).ok


def test_challenge_timeout_is_a_guilty_verdict():
    t, w4 = _table_with_w4(colour_cards_in_hand=False)
    t.play(0, w4)
    t.publish([t.dealer.challenge(1, 0, "R")])
    assert t.verifiers[0].pending_action == "answer-challenge"
    t.publish([t.dealer.challenge_timeout()])
    ch = t.observer.ledger.challenges[-1]
    assert ch.guilty and ch.timed_out and t.observer.phase is Phase.LIVE
    t.finish()
    assert audit(t.lines, decks={"small": SMALL}).ok


def test_challenge_of_a_play_that_is_not_a_wild_draw_four_is_refused():
    t = FairTable(2, seed="notw4", deck_name="small", deck=SMALL)
    t.start()
    t.deal_hands(5)
    j = next(j for j, c in t.verifiers[0].hand.items() if c.secret != "W+4")
    t.play(0, j)
    with pytest.raises(Exception, match="not a W\\+4"):
        t.dealer.challenge(1, 0, "G")


def test_flip_cards_show_their_public_face_and_it_is_checked():
    deck = tuple(Card(f"R{i % 10}", f"P{i % 7}") for i in range(30))
    t = FairTable(2, seed="flip", deck_name="flip-test", deck=deck)
    t.start()
    t.deal_hands(3)
    deals = [e for e in t.events if isinstance(e, Deal)]
    assert all(d.public == t.dealer.card(d.position).public for d in deals)
    t.publish([t.dealer.reveal(0)])  # a Flip card turns hands: open them publicly, keep holding them
    assert all(t.observer.card(j) is not None for j in t.verifiers[0].hand)
    t.play(0, min(t.verifiers[0].hand))
    t.finish()
    assert audit(t.lines, decks={"flip-test": deck}).ok


def test_observer_and_misuse_errors():
    with pytest.raises(ValueError):
        FairVerifier(seat=0)
    t = FairTable(2)
    t.start()
    with pytest.raises(FairStateError):
        t.observer.play(0)
    with pytest.raises(FairStateError):
        t.verifiers[0].play(99)
    with pytest.raises(FairStateError):
        t.verifiers[0].commit_seed()
    with pytest.raises(FairStateError):
        t.dealer.start()


def test_a_match_of_rounds_in_one_transcript():
    t1 = FairTable(3, seed="m", round_no=1)
    t1.play_simple_round()
    t2 = FairTable(3, seed="m", round_no=2, identities=t1.identities, host_identity=t1.host_identity, writer=t1.writer)
    t2.start()
    t2.publish([t2.dealer.note_game({"action": "draw", "seat": 0})])
    t2.deal_hands()
    t2.finish()
    seen = []
    report = audit(t1.lines, on_game=lambda n, d, lg: seen.append((n, d["action"])))
    assert report.ok and report.rounds == 2 and report.positions == 216
    assert seen and seen[0][1] == "draw"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(2, 6),
    host_seat=st.none() | st.just(0),
    moves=st.lists(st.tuples(st.integers(0, 5), st.booleans()), max_size=25),
    seed=st.binary(min_size=1, max_size=8),
)
def test_random_honest_rounds_always_audit_clean(n, host_seat, moves, seed):
    t = FairTable(n, seed=seed, host_seat=host_seat)
    t.start()
    t.deal_hands()
    t.turn_up()
    for seat, draw in moves:
        seat %= n
        if draw and t.dealer.next_position() is not None:
            t.draw(seat)
        elif t.verifiers[seat].hand:
            t.play(seat, max(t.verifiers[seat].hand))
    t.finish()
    report = audit(t.lines)
    assert report.ok, report.summary
    assert report.deals == 7 * n + sum(1 for s, d in moves if d)
    assert {v.ledger.digest for v in t.everyone} == {t.dealer.ledger.digest}


def test_classic_deck_is_the_default():
    t = FairTable(2)
    t.start()
    assert t.events[0].deck == classic_deck()


def test_a_flip_opens_the_held_secret_faces_and_turns_the_pile():
    from unonet.fair import Flip

    # light faces R/G..., dark faces P/T...; a couple of wild draws on each side
    deck = tuple(Card(("W+2" if i % 9 == 0 else f"{'RG'[i % 2]}{i % 10}"),
                      ("W+C" if i % 7 == 0 else f"{'PT'[i % 2]}{i % 10}")) for i in range(40))
    t = FairTable(2, seed="flip-event", deck_name="flip-test", deck=deck)
    t.start()
    t.deal_hands(3)
    lg = t.dealer.ledger
    assert all(lg.positions[j].announced_public == t.dealer.card(j).public for j in range(6))  # dark faces shown
    assert all(t.observer.card(j) is None for j in range(6))
    ev = t.dealer.flip()
    assert isinstance(ev, Flip) and ev.side == 1 and [o.position for o in ev.openings] == list(range(6))
    t.publish([ev])
    assert all(t.observer.card(j) is not None for j in range(6))
    # the pile was turned over: the next card comes from its other end and shows its light face
    j = t.draw(0)
    assert j == 39 and lg.positions[j].announced_public == t.dealer.card(j).secret
    # a second flip opens only the card drawn since (the others are public already)
    ev = t.dealer.flip()
    assert ev.side == 0 and [o.position for o in ev.openings] == [39]
    t.publish([ev])
    assert t.draw(1) == 6  # light side again: the lowest undealt position is on top
    t.finish()
    rep = audit(t.lines, decks={"flip-test": deck})
    assert rep.ok and rep.flips == 2 and "2 flips" in rep.summary


def test_a_flip_on_a_one_faced_deck_is_refused():
    t = FairTable(2, seed="noflip")
    t.start()
    t.deal_hands(2)
    from unonet.fair import FairPlayViolation

    with pytest.raises(FairPlayViolation, match="flip on a deck whose cards have one face"):
        t.dealer.flip()
