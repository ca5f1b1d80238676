"""House rules and the 2018 deck's special wilds, each from a stacked deck."""

from .helpers import CH, D, P, SWAP, K, ok, refused

DECK = ["R5", "G1", "G2", "G3", "G4", "G6", "G7", "G8", "G9", "Y9", "Y8", "Y7", "Y6"]


# --- stacking ---------------------------------------------------------------------

def test_stacking_draw_two_on_draw_two_the_next_draws_the_sum():
    hands = [["B1", "B2"], ["R+2", "B3"], ["G+2", "Y1"], ["B4", "Y2"]]
    out = ok(hands, DECK, [P(1, "R+2"), P(2, "G+2"), D(3)], house=["stacking"])
    assert len(out["hands"][3]) == 6 and out["turn"] == 0


def test_stacking_never_mixes_plus_two_and_plus_four():
    hands = [["B1", "B2"], ["R+2", "B3"], ["W+4", "Y1"], ["B4", "Y2"]]
    out = refused(hands, DECK, [P(1, "R+2"), P(2, "W+4", "G")], house=["stacking"])
    assert "stack a +2 or draw" in out["error"]
    hands = [["B1", "B2"], ["W+4", "B3"], ["G+2", "Y1"], ["B4", "Y2"]]
    out = refused(hands, DECK, [P(1, "W+4", "G"), P(2, "G+2")], house=["stacking"])
    assert "challenge or draw, or stack a W+4" in out["error"]


def test_stacking_four_on_four():
    hands = [["B1", "B2"], ["W+4", "B3"], ["W+4", "Y1"], ["B4", "Y2"]]
    out = ok(hands, DECK, [P(1, "W+4", "G"), P(2, "W+4", "Y"), D(3)], house=["stacking"])
    assert len(out["hands"][3]) == 10 and out["turn"] == 0 and out["color"] == "Y"


def test_without_stacking_a_draw_two_cannot_be_answered():
    hands = [["B1", "B2"], ["R+2", "B3"], ["G+2", "Y1"], ["B4", "Y2"]]
    out = ok(hands, DECK, [P(1, "R+2")])
    assert len(out["hands"][2]) == 4 and out["turn"] == 3


def test_stacked_challenge_guilty_draws_the_whole_stack():
    hands = [["B1", "B2"], ["W+4", "R3"], ["W+4", "R1"], ["B4", "Y2"]]
    out = ok(hands, DECK, [P(1, "W+4", "G"), P(2, "W+4", "Y"), CH(3)], house=["stacking"])
    # seat 2 held no green (its last colour in force): innocent, seat 3 draws 8 + 2
    assert len(out["hands"][3]) == 12 and out["turn"] == 0


# --- seven-o ----------------------------------------------------------------------

def test_seven_swaps_hands_with_the_chosen_player():
    hands = [["B1", "B2"], ["R7", "B3", "B4"], ["Y1", "Y2"], ["G1"]]
    out = ok(hands, DECK, [P(1, "R7"), SWAP(1, 3)], house=["seven-o"])
    assert out["hands"][1] == ["G1"] and sorted(out["hands"][3]) == ["B3", "B4"]
    assert out["turn"] == 2


def test_seven_swap_is_compulsory_before_play_goes_on():
    hands = [["B1", "B2"], ["R7", "B3", "B4"], ["Y1", "Y7"], ["G1"]]
    out = refused(hands, DECK, [P(1, "R7"), P(2, "Y7")], house=["seven-o"])
    assert "choose whom to swap" in out["error"]
    out = refused(hands, DECK, [P(1, "R7"), SWAP(1, 1)], house=["seven-o"])
    assert "pick another seat" in out["error"]


def test_zero_passes_every_hand_in_the_direction_of_play():
    hands = [["B1"], ["R0", "B3"], ["Y1", "Y2"], ["G1", "G2", "G3"]]
    out = ok(hands, DECK, [P(1, "R0")], house=["seven-o"])
    assert out["hands"] == [["G1", "G2", "G3"], ["B1"], ["B3"], ["Y1", "Y2"]]
    assert out["turn"] == 2


def test_zero_passes_counter_clockwise_after_a_reverse():
    hands = [["B1", "R0"], ["RR", "B3"], ["Y1", "Y2"], ["G1", "G2", "G3"]]
    out = ok(hands, DECK, [P(1, "RR"), P(0, "R0")], house=["seven-o"])
    # direction -1: seat s passes to seat s-1
    assert out["hands"] == [["B3"], ["Y1", "Y2"], ["G1", "G2", "G3"], ["B1"]]
    assert out["turn"] == 3


def test_seven_and_zero_do_nothing_without_the_house_rule():
    hands = [["B1", "B2"], ["R7", "B3", "B4"], ["Y1", "Y2"], ["G1"]]
    out = ok(hands, DECK, [P(1, "R7")])
    assert out["turn"] == 2 and out["hands"][3] == ["G1"]


