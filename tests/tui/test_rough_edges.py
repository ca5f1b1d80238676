"""The client's rough edges (issue 10, item 4): each one, on the real Application."""

from __future__ import annotations

import asyncio
import io
import re

import pytest
from prompt_toolkit.input import create_pipe_input

from unonet.engine import make_rules
from unonet.tui import feed
from unonet.tui.app import run_local_async
from unonet.tui.layout import STYLE
from unonet.tui.screen import card_style, help_sections, match_text, result_lines
from unonet.tui.local import LocalTable, Pacing, seat_names

from .helpers import stacked_table
from .test_app import SizedOutput, screen_text, started_app


def help_body(view, width=80) -> str:
    return "\n".join(text for section in help_sections(view, width) for _style, text in section)


def key_column(body: str) -> list[str]:
    """The keys of the help's Keys section (the text in its key column)."""
    return [line[2:17].strip() for line in body.splitlines() if line.startswith("  ") and line[2:3] != " "]


def test_flip_help_names_flips_cards_not_the_classic_decks():
    with started_app(LocalTable(make_rules("flip"), seat_names("Zoe", 3), seed=5)) as ui:
        body = help_body(ui.view)
        keys = key_column(body)
        assert "r7 gs b+1 yf" in keys and "w g, w+2 r" in keys and "w o, w+c o" in keys
        assert "+1 or F (flip)" in body and "Wild Draw Two or Colour" in body
        # Flip has no W+4, no +2 card, no Wild Draw Four
        assert "W+4" not in body and "b+2" not in body and "Wild Draw Four" not in body
        assert "A wild draw (W+2, W+C) is legal only when" in " ".join(body.split())
    with started_app(LocalTable(make_rules(), seat_names("Zoe", 3), seed=5)) as ui:
        body = help_body(ui.view)
        assert "w g, w+4 r" in key_column(body) and "W+2" not in body and "+1 or F" not in body


@pytest.mark.parametrize("house,jump,swap", [((), False, False), (("jump-in",), True, False),
                                             (("seven-o",), False, True), (("jump-in", "seven-o"), True, True)])
def test_help_lists_only_the_keys_these_rules_have(house, jump, swap):
    with started_app(LocalTable(make_rules(house=list(house)), seat_names("Zoe", 3), seed=5)) as ui:
        keys = key_column(help_body(ui.view))
        assert ("J" in keys) is jump and ("0-9" in keys) is swap
        assert "SPACE  !" not in keys  # no race card in these rules
    with started_app(LocalTable(make_rules("smackdown"), seat_names("Zoe", 3), seed=5)) as ui:
        assert "SPACE  !" in key_column(help_body(ui.view))
    with started_app(LocalTable(make_rules("dirty"), seat_names("Zoe", 3), seed=5)) as ui:
        body = help_body(ui.view)  # wd4-strict: refused, never challenged
        assert "C  X" not in key_column(body) and "X" in key_column(body)
        assert "refused while you hold the colour in force or the top card's number" in " ".join(body.split())


def test_cut_off_cards_say_how_many_more_never_plus_n():
    table = stacked_table([["R1"], ["B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "G1", "G2", "G3", "G4",
                                    "G5", "G6", "G7", "G8", "G9"]], ["R9", "Y7"])
    with started_app(table) as ui:
        ui.ctl.key("r")
        ui.ctl.key("1")
        ui.ctl.enter()
        assert ui.view.result is not None
        row = next(t for _s, t in result_lines(ui.view, 24, 80) if "Ana" in t)
        assert len(row) < 80 and row.endswith("more)")
        cards = row[49:].split()
        n = int(cards[-2].lstrip("("))
        assert n == 17 - (len(cards) - 2) and n > 1
        assert not any(c.startswith("+") for c in cards)


