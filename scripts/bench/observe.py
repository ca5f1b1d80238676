#!/usr/bin/env python3
"""An observer's (the scorekeeper's) receive path in one process: what it costs a message.

    python3 scripts/bench/observe.py --record FILE [--seats 10] [--rounds 6]   # once: a real table's traffic
    python3 scripts/bench/observe.py FILE [--reps 5] [--profile 30]

``--record`` plays a bot table on loopback (scripts/bench/cost.py's, every party a process, one
`unonet score --no-ui` observer) and keeps what the observer received (scripts/bench/_counted.py,
``UNONET_BENCH_RECORD``), as scripts/bench/receive.py does for a seat.

The replay feeds those plaintexts, encrypted again under a fresh Noise session, read by read,
through the scorekeeper's own sans-IO path: `SecureLink` (unframing, decryption, decoding, the
wire checks), `ObserverSide.receive` (the seat-less verifier, ledger and engine replay) and the
`Recorder` writing each round and co-signature into a real SQLite file (a new one each
repetition, in the temporary directory: its disk's fsync is in the figure).  Printed: CPU a
message, best and median of ``--reps``, and its parts: the link's, the store's (its Python, SQLite
and the fsync of each commit) and the rest (the observer's verifier, ledger and replay).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))


def replay(me, reads, work: Path, profiler=None):
    """One replay into a new database under ``work``; returns (CPU seconds, of it in the link's
    decryption, decoding and checks, of it in the store, messages)."""
    import unonet.protocol as P
    from receive import linked
    from unonet.net._observe import ObserverSide
    from unonet.protocol._framing import encode_frame
    from unonet.protocol._messages import _CHECKED
    from unonet.store import ScoreStore
    from unonet.store.attach import Recorder

    _, obs, host, host_public = linked(me, reads, P.OBSERVER)
    wire = []
    for r in reads:
        frames = [encode_frame(host._send_cs.encrypt_with_ad(b"", pt)) for pt in r if pt is not reads[0][0]]
        if frames:
            wire.append(b"".join(frames))
    _CHECKED.clear()
    store = ScoreStore.open(work / f"obs-{time.monotonic_ns()}.db")
    recorder = Recorder(store)
    in_store = [0.0]

    def timed(fn):
        def call(*a):
            t = time.process_time()
            try:
                return fn(*a)
            finally:
                in_store[0] += time.process_time() - t
        return call

    side = ObserverSide(name="obs", host_public=host_public, on_round=timed(recorder.round),
                        on_match_over=recorder.match_over, on_match_begin=timed(recorder.begin),
                        on_cosign=timed(recorder.cosign))
    n, link = 0, 0.0
    clock = time.process_time
    if profiler is not None:
        profiler.enable()
    t = clock()
    for data in wire:
        obs.receive_data(data)
        while True:
            t0 = clock()
            ev = obs.next_event()
            link += clock() - t0
            if ev is P.NEED_DATA:
                break
            n += 1
            side.receive(ev)
            side.take_feed()
    t = clock() - t
    if profiler is not None:
        profiler.disable()
    store.close()
    if not recorder.rounds:
        raise SystemExit("the replay recorded no round: record again (--record)")
    return t, link, in_store[0], n


def main() -> int:
    from receive import load_saying, record, replay_parser

    ap = replay_parser(__doc__)
    ap.add_argument("--seats", type=int, default=10)
    args = ap.parse_args()
    if args.record:
        record(args.file, args.rounds, args.seats, 1, "observer0")
    me, reads = load_saying(args.file)
    with tempfile.TemporaryDirectory(prefix="unonet-bench-observe-") as d:
        work = Path(d)
        if args.profile:
            import cProfile
            import pstats

            pr = cProfile.Profile(time.process_time)
            replay(me, reads, work, pr)
            pstats.Stats(pr).sort_stats("tottime").print_stats(args.profile)
            pstats.Stats(pr).sort_stats("cumulative").print_stats(args.profile)
            return 0
        runs = []
        for _ in range(args.reps):
            cpu, link, store, n = replay(me, reads, work)
            runs.append((cpu / n, link / n, store / n))
    best = min(runs)
    print(f"observer receive path: {best[0] * 1e6:.1f} us a message (best of {args.reps}; of it the link "
          f"{best[1] * 1e6:.1f} us, the store {best[2] * 1e6:.1f} us, the observer's checks the rest "
          f"{(best[0] - best[1] - best[2]) * 1e6:.1f} us), median {statistics.median(r[0] for r in runs) * 1e6:.1f} us")
    return 0


if __name__ == "__main__":
    sys.exit(main())
