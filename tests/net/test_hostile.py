"""Hostile peers on the LAN (issue 23): each test mounts the attack as the attacker would --
its own task, the project's own classes, real sockets on loopback -- against a live table,
and shows the honest table playing on to its result, with the refusal named."""

from __future__ import annotations

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat

from .net_helpers import run
from .session_helpers import config, live_table


def _bot_table(players: int = 2, target: int = 30, **kw):
    """A table of the host's own seat and its bots, dealt at once (autostart): the honest
    table every attack below tries to stop."""
    kw.setdefault("autostart", True)
    return config(players, rules=make_rules("official", [], target=target), bots=players - 1, **kw)


async def _until_result(table, limit: float = 60.0) -> dict:
    with trio.fail_after(limit):
        while table.result is None:
            await trio.sleep(0.02)
    return table.result


# -- 1. a stranger refused `full` that keeps talking -------------------------------------------

async def _refused_and_chatty(port: int, sent: list) -> str | None:
    """A joiner at a full table that does not stop: it sends heartbeats as fast as it can
    for 0.4 s without reading (the host refuses it meanwhile), then reads its refusal."""
    try:
        link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="squatter",
                               timeouts=N.Timeouts(idle=5.0))
    except N.LinkError:
        return None
    with trio.move_on_after(0.4):
        for seq in range(100_000):
            try:
                await link.send(P.Heartbeat(seq=seq))
            except (N.LinkError, P.LocalProtocolError):
                break
            sent.append(seq)
            await trio.sleep(0)
    try:
        with trio.fail_after(3.0):
            while True:
                await link.receive()
    except N.PeerRefused as exc:
        return exc.code
    except N.LinkError:
        return None
    finally:
        await link.aclose()


def test_a_refused_joiner_that_keeps_sending_cannot_crash_the_host():
    """Issue 23 item 1: a joiner refused `full` that keeps sending valid heartbeats used to
    crash the host (trio.BusyResourceError: the refused link's reader and its lingering
    writer read one stream at once).  Twenty tries; the match plays on to its result."""
    async def main():
        cfg = _bot_table(2, target=200, bot_pace=0.02)
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            sent: list = []
            codes = []

            async def attacker():
                while table.result is None and len(codes) < 20:
                    code = await _refused_and_chatty(table.port, sent)
                    if table.result is None:
                        codes.append(code)

            async with trio.open_nursery() as n:
                n.start_soon(attacker)
                result = await _until_result(table)
            return result, codes, sent, table.events

    result, codes, sent, events = run(main)
    assert max(result["scores"]) >= 200
    assert len(codes) >= 10 and set(codes) == {"full"} and len(sent) > len(codes)
    refused = [e for e in events if e.kind == "refused" and "match has started" in e.text]
    assert len(refused) >= len(codes)