def test_team_totals_line_up_and_a_winning_team_wins_rather_than_needing_zero():
    rules = make_rules(teams=True, target=1)
    table = stacked_table([["R1"], ["B2", "W"], ["G3"], ["Y+2", "B5"]], ["R9", "Y7"], rules=rules)
    table.names = ["王小明", "Ana", "Bartholomew Fox", "Cleo"]
    with started_app(table) as ui:
        ui.ctl.key("r")
        ui.ctl.key("1")
        ui.ctl.enter()
        lines = screen_text(ui)
        teams = [ln for ln in lines if ln.startswith(" Team ")]
        assert len(teams) == 2, lines
        assert "0 to go" not in "\n".join(teams) and "to reach" not in "\n".join(teams)
        assert teams[0].endswith("77 points, wins the match") and teams[1].endswith("    0 points, 1 to go")
        from unonet.names import width
        # the points stand in the same terminal column on both lines (a wide name counts 2 cells)
        assert len({width(ln[: ln.index(" points")]) for ln in teams}) == 1, teams


def test_a_seat_at_the_target_has_nothing_to_go_on_the_result_screen():
    """Not "0" under "to go" for the one who reached the target; the others' distance stands."""
    table = stacked_table([["R1"], ["B2", "W"]], ["R9", "Y7"], rules=make_rules(target=40))
    with started_app(table) as ui:
        ui.ctl.key("r")
        ui.ctl.key("1")
        ui.ctl.enter()
        rows = [t for _s, t in result_lines(ui.view, 24, 80)]
        me = next(t for t in rows if t.startswith(" *"))
        other = next(t for t in rows if "Ana" in t)
        assert me.split()[3:] == ["0", "52"], rows  # left in hand, total: then nothing to go
        assert other.split()[3:6] == ["52", "0", "40"], rows  # left, total, to go
        panel = "".join(t for _s, t in match_text(ui.view))  # the match panel beside the table
        assert "52 pts\n" in panel and "0 pts    40 to go" in panel and " 0 to go" not in panel, panel


@pytest.mark.parametrize("columns", [41, 45, 50, 55, 60, 63, 64, 70, 80])
def test_the_log_is_never_a_sliver(columns):
    table = stacked_table([["R1", "G2", "G3"], ["B1", "B2", "B3"]], ["R9", "Y7", "Y8", "Y9"])
    with started_app(table) as ui:
        ui.view.log.append("Ana played a very long sentence of a log entry that has to wrap somewhere")
        lines = screen_text(ui, rows=30, columns=columns)
        text = "\n".join(lines)
        assert "Window too small" not in text
        start = next(ln for ln in lines if "Ana played a very" in ln)
        if columns >= 64:  # beside the table, at least 23 columns wide
            assert columns - start.index("|") - 1 >= 23
        else:  # under the table, as wide as the screen
            assert "|" not in text and start.startswith(" Ana played a very long sentence of a")
        assert all(f"{s} {n}" in text for s, n in enumerate(table.names))


def test_window_too_small_takes_no_move_blind_but_q_still_quits():
    table = stacked_table([["R1", "G2", "G3"], ["B1", "B2", "B3"], ["Y1", "Y2"], ["B4", "B5"]],
                          ["R9", "Y7", "Y8", "Y9"])
    with started_app(table) as ui:
        v = ui.view
        assert v.my_turn
        assert "Window too small" in "\n".join(screen_text(ui, rows=12, columns=40))
        version, hand = table.version, list(v.hand)
        ui.ctl.enter()
        for ch in "r1":
            ui.ctl.key(ch)
        ui.ctl.enter()
        ui.ctl.key("d")
        ui.ctl.move(1)
        assert table.version == version and v.hand == hand  # nothing was played or drawn
        assert "too small" in ui.ctl.feedback()
        # big enough again: Enter plays the selected card
        assert "Window too small" not in "\n".join(screen_text(ui, rows=24, columns=80))
        ui.ctl.enter()
        assert table.version > version and v.top.code == "R1"
        assert "Window too small" in "\n".join(screen_text(ui, rows=12, columns=40))
        ui.ctl.key("q")
        assert ui.ctl.mode == "quit"
        ui.ctl.key("y")
        assert ui.ctl.quit


def test_unplayable_cards_keep_their_colour_dimmed():
    def rgb(style):
        c = STYLE.get_attrs_for_style_str(style).color
        return tuple(int(c[i:i + 2], 16) for i in (0, 2, 4))

    table = stacked_table([["R1", "G5", "B3", "Y4", "W"], ["B2", "B3", "B4"]], ["R9", "Y7"])
    with started_app(table) as ui:
        for card in ui.view.hand:
            bright, dim = rgb(card_style(card)), rgb(card_style(card, False))
            assert dim != bright and sum(dim) < sum(bright)
            # the same hue: the strongest channel stays the strongest (not a grey)
            assert max(range(3), key=bright.__getitem__) == max(range(3), key=dim.__getitem__)
            assert len(set(dim)) > 1
            assert not STYLE.get_attrs_for_style_str(card_style(card, False)).bold


