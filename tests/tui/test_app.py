"""The real prompt_toolkit Application: keys through a pipe, screens rendered at 80x24."""

from __future__ import annotations

import asyncio
import contextlib
import time

import pytest
from prompt_toolkit.application.current import set_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.keys import Keys

from unonet.engine import PRESETS, make_rules
from unonet.tui.app import TableApp
from unonet.tui.local import LocalTable, Pacing, drive, run_bots_sync, seat_names

from .helpers import stacked_table


class SizedOutput(DummyOutput):
    def __init__(self, rows=24, columns=80):
        self.size = Size(rows=rows, columns=columns)

    def get_size(self):
        return self.size


async def until(cond, timeout=5.0):
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError("condition not reached in time")
        await asyncio.sleep(0.01)


def run_app(table, script, *, rows=24, columns=80, delay=0.0, race_limit=3.0):
    """Run TableApp on ``table`` with the bot driver; ``script(ui, send)`` drives it."""

    async def main():
        with create_pipe_input() as inp:
            ui = TableApp(table, input=inp, output=SizedOutput(rows, columns))
            task = asyncio.ensure_future(ui.run(drive(table, Pacing(delay, race_limit=race_limit))))
            try:
                await script(ui, inp.send_text)
                return await asyncio.wait_for(task, 5)
            finally:
                if not task.done():
                    ui.app.exit(result=99)
                    await task

    return asyncio.run(main())


def screen_text(ui, rows=24, columns=80) -> list[str]:
    """Render the app's layout into an 80x24 screen and return its lines."""
    screen = Screen()
    with set_app(ui.app):
        ui.app.render_counter += 1  # the controls cache their text per render: take it fresh
        ui.app.output.size = Size(rows=rows, columns=columns)
        ui.app.layout.container.write_to_screen(
            screen, MouseHandlers(), WritePosition(0, 0, columns, rows), "", False, None)
    return ["".join(screen.data_buffer[y][x].char for x in range(columns)).rstrip() for y in range(rows)]



@contextlib.contextmanager
def started_app(table):
    """The real Application on a pipe input, its table dealt and the bots caught up."""
    with create_pipe_input() as inp:
        ui = TableApp(table, input=inp, output=SizedOutput())
        table.start()
        run_bots_sync(table)
        yield ui

def test_keys_through_the_application_play_a_round_and_quit_asks_first():
    table = stacked_table([["R1", "W", "G5"], ["B2", "B3", "B4", "B5"]], ["R9", "Y7", "Y8", "Y9", "G9"])

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.my_turn)
        send("g5\r")
        await until(lambda: "doesn't fit" in ui.ctl.feedback())
        send("\x1b")  # Escape clears
        send("r1\r")
        await until(lambda: v.my_turn and v.top.code == "R1" and v.counts[1] == 5)
        send("w\r")
        await until(lambda: ui.ctl.mode == "color")
        send("g")
        await until(lambda: v.my_turn and v.color == "G" and v.top.code == "W")
        send("\r")  # G5, the last card
        await until(lambda: v.result is not None)
        assert v.result.winner == 0 and v.result.points == 2 + 3 + 4 + 5 + 7 + 8
        text = "\n".join(screen_text(ui))
        assert "Round 1 over: You go out; you score 29 points." in text
        assert "Enter: deal the next round." in text
        send("q")
        await until(lambda: ui.ctl.mode == "quit")
        assert "Quit the match? Y" in "\n".join(screen_text(ui))
        send("n")
        await until(lambda: ui.ctl.mode is None)
        assert not ui.app.is_done
        send("qy")

    assert run_app(table, script) == 0


def test_bots_pause_between_moves_and_you_can_catch_one_in_the_gap():
    # Ana forgets UNO with her next-to-last card; Ben's turn waits long enough to catch her
    table = stacked_table([["R5", "G1", "G2"], ["R2", "R3"], ["B1", "B2", "B4"]],
                          ["R9", "Y7", "Y8", "Y6", "B6", "B7"], forget=1.0, catch=0.0)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.my_turn)
        t0 = time.monotonic()
        send("r5\r")
        await until(lambda: v.can_catch == 1)
        assert time.monotonic() - t0 >= 0.02  # Ana thought before playing
        assert v.turn == 2  # Ben waits: the catch window is open
        send("x")
        await until(lambda: "you caught Ana without UNO" in v.log)
        assert v.counts[1] == 3
        send("qy")

    assert run_app(table, script, delay=0.05) == 0


