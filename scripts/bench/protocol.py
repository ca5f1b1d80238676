#!/usr/bin/env python3
"""Protocol benchmark: move messages through a whole secure link, and XX handshakes.

    python3 scripts/bench/protocol.py [--seconds 2]

Measures, on one core, in-process (no sockets):
  * encode + encrypt + frame + unframe + decrypt + decode of a typical move (a
    ``fair`` message carrying a seat's signed ``act``), per second (one direction of a SecureLink);
  * the same path split into codec-only and Noise-only figures;
  * a full Noise_XX handshake between two SecureLinks (3 messages, 10 X25519 ops
    in all), mean and p99.
"""

from __future__ import annotations

import argparse
import statistics
import time

import unonet.protocol as P


def _pair():
    a = P.SecureLink(P.Identity.generate(), role=P.PLAYER, initiator=True)
    b = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=False)
    events = []
    for src, dst in ((a, b), (b, a), (a, b)):
        dst.receive_data(src.data_to_send())
        while (ev := dst.next_event()) is not P.NEED_DATA:
            events.append(ev)
            if isinstance(ev, P.PeerKey):
                dst.accept_peer()
    for src, dst in ((a, b), (b, a)):
        dst.receive_data(src.send(src.hello(name="bench")))
        dst.next_event()
    return a, b


def _rate(fn, seconds: float) -> tuple[float, int]:
    n, start = 0, time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(200):
            fn()
        n += 200
        now = time.perf_counter()
        if now >= deadline:
            return n / (now - start), n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--handshakes", type=int, default=300)
    args = ap.parse_args()

    from unonet.fair import Act

    # a typical move: a seat's signed act, as a `fair` message
    msg = P.Fair.of(Act(seat=1, n=12, action={"t": "draw", "seat": 1}, sig=bytes(range(64))), 3)
    wire_len = len(P.encode_message(msg))
    player, host = _pair()

    def full():
        host.receive_data(player.send(msg))
        assert host.next_event() == msg

    def codec():
        P.decode_message(P.encode_message(msg))

    pt = P.encode_message(msg)
    send_cs, recv_cs = player._send_cs, host._recv_cs

    def crypto():
        recv_cs.decrypt_with_ad(b"", send_cs.encrypt_with_ad(b"", pt))

    full_rate, n_full = _rate(full, args.seconds)
    codec_rate, _ = _rate(codec, args.seconds / 2)
    crypto_rate, _ = _rate(crypto, args.seconds / 2)

    times = []
    for _ in range(args.handshakes):
        t0 = time.perf_counter()
        _pair()
        times.append(time.perf_counter() - t0)
    times.sort()
    hs_mean = statistics.fmean(times) * 1e3
    hs_p99 = times[int(len(times) * 0.99) - 1] * 1e3

    print(f"fair act message: {wire_len} bytes msgpack, {wire_len + 16 + 4} bytes on the wire")
    print(f"encode+encrypt+frame+unframe+decrypt+decode: {full_rate:,.0f} msg/s "
          f"({1e6 / full_rate:.1f} us/msg, {n_full} msgs)")
    print(f"  codec only (encode+decode, validated):      {codec_rate:,.0f} msg/s")
    print(f"  Noise only (encrypt+decrypt):               {crypto_rate:,.0f} msg/s")
    print(f"XX handshake + signed hellos, both sides in-process (incl. generating 2 identities): mean {hs_mean:.2f} ms, "
          f"p99 {hs_p99:.2f} ms ({args.handshakes} runs)")


if __name__ == "__main__":
    main()
