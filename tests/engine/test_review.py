"""Review of the rules engine against design.md §3, scenario-format.md and docs/rules.md.

The first group were confirmed bugs (each cites the rule text it violated; all fixed since);
the others pin tricky cases that were checked and work.
"""

import json
import subprocess
import sys

import pytest

from unonet.engine import run_scenario
from unonet.engine._match import Match
from unonet.engine._round import Termination
from unonet.engine._rules import make_rules

from .helpers import CATCH, CH, COL, UNO, D, K, P, SWAP, ok, refused, scenario

PILE = ["R5", "R1", "R2", "R3", "R4", "B8", "B9", "G8", "G9", "R7", "R8", "R9", "Y1", "Y2", "Y3", "Y4"]


def R(player):
    return {"player": player, "respond": True}


TIMEOUT = {"timeout": True}


def cli(tmp_path, text):
    path = tmp_path / "s.json"
    path.write_text(text)
    return subprocess.run([sys.executable, "-m", "unonet", "scenario", str(path)],
                          capture_output=True, text=True, timeout=120)


def assert_clean_exit_2(proc):
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr[-500:])
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""


BASE = {"players": 2, "dealer": 0, "seed": 1, "hands": [["R1", "R2"], ["B1", "B2"]],
        "deck": ["R5", "R6", "R7"], "actions": []}


# =====================================================================================
# Confirmed bugs, now fixed
# =====================================================================================

# design.md §3: "Going out ends the round."  docs/rules.md (Last card a Draw Two, stacking):
# "no further stacking can happen after the round ends".  Seat 1 goes out on a Wild Draw Four;
# with stacking the engine lets seat 2 stack on it, the round goes on, and the turn comes back
# to seat 1 who holds no card at all.
def test_last_wild_draw_four_cannot_be_stacked_on_the_round_is_over():
    code, out = scenario([["G2", "G3"], ["W+4"], ["W+4", "R1"]], PILE,
                         [P(1, "W+4", "G"), P(2, "W+4", "B")], house=["stacking"])
    # Either the stack is refused (exit 3) or, at the very least, the round ends with seat 1 the winner.
    assert code == 3 or (out["round_over"] and out["winner"] == 1), out


def test_last_wild_draw_four_stacked_then_drawn_ends_the_round():
    code, out = scenario([["G2", "G3"], ["W+4"], ["W+4", "R1"]], PILE,
                         [P(1, "W+4", "G"), P(2, "W+4", "B"), D(0)], house=["stacking"])
    # Was: turn 1, hands[1] == [], round_over false.  Now the stack on a last card is refused.
    assert code == 3 and "W+4" in out["error"], out


def test_mixed_stacking_cannot_answer_a_last_wild_draw_four():
    code, out = scenario([["G2", "G3"], ["W+4"], ["R+2", "R1"]], PILE,
                         [P(1, "W+4", "G"), P(2, "R+2")], preset="uno-stack")
    assert code == 3 or (out["round_over"] and out["winner"] == 1), out


# docs/rules.md (Elimination): "The scenario output's round_points is then the list of points
# each seat added."  (deadly): a knocked-out seat's "hand still counts".  The match adds the
# knocked-out seat's 17 points to its score, but round_points reports 0 for it.
def test_deadly_elimination_round_points_match_the_points_added():
    before = [0, 0, 0]
    out = ok([["G2", "G3"], ["B9", "B8"], ["R4"]], ["R5", "Y9"], [D(1), P(2, "R4")],
             house=["deadly"], scoring="elimination", scores=before)
    assert out["round_over"] and out["winner"] == 2
    added = [s - b for s, b in zip(out["scores"], before)]
    assert added == [5, 17, 0]  # this part holds
    assert out["round_points"] == added  # observed [5, 0, 0]


# docs/rules.md (dirty): the exact-match penalty applies "only by the player whose turn follows".
# Seat 0 plays R5, seat 1 takes its turn (draws and keeps nothing playable), seat 2 plays the other
# R5: seat 2's turn does not follow seat 0's, yet seat 0 is made to draw 5.
def test_exact_match_penalty_needs_the_very_next_turn():
    out = ok([["R5", "Y9", "G1"], ["B1", "B2", "G3"], ["R5", "B4", "B5"], ["B3", "R6", "G4"]],
             ["R7", "G2", "Y6", "Y7"], [P(0, "R5"), D(1), P(2, "R5")], preset="dirty", dealer=3)
    assert sorted(out["hands"][0]) == ["G1", "Y9"]  # observed: seat 0 drew Y6, Y7, R7, R5


