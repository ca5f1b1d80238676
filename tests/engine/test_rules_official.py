"""One test per rule decision of the official preset (design.md §3), from stacked decks."""

from collections import Counter

import pytest

from unonet.engine import Card, CardPool, InvalidCardError, deck_cards, parse_card

from .helpers import CATCH, CH, COL, UNO, D, K, P, ok, refused, scenario

H4 = [["G1", "B2", "Y3"], ["R5", "G2", "R3", "B9"], ["Y1", "G5", "Y4"], ["B1", "Y2", "B3"]]


# --- deck and notation -----------------------------------------------------------

def test_classic_deck_has_108_cards_in_the_official_mix():
    deck = deck_cards("classic")
    assert len(deck) == 108
    counts = Counter(c.code for c in deck)
    for col in "RYGB":
        assert counts[col + "0"] == 1
        for rank in "123456789":
            assert counts[col + rank] == 2
        for rank in ("S", "R", "+2"):
            assert counts[col + rank] == 2
    assert counts["W"] == 4 and counts["W+4"] == 4
    assert sorted(c.id for c in deck) == list(range(108))


def test_2018_deck_adds_shuffle_hands_and_three_customizable():
    deck = deck_cards("2018")
    counts = Counter(c.code for c in deck)
    assert len(deck) == 112 and counts["WS"] == 1 and counts["WC"] == 3
    assert {c.points for c in deck if c.code in ("WS", "WC")} == {40}


@pytest.mark.parametrize("code,points", [("R0", 0), ("Y9", 9), ("GS", 20), ("BR", 20), ("R+2", 20),
                                         ("W", 50), ("W+4", 50), ("WS", 40), ("WC", 40)])
def test_card_points(code, points):
    assert parse_card(code).points == points


def test_notation_round_trips_and_accepts_lower_case():
    for card in deck_cards("2018"):
        assert str(parse_card(card.code)) == card.code
    assert parse_card("r7").code == "R7" and parse_card("w+4").code == "W+4"
    assert repr(Card.from_code("R7")) == "Card.from_code('R7')"


@pytest.mark.parametrize("bad", ["X7", "R10", "", "W+2", "RW", "7R", "G+4"])
def test_bad_card_text_is_named_in_the_error(bad):
    with pytest.raises(InvalidCardError, match=repr(bad).replace("+", r"\+")):
        parse_card(bad)


def test_a_pool_refuses_extra_copies():
    pool = CardPool()
    pool.take("R0")
    with pytest.raises(InvalidCardError, match="too many copies of 'R0'"):
        pool.take("r0")


# --- dealing and the first discard ---------------------------------------------------

def test_player_left_of_dealer_leads_clockwise():
    out = ok(H4, ["R7", "G4"], dealer=2)
    assert out["turn"] == 3 and out["direction"] == 1 and out["top"] == "R7" and out["color"] == "R"


def test_first_discard_skip_skips_the_first_player():
    out = ok(H4, ["GS", "G4"], dealer=0)
    assert out["turn"] == 2


def test_first_discard_reverse_dealer_leads_counter_clockwise():
    out = ok(H4, ["GR", "G4"], [P(0, "G1")], dealer=0)
    assert out["direction"] == -1 and out["turn"] == 3


def test_first_discard_draw_two_first_player_draws_and_is_skipped():
    out = ok(H4, ["G+2", "R9", "B8", "Y7"], dealer=0)
    assert sorted(out["hands"][1]) == sorted(H4[1] + ["R9", "B8"])
    assert out["turn"] == 2 and out["draw_pile"] == 1


def test_first_discard_wild_first_player_names_colour_then_plays():
    out = ok(H4, ["W", "Y9"], [COL(1, "B"), P(1, "B9")], dealer=0)
    assert out["top"] == "B9" and out["turn"] == 2
    out = refused(H4, ["W", "Y9"], [P(1, "B9")], dealer=0)
    assert "name the colour" in out["error"]


