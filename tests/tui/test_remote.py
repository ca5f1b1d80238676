"""The client on trio: a guest run inside prompt_toolkit's asyncio loop, a `RemoteTable`
fed from a seat channel, the lobby, table problems and the match's end.

The seat channel here is `TrioSeat`: the real engine and bots driven by a trio task
(no network); the real Application runs on a pipe input."""

from __future__ import annotations

import asyncio
import time

import pytest
import trio
from prompt_toolkit.input import create_pipe_input

from unonet import feed
from unonet.engine import _events as ev
from unonet.engine import make_rules
from unonet.net._errors import JoinFailed as N_JoinFailed
from unonet.tui.local import LocalTable, seat_names
from unonet.tui.remote import ConnectError, RemoteTable, problem_of, run_remote_async
from unonet.tui.screen import wrap
from unonet.tui.session import SessionView, lobby_lines

from .test_app import SizedOutput, screen_text
from .trio_table import TrioSeat

LOBBY = feed.Lobby(
    table="Pat's table", code="7KQ2-M9XD-4T",
    seats=(feed.LobbySeat(0, "You", "3JX8-Q2PA", team=None),
           feed.LobbySeat(1, "Ana", "", bot=True),
           feed.LobbySeat(2, "Ben", "HH4K-77ZD", connected=False)),
    me=0, host=True, can_start=True, players=4, rules="official", address="127.0.0.1:47809")


async def until(cond, timeout=30.0, what="condition"):
    """A hang guard, not a timed assertion: generous, since a loaded CI machine has held a deal
    or an elected table's answer past 10-15 s (CI of stop 38)."""
    end = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > end:
            raise AssertionError(f"{what} not reached in time")
        await asyncio.sleep(0.01)


def run_client(seat, script, *, rows=24, columns=80):
    """`run_remote_async` on ``seat`` (a `TrioSeat`, or any ``open_seat`` function) with the
    real Application on a pipe input; ``script(ui, send)`` drives it; returns (status, ui, what
    the script returned)."""
    open_seat = seat.open_seat if isinstance(seat, TrioSeat) else seat

    async def main():
        with create_pipe_input() as inp:
            box = {}
            ready = asyncio.Event()

            def on_ready(ui):
                box["ui"] = ui
                ready.set()

            task = asyncio.ensure_future(run_remote_async(
                open_seat, input=inp, output=SizedOutput(rows, columns), on_ready=on_ready))
            try:
                await asyncio.wait_for(ready.wait(), 10)
                got = await script(box["ui"], inp.send_text)
                status, ui = await asyncio.wait_for(task, 10)
                return status, ui, got
            finally:
                if not task.done():
                    box["ui"].app.exit(result=99)
                    await task

    return asyncio.run(main())


async def play_keys(ui, send, stop, limit=2000):
    """Play this seat by keys, reading the screen's model, until ``stop()``: Enter plays the
    card under the cursor (it starts on a playable one), R names a colour, D draws.

    A key is judged only once the application has processed it (its key processor's
    ``after_key_press``): a second key decided while the first still sat in the pipe would be
    read against a screen that has since moved on (two 'r's for one wild, the second
    starting a typed card).  A notice that merely went away is not the table's answer."""
    v, ctl = ui.view, ui.ctl
    pressed = [0]

    def count(_sender):
        pressed[0] += 1

    ui.app.key_processor.after_key_press += count

    def state():  # what the table's answer changes (a remote table answers later)
        top = v.top.id if v.top is not None else None
        return (v.turn, v.phase, len(v.hand), top, v.color, v.result is not None, v.round_no)

    def answered(seen, notice, mode):
        return (state() != seen or (v.notice is not None and v.notice != notice)
                or ctl.mode == "color" != mode or stop())

    try:
        for _ in range(limit):
            if stop():
                return
            seen, notice, mode = state(), v.notice, ctl.mode
            if ctl.mode == "color":
                key = v.colors[0].lower()
            elif v.my_turn and v.phase == "color":
                key = v.colors[0].lower()
            elif v.my_turn and v.phase == "challenge":
                key = "d"
            elif v.my_turn and v.phase == "drawn":
                key = "\r"
            elif v.my_turn and v.phase == "play":
                key = "\r" if v.playable else "d"
            elif v.round_over and not v.match_over:
                key = "\r"
            else:
                await asyncio.sleep(0.01)
                continue
            before = pressed[0]
            send(key)
            try:
                await until(lambda: pressed[0] > before or stop(), 10, f"the key {key!r} processed")
                # the table's answer, or the colour picker opening (Enter on a wild sends nothing yet)
                # (a hang guard: an election or a loaded CI machine can hold the answer seconds)
                await until(lambda: answered(seen, notice, mode), 30, "the table's answer")
            except AssertionError as e:
                raise AssertionError(f"no answer to a key ({e}): {ctl.status()!r} / {ctl.feedback()!r}; "
                                     f"problem {getattr(v, 'problem', None)}; log {v.log[-4:]}")
        raise AssertionError("play_keys did not finish")
    finally:
        ui.app.key_processor.after_key_press -= count


def two_player_table(seed=3, target=500):
    return LocalTable(make_rules(target=target), seat_names("You", 2), seed=seed)


def test_a_sigint_from_outside_asks_the_quit_question_as_ctrl_c_does():
    """evening19: `kill -INT` sent to the full-screen client (a host's, a player's) did nothing,
    the table played on; it is a Ctrl-C: the first asks whether to leave, the second leaves."""
    import os
    import signal

    seat = TrioSeat(two_player_table(), lobby=LOBBY)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby, what="the lobby")
        send("s")
        await until(lambda: v.started and v.top is not None, what="the deal")
        os.kill(os.getpid(), signal.SIGINT)
        await until(lambda: ui.ctl.mode == "quit", what="the quit question after a SIGINT")
        assert not ui.ctl.quit
        os.kill(os.getpid(), signal.SIGINT)
        await until(lambda: ui.ctl.quit, what="the quit after a second SIGINT")

    # (should the application not catch it, a SIGINT must fail this test, not end the run)
    before = signal.signal(signal.SIGINT, lambda *_: None)
    try:
        status, _ui, _ = run_client(seat, script)
    finally:
        signal.signal(signal.SIGINT, before)
    assert status == 0