# docs/rules.md (UNO): a call counts "before it on one's own turn while holding two cards".
# Seat 1 calls UNO on its turn, a jump-in takes that turn away, and two turns later seat 1
# plays down to one card without calling: the stale call from the lost turn still protects it.
def test_uno_call_does_not_survive_a_jump_in_into_a_later_turn():
    out = ok([["R6", "R3", "G1"], ["R1", "G7"], ["R6", "G4", "B6"], ["R9", "Y2", "B9"]],
             ["R4", "R8", "B1", "B2"],
             [P(0, "R6"), UNO(1), P(2, "R6"), P(3, "R9"), P(0, "R3"), P(1, "R1"), CATCH(2, 1)],
             house=["jump-in"], dealer=3)
    assert len(out["hands"][1]) == 3  # caught: G7 + 2


# scenario-format.md: "A malformed file (bad JSON, unknown card, too many copies) exits 2 with a
# one-line message"; the brief: never a traceback.
@pytest.mark.parametrize("deck", [["classic"], {"name": "classic"}])
def test_rules_deck_of_the_wrong_type_is_a_clean_error(tmp_path, deck):
    assert_clean_exit_2(cli(tmp_path, json.dumps(dict(BASE, rules={"deck": deck}))))


def test_elimination_with_every_seat_over_the_target_is_a_clean_error(tmp_path):
    data = dict(BASE, rules={"scoring": "elimination"}, scores=[600, 600])
    assert_clean_exit_2(cli(tmp_path, json.dumps(data)))


def test_huge_integer_literal_is_a_clean_error(tmp_path):
    assert_clean_exit_2(cli(tmp_path, '{"players": ' + "9" * 5000 + "}"))


def test_deeply_nested_json_is_a_clean_error(tmp_path):
    assert_clean_exit_2(cli(tmp_path, "[" * 100000 + "]" * 100000))


# =====================================================================================
# Verified tricky cases (regression guards)
# =====================================================================================

# --- first discard ------------------------------------------------------------------

def test_two_players_first_draw_two_first_player_draws_and_dealer_plays():
    out = ok([["G2", "G3"], ["B9", "B8"]], ["R+2", "Y9", "Y8", "Y7"])
    assert out["turn"] == 0 and sorted(out["hands"][1]) == ["B8", "B9", "Y8", "Y9"]


def test_two_players_first_skip_dealer_plays():
    out = ok([["G2", "G3"], ["B9", "B8"]], ["RS", "Y9"], dealer=1)
    assert out["turn"] == 1 and out["direction"] == 1


def test_two_players_first_reverse_dealer_plays():
    out = ok([["G2", "G3"], ["B9", "R8"]], ["RR", "Y9"], [P(1, "R8")], dealer=1)
    assert out["turn"] == 0 and out["top"] == "R8"


def test_first_draw_two_with_stacking_is_not_stackable():
    out = ok([["G2", "G3"], ["B+2", "B8"], ["Y1", "Y2"]], ["R+2", "Y9", "Y8", "Y7"], house=["stacking"])
    assert out["turn"] == 2 and len(out["hands"][1]) == 4


def test_first_wild_draw_four_goes_back_until_a_plain_card():
    out = ok([["G2", "G3"], ["R9", "B8"]], ["W+4", "R5"])
    assert out["top"] == "R5" and out["draw_pile"] == 1 and out["discard_pile"] == 1


def test_first_discard_with_an_eliminated_seat_left_of_the_dealer():
    out = ok([["R1", "Y9"], [], ["B2", "B4"], ["G6", "G4"]], ["RS", "Y1"],
             scoring="elimination", scores=[0, 600, 0, 0], dealer=0)
    assert out["turn"] == 3  # seat 1 is out, seat 2 is first and skipped


# --- stacking, challenges and going out ------------------------------------------------

