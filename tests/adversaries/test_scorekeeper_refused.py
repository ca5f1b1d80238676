"""A host's refusal of the scorekeeper is the host's word about the scorekeeper, never a record
of the round (redteam18).

The scorekeeper (`unonet score`, an observer) recorded the round in play as *disputed* whenever
its session ended with a code in `DISPUTING` — including a fatal ``error`` the host sent it
(`PeerRefused`).  A host could so write any accusation it liked into the scorekeeper's
database as a round's dispute reason: here round 2 "disputed, not counted: ... seat 1 (p1)
cheated: it played a card it was never dealt", the honest player named, while every check the
scorekeeper made had passed.  Only what the scorekeeper itself found wrong (its own checks, a
host breaking the protocol) disputes a round; a refusal ends the watch like a closed table.

Real processes and sockets on 127.0.0.1: the host is a real `HostTable` whose game drops the
scorekeeper's link with the accusation at round 2's first move; two remote bot seats play on.
"""

from __future__ import annotations

import json

import pytest
import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame

from ..net.session_helpers import config, lines
from ..store.test_attach import _db, _keeper_beside, _remote_seat, _rounds, _score_cli

ACCUSATION = "seat 1 (p1) cheated: it played a card it was never dealt"


def _framing(table):
    """At round 2's first move the host drops every observer with a fair-play accusation of
    seat 1, which played honestly (its signed word, relayed, passed every check)."""
    game = HostGame(table)
    setups = [0]

    def tamper(data):
        if data.get("g") == "setup":
            setups[0] += 1
        elif data.get("g") == "act" and setups[0] == 2:
            setups[0] = -1  # once
            for peer in list(table.observers):
                table.drop(peer, "fair-play", ACCUSATION)
        return data

    game.host.tamper_game = tamper
    return game


@pytest.mark.slow
def test_a_host_that_refuses_the_scorekeeper_with_an_accusation_gets_no_round_disputed():
    rules = make_rules("official", [], target=1000)
    cfg = config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=0.01, matches=1)
    db = _db()
    seats: dict = {}

    async def played(port, name):
        try:
            await _remote_seat(port, name, seats)
        except Exception as exc:  # noqa: BLE001 - (none expected: the players are not lied to)
            seats[name]["error"] = exc

    async def play(table):
        async with trio.open_nursery() as n:
            for name in ("p0", "p1"):
                n.start_soon(played, table.port, name)

    code, out, err = _keeper_beside(cfg, db, play, game_factory=_framing)
    assert code == 1, err
    assert "Traceback" not in err, err
    rounds = _rounds(lines(out))
    # round 1 verified, and nothing of round 2: the host's word is not the scorekeeper's finding
    assert [(r["round"], r["status"]) for r in rounds] == [(1, "verified")], rounds
    assert not any(ACCUSATION in (r.get("reason") or "") for r in rounds), rounds
    assert not err.startswith("unonet score: FAIR-PLAY VIOLATION"), err
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["disputed"] == 0
    m = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)["match"]
    assert ACCUSATION not in json.dumps(m), m
