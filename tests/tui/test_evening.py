"""An evening at one table, in process: the full-screen client (`join_seat`, trio as the guest of
the real Application on a pipe input, played by keys) at a real `unonet host --no-ui` process on
loopback — a rejoin after rounds were completed, the next match, a player dropping."""

from __future__ import annotations

import pytest

from unonet.net._clients import join_seat
from unonet.protocol import Identity

from ..net.session_helpers import first_json, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port
from .test_app import screen_text
from .test_remote import play_keys, run_client, until


def headless_host(*args: str):
    """`unonet host --no-ui --json` on loopback (beacons on a private port); (process, port)."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()), "--name", "Hal",
                  *args)
    try:
        return host, first_json(host)["port"]
    except BaseException:
        host.kill()
        raise


async def quit_asking(ui, send) -> None:
    """q, and yes when the client asks (mid-match it does)."""
    send("q")
    await until(lambda: ui.ctl.mode == "quit" or ui.ctl.quit, what="the quit question")
    if not ui.ctl.quit:
        send("y")


def _clean_log(v) -> None:
    assert v.problem is None, v.problem
    assert not [line for line in v.log if line.startswith("!!")], v.log[-10:]


def test_a_player_back_after_round_one_sees_the_table_with_its_names_and_plays_on(tmp_path, monkeypatch):
    """Issue 21 item 2: a client that left in round 2 or later and comes back with the same key
    gets the table as it stands (names, scores, its hand, the top card) - never 'list index out
    of range' - and plays the match to its end with the others."""
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host, port = headless_host("--players", "3", "--bots", "1", "--target", "300", "--bot-pace", "0.02",
                               "--hold-seats", "60")
    me = Identity.generate()
    with reaped(host):
        joiner = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Robo",
                        f"127.0.0.1:{port}")
        with reaped(joiner):
            async def first(ui, send):
                v = ui.view
                await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
                await play_keys(ui, send, lambda: (v.round_no >= 2 and v.result is None and v.top is not None)
                                or v.over is not None, limit=20000)
                assert v.over is None, "the match ended in round 1"
                names = list(v.names)
                scores = list(v.scores)
                ui.app.exit(result=0)  # the player closes the client mid-round
                return names, scores

            _, ui1, (names, scores) = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=me,
                                                           bind="127.0.0.1"), first)
            assert names[1] == "Jo" if names[0] == "Hal" else "Jo" in names

            async def again(ui, send):
                v = ui.view
                await until(lambda: any("reconnected: back in seat" in line for line in v.log) or v.problem, timeout=30,
                            what=f"the rejoin notice {v.log[-8:]} {v.problem}")
                try:
                    await until(lambda: v.top is not None and v.hand, timeout=30, what="the table as it stands")
                except AssertionError:
                    raise AssertionError(f"{v.problem} {v.log[-12:]} names={v.names} top={v.top}")
                screen = "\n".join(screen_text(ui))
                _clean_log(v)
                assert v.names == names, (v.names, names)
                assert v.round_no >= 2 and sum(v.scores) >= sum(scores)
                assert f"Your hand ({len(v.hand)} cards" in screen, screen
                rounds = [line for line in v.log if line.startswith("--- round")]
                assert len(rounds) == len(set(rounds)), v.log  # no round header twice
                assert not [line for line in v.log if line.startswith("first discard") and line != v.log[0]
                            and "round 1" not in line][1:], v.log
                await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
                final = "\n".join(screen_text(ui))
                send("q")
                return final

            status, ui, final = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=me,
                                                     bind="127.0.0.1"), again)
            v = ui.view
            assert status == 0
            _clean_log(v)
            assert v.over is not None and "Match over:" in final
            assert v.names == names