def test_first_discard_wild_draw_four_goes_back_and_another_is_turned():
    deck = ["W+4", "R1", "R2", "R3", "R4", "R6", "R8"]
    out = ok(H4, deck, seed=3)
    assert out["top"] != "W+4" and out["discard_pile"] == 1
    assert out["draw_pile"] == len(deck) - 1  # the W+4 is back in the pile


def test_deal_gives_seven_each_from_the_dealers_left():
    from unonet.engine import Round, make_rules

    rnd = Round.deal(make_rules(), 4, dealer=1, seed=5)
    rnd.start()
    assert sorted(len(h) for h in rnd.hands) in ([7, 7, 7, 7], [7, 7, 7, 9])
    assert rnd.card_count() == 108


# --- matching and turns ------------------------------------------------------------

def test_match_by_colour_number_and_symbol():
    ok(H4, ["R7", "G4"], [P(1, "R5")])
    ok([["G1"], ["G7", "B1"], ["Y1"], ["B1"]], ["R7", "G4"], [P(1, "G7")])
    ok([["G1"], ["GS", "B1"], ["Y1"], ["B1"]], ["RS", "G4"], [P(1, "GS")], dealer=3)


def test_a_card_that_does_not_match_is_refused_with_the_state_named():
    out = refused(H4, ["R7", "G4"], [P(1, "G2")])
    assert out["error"] == "illegal play 'G2' on 'R7' (colour in force: R)"
    assert out["action"] == 0 and out["state"]["hands"][1] == H4[1]


def test_playing_out_of_turn_is_refused():
    out = refused(H4, ["R7", "G4"], [P(2, "Y1")])
    assert "seat 1's turn" in out["error"]


def test_playing_a_card_you_do_not_hold_is_refused():
    out = refused(H4, ["R7", "G4"], [P(1, "R9")])
    assert "does not hold" in out["error"]


def test_wild_may_be_played_any_time_even_holding_the_colour():
    out = ok([["G1"], ["R5", "W", "B1"], ["Y1"], ["B1"]], ["R7", "G4"], [P(1, "W", "G")])
    assert out["color"] == "G" and out["top"] == "W"


def test_wild_named_colour_is_the_colour_in_force():
    out = refused([["G1", "R1"], ["R5", "W", "B1"], ["Y1"], ["B1"]], ["R7", "G4"],
                  [P(1, "W", "G"), P(2, "Y1")])
    assert "colour in force: G" in out["error"]


def test_skip_reverse_and_draw_two_with_four_players():
    assert ok(H4, ["R7", "G4"], [P(1, "R5"), P(2, "G5")])["turn"] == 3
    out = ok([["G1"], ["RS", "B1"], ["Y1"], ["B1"]], ["R7", "G4"], [P(1, "RS")])
    assert out["turn"] == 3
    out = ok([["G1"], ["RR", "B1"], ["Y1"], ["B1"]], ["R7", "G4"], [P(1, "RR")])
    assert out["turn"] == 0 and out["direction"] == -1
    out = ok([["G1"], ["R+2", "B1"], ["Y1"], ["B1"]], ["R7", "G4", "G6"], [P(1, "R+2")])
    assert out["turn"] == 3 and sorted(out["hands"][2]) == ["G4", "G6", "Y1"]


# --- drawing -------------------------------------------------------------------------

def test_draw_then_play_the_drawn_card():
    out = ok(H4, ["R7", "R8", "G4"], [D(1), P(1, "R8")])
    assert out["top"] == "R8" and out["turn"] == 2


def test_draw_then_keep_it():
    out = ok(H4, ["R7", "R8", "G4"], [D(1), K(1)])
    assert "R8" in out["hands"][1] and out["turn"] == 2


def test_drawing_is_allowed_while_holding_a_playable_card():
    out = ok(H4, ["R7", "Y8", "G4"], [D(1)])
    assert "Y8" in out["hands"][1] and out["turn"] == 2  # unplayable draw ends the turn


