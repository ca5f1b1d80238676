#!/usr/bin/env python3
"""A joining seat's receive path in one process: what it costs a message, link to verdict.

    python3 scripts/bench/receive.py --record FILE [--rounds 6]   # once: a real table's traffic
    python3 scripts/bench/receive.py FILE [--reps 5] [--profile 30]

``--record`` plays a 4-seat bot table on loopback (scripts/bench/cost.py's, every party a
process) and keeps what seat 1 (a `join --no-ui --bot`) received: its identity, the host's
Noise key and every decrypted plaintext, grouped by the socket read it came in
(scripts/bench/_counted.py, ``UNONET_BENCH_RECORD``).

The replay feeds those plaintexts, encrypted again under a fresh Noise session, read by read,
through the seat's own sans-IO path: `SecureLink` (unframing, decryption, msgpack decode, the
schema, the fair body's parse and canonical check and wire rules), then `SeatSide.receive` (the
seat's verifier, ledger and engine replay; what it owes, signed, encoded and encrypted for the
host) and its ``--json`` feed.  Its bot does not choose (its choices would differ from the
recorded ones): the seat signs each of its own acts as the host relays it back.  The host's
timing is not watched (the times are the replay's).  Printed: CPU a message, best and median of
``--reps``.  ``UNONET_RECEIVE_SETUP_ONLY=1`` stops before the replay (under callgrind: the
set-up's instructions, to subtract from a whole run's).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))


def record(path: Path, rounds: int, seats: int = 4, observers: int = 0, party: str = "seat1") -> None:
    """What ``party`` (a label of cost.py's table: seat1, observer0, ...) receives, to ``path``."""
    import shutil

    import cost  # (scripts/bench/cost.py: its table)

    work = Path(tempfile.mkdtemp(prefix="unonet-bench-receive-"))
    path.unlink(missing_ok=True)
    table = cost.Table(work, seats, observers)
    table.extra_env[party] = {"UNONET_BENCH_RECORD": str(path.resolve())}
    try:
        table.start()
        table.wait_round(rounds + 1, 600)
    finally:
        table.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"recorded {path.stat().st_size} bytes: {party}'s traffic over {rounds} rounds at {seats} seats")


def load(path: Path):
    import msgpack

    me, reads = None, []
    with open(path, "rb") as f:
        for item in msgpack.Unpacker(f, raw=False):
            if item[0] == "me":
                me = item[1:]
            elif item[0] == "chunk":
                reads.append([])
            elif reads:
                reads[-1].append(item[1])
    return me, [r for r in reads if r]


def linked(me, reads, role):
    """The recorded party's link (``role``) to a stand-in host, open, and the recorded host's
    fair identity (from its recorded hello): (our identity, our link, the host's link, its identity)."""
    import unonet.protocol as P
    from unonet.fair import PublicIdentity

    x, ed, host_static = me
    ident = P.Identity.from_private_bytes(x, ed)
    ours = P.SecureLink(ident, role=role, initiator=True)
    host = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=False)
    for src, dst in ((ours, host), (host, ours), (ours, host)):
        dst.receive_data(src.data_to_send())
        while (ev := dst.next_event()) is not P.NEED_DATA:
            if isinstance(ev, P.PeerKey):
                dst.accept_peer()
    for src, dst in ((ours, host), (host, ours)):
        dst.receive_data(src.send(src.hello(name="bench")))
        dst.next_event()
    hello = P.decode_plaintext(reads[0][0])
    return ident, ours, host, PublicIdentity(hello.sign_key, hello.seal_key, host_static, hello.cert)


#: wall seconds spent in `SeatSide.receive` by the last replay (the seat's part after decoding)
SEAT_PART = [0.0]


def relayed(reads, host):
    """The recording's reads as its host sent them, each read's frames encrypted again by
    ``host`` (the replay's link) in one string, with the messages they carry; and the seat
    recorded and its own `match-join` nonce, as the host relayed it (the one the seat drew)."""
    import unonet.protocol as P
    from unonet.protocol._framing import encode_frame

    nonce = mine = None
    out = []
    for r in reads:
        frames, msgs = [], []
        for pt in r:
            if pt is reads[0][0]:
                continue
            m = P.decode_plaintext(pt)
            if isinstance(m, P.SeatAssignment):
                mine = m.seat
            if isinstance(m, P.Fair) and m.ev == "match-join" and nonce is None:
                ev = m.event()
                if ev.seat == mine:
                    nonce = ev.nonce
            frames.append(encode_frame(host._send_cs.encrypt_with_ad(b"", pt)))
            msgs.append(m)
        if frames:
            out.append((b"".join(frames), msgs))
    return out, nonce, mine


