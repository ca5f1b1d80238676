"""The full-screen client at a real LAN table: the host's own seat (`host_seat`), a real
`HostTable` on loopback (fair play and the session on, no beacons), trio as the client's guest,
the real Application on a pipe input; keys typed, screens read."""

from __future__ import annotations

import asyncio

from prompt_toolkit.input import create_pipe_input

from unonet import feed
from unonet.engine import make_rules
from unonet.net._clients import host_seat
from unonet.net._host import TableConfig
from unonet.protocol import Identity
from unonet.tui.remote import run_remote_async

from .test_app import SizedOutput, screen_text
from .test_remote import play_keys, until


def test_the_host_plays_a_whole_match_in_the_client_against_a_bot():
    rules = make_rules(target=60)
    config = TableConfig(rules=rules, name="Hal's table", host_name="Hal", players=2, bots=1, target=60,
                         bind="127.0.0.1", port=0, announce=False, matches=1, seed=7)

    async def main():
        with create_pipe_input() as inp:
            box, ready = {}, asyncio.Event()

            def on_ready(ui):
                box["ui"] = ui
                ready.set()

            task = asyncio.ensure_future(run_remote_async(
                host_seat(config, identity=Identity.generate()), input=inp, output=SizedOutput(),
                on_ready=on_ready))
            try:
                await asyncio.wait_for(ready.wait(), 10)
                ui, send = box["ui"], inp.send_text
                v = ui.view
                await until(lambda: v.in_lobby and v.lobby.can_start, what="the host's lobby")
                lobby = "\n".join(screen_text(ui))
                assert "Table: Hal's table   (you are the host)" in lobby
                assert "players type: unonet join --code" in lobby and "127.0.0.1:" in lobby
                send("s")
                await until(lambda: v.started and v.top is not None, what="the deal")
                assert v.names == ["Hal", v.names[1]] and v.me == 0
                table = "\n".join(screen_text(ui))
                assert f"Your hand ({len(v.hand)} cards" in table and len(v.hand) >= 7
                await play_keys(ui, send, lambda: v.over is not None, limit=20000)
                final = "\n".join(screen_text(ui))
                send("q")
                status, ui = await asyncio.wait_for(task, 10)
                return status, ui, final
            finally:
                if not task.done():
                    box["ui"].app.exit(result=99)
                    await task

    status, ui, final = asyncio.run(main())
    v = ui.view
    assert status == 0
    assert v.problem is None and not [line for line in v.log if line.startswith("!!")]
    o = v.over
    assert o.rounds >= 1 and len(o.ledger) == 64 and max(o.scores) >= 60
    # the client's own record of the rounds agrees with the host's declared result
    assert tuple(v.scores) == o.scores and o.winner == max(range(2), key=lambda s: v.scores[s])
    assert "Match over:" in final and f"Ledger {o.ledger[:16]}" in final
    assert v.standings()[-1] == f"  ledger {o.ledger}"


def test_a_dealer_only_host_watches_the_bots_play_in_the_client():
    rules = make_rules(target=40)
    config = TableConfig(rules=rules, name="Bots' table", host_name="Dee", players=2, bots=0, target=40,
                         bind="127.0.0.1", port=0, announce=False, matches=1, dealer_only=True, seed=3)

    async def main():
        with create_pipe_input() as inp:
            box, ready = {}, asyncio.Event()

            def on_ready(ui):
                box["ui"] = ui
                ready.set()

            task = asyncio.ensure_future(run_remote_async(
                host_seat(config, identity=Identity.generate()), input=inp, output=SizedOutput(),
                on_ready=on_ready))
            try:
                await asyncio.wait_for(ready.wait(), 10)
                ui, send = box["ui"], inp.send_text
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
                status, ui = await asyncio.wait_for(task, 10)
                return status, ui
            finally:
                if not task.done():
                    box["ui"].app.exit(result=99)
                    await task

    status, ui = asyncio.run(main())
    assert status == 0


def test_a_remote_player_plays_a_whole_match_in_the_client(tmp_path, monkeypatch):
    """`join_seat` in the client: the seat's screen comes from its own engine copy (the host's
    round never leaves the host); the player plays by keys against the host's bot seat."""
    import trio

    from unonet.net._clients import join_seat
    from unonet.net._game import HostGame, run_local_seat
    from unonet.net._host import HostTable

    monkeypatch.setenv("UNONET_HOME", str(tmp_path))  # the pins go to a key store of the test's own
    rules = make_rules(target=60)
    config = TableConfig(rules=rules, name="Hal's table", host_name="Hal", players=2, target=60,
                         bind="127.0.0.1", port=0, announce=False, autostart=True, matches=1, seed=11)
    found = {}

    async def host(task_status=trio.TASK_STATUS_IGNORED):
        table = HostTable(config, Identity.generate(), game_factory=HostGame, local_seat=run_local_seat(None))
        found["table"] = table
        await table.run(task_status=task_status)

    async def main():
        with create_pipe_input() as inp:
            box, ready = {}, asyncio.Event()

            def on_ready(ui):
                box["ui"] = ui
                ready.set()

            async def open_seat(task_status=trio.TASK_STATUS_IGNORED):
                async with trio.open_nursery() as n:  # the host, in the same trio run (no UI of its own)
                    port = await n.start(host)
                    await join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate())(
                        task_status=task_status)
                    n.cancel_scope.cancel()

            task = asyncio.ensure_future(run_remote_async(open_seat, input=inp, output=SizedOutput(),
                                                          on_ready=on_ready))
            try:
                await asyncio.wait_for(ready.wait(), 10)
                ui, send = box["ui"], inp.send_text
                v = ui.view
                await until(lambda: v.started and v.top is not None, what="the deal")
                assert v.me == 1 and v.names[1] == "Jo" and len(v.hand) >= 7
                await play_keys(ui, send, lambda: v.over is not None, limit=20000)
                final = "\n".join(screen_text(ui))
                send("q")
                status, ui = await asyncio.wait_for(task, 10)
                return status, ui, final
            finally:
                if not task.done():
                    box["ui"].app.exit(result=99)
                    await task

    status, ui, final = asyncio.run(main())
    v = ui.view
    assert status == 0 and v.problem is None
    o = v.over
    assert max(o.scores) >= 60 and tuple(v.scores) == o.scores and len(o.ledger) == 64
    assert "Match over:" in final
