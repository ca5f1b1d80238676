#!/usr/bin/env python3
"""Network benchmark (trio, loopback only): round trips, raw and over a Noise link,
and the time `unonet list` takes to list a live table in a namespace rig.

    python3 scripts/bench/net.py [--count 2000] [--no-rig]
    python3 scripts/bench/net.py --only fanout [--count 2000] [--interval 0.02]

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
    link; the host's real relay path (`RelayTable`: a `HostTable` with its links,
    inbox, table task, `broadcast` encoding once, the table task's own write to each
    link and each link's writer for what a full socket leaves; the table task checks the act (its body, its seat's signature) and broadcasts it instead of refereeing a match)
    takes it to 9 peers on their own Noise links, each decoding and checking it; time
    from the player's send to the 9th arrival; then with the host, the player and each
    peer a process of its own (as on a LAN), to 3 and to 9 peers, with the host's own
    part (play read -> its last write done) beside it.  `--only fanout` runs just this
    part, between two measures of the raw loopback round trip (issue 26's target: p50
    <= 1 ms, p99 <= 2 ms at 9 peers); beside each, its floor: the cryptography the
    fair-play design obliges (the host's and every peer's Ed25519 check of the play, the
    links' encryptions) at unit costs measured in the run, shared over this machine's cores;
  * a 4-seat 500-point match with every bot (engine only, no crypto), as a fair
    table in memory (`LocalTable`: fair play, no network), and over the session on
    loopback (`HostTable`: fair play + Noise; the three remote seats are
    `SeatSide`s on real links; their bots read their seat's own engine copy); wall
    time per match
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


class RelayTable:
    """The host's real relay path for the fan-out bench: a `HostTable` (its links, inbox, table
    task, `broadcast` with its encode-once bytes, its writes to each link, each link's writer
    for what a full socket leaves) whose
    table task, instead of a match, hands every `fair` message it reads (checked, as the host
    checks what it relays) to `broadcast`.  Seats are taken in the lobby; the match never starts."""

    @staticmethod
    def make(peers: int):
        from unonet.engine import make_rules
        from unonet.fair._seatsig import seat_event_ok
        from unonet.net._host import HostTable, TableConfig

        class _Relay(HostTable):
            def _on_message(self, peer, msg):
                if isinstance(msg, P.Fair):
                    # the host checks what it relays: the event parsed, the seat's signature
                    if not seat_event_ok(peer.identity, bytes(16), 3, bytes(32), msg.event()):
                        raise AssertionError("the bench's play does not verify")
                    self.broadcast(msg)
                else:
                    super()._on_message(peer, msg)

        cfg = TableConfig(rules=make_rules("official", []), players=peers + 1, dealer_only=True,
                          bind="127.0.0.1", announce=False, observers=1)
        # the peers only listen: no idle limit on their links (the table's heartbeats go out as usual)
        return _Relay(cfg, P.Identity.generate(), timeouts=N.Timeouts(idle=None))


async def _drain(link) -> None:
    """Read and drop what comes (the player hears its own play relayed back, as at a table)."""
    async for _ in link:
        pass


async def fanout(count: int, peers: int = 9) -> list[float]:
    """A play's arrival at the last of ``peers`` peers through the host (see the docstring)."""
    table = RelayTable.make(peers)
    arrived: list[float] = []
    done = trio.Event()
    me = P.Identity.generate()
    play = _bench_play(me)
    out = []
    async with trio.open_nursery() as n:
        port = await n.start(table.run)
        player = await N.connect("127.0.0.1", port, me, name="player")
        others = [await N.connect("127.0.0.1", port, P.Identity.generate(), name=f"p{i}")
                  for i in range(peers)]
        while table.book.taken < peers + 1:
            await trio.sleep(0.01)

        async def listen(link):
            async for msg in link:
                if isinstance(msg, P.Fair):
                    msg.event()  # each peer decodes and checks what it receives
                    arrived.append(time.perf_counter())
                    if len(arrived) == peers:
                        done.set()

        async with trio.open_nursery() as ln:
            ln.start_soon(_drain, player)
            for link in others:
                ln.start_soon(listen, link)
            await trio.sleep(0.2)  # the lobby's rosters are read
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


