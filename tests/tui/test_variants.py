"""The variants through the controller and the view, on stacked decks: reaction races
(6-smackdown, Office's chili card), UNO Flip, deadly, dirty, cross-family, no challenges."""

from __future__ import annotations

from unonet.engine import make_rules
from unonet.tui.local import Pacing, run_bots_sync

from .helpers import attach, codes, stacked_table, started
from .test_control import press


def step_bot(table):
    """One bot move (whatever is due), nothing more."""
    due = table.due()
    assert due is not None
    assert table.perform(due)
    return due


def assert_no_refusal(view, ctl):
    assert view.notice is None, view.notice


# ---------------------------------------------------------------------- races
def smackdown_table(**kw):
    # you (seat 0) lead; Ana answers your R1 with her R6: a race between Ben and you
    return stacked_table([["R1", "G2", "G3"], ["R6", "B1", "B2"], ["Y1", "Y2", "Y3"]],
                         ["R9", "G7", "G8", "G9", "B7", "B8"], rules=make_rules("smackdown"), **kw)


def test_race_won_by_slapping_first():
    table = smackdown_table()
    view, ctl = started(table)
    press(ctl, "r1\n")
    due = step_bot(table)                          # Ana plays R6: the race is on
    assert due.seat == 1 and view.top.code == "R6"
    assert view.phase == "race" and set(view.race) == {0, 2} and view.racing
    assert ctl.status() == "RACE! Ana played R6: press SPACE (or !) to slap it - the last one draws 2!"
    assert table.due().kind == "race" and table.due().seat == 2
    press(ctl, "g2\n")                             # no playing during a race: explained, not sent
    assert "A race is on: SPACE" in ctl.feedback() and view.notice is None
    press(ctl, " ")                                # slap
    assert "you slapped it" in view.log and 0 not in view.race
    # you were not last: Ben, the only one left, drew 2 at once
    assert "Ben was too slow and draws 2" in view.log
    assert view.race == () and view.counts[2] == 5 and len(view.hand) == 2
    assert view.turn == 2 and not view.racing
    run_bots_sync(table)
    assert_no_refusal(view, ctl)


def test_race_lost_when_the_bots_are_quicker():
    table = smackdown_table()
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)                           # Ana's R6, then Ben slaps at once
    assert "Ben slapped it" in view.log
    assert "you were too slow and draw 2" in view.log
    assert len(view.hand) == 4 and view.race == ()


def test_race_lost_on_the_referee_clock_with_two_players():
    # two players: you are the only one to respond; nobody is "last", only the clock can beat you
    table = stacked_table([["R1", "G2", "G3"], ["R6", "B1", "B2"]], ["R9", "G7", "G8", "G9"],
                          rules=make_rules("smackdown"))
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)                           # stops at the race: only the clock is due
    assert view.racing and table.due().kind == "close" and table.due().seat is None
    assert "RACE!" in ctl.status()
    run_bots_sync(table, close=True)               # the clock runs out
    assert "you were too slow and draw 2" in view.log and len(view.hand) == 4
    # play16: a slap a moment after the clock closed it is no Enter (it would play the chosen card)
    press(ctl, " ")
    assert ctl.feedback() == "Too late: the race on R6 is over." and len(view.hand) == 4 and view.turn == 0
    # in time instead: you slap and nobody draws
    table2 = stacked_table([["R1", "G2", "G3"], ["R6", "B1", "B2"]], ["R9", "G7", "G8", "G9"],
                           rules=make_rules("smackdown"))
    view2, ctl2 = started(table2)
    press(ctl2, "r1\n")
    run_bots_sync(table2)
    press(ctl2, "!")
    assert "you slapped it" in view2.log and len(view2.hand) == 2 and not view2.race
    assert not any("too slow" in line for line in view2.log)