def test_a_whole_round_through_the_guest_run_from_the_lobby():
    seat = TrioSeat(two_player_table(), lobby=LOBBY)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby, what="the lobby")
        screen = "\n".join(screen_text(ui))
        assert "Join code   7KQ2-M9XD-4T" in screen
        assert "unonet join --code 7KQ2-M9XD-4T 127.0.0.1:47809" in screen
        assert "3JX8-Q2PA" in screen and "HH4K-77ZD" in screen
        assert "Ana" in screen and "bot" in screen
        assert "gone: waiting for a rejoin" in screen
        assert "(empty)" in screen                  # seat 3 of 4
        assert "S (or Enter): start the match" in screen
        send("x")
        await until(lambda: "S or Enter starts" in ui.ctl.feedback())
        send("s")
        await until(lambda: v.started and v.top is not None, what="the deal")
        assert any(isinstance(a, feed.Start) for a in seat.submitted)
        await play_keys(ui, send, lambda: v.round_over)
        assert "Round 1 over" in "\n".join(screen_text(ui))
        send("q")
        await until(lambda: ui.ctl.mode == "quit")
        send("y")
        return v.result

    status, ui, result = run_client(seat, script)
    assert status == 0
    assert seat.left                     # the client said goodbye when it quit
    assert result.number == 1
    # the view agrees with the engine's own record of the round
    assert tuple(seat.table.match.scores) == result.scores
    # (the host's own seat: leaving closes the table)
    assert ui.view.standings()[0].startswith("unonet: you closed the table after round 1")


def test_a_whole_match_ends_with_match_over_and_the_standings():
    seat = TrioSeat(two_player_table(seed=8, target=60))

    async def script(ui, send):
        v = ui.view
        await play_keys(ui, send, lambda: v.over is not None, limit=20000)
        assert ui.table.closed or await_closed(ui)
        screen = "\n".join(screen_text(ui))
        assert "Match over:" in screen
        send("q")  # once the match is over q quits at once
        return v.over

    status, ui, over = run_client(seat, script)
    assert status == 0
    m = seat.table.match
    assert over.winner == m.winner and over.scores == tuple(m.scores) and over.rounds == len(m.history)
    lines = ui.view.standings()
    assert lines[0].startswith(f"unonet: match over after {over.rounds} round")
    best = max(range(2), key=lambda s: m.scores[s])
    assert lines[1].split()[0] == "1." and seat.table.names[best] in lines[1]
    assert lines[-1] == "  ledger " + "ab" * 32


def await_closed(ui):
    return ui.table.closed


def test_a_cheat_is_shown_loudly_and_the_table_takes_no_more_keys():
    cheat = feed.TableProblem("the host dealt position 17 twice (seat 1, Ana, signed it): round 1 "
                              "does not verify", fatal=True, cheat=True)
    seat = TrioSeat(two_player_table(seed=5), problem_after=2, problem=cheat)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.problem is not None, what="the problem")
        screen = "\n".join(screen_text(ui))
        assert "CHEATING DETECTED: the host dealt position 17 twice" in screen
        assert "The table has stopped" in screen
        sent = len(seat.submitted)
        for key in ("d", "\r", "r7\r", "u"):
            send(key)
        await until(lambda: "The table has stopped: Q quits." in ui.ctl.feedback())
        await asyncio.sleep(0.1)
        assert len(seat.submitted) == sent  # nothing reached the table
        send("q")                           # quits at once
        return screen

    status, ui, screen = run_client(seat, script)
    assert status == 0
    assert any(line.startswith("!! CHEAT: the host dealt") for line in ui.view.log)


def test_a_refusal_comes_back_on_the_feed():
    seat = TrioSeat(two_player_table(seed=3))

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.top is not None, what="the deal")
        # a Ready while the round is played: the client sends it, the table refuses it
        assert ui.table.submit(feed.Ready(v.me)) is None
        await until(lambda: v.notice is not None, what="the refusal")
        send("q")
        send("y")
        return v.notice

    status, ui, notice = run_client(seat, script)
    assert notice == "the round is still being played"


def test_a_seat_that_cannot_be_taken_is_one_line():
    async def refused(task_status=trio.TASK_STATUS_IGNORED):
        await trio.sleep(0.01)
        raise OSError("connection refused by 127.0.0.1:47800 (is a table open there?)")

    async def main():
        with create_pipe_input() as inp:
            await run_remote_async(refused, input=inp, output=SizedOutput())

    with pytest.raises(ConnectError, match=r"^connection refused by 127.0.0.1:47800 \(is a table open there\?\)$"):
        asyncio.run(main())


def test_the_host_vanishing_mid_match_is_a_problem_on_screen():
    class Vanishing(TrioSeat):
        async def open_seat(self, task_status=trio.TASK_STATUS_IGNORED):
            self._send, self.feed = trio.open_memory_channel(100)
            self._changed, self._start = trio.Event(), trio.Event()
            self.table.subscribe(self._push)
            task_status.started(self)
            self.table.start()
            await trio.sleep(0.05)
            raise ConnectionResetError("host 127.0.0.1:47800 closed the link")

    seat = Vanishing(two_player_table())

    async def script(ui, send):
        await until(lambda: ui.view.problem is not None, what="the problem")
        assert ui.view.problem.message == "host 127.0.0.1:47800 closed the link"
        assert not ui.view.problem.cheat
        assert "TABLE PROBLEM:" in "\n".join(screen_text(ui))
        send("q")

    status, _ui, _ = run_client(seat, script)
    assert status == 0


def test_a_failure_that_says_cheat_is_a_cheat():
    class Caught(Exception):
        cheat = True

    p = problem_of(BaseExceptionGroup("nursery", [Caught("the host's seal for position 3 does not open")]))
    assert p == feed.TableProblem("the host's seal for position 3 does not open", fatal=True, cheat=True)


def test_remote_table_before_and_after_the_seat():
    t = RemoteTable()
    assert t.submit(feed.Ready(0)) == "not connected to the table yet"
    t.closed = True
    assert t.submit(feed.Ready(0)) == "the table is closed"


