"""The elected host's lobby names the address its players reach it at (play15): a client
listening on every interface, elected in a namespace with loopback alone, read "the table is
at 127.0.0.1:37655" in its election line and, at the next match's lobby, "players type:
unonet join --code ... vm:37655" - this machine's name, another address for the same table;
and q there, leaving its own table, read "TABLE PROBLEM: the host closed the table"."""

from __future__ import annotations

from unonet.net._clients import join_seat
from unonet.protocol import Identity

from ..net.session_helpers import finish, first_json, reaped, rerun_in_own_network
from .test_elected_next_match import elected_to_next_lobby, hal_hosts
from .test_remote import run_client, until


def test_the_elected_hosts_lobby_names_the_address_of_its_election_line(tmp_path, monkeypatch, request):
    if rerun_in_own_network(request):  # (elected, this client announces on every interface)
        return
    monkeypatch.setenv("UNONET_HOME", str(tmp_path))
    host = hal_hosts(100)
    procs = {}
    with reaped(host):
        port = first_json(host)["port"]

        async def script(ui, send):
            v = ui.view
            _, said = await elected_to_next_lobby(ui, send, host, port, procs)
            await until(lambda: v.lobby.host, what="the operator's lobby of the next match")
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