@pytest.mark.parametrize("players,teams", [(2, False), (4, True), (10, False)])
def test_table_renders_at_80x24(players, teams):
    rules = make_rules(teams=teams, house=["seven-o", "jump-in"])
    table = LocalTable(rules, seat_names("Zoe", players), seed=11)
    with started_app(table) as ui:
        lines = screen_text(ui)
        text = "\n".join(lines)
        assert lines[0].startswith(" unonet  round 1")
        assert "?: help  q: quit" in lines[0]
        for s in range(players):
            assert table.names[s] in text
        assert f"Your hand ({len(table.rnd.hands[0])} cards" in text
        for card in table.rnd.hands[0]:
            assert card.code in text
        assert "Top [" in text and "colour in force" in text
        # the status line is on screen, at the bottom
        assert any(line.strip().startswith(ui.ctl.status()[:30]) for line in lines[-3:])
        if teams:
            assert " A" in text and " B" in text
        # help and result screens fit too
        ui.ctl.key("?")
        help_lines = screen_text(ui)
        while ui.ctl.help_page + 1 < ui.ctl.help_pages:
            ui.ctl.enter()
            help_lines += screen_text(ui)
        assert "Keys" in "\n".join(help_lines) and "seven-o" in "\n".join(help_lines)
        ui.ctl.key(" ")
        # narrow and tiny terminals do not crash
        screen_text(ui, rows=10, columns=40)
        screen_text(ui, rows=3, columns=20)


def test_hand_marks_playable_cards_without_colour():
    table = stacked_table([["R1", "G5", "W"], ["B2", "B3", "B4"]], ["R9", "Y7"])
    with started_app(table) as ui:
        lines = screen_text(ui)
        hand_line = next(i for i, l in enumerate(lines) if l.startswith(" Your hand"))
        assert "2 playable in [ ]" in lines[hand_line]
        assert lines[hand_line + 1].split() == [">[R1]", "G5", "[W]"]


def test_result_screen_shows_every_hand_standings_and_team_totals():
    rules = make_rules(teams=True, target=100)
    table = stacked_table([["R1"], ["B2", "W"], ["G3"], ["Y+2", "B5"]], ["R9", "Y7"], rules=rules)
    with started_app(table) as ui:
        ui.ctl.key("r")
        ui.ctl.key("1")
        ui.ctl.enter()
        text = "\n".join(screen_text(ui))
        # team A (seats 0 and 2) scores the opponents' cards only: 2+50+20+5
        assert "Round 1 over: You go out; team A scores 77 points." in text
        assert "Team A (yours): You & Ben" in text and "77 points, 23 to go" in text
        assert "Team B:         Ana & Cleo     0 points, 100 to go" in text and "to reach" not in text
        # the two teams' columns line up
        a, b = [ln for ln in text.splitlines() if ln.startswith(" Team ")]
        assert a.index(" points") == b.index(" points") and a.index("You") == b.index("Ana")
        assert "B2 W" in text and "Y+2 B5" in text


def race_table(players=2):
    hands = [["R1", "G2", "G3"], ["R6", "B1", "B2"], ["Y1", "Y2", "Y3"]][:players]
    return stacked_table(hands, ["R9", "G7", "G8", "G9", "B7", "B8"], rules=make_rules("smackdown"))


def test_race_timed_out_by_the_table_clock_when_you_never_slap():
    table = race_table()

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.my_turn)
        send("r1\r")
        await until(lambda: v.racing)
        t0 = time.monotonic()  # before rendering: a loaded machine renders slowly
        text = "\n".join(screen_text(ui))
        assert "RACE! Ana played R6: press SPACE (or !) to slap it" in text
        assert "RACE on R6! SPACE (or !) to slap it" in text
        await until(lambda: "you were too slow and draw 2" in v.log)
        assert time.monotonic() - t0 >= 0.1  # the clock, not at once
        assert len(v.hand) == 4 and not v.race
        send("qy")

    # a 1 s clock leaves room for a late look at v.racing on a loaded machine
    assert run_app(table, script, race_limit=1.0) == 0


