"""Three host defects a peer written from the spec alone met (issue 24), each mounted as that
peer would mount it -- its own task, real sockets on loopback -- against a live table."""

from __future__ import annotations

import json

import pytest
import trio

import unonet.net as N
import unonet.protocol as P
from unonet.net._game import HostGame, run_local_seat

from .net_helpers import RawPeer, run
from .session_helpers import live_table
from .test_hostile import _crooked_seat, _one_remote_seat, _until_result, crooked_session


# -- (a) a hello without its identity certificate -------------------------------------------------

async def _careless(port: int, seen: dict) -> None:
    """A joiner whose hello leaves out the optional `cert` (signed honestly otherwise): what it
    reads until the host closes."""
    stream = await trio.open_tcp_stream("127.0.0.1", port)
    peer = RawPeer(stream)
    try:
        with trio.fail_after(10):
            await peer.handshake(hello=lambda p: p.hello_with_versions(P.PROTOCOL_VERSION,
                                                                       P.MIN_PROTOCOL_VERSION, name="careless"))
            seen["careless"] = await peer.read_all()
    finally:
        await stream.aclose()


async def _honest(port: int, seen: dict) -> None:
    ident = P.Identity.generate()
    link = await N.connect("127.0.0.1", port, ident, name="honest", timeouts=N.Timeouts(idle=10.0))
    seen["honest"] = await _crooked_seat(link, ident)


def test_a_hello_without_its_certificate_is_refused_at_once_and_the_table_plays_on():
    """It used to be seated; the full table then could not start its match (the fair layer
    refuses a seat without a certificate) and the host exited: one careless joiner ended
    everyone's table.  Now its hello is refused at once (`malformed`, `hello.cert`), its seat
    stays free, and the next joiner's match is played out."""
    async def main():
        async with live_table(_one_remote_seat(60), game_factory=HostGame,
                              local_seat=run_local_seat(None)) as table:
            seen: dict = {}
            await _careless(table.port, seen)
            taken = table.book.taken
            async with trio.open_nursery() as n:
                n.start_soon(_honest, table.port, seen)
                result = await _until_result(table, 90)
            return result, seen, taken, table.events

    result, seen, taken, events = run(main)
    got = seen["careless"]
    assert [type(m).__name__ for m in got] == ["Hello", "ErrorReport"], got
    err = got[1]
    assert (err.code, err.field, err.fatal) == ("malformed", "hello.cert", True)
    assert "certificate" in err.message
    assert taken == 2  # the host's seat and its bot: the careless joiner never sat
    refused = [e for e in events if e.kind == "refused" and "careless" in e.text]
    assert refused and "hello.cert" in refused[0].text
    assert max(result["scores"]) >= 60
    assert not any("cannot start" in e.text for e in events)


# -- (b) a seat that co-signs wrong bytes, again and again ---------------------------------------

async def _bad_cosigner(port: int, ident, seen: dict) -> None:
    """A seat that plays honestly but co-signs every round over wrong bytes, signed with its
    own key, and keeps heartbeating as fast as it can while the host drops it; then it comes
    back (same key: a rejoin) and does it again at the next round's end."""
    from unonet.fair._events import RoundSign
    from unonet.fair._seatsig import sign_seat_event

    sides = []

    async def send(link, m):
        if isinstance(m, P.Fair) and m.ev == "round-sign":
            seat = sides[-1].game.seat
            lg = seat.verifier.ledger
            bad = sign_seat_event(ident.fair_identity(), lg.table, lg.round_no, lg.start_digest,
                                  RoundSign(seat=sides[-1].seat, digest=bytes(32)))
            m = P.Fair(round=m.round, ev="round-sign", body=bad.canonical().encode("ascii"))
            seen["sent"] = seen.get("sent", 0) + 1
        await link.send(m)

    await crooked_session(port, ident, "cosigner", seen, send=send, beat=0.0005, on_side=sides.append, idle=10.0)


