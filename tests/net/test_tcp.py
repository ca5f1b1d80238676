"""unonet.net over real loopback TCP sockets: serve, connect, refusals, bad peers."""

from __future__ import annotations

import socket

import pytest
import trio

import unonet.net as N
import unonet.protocol as P

from .net_helpers import run


async def _echo_host(nursery, identity, **kw):
    """A host that echoes heartbeats and records refused connections."""
    refused, handled = [], []

    async def handler(link):
        handled.append(link.peer_name)
        async for msg in link:
            if isinstance(msg, P.Heartbeat):
                await link.send(P.Heartbeat(seq=msg.seq + 1))

    listeners = await N.open_listeners(0, "127.0.0.1")
    await nursery.start(lambda task_status: N.serve(
        handler, listeners, identity, name="hal", task_status=task_status,
        on_refused=lambda addr, exc: refused.append((addr, exc)), **kw))
    return N.listener_port(listeners), refused, handled


def test_connect_exchange_many_players():
    async def main():
        host_id = P.Identity.generate()
        async with trio.open_nursery() as n:
            port, refused, handled = await _echo_host(n, host_id)

            async def player(i):
                link = await N.connect("127.0.0.1", port, P.Identity.generate(), name=f"p{i}",
                                       trust=N.require_join_code(host_id.join_code))
                async with link:
                    assert link.address == f"127.0.0.1:{port}"
                    for seq in range(0, 20, 2):
                        await link.send(P.Heartbeat(seq=seq + 100 * i))
                        assert await link.receive() == P.Heartbeat(seq=seq + 100 * i + 1)

            async with trio.open_nursery() as players:
                for i in range(5):
                    players.start_soon(player, i)
            assert sorted(handled) == [f"p{i}" for i in range(5)] and refused == []
            n.cancel_scope.cancel()

    run(main)


def test_connection_refused_is_one_line():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now

    async def main():
        with pytest.raises(N.ConnectFailed) as exc:
            await N.connect("127.0.0.1", port, P.Identity.generate(), name="pat")
        assert str(exc.value).startswith(f"connection refused by 127.0.0.1:{port}")

    run(main)


def test_bad_peers_do_not_stop_the_host():
    async def main():
        host_id = P.Identity.generate()
        async with trio.open_nursery() as n:
            port, refused, handled = await _echo_host(n, host_id)
            # garbage, an early close, and a wrong join code (the joiner gives up)
            for junk in (b"SSH-2.0-OpenSSH_9.6\r\n", b"\x00\x00"):
                s = await trio.open_tcp_stream("127.0.0.1", port)
                await s.send_all(junk)
                await s.aclose()
            with pytest.raises(N.Untrusted):
                await N.connect("127.0.0.1", port, P.Identity.generate(), name="pat",
                                trust=N.require_join_code("ZZZZZZZZZZ"
                                                          if host_id.join_code[0] != "Z"
                                                          else "0000000000"))
            link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="good")
            async with link:
                await link.send(P.Heartbeat(seq=1))
                assert await link.receive() == P.Heartbeat(seq=2)
            with trio.fail_after(5):
                while len(refused) < 3:
                    await trio.sleep(0.01)
            codes = sorted(exc.code for _, exc in refused)
            assert codes == ["too-large", "truncated", "truncated"]
            assert all(addr.startswith("127.0.0.1:") for addr, _ in refused)
            assert handled == ["good"]
            n.cancel_scope.cancel()

    run(main)


def test_handshake_flood_is_bounded():
    """At most ``max_pending`` handshakes at once: a newcomer past the bound takes the place
    of the oldest pending one (closed unread), so silent connections held open cannot keep
    an honest joiner out (issue 23 item 4); one address holds at most ``max_per_address``."""
    async def main():
        host_id = P.Identity.generate()
        async with trio.open_nursery() as n:
            port, refused, handled = await _echo_host(n, host_id, max_pending=2, max_per_address=8)
            silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(2)]
            await trio.sleep(0.2)  # both are now handshaking (and saying nothing)
            extra = await trio.open_tcp_stream("127.0.0.1", port)
            with trio.fail_after(5):
                assert await silent[0].receive_some(10) == b""  # the oldest is given up, unread
            with trio.fail_after(5):
                link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="later")
            await link.aclose()
            for s in silent + [extra]:
                await s.aclose()
            n.cancel_scope.cancel()

    run(main)


def test_one_address_holds_a_bounded_number_of_handshakes():
    async def main():
        host_id = P.Identity.generate()
        async with trio.open_nursery() as n:
            port, refused, handled = await _echo_host(n, host_id, max_pending=16, max_per_address=2)
            silent = [await trio.open_tcp_stream("127.0.0.1", port) for _ in range(2)]
            await trio.sleep(0.2)
            extra = await trio.open_tcp_stream("127.0.0.1", port)
            with trio.fail_after(5):
                assert await silent[0].receive_some(10) == b""  # its oldest given up, unread
            assert [str(e) for _, e in refused] == ["more than 2 handshakes at once from one address: its "
                                                    "oldest given up"]
            for s in silent + [extra]:
                await s.aclose()
            n.cancel_scope.cancel()

    run(main)


def test_what_a_peer_sent_before_resetting_the_link_is_still_read_after_our_write_fails():
    """The end-of-match race: the host writes its last words and closes while our heartbeat
    sits unread in its buffer, so its kernel resets the connection.  Our next write fails,
    but the last words are in our receive buffer: ``receive()`` still yields them, in order,
    then says the link is closed."""

    async def main():
        got: list = []
        async with trio.open_nursery() as n:
            last_words = trio.Event()

            async def handler(link):
                with trio.fail_after(5):
                    await link.receive()          # the first heartbeat: the link is up
                    await trio.sleep(0.2)         # the second stays unread in our buffer
                for seq in range(5):
                    await link.send(P.Heartbeat(seq=1000 + seq))
                await link.aclose()               # unread input: the kernel resets the link
                last_words.set()

            listeners = await N.open_listeners(0, "127.0.0.1")
            await n.start(lambda task_status: N.serve(handler, listeners, P.Identity.generate(),
                                                      name="hal", task_status=task_status))
            link = await N.connect("127.0.0.1", N.listener_port(listeners), P.Identity.generate(),
                                   name="pat")
            with trio.fail_after(10):
                await link.send(P.Heartbeat(seq=0))
                await link.send(P.Heartbeat(seq=1))
                await last_words.wait()
                await trio.sleep(0.2)             # the reset has arrived
                with pytest.raises(N.LinkClosed):
                    for seq in range(2, 10):      # (the first write after a reset may still pass)
                        await link.send(P.Heartbeat(seq=seq))
                        await trio.sleep(0.05)
                assert not link.closed
                with pytest.raises(N.LinkClosed):
                    while True:
                        got.append((await link.receive()).seq)
            assert link.closed
            n.cancel_scope.cancel()
        assert got == [1000, 1001, 1002, 1003, 1004]

    run(main)
