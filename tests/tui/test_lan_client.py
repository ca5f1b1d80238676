"""The full-screen client at a real LAN table: a real `HostTable` on loopback (fair play and
the session on, no beacons), trio as the client's guest, the real Application on a pipe input;
keys typed, screens read.  The host's own seat (`host_seat`), a remote player (`join_seat`,
its screen from its seat's own engine copy) and a dealer-only host watching."""

from __future__ import annotations

import trio

from unonet.engine import make_rules
from unonet.net._clients import host_seat, join_seat
from unonet.net._game import HostGame, run_local_seat
from unonet.net._host import HostTable, TableConfig
from unonet.protocol import Identity

from .test_app import screen_text
from .test_remote import play_keys, run_client, until


def table_config(**kw) -> TableConfig:
    kw.setdefault("target", 60)
    kw.setdefault("rules", make_rules(target=kw["target"]))
    for key, value in (("name", "Hal's table"), ("host_name", "Hal"), ("players", 2), ("bind", "127.0.0.1"),
                       ("port", 0), ("announce", False), ("matches", 1)):
        kw.setdefault(key, value)
    return TableConfig(**kw)


def check_match_over(ui, final: str) -> None:
    """The match ended cleanly and the client's own record agrees with the host's result."""
    v = ui.view
    assert v.problem is None and not [line for line in v.log if line.startswith("!!")]
    o = v.over
    assert o.rounds >= 1 and len(o.ledger) == 64 and max(o.scores) >= v.target
    assert tuple(v.scores) == o.scores and o.winner == max(range(len(o.scores)), key=lambda s: v.scores[s])
    assert "Match over:" in final and f"Ledger {o.ledger[:16]}" in final
    assert v.standings()[-1] == f"  ledger {o.ledger}"


def test_the_host_plays_a_whole_match_in_the_client_against_a_bot():
    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby and v.lobby.can_start, what="the host's lobby")
        lobby = "\n".join(screen_text(ui))
        assert "Table: Hal's table   (you are the host)" in lobby
        assert "players type: unonet join --code" in lobby and "127.0.0.1:" in lobby
        send("s")
        await until(lambda: v.started and v.top is not None, what="the deal")
        assert v.names[0] == "Hal" and v.me == 0 and len(v.hand) >= 7
        assert f"Your hand ({len(v.hand)} cards" in "\n".join(screen_text(ui))
        await play_keys(ui, send, lambda: v.over is not None, limit=20000)
        final = "\n".join(screen_text(ui))
        send("q")  # the match is over: at once
        return final

    status, ui, final = run_client(host_seat(table_config(bots=1, seed=7), identity=Identity.generate()), script)
    assert status == 0
    check_match_over(ui, final)


def test_a_remote_player_plays_a_whole_match_in_the_client(tmp_path, monkeypatch):
    """`join_seat` in the client: the seat's screen comes from its own engine copy (the host's
    round never leaves the host); the player plays by keys against the host's bot seat."""
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))  # the pins go to a key store of the test's own
    config = table_config(autostart=True, seed=11)

    async def open_seat(task_status=trio.TASK_STATUS_IGNORED):
        table = HostTable(config, Identity.generate(), game_factory=HostGame, local_seat=run_local_seat(None))
        async with trio.open_nursery() as n:  # the host, in the same trio run (no screen of its own)
            port = await n.start(table.run)
            await join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate())(task_status=task_status)
            n.cancel_scope.cancel()

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.started and v.top is not None, what="the deal")
        assert v.me == 1 and v.names[1] == "Jo" and len(v.hand) >= 7
        await play_keys(ui, send, lambda: v.over is not None, limit=20000)
        final = "\n".join(screen_text(ui))
        send("q")
        return final

    status, ui, final = run_client(open_seat, script)
    assert status == 0
    check_match_over(ui, final)


def test_a_dealer_only_host_watches_the_bots_play_in_the_client():
    config = table_config(name="Bots' table", host_name="Dee", target=40, dealer_only=True, seed=3)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby, what="the lobby")
        assert "You hold no seat (dealer only)" in "\n".join(screen_text(ui))
        send("s")                       # empty seats get bots
        await until(lambda: v.started and v.top is not None, what="the deal")
        screen = "\n".join(screen_text(ui))
        assert v.watching and "watching" in screen.splitlines()[0]
        assert "You hold no seat: watching the match" in screen
        await until(lambda: v.round_no >= 2 or v.match_over, timeout=60, what="a second round")
        assert v.hand == [] and v.log and not v.problem
        send("q")          # the host closes the table: it asks first (unless the match is over)
        await until(lambda: ui.ctl.mode == "quit" or ui.ctl.quit, what="the quit question")
        if not ui.ctl.quit:
            send("y")

    status, _ui, _ = run_client(host_seat(config, identity=Identity.generate()), script)
    assert status == 0


