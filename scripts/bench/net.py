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
  * a play's arrival at the last of 9 other peers: one player's signed `act`
    (a real fair event: a play with its opening) goes to the host over its Noise
    link; the host's table task relays it through each peer's outbox and writer
    task (the `HostTable` path) to 9 peers on their own Noise links; time from the
    player's send to the 9th arrival;
  * a 4-seat 500-point match with every bot (engine only, no crypto), as a fair
    table in memory (`LocalTable`: fair play, no network), and over the session on
    loopback (`HostTable`: fair play + Noise; the three remote seats are
    `SeatSide`s on real links; their bots read their seat's own engine copy, the
    host's round only where a copy lost track); wall time per match
    and the ratios;
  * peak RSS (VmHWM) of a `unonet join --no-ui --bot` process seated at a live
    table for a few rounds.
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


async def fanout(count: int, peers: int = 9) -> list[float]:
    """A play's arrival at the last of ``peers`` peers through the host (see the docstring)."""
    from unonet.net._host import OUTBOX

    host_id = P.Identity.generate()
    inbox_send, inbox_recv = trio.open_memory_channel(256)
    outboxes: list[trio.MemorySendChannel] = []
    arrived: list[float] = []
    done = trio.Event()

    async def on_link(link):
        send, recv = trio.open_memory_channel(OUTBOX)
        outboxes.append(send)

        async def writer():
            async for m in recv:
                await link.send(m)

        async with trio.open_nursery() as n:
            n.start_soon(writer)
            async for msg in link:
                await inbox_send.send(msg)

    async def table_task():
        async for msg in inbox_recv:
            msg.event()  # the host parses and checks what it relays (the decoder did once too)
            for o in outboxes[1:]:
                o.send_nowait(msg)

    listeners = await N.open_listeners(0, "127.0.0.1")
    port = N.listener_port(listeners)
    # a realistic play: a seat's signed act with the opening of the card it plays
    seat_ident = P.Identity.generate().fair_identity()
    from unonet.fair import Act, Opening, Card
    from unonet.fair._seatsig import sign_seat_event

    act = sign_seat_event(seat_ident, bytes(16), 3, bytes(32), Act(
        seat=0, n=12, action={"t": "play", "seat": 0, "pos": 57, "color": None, "uno": False},
        opening=Opening(position=57, card=Card.from_code("R7"),
                        salt=bytes(range(32)))))
    play = P.Fair.of(act, 3)
    out = []
    async with trio.open_nursery() as n:
        await n.start(lambda task_status: N.serve(on_link, listeners, host_id, name="bench",
                                                  task_status=task_status))
        n.start_soon(table_task)
        player = await N.connect("127.0.0.1", port, P.Identity.generate(), name="player")
        others = [await N.connect("127.0.0.1", port, P.Identity.generate(), name=f"p{i}")
                  for i in range(peers)]
        while len(outboxes) < peers + 1:
            await trio.sleep(0.01)

        async def listen(link):
            async for _ in link:
                arrived.append(time.perf_counter())
                if len(arrived) == peers:
                    done.set()

        async with trio.open_nursery() as ln:
            for link in others:
                ln.start_soon(listen, link)
            for _ in range(count):
                arrived.clear()
                done.__init__()
                t = time.perf_counter()
                await player.send(play)
                with trio.fail_after(5):
                    await done.wait()
                out.append(max(arrived) - t)
            ln.cancel_scope.cancel()
        n.cancel_scope.cancel()
    return out


def matches(count: int) -> None:
    """4 seats, 500 points: engine alone, fair table in memory, fair table over the session."""
    from unonet.engine import Match, make_bot, make_rules, play_round

    rules = make_rules("official", [])

    def engine_match(seed):
        m = Match(rules, 4, seed)
        bots = [make_bot("heuristic", seed + s) for s in range(4)]
        rounds = 0
        while not m.over:
            rnd = m.new_round()
            rnd.start()
            play_round(rnd, bots)
            m.record(rnd)
            rounds += 1
        return rounds

    def session_match(seed):
        sys.path.insert(0, str(ROOT))
        from unonet.net._game import HostGame, SeatGame, bot_step, run_local_seat
        from unonet.net._host import HostTable, TableConfig
        from unonet.net._join import play_seat
        from unonet.net._seat import SeatSide

        cfg = TableConfig(rules=rules, players=4, bind="127.0.0.1", announce=False, autostart=True,
                          dealer_only=False)
        holder = {}

        def factory(table):
            holder["game"] = HostGame(table)
            return holder["game"]

        async def main():
            table = HostTable(cfg, P.Identity.generate(), game_factory=factory,
                              local_seat=run_local_seat(None))
            async with trio.open_nursery() as n:
                await n.start(table.run)

                async def seat(i):
                    ident = P.Identity.generate()
                    link = await N.connect("127.0.0.1", table.port, ident, name=f"s{i}")

                    def peek():
                        g = holder.get("game")
                        if g is None or side.game is None or side.game.seen != len(g.host.events):
                            return None
                        return g.host.round

                    side = SeatSide(name=f"s{i}", identity=ident, host_public=link.peer_fair_identity,
                                    game_factory=lambda s: SeatGame(s, peek=peek))
                    await play_seat(link, side, bot_step=bot_step)

                for i in range(3):
                    n.start_soon(seat, i)
            return table.result["rounds"]

        return trio.run(main)

    rows = []
    for label, fn in (("engine only (no crypto, no network)", engine_match),
                      ("fair play + Noise over loopback (session)", session_match)):
        times, rounds = [], 0
        for i in range(count):
            t = time.perf_counter()
            rounds += fn(1000 + i)
            times.append(time.perf_counter() - t)
        per_round = sum(times) / max(1, rounds)
        rows.append((label, sum(times) / count, per_round))
        print(f"{label:<46} {sum(times) / count * 1000:9.1f} ms/match   {per_round * 1000:7.2f} ms/round  "
              f"({count} matches, {rounds} rounds)")
    print(f"{'ratio session / engine (per round)':<46} {rows[1][2] / rows[0][2]:9.1f}x")


def join_rss(seconds: float = 8.0) -> None:
    """Peak RSS of a `unonet join --no-ui --bot` process at a live loopback table."""
    import tempfile

    env = {**os.environ, "UNONET_HOME": tempfile.mkdtemp(prefix="unonet-bench-")}
    host = subprocess.Popen([sys.executable, "-m", "unonet", "host", "--no-ui", "--json", "--bind", "127.0.0.1",
                             "--port", "0", "--discovery-port", "0", "--players", "2", "--turn-timeout", "1",
                             "--dealer-only"], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        port = json.loads(host.stdout.readline())["port"]
        joins = [subprocess.Popen([sys.executable, "-m", "unonet", "join", "--no-ui", "--bot", "--name", f"j{i}",
                                   f"127.0.0.1:{port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  env={**env, "UNONET_HOME": tempfile.mkdtemp(prefix="unonet-bench-")}, cwd=ROOT)
                 for i in range(2)]
        time.sleep(seconds)
        peak = 0
        for j in joins:
            with open(f"/proc/{j.pid}/status") as f:
                for line in f:
                    if line.startswith("VmHWM:"):
                        peak = max(peak, int(line.split()[1]))
        print(f"{'peak RSS of a join --no-ui --bot process':<46} {peak / 1024:9.1f} MB   "
              f"(after {seconds:g} s seated at a live table)")
    finally:
        for p in [host, *locals().get("joins", [])]:
            p.kill()
            p.wait()


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
    ap.add_argument("--matches", type=int, default=3, help="matches per configuration")
    args = ap.parse_args()
    report("raw loopback TCP round trip (256 B)", trio.run(raw_rtt, args.count))
    rtts, opens, size = trio.run(link_rtt, args.count)
    report(f"Noise link round trip ({size} B message, padded)", rtts)
    report("open_link: connect + XX + hello exchange", opens)
    report("a play's arrival at the last of 9 peers (host relay)", trio.run(fanout, max(200, args.count // 4)))
    matches(args.matches)
    join_rss()
    if not args.no_rig:
        rig_list(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