def test_race_slapped_in_time_through_the_keys():
    table = race_table(3)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.my_turn)
        send("r1\r")
        await until(lambda: v.racing)
        send(" ")  # bots take 0.25 s and more at this pace: you are quicker
        await until(lambda: not v.race)
        assert "you slapped it" in v.log and "Ben was too slow and draws 2" in v.log
        assert len(v.hand) == 2
        send("qy")

    assert run_app(table, script, delay=0.55, race_limit=5) == 0


def test_flip_screen_shows_the_side_and_every_opponents_backs_at_80x24():
    rules = make_rules("flip")
    table = LocalTable(rules, seat_names("Zoe", 4), seed=5)
    with started_app(table) as ui:
        lines = screen_text(ui)
        text = "\n".join(lines)
        assert "Side LIGHT up: colours R Y G B" in text
        # every opponent's visible backs, one line each
        assert text.count("   sees:") == 3
        for s in (1, 2, 3):
            row = next(i for i, l in enumerate(lines) if l[3:].startswith(table.names[s]))
            shown = lines[row + 1][:40].split()
            assert shown[0] == "sees:"
            backs = [c.other.code for c in table.rnd.hands[s]]
            assert sorted(shown[1:]) == sorted(backs)  # all of them fit at 80 columns
            assert not set(shown[1:]) & {c.code for c in table.rnd.hands[s]} - set(backs)
        assert any(line.strip().startswith(ui.ctl.status()[:30]) for line in lines[-3:])
        ui.ctl.key("?")
        help_text = "\n".join(screen_text(ui))
        assert "dark side: P pink, T teal, O orange, U purple" in help_text
        ui.ctl.key(" ")
    rules = make_rules("flip")
    table = LocalTable(rules, seat_names("Zoe", 10), seed=5)
    with started_app(table) as ui:
        text = "\n".join(screen_text(ui))
        assert "sees:" not in text and "Side LIGHT up" in text


HELP_CASES = [(p.name, False) for p in PRESETS] + [("official", True), ("dirty", True)]


@pytest.mark.parametrize("preset,teams", HELP_CASES, ids=[f"{p}{'-teams' if t else ''}" for p, t in HELP_CASES])
def test_help_fits_80x24_for_every_preset(preset, teams):
    from unonet.tui.screen import help_sections, rule_keys

    rules = make_rules(preset, teams=teams)
    table = LocalTable(rules, seat_names("You", 4), seed=3)
    with started_app(table) as ui:
        ui.ctl.key("?")
        shown, pages = [], 0
        while ui.ctl.mode == "help":
            lines = screen_text(ui)
            pages += 1
            assert pages <= 3
            assert lines[0].startswith(" unonet") and lines[-1].startswith(" Help")
            assert all(len(line) < 80 for line in lines)  # nothing runs into the edge
            shown += lines[1:-1]
            ui.ctl.enter()  # the next page, or back to the table after the last
        assert ui.ctl.mode is None
        want = [text for section in help_sections(ui.view, 80) for _style, text in section]
        for text in want:
            assert len(text) < 80
            assert text in shown, text
        body = "\n".join(shown)
        assert "Rules in force" in body and ("A W+4 " if preset != "flip" else "A wild draw (W+2, W+C) ") in body
        last = want[-1].strip()
        assert last.endswith(("challenge it as a bluff.", "challenged."))
        # words are never split: every word of every key's text is shown whole
        tokens = set(body.split())
        for _k, what in rule_keys(ui.view):
            if _k == "SPACE  !" and "SPACE" not in tokens:
                continue
            assert set(what.split()) <= tokens, what


def test_log_and_feedback_wrap_on_words_with_an_indent():
    table = stacked_table([["R1", "G2", "G3"], ["B1", "B2", "B3"]], ["R9", "Y7", "Y8", "Y9"])
    with started_app(table) as ui:
        entry = "you challenged Ana's wild draw: innocent (Ana held no green) and so you draw six cards"
        ui.view.log.append(entry)
        ui.ctl.flash("Nobody to catch: only a player on one card who did not call UNO, before the "
                     "next player begins a turn.")
        lines = screen_text(ui)
        log = [line[41:] for line in lines[1:]]
        start = next(i for i, line in enumerate(log) if line.startswith(" you challenged"))
        rows = [log[start]]
        for line in log[start + 1:]:
            if not line.startswith("   "):
                break
            rows.append(line)
        assert len(rows) >= 2 and " ".join(r.strip() for r in rows) == entry  # whole words only
        fb = [i for i, line in enumerate(lines) if line.startswith(" Nobody to catch")]
        assert fb, lines
        first, second = lines[fb[0]], lines[fb[0] + 1]
        assert second.startswith("   ") and not second.startswith("    ")
        assert (first.strip() + " " + second.strip()).startswith(
            "Nobody to catch: only a player on one card who did not call UNO, before the next")