def test_every_screen_says_who_dropped_and_when_a_bot_stands_in(tmp_path, monkeypatch):
    """Issue 21 item 6: a player whose process dies is news on the other screens in plain words
    ('Robo dropped off the table'), then 'a bot plays Robo's seat' once the hold runs out; the
    seats panel marks the seat; the match goes on to its end without a problem."""
    import os
    import signal

    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host, port = headless_host("--players", "3", "--target", "200", "--bot-pace", "0.02", "--hold-seats", "2")
    with reaped(host):
        robo = {}

        async def script(ui, send):
            v = ui.view
            await until(lambda: v.lobby is not None, what="the lobby")
            robo["p"] = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Robo",
                               f"127.0.0.1:{port}")
            await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
            seat = v.names.index("Robo")
            os.kill(robo["p"].pid, signal.SIGKILL)
            await play_keys(ui, send, lambda: seat in v.standin or v.over is not None or v.stopped, limit=40000)
            assert any(line == "* Robo is away (left or lost the link): their seat is kept for them" for line in v.log), v.log
            assert any(line == "* a bot plays Robo's seat until they are back" for line in v.log), v.log
            if v.over is None:
                row = next(line for line in screen_text(ui) if f"{seat} Robo" in line)
                assert "bot plays" in row, row
            await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
            send("q")

        try:
            status, ui, _ = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate(),
                                                 bind="127.0.0.1"), script)
        finally:
            if "p" in robo:
                robo["p"].kill()
                robo["p"].wait(timeout=10)
        assert status == 0
        _clean_log(ui.view)
        assert ui.view.over is not None


def test_the_host_and_its_players_go_on_to_the_next_match(tmp_path, monkeypatch):
    """Issue 21 item 1: after a match the host's screen offers the next one; Enter shows the lobby
    with the players still seated (a joiner that stays for more matches is carried over), S deals
    a new match: a fresh status and log (no old result repeated, round 1 again), played to its end;
    the joiner's two match-over lines are the two matches the host's screen showed."""
    from unonet.net._clients import host_seat

    from ..net.session_helpers import finish, lines
    from .test_lan_client import table_config

    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    config = table_config(players=3, bots=1, target=60, matches=None, seed=5)
    procs = {}

    async def script(ui, send):
        v = ui.view
        await until(lambda: v.in_lobby and v.lobby.address, what="the lobby")
        port = v.lobby.address.rsplit(":", 1)[1]
        procs["robo"] = unonet("join", "--no-ui", "--json", "--bot", "--matches", "2", "--bind", "127.0.0.1",
                               "--name", "Robo", f"127.0.0.1:{port}")
        await until(lambda: any(s.name == "Robo" for s in v.lobby.seats), timeout=20, what="Robo seated")
        ends = []
        for match in (1, 2):
            send("s")
            await until(lambda: v.started and v.top is not None and v.over is None, timeout=20,
                        what=f"match {match}'s deal")
            assert v.round_no == 1 and v.names == ["Hal", "Robo", v.names[2]], (v.round_no, v.names)
            status = "\n".join(screen_text(ui)).splitlines()[-1]
            assert "Match over" not in status and "next match" not in status, status
            if match == 2:
                assert not [line for line in v.log[start:] if line.startswith("*** match over")], v.log[start:]
            await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
            _clean_log(v)
            ends.append(v.over)
            if match == 1:
                await until(lambda: v.next_lobby is not None, timeout=20, what="the next match offered")
                assert "Enter: the next match" in "\n".join(screen_text(ui))
                send("\r")
                await until(lambda: v.in_lobby, what="the lobby of the next match")
                await until(lambda: v.lobby.can_start, timeout=20, what="the table ready to start again")
                lobby = "\n".join(screen_text(ui))
                assert "Robo" in lobby, lobby
                start = len(v.log)
        send("q")
        return ends

    try:
        status, ui, ends = run_client(host_seat(config, identity=Identity.generate()), script)
        code, out, err = finish(procs["robo"], 60)
    finally:
        if "robo" in procs:
            procs["robo"].kill()
    assert status == 0
    assert ui.view.standings()[0].startswith("unonet: match over after"), ui.view.standings()
    overs = [x for x in lines(out) if x.get("t") == "match-over"]
    assert code == 0 and len(overs) == 2, err[-2000:]
    assert [o["ledger"] for o in overs] == [e.ledger for e in ends]
    assert overs[0]["match"] != overs[1]["match"]


