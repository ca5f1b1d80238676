"""A stand-in host for discovery tests (no `unonet host` exists yet): serves links
and announces one table until killed or ``--seconds`` pass.

Prints one JSON line once listening: {"port", "join_code", "targets"}.
Run it only inside a network namespace or with --bind 127.0.0.1 (the network rule).
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import trio

import unonet.net as N
import unonet.protocol as P


async def main(args) -> None:
    identity = P.Identity.generate()
    table = os.urandom(16)
    listeners = await N.open_listeners(0, args.bind)
    port = N.listener_port(listeners)

    def beacon() -> P.Beacon:
        return P.Beacon(v=args.v, vmin=args.vmin, table=table, name=args.name, host="bot",
                        port=port, seats=4, taken=1, rules="official", fp=identity.fingerprint)

    async def handler(link):
        await link.send(P.Leave(reason="test host"))

    with trio.move_on_after(args.seconds):
        async with trio.open_nursery() as n:
            await n.start(lambda task_status: N.serve(handler, listeners, identity, name="bot",
                                                      task_status=task_status))
            targets = await n.start(lambda task_status: N.announce(
                beacon, port=args.port, bind=args.bind, interval=args.interval,
                task_status=task_status))
            print(json.dumps({"port": port, "join_code": identity.join_code,
                              "targets": targets}), flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--bind")
    ap.add_argument("--name", default="Test table")
    ap.add_argument("--port", type=int, default=N.DISCOVERY_PORT)
    ap.add_argument("--interval", type=float, default=1.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--v", type=int, default=P.PROTOCOL_VERSION)
    ap.add_argument("--vmin", type=int, default=P.MIN_PROTOCOL_VERSION)
    args = ap.parse_args()
    try:
        trio.run(main, args)
    except KeyboardInterrupt:
        sys.exit(0)
