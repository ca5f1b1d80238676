"""Variants: reaction races, UNO Flip, UNO The Office and the community presets."""

from collections import Counter

import pytest

from unonet.engine import PRESETS, RulesError, deck_cards, find_preset, make_rules
from unonet.engine._cards import FLIP_DECK

from .helpers import CATCH, CH, COL, D, K, P, SWAP, ok, refused

DECK = ["R5", "G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y9", "Y8", "Y7", "Y6"]


def RESP(p):
    return {"player": p, "respond": True}


TIMEOUT = {"timeout": True}


# --- reaction races ------------------------------------------------------------------

def test_six_smackdown_the_last_to_respond_draws_two():
    hands = [["B1", "B2"], ["R6", "B3", "B4"], ["Y1", "Y2"], ["G5", "B5"]]
    out = refused(hands, DECK, [P(1, "R6"), P(2, "Y6")], house=["six-smackdown"])
    assert "reaction race" in out["error"]
    out = ok(hands, DECK, [P(1, "R6"), RESP(3), RESP(0)], house=["six-smackdown"])
    assert len(out["hands"][2]) == 4 and out["turn"] == 2
    assert [len(h) for h in out["hands"]] == [2, 2, 4, 2]


def test_race_timeout_makes_everyone_still_waiting_draw_two():
    hands = [["B1", "B2"], ["R6", "B3", "B4"], ["Y1", "Y2"], ["G5", "B5"]]
    out = ok(hands, DECK, [P(1, "R6"), RESP(0), TIMEOUT], house=["six-smackdown"])
    assert [len(h) for h in out["hands"]] == [2, 2, 4, 4]


def test_the_player_who_started_the_race_cannot_respond():
    hands = [["B1", "B2"], ["R6", "B3", "B4"], ["Y1", "Y2"], ["G5", "B5"]]
    out = refused(hands, DECK, [P(1, "R6"), RESP(1)], house=["six-smackdown"])
    assert "started the race" in out["error"]


def test_two_player_race_only_the_slow_lose():
    hands = [["B1", "B2"], ["R6", "B3", "B4"]]
    assert [len(h) for h in ok(hands, DECK, [P(1, "R6"), RESP(0)], house=["six-smackdown"])["hands"]] == [2, 2]
    assert [len(h) for h in ok(hands, DECK, [P(1, "R6"), TIMEOUT], house=["six-smackdown"])["hands"]] == [4, 2]


def test_a_six_is_plain_without_smackdown_and_going_out_on_it_needs_no_race():
    hands = [["B1", "B2"], ["R6", "B3", "B4"], ["Y1", "Y2"], ["G5", "B5"]]
    assert ok(hands, DECK, [P(1, "R6"), D(2)])["turn"] == 3
    out = ok([["B1"], ["R6"], ["Y1"], ["G5"]], DECK, [P(1, "R6")], house=["six-smackdown"])
    assert out["round_over"] and out["winner"] == 1


def test_office_deck_has_four_kevins_chili_worth_50():
    deck = deck_cards("office")
    counts = Counter(c.code for c in deck)
    assert len(deck) == 112 and counts["WK"] == 4 and counts["W+4"] == 4
    assert {c.points for c in deck if c.code == "WK"} == {50}


def test_kevins_chili_is_a_wild_that_starts_a_race():
    hands = [["B1", "B2"], ["WK", "B3", "B4"], ["Y1", "Y2"], ["G5", "B5"]]
    out = ok(hands, DECK, [P(1, "WK", "Y"), RESP(2), RESP(0)], preset="office")
    assert out["color"] == "Y" and out["turn"] == 2 and len(out["hands"][3]) == 4


def test_kevins_chili_turned_first_is_a_plain_wild():
    hands = [["B1", "B2"], ["R3", "B3", "B4"], ["Y1", "Y2"], ["G5", "B5"]]
    out = ok(hands, ["WK", "G1"], [COL(1, "B"), P(1, "B3")], preset="office")
    assert out["turn"] == 2 and [len(h) for h in out["hands"]] == [2, 2, 2, 2]


# --- UNO Flip ---------------------------------------------------------------------------

def test_flip_deck_has_the_issue_mix_on_both_sides():
    light = Counter(c.code for c in FLIP_DECK)
    dark = Counter(c.other.code for c in FLIP_DECK)
    assert len(FLIP_DECK) == 112
    for col in "RYGB":
        assert all(light[col + r] == 2 for r in ["1", "5", "9", "+1", "R", "S", "F"])
    assert light["W"] == 4 and light["W+2"] == 4 and light["R0"] == 0
    for col in "PTOU":
        assert all(dark[col + r] == 2 for r in ["1", "9", "+5", "R", "SE", "F"])
    assert dark["W"] == 4 and dark["W+C"] == 4
    points = {c.code: c.points for c in FLIP_DECK} | {c.other.code: c.other.points for c in FLIP_DECK}
    assert (points["R+1"], points["RF"], points["W"], points["W+2"]) == (10, 20, 40, 50)
    assert (points["P+5"], points["PSE"], points["W+C"], points["T7"]) == (20, 30, 60, 7)
    assert len({c.id for c in FLIP_DECK}) == 112