def recorded_seat(ident, host_public, nonce: bytes):
    """The recorded seat's `SeatSide` (a bot), drawing the recording's own `match-join` nonce
    again, on a fresh check cache: every replay of the recording starts alike."""
    from unonet.net._game import SeatGame
    from unonet.net._seat import SeatSide
    from unonet.protocol._messages import _CHECKED

    _CHECKED.clear()
    side = SeatSide(name="s1", identity=ident, host_public=host_public, game_factory=SeatGame, bot=True)

    def factory(sd):
        g = SeatGame(sd)
        g.seat.randbytes = lambda n: nonce if n == len(nonce) else os.urandom(n)
        return g

    side.game_factory = factory
    return side


def replay(me, reads, profiler=None):
    """One replay; returns (CPU seconds, messages)."""
    import unonet.protocol as P
    from unonet.net._game import scripted_feed

    ident, seat, host, host_public = linked(me, reads, P.PLAYER)
    reads_sent, nonce, mine = relayed(reads, host)
    wire = [data for data, _ in reads_sent]
    side = recorded_seat(ident, host_public, nonce)
    out = open(os.devnull, "w")
    from unonet.net.session_cli import JsonOut

    feed = scripted_feed(JsonOut(out))
    n = 0
    if os.environ.get("UNONET_RECEIVE_SETUP_ONLY"):  # (callgrind: the set-up's instructions alone)
        return 0.0, 1
    if profiler is not None:
        profiler.enable()
    seat_part = 0.0
    clock = time.perf_counter
    t = time.process_time()
    for data in wire:
        seat.receive_data(data)
        while (ev := seat.next_event()) is not P.NEED_DATA:
            n += 1
            if isinstance(ev, P.Fair) and ev.ev == "act":  # our own act: the seat signs it first
                act = ev.event()
                if act.seat == mine:
                    a = act.action
                    seat.send(P.Fair.of(side.game.seat.act(a, a.get("pos")), ev.round))
            side.rx_bytes = (ev, seat.last_bytes)  # (as play_seat's reader stamps it: the spool keeps these)
            t0 = clock()
            replies = side.receive(ev)
            seat_part += clock() - t0
            for reply in replies:
                seat.send(reply)
            for v in side.take_feed():
                feed(v)
    t = time.process_time() - t
    if profiler is not None:
        profiler.disable()
    SEAT_PART[0] = seat_part
    return t, n


def replay_parser(doc: str) -> argparse.ArgumentParser:
    """The options every bench replaying a recording takes (this one and observe.py)."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("file", type=Path)
    ap.add_argument("--record", action="store_true", help="record FILE from a real table first")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--profile", type=int, default=0, metavar="N", help="cProfile one replay: its N costliest")
    return ap


def load_saying(path: Path):
    """The recording, with the machine's load and its size printed first."""
    me, reads = load(path)
    print(f"load average {os.getloadavg()[0]:.1f}; {sum(len(r) for r in reads)} messages in {len(reads)} reads")
    return me, reads


def main() -> int:
    args = replay_parser(__doc__).parse_args()
    if args.record:
        record(args.file, args.rounds)
    me, reads = load_saying(args.file)
    if args.profile:
        import cProfile
        import pstats

        pr = cProfile.Profile(time.process_time)
        replay(me, reads, pr)
        pstats.Stats(pr).sort_stats("tottime").print_stats(args.profile)
        pstats.Stats(pr).sort_stats("cumulative").print_stats(args.profile)
        keep = Path(tempfile.gettempdir()) / "unonet-receive.prof"
        pr.dump_stats(str(keep))
        print(f"(the whole profile: {keep}, for python -m pstats)")
        return 0
    cpus, parts = [], []
    for _ in range(args.reps):
        cpu, n = replay(me, reads)
        cpus.append(cpu / n)
        parts.append(SEAT_PART[0] / n)
    print(f"seat receive path: {min(cpus) * 1e6:.1f} us a message (best of {args.reps}), "
          f"median {statistics.median(cpus) * 1e6:.1f} us; of which after decoding (SeatSide.receive: "
          f"verifier, ledger, replay, what it owes, history; wall) {min(parts) * 1e6:.1f} us, "
          f"median {statistics.median(parts) * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