def test_the_move_that_ended_the_round_is_on_the_result_screen():
    table = stacked_table([["R+2"], ["B2", "W"], ["G3", "G4"]], ["R9", "Y7", "Y8", "Y9"])
    with started_app(table) as ui:
        ui.ctl.key("r")
        ui.ctl.key("+")
        ui.ctl.key("2")
        ui.ctl.enter()
        text = " ".join(" ".join(screen_text(ui)).split())
        assert "Round 1 over: You go out" in text
        assert "How it ended: you played R+2; Ana drew 2 cards" in text


def test_a_wide_terminal_grows_the_seats_panel_and_the_log():
    table = stacked_table([["R1", "G2"], ["B1", "B2", "B3"], ["Y1", "Y2", "Y3"]], ["R9", "Y7", "Y8"])
    table.names = ["Maximilian Gross-Hohenstein", "Ana", "Bartholomew Fox"]
    with started_app(table) as ui:
        ui.view.log.append("Ana said: " + "a long line of the log " * 6)
        lines = screen_text(ui, rows=50, columns=200)
        seats = [ln for ln in lines if ln[1:2].isdigit() and " card" in ln]
        assert len(seats) == 3
        bar = seats[0].index("|")
        assert bar >= 64  # the panel grew from 40 columns
        assert "0 Maximilian Gross-Hohens\u2026" in seats[0] and "2 Bartholomew Fox" in seats[2]
        assert all(" pts" in ln for ln in seats)  # each seat's match points
        log = next(ln for ln in lines if "Ana said:" in ln)
        assert len(log[bar + 1:].rstrip()) > 100  # the log uses the width that is left
        assert len(lines) == 50 and any(ln.startswith(" Your hand") for ln in lines[-5:])
        # the rows under the table hold the match so far and the rules, not blank space
        left = [ln[:bar].rstrip() for ln in lines[1:-5] if len(ln) > bar and ln[bar] == "|"]
        assert " Match: first to 500" in left and " Rules" in left
        assert sum(1 for ln in left if ln.strip()) >= 14
        assert "Match: first to" not in "\n".join(screen_text(ui, rows=24, columns=80))


def test_leaving_prints_the_standings_on_the_terminal():
    out = io.StringIO()

    async def main():
        with create_pipe_input() as inp:
            task = asyncio.ensure_future(run_local_async(
                make_rules(), seat_names("Zoe", 3), seed=4, pacing=Pacing(0.0),
                input=inp, output=SizedOutput(), stdout=out))
            await asyncio.sleep(0.3)  # the deal (the bots play at once)
            assert not task.done()
            inp.send_text("qy")
            return await asyncio.wait_for(task, 5)

    assert asyncio.run(main()) == 0
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("unonet: you left during round 1, first to 500 wins")
    assert sorted(ln.split(".", 1)[1].split()[0] for ln in lines[1:]) == ["Ana", "Ben", "Zoe"]
    assert any("Zoe (you)" in ln and ln.rstrip().endswith("0 points") for ln in lines[1:])


def test_standings_after_a_won_match_name_the_winner_and_the_teams():
    from unonet.tui.view import TableView

    v = TableView(0)
    v.apply(feed.TableInfo(("Zoe", "Ana", "Ben", "Cleo"), 0, "official", (), "official", True, 100,
                           "standard", "classic"))
    v.apply(feed.RoundStarted(3, 1, (60, 0, 0, 20)))
    v.apply(feed.RoundScored(3, 0, 45, (0, 10, 20, 15), ((), (), (), ()), (105, 0, 0, 20),
                             (105, 20), True, 0))
    lines = v.standings()
    assert lines[0] == "unonet: match over after round 3: team A (Zoe & Ben) - your team - wins."
    assert lines[1].strip().startswith("1. Zoe (you)") and lines[1].rstrip().endswith("105 points  team A")
    assert lines[-2] == "  team A (yours): Zoe & Ben, 105 points" and lines[-1] == "  team B: Ana & Cleo, 20 points"