def _bench_play(identity: P.Identity):
    """A realistic play on the wire: a seat's signed act (signed by ``identity``, the
    player's key) with the opening of its card."""
    from unonet.fair import Act, Card, Opening
    from unonet.fair._seatsig import sign_seat_event

    seat_ident = identity.fair_identity()
    act = sign_seat_event(seat_ident, bytes(16), 3, bytes(32), Act(
        seat=0, n=12, action={"t": "play", "seat": 0, "pos": 57, "color": None, "uno": False},
        opening=Opening(position=57, card=Card.from_code("R7"), salt=bytes(range(32)))))
    return P.Fair.of(act, 3)


# -- the 9-peer fan-out with every party in a process of its own (as on a LAN) -------------
# Roles run by `net.py --role ...`; times are time.perf_counter(), i.e. CLOCK_MONOTONIC,
# one clock for every process of the machine.

async def _role_host(peers: int) -> None:
    """The host's relay (`RelayTable`: the `HostTable` path).  Prints its port, "ready" once
    every seat is taken, then per relayed play the time from reading it to the last of its
    link writes (its frame written for every peer but the player: by the table task's own
    write, `Link.send_now` + `flush_now`, or by a link's writer, `Link.send` / `flush`)."""
    from unonet.net._link import Link

    table = RelayTable.make(peers)
    relays: list[list] = []   # per relayed play: [time its frame was read, writes left]
    written: dict[int, int] = {}  # link -> plays written to it
    made: dict[int, int] = {}     # link -> plays encrypted by send_now, not yet written
    receive, send, send_now, flush_now, flush = Link.receive, Link.send, Link.send_now, Link.flush_now, Link.flush

    def wrote(link, plays: int) -> None:
        for _ in range(plays):
            k = written.get(id(link), 0)
            written[id(link)] = k + 1
            relays[k][1] -= 1
            if not relays[k][1]:
                print(json.dumps(time.perf_counter() - relays[k][0]), flush=True)

    def counted(link, msg) -> bool:
        return isinstance(msg, P.Fair) and link.peer_name != "player"

    async def timed_receive(self):
        msg = await receive(self)
        if isinstance(msg, P.Fair):
            relays.append([time.perf_counter(), peers])
        return msg

    def timed_send_now(self, msg, plaintext=None):
        ok = send_now(self, msg, plaintext)
        if ok and counted(self, msg):
            made[id(self)] = made.get(id(self), 0) + 1
        return ok

    def timed_flush_now(self):
        ok = flush_now(self)
        if ok:
            wrote(self, made.pop(id(self), 0))
        return ok

    async def timed_flush(self):
        await flush(self)
        wrote(self, made.pop(id(self), 0))

    async def timed_send(self, msg, plaintext=None):
        await send(self, msg, plaintext)
        wrote(self, made.pop(id(self), 0) + counted(self, msg))

    Link.receive, Link.send, Link.send_now, Link.flush_now, Link.flush = (
        timed_receive, timed_send, timed_send_now, timed_flush_now, timed_flush)
    async with trio.open_nursery() as n:
        port = await n.start(table.run)
        print(port, flush=True)
        with trio.fail_after(60):
            while table.book.taken < peers + 1:
                await trio.sleep(0.01)
        print("ready", flush=True)
        await trio.sleep(600)
        n.cancel_scope.cancel()


async def _role_peer(port: int, count: int) -> None:
    """A peer: its arrival times of ``count`` relayed plays, as one JSON line."""
    link = await N.connect("127.0.0.1", port, P.Identity.generate(), name="peer")
    print("connected", flush=True)
    got = []
    with trio.fail_after(600):
        while len(got) < count:
            msg = await link.receive()
            if isinstance(msg, P.Fair):  # (the table's rosters and heartbeats come too)
                msg.event()  # each peer decodes and checks what it receives
                got.append(time.perf_counter())
    print(json.dumps(got), flush=True)
    await link.aclose()