@pytest.mark.parametrize("players", range(2, 11))
def test_result_screen_shows_every_seat_at_80x24(players):
    from unonet.tui import feed
    from unonet.tui.view import card_sort_key

    rules = make_rules(target=500)
    table = LocalTable(rules, seat_names("Maximilian Gross", players), seed=7)
    with started_app(table) as ui:
        hands = tuple(tuple(h) if s else () for s, h in enumerate(table.rnd.hands))
        scores = tuple(17 * s + 3 for s in range(players))
        points = tuple(sum(c.points for c in h) for h in hands)
        ui.view.apply(feed.RoundScored(1, 0, sum(points), points, hands, scores, None, False, None))
        lines = screen_text(ui)
        text = "\n".join(lines)
        assert "Standings (first to 500):" in text
        assert all(len(line) < 80 for line in lines if line.strip("-"))
        rows = [line for line in lines if len(line) > 8 and line[2:8].strip()[:1].isdigit()]
        assert len(rows) == players
        for s in range(players):
            name = "Maximilian G\u2026" if s == 0 else table.names[s]
            row = next(line for line in rows if line[8:13].strip() == str(s))
            assert name in row and f"{scores[s]:>7}" in row and f"{500 - scores[s]:>7}" in row
            shown = row[48:].split()
            want = [c.code for c in sorted(hands[s], key=card_sort_key)]
            if shown and shown[-1] == "more)":
                # cut off: "(N more)", never "+N" (which reads like a Draw Two)
                n = int(shown[-2].lstrip("("))
                assert shown[:-2] == want[:len(shown) - 2] and n == len(want) - len(shown) + 2
            else:
                assert shown == want
        # best first, places in order
        assert rows[0][2:5] == "1st"
        assert "Enter: deal the next round." in text


@pytest.mark.parametrize("players,rules", [(4, "official"), (10, "official"), (4, "flip"), (6, "official")])
def test_small_terminals_show_every_seat_or_say_window_too_small(players, rules):
    table = LocalTable(make_rules(rules), seat_names("Zoe", players), seed=7)
    with started_app(table) as ui:
        seen_small = seen_all = False
        for rows in range(8, 25):
            for columns in (40, 50, 60, 80):
                text = "\n".join(screen_text(ui, rows=rows, columns=columns))
                if "Window too small" in text:
                    seen_small = True
                    continue
                shown = [s for s in range(players) if f"{s} {table.names[s]}" in text]
                assert len(shown) == players, (rows, columns, text)
                seen_all = True
        assert seen_small and seen_all
    if players == 4 and rules == "official":
        with started_app(LocalTable(make_rules(), seat_names("Zoe", 4), seed=7)) as ui:
            text = "\n".join(screen_text(ui, rows=16, columns=60))
            assert all(f"{s} {n}" in text for s, n in enumerate(seat_names("Zoe", 4)))


def test_long_names_the_teams_header_and_no_uno_offer_without_a_play():
    rules = make_rules(teams=True)
    names = ["Maximilian Gross", "Ana", "Bartholomew Fox", "Cleo"]
    table = stacked_table([["R1", "G2"], ["B1", "B2", "B3"], ["Y1", "Y2", "Y3"], ["B4", "B5", "B6"]],
                          ["R9", "Y7", "Y8", "Y9", "G9"], rules=rules)
    table.names = names
    with started_app(table) as ui:
        lines = screen_text(ui)
        text = "\n".join(lines)
        assert "team A: you & Bartholomew\u2026 " in lines[0] and lines[0].endswith("?: help  q: quit")
        assert "0 Maximilian G\u2026" in text and "2 Bartholomew\u2026" in text and "1 Ana" in text
        # two cards, nothing playable (the top is B3, blue): no UNO offered
        v = ui.view
        v.playable = set()
        v.uno_ok = True
        v.turn, v.phase, v.pending = v.me, "play", 0
        assert len(v.hand) == 2 and "UNO" not in v.prompt()
        v.playable = {v.hand[0].id}
        assert "U: UNO!" in v.prompt()