def test_flip_backs_cut_off_say_how_many_more():
    from unonet.tui.screen import backs_fragments

    table = LocalTable(make_rules("flip"), seat_names("Zoe", 6), seed=5)
    with started_app(table) as ui:
        v = ui.view
        seat = 1
        backs = v.backs[seat]
        assert len(backs) >= 7
        frags = backs_fragments(v, seat, 20)
        text = "".join(t for _s, t in frags)
        assert len(text) <= 20 and text.endswith(" more)")
        shown = text.split(" (")[0].split()
        assert int(text.rsplit("(", 1)[1].split()[0]) == len(backs) - len(shown)
        assert "+" not in text.split(" (")[1]
        # with room for all of them: every face, no "more"
        assert "more" not in "".join(t for _s, t in backs_fragments(v, seat, 200))


def test_standings_of_a_partners_match_place_each_player_with_their_team():
    """The play-test's Ana read, after her team won 176 to 0 (her partner went out): "1. Ben
    (bot) 176 / 2. Hal 0 / 2. Ana (you) 0 / 2. Bo 0" - placed with the losers, tied with
    them.  With partners the match is won by a team: a player's place is their team's, the
    team's own points (who went out) order the partners."""
    from unonet.tui.view import TableView

    v = TableView(1)
    v.apply(feed.TableInfo(("Hal", "Ana", "Bo", "Ben (bot)"), 1, "official", (), "official", True, 100,
                           "standard", "classic"))
    v.apply(feed.RoundStarted(1, 2, (0, 0, 0, 0)))
    v.apply(feed.RoundScored(1, 3, 176, (152, 75, 24, 0), ((), (), (), ()), (0, 0, 0, 176),
                             (0, 176), True, 1))
    lines = v.standings()
    assert lines[0] == "unonet: match over after round 1: team B (Ana & Ben (bot)) - your team - wins."
    assert [ln.split()[:2] for ln in lines[1:5]] == [["1.", "Ben"], ["1.", "Ana"], ["2.", "Hal"], ["2.", "Bo"]], lines
    assert lines[-2:] == ["  team A: Hal & Bo, 0 points", "  team B (yours): Ana & Ben (bot), 176 points"], lines


def test_the_too_small_notice_goes_once_the_table_fits_again():
    """play8: a key pressed while "Window too small..." covered the table left the notice "The
    window is too small to show the table: enlarge it to play (q quits)." under the table once
    the terminal was enlarged (60x20, our turn, nothing else happening) - and its two lines
    kept a 50x16 terminal, where the table fits without them, too small."""
    table = stacked_table([["R1", "G2", "G3"], ["B1", "B2", "B3"], ["Y1", "Y2"], ["B4", "B5"]],
                          ["R9", "Y7", "Y8", "Y9"])
    with started_app(table) as ui:
        fits = "\n".join(screen_text(ui, rows=16, columns=50))
        assert "Window too small" not in fits, fits
        assert "Window too small" in "\n".join(screen_text(ui, rows=12, columns=40))
        ui.ctl.key("d")
        assert "too small" in ui.ctl.feedback()
        text = "\n".join(screen_text(ui, rows=16, columns=50))
        assert "Window too small" not in text and "too small" not in text, text
        assert "too small" not in "\n".join(screen_text(ui, rows=20, columns=60))


def test_the_rules_in_force_say_how_the_house_rules_work_together():
    """play8: Cross Family's help said "keep-drawing: drawing goes on until a playable card
    comes (then play it or keep it)" beside "draw-and-play: a playable card you drew must be
    played (no keeping it)" - keeping is not allowed there.  And `unonet rules` (and the help
    of UNO Stack) said mixed stacking is Cowboy's, whose preset stacks +2 on +2 and +4 on +4
    only."""
    from unonet.engine import HOUSE_RULES, PRESETS

    for preset in ("cross-family", "official"):
        house = ["keep-drawing"] if preset == "official" else []
        table = LocalTable(make_rules(preset, house), ["You", "Ana"], seed=1)
        with started_app(table) as ui:
            text = " ".join(" ".join(t.split()) for _s, t in help_sections(ui.view, 100)[1])
            assert ("or keep it" in text) == (preset == "official"), text
            if preset == "cross-family":
                assert "keep-drawing: drawing goes on until a playable card comes, which must be played" in text
    for rule, words in HOUSE_RULES.items():  # a preset named in a house rule's words holds that rule
        for p in PRESETS:
            title = p.summary.split(":")[0].removesuffix(" UNO")  # "Cowboy", "UNO Stack"
            if title in words:
                assert rule in p.house, (rule, p.name)