async def _role_player(port: int, count: int, interval: float) -> None:
    """The player: waits for a line on stdin, sends ``count`` plays ``interval`` s apart;
    its send times as one JSON line."""
    me = P.Identity.generate()
    link = await N.connect("127.0.0.1", port, me, name="player")
    print("connected", flush=True)
    await trio.to_thread.run_sync(sys.stdin.readline)  # (the bench's own start signal)
    play = _bench_play(me)
    sent = []
    async with trio.open_nursery() as n:
        n.start_soon(_drain, link)  # its own plays come back, as at a table
        for _ in range(count):
            due = trio.current_time() + interval  # (trio's clock, not perf_counter's, paces)
            t = time.perf_counter()
            await link.send(play)
            sent.append(t)
            await trio.sleep_until(due)
        print(json.dumps(sent), flush=True)
        await trio.sleep(1.0)
        n.cancel_scope.cancel()
    await link.aclose()


def fanout_processes(count: int, peers: int = 9, interval: float = 0.02) -> tuple[list[float], list[float]]:
    """The 9-peer fan-out with the host, the player and each peer a process of its own: the
    times from the player's send to the last peer's decoded arrival, and the host's own part
    (from reading the play to the last of its nine writes)."""
    me = [sys.executable, str(Path(__file__).resolve())]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    host = subprocess.Popen([*me, "--role", "host", "--peers", str(peers)], stdout=subprocess.PIPE, text=True,
                            env=env)
    procs = [host]
    try:
        port = host.stdout.readline().strip()
        player = subprocess.Popen([*me, "--role", "player", "--port", port, "--count", str(count),
                                   "--interval", str(interval)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True, env=env)
        procs.append(player)
        assert player.stdout.readline().strip() == "connected"
        others = []
        for _ in range(peers):
            p = subprocess.Popen([*me, "--role", "peer", "--port", port, "--count", str(count)],
                                 stdout=subprocess.PIPE, text=True, env=env)
            procs.append(p)
            others.append(p)
            assert p.stdout.readline().strip() == "connected"
        assert host.stdout.readline().strip() == "ready"
        time.sleep(0.5)
        player.stdin.write("go\n")
        player.stdin.flush()
        sent = json.loads(player.stdout.readline())
        arrivals = [json.loads(p.stdout.readline()) for p in others]
        relay = [json.loads(host.stdout.readline()) for _ in range(count)]
        return [max(a[i] for a in arrivals) - sent[i] for i in range(count)], relay
    finally:
        for p in procs:
            p.kill()
            p.wait()


def fanout_floor(peers: int, cores: int, units: dict) -> tuple[float, float]:
    """The least time the play can take to reach the last of ``peers`` peers on ``cores`` cores:
    only the cryptography the fair-play design obliges, at unit costs measured now
    (scripts/bench/cost.py's), and no Python, no wake-up, no system call.

    The player encrypts its play; the host decrypts it, verifies the seat's signature (it must
    not relay what fails its check) and encrypts it once per peer; each peer decrypts it and
    verifies the signature itself (it must not trust the host).  The last arrival waits for the
    longest chain (the player, the host's whole part, then one peer) and for all of the work
    shared over the cores: the floor is the larger.  ``units``: `unit_costs()`.  Returns
    (floor, one verification), in s."""
    size = len(P.encode_plaintext(_bench_play(P.Identity.generate())))

    def op(name: str, n: int = size) -> float:
        return units[name][0] + units[name][1] * n
    enc, dec, ver = op("link-encrypt"), op("link-decrypt"), op("verify", 200)
    host = dec + ver + peers * enc
    chain = enc + host + dec + ver
    total = enc + host + peers * (dec + ver)
    return max(chain, total / cores), ver


def unit_costs() -> dict:
    """scripts/bench/cost.py's unit costs of the primitive operations, measured now."""
    spec = importlib.util.spec_from_file_location("_bench_cost", Path(__file__).with_name("cost.py"))
    cost = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cost)
    return cost.unit_costs()