def test_a_joiner_in_the_client_is_carried_into_the_next_match(tmp_path, monkeypatch):
    """Issue 21 item 1, the joiner's side: the full-screen client stays seated after a match;
    the host's next match deals it in without a new join; both matches end on the host's
    ledgers, and the table closing after the last is no problem."""
    from ..net.session_helpers import finish, lines

    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host, port = headless_host("--players", "2", "--target", "60", "--matches", "2", "--bot-pace", "0.01")
    with reaped(host):

        async def script(ui, send):
            v = ui.view
            ledgers = []
            for match in (1, 2):
                await until(lambda: v.started and v.top is not None and v.over is None, timeout=30,
                            what=f"match {match}'s deal")
                assert v.names == ["Hal", "Jo"] and v.me == 1
                await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
                _clean_log(v)
                ledgers.append(v.over.ledger)
            await until(lambda: ui.table.closed, timeout=20, what="the table closing")
            _clean_log(v)
            send("q")
            return ledgers

        status, ui, ledgers = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate(),
                                                   bind="127.0.0.1"), script)
        code, out, _ = finish(host, 30)
    assert status == 0 and code == 0
    ended = [x for x in lines(out) if x.get("t") == "ended"]
    assert [e["ledger"] for e in ended] == ledgers and len(set(ledgers)) == 2


@pytest.mark.parametrize("client_first", [True, False], ids=["client-elected", "client-follows"])
def test_an_election_keeps_every_seats_name_and_team(client_first, tmp_path, monkeypatch):
    """Issue 21 item 3: the host SIGKILLed in round 2 at a partners table with a bot seat; after
    the election every seat has the name it had (the host's bot keeps its name, the lost host's
    seat keeps the host's name and shows a bot playing it), the team header names the same
    partners, and the match's result names the same people as the bot joiner's."""
    import os
    import signal

    from ..net.session_helpers import finish, lines

    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    # (500: one round of a partners table can score past 200; the host is killed in round 2)
    host, port = headless_host("--players", "4", "--bots", "1", "--teams", "--target", "500", "--bot-pace", "0.02")
    procs = {}
    with reaped(host):

        def bot_joiner():
            procs["bot"] = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Robo",
                                  f"127.0.0.1:{port}")

        if not client_first:
            bot_joiner()

        async def script(ui, send):
            v = ui.view
            await until(lambda: v.lobby is not None, what="the lobby")
            if client_first:
                bot_joiner()
            await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
            await play_keys(ui, send, lambda: v.round_no >= 2 and v.my_turn and v.result is None or v.over,
                            limit=20000)
            assert v.over is None, "the match ended in round 1"
            names, teams = list(v.names), [v.team_members(0), v.team_members(1)]
            os.kill(host.pid, signal.SIGKILL)
            await until(lambda: v.election is not None, timeout=15, what="the election notice")
            await until(lambda: v.election is None and v.top is not None and v.result is None,
                        timeout=30, what="the deal after the election")
            assert v.names == names, (v.names, names)
            assert [v.team_members(0), v.team_members(1)] == teams
            # the lost host's seat keeps its key, away (spec §7); a bot stands in for it, under
            # "Hal", from its first turn on
            await play_keys(ui, send, lambda: 0 in v.standin or v.over is not None, limit=20000)
            assert 0 in v.standin, v.log[-12:]
            row = next((line for line in screen_text(ui) if line[1:7] == "0 Hal "), "\n".join(screen_text(ui)))
            assert "bot plays" in row, row
            await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
            assert v.names == names and v.over.names == tuple(names)
            send("q")

        status, ui, _ = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate(),
                                             bind="127.0.0.1"), script)
        host.wait(timeout=10)
        code, out, err = finish(procs["bot"], 120)
    v = ui.view
    assert status == 0 and v.problem is None, v.problem
    assert code == 0, err[-2000:]
    over = [x for x in lines(out) if x.get("t") == "match-over"][-1]
    assert v.over.ledger == over["ledger"] and list(v.over.scores) == over["team_scores"], \
        ([x for x in lines(out) if x.get("t") in ("match-over", "election", "reconnected", "problem")], v.log[-30:])