def test_uno_stack_help_does_not_say_never_mixed_and_special_decks_say_what_their_cards_do():
    """play8: UNO Stack's help listed "stacking: +2 on +2 and +4 on +4 (never mixed)" right
    above "stacking-mixed: stacking that mixes +2 and +4"; the 2018 and Office help named no
    WS, WC or WK card, which a newcomer holds without a word on what it does."""
    said = {}
    for preset in ("uno-stack", "2018", "office", "official"):
        table = LocalTable(make_rules(preset), ["You", "Ana"], seed=1)
        with started_app(table) as ui:
            said[preset] = " ".join(" ".join(t.split()) for _s, t in help_sections(ui.view, 100)[1])
    assert "never mixed" not in said["uno-stack"] and "stacking-mixed" in said["uno-stack"], said["uno-stack"]
    assert "WS (Wild Shuffle Hands)" in said["2018"] and "WC (Wild Customizable)" in said["2018"]
    assert "WK (Wild Kevin's Famous Chili)" in said["office"] and "draws 2" in said["office"]
    assert not any(w in said["official"] for w in ("WS", "WK", "WC"))


def small_team_result(ui):
    ui.ctl.key("r")
    ui.ctl.key("1")
    ui.ctl.enter()
    assert ui.view.result is not None


def team_table():
    rules = make_rules(teams=True, target=500)
    table = stacked_table([["R1"], ["B2", "W", "G4", "Y5", "B7", "R8"], ["G3", "G6"], ["Y+2", "B5", "R5"]],
                          ["R9", "Y7"], rules=rules)
    table.names = ["You", "Ana", "Bartholomew Fox", "Cleo"]
    return table


def test_at_50x16_a_team_result_keeps_both_team_totals_and_a_readable_cards_column():
    """The play-tester's 50x16 screen lost team B's total and the Enter line, and cut the cards
    column to "(6" and the team A line mid-word: the seat numbers go first, then blank lines
    and how it ended, never the totals."""
    with started_app(team_table()) as ui:
        small_team_result(ui)
        lines = screen_text(ui, rows=16, columns=50)
        text = "\n".join(lines)
        assert "Window too small" not in text
        teams = [ln for ln in lines if ln.startswith(" Team ")]
        assert len(teams) == 2, lines
        assert teams[0].endswith("106 points, 394 to go") and teams[1].endswith("0 points, 500 to go"), teams
        assert " Enter: deal the next round." in text
        rows = {ln.split()[1]: ln for ln in lines if re.match(r" [* ][AB]     \S", ln)}
        assert set(rows) == {"You", "Ana", "Bartholomew…", "Cleo"}, lines
        # each hand left is shown (whole when it fits: play10), or begun with its first card and "(N more)"
        assert rows["Bartholomew…"].endswith("G3 G6") and rows["Cleo"].endswith("R5 Y+2 B5"), rows
        assert rows["Ana"].endswith("R8 (5 more)"), rows
        assert all(len(ln) <= 49 for ln in lines[:11]), lines


def test_with_teams_the_result_says_which_figure_is_the_players_and_which_the_teams():
    """Beside the team totals, a player's column of points is the player's own, not a total."""
    for rows, columns in ((24, 80), (16, 50)):
        with started_app(team_table()) as ui:
            small_team_result(ui)
            lines = screen_text(ui, rows=rows, columns=columns)
            titles = next(ln for ln in lines if ln.startswith("  team "))
            assert "own pts" in titles and "total" not in titles, lines
            assert any(ln.endswith("106 points, 394 to go") and ln.startswith(" Team A") for ln in lines)
            if rows == 24:
                assert " The teams' totals (first to 500):" in lines, lines