def test_you_start_a_race_and_the_slowest_bot_draws():
    table = stacked_table([["R6", "G2", "G3"], ["R1", "B1", "B2"], ["Y1", "Y2", "Y3"]],
                          ["R9", "G7", "G8", "G9", "B7", "B8"], rules=make_rules("smackdown"))
    view, ctl = started(table)
    press(ctl, "r6\n")
    assert view.race_by == 0 and set(view.race) == {1, 2} and not view.racing
    assert ctl.status().startswith("Race on R6: waiting for Ana, Ben")
    press(ctl, " ")
    assert "You are done with this race" in ctl.feedback() and view.notice is None
    first = table.due()
    slow = 2 if first.seat == 1 else 1
    assert table.race_times[first.seat] <= table.race_times[slow]
    run_bots_sync(table)
    assert f"{view.names[slow]} was too slow and draws 2" in view.log


def test_office_chili_card_starts_a_race():
    table = stacked_table([["WK", "G2", "G3"], ["R1", "B1", "B2"], ["Y1", "Y2", "Y3"]],
                          ["R9", "G7", "G8", "G9", "B7", "B8"], rules=make_rules("office"))
    view, ctl = started(table)
    press(ctl, "wk g\n")
    assert view.top.code == "WK" and view.color == "G" and view.race_by == 0
    run_bots_sync(table)
    assert sum("too slow" in line for line in view.log) == 1


def test_race_pacing_scales_bot_reaction_and_closes_on_the_clock():
    table = smackdown_table()
    view, ctl = started(table)
    press(ctl, "r1\n")
    step_bot(table)
    due = table.due()
    pacing = Pacing(0.55, race_limit=3.0)
    assert pacing.race_delay(due, 0.0) == due.at and 0.25 <= due.at <= 1.25
    assert pacing.race_delay(due, 10.0) == 0.0
    assert Pacing(0.0, race_limit=3.0).race_delay(due, 0.0) == 0.0      # tests: at once
    assert Pacing(1.1, race_limit=3.0).race_delay(due, 0.0) == 2 * due.at
    close = table.close_race()
    assert close.kind == "close" and pacing.race_delay(close, 1.0) == 2.0
    assert table.human_racing()


# ---------------------------------------------------------------------- UNO Flip
FLIP_HANDS = [["RF/P2", "G5/UF", "Y1/P2", "B1/U+5", "Y6/W+C"], ["G2/W", "G3/W", "B2/U+5"]]
FLIP_DECK = ["R1/P6", "R2/P6", "R4/P5", "R5/P5", "R7/P4", "R8/P4", "Y3/P1", "Y4/P1",
             "B4/U9", "B5/U9", "B7/U8", "B8/U8"]


def test_flip_round_flips_the_table_and_types_dark_faces():
    table = stacked_table(FLIP_HANDS, FLIP_DECK, rules=make_rules("flip"))
    view, ctl = started(table)
    assert view.flip and view.side == 0 and view.colors == ("R", "Y", "G", "B")
    # Ana's cards show you their dark faces
    assert sorted(c.code for c in view.backs[1]) == ["U+5", "W", "W"] and view.backs[0] == ()
    assert not any(getattr(c, "known", True) is False for c in view.hand)
    press(ctl, "rf\n")
    assert "you flipped the table to the dark side: top P6" in view.log
    assert view.side == 1 and view.top.code == "P6" and view.color == "P"
    assert codes(view) == ["P2", "UF", "U+5", "W+C"]
    run_bots_sync(table)                           # Ana: a wild, naming purple
    assert "Ana played W, chose purple" in view.log and view.color == "U"
    # on the dark side you see Ana's light faces
    assert sorted(c.code for c in view.backs[1]) == ["B2", "G3"]
    assert "e.g. p5" in ctl.status()
    press(ctl, "tse\n")
    assert ctl.feedback() == "You don't hold TSE."
    press(ctl, "p9x\n")
    assert "'p9x' is not a card" in ctl.feedback()
    press(ctl, "w+c r\n")
    assert "'r' is not a colour on this side: P, T, O or U." == ctl.feedback()
    press(ctl, "w+c\n")                            # the picker offers the dark colours
    assert ctl.mode == "color" and "P pink, T teal, O orange, U purple" in ctl.status()
    press(ctl, "r")
    assert ctl.mode == "color" and "P, T, O or U" in ctl.feedback()
    ctl.escape()
    press(ctl, "w+co\n")                           # glued colour; Ana challenges: you held purple
    assert "you played W+C, chose orange" in view.log
    assert_no_refusal(view, ctl)
    run_bots_sync(table)
    assert "Ana challenged your wild draw: guilty (you held purple)" in view.log
    assert view.my_turn and view.phase == "play"