# --- jump-in ----------------------------------------------------------------------

def test_jump_in_with_an_identical_card_play_continues_from_the_jumper():
    hands = [["B1", "B2"], ["R1", "B3"], ["Y1", "Y2"], ["R1", "G1"]]
    out = ok(hands, DECK, [P(1, "R1"), P(3, "R1")], house=["jump-in"])
    assert out["top"] == "R1" and out["turn"] == 0 and out["hands"][3] == ["G1"]


def test_jump_in_on_the_first_discard_too_it_is_the_top_card_of_the_discard_pile():
    # guide: "exactly the same card ... as the top card of the discard pile" (docs/rules.md)
    hands = [["B1", "B2"], ["R1", "B3"], ["Y1", "Y2"], ["R5", "G1"]]
    out = ok(hands, DECK, [P(3, "R5")], house=["jump-in"])
    assert out["top"] == "R5" and out["turn"] == 0 and out["hands"][3] == ["G1"]


def test_jump_in_needs_colour_and_rank_and_the_house_rule():
    hands = [["B1", "B2"], ["R1", "B3"], ["Y1", "Y2"], ["R6", "G5"]]
    refused(hands, DECK, [P(3, "G5")], house=["jump-in"])
    refused(hands, DECK, [P(3, "R6")], house=["jump-in"])
    hands[3] = ["R5", "G1"]
    out = refused(hands, DECK, [P(3, "R5")])
    assert "seat 1's turn" in out["error"]


def test_no_jump_in_on_a_pending_stack():
    hands = [["B1", "B2"], ["R+2", "B3"], ["Y1", "Y2"], ["R+2", "G1"]]
    out = refused(hands, DECK, [P(1, "R+2"), P(3, "R+2")], house=["jump-in", "stacking"])
    assert "jump-in" in out["error"]


# --- no wild endings and keep drawing --------------------------------------------

def test_no_wild_endings_forbids_a_wild_as_the_last_card():
    hands = [["B1", "B2"], ["W"], ["Y1", "Y2"], ["G1"]]
    out = refused(hands, DECK, [P(1, "W", "G")], house=["no-wild-endings"])
    assert "no-wild-endings" in out["error"]
    out = ok(hands, DECK, [P(1, "W", "G")])
    assert out["round_over"] and out["winner"] == 1


def test_keep_drawing_draws_until_a_playable_card_then_plays_it():
    hands = [["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"], ["G1"]]
    deck = ["R5", "G1", "G2", "R4", "G3"]
    out = ok(hands, deck, [D(1)], house=["keep-drawing"])
    assert sorted(out["hands"][1]) == ["B3", "G1", "G2", "R4", "Y3"] and out["turn"] == 1
    out = ok(hands, deck, [D(1), P(1, "R4")], house=["keep-drawing"])
    assert out["top"] == "R4" and out["turn"] == 2
    out = ok(hands, deck, [D(1), K(1)], house=["keep-drawing"])
    assert out["turn"] == 2


def test_without_keep_drawing_a_single_card_is_drawn():
    hands = [["B1", "B2"], ["Y3", "B3"], ["Y1", "Y2"], ["G1"]]
    out = ok(hands, ["R5", "G1", "G2", "R4"], [D(1)])
    assert len(out["hands"][1]) == 3 and out["turn"] == 2


# --- 2018 deck --------------------------------------------------------------------

def test_wild_shuffle_hands_redeals_every_hand_from_the_left():
    hands = [["B1", "B2"], ["WS", "B3", "B4"], ["Y1", "Y2", "Y3"], ["G1"]]
    out = ok(hands, DECK, [P(1, "WS", "G")], deck="2018")
    sizes = [len(h) for h in out["hands"]]
    # 8 cards dealt one at a time from seat 2: seats 2, 3, 0, 1 get 2 each
    assert sizes == [2, 2, 2, 2] and out["color"] == "G" and out["turn"] == 2
    assert sorted(c for h in out["hands"] for c in h) == sorted(["B1", "B2", "B3", "B4", "Y1", "Y2", "Y3", "G1"])


def test_wild_shuffle_hands_needs_the_2018_deck():
    from unonet.engine import ScenarioError
    import pytest

    with pytest.raises(ScenarioError, match="'WS' is not in the classic deck"):
        ok([["WS"], ["B1"]], DECK)


def test_wild_customizable_is_a_plain_wild_worth_40():
    hands = [["B1", "WC"], ["WC", "B3"], ["Y1", "Y2"], ["G1"]]
    out = ok(hands, DECK, [P(1, "WC", "Y"), P(2, "Y2"), D(3), P(0, "WC", "Y"), D(1), P(2, "Y1")],
             deck="2018")
    assert out["round_over"] and out["winner"] == 2 and out["color"] == "Y"