def fanout_report(count: int, interval: float, peer_counts=(3, 9)) -> None:
    """The fan-out to 3 and to 9 peers, in processes, and the host's part of it, beside the
    floor the obliged cryptography sets on this machine."""
    cores = os.cpu_count() or 1
    for peers in peer_counts:
        units = unit_costs()  # (measured once for both floors below, which then compare)
        arrival, relay = fanout_processes(count, peers=peers, interval=interval)
        report(f"a play's arrival at the last of {peers} peers, {peers + 2} processes", arrival)
        report(f"  of which the host: read -> last of {peers} writes done", relay)
        floor, ver = fanout_floor(peers, cores, units)
        lan, _ = fanout_floor(peers, peers + 2, units)
        print(f"  floor: the obliged cryptography alone on {cores} cores {floor * 1e6:8.1f} us"
              f"   (an Ed25519 verification {ver * 1e6:.1f} us; p50/floor {pct(arrival, 0.5) / floor:.1f}x;"
              f" with a core for each process, as on a LAN, {lan * 1e6:.1f} us)")


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

                    side = SeatSide(name=f"s{i}", identity=ident, host_public=link.peer_fair_identity,
                                    game_factory=SeatGame)
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
        peak, end, t0 = 0, time.monotonic() + seconds, time.monotonic()
        while time.monotonic() < end and any(j.poll() is None for j in joins):
            for j in joins:  # sampled while it lives (a finished match ends the process)
                try:
                    with open(f"/proc/{j.pid}/status") as f:
                        for line in f:
                            if line.startswith("VmHWM:"):
                                peak = max(peak, int(line.split()[1]))
                except OSError:
                    pass
            time.sleep(0.2)
        print(f"{'peak RSS of a join --no-ui --bot process':<46} {peak / 1024:9.1f} MB   "
              f"(seated at a live table for {time.monotonic() - t0:.1f} s)")
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
    ap.add_argument("--role", choices=("host", "peer", "player"), help=argparse.SUPPRESS)
    ap.add_argument("--port", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--peers", type=int, default=9, help=argparse.SUPPRESS)
    ap.add_argument("--interval", type=float, default=0.02, help="seconds between plays (fan-out in processes)")
    ap.add_argument("--only", choices=("fanout",), help="run one part only")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=10, help="unonet list runs in the rig")
    ap.add_argument("--no-rig", action="store_true")
    ap.add_argument("--matches", type=int, default=3, help="matches per configuration")
    args = ap.parse_args()
    if args.role == "host":
        trio.run(_role_host, args.peers)
        return 0
    if args.role == "peer":
        trio.run(_role_peer, args.port, args.count)
        return 0
    if args.role == "player":
        trio.run(_role_player, args.port, args.count, args.interval)
        return 0
    fan = max(200, args.count // 4)
    if args.only == "fanout":  # the issue-26 latency figures: raw loopback beside the fan-outs, one run
        print(f"load average {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")
        report("raw loopback TCP round trip (256 B)", trio.run(raw_rtt, args.count))
        fanout_report(fan, args.interval)
        report("raw loopback TCP round trip (256 B), again", trio.run(raw_rtt, args.count))
        return 0
    report("raw loopback TCP round trip (256 B)", trio.run(raw_rtt, args.count))
    rtts, opens, size = trio.run(link_rtt, args.count)
    report(f"Noise link round trip ({size} B message, padded)", rtts)
    report("open_link: connect + XX + hello exchange", opens)
    report("a play's arrival at the last of 9 peers, one process", trio.run(fanout, fan))
    fanout_report(fan, args.interval)
    matches(args.matches)
    join_rss()
    if not args.no_rig:
        rig_list(args.runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
