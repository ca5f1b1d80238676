"""The LAN rig (scripts/lan-rig) figures: discovery across the bridge, and whole bot matches
across four network namespaces, clean and under loss and delay on every link.

    python scripts/bench/rig.py [--discovery N] [--matches N] [--target T] [--impair "delay 20ms loss 10%"]

* Discovery: a host (`unonet host --no-ui`, waiting in its lobby) in node 0; in node 1 one
  Python process calls `discover()` N times and times each from the call to the table
  reported (`on_found`: socket set-up, the probe, the host's unicast answer); and `unonet
  list --json` is started N/4 times, timed from the spawn to its first line (Python start-up
  included).  The goal (issue 13) is <= 20 ms to list a table.
* Matches: `unonet host --no-ui --players 4` in node 0 and three `unonet join --bot` in nodes
  1-3; each match timed from the host's start to the last process's match-over line, the
  same with loss and delay on every link (`lan-rig --impair`: the nodes on TAP devices joined by
  the rig's own switch, which drops and delays each frame it forwards -- one link's worth;
  the machines here have no tc netem).  A match
  completes when every process exits 0 with one and the same match-over line.

Needs root (network namespaces).  Figures go to docs/performance.md ("The LAN rig").
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from election import Proc, _env, _wait, load_rig  # noqa: E402

PY = [sys.executable, "-m", "unonet"]

PROBE = """
import sys, time, trio
from unonet.net import discover
n = int(sys.argv[1])
async def main():
    out = []
    for _ in range(n):
        t0 = time.perf_counter(); got = []
        def found(t):
            if not got:
                got.append(time.perf_counter() - t0)
        await discover(0.3, on_found=found)
        out.append(got[0] if got else None)
    print(" ".join("nan" if x is None else f"{x * 1000:.3f}" for x in out))
trio.run(main)
"""


def discovery(n: int) -> dict:
    with load_rig().Rig(2) as lan:
        host = Proc(lan.command(0, PY + ["host", "--no-ui", "--json", "--port", "0", "--players", "4"]), _env())
        try:
            _wait([host], lambda: host.first(lambda x: "port" in x) is not None, 30)
            out = lan.run(1, [sys.executable, "-c", PROBE, str(n)], capture_output=True, text=True,
                          env=_env(), timeout=120)
            lib = [float(x) for x in out.stdout.split()]
            cli = []
            for _ in range(max(1, n // 4)):
                t0 = time.monotonic()
                p = lan.popen(1, PY + ["list", "--json", "--timeout", "1"], stdout=subprocess.PIPE, text=True,
                              env=_env())
                line = p.stdout.readline()
                cli.append((time.monotonic() - t0) * 1000 if line.strip() else float("nan"))
                p.wait(timeout=10)
            return {"lib": lib, "cli": cli}
        finally:
            host.stop()


def match(target: int, netem: str | None) -> dict:
    with load_rig().Rig(4, impair=netem) as lan:  # (the rig's own lossy switch: no tc netem needed)
        t0 = time.monotonic()
        host = Proc(lan.command(0, PY + ["host", "--no-ui", "--json", "--port", "0", "--players", "4",
                                         "--target", str(target)]), _env())
        procs = [host]
        try:
            _wait([host], lambda: host.first(lambda x: "port" in x) is not None, 60)
            port = host.first(lambda x: "port" in x)[1]["port"]
            joins = [Proc(lan.command(i + 1, PY + ["join", "--no-ui", "--json", "--bot", "--name", f"j{i}",
                                                   f"{lan.addrs[0]}:{port}"]), _env()) for i in range(3)]
            procs += joins
            limit = 900

            def done():  # every process ended, or one failed: the match cannot end well then
                codes = [p.proc.poll() for p in procs]
                return None not in codes or any(c not in (None, 0) for c in codes)

            _wait(procs, done, limit)
            wall = time.monotonic() - t0
            codes = [p.proc.returncode for p in procs]
            overs = [p.first(lambda x: x.get("t") in ("match-over", "ended")) for p in procs]
            lines = [json.dumps({k: v for k, v in o[1].items() if k not in ("t", "text")}, sort_keys=True)
                     if o else None for o in overs]
            ok = codes == [0, 0, 0, 0] and None not in lines and len(set(lines)) == 1
            rounds = overs[1][1]["rounds"] if overs[1] else None
            elections = sum(1 for p in joins for _, x in p.seen if x.get("t") in ("election", "reconnected"))
            return {"ok": ok, "wall": wall, "rounds": rounds, "codes": codes, "elections": elections,
                    "err": [(p.dir / "err").read_text()[-300:] for p in procs] if not ok else None,
                    "last": [[x for _, x in p.seen[-3:]] for p in procs] if not ok else None}
        finally:
            for p in procs:
                p.stop()


def _fmt(xs) -> str:
    xs = sorted(x for x in xs if x == x)
    if not xs:
        return "none"
    p90 = xs[min(len(xs) - 1, int(0.9 * len(xs)))]
    return f"median {statistics.median(xs):.1f} ms, p90 {p90:.1f} ms, max {xs[-1]:.1f} ms (n={len(xs)})"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--discovery", type=int, default=40, help="discovery runs (0: skip)")
    ap.add_argument("--matches", type=int, default=3, help="matches per condition (0: skip)")
    ap.add_argument("--target", type=int, default=200)
    ap.add_argument("--impair", default="delay 20ms loss 10%", help="loss and delay on every link")
    args = ap.parse_args()
    if args.discovery:
        d = discovery(args.discovery)
        print(f"discovery across the bridge, discover() call to table found: {_fmt(d['lib'])}")
        print(f"`unonet list --json` spawn to its first line (Python start-up included): {_fmt(d['cli'])}")
    for netem in ([None, args.impair] if args.matches else []):
        rows = [match(args.target, netem) for _ in range(args.matches)]
        good = [r for r in rows if r["ok"]]
        what = f"'{netem}' on every link" if netem else "clean links"
        walls = [r["wall"] for r in good]
        print(f"4 namespaces, bot match to {args.target}, {what}: completed {len(good)}/{len(rows)}; "
              + (f"wall median {statistics.median(walls):.1f} s (min {min(walls):.1f}, max {max(walls):.1f}); "
                 f"rounds {[r['rounds'] for r in good]}; elections/reconnects {[r['elections'] for r in rows]}"
                 if good else "")
              + ("" if len(good) == len(rows) else f"; failures: {[r['err'] for r in rows if not r['ok']]}"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