def test_stacked_draw_two_as_last_card_next_draws_the_sum_and_round_ends():
    out = ok([["Y1", "Y2"], ["R+2", "G1"], ["B+2"], ["B3"]], PILE, [P(1, "R+2"), P(2, "B+2")],
             house=["stacking"])
    assert out["round_over"] and out["winner"] == 2 and len(out["hands"][3]) == 5
    assert out["round_points"] == 3 + 1 + (3 + 1 + 2 + 3 + 4)


def test_last_wild_draw_four_accepted_with_stacking_ends_the_round():
    out = ok([["G2", "G3"], ["W+4"], ["W+4", "R1"]], PILE, [P(1, "W+4", "G"), D(2)], house=["stacking"])
    assert out["round_over"] and out["winner"] == 1 and len(out["hands"][2]) == 6


def test_stacked_wild_draw_four_guilty_second_player_draws_whole_stack():
    # the colour in force for the second W+4 is the first one's named colour (B)
    out = ok([["G7", "Y9"], ["W+4", "G1"], ["W+4", "B4", "B5"], ["B3", "R6"]], PILE,
             [P(1, "W+4", "B"), P(2, "W+4", "G"), CH(3)], house=["stacking"])
    assert len(out["hands"][2]) == 10 and out["turn"] == 3 and out["color"] == "G"


def test_stacked_wild_draw_four_innocent_challenger_draws_stack_plus_two():
    out = ok([["G7", "Y9"], ["W+4", "G1"], ["W+4", "Y4", "Y5"], ["B3", "R6"]], PILE,
             [P(1, "W+4", "B"), P(2, "W+4", "G"), CH(3)], house=["stacking"])
    assert len(out["hands"][3]) == 12 and out["turn"] == 0


def test_last_wild_draw_four_challenged_is_innocent_and_round_is_scored():
    out = ok([["G2", "G3"], ["W+4"], ["R2", "R1"]], PILE, [P(1, "W+4", "G"), CH(2)])
    assert out["round_over"] and out["winner"] == 1 and len(out["hands"][2]) == 8


# --- UNO windows ------------------------------------------------------------------------

def test_catch_window_stays_open_across_a_skip_until_the_next_player_acts():
    out = ok([["G2", "G3"], ["RS", "R1"], ["G4", "G6"], ["Y1", "Y2"]], PILE, [P(1, "RS"), CATCH(2, 1)])
    assert len(out["hands"][1]) == 3 and out["turn"] == 3


def test_catch_window_closes_when_the_seat_after_the_skip_plays():
    refused([["G2", "G3"], ["RS", "R1"], ["G4", "G6"], ["R3", "Y2"]], PILE,
            [P(1, "RS"), P(3, "R3"), CATCH(2, 1)])


def test_catch_window_stays_open_after_an_automatic_draw_two():
    out = ok([["G2", "B3"], ["R+2", "R1"], ["G4", "G6"], ["R6", "Y2"]], PILE, [P(1, "R+2"), CATCH(3, 1)])
    assert len(out["hands"][1]) == 3 and len(out["hands"][2]) == 4 and out["turn"] == 3


def test_a_jump_in_closes_the_catch_window():
    # seat 1 plays R5 on R4 down to one card without UNO; seat 2 jumps in with the other R5
    out = ok([["G2", "R3"], ["R5", "R1"], ["G4", "R5"], ["R3", "Y2"]], ["R4", "R6", "R7", "B1"],
             [P(1, "R5"), P(2, "R5")], house=["jump-in"])
    assert out["turn"] == 3
    refused([["G2", "R3"], ["R5", "R1"], ["G4", "R5"], ["R3", "Y2"]], ["R4", "R6", "R7", "B1"],
            [P(1, "R5"), P(2, "R5"), CATCH(3, 1)], house=["jump-in"])


def test_seven_as_next_to_last_card_swap_closes_the_window():
    out = ok([["G2", "G3"], ["R7", "R1"], ["G4", "G6"]], PILE, [P(1, "R7"), SWAP(1, 2)], house=["seven-o"])
    assert out["hands"][1] == ["G4", "G6"] and out["hands"][2] == ["R1"] and out["turn"] == 2
    refused([["G2", "G3"], ["R7", "R1"], ["G4", "G6"]], PILE, [P(1, "R7"), SWAP(1, 2), CATCH(0, 2)],
            house=["seven-o"])