# ---------------------------------------------------------------------- the view alone
def test_lobby_view_and_keys_without_the_host_role():
    v = SessionView()
    v.apply(feed.Lobby("Pat's table", "7KQ2-M9XD-4T", LOBBY.seats, me=2, host=False, can_start=False))
    assert v.in_lobby and v.me == 2
    assert v.prompt() == "Waiting for the host to start the match.  q: leave."
    lines = [text for _style, text in lobby_lines(v)]
    assert not any("unonet join --code" in line for line in lines)   # the host's hint only
    # a seat given back in a match under way: its roster comes before the rejoin's replay
    # (the typed seat read "waiting for Hal to start the match" above the round in play)
    v.apply(feed.Lobby("Pat's table", "7KQ2-M9XD-4T", LOBBY.seats, me=2, host=False, can_start=False, back=True))
    assert v.prompt() == "Back in the match: the table as it stands follows.  q: leave."
    assert any(line.split()[:2] == ["2", "Ben"] and "you" in line for line in lines)


def test_a_watcher_and_names_from_the_wire_are_cleaned():
    v = SessionView()
    v.apply(feed.Lobby("evil\x1b[2Jtable", "CODE", (feed.LobbySeat(0, "Mal\x07lory", "FP\x1b"),),
                       me=None, host=True, can_start=True, players=2))
    text = "\n".join(t for _s, t in lobby_lines(v))
    assert "\x1b" not in text and "\x07" not in text
    assert "You hold no seat (dealer only)" in text
    assert v.watching
    v.apply(feed.TableInfo(("Mallory", "Bot"), -1, "official rules"))
    assert v.watching and not v.in_lobby
    v.apply(feed.TableProblem("Mallory dropped her link; a bot takes seat 0", fatal=False))
    assert v.problem is None and v.notice.startswith("Mallory dropped")


def test_run_remote_needs_a_terminal(capsys):
    from unonet.tui.remote import run_remote

    async def never(task_status=trio.TASK_STATUS_IGNORED):  # pragma: no cover - not reached
        raise AssertionError("no seat is opened without a terminal")

    assert run_remote(never) == 2
    err = capsys.readouterr().err
    assert err.startswith("unonet join needs a terminal (stdin is not a tty); use --no-ui")


def test_a_watcher_sees_a_whole_round_and_no_hand():
    from prompt_toolkit.input import create_pipe_input as pipe

    from unonet.tui.local import run_bots_sync
    from unonet.tui.session import SessionApp

    table = LocalTable(make_rules(teams=True), seat_names("Pat", 4)[1:] + ["Zed"], seed=11, me=-1)
    with pipe() as inp:
        ui = SessionApp(table, input=inp, output=SizedOutput())
        table.start()
        first = "\n".join(screen_text(ui))
        assert "watching" in first.splitlines()[0]
        assert "You hold no seat: watching the match" in first
        assert "Watching (you hold no seat)" in first
        run_bots_sync(table)
        assert ui.view.hand == [] and ui.view.round_over
        screen = "\n".join(screen_text(ui))
        assert "Round 1 over" in screen and "(yours)" not in screen
        # play10: Max's dealer-only screen said "Enter: deal the next round." under the result
        assert "Enter: deal" not in screen, screen
        assert " Waiting for the players to deal the next round.   Q: quit." in screen, screen
        ui.ctl.key("d")
        assert ui.ctl.feedback().startswith("You are watching")


def test_the_next_match_waits_for_the_player_to_leave_the_final_standings():
    from unonet.tui.session import SessionController

    table = RemoteTable()
    v = SessionView()
    ctl = SessionController(v, table)
    v.apply(LOBBY)
    v.apply(feed.TableInfo(("You", "Ana"), 0, "official rules"))
    v.apply(feed.MatchOver(0, (512, 40), 6, "cd" * 32))
    v.apply(LOBBY)                       # the host offers another match at once
    assert not v.in_lobby and v.over is not None and v.next_lobby == LOBBY
    assert v.prompt().endswith("Enter: the next match.  Q to quit.")
    # the hash ends its sentence: wrapped on words (double spaces gone) it still reads apart
    wrapped = " ".join(line.strip() for line in wrap(v.prompt(), 60))
    assert f"Ledger {'cd' * 8}. Enter: the next match. Q to quit." in wrapped, wrapped
    ctl.enter()
    assert v.in_lobby and v.over is None and v.log == [] and v.lobby == LOBBY
    ctl.key("q")
    assert ctl.quit                      # leaving a lobby is at once
    # what the terminal keeps is the finished match's standings, not "before the first deal"
    assert v.standings()[0] == "unonet: match over after 6 rounds: you win.", v.standings()


def test_a_next_match_begins_its_log_with_a_line_naming_it():
    """A player still reading the final standings when the host starts the next match kept the
    last match's log with nothing between the two: the next match's first line says which it
    is; one who pressed Enter reads it first; an elected host's deal of the same match is none."""
    from unonet.tui.session import SessionController

    def match(v, names=("You", "Ana")):
        v.apply(feed.TableInfo(names, 0, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0)))

    v = SessionView()
    v.apply(LOBBY)
    match(v)
    assert not [x for x in v.log if "match 1" in x]    # (the first match needs no label)
    v.apply(feed.MatchOver(0, (512, 40), 6, "cd" * 32))
    v.apply(LOBBY)                                       # offered; the player does not press Enter
    match(v)
    over = next(i for i, x in enumerate(v.log) if x.startswith("*** match over"))
    assert v.log[over + 1] == "\u2014 next match at Pat's table \u2014", v.log
    match(v)                                             # (the same match again: an election's deal)
    assert sum(x.startswith("\u2014 next match") for x in v.log) == 1, v.log
    v.apply(feed.MatchOver(0, (512, 40), 4, "ab" * 32))
    v.apply(LOBBY)
    ctl = SessionController(v, RemoteTable())
    ctl.enter()                                          # this time the player moved on first
    match(v)
    assert v.log[0] == "\u2014 next match at Pat's table \u2014", v.log


