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
import tempfile
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
        _wait([doomed], lambda: sum(1 for _, x in doomed.seen if x.get("t") == "game" and x.get("g") == "act"
                                    and x.get("a", {}).get("seat") == 0) > 0, 60)
        os.kill(doomed.proc.pid, signal.SIGKILL)
        doomed.proc.wait(timeout=10)
        t0 = time.monotonic()
        again = joiner(2, "phoenix", home)
        procs.append(again)

        def back():
            return again.first(lambda x: x.get("t") == "rejoined")

        _wait([again], lambda: back() is not None, 60)
        t_back, line = back()
        _wait([again], lambda: again.first(lambda x: x.get("t") == "game" and x.get("g") == "act"
                                           and x.get("a", {}).get("seat") == line["seat"], t_back) is not None
              or again.first(lambda x: x.get("t") == "match-over") is not None, 120)
        acted = again.first(lambda x: x.get("t") == "game" and x.get("g") == "act"
                            and x.get("a", {}).get("seat") == line["seat"], t_back)
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--round", type=int, action="append", help="kill in this round (default: 2 and 5)")
    ap.add_argument("--rig", action="store_true", help="four network namespaces (root)")
    args = ap.parse_args()
    where = "rig (4 namespaces)" if args.rig else "loopback"
    for r in args.round or [2, 5]:
        rows = []
        for _ in range(args.runs):
            if args.rig:
                with load_rig().Rig(4) as lan:
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
