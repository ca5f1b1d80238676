#!/usr/bin/env python3
"""Cost of fair play (level A), in ms per round; and one level-B modexp for comparison.

    python3 scripts/bench/fair.py [--rounds N] [--only NAME ...] [--json]

Each benchmark is a function registered in BENCHES that returns {metric: value};
add one by decorating it with @bench("name"). `match` plays --rounds matches
(default 20) of 4 heuristic bots to 500 with and without fair play.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", ".."))

from unonet.fair import audit  # noqa: E402
from unonet.fair.testing import FairTable  # noqa: E402

BENCHES: dict[str, Callable[[int], dict[str, float]]] = {}


def bench(name: str):
    def register(fn):
        BENCHES[name] = fn
        return fn

    return register


def _timed(fn, bucket: dict, key: str):
    def wrapper(*a, **kw):
        t0 = time.perf_counter()
        try:
            return fn(*a, **kw)
        finally:
            bucket[key] += time.perf_counter() - t0

    return wrapper


def one_round(i: int, players: int = 4) -> tuple[dict[str, float], FairTable]:
    """Dealer-only host, `players` seats, an observer; 28 dealt + 7 drawn, 1 turned up, 20 plays."""
    t = FairTable(players, seed=f"bench-{i}")
    spent: dict[str, float] = defaultdict(float)
    for name in ("start", "accept", "deal", "turn_up", "finish"):
        setattr(t.dealer, name, _timed(getattr(t.dealer, name), spent, "host"))
    for v in t.verifiers:
        for name in ("receive", "commit_seed", "reveal_seed", "play", "reveal"):
            setattr(v, name, _timed(getattr(v, name), spent, f"seat{v.seat}"))
    t.observer.receive = _timed(t.observer.receive, spent, "observer")
    t0 = time.perf_counter()
    t.start()
    t.deal_hands(7)
    t.turn_up()
    for k in range(20):
        s = k % players
        if k < 7:
            t.draw(s)
        t.play(s, min(t.verifiers[s].hand))
    t.finish()
    spent["table"] = time.perf_counter() - t0
    t1 = time.perf_counter()
    report = audit(t.lines)
    spent["audit"] = time.perf_counter() - t1
    assert report.ok and report.deals == 35, report.summary
    return spent, t


@bench("round")
def bench_round(rounds: int) -> dict[str, float]:
    one_round(-1)  # warm up
    samples = [one_round(i)[0] for i in range(rounds)]

    def med(key):
        return statistics.median(s[key] for s in samples) * 1000

    seat = statistics.median(statistics.mean(s[f"seat{k}"] for k in range(4)) for s in samples) * 1000
    return {
        "host (FairDealer: seed, shuffle, 108 commitments, signature, 35 seals, openings) ms": med("host"),
        "one seat (FairVerifier: checks, own unseals, commit-reveal, plays) ms": seat,
        "observer (FairVerifier, no seat) ms": med("observer"),
        "offline audit of the transcript ms": med("audit"),
        "one round's crypto: host + one seat + audit ms": med("host") + seat + med("audit"),
        "whole table in one process (host + 4 seats + observer + transcript) ms": med("table"),
    }


def _matches(n: int, seed: int, fair: bool) -> tuple[float, int, int]:
    """Wall time of `n` matches of 4 heuristic bots to 500, fair play on or off."""
    from unonet.engine import make_rules
    from unonet.fairsim import fair_round_factory
    from unonet.sim import simulate

    kw = {"round_factory": fair_round_factory(observer=False)} if fair else {}
    t0 = time.perf_counter()
    stats = simulate(make_rules(target=500), 4, matches=n, seed=seed, bots=("heuristic",), **kw)
    return time.perf_counter() - t0, stats.rounds, stats.actions


@bench("match")
def bench_match(rounds: int) -> dict[str, float]:
    """Bot-vs-bot matches (4 heuristic bots, target 500), with and without fair play, in one
    process: the host, a TableSeat (FairVerifier) per bot; no observer, no transcript file.
    The same seeds are played both ways; the fair deck changes the deals, so the rounds
    differ, and the per-round figures are the fair comparison."""
    n = max(4, rounds)
    _matches(1, 0, True)  # warm up
    off_s, off_rounds, off_actions = _matches(n, 1, False)
    on_s, on_rounds, on_actions = _matches(n, 1, True)
    off_round = off_s / off_rounds * 1000
    on_round = on_s / on_rounds * 1000
    return {
        f"{n} matches, crypto off: wall s": off_s,
        f"{n} matches, crypto on: wall s": on_s,
        "rounds played, crypto off": off_rounds,
        "rounds played, crypto on": on_rounds,
        "ms per round, crypto off (engine + bots)": off_round,
        "ms per round, crypto on (engine + bots + host + 4 seats)": on_round,
        "ms of crypto per round": on_round - off_round,
        "ratio crypto-on / crypto-off, per match (wall)": on_s / off_s,
        "ratio crypto-on / crypto-off, per round": on_round / off_round,
    }


RFC3526_2048 = int(
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD129024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE45B3DC2007CB8A163BF0598DA48361C55D39A69163FA8FD24CF5F"
    "83655D23DCA3AD961C62F356208552BB9ED529077096966D670C354E4ABC9804F1746C08CA18217C32905E462E36CE3B"
    "E39E772C180E86039B2783A2EC07A28FB5C55DF06F4C52C9DE2BCBF6955817183995497CEA956AE515D2261898FA0510"
    "15728E5A8AACAA68FFFFFFFFFFFFFFFF", 16)


@bench("level-b-modexp")
def bench_modexp(rounds: int) -> dict[str, float]:
    """One SRA encryption step: x^e mod p with a full-size exponent in the RFC 3526 group."""
    import secrets

    p = RFC3526_2048
    q = (p - 1) // 2
    xs = [pow(secrets.randbelow(p - 3) + 2, 2, p) for _ in range(8)]  # quadratic residues
    es = [secrets.randbelow(q - 3) | 1 for _ in range(8)]
    n = max(8, rounds)
    t0 = time.perf_counter()
    for k in range(n):
        pow(xs[k % 8], es[k % 8], p)
    one = (time.perf_counter() - t0) / n * 1000
    players = 4
    # per round: every player re-encrypts and shuffles the whole deck twice (shuffle pass +
    # per-card lock pass), then every dealt/drawn card is unlocked by the n-1 other players.
    modexps = 2 * players * 108 + 35 * (players - 1) + 35
    return {
        "one 2048-bit modexp (full exponent) ms": one,
        f"level B, {players} players, modexps per round (no shuffle proofs)": modexps,
        "level B, est. ms of modexp per round (no shuffle proofs)": one * modexps,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=20)
    ap.add_argument("--only", nargs="*", choices=sorted(BENCHES))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    results = {name: fn(args.rounds) for name, fn in BENCHES.items() if not args.only or name in args.only}
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        for name, metrics in results.items():
            print(f"[{name}]")
            for k, v in metrics.items():
                print(f"  {k:<78} {v:10.2f}" if isinstance(v, float) else f"  {k:<78} {v:10d}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
