"""Host death to play resuming (spec §7): a CLI host and three `join --bot` joiners; the
host is killed (SIGKILL: its links close at once) or frozen (SIGSTOP: silent, the 3 s
heartbeat rule) in the middle of round 2; we time, from that moment, each survivor's
`election` line (the host noticed gone) and its first `round` set-up after it (the voided
round dealt again: play resumes), and check the survivors print one match-over line.

    python scripts/bench/election.py [--runs N] [--rig] [--stdin]

``--stdin``: the first joiner (first in the succession: the one elected) is a person in
stdin mode (`join --no-ui --json` without --bot) whose script types "draw, keep" over and
over; elected, it plays its own seat at its own table from stdin.

Loopback by default (everything on 127.0.0.1); ``--rig`` runs the four processes in four
network namespaces of scripts/lan-rig (root; deleted afterwards).  Figures go to
docs/performance.md.
"""

from __future__ import annotations

import argparse
import importlib.machinery
import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class Proc:
    """A unonet process whose --json lines are read with the time each was first seen."""

    def __init__(self, argv: list[str], env: dict, *, typist: bool = False) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="unonet-bench-el-"))
        out = open(self.dir / "out", "w")
        self.proc = subprocess.Popen(argv, stdout=out, stderr=open(self.dir / "err", "w"), env=env, cwd=ROOT,
                                     stdin=subprocess.PIPE if typist else None)
        out.close()
        if typist:
            threading.Thread(target=self._type, daemon=True).start()
        self.seen: list[tuple[float, dict]] = []
        self._at = 0

    def poll(self) -> None:
        text = (self.dir / "out").read_text()
        now = time.monotonic()
        while "\n" in text[self._at:]:
            line, _ = text[self._at:].split("\n", 1)
            self._at += len(line) + 1
            try:
                self.seen.append((now, json.loads(line)))
            except ValueError:
                pass

    def _type(self) -> None:
        """A person in stdin mode who draws and keeps (its engine copy refuses what is not
        legal now: a `refused` line, nothing sent), until the process ends."""
        for _ in range(100000):  # bounded: far beyond a match
            if self.proc.poll() is not None:
                return
            try:
                self.proc.stdin.write(b'{"draw": true}\n{"pass": true}\n')
                self.proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                return
            time.sleep(0.05)

    def first(self, pred, after: float = 0.0):
        return next(((t, x) for t, x in self.seen if t >= after and pred(x)), None)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


def _env() -> dict:
    env = dict(os.environ)
    env["UNONET_HOME"] = tempfile.mkdtemp(prefix="unonet-bench-home-")
    env["PYTHONPATH"] = str(ROOT)
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait(procs, pred_done, limit: float) -> None:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for p in procs:
            p.poll()
        if pred_done():
            return
        time.sleep(0.005)
    raise TimeoutError("the scenario did not get there in time: " + " | ".join(
        (p.dir / "err").read_text()[-300:] for p in procs))


def one_run(how: str, lan=None, stdin: bool = False) -> dict:
    """One match, the host killed (``how``: kill / stop) mid round 2; the figures."""
    py = [sys.executable, "-m", "unonet"]
    wrap = (lambda node, argv: lan.command(node, argv)) if lan is not None else (lambda node, argv: argv)
    where = ("--port", "0") if lan is not None else ("--bind", "127.0.0.1", "--port", "0")
    host = Proc(wrap(0, py + ["host", "--no-ui", "--json", *where, "--discovery-port", str(_free_udp_port()),
                              "--players", "4", "--target", "500"]), _env())
    procs = [host]
    try:
        _wait([host], lambda: host.first(lambda x: "port" in x) is not None, 30)
        port = host.first(lambda x: "port" in x)[1]["port"]
        addr = lan.addrs[0] if lan is not None else "127.0.0.1"
        bind = () if lan is not None else ("--bind", "127.0.0.1")
        joins = []
        for i in range(3):
            person = stdin and i == 0
            joins.append(Proc(wrap(i + 1, py + ["join", "--no-ui", "--json", *(() if person else ("--bot",)), *bind,
                                                "--name", f"j{i}", f"{addr}:{port}"]), _env(), typist=person))
            if stdin:  # in order: the person first in the succession
                _wait(joins, lambda: joins[-1].first(lambda x: x.get("t") == "lobby") is not None, 30)
        procs += joins
        _wait(joins, lambda: joins[0].first(lambda x: x.get("t") == "round" and x.get("round") == 2) is not None, 120)
        _wait(joins, lambda: sum(1 for _, x in joins[0].seen if x.get("t") == "game" and x.get("g") == "act") > 0
              and joins[0].seen[-1][1].get("g") == "act", 60)
        t0 = time.monotonic()
        os.kill(host.proc.pid, signal.SIGKILL if how == "kill" else signal.SIGSTOP)

        def resumed(j):
            e = j.first(lambda x: x.get("t") == "election", t0)
            return e is not None and j.first(lambda x: x.get("t") == "round", e[0]) is not None

        _wait(joins, lambda: all(resumed(j) for j in joins), 60)
        noticed = [j.first(lambda x: x.get("t") == "election", t0)[0] - t0 for j in joins]
        resume = [j.first(lambda x: x.get("t") == "round", j.first(lambda x: x.get("t") == "election", t0)[0])[0] - t0
                  for j in joins]
        _wait(joins, lambda: all(j.first(lambda x: x.get("t") == "match-over") for j in joins), 600)
        overs = [j.first(lambda x: x.get("t") == "match-over")[1] for j in joins]
        codes = [j.proc.wait(timeout=30) for j in joins]
        agree = len({json.dumps(o, sort_keys=True) for o in overs}) == 1 and codes == [0, 0, 0]
        return {"noticed": max(noticed), "resumed": max(resume), "agree": agree, "overs": overs, "codes": codes,
                "elections": [[x for _, x in j.seen if x.get("t") == "election"] for j in joins]}
    finally:
        if host.proc.poll() is None:
            os.kill(host.proc.pid, signal.SIGKILL)
        for p in procs:
            p.stop()


def load_rig():
    loader = importlib.machinery.SourceFileLoader("lan_rig", str(ROOT / "scripts" / "lan-rig"))
    spec = importlib.util.spec_from_loader("lan_rig", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rig", action="store_true", help="four network namespaces (root)")
    ap.add_argument("--stdin", action="store_true", help="the joiner elected is a person in stdin mode")
    args = ap.parse_args()
    for how in ("kill", "stop"):
        rows = []
        for _ in range(args.runs):
            if args.rig:
                with load_rig().Rig(4) as lan:
                    rows.append(one_run(how, lan, args.stdin))
            else:
                rows.append(one_run(how, stdin=args.stdin))
        med = lambda k: statistics.median(r[k] for r in rows)  # noqa: E731
        where = ("rig (4 namespaces)" if args.rig else "loopback") + (", stdin person elected" if args.stdin else "")
        what = "SIGKILL (links close)" if how == "kill" else "SIGSTOP (silent host)"
        print(f"{where}, host {what}: noticed gone {med('noticed') * 1000:.0f} ms, play resumed "
              f"{med('resumed') * 1000:.0f} ms after (median of {len(rows)}; max "
              f"{max(r['resumed'] for r in rows) * 1000:.0f} ms); survivors agree: "
              f"{sum(r['agree'] for r in rows)}/{len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