class Flip:
    """Pick physical Flip cards by face, never the same one twice."""

    def __init__(self):
        self.used = set()

    def __call__(self, light=None, dark=None, plain=False):
        for card in FLIP_DECK:
            if card.id in self.used or (plain and card.number is None):
                continue
            if (light is None or card.code == light) and (dark is None or card.other.code == dark):
                self.used.add(card.id)
                return card.full_code
        raise LookupError((light, dark))


def test_draw_one_makes_the_next_draw_one_and_miss_the_turn():
    f = Flip()
    hands = [[f("B1"), f("B2")], [f("R+1"), f("B3")], [f("Y1"), f("Y2")], [f("G5")]]
    out = ok(hands, [f("R5"), f("G1"), f("G2")], [P(1, "R+1")], preset="flip")
    assert len(out["hands"][2]) == 3 and out["turn"] == 3


def test_flip_turns_every_hand_and_both_piles():
    f = Flip()
    first = f("R9", "T9")
    hands = [[f("B1"), f("B2")], [f("RF"), f("B3")], [f("Y1"), f("Y2")], [f("G5")]]
    pile = [first, f("G1"), f("G2")]
    out = ok(hands, pile, [P(1, "RF")], preset="flip")
    assert out["discard_pile"] == 2
    dark_of = {c.full_code: c.other.code for c in FLIP_DECK}
    assert out["top"] == "T9" and out["color"] == "T" and out["turn"] == 2
    assert out["hands"][2] == [dark_of[c] for c in hands[2]]
    assert out["hands"][1] == [dark_of[hands[1][1]]]


def test_dark_side_draw_five_skip_everyone_and_flip_back():
    f = Flip()
    hands = [[f("B1"), f("B2")], [f("RF"), f(dark="T+5"), f(dark="TSE"), f(dark="TF"), f("B9")],
             [f("Y1"), f("Y2")], [f("G5"), f("G6")]]
    # after the flip the pile is turned over: what was its bottom is drawn first
    order = [f(dark="U1"), f(dark="U2"), f(dark="U3")] + [f() for _ in range(5)]
    pile = [f("R9", "T9")] + order[::-1]
    out = ok(hands, pile, [P(1, "RF"), D(2), D(3), D(0), P(1, "T+5")], preset="flip")
    assert len(out["hands"][2]) == 3 + 5 and out["turn"] == 3
    out = ok(hands, pile, [P(1, "RF"), D(2), D(3), D(0), P(1, "TSE")], preset="flip")
    assert out["turn"] == 1  # everyone else skipped: seat 1 plays again
    out = ok(hands, pile, [P(1, "RF"), D(2), D(3), D(0), P(1, "TSE"), P(1, "TF")], preset="flip")
    assert out["top"] in {c.code for c in FLIP_DECK} and out["turn"] == 2  # back on the light side


def test_wild_draw_colour_draws_until_the_named_colour():
    f = Flip()
    hands = [[f("B1"), f("B2")], [f("RF"), f(dark="W+C"), f("B9")], [f("Y1"), f("Y2")], [f("G5"), f("G6")]]
    # after the flip the draw pile is turned over: its bottom card comes up first
    order = [f(dark="U1"), f(dark="U2"), f(dark="U3"), f(dark="P1"), f(dark="P2"), f(dark="O3"), f(dark="O4")]
    pile = [f("R9", "T9")] + order[::-1]
    out = ok(hands, pile, [P(1, "RF"), D(2), D(3), D(0), P(1, "W+C", "O"), D(2)], preset="flip")
    # seat 2 drew U1 on its turn, then P1, P2 and O3 for the Wild Draw Colour: it stops at orange
    assert {"O3", "P1", "P2", "U1"} <= set(out["hands"][2]) and len(out["hands"][2]) == 6
    assert out["turn"] == 3 and out["color"] == "O"


def test_flip_wild_draw_two_can_be_challenged():
    f = Flip()
    hands = [[f("B1"), f("B2")], [f("W+2"), f("R3")], [f("Y1"), f("Y2")], [f("G5")]]
    out = ok(hands, [f("R5"), f("G1"), f("G2"), f("G3")], [P(1, "W+2", "B"), CH(2)], preset="flip")
    assert len(out["hands"][1]) == 3 and out["turn"] == 2  # guilty: held red