def test_flip_dark_side_uno_keys():
    for keys in ("!", "u\n"):
        table = stacked_table([["RF/P2", "G5/UF", "Y1/P2"], ["G2/W", "G3/W", "B2/U+5"]],
                              ["R1/P6", "R2/P6", "R4/P5", "R5/P5", "R7/P4", "R8/P4"],
                              rules=make_rules("flip"))
        view, ctl = started(table)
        press(ctl, "rf\n")                         # dark side: you hold UF P2
        run_bots_sync(table)                       # Ana: a wild
        assert view.side == 1 and view.my_turn and len(view.hand) == 2
        assert "!: UNO!" in ctl.status()
        press(ctl, "u")
        assert ctl.typed == "u"                    # U starts a purple card on the dark side
        ctl.escape()
        press(ctl, keys)
        assert view.log[-1] == "you: UNO!" and view.notice is None
        press(ctl, "uf\n")                         # U F: purple Flip, back to the light side
        assert view.side == 0 and view.colors == ("R", "Y", "G", "B")
        assert "you flipped the table to the light side" in view.log[-1]


def test_flip_light_side_wild_draw_two_challenge_prompt():
    table = stacked_table([["R1/P6", "G5/UF", "Y1/P2"], ["W+2/U5", "B1/U+5", "B2/U+5"]],
                          ["R4/P5", "R2/P6", "Y3/P1", "Y4/P1", "R5/P5"], rules=make_rules("flip"))
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)
    assert view.my_turn and view.phase == "challenge"
    assert ctl.status() == "Ana played W+2 on you: C challenge, D accept (draw 2)."
    press(ctl, "d")
    assert len(view.hand) == 4 and "you drew R2 Y3 (penalty)" in view.log


# ---------------------------------------------------------------------- deadly
def test_deadly_no_draw_while_a_card_fits_then_knocked_out():
    table = stacked_table([["R1", "G5", "B7"], ["R2", "R3", "R4"], ["R5", "R6", "R8"]],
                          ["R9", "Y1", "Y2", "Y3"], rules=make_rules("deadly"))
    view, ctl = started(table)
    press(ctl, "d")
    assert "Deadly: no drawing while a card fits" in ctl.feedback() and view.notice is None
    assert "deadly: no drawing." in ctl.status()
    press(ctl, "r1\n")
    run_bots_sync(table)                           # Ana R2 (or so), Ben a red: red again for you
    assert view.my_turn and not view.playable
    assert ctl.status() == "Your turn: nothing fits - under deadly D takes you out of the round."
    press(ctl, "d")
    assert ctl.mode == "out" and "OUT of this round" in ctl.status()
    press(ctl, "x")                                # anything else: stay
    assert ctl.mode is None and view.active == (0, 1, 2)
    press(ctl, "d")
    press(ctl, "d")                                # confirmed
    assert "you cannot play and are out of the round" in view.log
    assert view.out and 0 not in view.active and view.knocked_out == [0]
    assert ctl.status().startswith("You are out of this round")
    press(ctl, "d")
    assert "out of this round" in ctl.feedback() and view.notice is None
    run_bots_sync(table)
    assert view.result is not None and view.result.winner in (1, 2)


# ---------------------------------------------------------------------- dirty
def test_dirty_keep_your_hand_after_a_seven_and_exact_match_penalty():
    table = stacked_table([["R7", "R4", "G2"], ["R4", "B8", "B9"]],
                          ["R3", "Y1", "Y2", "Y3", "Y4", "Y5", "Y6"], rules=make_rules("dirty"))
    view, ctl = started(table)
    press(ctl, "r7\n")
    assert view.phase == "swap"
    assert ctl.status() == "Seven: type a seat number to swap hands with, or K to keep your hand."
    press(ctl, "k")
    assert view.log[-1] == "you kept your own hand"
    assert codes(view) == ["R4", "G2"] and view.turn == 1
    run_bots_sync(table)                           # Ana plays R4
    assert "Ana played R4" in view.log
    press(ctl, "r4\n")                             # the exact card: Ana draws 4
    assert "you matched Ana exactly: Ana draws 4" in view.log
    assert view.counts[1] == 2 + 4
    assert_no_refusal(view, ctl)


