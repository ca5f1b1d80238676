"""A player killed and restarted (spec §7 rejoin): a CLI host (one bot seat), two
`join --bot` joiners; one joiner is killed with SIGKILL in the middle of round R and
restarted at once with the same key store.  We time, from the restart, its `rejoined`
line (process start, handshake, the host's replay read and checked: its hand is back) and
its first act after it (play resumes for it), record the replay's size, and check that
every process prints one match-over line.

    python scripts/bench/rejoin.py [--runs N] [--round R ...] [--rig]

Loopback by default; ``--rig`` runs the four processes in four network namespaces of
scripts/lan-rig (root; deleted afterwards).  Figures go to docs/performance.md ("Rejoin").
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from election import Proc, _env, _free_udp_port, _wait, load_rig  # noqa: E402


def one_run(kill_round: int, lan=None) -> dict:
    py = [sys.executable, "-m", "unonet"]
    wrap = (lambda node, argv: lan.command(node, argv)) if lan is not None else (lambda node, argv: argv)
    where = ("--port", "0") if lan is not None else ("--bind", "127.0.0.1", "--port", "0")
    pace = ("--bot-pace", "0.02")  # a round lasts a few seconds: the kill lands mid-round
    host = Proc(wrap(0, py + ["host", "--no-ui", "--json", *where, "--discovery-port", str(_free_udp_port()),
                              "--players", "4", "--bots", "1", "--target", "500", "--hold-seats", "60", *pace]),
                _env())
    procs = [host]
    try:
        _wait([host], lambda: host.first(lambda x: "port" in x) is not None, 30)
        port = host.first(lambda x: "port" in x)[1]["port"]
        addr = lan.addrs[0] if lan is not None else "127.0.0.1"
        bind = () if lan is not None else ("--bind", "127.0.0.1")
        home = _env()

        def joiner(node: int, name: str, env: dict) -> Proc:
            return Proc(wrap(node, py + ["join", "--no-ui", "--json", "--bot", *bind, *pace, "--name", name,
                                         f"{addr}:{port}"]), env)

        steady = joiner(1, "steady", _env())
        doomed = joiner(2, "phoenix", home)
        procs += [steady, doomed]
        _wait([doomed], lambda: doomed.first(lambda x: x.get("t") == "round" and x.get("round") == kill_round)
              is not None, 300)
        def acts_this_round():  # seat 0's acts since the round's set-up: the kill lands mid-round
            i = max(k for k, (_, x) in enumerate(doomed.seen) if x.get("t") == "round")
            return sum(1 for _, x in doomed.seen[i:] if x.get("g") == "act" and x.get("a", {}).get("seat") == 0)

        _wait([doomed], lambda: acts_this_round() > 0, 60)
        os.kill(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(timeout=10)
        t0 = time.monotonic()
        again = joiner(2, "phoenix", home)
        procs.append(again)

        def back():
            return again.first(lambda x: x.get("t") == "rejoined")

        _wait([again], lambda: back() is not None, 60)
        t_back, line = back()
        def acted():  # its first act after the rejoined line (file order)
            i = next(k for k, (_, x) in enumerate(again.seen) if x.get("t") == "rejoined")
            return next(((t, x) for t, x in again.seen[i + 1:] if x.get("t") == "game" and x.get("g") == "act"
                         and x.get("a", {}).get("seat") == line["seat"]), None)

        _wait([again], lambda: acted() is not None or again.first(lambda x: x.get("t") == "match-over") is not None,
              120)
        acted = acted()
        finals = [steady, again]
        _wait(finals, lambda: all(p.first(lambda x: x.get("t") == "match-over") for p in finals), 900)
        overs = [p.first(lambda x: x.get("t") == "match-over")[1] for p in finals]
        codes = [p.proc.wait(timeout=30) for p in finals]
        agree = len({json.dumps(o, sort_keys=True) for o in overs}) == 1 and codes == [0, 0]
        return {"back": t_back - t0, "acted": (acted[0] - t0) if acted else None, "replay": line["replay"],
                "rounds": line["rounds"], "hand": len(line["hand"]), "agree": agree}
    finally:
        for p in procs:
            p.stop()


def host_then_player(lan=None) -> dict:
    """The issue's "Done when": a host and three `join --bot`; the host is killed (SIGKILL)
    mid round 2 -- the first joiner is elected and play resumes -- then the third joiner
    is killed mid-round under the new host and restarted (same key store, the elected
    host's address): it rejoins, and the match finishes with one match-over line."""
    py = [sys.executable, "-m", "unonet"]
    wrap = (lambda node, argv: lan.command(node, argv)) if lan is not None else (lambda node, argv: argv)
    where = ("--port", "0") if lan is not None else ("--bind", "127.0.0.1", "--port", "0")
    bind = () if lan is not None else ("--bind", "127.0.0.1")
    pace = ("--bot-pace", "0.02")
    host = Proc(wrap(0, py + ["host", "--no-ui", "--json", *where, "--discovery-port", str(_free_udp_port()),
                              "--players", "4", "--target", "500", *pace]), _env())
    procs = [host]
    try:
        _wait([host], lambda: host.first(lambda x: "port" in x) is not None, 30)
        port = host.first(lambda x: "port" in x)[1]["port"]
        addrs = lan.addrs if lan is not None else ["127.0.0.1"] * 4
        home = _env()

        def joiner(node: int, name: str, env: dict, at: str) -> Proc:
            return Proc(wrap(node, py + ["join", "--no-ui", "--json", "--bot", *bind, *pace, "--name", name, at]), env)

        joins = []
        for i, name in enumerate(("heir", "steady", "phoenix")):
            joins.append(joiner(i + 1, name, home if name == "phoenix" else _env(), f"{addrs[0]}:{port}"))
            time.sleep(0.3)  # in order: the first joiner is the first in the succession
        procs += joins
        heir, steady, doomed = joins
        _wait(joins, lambda: doomed.first(lambda x: x.get("t") == "round" and x.get("round") == 2) is not None, 300)
        _wait(joins, lambda: doomed.seen and doomed.seen[-1][1].get("g") == "act", 60)
        t_host = time.monotonic()
        os.kill(host.proc.pid, signal.SIGKILL)
        _wait(joins, lambda: heir.first(lambda x: x.get("t") == "elected") is not None, 60)
        elected = heir.first(lambda x: x.get("t") == "elected")
        _wait(joins, lambda: doomed.first(lambda x: x.get("t") == "round", elected[0]) is not None, 60)
        t_resumed = doomed.first(lambda x: x.get("t") == "round", elected[0])[0]
        _wait(joins, lambda: sum(1 for t, x in doomed.seen if t > t_resumed and x.get("g") == "act") >= 3, 60)
        os.kill(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(timeout=10)
        t0 = time.monotonic()
        again = joiner(3, "phoenix", home, f"{addrs[1]}:{elected[1]['port']}")
        procs.append(again)
        _wait([again], lambda: again.first(lambda x: x.get("t") == "rejoined") is not None, 60)
        t_back, line = again.first(lambda x: x.get("t") == "rejoined")
        finals = [heir, steady, again]
        _wait(finals, lambda: all(p.first(lambda x: x.get("t") == "match-over") for p in finals), 900)
        overs = [p.first(lambda x: x.get("t") == "match-over")[1] for p in finals]
        codes = [p.proc.wait(timeout=30) for p in finals]
        agree = len({json.dumps(o, sort_keys=True) for o in overs}) == 1 and codes == [0, 0, 0]
        return {"resumed": t_resumed - t_host, "back": t_back - t0, "hosts": line["hosts"], "replay": line["replay"],
                "agree": agree, "overs": overs, "codes": codes}
    finally:
        if host.proc.poll() is None:
            os.kill(host.proc.pid, signal.SIGKILL)
        for p in procs:
            p.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--round", type=int, action="append", help="kill in this round (default: 2 and 5)")
    ap.add_argument("--rig", action="store_true", help="network namespaces (root)")
    ap.add_argument("--after-election", action="store_true",
                    help="the host killed first, then a player killed and restarted under the elected host")
    args = ap.parse_args()
    if args.after_election:
        rows = []
        for _ in range(args.runs):
            if args.rig:
                with load_rig().Rig(4) as lan:
                    rows.append(host_then_player(lan))
            else:
                rows.append(host_then_player())
        where = "rig (4 namespaces)" if args.rig else "loopback"
        print(f"{where}, host killed then a player killed and restarted: play resumed "
              f"{statistics.median(r['resumed'] for r in rows) * 1000:.0f} ms after the host's death; the player "
              f"rejoined the elected host {statistics.median(r['back'] for r in rows) * 1000:.0f} ms after its restart "
              f"(replay median {statistics.median(r['replay'] for r in rows):.0f} messages, two transcripts); "
              f"everyone agrees: {sum(r['agree'] for r in rows)}/{len(rows)}")
        return 0
    where = "rig (3 namespaces)" if args.rig else "loopback"
    for r in args.round or [2, 5]:
        rows = []
        for _ in range(args.runs):
            if args.rig:
                with load_rig().Rig(3) as lan:
                    rows.append(one_run(r, lan))
            else:
                rows.append(one_run(r))
        med = lambda k: statistics.median(x[k] for x in rows if x[k] is not None)  # noqa: E731
        print(f"{where}, killed in round {r}: rejoined (hand back) {med('back') * 1000:.0f} ms after the restart "
              f"(max {max(x['back'] for x in rows) * 1000:.0f} ms; replay median {med('replay'):.0f} messages after "
              f"{med('rounds'):.0f} rounds), its next act {med('acted') * 1000:.0f} ms; "
              f"everyone agrees: {sum(x['agree'] for x in rows)}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
