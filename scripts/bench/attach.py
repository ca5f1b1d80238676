"""The scorekeeper attached to a loopback table: what checking and recording a round costs it.

Runs `unonet host --no-ui --bind 127.0.0.1` (its own seat and bots, to --target) with one
`unonet score --no-ui --json` attached by address, and prints the scorekeeper's CPU time
(user + system) and peak memory for the whole match, per round, and how long after the
host's match-over line the scorekeeper printed its own.  Loopback only.

    python3 scripts/bench/attach.py [--matches 3] [--players 4] [--target 500]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _proc(args, home: str, out: Path) -> subprocess.Popen:
    env = {**os.environ, "UNONET_HOME": home, "PYTHONUNBUFFERED": "1"}
    return subprocess.Popen([sys.executable, "-m", "unonet", *args], cwd=ROOT, env=env,
                            stdout=open(out, "w"), stderr=subprocess.DEVNULL)


def _first_line(path: Path, limit: float = 20.0) -> dict:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        text = path.read_text()
        if "\n" in text:
            return json.loads(text.split("\n", 1)[0])
        time.sleep(0.02)
    raise SystemExit(f"no line from {path}")


def one(players: int, target: int) -> tuple[float, int, int]:
    d = Path(tempfile.mkdtemp(prefix="unonet-bench-attach-"))
    host = _proc(["host", "--no-ui", "--json", "--players", str(players), "--bots", str(players - 1),
                  "--dealer-only", "--target", str(target), "--port", "0", "--bind", "127.0.0.1",
                  "--discovery-port", "0"], str(d / "h"), d / "host.out")
    # the host waits for its last seat (a joiner): --bots players-1 with --dealer-only leaves one
    port = _first_line(d / "host.out")["port"]
    keeper = subprocess.Popen(["/usr/bin/time", "-f", "%U %S %M", "-o", str(d / "time"), sys.executable, "-m",
                               "unonet", "score", "--no-ui", "--json", "--db", str(d / "s.db"), f"127.0.0.1:{port}"],
                              cwd=ROOT, env={**os.environ, "UNONET_HOME": str(d / "s"), "PYTHONUNBUFFERED": "1"},
                              stdout=open(d / "score.out", "w"), stderr=subprocess.DEVNULL)
    while '"attached"' not in (d / "score.out").read_text():
        time.sleep(0.02)
    joiner = _proc(["join", "--no-ui", "--json", "--bot", f"127.0.0.1:{port}"], str(d / "j"), d / "join.out")
    joiner.wait(600)
    host.wait(60)
    keeper.wait(60)
    user, system, rss = (d / "time").read_text().splitlines()[-1].split()
    lines = [json.loads(x) for x in (d / "score.out").read_text().splitlines()]
    rounds = sum(x["t"] == "round" for x in lines)
    return float(user) + float(system), rounds, int(rss)


def startup() -> float:
    """CPU of the scorekeeper that starts, opens its database and finds nothing to attach to."""
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    d = Path(tempfile.mkdtemp(prefix="unonet-bench-attach-"))
    subprocess.run(["/usr/bin/time", "-f", "%U %S %M", "-o", str(d / "time"), sys.executable, "-m", "unonet", "score",
                    "--no-ui", "--db", str(d / "s.db"), f"127.0.0.1:{port}"], cwd=ROOT, capture_output=True,
                   env={**os.environ, "UNONET_HOME": str(d)})
    user, system, _ = (d / "time").read_text().splitlines()[-1].split()
    return float(user) + float(system)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matches", type=int, default=3)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--target", type=int, default=500)
    a = ap.parse_args()
    base = startup()
    print(f"scorekeeper attached to a {a.players}-seat loopback table, to {a.target} (start-up: CPU {base:.2f} s):")
    for _ in range(a.matches):
        cpu, rounds, rss = one(a.players, a.target)
        print(f"  {rounds:3d} rounds: CPU {cpu:5.2f} s, {1000 * (cpu - base) / max(rounds, 1):6.1f} ms a round "
              f"after start-up; peak memory {rss / 1024:5.1f} MB")


if __name__ == "__main__":
    main()
