"""Reshuffles and deals the ledger enforces itself (crypto review, demos 2 and 8).

The engine replay catches most of these too, but only when the record has its game events;
the ledger must refuse them on its own: a host that may re-roll the pile or choose between
two draw piles picks the cards it likes."""

import pytest

from unonet.fair import FairPlayViolation, audit
from unonet.fair.audit_cli import run_audit_cli

from .helpers import DECKS, assert_audit_fails, started, table, w4_table


def _bad_epoch(t, sources, to=None):
    """The host publishes a seed commit over `sources` (its own ledger check switched off)."""
    ev = t.dealer._seed_commit(tuple(sorted(sources)), to)
    with pytest.raises(FairPlayViolation) as ei:
        t.publish([ev])
    assert ei.value.seat is None  # the host's fault
    return ei.value



def _hand_moved_to_seat_0(seed):
    """A 3-seat table where seat 0 has played and seat 1's hand was reshuffled to seat 0."""
    t = started(3, seed=seed)
    t.turn_up()
    t.play(0, min(t.hand(0)))
    lg = t.dealer.ledger
    t.publish(t.dealer.reshuffle(lg.held_by(1), to=0))
    t.seed_phase()
    return t, lg

def test_a_partial_reroll_of_the_draw_pile_is_refused():
    """demo8: re-rolling the bottom of the pile gave the host two piles to pick each draw from."""
    t = started(2, seed="demo8")
    t.turn_up()
    undealt = t.dealer.ledger.undealt()
    exc = _bad_epoch(t, undealt[-10:])
    assert "while the draw pile still has undealt positions" in exc.reason
    assert_audit_fails(t.lines, line=len(t.lines), match="while the draw pile still has undealt positions", signer=t.host_identity)


def test_deals_come_only_from_the_newest_epoch_with_undealt_positions():
    """With a moved hand half dealt, the host may not draw from the older pile instead."""
    t, lg = _hand_moved_to_seat_0("newest-epoch")
    hand_epoch, pile = lg.epochs[1], lg.epochs[0]
    assert hand_epoch.kind == "hand" and hand_epoch.to == 0
    t.dealer.check_self = False
    with pytest.raises(FairPlayViolation, match="deals come from epoch 1"):
        t.publish([t.dealer.deal(0, position=lg.next_position(pile))])
    assert_audit_fails(t.lines, line=len(t.lines), match="deals come from epoch 1 (the newest with undealt", signer=t.host_identity)


def test_a_moved_hand_is_dealt_only_to_its_new_holder():
    t, lg = _hand_moved_to_seat_0("moved-hand")
    t.dealer.check_self = False
    with pytest.raises(FairPlayViolation, match="is the hand moved to seat 0"):
        t.publish([t.dealer.deal(2)])


def test_a_moved_hand_is_exactly_one_seats_hand():
    t = started(3, seed="moved-hand-2")
    t.turn_up()
    t.play(0, min(t.hand(0)))
    held = t.dealer.ledger.held_by(1)
    exc = _bad_epoch(t, held[:-1], to=0)  # leaves one card behind
    assert "but seat 1 holds" in exc.reason
    t2 = started(3, seed="moved-hand-3")
    t2.turn_up()
    lg = t2.dealer.ledger
    exc = _bad_epoch(t2, sorted(lg.held_by(1) + lg.held_by(2)), to=0)  # two hands into one
    assert "not one seat's held cards" in exc.reason


def test_a_reshuffle_never_takes_a_card_out_of_a_hand():
    """demo2: the host re-rolled the pile it disliked and slipped a card of seat 1's hand into it."""
    t = started(3, seed="demo2")
    t.turn_up()
    lg = t.dealer.ledger
    exc = _bad_epoch(t, lg.undealt() + [min(t.hand(1))])
    assert "takes held positions" in exc.reason
    assert lg.held_by(1) == tuple(sorted(t.hand(1)))  # the hand is untouched


def test_a_discard_reshuffle_only_on_an_empty_pile_and_over_the_whole_discard():
    t = started(2, seed="discard-exact")
    top = t.turn_up()
    played = []
    for j in sorted(t.hand(0))[:3]:
        t.play(0, j)
        played.append(j)
    # the pile still has cards: no discard reshuffle yet
    exc = _bad_epoch(t, sorted([top] + played[:-1]))
    assert "while the draw pile still has undealt positions" in exc.reason
    t = started(2, seed="discard-exact-2")
    top = t.turn_up()
    while t.dealer.next_position() is not None:
        t.draw(0)
    played = []
    for j in sorted(t.hand(0))[:3]:
        t.play(0, j)
        played.append(j)
    exc = _bad_epoch(t, sorted([top] + played[:-2]))  # keeps one card back besides the top
    assert "discard pile minus its top" in exc.reason


def test_only_a_wild_draw_four_turned_up_first_goes_back_into_the_pile():
    for i in range(50):
        t = started(2, seed=f"not-w4-{i}")
        if t.dealer.card(t.dealer.next_position()).secret != "W+4":
            break
    top = t.turn_up()
    exc = _bad_epoch(t, sorted([top] + t.dealer.ledger.undealt()))
    assert "only a Wild Draw Four turned up first" in exc.reason


def test_a_challenge_names_a_colour_of_the_deck():
    t, w4 = w4_table(guilty=True)
    t.turn_up()
    t.play(0, w4)
    t.dealer.check_self = False
    with pytest.raises(FairPlayViolation, match="not a colour of this side of the deck"):
        t.publish([t.dealer.challenge(1, 0, "X")])
    assert_audit_fails(t.lines, line=len(t.lines), match="not a colour of this side", decks=DECKS, signer=t.host_identity)


def test_the_cli_audit_refuses_a_round_without_its_game_record(tmp_path, capsys):
    """demo2: without `game` events the engine replay was silently skipped (exit 0)."""
    t = table(3, seed="bare")
    t.play_simple_round(plays=3, draws=2)
    assert audit(t.lines).ok  # the fair checks alone pass
    path = tmp_path / "bare.jsonl"
    path.write_text("\n".join(t.lines) + "\n")
    assert run_audit_cli(str(path)) == 1
    assert capsys.readouterr().out.startswith("line 1: a match transcript opens with its match-start")
    from unonet.table import audit_transcript

    report = audit_transcript(t.lines, require_match=False)
    assert not report.ok and report.line == 1 and report.reason.startswith("round has no game record")