def test_after_drawing_no_other_card_may_be_played():
    out = refused(H4, ["R7", "R8", "G4"], [D(1), P(1, "R5")])
    assert "only the drawn card 'R8'" in out["error"]


def test_a_pass_written_after_an_unplayable_draw_is_harmless():
    out = ok(H4, ["R7", "Y8", "G4"], [D(1), K(1), D(2)])
    assert out["turn"] == 3


def test_empty_draw_pile_reshuffles_the_discards_but_the_top():
    hands = [["R1", "B1"], ["R2", "B2"], ["R3", "B3"], ["R4", "B4"]]
    out = ok(hands, ["R9", "G9"], [P(1, "R2"), P(2, "R3"), D(3), D(0)], seed=2)
    # seat 3 drew G9 (the last card); seat 0 then drew from the reshuffled R9 R2
    assert out["top"] == "R3" and out["discard_pile"] == 1
    assert len(out["hands"][0]) == 3 and out["draw_pile"] == 1


# --- two players ---------------------------------------------------------------------

def test_two_players_reverse_acts_as_skip():
    out = ok([["G1", "B1"], ["RR", "B2", "B3"]], ["R7", "G4"], [P(1, "RR")])
    assert out["turn"] == 1


def test_two_players_draw_two_returns_play_to_its_player():
    out = ok([["G1", "B1"], ["R+2", "B2", "B3"]], ["R7", "G4", "G5"], [P(1, "R+2")])
    assert out["turn"] == 1 and len(out["hands"][0]) == 4


# --- Wild Draw Four and the challenge -----------------------------------------------

