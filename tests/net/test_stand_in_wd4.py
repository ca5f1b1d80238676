"""A stand-in bot plays an away seat's move; a Wild Draw Four it played would be found guilty
if challenged whatever the hand (only the seat's own key answers a challenge), so it plays
another card, or draws, where the rules let it."""

from unonet.engine import Draw, Pass, Play
from unonet.engine._scenario import load_scenario
from unonet.net._game import _answerable


def _round(hand, house=(), deck=("r5", "g9", "y3", "b7", "r2", "g2")):
    _, rnd, _ = load_scenario({"players": 2, "dealer": 1, "seed": 1, "hands": [hand, ["b1", "b2", "b3"]],
                               "deck": list(deck), "actions": [],
                               "rules": {"house": list(house)}})
    return rnd


def _wd4(rnd):
    return next(a for a in rnd.legal_actions(0) if isinstance(a, Play) and a.card.rank == "W+4")


def test_a_stand_in_plays_another_card_than_a_wild_draw_four():
    rnd = _round(["W+4", "r9", "g1"])  # r9 fits the red r5 turned up
    got = _answerable(rnd, 0, _wd4(rnd))
    assert isinstance(got, Play) and str(got.card) == "R9", got


def test_a_stand_in_draws_rather_than_play_a_wild_draw_four_it_could_not_defend():
    rnd = _round(["W+4", "b9", "g1"])  # nothing else fits r5: W+4 is legal, yet a challenge would win
    got = _answerable(rnd, 0, _wd4(rnd))
    assert isinstance(got, Draw), got


def test_a_stand_in_keeps_a_wild_draw_four_it_just_drew():
    # (seen at an elected table: the away seat's stand-in drew a W+4 and played it; the
    # challenge found it guilty with a hand nobody could show)
    rnd = _round(["b9", "g1"], deck=("r5", "w+4", "y3", "b7", "r2", "g2"))
    rnd.apply(next(a for a in rnd.legal_actions(0) if isinstance(a, Draw)))
    wd4 = next((a for a in rnd.legal_actions(0) if isinstance(a, Play) and a.card.rank == "W+4"), None)
    assert wd4 is not None, rnd.legal_actions(0)
    got = _answerable(rnd, 0, wd4)
    assert isinstance(got, Pass), got


def test_without_challenges_a_stand_in_keeps_its_wild_draw_four():
    rnd = _round(["W+4", "r9", "g1"], house=("no-challenges",))
    wd4 = _wd4(rnd)
    assert _answerable(rnd, 0, wd4) is wd4


def test_other_moves_are_left_as_the_bot_chose():
    rnd = _round(["W+4", "r9", "g1"])
    r9 = next(a for a in rnd.legal_actions(0) if isinstance(a, Play) and str(a.card) == "R9")
    assert _answerable(rnd, 0, r9) is r9
