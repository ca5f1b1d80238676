"""The elected host's lobby names the address its players reach it at (play15): a client
listening on every interface, elected in a namespace with loopback alone, read "the table is
at 127.0.0.1:37655" in its election line and, at the next match's lobby, "players type:
unonet join --code ... vm:37655" - this machine's name, another address for the same table;
and q there, leaving its own table, read "TABLE PROBLEM: the host closed the table"."""

from __future__ import annotations

import os
import signal

from unonet.net._clients import join_seat
from unonet.protocol import Identity

from ..net.session_helpers import finish, first_json, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port
from .test_remote import play_keys, run_client, until


def test_the_elected_hosts_lobby_names_the_address_of_its_election_line(tmp_path, monkeypatch):
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "3", "--target", "100", "--name", "Hal", "--bot-pace", "0.02")
    procs = {}
    with reaped(host):
        port = first_json(host)["port"]

        async def script(ui, send):
            v = ui.view
            await until(lambda: v.lobby is not None, what="the lobby")
            procs["bot"] = unonet("join", "--no-ui", "--json", "--bot", "--matches", "2", "--bind", "127.0.0.1",
                                  "--name", "Robo", f"127.0.0.1:{port}")  # joins after us: we are elected
            await until(lambda: v.started and v.top is not None, timeout=30, what="the deal")
            os.kill(host.pid, signal.SIGKILL)
            await until(lambda: v.election is not None, timeout=15, what="the election notice")
            said = v.election.address
            await play_keys(ui, send, lambda: v.over is not None or v.stopped, limit=40000)
            assert v.problem is None, v.problem
            await until(lambda: v.next_lobby is not None, timeout=20, what="the next match offered")
            send("\r")
            await until(lambda: v.in_lobby and v.lobby.host, what="the lobby of the next match")
            shown = v.lobby.address
            send("q")
            return said, shown, v

        try:
            # no bind: this client listens on every interface, as `unonet join` without --bind does
            status, ui, (said, shown, v) = run_client(
                join_seat(f"127.0.0.1:{port}", name="Jo", identity=Identity.generate()), script)
        finally:
            if "bot" in procs and procs["bot"].poll() is None:
                procs["bot"].kill()
            if "bot" in procs:
                finish(procs["bot"], 30)
    assert said.startswith("127.0.0.1:"), said
    assert shown == said, f"the election line said the table is at {said}; the lobby says {shown}"
    # leaving its own lobby is the host's own doing, not a table problem (play15: "unonet join:
    # TABLE PROBLEM: the host closed the table: there is no next match", exit 1)
    assert status == 0 and v.problem is None, v.problem
