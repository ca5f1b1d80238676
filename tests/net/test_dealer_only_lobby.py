"""A player's lobby at a dealer-only host says who hosts the table (play10: at Max's
partners table, `unonet host --dealer-only`, Ana's and Ben's lobbies read only "Table: Max's
partners" while the scorekeeper's said "hosted by Max": the roster has no seat of the host's
to name it by, and only the observer fell back to the host's hello name)."""

from __future__ import annotations

import trio

from .session_helpers import first_json, reaped, unonet
from .test_election import LOOP, Joiner, _free_udp_port


def test_a_seats_lobby_at_a_dealer_only_host_names_the_host():
    j = Joiner("ana")
    got = {}

    async def main():
        host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                      "--name", "max", "--table", "partners", "--dealer-only", "--players", "3", "--bots", "1",
                      "--target", "50")
        with reaped(host):
            port = first_json(host)["port"]
            with trio.fail_after(120):
                async with trio.open_nursery() as nursery:
                    nursery.start_soon(j.run, port)
                    while j.side is None or j.side.roster is None:
                        await trio.sleep(0.01)
                    got["lobby"] = j.side.lobby()
                    nursery.cancel_scope.cancel()

    trio.run(main)
    lobby = got["lobby"]
    assert lobby.table == "partners" and lobby.me is not None
    assert "max" not in {s.name for s in lobby.seats}, lobby.seats  # (no seat of the host's)
    assert lobby.hosted_by == "max", lobby
