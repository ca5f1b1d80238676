"""After a turn draw the seat always chooses: play the drawn card if it fits, or keep it.

So the public record never shows whether a drawn card was playable (a play-or-keep step
follows every draw, not only a playable one)."""

import pytest

from unonet.engine import (CallUno, CardPool, Draw, HeuristicBot, IllegalActionError, Pass, Play,
                           RandomBot, Round, make_rules)
from unonet.engine import _events as ev
from unonet.engine._round import DRAWN, PLAY


def stacked(hands, deck, house=(), preset="official", seed=1, dealer=None):
    rules = make_rules(preset, house=list(house))
    pool = CardPool(rules.deck)
    players = len(hands)
    rnd = Round.stacked(rules, players, players - 1 if dealer is None else dealer,
                        [[pool.take(c) for c in h] for h in hands], [pool.take(c) for c in deck], seed=seed)
    rnd.start()
    return rnd


def kinds(acts):
    return sorted({type(a).__name__ for a in acts if type(a) is not CallUno})


def test_an_unplayable_drawn_card_waits_for_the_seat_to_keep_it():
    rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "G7", "R4"])
    assert rnd.turn == 0
    rnd.apply(Draw(0))
    assert rnd.phase is DRAWN and rnd.turn == 0 and rnd.drawn.code == "G7"
    assert rnd.playable(0) == [] and kinds(rnd.legal_actions(0)) == ["Pass"]
    with pytest.raises(IllegalActionError, match=r"illegal play 'G7' on 'R5' .*can only be kept"):
        rnd.apply(Play(0, rnd.drawn))
    with pytest.raises(IllegalActionError, match=r"already drew; keep 'G7' \(pass\)"):
        rnd.apply(Draw(0))
    with pytest.raises(IllegalActionError, match="it is seat 0's turn"):
        rnd.apply(Draw(1))
    assert [type(e) for e in rnd.apply(Pass(0))] == [ev.Kept]
    assert rnd.phase is PLAY and rnd.turn == 1 and [c.code for c in rnd.hands[0]] == ["B1", "B2", "G7"]


def test_a_playable_drawn_card_may_be_played_or_kept():
    for choice in ("play", "keep"):
        rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "R7", "R4"])
        rnd.apply(Draw(0))
        assert rnd.phase is DRAWN and [c.code for c in rnd.playable(0)] == ["R7"]
        assert kinds(rnd.legal_actions(0)) == ["Pass", "Play"]
        if choice == "play":
            rnd.apply(Play(0, rnd.drawn))
            assert rnd.top.code == "R7"
        else:
            rnd.apply(Pass(0))
            assert rnd.top.code == "R5"
        assert rnd.turn == 1 and rnd.phase is PLAY


def test_the_public_record_of_a_draw_does_not_tell_whether_the_card_fit():
    """Keep after a playable draw and keep after an unplayable one look the same to others."""

    def public_kinds(deck):
        rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], deck)
        out = rnd.apply(Draw(0)) + rnd.apply(Pass(0))
        return [(type(e).__name__, getattr(e, "seat", None)) for e in (e.visible_to(1) for e in out)]

    assert public_kinds(["R5", "R7", "R4"]) == public_kinds(["R5", "G7", "R4"]) == [("Drew", 0), ("Kept", 0)]


def test_draw_and_play_forces_a_fitting_card_but_lets_an_unfitting_one_be_kept():
    rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "R7", "R4"], house=["draw-and-play"])
    rnd.apply(Draw(0))
    assert kinds(rnd.legal_actions(0)) == ["Play"]
    with pytest.raises(IllegalActionError, match="must be played"):
        rnd.apply(Pass(0))
    rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "G7", "R4"], house=["draw-and-play"])
    rnd.apply(Draw(0))
    assert kinds(rnd.legal_actions(0)) == ["Pass"]
    rnd.apply(Pass(0))
    assert rnd.turn == 1


def test_keep_drawing_stops_at_a_fitting_card_and_then_offers_the_choice():
    rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "G7", "Y8", "R2", "G1"],
                  house=["keep-drawing"])
    rnd.apply(Draw(0))
    assert [c.code for c in rnd.hands[0]] == ["B1", "B2", "G7", "Y8", "R2"]
    assert rnd.phase is DRAWN and rnd.drawn.code == "R2" and kinds(rnd.legal_actions(0)) == ["Pass", "Play"]


def test_keep_drawing_that_empties_the_pile_without_a_fit_only_keeps():
    rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "G7", "Y8"], house=["keep-drawing"])
    rnd.apply(Draw(0))
    assert [c.code for c in rnd.hands[0]] == ["B1", "B2", "G7", "Y8"]
    assert rnd.phase is DRAWN and kinds(rnd.legal_actions(0)) == ["Pass"]


def test_a_draw_that_finds_no_card_still_ends_the_turn():
    rnd = stacked([["G2", "G3"], ["B9", "B8"], ["Y1", "Y2"]], ["R5"])
    rnd.apply(Draw(0))
    assert rnd.phase is PLAY and rnd.turn == 1


def test_a_penalty_draw_is_not_a_choice():
    rnd = stacked([["R+2", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "R7", "R4"], house=["stacking"])
    rnd.apply(Play(0, rnd.hands[0][0]))
    assert rnd.pending == 2 and rnd.turn == 1
    rnd.apply(Draw(1))  # takes the two (R7 would fit), is skipped: no play-or-keep step
    assert rnd.phase is PLAY and rnd.turn == 2 and len(rnd.hands[1]) == 4


@pytest.mark.parametrize("bot", [RandomBot, HeuristicBot])
def test_bots_keep_a_drawn_card_that_does_not_fit(bot):
    for seed in range(20):
        rnd = stacked([["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"]], ["R5", "G7", "R4"])
        rnd.apply(Draw(0))
        assert bot(seed).act(rnd, 0) == Pass(0)


def test_a_heuristic_bot_never_catches_its_partner_at_a_teams_table():
    """Catching a partner makes one's own team draw 2 (play15: "Ana-2 (bot) caught you
    without UNO" on her partner Pat's screen); an opponent is caught as before."""
    rules = make_rules("official", teams=True)
    pool = CardPool(rules.deck)
    hands = [["R1", "R2"], ["Y3", "B3"], ["Y1", "Y2"], ["G1", "G2"]]
    rnd = Round.stacked(rules, 4, 3, [[pool.take(c) for c in h] for h in hands],
                        [pool.take(c) for c in ["R5", "G7", "R4"]], seed=1)
    rnd.start()
    rnd.apply(Play(0, rnd.hands[0][0]))  # R1, no UNO: seat 0 can be caught
    assert rnd.can_catch(2) == 0 and rnd.can_catch(1) == 0
    for seed in range(20):
        assert HeuristicBot(seed, catch=1.0).react(rnd, 2) is None  # seat 2 is seat 0's partner
        assert HeuristicBot(seed, catch=1.0).react(rnd, 1) is not None  # seat 1 is not
