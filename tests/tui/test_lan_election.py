"""The full-screen client through a host election (spec §7), in process: a real
`unonet host --no-ui` process (SIGKILLed in round 2) and a `unonet join --bot` process on
loopback, the client (`join_seat`, trio as the guest of the real Application on a pipe
input) played by keys.  The screen says who is gone and who is tried next (who hosts, once it deals), follows the new
host (or hosts the table itself, its own seat still played by keys), shows the hand of
the round dealt again, and ends on the same match-over line as the bot joiner."""

from __future__ import annotations

import os
import signal

import pytest

from unonet.net._clients import join_seat
from unonet.protocol import Identity

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port, _wait_for
from .test_app import screen_text
from .test_remote import play_keys, run_client, until


@pytest.mark.parametrize("client_first", [True, False], ids=["client-elected", "client-follows"])
def test_the_client_plays_on_after_the_host_is_killed(client_first, tmp_path, monkeypatch):
    """... and the news reads right: a bot plays the lost host's seat, never "a bot plays Ben
    (bot)'s seat until they are back" (the lost host's bot, away under its key, is no person
    to come back); at the table we host, a stranger turned away is news, not a "!!" alarm."""
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))  # the pins go to a key store of the test's own
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--bots", "1", "--target", "500", "--name", "Hal")
    procs = {}
    with reaped(host):
        port = first_json(host)["port"]

        def bot_joiner():
            procs["bot"] = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Robo",
                                  f"127.0.0.1:{port}")
            return procs["bot"]

        if not client_first:
            _wait_for(bot_joiner(), lambda x: x.get("t") == "lobby")

        async def script(ui, send):
            v = ui.view
            await until(lambda: v.lobby is not None, what="the lobby")
            if client_first:
                bot_joiner()
            await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
            # play round 1, then the host dies in round 2 on our turn (mid-round: the round is void)
            await play_keys(ui, send, lambda: v.round_no >= 2 and v.my_turn and v.result is None or v.over,
                            limit=20000)
            assert v.over is None, "the match ended in round 1"
            hand_before = len(v.hand)
            bot = next(n for n in v.names if n.endswith("(bot)"))
            table = v.lobby.table
            os.kill(host.pid, signal.SIGKILL)
            await until(lambda: v.election is not None, timeout=15, what="the election notice")
            e = v.election
            screen = "\n".join(screen_text(ui))
            assert e.lost == "Hal" and e.me is client_first
            assert e.successor == ("Jo" if client_first else "Robo")
            if client_first:
                assert "lost the link to the host Hal: you host the table now" in screen
            else:  # (what is known: the new host is said once it deals)
                assert any(x.startswith("*** lost the link to the host Hal; trying it again, then its successor Robo")
                           for x in v.log), v.log[-5:]
            # play resumes: the round in play dealt again (a fresh hand of 7), on the new host
            await until(lambda: v.election is None and v.top is not None and v.result is None,
                        timeout=30, what="the deal after the election")
            assert v.round_no == 2 and len(v.hand) >= 7 and not v.stopped, (hand_before, v.log[-5:])
            assert ("*** Robo hosts the table now ***" in v.log) is not client_first, v.log[-8:]
            assert f"Your hand ({len(v.hand)} cards" in "\n".join(screen_text(ui))
            assert v.lobby.table == table == "Hal's table", v.lobby  # (not "unonet": the table keeps its name)
            if client_first:  # we host the table now: a stranger turned away is news, not an alarm
                procs["eve"] = unonet("join", "--no-ui", "--json", "--bind", "127.0.0.1", "--name", "Eve",
                                      e.address)
                await play_keys(ui, send, lambda: any("turned away Eve" in x for x in v.log) or v.over is not None
                                or v.stopped, limit=40000)
                assert [x for x in v.log if "turned away Eve" in x][:1] == \
                    [x for x in v.log if x.startswith("* turned away Eve (127.0.0.1:")][:1] != [], v.log[-10:]
                assert not [x for x in v.log if x.startswith("!!")], v.log
            # (the log keeps its last 300 lines: read it while the stand-ins' news is in it)
            standin = "* a bot plays Hal's seat until they are back"
            await play_keys(ui, send, lambda: standin in v.log or v.over is not None or v.stopped, limit=40000)
            assert standin in v.log, v.log
            since = v.round_no
            await play_keys(ui, send, lambda: v.round_no > since or v.over is not None or v.stopped, limit=40000)
            assert not [x for x in v.log if f"{bot}'s seat" in x or f"{bot} is away" in x], v.log
            await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
            final = "\n".join(screen_text(ui))
            send("q")
            return final, bot

        try:
            status, ui, (final, bot) = run_client(join_seat(f"127.0.0.1:{port}", name="Jo",
                                                            identity=Identity.generate(), bind="127.0.0.1"), script)
            host.wait(timeout=10)
            code, out, err = finish(procs["bot"], 120)
        finally:
            for p in procs.values():
                if p.poll() is None:
                    p.kill()
                p.wait(timeout=10)
    v = ui.view
    if client_first:
        assert procs["eve"].returncode == 1  # (refused: the match has started)
    said = [x["text"] for x in lines(out) if x.get("t") == "notice"]  # the bot joiner's, every one
    assert "a bot plays Hal's seat until they are back" in said, said
    assert not [x for x in said if f"{bot}'s seat" in x or f"{bot} is away" in x], said
    assert status == 0 and v.problem is None, v.problem
    assert code == 0, err[-2000:]
    over = [x for x in lines(out) if x.get("t") == "match-over"][-1]
    # the client's end is the bot joiner's: same rounds, scores, winner and ledger head
    assert v.over.ledger == over["ledger"] and v.over.rounds == over["rounds"] >= 2
    assert list(v.over.scores) == over["scores"] and v.over.winner == over["winner"]
    assert "Match over:" in final and f"Ledger {over['ledger'][:16]}" in final
    election = [x for x in lines(out) if x.get("t") == "election"]
    assert len(election) == 1 and election[0]["successor_name"] == ("Jo" if client_first else "Robo")

