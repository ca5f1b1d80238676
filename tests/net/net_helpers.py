"""Helpers for link tests: a trio runner, trickling memory streams, a raw peer."""

from __future__ import annotations

import functools
import socket

import trio
import trio.testing

import unonet.protocol as P


def run(fn, *args, autojump: bool = False):
    """``trio.run`` with, optionally, virtual time that jumps when all tasks block.  It jumps
    only after 10 ms of real idleness: a frame written to a loopback socket is usually readable
    when the write returns, but on a loaded machine the kernel may deliver it a little later,
    and a clock that jumped at once would then fire a 30 s timeout in virtual time while the
    frame was on its way (a host-clock test ran out its virtual limit once in CI, on a machine
    busy with a compile and benchmarks; it passes alone either way)."""
    clock = trio.testing.MockClock(autojump_threshold=0.01) if autojump else None
    return trio.run(functools.partial(fn, *args), clock=clock)


def _one_way(max_bytes: int | None):
    send, recv = trio.testing.memory_stream_one_way_pair()
    if max_bytes is not None:
        pump = functools.partial(trio.testing.memory_stream_pump, send, recv, max_bytes=max_bytes)

        async def hook():
            pump()

        send.send_all_hook = hook
        recv.receive_some_hook = hook
    return send, recv


def stream_pair(max_bytes: int | None = None):
    """Two connected in-memory streams; ``max_bytes=1`` trickles one byte at a time."""
    a_send, b_recv = _one_way(max_bytes)
    b_send, a_recv = _one_way(max_bytes)
    return (trio.StapledStream(a_send, a_recv), trio.StapledStream(b_send, b_recv))


class RawPeer:
    """A peer driven by hand over a stream: the sans-IO ``SecureLink`` plus raw writes,
    so a test can send what ``unonet.net`` never would."""

    def __init__(self, stream, *, role=P.PLAYER, initiator=True, identity=None):
        self.stream = stream
        self.identity = identity or P.Identity.generate()
        self.sl = P.SecureLink(self.identity, role=role, initiator=initiator)
        self.received: list = []

    async def flush(self):
        data = self.sl.data_to_send()
        if data:
            await self.stream.send_all(data)

    async def next_event(self):
        while True:
            ev = self.sl.next_event()
            await self.flush()
            if ev is not P.NEED_DATA:
                return ev
            self.sl.receive_data(bytes(await self.stream.receive_some(70000)))

    async def handshake(self, *, hello=None, name="raw"):
        """Through the handshake and our hello (``hello`` overrides it, or ``hello(self)``
        builds it once the handshake hash exists); stops before reading the peer's hello."""
        await self.flush()
        while True:
            ev = await self.next_event()
            if isinstance(ev, P.PeerKey):
                self.sl.accept_peer()
                await self.flush()
            elif isinstance(ev, P.HandshakeComplete):
                msg = hello(self) if callable(hello) else hello or self.sl.hello(name=name)
                await self.send_unchecked(msg)
                self.sl._hello_sent = True
                return

    async def send_unchecked(self, msg, plaintext: bytes | None = None):
        """Encrypt any message (or raw plaintext) without the sender-side checks."""
        data = P.encode_plaintext(msg) if plaintext is None else plaintext
        ct = self.sl._send_cs.encrypt_with_ad(b"", data)
        await self.stream.send_all(P.encode_frame(ct))

    async def read_all(self):
        """Every message until the peer closes (or breaks), collected in ``received``."""
        try:
            while True:
                ev = await self.next_event()
                if ev is P.CLOSED:
                    return self.received
                self.received.append(ev)
        except (P.ProtocolError, trio.BrokenResourceError, trio.ClosedResourceError):
            return self.received

    def hello_with_versions(self, v: int, vmin: int, name="raw"):
        sl = self.sl
        sig = self.identity.sign(P.hello_binding(sl.handshake_hash, self.identity.static_public,
                                                 self.identity.seal_public))
        return P.Hello(v=v, vmin=vmin, role=sl.role, name=name,
                       sign_key=self.identity.sign_public, seal_key=self.identity.seal_public,
                       sig=sig)


async def serve_relay(target: int, up, down=None, task_status=trio.TASK_STATUS_IGNORED) -> None:
    """A one-link TCP relay on loopback to ``target``: its port is started, the first link
    accepted and joined to the target; ``up(a, b)`` copies the link's way to the target,
    ``down`` (default `relay_pump`) the way back."""
    (listener,) = await trio.open_tcp_listeners(0, host="127.0.0.1")
    task_status.started(listener.socket.getsockname()[1])
    async with listener:
        left = await listener.accept()
    right = await trio.open_tcp_stream("127.0.0.1", target)
    async with left, right, trio.open_nursery() as n:
        n.start_soon(up, left, right)
        n.start_soon(down or relay_pump, right, left)


async def relay_pump(a, b, record: list | None = None, hold=None) -> None:
    """Copy one direction of a TCP relay (optionally recording every chunk) until EOF or the
    link breaks; EOF is passed on.  ``hold() -> float``: a chunk read before that time waits
    for it (a stalled uplink: what is sent meanwhile arrives late, in order)."""
    try:
        while True:
            data = await a.receive_some(65536)
            if not data:
                await b.send_eof()
                return
            if record is not None:
                record.append(bytes(data))
            if hold is not None and trio.current_time() < hold():
                await trio.sleep_until(hold())
            await b.send_all(data)
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        return


def free_port(kind=socket.SOCK_STREAM) -> int:
    """A loopback port nothing listens on (TCP by default, or UDP)."""
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
