"""The next match at an elected host (issue 21, found by the evening suite): the full-screen
client elected when the host is SIGKILLed finishes the match, then offers the next one; the
`join --bot --matches 2` player that followed it is dealt into a new match - not told that the
host "claims to continue match X after round N, which this seat never played" (a false cheat:
the elected table must not carry the old match's continuation into the next one)."""

from __future__ import annotations

import os
import signal

from unonet.net._clients import join_seat
from unonet.protocol import Identity

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port
from .test_remote import play_keys, run_client, until


def hal_hosts(target: int):
    """Hal's headless table of 3 seats (the client under test and a bot join it)."""
    return unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "3", "--target", str(target), "--name", "Hal", "--bot-pace", "0.02")


async def elected_to_next_lobby(ui, send, host, port: int, procs: dict, *, wait_turn: bool = False) -> tuple[str, str]:
    """The client seated first; Robo (`join --bot --matches 2`) after it; Hal SIGKILLed once
    dealt (``wait_turn``: on the client's turn): the client is elected, plays the match out,
    and opens the next match's lobby (Enter).  The first match's ledger head, and the address
    the election notice gave."""
    v = ui.view
    await until(lambda: v.lobby is not None, what="the lobby")
    procs["bot"] = unonet("join", "--no-ui", "--json", "--bot", "--matches", "2", "--bind", "127.0.0.1",
                          "--name", "Robo", f"127.0.0.1:{port}")  # joins after us: we are elected
    await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
    if wait_turn:
        await play_keys(ui, send, lambda: v.my_turn and v.result is None or v.over, limit=20000)
        assert v.over is None
    os.kill(host.pid, signal.SIGKILL)
    await until(lambda: v.election is not None, timeout=15, what="the election notice")
    said = v.election.address
    await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
    assert v.problem is None, v.problem
    first = v.over.ledger
    await until(lambda: v.next_lobby is not None, timeout=20, what="the next match offered")
    send("\r")
    await until(lambda: v.in_lobby, what="the lobby of the next match")
    return first, said


def test_the_elected_client_deals_a_next_match_and_its_follower_plays_it_without_a_cheat(tmp_path, monkeypatch):
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host = hal_hosts(150)
    procs = {}
    with reaped(host):
        port = first_json(host)["port"]

        async def script(ui, send):
            v = ui.view
            first, _ = await elected_to_next_lobby(ui, send, host, port, procs, wait_turn=True)
            await until(lambda: v.lobby.can_start, timeout=20, what="the table ready to start again")
            send("s")
            try:
                await until(lambda: v.started and v.top is not None and v.over is None, timeout=30,
                            what="the next match's deal")
            except AssertionError:
                said = [x for x in lines(procs["bot"].out_path.read_text()) if x.get("t") == "problem"]
                raise AssertionError(f"no next match dealt at the elected host; its follower said {said}") from None
            # the lost host's seat went to a bot of ours that says so: never a second "Hal" under
            # another key (a scorekeeper's standings would list two)
            assert "Hal (bot)" in v.names and "Hal" not in v.names, v.names
            await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
            assert v.problem is None, v.problem
            send("q")
            return first, v.over.ledger

        try:
            status, ui, (first, second) = run_client(
                join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate(), bind="127.0.0.1"), script)
            code, out, err = finish(procs["bot"], 120)
        finally:
            if "bot" in procs and procs["bot"].poll() is None:
                procs["bot"].kill()
    said = [x for x in lines(out) if x.get("t") in ("problem", "match-over")]
    assert not [x for x in said if x.get("t") == "problem"], \
        f"the follower of the elected host reports a problem at the next match: {said}"
    assert code == 0, err[-2000:]
    assert [x["ledger"] for x in said] == [first, second] and first != second, said
    assert status == 0