def test_a_player_who_leaves_a_match_in_play_is_told_how_to_take_the_seat_back():
    """q mid-round at a LAN table: the seat goes to a bot and stays the player's key's; the
    terminal says so (a new player read only the standings and thought the seat lost)."""
    back = "  `unonet join` again (the same key store) takes it back, with your hand"
    for host in (False, True):
        v = SessionView()
        v.apply(feed.Lobby("Pat's table", "7KQ2-M9XD-4T", LOBBY.seats, me=2, host=host, can_start=host))
        assert back not in v.standings()                             # nothing to take back in a lobby
        v.apply(feed.TableInfo(("You", "Ana", "Ben"), 2, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
        said = v.standings()
        assert said[0] == ("unonet: you closed the table during round 1, first to 500 wins." if host else
                           "unonet: you left during round 1, first to 500 wins."), said
        # the host's own seat is the table: leaving it is no seat kept for later
        assert (back in said) is not host, said
        assert all(len(line) <= 80 for line in said), said
        v.apply(feed.MatchOver(1, (0, 0, 512), 6, "cd" * 32))
        assert back not in v.standings()                             # a finished match keeps nothing


def test_back_after_a_rejoin_the_turn_in_progress_shows_no_clock_the_next_one_does():
    """The turn clock of the turn a seat comes back in ran before the rejoin: counted from
    the replay's end it read 1:27 where the host's read 1:07.  None until the table moves."""
    from unonet.engine import Card

    def turn(seat, discard):
        return feed.TurnState(turn=seat, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                              discard=discard, counts=(2, 2, 2), catchable=None)

    back = feed.Notice("reconnected: back in seat 1 in round 1; your hand is back", 1, "reconnected")
    for notice_first in (False, True):
        v = SessionView()
        v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=1, host=False, can_start=False, clock=90))
        v.apply(feed.TableInfo(("Hal", "You", "Ana"), 1, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
        v.apply(ev.FirstDiscard(Card("R5", 30)))
        if notice_first:
            v.apply(back)
        v.apply(turn(0, 1))
        if not notice_first:
            v.apply(back)
        assert v.time_left() is None and not v.prompt().startswith("["), v.prompt()
        v.apply(turn(0, 1))                      # the same moment again (a UNO call's batch, say)
        assert v.time_left() is None
        v.apply(ev.Played(0, Card("R7", 40), "R"))
        v.apply(turn(1, 2))                      # the table moved on: its clock started in our sight
        assert v.time_left() == 90 and v.prompt().startswith("[1:30] "), v.prompt()


def test_back_on_its_own_turn_a_seat_has_a_whole_clock_and_every_screen_shows_it():
    """evening17: Ana's client was killed on her turn and restarted: the host gave her turn a
    whole clock from her return (a held seat back, `HostGame.rejoined`), and timed it out 90 s
    later; her screen showed no clock at all, and Hal's, counting from before, read [0:00]
    for the last 25 s while the table still waited for her."""
    from unonet.engine import Card

    def turn(seat, discard):
        return feed.TurnState(turn=seat, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                              discard=discard, counts=(2, 2, 2), catchable=None)

    def table(me):
        v = SessionView()
        v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=me, host=False, can_start=False, clock=90))
        v.apply(feed.TableInfo(("Hal", "Ana", "Cy") if me != 1 else ("Hal", "You", "Cy"), me, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
        v.apply(ev.FirstDiscard(Card("R5", 30)))
        return v

    # Ana, back: the turn under way is hers (the notice before or after the replay's turn)
    back = feed.Notice("reconnected: back in seat 1 in round 1; your hand is back", 1, "reconnected")
    for notice_first in (False, True):
        v = table(1)
        if notice_first:
            v.apply(back)
        v.apply(turn(1, 1))
        if not notice_first:
            v.apply(back)
        assert v.time_left() == 90 and v.prompt().startswith("[1:30] Your turn"), v.prompt()
    # Hal's screen: Ana's turn began 70 s ago, she dropped and is back: a whole clock again
    v = table(0)
    v.apply(turn(1, 1))
    v.turn_since -= 70                                   # (70 s of her turn went by)
    assert v.time_left() == 20
    v.apply(feed.Notice("Ana is away (left or lost the link): their seat is kept for them", 1, "dropped"))
    v.apply(feed.Notice("Ana is back at the table", 1, "back"))
    assert v.time_left() == 90 and v.prompt().startswith("[1:30] Ana's turn"), v.prompt()
    # another seat back while it is not its turn: Ana's clock goes on as it was
    v.turn_since -= 30
    v.apply(feed.Notice("Cy is back at the table", 2, "back"))
    assert v.time_left() == 60, v.time_left()


def test_back_on_its_own_turn_a_seat_shows_what_the_host_left_of_it_and_so_does_every_screen():
    """A seat back on its turn has what is left of that turn (spec §5 step 6), not a whole
    clock: its own screen counts down from the `rejoin`'s `turn_left` (the `reconnected`
    notice's ``left``), every other screen from the roster's (the `back` notice's)."""
    from unonet.engine import Card

    def turn(seat, discard):
        return feed.TurnState(turn=seat, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                              discard=discard, counts=(2, 2, 2), catchable=None)

    def table(me):
        v = SessionView()
        v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=me, host=False, can_start=False, clock=90))
        v.apply(feed.TableInfo(("Hal", "Ana", "Cy") if me != 1 else ("Hal", "You", "Cy"), me, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
        v.apply(ev.FirstDiscard(Card("R5", 30)))
        return v

    back = feed.Notice("reconnected: back in seat 1 in round 1; your hand is back; your turn: 12 s left", 1,
                       "reconnected", left=12.0)
    for notice_first in (False, True):
        v = table(1)
        if notice_first:
            v.apply(back)
        v.apply(turn(1, 1))
        if not notice_first:
            v.apply(back)
        assert v.time_left() == 12 and v.prompt().startswith("[0:12] Your turn"), v.prompt()
        v.apply(turn(2, 2))   # the next act: a whole clock again
        assert v.time_left() == 90, v.time_left()
    v = table(0)
    v.apply(turn(1, 1))
    v.turn_since -= 70
    v.apply(feed.Notice("Ana is away (left or lost the link): their seat is kept for them", 1, "dropped"))
    v.apply(feed.Notice("Ana is back at the table (12 s left of their turn)", 1, "back", left=12.0))
    assert v.time_left() == 12 and v.prompt().startswith("[0:12] Ana's turn"), v.prompt()


def test_a_link_lost_after_the_match_is_over_is_no_problem():
    v = SessionView()
    v.apply(feed.TableInfo(("You", "Ana"), 0, "official rules"))
    v.apply(feed.MatchOver(0, (512, 40), 6, "cd" * 32))
    v.apply(feed.TableProblem("host 127.0.0.1:47800 closed the link", fatal=True))
    assert v.problem is None and not v.stopped and v.log[-1] == "(host 127.0.0.1:47800 closed the link)"
    v.apply(feed.TableProblem("the host's seal for position 3 does not open", fatal=True, cheat=True))
    assert v.stopped  # a cheat is never quiet


def test_the_fatal_problem_that_stops_the_table_is_said_once():
    """The play-test's Bo read "!! the host closed the table: the match did not finish" twice
    in his log: the seat's feed ends with the failure as a `TableProblem`, and the same
    failure, raised out of the trio side, comes back as one (`problem_of`).  One problem,
    one line; another one after it is still said."""
    v = SessionView()
    v.apply(feed.Lobby("Pat's table", "7KQ2-M9XD-4T", LOBBY.seats, me=2, host=False, can_start=False))
    text = "the host closed the table: the match did not finish"
    v.apply(feed.TableProblem(text, fatal=True))
    v.apply(feed.TableProblem(text, fatal=True))
    assert [line for line in v.log if line.startswith("!!")] == [f"!! {text}"], v.log
    assert v.stopped and v.problem.message == text
    v.apply(feed.TableProblem("something else", fatal=True))
    assert [line for line in v.log if line.startswith("!!")] == [f"!! {text}", "!! something else"], v.log


def test_the_hosts_lobby_says_every_seat_is_taken_when_it_is():
    """The play-test's host read "Players are joining" with all four seats taken."""
    import dataclasses

    v = SessionView()
    v.apply(LOBBY)
    assert v.prompt().startswith("Players are joining. S (or Enter): start the match now")
    full = dataclasses.replace(LOBBY, seats=LOBBY.seats + (feed.LobbySeat(3, "Cleo", "ZZ4K-77ZD"),))
    v.apply(full)
    assert v.prompt() == "Every seat is taken. S (or Enter): start the match."


def test_a_bot_seated_for_the_next_match_is_news_of_that_match_not_of_the_finished_one():
    """After a match at an elected host its next roster seats a bot for the lost host: the
    final standings read "* a bot plays Hal's seat while they are away" (and Hal's seat
    "bot plays") as if of the match just finished.  Said when the next match begins."""
    from unonet.tui.session import SessionController

    news = feed.Notice("a bot plays Hal's seat while they are away", 0, "stand-in")
    for enter_first in (False, True):
        v = SessionView()
        v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=1, host=False, can_start=False))
        v.apply(feed.TableInfo(("Hal", "You", "Ana"), 1, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
        v.apply(feed.MatchOver(1, (0, 512, 40), 6, "cd" * 32))
        v.apply(news)
        v.apply(LOBBY)                   # the (elected) host offers the next match
        assert not [x for x in v.log if "Hal's seat" in x], v.log
        assert 0 not in v.standin and v.notice != news.text
        if enter_first:
            SessionController(v, RemoteTable()).enter()
        v.apply(feed.TableInfo(("Hal (bot)", "You", "Ana"), 1, "official rules"))
        said = [x for x in v.log if "Hal's seat" in x]
        assert said == ["* a bot plays Hal's seat while they are away"], v.log
        assert v.log.index(said[0]) > max((i for i, x in enumerate(v.log) if x.startswith("\u2014 next match")),
                                          default=-1), v.log
        assert 0 in v.standin
    v = SessionView()                    # in the match itself the news is said at once
    v.apply(feed.TableInfo(("Hal", "You", "Ana"), 1, "official rules"))
    v.apply(news)
    assert v.log[-1] == "* a bot plays Hal's seat while they are away" and 0 in v.standin


def test_a_seat_left_and_taken_again_in_the_lobby_is_not_away_in_the_match():
    """Pat-2 quit the lobby and came back as Ann, in the same seat: every screen's seat 2 read
    "Ann  7 cards dealer away" all match long (the lobby's "* Pat-2 left the table" marked it)."""
    seats = (feed.LobbySeat(0, "Hal", "AAAA"), feed.LobbySeat(1, "Pat", "BBBB"))
    v = SessionView()
    v.apply(feed.Lobby("Hal's table", "CODE", seats + (feed.LobbySeat(2, "Pat-2", "CCCC"),), me=1, host=False,
                       can_start=False))
    v.apply(feed.Lobby("Hal's table", "CODE", seats, me=1, host=False, can_start=False))
    v.apply(feed.Notice("Pat-2 left the table", 2, "left"))
    v.apply(feed.Lobby("Hal's table", "CODE", seats + (feed.LobbySeat(2, "Ann", "CCCC"),), me=1, host=False,
                       can_start=False))
    v.apply(feed.TableInfo(("Hal", "Pat", "Ann"), 1, "official rules"))
    assert v.away == set() and v.standin == set()
    # nor is it the match's first news (the log showed "* Pat-2 left the table" over round 1)
    assert not [x for x in v.log if "left the table" in x], v.log
    v.apply(feed.Notice("Ann is away (left or lost the link): their seat is kept for them", 2, "dropped"))
    assert v.away == {2}                 # in the match, a drop is still said and shown
    gone = SessionView()                 # a seat whose player is gone when the deal comes stays away
    gone.apply(feed.Lobby("Hal's table", "CODE", seats + (feed.LobbySeat(2, "Ann", "CCCC", connected=False),),
                          me=1, host=False, can_start=False))
    gone.apply(feed.TableInfo(("Hal", "Pat", "Ann"), 1, "official rules"))
    assert gone.away == {2}


def test_the_host_is_told_that_quitting_ends_the_match_for_everyone():
    """The elected host Pat pressed Ctrl-C, then y, mid-round: "Quit the match?" said nothing
    of the table going with him, and Ann's screen stopped ("the host closed the table")."""
    from unonet.tui.session import SessionController

    for host in (True, False):
        v = SessionView()
        ctl = SessionController(v, RemoteTable())
        v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=1, host=host, can_start=host))
        v.apply(feed.TableInfo(("Hal", "Pat", "Ann"), 1, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
        ctl.key("q")
        said = ctl.status()
        assert ("the match ends for every player" in said) is host, said
        assert "Y: quit" in said
        ctl.key("x")                      # keep playing
        assert not ctl.quit
    v.apply(feed.MatchOver(1, (0, 512, 40), 6, "cd" * 32))
    ctl.key("q")                          # the match is over: q quits at once, nothing to ask
    assert ctl.quit
    # and the host's terminal says what leaving did (Hal's read "you left before the first deal")
    host = SessionView()
    host.apply(feed.Lobby("Hal's table", "CODE", LOBBY.seats, me=0, host=True, can_start=True))
    assert host.standings() == ["unonet: you closed the table before the first deal."], host.standings()
    host.apply(feed.TableInfo(("Hal", "Pat", "Ann"), 0, "official rules"))
    host.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    assert host.standings()[0] == "unonet: you closed the table during round 1, first to 500 wins."


def test_a_table_that_stopped_is_not_said_as_the_player_leaving():
    """Ann's terminal after the host quit mid-round: "unonet: you left during round 1" above
    "unonet join: TABLE PROBLEM: the host closed the table" - she had not left."""
    v = SessionView()
    v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=2, host=False, can_start=False))
    v.apply(feed.TableInfo(("Hal", "Pat", "Ann"), 2, "official rules"))
    v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    v.apply(feed.TableProblem("the host closed the table: the match did not finish", fatal=True))
    said = v.standings()
    assert said[0] == "unonet: the table stopped during round 1, first to 500 wins.", said
    assert not [x for x in said if "takes it back" in x], said  # (no seat is kept at a table that is gone)
    lobby = SessionView()
    lobby.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=2, host=False, can_start=False))
    lobby.apply(feed.TableProblem("the host closed the table", fatal=True))
    assert lobby.standings() == ["unonet: the table stopped before the first deal."], lobby.standings()