def test_seven_as_next_to_last_card_can_be_caught_before_the_swap():
    out = ok([["G2", "G3"], ["R7", "R1"], ["G4", "G6"]], PILE, [P(1, "R7"), CATCH(0, 1)], house=["seven-o"])
    assert len(out["hands"][1]) == 3 and out["turn"] == 1  # the swap is still owed


# --- reshuffles --------------------------------------------------------------------------

def test_draw_with_only_the_top_discard_left_finds_nothing_and_ends_the_turn():
    out = ok([["G2", "G3"], ["B9", "B8"]], ["R5"], [D(1), K(1)])
    assert out["turn"] == 0 and out["draw_pile"] == 0 and out["discard_pile"] == 1


def test_penalty_with_a_nearly_empty_discard_draws_what_there_is():
    out = ok([["G2", "G3"], ["R+2", "B8"]], ["R5"], [P(1, "R+2")])
    assert out["hands"][0] == ["G2", "G3", "R5"] and out["top"] == "R+2" and out["turn"] == 1


def test_every_seat_drawing_nothing_blocks_the_round():
    out = ok([["G2", "G3"], ["B9", "B8"]], ["R5"], [D(1), D(0)])
    assert out["round_over"] and out["winner"] is None and out["round_points"] == 0


def test_keep_drawing_reshuffles_and_stops_at_a_playable_card():
    out = ok([["G2", "G3"], ["R9", "B8", "Y1"]], ["R5", "B1"], [P(1, "R9"), D(0)], house=["keep-drawing"])
    assert sorted(out["hands"][0]) == ["B1", "G2", "G3", "R5"] and out["turn"] == 0


def test_card_count_is_conserved_through_a_busy_round():
    hands = [["R5", "Y9", "G1"], ["RR", "B2", "G3"], ["R+2", "B4", "B5"], ["BS", "R6", "G4"]]
    out = ok(hands, ["R1", "R2", "R3"], [P(1, "RR"), D(0), K(0), P(3, "R6"), P(2, "R+2"), D(0)])
    total = sum(len(h) for h in out["hands"]) + out["draw_pile"] + out["discard_pile"]
    assert total == 12 + 3


# --- scoring: elimination, teams, matches --------------------------------------------

def test_elimination_everyone_left_eliminated_at_once_lowest_wins():
    out = ok([["G9", "G8"], [], ["Y9", "W"]], ["R5"], [D(0), D(2)],
             scoring="elimination", scores=[490, 600, 460], dealer=2)
    assert out["scores"] == [507, 600, 519] and out["match_over"] and out["match_winner"] == 0
    assert out["round_points"] == [17, 0, 59]


def test_elimination_dealer_passes_left_skipping_eliminated_seats():
    from types import SimpleNamespace as NS

    m = Match(make_rules(scoring="elimination", target=100), 4, 1, scores=[90, 0, 95, 0], dealer=3)
    out = NS(winner=1, points=0, hand_points=(20, 0, 10, 5), termination=Termination.EMPTIED_HAND)
    m.record(NS(outcome=out, dealer=3, actions=10))
    assert m.scores == [110, 0, 105, 5] and m.eliminated == {0, 2} and m.dealer == 1 and not m.over
    rnd = m.new_round()
    assert rnd.active == (1, 3) and [len(h) for h in rnd.hands] == [0, 7, 0, 7]


def test_teams_score_only_the_opponents_and_reach_the_target_per_team():
    out = ok([["G2", "G3"], ["R9"], ["Y1", "Y2"], ["B5", "B6"]], ["R5", "R1"], [P(1, "R9")],
             teams=True, target=100, scores=[0, 50, 0, 40])
    assert out["round_points"] == 5 + 3 and out["team_scores"] == [0, 98] and not out["match_over"]
    out = ok([["G2", "G3"], ["R9"], ["Y1", "Y2"], ["B5", "B6"]], ["R5", "R1"], [P(1, "R9")],
             teams=True, target=98, scores=[0, 50, 0, 40])
    assert out["match_over"] and out["match_winner"] == 1


# --- Flip ---------------------------------------------------------------------------------

