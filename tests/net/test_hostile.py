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


# -- 2. a seated player's signed lie of the wrong type ------------------------------------------

async def send_raw(link: N.Link, mapping: dict) -> None:
    """Write one message as an attacker does: msgpack by hand, padded and encrypted on its
    own link (the sending side's checks never run)."""
    import msgpack

    data = msgpack.packb(mapping, use_bin_type=True)
    plain = data + bytes(P.pad_length(len(data)) - len(data))
    async with link._send_lock:
        await link._stream.send_all(P.encode_frame(link._sl._send_cs.encrypt_with_ad(b"", plain)))


async def _forger(port: int, seen: dict) -> None:
    """A seated player that plays honestly until its first act, then signs that act with
    its own key with the action's seat a float (``"seat": 2.0``: equal to 2, not an int)."""
    from unonet.net._game import SeatGame, bot_step
    from unonet.net._join import take_seat
    from unonet.net._seat import SeatSide
    from unonet.table._round import action_json

    ident = P.Identity.generate()
    link = await N.connect("127.0.0.1", port, ident, name="forger", timeouts=N.Timeouts(idle=5.0))
    side = SeatSide(name="forger", identity=ident, host_public=link.peer_fair_identity, game_factory=SeatGame)

    async def beat():
        for seq in range(1000):
            await link.send(P.Heartbeat(seq=seq))
            await trio.sleep(0.5)

    try:
        async with trio.open_nursery() as n:
            n.start_soon(beat)
            try:
                await take_seat(link, side)
                while True:
                    for m in side.receive(await link.receive()):
                        await link.send(m)
                    value = bot_step(side) if "sent" not in seen else None
                    if value is not None:
                        js = action_json(side.game.view(), value)
                        js["seat"] = float(js["seat"])
                        act = side.game.seat.act(js, js.get("pos"))
                        await send_raw(link, {"t": "fair", "round": side.game.round_no, "ev": "act",
                                              "body": act.canonical().encode("ascii")})
                        seen["sent"] = act.action
            except N.PeerRefused as exc:
                seen["refused"] = (exc.code, exc.report.field, str(exc))
            except N.LinkError as exc:
                seen["ended"] = str(exc)
            n.cancel_scope.cancel()
    finally:
        await link.aclose()


def test_a_seat_signing_an_action_with_a_float_seat_is_refused_at_entry_and_the_table_plays_on():
    """Issue 23 item 2: a signed act whose action's seat is 2.0 used to be published, wedge
    the round and crash the host ~70 s later.  Now the host's link refuses it as it enters
    (`malformed`, the field named), the seat is dropped, a stand-in plays it and the match
    ends with a result."""
    async def main():
        cfg = _bot_table(3, target=60, bot_pace=0.01, hold_seats=0.3)
        cfg = type(cfg)(**{**cfg.__dict__, "bots": 1})
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            seen: dict = {}
            async with trio.open_nursery() as n:
                n.start_soon(_forger, table.port, seen)
                result = await _until_result(table, 90)
            return result, seen, table.events

    result, seen, events = run(main)
    assert seen["sent"]["seat"] == float(seen["sent"]["seat"]) and type(seen["sent"]["seat"]) is float
    code, field, text = seen["refused"]
    assert (code, field) == ("malformed", "fair.body.action.seat")
    assert "malformed" in text and "fair.body.action.seat" in text
    left = [e for e in events if e.kind == "left" and e.data.get("name") == "forger"]
    assert left and "fair.body.action.seat" in left[0].text
    assert max(result["scores"]) >= 60