def test_a_table_gone_between_matches_offers_no_next_match():
    """Pat's final screen said "Enter: the next match." after the host was gone, and Enter led
    to a lobby waiting for nobody.  The seat's "closed" notice takes the offer back; one who
    had pressed Enter already reads that the table stopped."""
    from unonet.tui.session import SessionController

    gone = feed.Notice("the host is gone (host 127.0.0.1:47800 closed the link): there is no next match", None,
                       "closed")
    over = feed.MatchOver(0, (512, 40), 6, "cd" * 32)
    for entered in (False, True):
        v = SessionView()
        ctl = SessionController(v, RemoteTable())
        v.apply(LOBBY)
        v.apply(feed.TableInfo(("You", "Ana"), 0, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0)))
        v.apply(over)
        v.apply(LOBBY)                         # the next match offered
        assert "Enter: the next match" in v.prompt()
        if entered:
            ctl.enter()
            assert v.in_lobby
        v.apply(gone)
        v.apply(over)                          # (the seat ends with the last match's result again)
        if entered:
            # (evening17: the lobby of a next match that will not come is no table problem)
            assert v.stopped and v.problem is None, v.problem
            assert v.prompt() == ("The host is gone (host 127.0.0.1:47800 closed the link): there is no next "
                                  "match. Q quits."), v.prompt()
            assert v.standings()[0] == "unonet: match over after 6 rounds: you win.", v.standings()
        else:
            assert not v.stopped and v.next_lobby is None
            # (play10: said on the final screen - the notice went under the match's end said again)
            assert v.prompt() == (f"Match over: you win.  Ledger {'cd' * 8}.  The link to the table is gone: "
                                  "no next match here.  Q to quit."), v.prompt()
            ctl.enter()
            assert not v.in_lobby              # Enter opens no lobby
        assert v.matches_over == 1