def test_the_host_leaving_its_next_matchs_lobby_is_no_table_problem():
    """play15: the host pressed Enter for the next match's lobby, then q (the evening was
    over): its own seat read the table's closing as the host's, "TABLE PROBLEM: the host closed
    the table: there is no next match", and `unonet host` exited 1."""
    config = table_config(target=30, matches=None, seed=5)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby, what="the lobby")
        send("s")
        await until(lambda: v.started and v.top is not None, what="the deal")
        await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
        await until(lambda: v.next_lobby is not None, timeout=10, what="the next match offered")
        send("\r")
        await until(lambda: v.in_lobby, what="the next match's lobby")
        send("q")  # (in a lobby q leaves at once)
        return v

    status, _ui, v = run_client(host_seat(config, identity=Identity.generate()), script)
    assert status == 0 and v.problem is None, v.problem


def test_a_dealer_only_host_is_offered_the_next_match_and_starts_it():
    """play14: Max hosted dealer-only; at the match's end the players read "Enter: the next
    match." and Max's screen "Q to quit." only, Enter answering "The match is over: Q to quit.":
    its lobby was sent again only when the roster changed, and a match that ended with every
    seat in place changed nothing.  The table's return to its lobby is news to it too.  And
    once started, match 2 was played while Max's screen stayed in the lobby ("The match is
    starting: waiting for every player to join it."): its watch feed sent the table once."""
    # (the client's host: as many matches as the operator starts)
    config = table_config(name="Bots' table", host_name="Dee", target=40, dealer_only=True, seed=3, matches=None)

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby, what="the lobby")
        send("s")
        await until(lambda: v.started and v.top is not None, what="the deal")
        await until(lambda: v.final, timeout=120, what="the match's end")
        await until(lambda: v.next_lobby is not None, timeout=10, what="the next match offered")
        assert "Enter: the next match." in ui.ctl.status(), ui.ctl.status()
        send("\r")
        await until(lambda: v.in_lobby, what="the next match's lobby")
        send("s")
        await until(lambda: v.started and v.round_no >= 1 and v.top is not None, what="the next match's deal")
        assert v.watching and "Watching (you hold no seat)" in ui.ctl.status(), ui.ctl.status()
        send("q")
        await until(lambda: ui.ctl.mode == "quit" or ui.ctl.quit, what="the quit question")
        if not ui.ctl.quit:
            send("y")

    status, _ui, _ = run_client(host_seat(config, identity=Identity.generate()), script)
    assert status == 0


def test_a_player_in_the_next_matchs_lobby_whose_host_closes_the_table_ends_cleanly(tmp_path, monkeypatch):
    """evening17: Ana pressed Enter after match 3 for the next match's lobby; Hal, done for the
    evening, left his lobby (q).  Ana read "The table has stopped (see above)", nothing above,
    and on exit "unonet join: TABLE PROBLEM: the host closed the table: there is no next
    match", exit 1 - while Robo, still at the final standings, exited 0 with no word of a
    problem.  The matches played stand: the lobby says why there is no next one, exit 0."""
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    config = table_config(target=30, seed=11, matches=None)
    tables = []

    async def open_seat(task_status=trio.TASK_STATUS_IGNORED):
        table = HostTable(config, Identity.generate(), game_factory=HostGame, local_seat=run_local_seat(None))
        tables.append(table)
        async with trio.open_nursery() as n:
            port = await n.start(table.run)
            n.start_soon(_start_when_seated, table)
            await join_seat(f"127.0.0.1:{port}", name="Ana", identity=Identity.generate())(task_status=task_status)
            n.cancel_scope.cancel()

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.started and v.top is not None, what="the deal")
        await play_keys(ui, send, lambda: v.over is not None, limit=40000)
        await until(lambda: v.next_lobby is not None, timeout=10, what="the next match offered")
        send("\r")
        await until(lambda: v.in_lobby, what="the next match's lobby")
        tables[0].close()  # the host leaves its own lobby (q)
        await until(lambda: v.stopped, timeout=10, what="the table's end said")
        lobby = "\n".join(screen_text(ui))
        send("q")
        return lobby

    status, ui, lobby = run_client(open_seat, script)
    v = ui.view
    assert status == 0 and v.problem is None, v.problem
    from unonet.tui.session import problem_line
    assert problem_line(v) == "", problem_line(v)   # `run_remote`'s exit status: 0, no problem said
    assert "The table has stopped" not in lobby and "see above" not in lobby, lobby
    assert "The host closed the table: there is no next match. Q quits." in lobby, lobby
    assert lobby.count("there is no next match") == 1, lobby  # the prompt says it, once
    said = v.standings()
    assert said[0].startswith("unonet: match over after ") and said[-1] == "  the host closed the table: there is no next match", said


async def _start_when_seated(table) -> None:
    """The host's operator presses S once the joiner sits (the first match only)."""
    while not any(s is not None and s.name == "Ana" and s.connected for s in table.book.seats):
        await trio.sleep(0.01)
    table.start()
