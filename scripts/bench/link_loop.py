#!/usr/bin/env python3
"""A link's read-and-reply loop in one process: what trio and the link cost a socket read.

    python3 scripts/bench/link_loop.py [--burst 3] [--bursts 3000] [--reps 3]

Two `Link`s over a socketpair (the real Noise handshake, then heartbeats): the "host" writes a
burst of ``--burst`` messages in one write (as it writes a table step) and waits for one reply; the
"seat" reads them with `Link.receive` and answers with one message — by `Link.send` (the send lock,
a timeout, trio's `send_all`) or by `Link.send_now` + `flush_now` (encrypted at once, one
non-blocking write: what a seat's `play_seat` does).  Printed: CPU a burst, both ends together,
each way, alternately, best and median of ``--reps``.  No sans-IO work beyond the link's own
(a heartbeat decodes in a few µs), so this is the IO shell with hot caches, one process; in a real
seat (scripts/bench/cost.py --split) the same shell costs more a read (cold caches after a sleep).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


async def loop(burst: int, bursts: int, reply: str) -> float:
    """CPU seconds a burst, both ends."""
    import trio

    from unonet.net._link import open_link
    from unonet.protocol import Heartbeat, Identity

    a, b = trio.socket.socketpair()
    ids = Identity.generate(), Identity.generate()
    links: dict = {}

    async def one(k, sock, initiator):
        links[k] = await open_link(trio.SocketStream(sock), ids[k], initiator=initiator, name=str(k))

    async with trio.open_nursery() as n:
        n.start_soon(one, 0, a, True)
        n.start_soon(one, 1, b, False)
    seat, host = links[0], links[1]

    async def host_side() -> None:
        for _ in range(bursts):
            for j in range(burst):
                host.send_now(Heartbeat(seq=j))
            host.flush_now()
            await host.receive()

    async def seat_side() -> None:
        for i in range(bursts):
            for _ in range(burst):
                await seat.receive()
            if reply == "send":
                await seat.send(Heartbeat(seq=i))
            else:
                seat.send_now(Heartbeat(seq=i))
                if not seat.flush_now():
                    await seat.flush()

    t = time.process_time()
    async with trio.open_nursery() as n:
        n.start_soon(host_side)
        n.start_soon(seat_side)
    cpu = time.process_time() - t
    await seat.aclose()
    await host.aclose()
    return cpu / bursts


def main() -> int:
    import trio

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--burst", type=int, default=3, help="messages a read (a seat reads ~3 at a time)")
    ap.add_argument("--bursts", type=int, default=3000)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    got: dict[str, list[float]] = {"send": [], "send_now": []}
    for _ in range(args.reps):
        for reply in got:  # alternately
            got[reply].append(trio.run(loop, args.burst, args.bursts, reply))
    for reply, cpus in got.items():
        print(f"a burst of {args.burst} and a reply by {reply:<8}: {min(cpus) * 1e6:6.1f} us best, "
              f"{statistics.median(cpus) * 1e6:6.1f} us median (both ends)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