def test_the_rules_summary_says_when_a_wild_draw_four_is_legal():
    table = LocalTable(make_rules(), seat_names("Zoe", 2), seed=3)
    with started_app(table) as ui:
        ui.ctl.key("?")
        text = " ".join(" ".join(screen_text(ui)).split())
        assert "A W+4 is legal only when you hold no card of the colour in force; " \
               "the next player may challenge it as a bluff." in text


def test_untrusted_names_print_safely_and_line_up_by_terminal_cells():
    from unonet.names import width

    table = stacked_table([["R1", "G2"], ["B1", "B2", "B3"], ["Y1", "Y2", "Y3"], ["B4", "B5", "B6"]],
                          ["R9", "Y7", "Y8", "Y9", "G9"])
    table.names = ["王小明王小明王小明", "Ana\x1b[2J\nEve", "Jose\u0301", "Cleo"]
    with started_app(table) as ui:
        lines = screen_text(ui)
        text = "\n".join(lines)
        assert "\x1b" not in text and "Ana\ufffd[2J\ufffdEve" in text
        seats = [ln for ln in lines if ln[1:2].isdigit() and " card" in ln]
        assert len(seats) == 4
        assert "0 王小明王小明\u2026" in seats[0]
        # the card counts and the panel border stand in the same terminal column on every row
        cols = {width(ln[: ln.index(" card")]) for ln in seats}
        bars = {width(ln[: ln.index("|")]) for ln in seats}
        assert len(cols) == 1 and len(bars) == 1, seats


def press_key(ui, key) -> None:
    """The application's own binding for ``key``, called as prompt_toolkit would."""
    binding = ui.app.key_bindings.get_bindings_for_keys((key,))[-1]  # (the last added wins, as in prompt_toolkit)
    binding.handler(None)


def test_page_up_scrolls_the_log_back_and_page_down_returns():
    """Issue 21 item 10: the log can be scrolled back (PgUp) and forth (PgDn) with the keys."""
    from unonet.engine import make_rules
    from unonet.tui.local import LocalTable

    table = LocalTable(make_rules(), ["You", "Ana", "Ben", "Cleo"], seed=4)
    with started_app(table) as ui:
        ui.view.log[:] = [f"line {i}" for i in range(50)]
        press_key(ui, Keys.PageUp)
        back = "\n".join(screen_text(ui))
        assert "line 49" not in back and "line 39" in back and "10 newer lines below: PgDn" in back, back
        press_key(ui, Keys.PageDown)
        newest = "\n".join(screen_text(ui))
        assert "line 49" in newest and "newer lines" not in newest, newest


def _copy_lines() -> int:
    """prompt_toolkit's per-frame closures that exist now (alive, or garbage not collected)."""
    import gc

    return sum(1 for o in gc.get_objects() if getattr(o, "__qualname__", "") == "Window._copy_body.<locals>.copy_line")


def test_a_settled_client_frees_what_each_frame_leaves_in_cycles(monkeypatch):
    """prompt_toolkit's ``Window._copy_body`` leaves a reference cycle every frame (its
    ``copy_line`` calls itself, a closure over the frame's buffers); in a settled process (a
    LAN client, unonet/heap.py) the application frees it after each frame, instead of a round's
    frames waiting for the next full collection (issue 26).  Unsettled (a test run, a library
    caller), nothing is collected."""
    import gc

    from unonet import heap

    monkeypatch.setattr(heap, "_trim", None)
    left = {}

    async def script(ui, send):
        await until(lambda: ui.app.render_counter >= 1)
        for settled in (False, True):
            monkeypatch.setattr(heap, "_settled", settled)
            gc.collect()
            gc.disable()  # (only what the application collects)
            try:
                for _ in range(4):
                    drawn = ui.app.render_counter
                    ui.app.invalidate()
                    await until(lambda: ui.app.render_counter > drawn)
                left[settled] = _copy_lines()
            finally:
                gc.enable()
        send("qy")

    table = stacked_table([["R1", "W", "G5"], ["B2", "B3", "B4", "B5"]], ["R9", "Y7", "Y8", "Y9", "G9"])
    assert run_app(table, script) == 0
    assert left[False] >= 4  # a cycle a frame, kept (the proof that they are there to free)
    assert left[True] == 0
