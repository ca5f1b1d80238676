"""Accept links on listeners, trio style: ``await nursery.start(serve, ...)``.

Each accepted stream gets its own task: handshake, trust and hello under the
handshake limit, then ``handler(link)``.  A peer that fails before its link is
open never reaches the handler (``on_refused`` hears about it), and no more than
``max_pending`` handshakes run at once: further connections are closed at once,
so a flood of half-open connections costs a bounded amount.
"""

from __future__ import annotations

import errno
from typing import Any, Awaitable, Callable, Sequence

import trio

from unonet.protocol import HOST, Identity

from ._errors import LinkError
from ._link import Link, Timeouts, open_link, peer_address
from ._trust import HelloGate, KeyGate, accept_any

__all__ = ["serve", "open_listeners"]

_ACCEPT_RETRY = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS}


async def open_listeners(port: int = 0, bind: str | None = None) -> list[trio.SocketListener]:
    """TCP listeners on ``bind`` (all interfaces when ``None``), port 0 = any free port."""
    return await trio.open_tcp_listeners(port, host=bind)


def listener_port(listeners: Sequence[trio.SocketListener]) -> int:
    return listeners[0].socket.getsockname()[1]


async def serve(
    handler: Callable[[Link], Awaitable[None]], listeners: Sequence[trio.abc.Listener],
    identity: Identity, *, name: str, trust: KeyGate = accept_any,
    check_hello: HelloGate | None = None, hello_fields: dict[str, Any] | None = None,
    timeouts: Timeouts = Timeouts(), max_pending: int = 16,
    on_refused: Callable[[str, LinkError], None] | None = None,
    task_status: trio.TaskStatus[Sequence[trio.abc.Listener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve host-side links until cancelled; ``task_status.started(listeners)``.

    ``handler`` owns the link while it runs; the link is closed when it returns.
    ``on_refused(address, error)`` is told of each connection that failed before
    its link opened (bad handshake, refused key, wrong version, timeout)."""
    pending = trio.CapacityLimiter(max_pending)

    async def one(stream: trio.abc.Stream) -> None:
        address = peer_address(stream)
        try:
            try:
                link = await open_link(stream, identity, initiator=False, role=HOST, name=name,
                                       trust=trust, check_hello=check_hello,
                                       hello_fields=hello_fields, timeouts=timeouts,
                                       address=address)
            finally:
                pending.release_on_behalf_of(stream)
        except LinkError as exc:
            if on_refused is not None:
                on_refused(address, exc)
            return
        async with link:
            await handler(link)

    async def accept_loop(listener: trio.abc.Listener, nursery: trio.Nursery) -> None:
        while True:
            try:
                stream = await listener.accept()
            except OSError as exc:
                if exc.errno in _ACCEPT_RETRY:
                    await trio.sleep(0.1)
                    continue
                raise
            try:
                pending.acquire_on_behalf_of_nowait(stream)
            except trio.WouldBlock:
                await stream.aclose()
                continue
            nursery.start_soon(one, stream)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(accept_loop, listener, nursery)
        task_status.started(listeners)