def test_flip_with_a_wild_on_the_new_top_the_next_seat_names_the_colour():
    hands = [["G2", "G3"], ["YF/O9", "R1"], ["R2", "R3"]]
    out = ok(hands, ["Y6/W+C", "R4", "R5", "B1", "B2"], [P(1, "YF/O9")], deck="flip")
    assert out["top"] == "W+C" and out["color"] is None and out["turn"] == 2
    out = ok(hands, ["Y6/W+C", "R4", "R5", "B1", "B2"], [P(1, "YF/O9"), COL(2, "P")], deck="flip")
    assert out["color"] == "P" and out["turn"] == 2 and len(out["hands"][2]) == 2  # no W+C penalty


# --- races -------------------------------------------------------------------------------

H10 = [["Y1", "Y2"], ["R6", "G1"], ["Y3", "Y4"], ["B1", "B2"], ["G2", "G3"], ["B3", "B4"],
       ["Y5", "Y7"], ["B5", "B7"], ["G5", "G7"], ["Y8", "Y9"]]


def test_ten_player_race_the_last_left_draws_two_automatically():
    out = ok(H10, PILE, [P(1, "R6")] + [R(s) for s in (0, 2, 3, 4, 5, 6, 7, 8)], house=["six-smackdown"])
    assert [len(h) for h in out["hands"]] == [2, 1, 2, 2, 2, 2, 2, 2, 2, 4] and out["turn"] == 2


def test_two_player_race_an_answer_in_time_costs_nothing():
    out = ok([["Y1", "Y2"], ["R6", "G1"]], PILE, [P(1, "R6"), R(0)], house=["six-smackdown"])
    assert [len(h) for h in out["hands"]] == [2, 1] and out["turn"] == 0
    out = ok([["Y1", "Y2"], ["R6", "G1"]], PILE, [P(1, "R6"), TIMEOUT], house=["six-smackdown"])
    assert [len(h) for h in out["hands"]] == [4, 1]


# --- deadly -------------------------------------------------------------------------------

def test_deadly_knock_outs_down_to_one_player_who_wins_every_hand():
    out = ok([["Y1", "Y2"], ["R6", "G1"], ["B3", "B4"]], PILE, [P(1, "R6"), D(2), D(0)], house=["deadly"])
    assert out["round_over"] and out["winner"] == 1 and out["round_points"] == 3 + 7


def test_deadly_knock_outs_down_to_two_make_reverse_a_skip():
    out = ok([["Y1", "Y2"], ["R6", "RR", "G2"], ["B3", "B4"], ["R7", "B1", "B2"]], PILE,
             [P(1, "R6"), D(2), P(3, "R7"), D(0), P(1, "RR")], house=["deadly"])
    assert out["turn"] == 1 and out["direction"] == 1


# --- malformed scenarios ---------------------------------------------------------------

@pytest.mark.parametrize("patch", [
    {"players": "2"}, {"players": None}, {"dealer": None}, {"seed": 1.5}, {"seed": [1]},
    {"scores": ["0", "0"]}, {"scores": None}, {"hands": None}, {"hands": [[["R1"]], ["B1"]]},
    {"hands": [[None], ["B1"]]}, {"deck": None}, {"deck": [["R5"]]}, {"deck": {"R5": 1}},
    {"actions": None}, {"actions": [None]}, {"actions": [{"player": "1", "draw": True}]},
    {"actions": [{"player": 1, "play": ["R5"]}]}, {"actions": [{"player": 1, "color": {"a": 1}}]},
    {"actions": [{"player": 1, "catch": "0"}]}, {"actions": [{"player": True, "draw": True}]},
    {"actions": [{"timeout": False}]}, {"rules": None}, {"rules": {"preset": {"x": 1}}},
    {"rules": {"scoring": ["standard"]}}, {"rules": {"target": "500"}}, {"rules": {"house": [["stacking"]]}},
    {"rules": {"teams": "yes"}}, {"deck": ["W+4", "W+4"]},
])
def test_malformed_scenarios_are_refused_in_one_line(tmp_path, patch):
    assert_clean_exit_2(cli(tmp_path, json.dumps(dict(BASE, **patch))))


def test_run_scenario_refuses_wrong_types_without_crashing():
    from unonet.engine import ScenarioError

    with pytest.raises(ScenarioError):
        run_scenario(dict(BASE, hands=[[5], ["B1"]]))