def test_a_narrow_lobby_keeps_the_you_and_says_who_hosts():
    """play8: at 50 columns Ann's lobby row read "1    Ann            GQ38-RQEB-SZYZ-P5EC-RYAK  yo"
    (her "you" cut off, the head "key (compare it with the pla"; at a partners table the keys
    themselves lost their last character: "...P5EC-RYA"); and after an election the
    lobby of the next match still said only "Table: Hal's table" to Hal, whose table Bob now
    hosted.  The flags go under the key when the row is too wide, the head fits, and a
    player's lobby says who hosts the table."""
    for teams, width in ((t, w) for t in (None, 0) for w in (50, 60, 80)):
        v = SessionView()
        seats = (feed.LobbySeat(0, "Hal", "341F-T5JN-HM52-GJ2P-5DF9", team=teams),
                 feed.LobbySeat(1, "Ann", "GQ38-RQEB-SZYZ-P5EC-RYAK", connected=False, team=teams),
                 feed.LobbySeat(2, "Bob", "A8T8-H7XV-689P-C1Z6-T6TG", team=teams))
        v.apply(feed.Lobby("Hal's table", "A8T8-H7XV-68", seats, me=0, host=False, players=4, hosted_by="Bob"))
        lines = [text for _style, text in lobby_lines(v, width)]
        assert all(len(line) <= width - 1 for line in lines), (width, lines)
        text = "\n".join(lines)
        assert "(hosted by Bob)" in text, text
        assert all(k in text for k in ("341F-T5JN-HM52-GJ2P-5DF9", "GQ38-RQEB-SZYZ-P5EC-RYAK")), text
        assert "gone: waiting for a rejoin" in text, text
        me = next(i for i, line in enumerate(lines) if line.split()[:2] == ["0", "Hal"])
        assert "you" in lines[me] or lines[me + 1].strip() == "you", lines


def test_a_narrow_match_over_line_keeps_its_keys():
    """play8: at 50 columns a partners match ended with the status "Match over: team B (Ann &
    Ben (bot)) - your team / - wins. Ledger fff6248997a9e04a. Enter: th ..." - what to press
    next was cut off.  A narrow screen gives the status line a third row."""
    from unonet.tui.screen import drawing_at, line_texts
    from unonet.tui.session import SessionController

    table = RemoteTable()
    v = SessionView()
    SessionController(v, table)
    v.apply(LOBBY)
    v.apply(feed.TableInfo(("Hal", "Ann", "Ana (bot)", "Ben (bot)"), 1, "official rules", teams=True))
    v.apply(feed.MatchOver(1, (40, 129), 2, "f6" * 32, teams=True))
    v.apply(LOBBY)
    for columns in (50, 60, 80, 100):
        with drawing_at(columns, 16):
            lines = line_texts(v.prompt())
        text = " ".join(line.strip() for line in lines)
        assert text.endswith("Enter: the next match. Q to quit."), (columns, lines)


