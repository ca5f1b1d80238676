"""Three host defects a peer written from the spec alone met (issue 24), each mounted as that
peer would mount it -- its own task, real sockets on loopback -- against a live table."""

from __future__ import annotations

import trio

import unonet.net as N
import unonet.protocol as P
from unonet.net._game import HostGame, run_local_seat

from .net_helpers import RawPeer, run
from .session_helpers import live_table
from .test_hostile import _crooked_seat, _one_remote_seat, _until_result


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
