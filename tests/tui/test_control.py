"""Keys as the controller understands them, against stacked-deck local tables."""

from __future__ import annotations

from unonet.engine import make_rules
from unonet.tui import feed
from unonet.tui.local import run_bots_sync

from .helpers import codes, stacked_table, started


def press(ctl, keys: str):
    """Printable keys; '\\n' is Enter."""
    for ch in keys:
        if ch == "\n":
            ctl.enter()
        else:
            ctl.key(ch)


def test_type_notation_to_play_and_explanations_for_bad_input():
    table = stacked_table([["R1", "G5", "B7"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8"])
    view, ctl = started(table)
    press(ctl, "g5\n")
    assert "G5 doesn't fit on R9 (colour in force: red)" in ctl.feedback()
    assert codes(view) == ["R1", "G5", "B7"]
    press(ctl, "r3\n")
    assert ctl.feedback() == "You don't hold R3."
    press(ctl, "r")
    press(ctl, "%")
    assert "not part of a card" in ctl.feedback() and ctl.typed == "r"
    ctl.backspace()
    press(ctl, "r1")
    assert "> r1_" in ctl.feedback()
    ctl.enter()
    assert "you played R1" in view.log and ctl.typed == ""
    run_bots_sync(table)
    # Ana (no red, no 1) drew Y7 and kept it
    assert "Ana drew 1 card" in view.log and view.my_turn


def test_arrows_and_enter_play_the_selected_card_and_cursor_starts_on_playable():
    table = stacked_table([["B7", "G5", "R1"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8"])
    view, ctl = started(table)
    assert ctl.selected_card().code == "R1"  # the only playable card
    ctl.move(1)
    assert ctl.selected_card().code == "G5"
    ctl.enter()
    assert "doesn't fit" in ctl.feedback()
    ctl.next_playable()
    assert ctl.selected_card().code == "R1"
    ctl.enter()
    assert view.top.code == "R1"


def test_wild_opens_colour_picker_or_takes_a_typed_colour():
    table = stacked_table([["W", "W+4", "G5", "G6"], ["B2", "B3", "B4", "B5"]], ["R9", "Y7", "Y8", "Y9"])
    view, ctl = started(table)
    press(ctl, "w\n")
    assert ctl.mode == "color" and "which colour" in ctl.status()
    press(ctl, "x")
    assert ctl.mode == "color" and "Pick a colour" in ctl.feedback()
    press(ctl, "g")
    assert ctl.mode is None and view.top.code == "W" and view.color == "G"
    assert "you played W, chose green" in view.log
    run_bots_sync(table)  # Ana: no green, draws
    press(ctl, "w+4 blue\n")
    assert view.top.code == "W+4" and view.color == "B"


def test_uno_with_the_play_by_bang_or_by_key():
    table = stacked_table([["R1", "R2"], ["B2", "B3", "B4"]], ["R9", "Y7", "R3"])
    view, ctl = started(table)
    press(ctl, "u")  # two cards on my turn: a valid call
    assert "you: UNO!" in view.log
    press(ctl, "r1\n")
    assert view.me in view.uno and view.catchable is None
    table2 = stacked_table([["R1", "R2"], ["B2", "B3", "B4"]], ["R9", "Y7", "R3"])
    view2, ctl2 = started(table2)
    press(ctl2, "r1!\n")
    assert view2.log[-1] == "you: UNO!" and 0 in view2.uno


def test_false_uno_is_not_sent():
    table = stacked_table([["R1", "R2", "R3"], ["B2", "B3", "B4"]], ["R9", "Y7"])
    view, ctl = started(table)
    press(ctl, "u")
    assert "false call costs 2" in ctl.feedback()
    assert len(view.hand) == 3 and not any("UNO" in line for line in view.log)


def test_catch_a_bot_that_forgot_uno():
    table = stacked_table([["R5", "G1", "G2"], ["R2", "R3"]], ["R9", "Y7", "Y8", "B1", "B2"],
                          forget=1.0, catch=0.0)
    view, ctl = started(table)
    press(ctl, "r5\n")
    run_bots_sync(table)
    assert view.counts[1] == 1 and view.can_catch == 1
    assert "X: catch Ana (no UNO!)" in ctl.status()
    press(ctl, "x")
    assert "you caught Ana without UNO" in view.log
    assert view.counts[1] == 3 and view.can_catch is None


def test_bots_catch_you_if_you_forget():
    table = stacked_table([["R1", "R2", "G7"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8", "Y9", "B9"],
                          catch=1.0)
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)  # Ana drew Y7, kept it
    press(ctl, "r2\n")    # down to one card, no UNO
    run_bots_sync(table)
    assert "Ana caught you without UNO" in view.log
    assert len(view.hand) == 3


def test_challenge_an_innocent_wild_draw_four_shows_the_evidence_to_you():
    table = stacked_table([["R1", "G2", "G3"], ["W+4", "B5", "B6"]],
                          ["R9"] + ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7", "Y8"])
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)
    assert view.my_turn and view.phase == "challenge"
    assert ctl.status() == "Ana played W+4 on you: C challenge, D accept (draw 4)."
    press(ctl, "g2\n")
    assert "Wild Draw Four is on you" in ctl.feedback()
    press(ctl, "c")
    assert view.evidence is not None and view.evidence[0] == 1
    assert sorted(c.code for c in view.evidence[1]) == ["B5", "B6"]
    assert "Ana's hand was: B5 B6" in view.log
    assert "you challenged Ana's wild draw: innocent (Ana held no red)" in view.log
    assert len(view.hand) == 2 + 6


def test_accept_a_wild_draw_four_with_d():
    table = stacked_table([["R1", "G2", "G3"], ["W+4", "B5", "B6"]],
                          ["R9"] + ["Y1", "Y2", "Y3", "Y4", "Y5"])
    view, ctl = started(table)
    press(ctl, "r1\n")
    run_bots_sync(table)
    press(ctl, "d")
    assert len(view.hand) == 2 + 4 and "you drew Y1 Y2 Y3 Y4 (penalty)" in view.log


def test_keep_the_drawn_card_and_enter_plays_it():
    table = stacked_table([["G5", "G6"], ["B2", "B3", "B4"]], ["R9", "R3", "Y7", "R4"])
    view, ctl = started(table)
    press(ctl, "k")
    assert "draw first" in ctl.feedback()
    press(ctl, "d")
    assert view.phase == "drawn" and ctl.selected_card().code == "R3"
    press(ctl, "g5\n")
    assert "only R3 may be played" in ctl.feedback()
    press(ctl, "d")
    assert "You already drew" in ctl.feedback()
    press(ctl, "k")
    assert "you kept the drawn card" in view.log
    run_bots_sync(table)
    press(ctl, "d")  # R4 matches R3
    ctl.move(1)
    ctl.enter()      # Enter plays the drawn card whatever is selected
    assert view.top.code == "R4"


def test_a_drawn_card_that_does_not_fit_is_kept_with_enter_or_k():
    for key in ("\n", "k"):
        for house in ((), ("draw-and-play",)):
            table = stacked_table([["G5", "G6"], ["B2", "B3", "B4"]], ["R9", "Y7", "R3"],
                                  rules=make_rules(house=list(house)))
            view, ctl = started(table)
            press(ctl, "d")
            assert view.phase == "drawn" and view.my_turn and view.drawn.code == "Y7"
            assert "You drew Y7, which cannot be played: Enter or K keeps it." in ctl.status()
            press(ctl, "y7\n")
            assert "Y7, which doesn't fit: Enter or K keeps it" in ctl.feedback() and view.notice is None
            press(ctl, "d")
            assert "Y7 doesn't fit, Enter or K keeps it" in ctl.feedback()
            press(ctl, key)
            assert view.notice is None and not view.my_turn and "you kept the drawn card" in view.log
            assert sorted(codes(view)) == ["G5", "G6", "Y7"]


def test_draw_and_play_makes_a_drawn_card_that_fits_be_played():
    table = stacked_table([["G5", "G6"], ["B2", "B3", "B4"]], ["R9", "R3", "Y7"],
                          rules=make_rules(house=["draw-and-play"]))
    view, ctl = started(table)
    press(ctl, "d")
    assert "You drew R3: it fits, so you must play it - Enter." in ctl.status()
    press(ctl, "k")
    assert "must be played" in ctl.feedback() and view.my_turn
    press(ctl, "\n")
    assert view.top.code == "R3"


def test_first_discard_wild_names_the_colour():
    table = stacked_table([["R1", "G5"], ["B2", "B3", "B4"]], ["W", "Y7"])
    view, ctl = started(table)
    assert view.phase == "color" and "name the colour" in ctl.status()
    press(ctl, "g")
    assert view.color == "G" and "you named green" in view.log


def test_seven_o_swap_by_seat_number():
    rules = make_rules(house=["seven-o"])
    table = stacked_table([["R7", "G1", "G2"], ["B2", "B3", "B4", "B5"]], ["R9", "Y7"], rules=rules)
    view, ctl = started(table)
    press(ctl, "r7\n")
    assert view.phase == "swap" and "swap hands" in ctl.status()
    press(ctl, "0")
    assert "not someone you can swap with" in ctl.feedback()
    press(ctl, "1")
    assert codes(view) == ["B2", "B3", "B4", "B5"]
    assert "you swapped hands with Ana" in view.log


def test_jump_in_out_of_turn():
    rules = make_rules(house=["jump-in"])
    # dealer is you (seat 0): Ana leads with her R5; you hold the other R5
    table = stacked_table([["R5", "G1", "G2"], ["R5", "B1", "B2"], ["Y1", "Y2", "Y3"]],
                          ["R9", "Y7", "Y8"], rules=rules, dealer=0)
    view, ctl = attach_and_start_one(table)
    assert not view.my_turn and view.top.code == "R5" and view.turn == 2
    assert "J: jump in with R5" in ctl.status()
    press(ctl, "j")
    assert "you jumped in with R5" in view.log
    assert view.turn == 1


def attach_and_start_one(table):
    from .helpers import attach

    view, ctl = attach(table)
    table.start()
    table.perform(table.due())  # just Ana's lead
    return view, ctl


def test_not_your_turn_and_quit_and_help():
    table = stacked_table([["R5", "G1", "G2"], ["R6", "B1", "B2"], ["Y1", "Y2", "Y3"]],
                          ["R9", "Y7", "Y8"], dealer=0)
    view, ctl = attach_and_start_one(table)
    press(ctl, "g1\n")
    assert ctl.feedback() == "Wait: it's Ben's turn."
    press(ctl, "d")
    assert ctl.feedback() == "Wait: it's Ben's turn."
    press(ctl, "?")
    assert ctl.mode == "help"
    press(ctl, " ")
    assert ctl.mode is None
    press(ctl, "q")
    assert ctl.mode == "quit" and ctl.status().startswith("Quit the match?")
    press(ctl, "n")
    assert ctl.mode is None and not ctl.quit
    press(ctl, "qy")
    assert ctl.quit


def test_round_over_enter_deals_the_next_round():
    table = stacked_table([["R1", "R2"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8", "Y9"],
                          rules=make_rules(target=500))
    view, ctl = started(table)
    press(ctl, "r1!\n")
    run_bots_sync(table)  # Ana draws Y7 and keeps it
    press(ctl, "\n")     # the cursor is on R2, the only card
    assert view.result is not None and view.result.winner == 0
    assert view.result.points == 2 + 3 + 4 + 7
    assert ctl.status() == "Round over. Enter: deal the next round."
    press(ctl, "d")
    assert "round is over" in ctl.feedback()
    press(ctl, "\n")
    assert view.result is None and view.round_no == 2 and len(view.hand) == 2
    assert view.scores == [16, 0]


def test_feedback_ends_with_the_next_table_event():
    table = stacked_table([["R5", "G1", "G2"], ["R6", "B1", "B2"], ["Y1", "Y2", "Y3"]],
                          ["R9", "Y7", "Y8"], dealer=0)
    view, ctl = attach_and_start_one(table)
    press(ctl, "x")
    assert ctl.feedback().startswith("Nobody to catch")
    table.perform(table.due())  # Ben moves (draws Y7): the old explanation goes
    assert ctl.feedback() == ""
    table.perform(table.due())  # and keeps it (it does not fit on R6)
    # a refusal from the table lasts until the table's next event too
    assert view.my_turn
    view.apply(feed.Refused("Not now", None))
    assert ctl.feedback() == "Not now"
    press(ctl, "d")  # the draw is the table's next event
    assert ctl.feedback() == "" and view.notice is None
    # a move that lost its race to another (the host's `stale`) is news, not the host's jargon
    view.apply(feed.Refused("stale: too late: illegal catch of seat 1 by seat 0: seat 1 holds more than one card",
                            None, code="stale"))
    assert ctl.feedback() == "Too late: the table moved on before your move reached it."


def test_q_quits_at_once_when_the_match_is_over():
    table = stacked_table([["R1"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8", "Y9"],
                          rules=make_rules(target=9))
    view, ctl = started(table)
    press(ctl, "r1\n")  # out: 9 points, and the match (target 9) is won
    assert view.match_over, view.result
    press(ctl, "q")
    assert ctl.quit and ctl.mode is None


def test_power_d_explains_that_a_held_wild_draw_four_must_be_played():
    table = stacked_table([["W+4", "B9"], ["Y6", "Y7"]], ["R8", "G9", "B8"], rules=make_rules("power"))
    view, ctl = started(table)
    assert view.my_turn
    press(ctl, "d")
    assert ctl.feedback() == "You hold a Wild Draw Four: no drawing, play it (must-play-wd4)."
    assert view.notice is None and len(view.hand) == 2


def test_a_wild_draw_four_under_the_cursor_that_would_be_a_bluff_says_so():
    """Issue 21 item 10: holding red with red in force, W+4 is offered (bluffing is allowed) but
    the screen says it is a bluff a challenge would catch; with no red it says nothing."""
    table = stacked_table([["R1", "W+4", "B7"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8"])
    view, ctl = started(table)
    ctl.home(end=True)
    assert ctl.selected_card().code == "W+4"
    assert "W+4 now is a bluff: you hold R1 (red is in force)" in ctl.feedback()
    ctl.home()
    assert "bluff" not in ctl.feedback()
    honest = stacked_table([["G1", "W+4", "B7"], ["B2", "B3", "B4"]], ["R9", "Y7", "Y8"])
    view, ctl = started(honest)
    ctl.home(end=True)
    assert ctl.selected_card().code == "W+4" and "bluff" not in ctl.feedback()