def test_enter_after_a_result_says_we_wait_for_the_others():
    """play10: after a round's result Hal pressed Enter and nothing on his screen changed for
    a minute ("Round over. Enter: deal the next round." stayed) while the host waited for Ana,
    whose client had crashed - he pressed Enter again and again.  Once we are ready the
    screen says so, and who is away; Enter again says we are ready already."""
    from .helpers import stacked_table

    seat = TrioSeat(stacked_table([["R1"], ["B2", "B3", "B4"], ["Y2", "Y3", "Y4"]],
                                  ["R9", "Y7", "Y8", "Y9", "G9", "G8", "G7", "B7", "B8"]), hold_ready=True)

    async def script(ui, send):
        v, ctl = ui.view, ui.ctl
        await until(lambda: v.my_turn, what="our turn")
        send("r1\r")
        await until(lambda: v.result is not None, what="the result")
        before = "\n".join(screen_text(ui))
        assert " Enter: deal the next round.   Q: quit." in before, before
        send("\r")
        await until(lambda: seat.held, what="our Ready")
        await until(lambda: "You are ready" in ctl.status(), what="the ready line")
        after = "\n".join(screen_text(ui))
        assert "Enter: deal the next round" not in after, after
        assert " Ready: waiting for the others.   Q: quit." in after, after
        assert "You are ready; the next round is dealt once every player is." in after, after
        send("\r")
        await until(lambda: "ready already" in ctl.feedback(), what="Enter again")
        assert len(seat.held) == 1                     # (one Ready, not one per Enter)
        seat._push([feed.Notice("Ana is away (left or lost the link): their seat is kept for them", 1,
                                "dropped")])
        await until(lambda: 1 in v.away, what="Ana away")
        assert ctl.status() == "You are ready; waiting for the others (Ana is away).", ctl.status()
        seat.release()
        await until(lambda: v.result is None and v.round_no == 2, what="the next deal")
        assert "ready" not in ctl.status().lower(), ctl.status()
        send("q")
        await until(lambda: ctl.mode == "quit")
        send("y")

    status, ui, _ = run_client(seat, script)
    assert status == 0


def test_the_match_over_line_offers_the_next_match_as_the_status_does():
    """play10: the finished match's headline said "*** Match over: Ben wins! ***   Q to quit."
    right above the status "... Enter: the next match. Q to quit." - once the host offers
    the next match, the headline says Enter too."""
    from unonet.tui.screen import result_lines

    v = SessionView()
    v.apply(LOBBY)
    v.apply(feed.TableInfo(("You", "Ana"), 0, "official rules"))
    v.apply(feed.RoundStarted(1, 0, (0, 0)))
    v.apply(feed.RoundScored(1, 0, 512, (0, 40), ((), ()), (512, 0), None, True, 0))
    v.apply(feed.MatchOver(0, (512, 0), 1, "cd" * 32))

    def headline(width=80):
        lines = [t for _s, t in result_lines(v, 18, width)]
        i = next(k for k, t in enumerate(lines) if "*** Match over" in t)
        return [t for t in lines[i:] if t.strip()]

    assert headline() == [" *** Match over: you win! ***   Q to quit."], headline()
    v.apply(LOBBY)  # the next match offered
    assert headline() == [" *** Match over: you win! ***   Enter: the next match.  Q to quit."], headline()
    assert "Enter: the next match" in v.prompt()
    # a narrow screen: the keys go under the headline whole ("Enter: the next / match." split them)
    assert headline(40) == [" *** Match over: you win! ***", " Enter: the next match.  Q to quit."], headline(40)
    # a narrow screen: the keys go under the headline whole ("Enter: the next / match." split them)
    assert headline(40) == [" *** Match over: you win! ***", " Enter: the next match.  Q to quit."], headline(40)


def test_a_stopped_table_at_50x16_keeps_the_table_and_q_quits_under_its_banner():
    """play10: Ben's 50x16 client, its table stopped ("TABLE PROBLEM: the elected host Ana
    (10.77.103.2:34091) cannot be reached"), showed the banner over "Window too small..."
    alone: no table, no "Q quits".  The feedback row gives way before the table does."""
    stop = feed.TableProblem("the elected host Ana (10.77.103.2:34091) cannot be reached", fatal=True)
    seat = TrioSeat(LocalTable(make_rules(), seat_names("You", 4), seed=5), problem_after=2, problem=stop)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.problem is not None, what="the problem")
        send("d")
        await until(lambda: "The table has stopped: Q quits." in ui.ctl.feedback())
        screen = "\n".join(screen_text(ui, rows=16, columns=50))
        send("q")
        return screen

    status, ui, screen = run_client(seat, script, rows=16, columns=50)
    assert status == 0
    assert "TABLE PROBLEM: the elected host Ana" in screen, screen
    assert "Window too small" not in screen, screen
    assert "The table has stopped (see above). Q quits." in screen and " Top [" in screen, screen


def test_a_host_whose_match_is_starting_reads_who_it_waits_for_not_that_players_are_joining():
    """eve12: Pat (hosting) started the next match as Kim's link went down; for a minute Pat's
    lobby read "Players are joining; the match can start once a player is seated" under "4 of 4
    taken", Kim marked gone.  The table was starting the match and waiting for Kim to join it."""
    seats = (feed.LobbySeat(0, "Hal", "3JX8-Q2PA"), feed.LobbySeat(1, "Pat", "HH4K-77ZD"),
             feed.LobbySeat(2, "Kim", "SWSD-TNC9", connected=False), feed.LobbySeat(3, "Ana-2 (bot)", "", bot=True))
    v = SessionView()
    v.apply(feed.Lobby("Hal's table", "5NNM-FM8M-NG", seats, me=1, host=True, can_start=False, players=4,
                       rules="official (teams), to 80"))
    assert v.prompt() == "The match is starting: waiting for Kim to join it (else a bot takes the seat).", v.prompt()
    v.apply(feed.Lobby("Hal's table", "5NNM-FM8M-NG", seats[:2], me=1, host=True, can_start=False, players=4,
                       rules="official (teams), to 80"))
    assert v.prompt() == "Players are joining; the match can start once a player is seated."  # (seats still free)


