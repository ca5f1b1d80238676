#!/usr/bin/env python3
"""A joining seat's whole session loop in one process: `play_seat` over a real socket.

    python3 scripts/bench/seat_process.py FILE [--reps 5]      # FILE: receive.py --record's
    UNONET_RECEIVE_SETUP_ONLY=1 ...                            # the set-up alone (callgrind)
    UNONET_SEAT_BARE=1 ...                                     # a bare read loop for play_seat

`receive.py` replays a recorded seat's traffic through its sans-IO path only; this replays it
through what a `join --no-ui --bot --json` process runs: `play_seat`'s reader, its replies and
their writes, `deliver`, the bot asked after each message (its choice dropped: the recorded acts
are signed as the host relays them back, as in receive.py) and the ``--json`` lines written and
flushed to a file, over a `Link` on one end of a socketpair.  A stand-in host on the other end
writes each recorded socket read in one write, then waits until every task is blocked (the seat
has taken all of it and waits for the socket again) before the next, and drains what the seat
writes.  Trio runs on a frozen clock (`trio.testing.MockClock`, never advanced): no timer fires,
so the run is the same instructions every time (callgrind).  Printed: CPU a message and a read,
best and median of ``--reps``; the host's part (its writes and waits) is in it, the same code for
any seat code compared.  ``UNONET_SEAT_BARE=1`` runs a bare loop (read, `SeatSide.receive`, replies
written, feed lines, the bot asked) instead of `play_seat`: the difference is `play_seat`'s own glue.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

import receive  # noqa: E402  (scripts/bench/receive.py: the recording and its link)


def replay(me, reads, out_path: Path, profiler=None):
    """One replay through `play_seat`; returns (CPU seconds, messages, reads)."""
    import trio
    import trio.testing

    import unonet.protocol as P
    from unonet.net._game import bot_step, scripted_feed
    from unonet.net._join import LINK_IDLE, play_seat
    from unonet.net._link import Link, Timeouts
    from unonet.net.session_cli import JsonOut

    ident, seat_sl, host_sl, host_public = receive.linked(me, reads, P.PLAYER)
    reads_sent, nonce, mine = receive.relayed(reads, host_sl)
    wire = []   # (bytes of one read, our own acts in it)
    n = 0
    for data, msgs in reads_sent:
        ours = [(m.event().action, m.round) for m in msgs
                if isinstance(m, P.Fair) and m.ev == "act" and m.event().seat == mine]
        wire.append((data, ours))
        n += len(msgs)
    side = receive.recorded_seat(ident, host_public, nonce)
    out = open(out_path, "w")
    on_feed = scripted_feed(JsonOut(out))

    def dropped_bot(sd):  # the bot's choice made, as after every message, then dropped
        bot_step(sd)
        return None

    cpu = [0.0]

    async def main() -> None:
        a, b = trio.socket.socketpair()
        link = Link(trio.SocketStream(a), seat_sl, name="s1", address="peer",
                    timeouts=Timeouts(idle=LINK_IDLE))
        host = trio.SocketStream(b)

        async def drain() -> None:
            while await host.receive_some(1 << 16):
                pass

        async def feed(cancel: trio.CancelScope) -> None:
            await trio.testing.wait_all_tasks_blocked()
            if profiler is not None:
                profiler.enable()
            t = time.process_time()
            for data, ours in wire:
                for action, rnd in ours:  # our own act: the seat signs it before the host relays it
                    a_ = side.game.seat.act(action, action.get("pos"))
                    link.send_now(P.Fair.of(a_, rnd))
                    link.flush_now()
                await host.send_all(data)
                await trio.testing.wait_all_tasks_blocked()
            cpu[0] = time.process_time() - t
            if profiler is not None:
                profiler.disable()
            cancel.cancel()

        async def bare(link) -> None:
            from unonet.net._join import take_seat
            await take_seat(link, side)
            while True:
                msg = await link.receive()
                side.rx_bytes = (msg, link.last_bytes)
                replies = side.receive(msg)
                for r in replies:
                    link.send_now(r)
                link.flush_now()
                for v in side.take_feed():
                    on_feed(v)
                dropped_bot(side)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(drain)
            nursery.start_soon(feed, nursery.cancel_scope)
            if os.environ.get("UNONET_SEAT_BARE"):  # (an experiment: the reader without play_seat's glue)
                nursery.start_soon(bare, link)
            elif not os.environ.get("UNONET_RECEIVE_SETUP_ONLY"):
                nursery.start_soon(lambda: play_seat(link, side, on_feed=on_feed, bot_step=dropped_bot,
                                                     matches=None))
            else:
                wire.clear()

    trio.run(main, clock=trio.testing.MockClock())
    out.close()
    return cpu[0], n, len(wire)


def main() -> int:
    ap = receive.replay_parser(__doc__)
    args = ap.parse_args()
    if args.record:
        receive.record(args.file, args.rounds)
    me, reads = receive.load_saying(args.file)
    out = Path(tempfile.gettempdir()) / f"unonet-seat-process-{os.getpid()}.jsonl"
    if args.profile:
        import cProfile
        import pstats

        pr = cProfile.Profile(time.process_time)
        replay(me, reads, out, pr)
        pstats.Stats(pr).sort_stats("tottime").print_stats(args.profile)
        pstats.Stats(pr).sort_stats("cumulative").print_stats(args.profile)
        return 0
    per_msg, per_read = [], []
    for _ in range(args.reps):
        cpu, n, r = replay(me, reads, out)
        per_msg.append(cpu / max(n, 1))
        per_read.append(cpu / max(r, 1))
    lines = sum(1 for _ in open(out)) if out.exists() else 0
    out.unlink(missing_ok=True)
    print(f"seat process loop: {min(per_msg) * 1e6:.1f} us a message (best of {args.reps}), median "
          f"{statistics.median(per_msg) * 1e6:.1f}; {min(per_read) * 1e6:.1f} us a read; "
          f"{lines} --json lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