@pytest.mark.parametrize("rows", [16, 17, 18, 20])
def test_at_50_columns_what_happened_is_never_an_empty_panel(rows):
    """At 50x16 the log under the table had no row left: two rules with nothing between.
    Now its newest line shows (in place of its title, or of the rule when even that is short)."""
    with started_app(team_table()) as ui:
        ui.view.log.append("Cleo played a long, long sentence of a log entry to be cut at the edge")
        lines = screen_text(ui, rows=rows, columns=50)
        assert "Window too small" not in "\n".join(lines)
        rules = [i for i, ln in enumerate(lines) if set(ln) == {"-"}]
        assert all(b - a > 1 for a, b in zip(rules, rules[1:])), lines  # something between every two rules
        assert any(ln.startswith(" Cleo played a long") for ln in lines), lines


def test_an_empty_hand_on_the_result_is_one_row_and_a_long_match_over_wraps():
    """play10 at 50x16: "Your hand (0 cards)" took two rows (a blank one under it) after we
    went out, and a long match-over headline was cut at the screen's edge; a standings row
    with no room for even one card read "(3 more)" beside nothing."""
    from unonet.tui.screen import cards_text
    from unonet.engine import CardPool

    rules = make_rules(teams=True, target=50)
    table = stacked_table([["R1"], ["B2", "W", "G4", "Y5", "B7", "R8"], ["G3", "G6"], ["Y+2", "B5", "R5"]],
                          ["R9", "Y7"], rules=rules)
    table.names = ["You", "Ana", "Bartholomew Fox", "Cleo"]
    with started_app(table) as ui:
        small_team_result(ui)
        assert ui.view.result.match_over
        for columns, rows in ((50, 16), (60, 20), (80, 24)):
            lines = screen_text(ui, rows=rows, columns=columns)
            i = next(k for k, ln in enumerate(lines) if ln.startswith(" Your hand (0 cards)"))
            assert lines[i + 1].startswith(" Match over:"), lines    # the status right under it
            over = [ln for ln in lines if "Match over:" in ln and "***" in ln]
            head = " ".join(ln.strip() for ln in lines[lines.index(over[0]):] if ln.strip())
            assert "team A (You & Bartholomew Fox) - your team - wins! ***" in head, lines
            assert all(len(ln) <= columns for ln in lines), lines
    pool = CardPool(make_rules().deck)
    hand = [pool.take(c) for c in ("Y+2", "G4", "G6")]
    assert cards_text(hand, 10) == "Y+2 G4 G6"
    assert cards_text(hand, 11) == "Y+2 G4 G6"
    assert cards_text(hand, 5) == "3 cards", cards_text(hand, 5)


@pytest.mark.parametrize("held", [10, 11])
def test_at_50x16_a_hand_on_two_lines_leaves_the_table_playable_on_our_turn(held):
    """play10: Ben's 50x16 client showed "Window too small..." on his turn once he held ten
    cards (the hand on two lines, the status on two): no key played, and the table's turn
    clock ran out on him.  The empty feedback row gives way; the table stays."""
    hand = ["R1", "R2", "Y3", "Y4", "G5", "G6", "B7", "B8", "Y9", "G+2", "BS"][:held]
    table = stacked_table([hand, ["B2", "B3", "B4"], ["Y2", "Y3"], ["G2", "G3"]], ["R9", "Y7", "Y8", "Y9", "G9"])
    with started_app(table) as ui:
        assert ui.view.my_turn
        lines = screen_text(ui, rows=16, columns=50)
        text = "\n".join(lines)
        assert "Window too small" not in text, text
        assert len(lines) <= 16 and " Top [R9]" in text and "Your turn: play a card" in text, text
        assert not ui.ctl.blind()
        ui.ctl.key("r")
        ui.ctl.key("1")
        ui.ctl.enter()
        assert ui.view.top.code == "R1"


@pytest.mark.parametrize("columns, rows", [(80, 24), (100, 34)])
def test_the_match_score_is_on_the_table_screen_mid_round(columns, rows):
    """Seen at a host's 100x34 terminal: no score anywhere during a round (the seats' points
    need a 50-column panel, the standings 36 rows); now one line under the table says it."""
    from unonet.tui.screen import table_screen

    table = stacked_table([["R1"], ["B2", "W"]], ["R9", "Y7"], rules=make_rules(target=500))
    with started_app(table) as ui:
        ui.ctl.key("r")
        ui.ctl.key("1")
        ui.ctl.enter()
        ui.ctl.enter()  # round 2 dealt: the 52 points of round 1 stand
        assert ui.view.round_no == 2
        text = "\n".join("".join(t for _s, t in line) for line in table_screen(ui.view, ui.ctl, columns, rows))
    assert " Match to 500: You 52, Ana 0 " in text, text


