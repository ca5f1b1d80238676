#!/usr/bin/env python3
"""Network benchmark (trio, loopback only): round trips, raw and over a Noise link,
and the time `unonet list` takes to list a live table in a namespace rig.

    python3 scripts/bench/net.py [--count 2000] [--no-rig]

Prints, p50 and p99 in microseconds:
  * raw loopback TCP round trip of a 256-byte message (trio streams, echo);
  * a `hello`-sized message's round trip over a Noise link on loopback
    (unonet.net: pad, encrypt, frame, and back; echo on the host side);
  * open_link (TCP connect + XX handshake + trust + hello exchange);
  * with root and iproute2 (else skipped): `unonet list` in one namespace of
    scripts/lan-rig finding a stand-in host in another, wall time per run
    (a whole process: Python start-up included) and the time from probe to
    the table inside discover().
The 9-peer play latency and match figures come with the host/join session.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import trio

import unonet.net as N
import unonet.protocol as P

ROOT = Path(__file__).resolve().parents[2]


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def report(label, samples_s):
    us = [x * 1e6 for x in samples_s]
    print(f"{label:<46} p50 {pct(us, 0.5):8.1f} us   p99 {pct(us, 0.99):8.1f} us   (n={len(us)})")


async def raw_rtt(count: int) -> list[float]:
    async def echo(stream):
        async with stream:
            while data := await stream.receive_some(65536):
                await stream.send_all(data)

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    out = []
    async with trio.open_nursery() as n:
        await n.start(trio.serve_listeners, echo, listeners)
        s = await trio.open_tcp_stream("127.0.0.1", port)
        msg = bytes(256)
        for _ in range(count):
            t = time.perf_counter()
            await s.send_all(msg)
            got = 0
            while got < len(msg):
                got += len(await s.receive_some(65536))
            out.append(time.perf_counter() - t)
        await s.aclose()
        n.cancel_scope.cancel()
    return out


async def link_rtt(count: int) -> tuple[list[float], list[float], int]:
    host_id = P.Identity.generate()

    async def echo(link):
        async for msg in link:
            await link.send(msg)

    listeners = await N.open_listeners(0, "127.0.0.1")
    port = N.listener_port(listeners)
    rtts, opens = [], []
    async with trio.open_nursery() as n:
        await n.start(lambda task_status: N.serve(echo, listeners, host_id, name="bench",
                                                  task_status=task_status))
        for _ in range(max(20, count // 50)):
            t = time.perf_counter()
            link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="p")
            opens.append(time.perf_counter() - t)
            await link.aclose()
        link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="p")
        # a hello-sized message a player may send: an error report of ~230 bytes
        msg = P.ErrorReport(code="illegal", message="x" * 200, field="play.card", fatal=False)
        size = len(P.encode_message(msg))
        for _ in range(count):
            t = time.perf_counter()
            await link.send(msg)
            await link.receive()
            rtts.append(time.perf_counter() - t)
        await link.aclose()
        n.cancel_scope.cancel()
    return rtts, opens, size


def rig_list(runs: int) -> None:
    if os.geteuid() != 0 or shutil.which("ip") is None or not sys.platform.startswith("linux"):
        print("unonet list in the rig: skipped (needs Linux, root, iproute2)")
        return
    loader = importlib.machinery.SourceFileLoader("lan_rig", str(ROOT / "scripts" / "lan-rig"))
    spec = importlib.util.spec_from_loader("lan_rig", loader)
    rig = importlib.util.module_from_spec(spec)
    loader.exec_module(rig)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    inner = ("import time, trio, unonet.net as N\n"
             "async def main():\n"
             "    t = time.perf_counter(); first = []\n"
             "    await N.discover(1.0, on_found=lambda x: first.append(time.perf_counter() - t))\n"
             "    print(first[0] if first else -1)\n"
             "trio.run(main)\n")
    with rig.Rig(2) as lan:
        host = lan.popen(0, [sys.executable, str(ROOT / "tests" / "net" / "beacon_host.py"),
                             "--seconds", "600", "--interval", "3600"],
                         stdout=subprocess.PIPE, text=True, env=env)
        try:
            json.loads(host.stdout.readline())
            walls, firsts = [], []
            for _ in range(runs):
                t = time.perf_counter()
                out = lan.run(1, [sys.executable, "-m", "unonet", "list", "--json",
                                  "--timeout", "0.2"], capture_output=True, text=True, env=env)
                walls.append(time.perf_counter() - t)
                assert out.stdout.strip(), out.stderr
                f = lan.run(1, [sys.executable, "-c", inner], capture_output=True, text=True,
                            env=env)
                firsts.append(float(f.stdout.strip()))
        finally:
            host.kill()
            host.wait()
    report("unonet list --timeout 0.2 (whole process)", walls)
    report("probe -> table found, inside discover()", firsts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=10, help="unonet list runs in the rig")
    ap.add_argument("--no-rig", action="store_true")
    args = ap.parse_args()
    report("raw loopback TCP round trip (256 B)", trio.run(raw_rtt, args.count))
    rtts, opens, size = trio.run(link_rtt, args.count)
    report(f"Noise link round trip ({size} B message, padded)", rtts)
    report("open_link: connect + XX + hello exchange", opens)
    if not args.no_rig:
        rig_list(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
