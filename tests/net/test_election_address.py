"""The elected host's lobby says where its table really listens (words15): a joiner that
listens on every interface (no --bind) in a network whose only interface is loopback was
elected, and its lobby named the machine (`lan_address`'s fallback, its hostname), where
players reach the table at the loopback address alone."""

from __future__ import annotations

import trio

from unonet.net._game import table_address
from unonet.net._serve import open_listeners as real_open_listeners

from . import test_election
from .session_helpers import rerun_in_own_network
from .test_election import Joiner, _match_with_joiners


def test_the_elected_hosts_lobby_names_the_address_its_table_listens_on(monkeypatch, request):
    if rerun_in_own_network(request):  # (the elected joiner announces on every interface)
        return
    async def every_interface(port, bind=None):  # the joiners listen as `join` without --bind does
        return await real_open_listeners(port, None)

    monkeypatch.setattr(test_election, "open_listeners", every_interface)
    js = [Joiner("a"), Joiner("b")]
    trio.run(_match_with_joiners, ("--players", "3", "--bots", "0"), js)
    elected = next(j for j in js if any(x.get("t") == "elected" for x in j.out))
    port = test_election.listener_port(elected.listeners)
    lobbies = [x["address"] for x in elected.out if x.get("t") == "lobby" and x.get("host")]
    # where its followers reached it (the roster's address of its listener, as the election
    # line says it: play15), on loopback here whatever other interface the machine has; never
    # the machine's name (lan_address's fallback)
    want = f"127.0.0.1:{port}"
    assert lobbies and set(lobbies) == {want}, (lobbies, want)


def test_a_table_bound_to_one_address_is_said_at_it():
    assert table_address("127.0.0.1", 47800) == "127.0.0.1:47800"
    assert table_address("::1", 47800) == "[::1]:47800"
