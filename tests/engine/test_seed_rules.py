"""Rules the community seed states for its presets (docs/rules.md, "Community presets")."""

import pytest

from unonet.engine import Draw, HeuristicBot, Play, RandomBot, Round, make_rules, play_round
from unonet.engine._round import PLAY

from .helpers import CH, D, K, P, ok, refused
from .test_draw_choice import kinds, stacked

# --- Dirty UNO: "We cannot play a draw four if we have the color or number of what the
# previous player played."  (wd4-strict)


def test_dirty_refuses_a_wild_draw_four_while_holding_the_colour_in_force():
    out = refused([["W+4", "R1", "B2"], ["Y1", "Y2"], ["G1", "G2"]], ["R5", "G7", "B9"], [P(0, "W+4", "G")],
                  preset="dirty", dealer=2)
    assert out["error"] == ("illegal play 'W+4' on 'R5': wd4-strict: a Wild Draw Four may not be played "
                            "holding colour R ('R1')")


def test_dirty_refuses_a_wild_draw_four_while_holding_the_number_on_top():
    hands = [["W+4", "B5", "G2"], ["Y1", "Y2"], ["G1", "G3"]]
    out = refused(hands, ["R5", "G7", "B9"], [P(0, "W+4", "G")], preset="dirty", dealer=2)
    assert "holding the number 5 ('B5')" in out["error"]


def test_dirty_allows_a_clean_wild_draw_four_and_the_next_player_draws_without_a_challenge():
    hands = [["W+4", "B6", "G2"], ["Y1", "Y2"], ["G1", "G3"]]
    out = ok(hands, ["R5", "G7", "B9", "Y3", "Y4", "Y5"], [P(0, "W+4", "G")], preset="dirty", dealer=2)
    assert out["turn"] == 2 and len(out["hands"][1]) == 6 and out["color"] == "G"
    # no challenge window: the penalty was drawn at once
    refused(hands, ["R5", "G7", "B9", "Y3", "Y4", "Y5"], [P(0, "W+4", "G"), CH(1)], preset="dirty", dealer=2)


def test_dirty_the_plain_wild_can_be_played_any_time_and_bots_never_break_the_rule():
    ok([["W", "R1"], ["Y1", "Y2"], ["G1", "G2"]], ["R5", "G7"], [P(0, "W", "B")], preset="dirty", dealer=2)
    rnd = stacked([["W+4", "R1", "B2"], ["Y1", "Y2"], ["G1", "G2"]], ["R5", "G7"], preset="dirty", dealer=2)
    assert [c.code for c in rnd.playable(0)] == ["R1"]
    assert all(not (type(a) is Play and a.card.code == "W+4") for a in rnd.legal_actions(0))
    rules = make_rules("dirty")
    for seed in range(30):  # whole rounds: a refused bot move would raise
        rnd = Round.deal(rules, 4, 0, seed)
        rnd.start()
        play_round(rnd, [HeuristicBot(seed), RandomBot(seed), HeuristicBot(seed + 1), RandomBot(seed + 1)])