# ---------------------------------------------------------------------- cross-family
def test_cross_family_draws_until_playable_and_must_play_it():
    table = stacked_table([["G5", "B7"], ["R2", "R3", "R4"]],
                          ["R9", "Y1", "Y2", "R6", "Y3"], rules=make_rules("cross-family"))
    view, ctl = started(table)
    press(ctl, "d")                                # keep-drawing: Y1, Y2, then R6 fits
    assert codes(view) == ["R6", "Y1", "Y2", "G5", "B7"] and view.phase == "drawn"
    assert ctl.status() == "You drew R6: it fits, so you must play it - Enter."
    press(ctl, "k")
    assert "must be played - Enter plays R6" in ctl.feedback() and view.notice is None
    press(ctl, "\n")
    assert view.top.code == "R6"


def test_no_challenges_the_wild_draw_four_just_lands():
    table = stacked_table([["R1", "G2", "G3"], ["W+4", "B5", "B6"]],
                          ["R9", "Y1", "Y2", "Y3", "Y4", "Y5"], rules=make_rules("combo"))
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)
    assert view.phase == "challenge" and view.my_turn   # combo stacks: you may answer with a W+4
    assert ctl.status() == "Ana played W+4 on you: D to accept (draw 4)."
    press(ctl, "c")
    assert "No challenges at this table" in ctl.feedback() and view.notice is None
    press(ctl, "d")
    assert len(view.hand) == 6


def test_uno_stack_mixes_plus_two_and_plus_four():
    table = stacked_table([["R1", "W+4", "G3"], ["R+2", "B5", "B6"]],
                          ["R9"] + [f"Y{n}" for n in range(1, 10)], rules=make_rules("uno-stack"))
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)                           # Ana: R+2 on you
    assert view.pending == 2
    assert ctl.status() == "2 cards are on you: play W+4 to stack, or D to draw 2."
    press(ctl, "w+4 g\n")
    assert view.top.code == "W+4" and view.notice is None
    run_bots_sync(table)
    assert "Ana drew 6 cards (penalty)" in view.log


def test_cross_family_catch_costs_four():
    table = stacked_table([["R5", "G1", "G2"], ["R2", "R3"]], ["R9", "Y7", "Y8", "B1", "B2", "B3", "B4"],
                          rules=make_rules("cross-family"), forget=1.0, catch=0.0)
    view, ctl = started(table)
    press(ctl, "r5\n")
    run_bots_sync(table)
    assert "X: catch Ana (no UNO!, draws 4)" in ctl.status()
    press(ctl, "x")
    assert view.counts[1] == 5 and "Ana drew 4 cards (caught without UNO)" in view.log


def test_view_has_no_hidden_faces_of_others():
    table = stacked_table(FLIP_HANDS, FLIP_DECK, rules=make_rules("flip"))
    view, _ctl = attach(table)
    table.start()
    # the only faces of Ana's cards the view holds are the ones the table sees
    ana_faces = {c.code for c in table.rnd.hands[1]}
    assert not ana_faces & {c.code for c in view.backs[1]}


def test_a_bot_thinks_as_long_over_a_drawn_card_that_does_not_fit():
    """Play-or-keep after a draw: the think time must not show whether the card fitted."""
    import random

    from unonet.engine import Draw
    from unonet.engine._round import DRAWN
    from unonet.tui.local import Due

    from .helpers import stacked_table

    times = {}
    for deck in (["R5", "R7", "R4"], ["R5", "G7", "R4"]):  # the drawn card fits / does not
        # seat 1 holds one card: after the draw, two (a bot playing down to one used to wait longer)
        table = stacked_table([["B1", "B2"], ["Y3"], ["B5", "B6"]], deck, dealer=0)
        table.start()
        rnd = table.rnd
        assert rnd.turn == 1
        rnd.apply(Draw(1))
        assert rnd.phase is DRAWN
        due = table.due()
        assert due.kind == "turn" and due.seat == 1
        times[deck[1]] = [Pacing(0.55, rng=random.Random(k)).delay(due, table) for k in range(50)]
    assert times["R7"] == times["G7"]