def test_a_partners_match_score_says_the_teams_totals():
    from unonet.tui.screen import drawing_at, match_line, match_shown_elsewhere
    from unonet.tui.view import TableView

    view = TableView()
    view.names, view.players, view.me, view.teams, view.target = ["Hal", "Jo", "Tex", "Ana"], 4, 2, True, 60
    view.scores = [24, 0, 0, 0]
    with drawing_at(100, 34):
        assert not match_shown_elsewhere(view)
        assert match_line(view) == " Match to 60: A (you) 24, B 0"
    with drawing_at(160, 30):  # (the seats' points column is there, the team totals are not)
        assert not match_shown_elsewhere(view)
    view.teams = False
    view.names = ["Hal", "Jo", "Tex", "Ana (bot)"]
    view.scores = [0, 0, 52, 0]
    with drawing_at(80, 24):  # (seen live: "Match to 120: 0:0 1:0 2:52 3:0")
        assert match_line(view) == " Match to 60: Tex 52, the rest 0"
        view.names = ["Maximilian", "Josephine", "Theodora", "Anastasia"]
        view.scores = [10, 20, 52, 30]
        assert match_line(view) == " Match to 60: 0:10 1:20 2:52 3:30"


@pytest.mark.parametrize("teams", [False, True])
def test_the_header_at_80_columns_always_says_the_target(teams):
    """A play-tester's 80-column header read "unonet  round 3  official +jump-in +stack +seven-o..."
    (the target cut off with the house rules): the house rules are cut, the target stays."""
    from unonet.tui.screen import drawing_at, header_text
    from unonet.tui.view import TableView

    view = TableView()
    view.names, view.players, view.me, view.teams, view.target = \
        ["Hal", "Josephine Quartermaine", "Tex", "Bartholomew (bot)"], 4, 2, teams, 500
    view.round_no, view.preset = 12, "official"
    view.house = ("jump-in", "stacking", "seven-o", "draw-to-match", "no-bluff", "force-play")
    with drawing_at(80, 24):
        line = "".join(t for _s, t in header_text(view))
    assert len(line) == 80 and "target 500" in line and "round 12" in line and "q: quit" in line, line
    assert ("team A: you & Hal" if teams else "you + 3 bots") in line, line


def test_a_partners_header_at_80_columns_with_a_long_partner_name_keeps_the_target():
    """eve12: after an election the bot partner was "Ana-2 (bot)", and Pat's 80-column
    header read "unonet  round 2  official, targ...  team B: you & Ana-2 (bot)"."""
    from unonet.tui.screen import drawing_at, header_text
    from unonet.tui.view import TableView

    view = TableView()
    view.names, view.players, view.me, view.teams, view.target = ["Hal", "Pat", "Kim", "Ana-2 (bot)"], 4, 1, True, 80
    view.round_no, view.preset = 2, "official"
    with drawing_at(80, 24):
        line = "".join(t for _s, t in header_text(view))
    assert len(line) == 80 and "official, to 80" in line and "team B: you & Ana-2 (bot)" in line, line
    assert "..." not in line, line


def test_a_narrow_partners_header_shows_no_stub_of_the_rules():
    """eve12: at 60 columns Kim's header read "unonet  round 2  of...  team A: you & Hal": a stub
    of "official" that says nothing.  Too narrow for the rules, the header says the round and the
    team; at 80 columns the rules and the target are there."""
    from unonet.tui.screen import drawing_at, header_text
    from unonet.tui.view import TableView

    view = TableView()
    view.names, view.players, view.me, view.teams, view.target = ["Hal", "Pat", "Kim", "Ana-2 (bot)"], 4, 2, True, 80
    view.round_no, view.preset = 2, "official"
    with drawing_at(60, 20):
        line = "".join(t for _s, t in header_text(view))
    assert len(line) == 60 and "round 2" in line and "team A: you & Hal" in line and "q: quit" in line, line
    assert "of..." not in line and "..." not in line, line
    with drawing_at(80, 24):
        line = "".join(t for _s, t in header_text(view))
    assert "official, target 80" in line, line