def test_without_the_flag_the_number_does_not_matter_and_a_challenge_checks_the_colour():
    hands = [["W+4", "B5", "G2"], ["Y1", "Y2"], ["G1", "G3"]]
    out = ok(hands, ["R5", "G7", "B9", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"], [P(0, "W+4", "G"), CH(1)], dealer=2)
    assert len(out["hands"][1]) == 8  # innocent (no red held): the challenger draws 6


# --- Cross Family: "No Draw First Round ... until the play has made 1 complete circle of
# all players."  (no-draw-first-round)


def test_cross_family_no_draw_card_until_every_player_has_had_a_turn():
    hands = [["R+2", "R3", "G2"], ["R6", "B+2", "Y1"], ["R7", "Y2", "Y3"]]
    deck = ["R5", "G9", "G8", "G7", "G6"]
    out = refused(hands, deck, [P(0, "R+2")], preset="cross-family", dealer=2)
    assert "no-draw-first-round" in out["error"]
    rnd = stacked(hands, deck, preset="cross-family", dealer=2)
    assert [c.code for c in rnd.playable(0)] == ["R3"]
    # R3, R6, R7: all three had a turn; now the +2 may go
    out = ok(hands, deck, [P(0, "R3"), P(1, "R6"), P(2, "R7"), P(0, "R+2")], preset="cross-family", dealer=2)
    assert out["top"] == "R+2" and out["turn"] == 1


def test_cross_family_a_skipped_seat_counts_as_passed_by_the_circle():
    hands = [["RS", "R3", "G2"], ["R6", "B+2", "Y1"], ["R7", "R+2", "Y3"]]
    ok(hands, ["R5", "G9", "G8"], [P(0, "RS"), P(2, "R7"), P(0, "R3"), P(1, "R6"), P(2, "R+2")],
       preset="cross-family", dealer=2)
    refused(hands, ["R5", "G9", "G8"], [P(0, "RS"), P(2, "R+2")], preset="cross-family", dealer=2)


def test_cross_family_keep_drawing_does_not_stop_at_a_banned_draw_card():
    rnd = stacked([["G1", "G2"], ["Y1", "Y2"], ["Y3", "Y4"]], ["R5", "R+2", "B7", "R9", "G4"],
                  preset="cross-family", dealer=2)
    rnd.apply(Draw(0))
    assert [c.code for c in rnd.hands[0]] == ["G1", "G2", "R+2", "B7", "R9"] and rnd.drawn.code == "R9"
    assert kinds(rnd.legal_actions(0)) == ["Play"]  # draw-and-play: R9 fits, it must be played


# --- Power UNO: "You cannot pickup from the pack if you have a Draw 4 in your hand... you
# have to play it"; "If a Draw 4 comes on after dealing, it is always green."


def test_power_no_drawing_while_holding_a_wild_draw_four():
    hands = [["W+4", "B9"], ["Y6", "Y7"], ["G6", "G7"]]
    out = refused(hands, ["R8", "G9", "B8"], [D(0)], preset="power", dealer=2)
    assert out["error"] == "illegal draw by seat 0: must-play-wd4 - you hold a Wild Draw Four, play it"
    rnd = stacked(hands, ["R8", "G9", "B8"], preset="power", dealer=2)
    assert "Draw" not in kinds(rnd.legal_actions(0))
    ok([["W", "B9"], ["Y6", "Y7"], ["G6", "G7"]], ["R8", "G9", "B8"], [D(0), K(0)], preset="power", dealer=2)


def test_power_a_penalty_is_still_taken_while_holding_a_wild_draw_four():
    hands = [["R+2", "B9"], ["W+4", "Y7"], ["G6", "G7"]]
    out = ok(hands, ["R8", "G9", "B8", "Y9"], [P(0, "R+2"), D(1)], preset="power", dealer=2)
    assert len(out["hands"][1]) == 4 and out["turn"] == 2


def test_power_a_wild_draw_four_turned_first_stays_and_is_green():
    out = ok([["G6", "B9"], ["Y6", "Y7"], ["G7", "R7"]], ["W+4", "R8", "B8"], [P(0, "G6")], preset="power", dealer=2)
    assert out["top"] == "G6" and out["hands"][0] == ["B9"]
    rnd = stacked([["G6", "B9"], ["Y6", "Y7"], ["G7", "R7"]], ["W+4", "R8", "B8"], preset="power", dealer=2)
    assert rnd.top.code == "W+4" and rnd.color == "G" and rnd.turn == 0 and rnd.phase is PLAY
    assert [len(h) for h in rnd.hands] == [2, 2, 2]
    official = ok([["G6", "B9"], ["Y6", "Y7"], ["G7", "R7"]], ["W+4", "R8", "B8"], dealer=2)
    assert official["top"] != "W+4"  # the official rule sends it back


@pytest.mark.parametrize("preset", ["power", "cross-family", "dirty"])
def test_whole_rounds_of_the_presets_with_the_new_rules_finish(preset):
    rules = make_rules(preset)
    for seed in range(20):
        rnd = Round.deal(rules, 3, 0, seed)
        rnd.start()
        play_round(rnd, [HeuristicBot(seed), RandomBot(seed), HeuristicBot(seed + 7)])
        assert rnd.outcome is not None