def test_flip_refuses_house_rules_it_does_not_define():
    with pytest.raises(RulesError, match="does not work with the flip deck"):
        make_rules("flip", ["stacking"])


# --- community presets -----------------------------------------------------------------

def test_every_preset_has_a_summary_and_a_seed_and_aliases_resolve():
    for p in PRESETS:
        assert p.summary and p.seed
        for alias in p.aliases:
            assert find_preset(alias.upper()).name == p.name
        make_rules(p.name)


def test_deadly_no_playable_card_means_out_of_the_round():
    hands = [["B1", "B2"], ["Y3", "B3"], ["Y1", "R2"], ["G5", "G4"]]
    out = ok(hands, DECK, [D(1)], preset="deadly")
    assert out["turn"] == 2 and len(out["hands"][1]) == 2 and out["draw_pile"] == len(DECK) - 1
    out = refused(hands, DECK, [D(1), D(2)], preset="deadly")
    assert "must play" in out["error"]
    out = refused(hands, DECK, [D(1), P(2, "R2"), P(1, "B3")], preset="deadly")
    assert "out of this round" in out["error"]


def test_deadly_last_player_standing_wins_and_scores_every_hand():
    hands = [["B4", "B6"], ["Y3", "B3"], ["R1", "R2"]]
    out = ok(hands, DECK, [D(1), P(2, "R1"), D(0)], preset="deadly")
    assert out["round_over"] and out["winner"] == 2 and out["round_points"] == 10 + 6


def test_power_deck_drops_zero_to_five_but_a_blue_two_and_a_green_three():
    deck = deck_cards("power")
    counts = Counter(c.code for c in deck)
    assert len(deck) == 66 and counts["B2"] == 1 and counts["G3"] == 1
    assert not any(c.number is not None and c.number <= 5 and c.code not in ("B2", "G3") for c in deck)


def test_no_challenges_wild_draw_four_takes_effect_at_once():
    hands = [["G1", "B2"], ["R5", "W+4", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, ["R7", "G4", "B5", "Y6", "Y7"], [P(1, "W+4", "G")], house=["no-challenges"])
    assert len(out["hands"][2]) == 6 and out["turn"] == 3
    hands = [["G6", "B2"], ["R8", "W+4", "B9"], ["Y6", "G7"], ["B7", "Y8"]]
    out = refused(hands, ["R7", "G6", "B6", "Y9", "Y7"], [P(1, "W+4", "G"), CH(2)], preset="power")
    assert "no challenges" in out["error"]


def test_mixed_stacking_puts_plus_four_on_plus_two():
    hands = [["B1", "B2"], ["R+2", "B3"], ["W+4", "Y1"], ["B4", "Y2"]]
    out = ok(hands, DECK, [P(1, "R+2"), P(2, "W+4", "G"), D(3)], preset="uno-stack")
    assert len(out["hands"][3]) == 8 and out["turn"] == 0


def test_cross_family_drawn_card_must_be_played_and_uno_costs_four():
    hands = [["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"], ["G1"]]
    deck = ["R5", "G1", "G2", "R4", "G3", "G4", "G6", "G7", "G8"]
    out = refused(hands, deck, [D(1), K(1)], preset="cross-family")
    assert "must be played" in out["error"]
    hands = [["B1", "B2"], ["R3", "B3"], ["Y1", "Y2"], ["G1"]]
    out = ok(hands, deck, [P(1, "R3"), CATCH(0, 1)], preset="cross-family")
    assert len(out["hands"][1]) == 5


def test_dirty_seven_swap_may_be_declined():
    hands = [["B1", "B2"], ["R7", "B3", "B4"], ["Y1", "Y2"], ["G1"]]
    out = ok(hands, DECK, [P(1, "R7"), K(1)], preset="dirty")
    assert sorted(out["hands"][1]) == ["B3", "B4"] and out["turn"] == 2
    out = ok(hands, DECK, [P(1, "R7"), SWAP(1, 3)], preset="dirty")
    assert out["hands"][1] == ["G1"]


def test_dirty_exact_match_makes_the_previous_player_draw_its_number():
    hands = [["B1", "B2"], ["R8", "B3"], ["R8", "Y2"], ["G1"]]
    out = ok(hands, ["R5"] + ["G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y9"], [P(1, "R8"), P(2, "R8")],
             preset="dirty")
    assert len(out["hands"][1]) == 1 + 8 and out["turn"] == 3


def test_conflicting_and_incomplete_flags_are_refused():
    with pytest.raises(RulesError, match="'deadly' and 'keep-drawing' conflict"):
        make_rules("deadly", ["keep-drawing"])
    with pytest.raises(RulesError, match="'seven-o-optional' needs 'seven-o'"):
        make_rules("official", ["seven-o-optional"])