@pytest.mark.slow
def test_a_seat_that_keeps_co_signing_wrong_bytes_is_dropped_each_time_and_never_crashes_the_host():
    """Once in three tries the host crashed with trio.BusyResourceError after a bad co-sign
    (the dropped link's linger and its reader read one stream at once; one reader per stream
    since issue 23).  Three tables, the cheater back after every drop, up to ten times each:
    each bad co-sign is a `fair-play` drop naming the digest, and every table plays its match
    out."""
    async def main():
        out = []
        for _ in range(3):
            async with live_table(_one_remote_seat(150, hold_seats=0.5), game_factory=HostGame,
                                  local_seat=run_local_seat(None)) as table:
                ident, seen, done = P.Identity.generate(), {}, trio.Event()

                async def attacker():
                    for _ in range(10):
                        if table.result is not None:
                            break
                        await _bad_cosigner(table.port, ident, seen)
                        await trio.sleep(0.05)
                    done.set()

                async with trio.open_nursery() as n:
                    n.start_soon(attacker)
                    result = await _until_result(table, 120)
                    with trio.move_on_after(10):  # its last link ends with the table's close
                        await done.wait()
                    n.cancel_scope.cancel()
                out.append((result, seen, table.events))
        return out

    tables = run(main)
    sent = 0
    for result, seen, events in tables:
        assert max(result["scores"]) >= 150
        drops = [text for code, text in seen.get("ends", []) if code == "fair-play"]
        # every bad co-sign is a drop (but the last may meet the table's end instead)
        assert seen.get("sent", 0) >= 1 and len(drops) >= seen["sent"] - 1, (seen.get("sent"), seen.get("ends"))
        assert all("co-signed round" in t and "not the round's" in t for t in drops)
        assert not any("BusyResourceError" in e.text or "failed" in e.text for e in events if e.kind == "problem")
        sent += seen["sent"]
    assert sent >= 15


# -- (c) an act out of turn -------------------------------------------------------------------------

async def _eager(port: int, seen: dict) -> None:
    """A seat that plays honestly, but right after each of its plays also sends a draw as its
    next act (numbered and signed as an honest seat would), before its turn comes round again."""
    from unonet.fair import Act
    from unonet.fair._seatsig import sign_seat_event

    ident = P.Identity.generate()
    sides = []

    async def send(link, m):
        await link.send(m)
        if isinstance(m, P.Fair) and m.ev == "act" and len(seen.get("refusals", [])) < 3:
            body = json.loads(m.body)
            if body["action"]["t"] != "play":
                return
            lg = sides[-1].game.seat.verifier.ledger
            extra = sign_seat_event(ident.fair_identity(), lg.table, lg.round_no, lg.start_digest,
                                    Act(seat=body["seat"], n=body["n"] + 1, action={"t": "draw", "seat": body["seat"]}))
            seen["sent"] = seen.get("sent", 0) + 1
            await link.send(P.Fair(round=m.round, ev="act", body=extra.canonical().encode("ascii")))

    def on_side(side):
        sides.append(side)
        real = side.receive

        def receive(msg):
            if isinstance(msg, P.ErrorReport) and not msg.fatal:
                seen.setdefault("refusals", []).append(msg)
                return []  # (ours, not the honest seat's act: nothing of its own to withdraw)
            return real(msg)
        side.receive = receive

    link = await N.connect("127.0.0.1", port, ident, name="eager", timeouts=N.Timeouts(idle=10.0))
    seen["end"] = await _crooked_seat(link, ident, send=send, on_side=on_side)


def test_an_act_out_of_turn_is_refused_out_of_turn_not_illegal():
    """Spec §4.6/§10: a game action by a seat that may not act now is `out-of-turn`; the host
    answered `illegal`.  A seat's signed draw sent just after its own play (the turn has moved
    on) is refused `out-of-turn`, non-fatal; the seat plays on and the match is played out."""
    async def main():
        async with live_table(_one_remote_seat(60), game_factory=HostGame,
                              local_seat=run_local_seat(None)) as table:
            seen: dict = {}
            async with trio.open_nursery() as n:
                n.start_soon(_eager, table.port, seen)
                result = await _until_result(table, 90)
                n.cancel_scope.cancel()
            return result, seen

    result, seen = run(main)
    refusals = seen["refusals"]
    assert seen["sent"] >= 1 and len(refusals) >= 1
    assert {(r.code, r.fatal, r.ref) for r in refusals} == {("out-of-turn", False, "fair")}, refusals
    assert all("'s turn" in r.message for r in refusals)
    assert max(result["scores"]) >= 60