def test_the_operators_lobby_names_a_seat_kept_for_an_away_key():
    """play14: Lee's client died between matches and the hold ran out; Olga's lobby read
    "2    (empty)" and "S (or Enter): start the match now - empty seats get bots.", then the
    start said "seat 2 (Lee) starts the match away: the seat is kept for Lee's key".  The
    lobby says it before the start: the seat is Lee's unless a newcomer sits there."""
    for width in (50, 80):
        v = SessionView()
        seats = (feed.LobbySeat(0, "Olga", "JQQE-NM7E-1WHX-X318-FNAZ"), feed.LobbySeat(1, "Jo", "M5YK-A202-9CER-NZ94-9Q4H"))
        v.apply(feed.Lobby("Olga's table", "JQQE-NM7E-1W", seats, me=0, host=True, can_start=True, players=3,
                           kept=((2, "Lee"),)))
        lines = [text for _style, text in lobby_lines(v, width)]
        assert all(len(line) <= width - 1 for line in lines), (width, lines)
        text = "\n".join(lines)
        assert "(empty)" not in text and "(Lee)" in text, text
        assert "away: kept for their key unless a newcomer sits here" in " ".join(text.split()), text
        assert v.prompt() == ("Players are joining. S (or Enter): start the match now - Lee's seat is kept for "
                              "their key (a bot plays it until they are back)."), v.prompt()
    v = SessionView()
    v.apply(feed.Lobby("Olga's table", "JQQE-NM7E-1W", seats[:1], me=0, host=True, can_start=True, players=4,
                       kept=((1, "Jo"), (2, "Lee"))))
    assert v.prompt() == ("Players are joining. S (or Enter): start the match now - Jo's and Lee's seats are kept "
                          "for their keys (bots play them until they are back), other empty seats get bots."), v.prompt()
    v = SessionView()  # nothing kept: as before
    v.apply(feed.Lobby("Olga's table", "JQQE-NM7E-1W", seats, me=0, host=True, can_start=True, players=3))
    assert v.prompt() == "Players are joining. S (or Enter): start the match now - empty seats get bots."
    assert "(empty)" in "\n".join(t for _s, t in lobby_lines(v))


def test_a_dealer_only_hosts_status_says_the_match_is_over():
    """play14: Max hosted dealer-only; at the match's end the headline read "*** Match over:
    Lee wins! ***   Enter: the next match.  Q to quit." and the status line under it "Round
    over: waiting for the players to deal the next round." - no round was to come."""
    v = SessionView()
    seats = (feed.LobbySeat(0, "Jo", "TCZV-YW0R-N7DF-MNN0-YFQ5"), feed.LobbySeat(1, "Lee", "QCD4-7PKY-X0YM-QV58-7D3S"))
    watch = feed.Lobby("Max's table", "TZ2T-QPFZ-D3", seats, me=None, host=True, can_start=False, players=2)
    v.apply(watch)
    v.apply(feed.TableInfo(("Jo", "Lee"), -1, "official rules"))
    v.apply(feed.RoundStarted(1, 0, (7, 7)))
    v.apply(feed.RoundScored(1, 1, 61, (61, 0), ((), ()), (20, 101), None, True, 1))
    assert v.watching
    assert v.prompt() == "Match over: Lee wins.  Q to quit.", v.prompt()
    v.apply(watch)  # the next match offered
    assert v.prompt() == "Match over: Lee wins.  Enter: the next match.  Q to quit.", v.prompt()


def test_a_seat_out_of_the_round_reads_the_current_players_clock_as_theirs():
    """evening19: at a deadly table a knocked-out player's status line read "[1:30] You are
    out of this round (deadly: you could not play). Watching the others." - the clock was
    Ana's, whose turn it was, read as the knocked-out player's own.  So at an elimination
    table for a player out of the match."""
    from unonet.engine import Card

    for house, scoring, what in ((("deadly",), "", "out of this round"), ((), "elimination", "out of the match")):
        v = SessionView()
        v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=2, host=False, can_start=False, clock=90))
        v.apply(feed.TableInfo(("Hal", "Ana", "You"), 2, "rules", house=house, scoring=scoring, target=150))
        v.apply(feed.RoundStarted(2, 0, (0, 0, 0)))
        v.apply(ev.FirstDiscard(Card("R5", 30)))
        v.apply(feed.TurnState(turn=1, phase="play", direction=1, color="R", pending=0, draw_pile=50, discard=9,
                               counts=(3, 4, 0), catchable=None, can_catch=None, active=(0, 1)))
        said = v.prompt()
        assert v.out and what in said, said
        assert not said.startswith("["), said
        assert said.endswith("  [1:30] Ana's turn."), said
    v.apply(feed.TurnState(turn=0, phase="play", direction=1, color="R", pending=0, draw_pile=50, discard=10,
                           counts=(3, 3, 0), catchable=None, can_catch=None, active=(0, 1)))
    assert v.prompt().endswith("  [1:30] Hal's turn."), v.prompt()
    v.apply(feed.TurnState(turn=0, phase="play", direction=1, color="R", pending=0, draw_pile=50, discard=10,
                           counts=(3, 3, 4), catchable=None, can_catch=None, active=(0, 1, 2)))
    assert v.prompt().startswith("[1:30] Hal's turn."), v.prompt()   # in the round again: as before


def test_a_host_that_closed_its_table_is_said_plainly_not_as_a_table_problem():
    """evening19: the host went home (q, y) mid-match; every player's banner and terminal read
    "TABLE PROBLEM: the host closed the table: the match did not finish".  Its goodbye is said
    as it is; a host that failed, or cheated, is still a problem (and a goodbye word from a
    failure that says cheat is never taken for a quiet one)."""
    from unonet.tui.session import banner_lines, problem_line

    text = "the host closed the table: the match did not finish; the round played is recorded (ledger 0123456789abcdef)"
    v = SessionView()
    v.apply(feed.Lobby("Pat's table", "CODE", LOBBY.seats, me=2, host=False, can_start=False))
    v.apply(feed.TableInfo(("Hal", "Pat", "Ann"), 2, "official rules"))
    v.apply(feed.RoundStarted(2, 0, (0, 0, 0)))
    v.apply(feed.TableProblem(text, fatal=True, goodbye=True))
    v.apply(problem_of(N_JoinFailed(text, code="closed", goodbye=True)))   # (raised out of the trio side too)
    assert v.stopped and problem_line(v) == text, problem_line(v)
    assert banner_lines(v)[0].startswith(" The host closed the table: the match did not finish"), banner_lines(v)
    assert v.prompt() == "The host closed the table (see above). Q quits.", v.prompt()
    assert [x for x in v.log if "host closed" in x] == [f"* {text}"], v.log
    assert v.standings()[0] == "unonet: the table stopped during round 2, first to 500 wins.", v.standings()
    failed = SessionView()
    failed.apply(feed.TableProblem("host 127.0.0.1:47800 closed the link", fatal=True))
    assert problem_line(failed) == "TABLE PROBLEM: host 127.0.0.1:47800 closed the link"
    assert problem_of(N_JoinFailed("x", cheat=True, goodbye=True)).goodbye is False