def test_wild_draw_four_accepted_next_draws_four_and_misses_the_turn():
    deck = ["R7", "G4", "B5", "Y6", "Y7"]
    hands = [["G1", "B2"], ["Y5", "W+4", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, deck, [P(1, "W+4", "G"), D(2)])
    assert len(out["hands"][2]) == 6 and out["turn"] == 3 and out["color"] == "G"


def test_challenge_guilty_player_draws_four_challenger_plays_normally():
    hands = [["G1", "B2"], ["R5", "W+4", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, ["R7", "G4", "B5", "Y6", "Y7"], [P(1, "W+4", "G"), CH(2)])
    assert len(out["hands"][1]) == 6 and len(out["hands"][2]) == 2
    assert out["turn"] == 2 and out["color"] == "G"  # the colour named stands


def test_challenge_innocent_challenger_draws_six_and_misses_the_turn():
    hands = [["G1", "B2"], ["Y5", "W+4", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    deck = ["R7", "G4", "B5", "Y6", "Y7", "Y8", "Y9", "R1"]
    out = ok(hands, deck, [P(1, "W+4", "G"), CH(2)])
    assert len(out["hands"][2]) == 8 and out["turn"] == 3 and out["color"] == "G"


def test_holding_the_number_but_not_the_colour_is_innocent():
    hands = [["G1", "B2"], ["B7", "W+4", "W"], ["Y1", "G5"], ["B1", "Y2"]]
    deck = ["R7"] + ["G4", "B5", "Y6", "Y7", "Y8", "Y9"]
    out = ok(hands, deck, [P(1, "W+4", "G"), CH(2)])
    assert len(out["hands"][2]) == 8


def test_previous_wild_colour_counts_for_the_wild_draw_four():
    deck = ["R7", "G4", "B5", "Y6", "Y7"]
    # everyone draws a card they cannot play; seat 0 names green with a wild; seat 1 holds
    # green (G5, G4) but no red: the Wild Draw Four is guilty against green
    out = ok([["W", "B2"], ["G5", "W+4", "R9"], ["Y1", "G5"], ["B1", "Y2"]], deck,
             [D(1), D(2), D(3), P(0, "W", "G"), P(1, "W+4", "B"), CH(2)], dealer=0)
    assert out["turn"] == 2 and len(out["hands"][2]) == 3 and out["color"] == "B"


def test_only_the_next_player_may_challenge():
    hands = [["G1", "B2"], ["R5", "W+4", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = refused(hands, ["R7", "G4", "B5", "Y6", "Y7"], [P(1, "W+4", "G"), CH(3)])
    assert "only the next player may challenge" in out["error"]


def test_challenge_without_a_wild_draw_four_is_refused():
    out = refused(H4, ["R7", "G4"], [CH(1)])
    assert "no Wild Draw Four" in out["error"]


# --- UNO -----------------------------------------------------------------------------

def test_uno_with_the_play_cannot_be_caught():
    hands = [["G1", "B2"], ["R5", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = refused(hands, ["R7", "G4"], [P(1, "R5", uno=True), CATCH(0, 1)])
    assert "called UNO" in out["error"]


def test_forgotten_uno_caught_before_the_next_turn_draws_two():
    hands = [["G1", "B2"], ["R5", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, ["R7", "G4", "G6"], [P(1, "R5"), CATCH(3, 1)])
    assert sorted(out["hands"][1]) == ["B9", "G4", "G6"] and out["turn"] == 2


def test_uno_called_after_the_play_but_before_a_catch_is_safe():
    hands = [["G1", "B2"], ["R5", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    refused(hands, ["R7", "G4", "G6"], [P(1, "R5"), UNO(1), CATCH(3, 1)])
    out = ok(hands, ["R7", "G4", "G6"], [P(1, "R5"), UNO(1)])
    assert out["hands"][1] == ["B9"]


def test_catch_is_too_late_once_the_next_player_begins_a_turn():
    hands = [["G1", "B2"], ["R5", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = refused(hands, ["R7", "G4", "G6"], [P(1, "R5"), D(2), CATCH(3, 1)])
    assert "next player has begun a turn" in out["error"]


def test_false_uno_call_costs_two():
    out = ok(H4, ["R7", "G4", "G6"], [UNO(3)])
    assert sorted(out["hands"][3]) == sorted(H4[3] + ["G4", "G6"])


def test_uno_called_on_your_turn_holding_two_protects_the_play():
    hands = [["G1", "B2"], ["R5", "B9"], ["Y1", "G5"], ["B1", "Y2"]]
    out = refused(hands, ["R7", "G4", "G6"], [UNO(1), P(1, "R5"), CATCH(0, 1)])
    assert "called UNO" in out["error"]


# --- going out and scoring -------------------------------------------------------------

def test_going_out_scores_the_other_hands():
    hands = [["G1", "B2"], ["R5"], ["Y1", "GS"], ["W", "Y2"]]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], scores=[10, 20, 30, 40])
    assert out["round_over"] and out["winner"] == 1 and out["turn"] is None
    assert out["round_points"] == 1 + 2 + 1 + 20 + 50 + 2
    assert out["scores"] == [10, 20 + 76, 30, 40] and out["match_over"] is False


def test_going_out_on_a_draw_two_next_player_draws_first():
    hands = [["G1", "B2"], ["R+2"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, ["R7", "G4", "B6"], [P(1, "R+2")])
    assert out["round_over"] and sorted(out["hands"][2]) == ["B6", "G4", "G5", "Y1"]
    assert out["round_points"] == 3 + (1 + 5 + 4 + 6) + 3


def test_going_out_on_a_wild_draw_four_accepted():
    hands = [["G1", "B2"], ["W+4"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, ["R7", "G4", "B6", "B7", "B8"], [P(1, "W+4", "B"), D(2)])
    assert out["round_over"] and len(out["hands"][2]) == 6 and out["winner"] == 1


def test_last_wild_draw_four_may_still_be_challenged():
    # A last card leaves nothing else in the hand, so the verdict is innocent: the
    # challenger draws 6 and then the round is scored (docs/rules.md).
    hands = [["G1", "B2"], ["W+4"], ["Y1", "G5"], ["B1", "Y2"]]
    out = ok(hands, ["R7", "G4", "B6", "B7", "B8", "B9", "Y9"], [P(1, "W+4", "B"), CH(2)])
    assert out["round_over"] and len(out["hands"][2]) == 8 and out["winner"] == 1


def test_teams_partner_going_out_ends_the_round_and_scores_opponents_only():
    hands = [["G1", "B2"], ["R5"], ["Y1", "G5"], ["B1", "Y9"]]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], teams=True, scores=[100, 50, 0, 25])
    # team 1 (seats 1, 3) scores seats 0 and 2 only: 1+2+1+5
    assert out["round_points"] == 9 and out["scores"] == [100, 59, 0, 25]
    assert out["team_scores"] == [100, 84] and out["winner"] == 1


def test_match_ends_when_a_score_reaches_the_target():
    hands = [["G1", "B2"], ["R5"], ["Y1", "G5"], ["B1", "Y9"]]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], scores=[0, 490, 0, 0])
    assert out["round_points"] == 19
    assert out["scores"][1] == 509 and out["match_over"] and out["match_winner"] == 1
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], scores=[0, 481, 0, 0])
    assert out["scores"][1] == 500 and out["match_over"]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], scores=[0, 480, 0, 0])
    assert out["scores"][1] == 499 and not out["match_over"]


def test_team_match_winner_is_a_team_number():
    hands = [["G1", "B2"], ["R5"], ["Y1", "G5"], ["B1", "Y9"]]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], teams=True, scores=[0, 250, 0, 245])
    assert out["team_scores"] == [0, 504] and out["match_winner"] == 1


def test_elimination_scoring_adds_each_hand_to_its_holder():
    hands = [["G1", "B2"], ["R5"], ["Y1", "G5"], ["W", "Y9"]]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], scoring="elimination", scores=[0, 0, 0, 450])
    assert out["scores"] == [3, 0, 6, 509] and out["round_points"] == [3, 0, 6, 59]
    assert not out["match_over"]


def test_elimination_last_two_play_until_one_reaches_the_target_and_loses():
    hands = [["G1", "B2"], ["R5"], [], []]
    out = ok(hands, ["R7", "G4"], [P(1, "R5")], scoring="elimination", scores=[498, 10, 600, 700])
    assert out["scores"][0] == 501 and out["match_over"] and out["match_winner"] == 1


def test_actions_after_the_round_ends_are_refused():
    hands = [["G1", "B2"], ["R5"], ["Y1", "G5"], ["B1", "Y9"]]
    out = refused(hands, ["R7", "G4"], [P(1, "R5"), D(2)])
    assert "round is over" in out["error"]


def test_illegal_action_leaves_the_round_unchanged():
    from unonet.engine import IllegalActionError, Play, Round, make_rules

    rnd = Round.deal(make_rules(), 4, 0, seed=9)
    rnd.start()
    before = repr(rnd)
    wrong = next(c for c in rnd.hands[(rnd.turn + 1) % 4])
    with pytest.raises(IllegalActionError):
        rnd.apply(Play((rnd.turn + 1) % 4, wrong, "R" if wrong.wild else None))
    assert repr(rnd) == before


def test_scenario_rejects_extra_copies_and_unknown_cards():
    from unonet.engine import ScenarioError

    with pytest.raises(ScenarioError, match="too many copies of 'R0'"):
        scenario([["R0"], ["R0"]], ["G1"])
    with pytest.raises(ScenarioError, match="unknown card 'Q9'"):
        scenario([["Q9"], ["R0"]], ["G1"])
    with pytest.raises(ScenarioError, match="unknown house rule 'stacks'"):
        scenario([["R1"], ["R0"]], ["G1"], house=["stacks"])