def test_a_turn_clock_counts_down_and_one_timeout_is_one_default_move(tmp_path, monkeypatch):
    """Issue 21 item 7: the roster's clock reaches the screen, which counts the turn down; a
    player who lets it run out is drawn a card and keeps it in one timeout (no second wait),
    and the log says the table did it, in plain words."""
    import re

    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host, port = headless_host("--players", "2", "--target", "100", "--turn-timeout", "3")
    with reaped(host):

        async def script(ui, send):
            v = ui.view
            await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
            assert v.clock == 3
            await play_keys(ui, send, lambda: (v.my_turn and v.phase == "play") or v.over is not None, limit=2000)
            status = "\n".join(screen_text(ui))
            assert re.search(r"\[0:0[0-3]\] Your turn", status), status
            hand = len(v.hand)
            await until(lambda: any("time ran out" in line for line in v.log), timeout=10, what="the timeout")
            # the keep comes with the draw (one timeout), not a clock later
            await until(lambda: any("kept the drawn card" in line for line in v.log), timeout=1.5,
                        what="the keep with the draw")
            said = [line for line in v.log if "time ran out" in line]
            assert said[:2] == ["* your time ran out: the table drew a card for you",
                                "* your time ran out: the table kept the drawn card for you"], v.log[-8:]
            # one card drawn and kept (the opponent may have made it draw more since)
            assert len(v.hand) >= hand + 1 or v.result is not None
            # said once: not "you kept the drawn card" under the table's notice (evening18)
            kept = "* your time ran out: the table kept the drawn card for you"
            await until(lambda: v.log[-1] != kept, timeout=10, what="the line after the keep")
            after = v.log[v.log.index(kept) + 1]
            assert after != "you kept the drawn card", v.log[-8:]
            await quit_asking(ui, send)

        status, ui, _ = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate(),
                                             bind="127.0.0.1"), script)
    assert status == 0


def test_uno_then_enter_typed_at_once_calls_and_plays(tmp_path, monkeypatch):
    """Issue 21 item 10: U and Enter typed together at a LAN table: the call goes, and the play
    follows once the table has answered it (it used to be refused as 'not answered yet')."""
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host, port = headless_host("--players", "2", "--target", "500", "--bot-pace", "0.01")
    with reaped(host):

        async def script(ui, send):
            v = ui.view

            def two_and_my_turn():
                return (v.my_turn and v.phase == "play" and len(v.hand) == 2 and v.uno_ok
                        and any(c.id in v.playable for c in v.hand) and ui.ctl.mode is None)

            await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
            await play_keys(ui, send, lambda: two_and_my_turn() or v.over is not None, limit=40000)
            assert v.over is None, "the match ended before this seat held two cards on its turn"
            ui.ctl.sync()  # (what a key does first: on your turn the cursor moves to a playable card)
            card = ui.ctl.selected_card()
            assert card.id in v.playable
            send("u\r")
            await until(lambda: len(v.hand) <= 1 or v.notice or ui.ctl.mode == "color", timeout=10,
                        what="the call and the play")
            if ui.ctl.mode == "color":  # (a wild under the cursor: Enter asks for its colour first)
                send(v.colors[0].lower())
                await until(lambda: len(v.hand) <= 1 or v.notice, timeout=10, what="the call and the wild's play")
            assert v.notice is None, v.notice
            assert "you: UNO!" in v.log[-4:] or any("you" in line and "UNO" in line for line in v.log[-4:]), v.log[-6:]
            assert any(line.startswith(f"you played {card.code}") for line in v.log[-4:]), v.log[-6:]
            await quit_asking(ui, send)

        status, ui, _ = run_client(join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate(),
                                             bind="127.0.0.1"), script)
    assert status == 0
