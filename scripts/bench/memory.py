#!/usr/bin/env python3
"""Memory over a long match: the host, a headless seat and the full-screen client, round 1 to N.

    python3 scripts/bench/memory.py [--rounds 200] [--every 50] [--json]

A 4-seat bot table on loopback, every party a process of its own started as
``sys.executable -m unonet`` with a HOME of its own (fresh keys): ``unonet host --no-ui --json
--bind 127.0.0.1 --port 0`` (its own seat a bot; its beacons stay on loopback), two ``unonet join
--no-ui --json --bot`` and one ``unonet join --bot`` with its screen, in an 80x24 tmux window of a
tmux server of the bench's own.  The target is one no round reaches (``--target 100000``), so one
match runs as long as the bench needs.

When the host announces round k + 1 (round k is over) the bench reads every process's VmRSS from
/proc/PID/status, after round 1 and every ``--every`` rounds to round N, and at the end the
full-screen client's VmHWM (the kernel's high-water mark).  Goals (issue 26): each within 5 MB of
its round-1 size after 200 rounds; the full-screen client <= 60 MB throughout.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from client import status_kb  # noqa: E402 - scripts/bench/ (this script's directory) is on sys.path
from cost import host_port, rounds_started  # noqa: E402

PY = sys.executable
TARGET = 100_000  # no round reaches it: the match lasts as long as the bench needs
GROWTH_MB, CLIENT_MB = 5.0, 60.0


class Tmux:
    """A tmux server of the bench's own (a socket named per run), killed at the end."""

    def __init__(self) -> None:
        if shutil.which("tmux") is None:
            raise SystemExit("tmux is not installed (the full-screen client runs in it)")
        self.socket = f"unonet-bench-mem-{secrets.token_hex(6)}"

    def __call__(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], capture_output=True,
                              text=True).stdout

    def start(self, name: str, argv: list[str]) -> int:
        """Run ``argv`` (exec'd: the pane's process is the client) in a new 80x24 window; its pid."""
        self("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "exec " + shlex.join(argv))
        pid = self("display-message", "-p", "-t", name, "#{pane_pid}").strip()
        if not pid.isdigit():
            raise SystemExit("tmux did not start the full-screen client")
        return int(pid)

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", name)

    def close(self) -> None:
        self("kill-server")


class Table:
    def __init__(self, work: Path, headless: int) -> None:
        self.work, self.headless = work, headless
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        self.env.update(UNONET_BOT_DELAY="0", TERM=os.environ.get("TERM", "xterm-256color"))
        self.host_log = work / "host.jsonl"
        self.procs: dict[str, subprocess.Popen] = {}
        self.pids: dict[str, int] = {}
        self.tmux: Tmux | None = None

    def _env(self, label: str) -> dict:
        home = self.work / label
        home.mkdir()
        return dict(self.env, HOME=str(home), UNONET_HOME=str(home))

    def start(self) -> None:
        players = self.headless + 2
        with open(self.host_log, "w") as log:
            self.procs["host"] = subprocess.Popen(
                [PY, "-m", "unonet", "host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                 "--players", str(players), "--target", str(TARGET), "--name", "Hal",
                 "--discovery-port", str(random.randint(40000, 60000))],
                stdout=log, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=self._env("host"))
        address = f"127.0.0.1:{host_port(self.host_log)}"
        for k in range(1, self.headless + 1):
            self.procs[f"seat{k}"] = subprocess.Popen(
                [PY, "-m", "unonet", "join", "--no-ui", "--json", "--bot", "--name", f"s{k}", address],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                env=self._env(f"seat{k}"))
        self.tmux = Tmux()
        env = self._env("screen")
        # (the tmux server has the bench's environment: PYTHONDONTWRITEBYTECODE goes here too, or
        # the client alone compiled the modules only it imports - tui/*.py - from source at every
        # start, ~3 MB of RSS no installed client pays: a wheel's modules are compiled at install)
        argv = ["env", "-u", "PYTHONDONTWRITEBYTECODE",
                *(f"{k}={env[k]}" for k in ("HOME", "UNONET_HOME", "UNONET_BOT_DELAY", "TERM")),
                PY, "-m", "unonet", "join", "--bot", "--name", "Screen", address]
        self.pids = {label: p.pid for label, p in self.procs.items()}
        self.pids["screen"] = self.tmux.start("screen", argv)

    def wait_round(self, n: int, limit: float) -> None:
        end = time.monotonic() + limit
        while rounds_started(self.host_log) < n:
            if time.monotonic() > end:
                raise SystemExit(f"round {n} did not start within {limit:g} s")
            for label, pid in self.pids.items():
                if not status_kb(pid):
                    screen = self.tmux.screen("screen") if label == "screen" and self.tmux else ""
                    raise SystemExit(f"{label} ended before round {n}" + (f":\n{screen}" if screen else ""))
            time.sleep(0.05)

    def stop(self) -> None:
        if self.tmux is not None:
            self.tmux.close()
        for p in self.procs.values():
            if p.poll() is None:
                p.terminate()
        for p in self.procs.values():
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def measure(rounds: int, every: int, headless: int, limit: float) -> dict:
    marks = sorted({1, *range(every, rounds + 1, every), rounds})
    work = Path(tempfile.mkdtemp(prefix="unonet-bench-memory-"))
    table = Table(work, headless)
    out: dict = {"marks": marks, "rss_kb": {}, "seconds": []}
    try:
        t0 = time.monotonic()
        table.start()
        for mark in marks:
            table.wait_round(mark + 1, limit)  # round mark+1 announced: round mark is over
            out["seconds"].append(round(time.monotonic() - t0, 1))
            for label, pid in table.pids.items():
                out["rss_kb"].setdefault(label, []).append(status_kb(pid).get("VmRSS", 0))
        out["screen_hwm_kb"] = status_kb(table.pids["screen"]).get("VmHWM", 0)
        return out
    finally:
        table.stop()
        shutil.rmtree(work, ignore_errors=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=200, help="rounds played (default 200)")
    ap.add_argument("--every", type=int, default=50, help="RSS read every this many rounds (and after round 1)")
    ap.add_argument("--headless", type=int, default=2, help="headless `join --no-ui --bot` seats (default 2)")
    ap.add_argument("--limit", type=float, default=600, help="seconds a round may take before the bench gives up")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = ap.parse_args()
    if args.rounds < 1 or args.every < 1 or not 1 <= args.headless <= 8:
        ap.error("--rounds and --every must be at least 1, --headless 1..8")
    res = measure(args.rounds, args.every, args.headless, args.limit)
    res["load"] = round(os.getloadavg()[0], 1)
    if args.json:
        print(json.dumps(res))
        return 0
    print(f"load average {res['load']} ({os.cpu_count()} cores); {args.headless + 2} seats: host (its seat a bot), "
          f"{args.headless} `join --no-ui --bot`, one `join --bot` with its screen (tmux 80x24)")
    print(f"RSS (MB) after round {', '.join(map(str, res['marks']))} "
          f"(at {', '.join(f'{s:g}' for s in res['seconds'])} s)")
    for label, kbs in res["rss_kb"].items():
        mbs = [k / 1024 for k in kbs]
        grow = mbs[-1] - mbs[0]
        verdict = "met" if grow <= GROWTH_MB else "NOT met"
        print(f"  {label:<7}" + "".join(f"{m:7.1f}" for m in mbs)
              + f"   {grow:+.1f} MB since round 1 (goal <= {GROWTH_MB:g}: {verdict})")
    hwm = res["screen_hwm_kb"] / 1024
    print(f"  the full-screen client's peak (VmHWM): {hwm:.1f} MB "
          f"(goal <= {CLIENT_MB:g}: {'met' if hwm <= CLIENT_MB else 'NOT met'})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
