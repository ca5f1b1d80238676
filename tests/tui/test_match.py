"""Whole matches through the controller: the view never disagrees with the engine."""

from __future__ import annotations

import pytest

from unonet.engine import make_rules
from unonet.tui.local import LocalTable, run_bots_sync, seat_names

from unonet.tui.view import card_sort_key

from .helpers import attach


def human_move(view, ctl, step, table=None):
    if view.can_catch is not None:
        ctl.key("x")
        return
    if view.round_over:
        ctl.enter()
        return
    if view.racing:
        if step % 3 == 0 and table is not None:
            run_bots_sync(table, close=True)  # too slow: the referee's clock closes the race
        else:
            ctl.key(" !"[step % 2])
        return
    if not view.my_turn:
        return
    ph = view.phase
    if ph == "color":
        ctl.key(view.colors[step % 4].lower())
    elif ph == "swap":
        if view.has("seven-o-optional") and step % 2:
            ctl.key("k")
        else:
            seat = next(s for s in view.active if s != view.me)
            ctl.key(str(seat))
    elif ph == "challenge":
        ctl.key("c" if step % 2 and not view.has("no-challenges") else "d")
    elif ph == "drawn":
        if step % 3 or view.has("draw-and-play"):
            ctl.enter()
            if ctl.mode == "color":
                ctl.key(view.colors[2].lower())
        else:
            ctl.key("k")
    else:
        playable = [c for c in view.sorted_hand() if c.id in view.playable]
        must = view.has("deadly") or (view.has("must-play-wd4") and any(c.rank == "W+4" for c in playable))
        if playable and (step % 5 or must):
            card = playable[step % len(playable)]
            color = f" {view.colors[3].lower()}" if card.wild else ""
            text = card.code.lower() + color + ("!" if len(view.hand) == 2 else "")
            for ch in text:
                ctl.key(ch)
            ctl.enter()
        else:
            ctl.key("d")
            if ctl.mode == "out":  # deadly: nothing fits, D again to go out
                ctl.key("d")


def run_bots(table, view, step):
    """Every due bot move, except that in every other race you get to slap before the bots."""
    while (due := table.due()) is not None and due.kind != "close":
        if view.racing and step % 2 and due.kind == "race":
            return
        table.perform(due)


def play_match(rules, players, seed, max_steps=20000):
    table = LocalTable(rules, seat_names("You", players), seed=seed)
    view, ctl = attach(table)
    whole_log = []  # the view keeps only the last LOG_KEEP lines; the checks read the whole match
    say = view._say
    view._say = lambda line: (whole_log.append(line), say(line))
    table.start()
    rounds = set()
    for step in range(max_steps):
        run_bots(table, view, step)
        if view.match_over:
            break
        rnd = table.rnd
        assert sorted(c.id for c in view.hand) == sorted(c.id for c in rnd.hands[0])
        assert [c.code for c in view.sorted_hand()] == [c.code for c in sorted(rnd.hands[0], key=card_sort_key)]
        assert view.counts == [len(h) for h in rnd.hands]
        assert view.top is rnd.top and view.turn == rnd.turn and view.color == rnd.color
        assert view.active == rnd.active or rnd.outcome is not None
        if rnd.rules.deck == "flip":
            assert view.side == rnd.side
            assert [sorted(c.code for c in b) for b in view.backs[1:]] == \
                [sorted(c.other.code for c in h) for h in rnd.hands[1:]]
        rounds.add(view.round_no)
        human_move(view, ctl, step, table)
        assert view.notice is None, view.notice  # the client never sends a refused action
        assert ctl.message is None, ctl.message  # and never had to explain a key
    assert view.match_over and table.match.over
    assert view.scores == table.match.scores
    assert view.result.match_winner == table.match.winner
    assert view.prompt().startswith("Match over:")
    assert len(rounds) >= 1
    view.whole_log = whole_log
    return view, table


@pytest.mark.parametrize("seed,players,preset,teams", [
    (1, 3, "official", False),
    (2, 4, "house", True),
    (3, 2, "house", False),
    (4, 5, "2018", False),
])
def test_a_whole_match_through_the_controller(seed, players, preset, teams):
    rules = make_rules(preset, teams=teams, target=150)
    view, _table = play_match(rules, players, seed)
    assert sum(line.startswith("you played") for line in view.log) >= 3


@pytest.mark.parametrize("preset,players,seed", [
    ("office", 4, 11), ("flip", 4, 12), ("flip", 2, 13), ("smackdown", 3, 14), ("smackdown", 2, 15),
    ("deadly", 4, 16), ("power", 3, 17), ("cross-family", 4, 18), ("cowboy", 4, 19),
    ("combo", 3, 20), ("uno-stack", 4, 21), ("dirty", 4, 22),
])
def test_a_whole_match_for_every_variant(preset, players, seed):
    rules = make_rules(preset, target=500)
    view, table = play_match(rules, players, seed)
    log = "\n".join(view.whole_log)
    assert "you played" in log
    if preset in ("smackdown", "office"):
        assert "race!" in log and "slapped it" in log
    if preset == "flip":
        assert "flipped the table to the dark side" in log
    if preset == "deadly":
        assert "you cannot play and are out of the round" in log
    if preset in ("smackdown", "office"):
        assert "you slapped it" in log
    if preset == "smackdown":
        assert "you were too slow and draw 2" in log
    if preset == "dirty":
        assert "swapped hands" in log or "kept" in log


@pytest.mark.parametrize("preset,house,players,seed", [
    ("flip", ("six-smackdown", "deadly", "uno-penalty-4"), 3, 31),
    ("office", ("seven-o", "seven-o-optional", "jump-in", "stacking", "stacking-mixed"), 4, 32),
    ("official", ("keep-drawing", "draw-and-play", "no-challenges", "stacking", "exact-match-penalty"), 3, 33),
])
def test_a_whole_match_with_house_rules_mixed(preset, house, players, seed):
    """`unonet play --rules P --house ...`: variants combined."""
    rules = make_rules(preset, house, target=300)
    view, _table = play_match(rules, players, seed)
    assert "you played" in "\n".join(view.log)
