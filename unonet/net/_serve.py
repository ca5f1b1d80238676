"""Accept links on listeners, trio style: ``await nursery.start(serve, ...)``.

Each accepted stream gets its own task: handshake, trust and hello under the
handshake limit, then ``handler(link)``.  A peer that fails before its link is
open never reaches the handler (``on_refused`` hears about it).  Handshakes are
bounded so that no stranger can lock the door: at most ``max_per_address`` at once
from one address and ``max_pending`` in all; past either bound the oldest pending
handshake (of that address, or of all) is given up for the newcomer, so a flood of
half-open connections must outpace every honest handshake -- a few milliseconds on
a LAN -- to keep anyone out, and each costs a bounded amount.
"""

from __future__ import annotations

import errno
from collections import Counter
from typing import Any, Awaitable, Callable, Sequence

import trio

from unonet.protocol import HOST, Identity

from ._budget import LineBudget
from ._errors import LinkClosed, LinkError, bind_failed
from ._link import Link, Timeouts, open_link, peer_address
from ._trust import HelloGate, KeyGate, accept_any

__all__ = ["serve", "open_listeners"]

_ACCEPT_RETRY = {errno.EMFILE, errno.ENFILE, errno.ENOMEM, errno.ENOBUFS}
MAX_PENDING = 64       # handshakes under way at once, in all
MAX_PER_ADDRESS = 8    # handshakes under way at once from one address
REFUSAL_BURST, REFUSAL_WINDOW = 5, 10.0   # refusal lines about one address: 5 every 10 s
# ... and about all addresses together: a stranger holding many addresses (64 on one machine,
# redteam16) otherwise put 5 lines an address on the screen, 320 in 20 s, burying a real one
REFUSAL_TOTAL = 20


async def open_listeners(port: int = 0, bind: str | None = None) -> list[trio.SocketListener]:
    """TCP listeners on ``bind`` (all interfaces when ``None``), port 0 = any free port;
    ``BindFailed`` (one line: the address and what to try) when that cannot be."""
    try:
        return await trio.open_tcp_listeners(port, host=bind)
    except OSError as exc:
        raise bind_failed(exc, "TCP", bind, port) from None




def listener_port(listeners: Sequence[trio.SocketListener]) -> int:
    return listeners[0].socket.getsockname()[1]


async def serve(
    handler: Callable[[Link], Awaitable[None]], listeners: Sequence[trio.abc.Listener],
    identity: Identity, *, name: str, trust: KeyGate = accept_any,
    check_hello: HelloGate | None = None, hello_fields: dict[str, Any] | None = None,
    timeouts: Timeouts = Timeouts(), max_pending: int = MAX_PENDING,
    max_per_address: int = MAX_PER_ADDRESS,
    on_refused: Callable[[str, LinkError], None] | None = None,
    task_status: trio.TaskStatus[Sequence[trio.abc.Listener]] = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve host-side links until cancelled; ``task_status.started(listeners)``.

    ``handler`` owns the link while it runs; the link is closed when it returns.
    ``on_refused(address, error)`` is told of each connection that failed before
    its link opened (bad handshake, refused key, wrong version, timeout, a handshake
    over the bounds above): at most ``REFUSAL_BURST`` lines per address every
    ``REFUSAL_WINDOW`` s, and ``REFUSAL_TOTAL`` in all (the count kept quiet is told with
    the next line that passes)."""
    pending: dict[object, tuple[str, trio.CancelScope]] = {}  # insertion order: oldest first
    per_address: Counter[str] = Counter()
    budget = LineBudget(burst=REFUSAL_BURST, window=REFUSAL_WINDOW, keys=4 * max_pending)
    total = LineBudget(burst=REFUSAL_TOTAL, window=REFUSAL_WINDOW, keys=1)

    def refuse(address: str, exc: LinkError) -> None:
        host = _host_of(address)
        if on_refused is None or budget.spent(host) or not total.allow(None):
            budget.hold(host)
            return
        budget.allow(host)
        quiet = total.held_back(None)
        if quiet:
            exc = LinkError(f"{exc} (and {quiet} other refused connection{'s' if quiet != 1 else ''} "
                            "not shown: too many at once)", code=exc.code)
        on_refused(address, exc)

    async def one(stream: trio.abc.Stream, address: str, scope: trio.CancelScope) -> None:
        host = _host_of(address)
        link = None
        try:
            with scope:
                link = await open_link(stream, identity, initiator=False, role=HOST, name=name,
                                       trust=trust, check_hello=check_hello,
                                       hello_fields=hello_fields, timeouts=timeouts,
                                       address=address)
        except LinkError as exc:
            refuse(address, exc)
            return
        finally:
            if pending.pop(stream, None) is not None:
                per_address[host] -= 1
                if per_address[host] <= 0:
                    del per_address[host]
        if link is None:  # given up for a newer handshake (a flood of half-open connections)
            await stream.aclose()
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
            address = peer_address(stream)
            host = _host_of(address)
            if per_address[host] >= max_per_address:  # this address's oldest handshake makes room
                give_up(next(k for k, (h, _) in pending.items() if h == host))
                refuse(address, LinkClosed(f"more than {max_per_address} handshakes at once from one address: "
                                           "its oldest given up"))
            if len(pending) >= max_pending:  # the oldest of all makes room
                give_up(next(iter(pending)))
            scope = trio.CancelScope()
            pending[stream] = (host, scope)
            per_address[host] += 1
            nursery.start_soon(one, stream, address, scope)

    def give_up(key) -> None:
        host, scope = pending.pop(key)
        scope.cancel()
        per_address[host] -= 1  # (counted here: its task may run later)
        if per_address[host] <= 0:
            del per_address[host]

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(accept_loop, listener, nursery)
        task_status.started(listeners)


def _host_of(address: str) -> str:
    """The address part of ``host:port`` (``[v6]:port`` too): what the per-address bound counts."""
    return address.rsplit(":", 1)[0] if ":" in address else address
