#!/usr/bin/env python3
"""lan_match: a whole match between full-screen clients in a private network namespace.

    sudo .venv/bin/python scripts/lan_match.py [--target 500] [--joiners 2] [--log DIR]

Issue 12's "Done when" run, scripted: a network namespace of its own (`unshare -n`,
loopback up, nothing else: no beacon can leave it), a tmux server of its own
(`tmux -L unonet-lan-<hex>`), and in it `unonet host` and N plain `unonet join` (no
address: they find the table by its beacons), each the real full-screen client
(`python -m unonet` of this interpreter) with a key store of its own.  The script plays
every seat by reading its screen and typing, as a person would (the same simple player
as tests/tui/test_tmux.py): the host starts when every seat is taken, each player presses
Enter after each round's result, until every screen shows the match over.

It prints one JSON object: the rounds, each round's result line as each screen showed
it, the final standings of every screen, the wall time, the moves typed, and anything a
player would notice (a table problem, a refusal, a screen stuck for long).  Everything
(tmux server, processes, the namespace) is removed at the end, whatever happens.
Needs root (unshare -n, nsenter), tmux and ip.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.tui.test_tmux import move_for  # noqa: E402 - the one simple screen player

#: what a player would notice: lines that must never show during a clean match
TROUBLE = ("TABLE PROBLEM", "CHEAT", "Traceback", "went silent", "has gone", "lost track", "refused",
           "You don't hold", "doesn't fit", "is not a colour", "is not a card", "cannot be signed")


class Trouble(Exception):
    pass


class Namespace:
    """A network namespace held open by a sleeping process (`unshare -n`), loopback up."""

    def __init__(self) -> None:
        for tool in ("unshare", "nsenter", "ip"):
            if shutil.which(tool) is None:
                raise Trouble(f"{tool} is not installed")
        self.proc = subprocess.Popen(["unshare", "-n", "sleep", "86400"], start_new_session=True)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:  # unshare has exec'd sleep once the netns differs
            if os.readlink(f"/proc/{self.proc.pid}/ns/net") != os.readlink("/proc/self/ns/net"):
                break
            time.sleep(0.02)
        else:
            self.close()
            raise Trouble("unshare -n did not give the process a namespace of its own (root?)")
        subprocess.run(self.enter(["ip", "link", "set", "lo", "up"]), check=True)

    def enter(self, argv: list[str]) -> list[str]:
        return ["nsenter", "-t", str(self.proc.pid), "-n", *argv]

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)


class Tmux:
    """A tmux server of our own (socket named per run)."""

    def __init__(self) -> None:
        self.socket = f"unonet-lan-{secrets.token_hex(6)}"
        self("-f", "/dev/null", "new-session", "-d", "-s", "idle", "sleep 86400")

    def __call__(self, *args: str, check: bool = True) -> str:
        p = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)
        if check and p.returncode:
            raise Trouble(f"tmux {' '.join(args[:3])}: {p.stderr.strip()}")
        return p.stdout

    def start(self, name: str, argv: list[str], columns: int, rows: int) -> None:
        self("new-session", "-d", "-s", name, "-x", str(columns), "-y", str(rows), shlex.join(argv),
             ";", "set-option", "-t", name, "remain-on-exit", "on")

    def screen(self, name: str) -> str:
        return self("capture-pane", "-p", "-t", name)

    def dead(self, name: str) -> bool:
        return self("display-message", "-p", "-t", name, "#{pane_dead}").strip() == "1"

    def keys(self, name: str, keys: str) -> None:
        if keys in ("Enter", " "):
            self("send-keys", "-t", name, "Enter" if keys == "Enter" else "Space")
            return
        self("send-keys", "-t", name, "-l", keys)
        if len(keys) > 1:
            self("send-keys", "-t", name, "Enter")

    def close(self) -> None:
        self("kill-server", check=False)


def play(args) -> dict:
    ns, mux, sessions = Namespace(), None, {}
    homes = Path(tempfile.mkdtemp(prefix="unonet-lan-"))
    log = Path(args.log) if args.log else homes / "screens"
    log.mkdir(parents=True, exist_ok=True)
    report: dict = {"target": args.target, "players": args.joiners + 1, "rounds": [], "moves": {},
                    "noticed": [], "final": {}, "log": str(log)}
    try:
        mux = Tmux()
        names = ["Hal"] + [f"Jo{i}" for i in range(1, args.joiners + 1)]
        sessions.update({n: f"{n.lower()}" for n in names})

        def cmd(*argv: str, home: str) -> list[str]:
            # the client's exit status, written by a shell around it: tmux 3.3a sometimes never
            # reaps a pane's process (seen: a <defunct> client, pane dead, no status)
            env = ["env", f"UNONET_HOME={homes / home}", "UNONET_BOT_DELAY=0"]
            status = homes / f"{home}.status"
            return ns.enter(["sh", "-c", '"$@"; echo $? > "$0"', str(status),
                             *env, sys.executable, "-m", "unonet", *argv])

        started = time.monotonic()
        mux.start(sessions["Hal"], cmd("host", "--name", "Hal", "--players", str(len(names)), "--target",
                                        str(args.target), home="hal"), args.columns, args.rows)
        wait_for(mux, sessions["Hal"], r"Join code\s+\S+", 20)
        for n in names[1:]:
            mux.start(sessions[n], cmd("join", "--name", n, home=n.lower()), args.columns, args.rows)
        for n in names[1:]:
            wait_for(mux, sessions[n], rf"\s{n}\s+\S+\s+you", 30)
        wait_for(mux, sessions["Hal"], rf"Seats \({len(names)} of {len(names)} taken", 20)
        report["lobby"] = {n: mux.screen(sessions[n]) for n in names}
        mux.keys(sessions["Hal"], "s")
        report["moves"] = {n: 0 for n in names}
        over: dict[str, str] = {}
        readied: dict[str, int] = {n: 0 for n in names}   # the last round each player said ready after
        last_change = {n: time.monotonic() for n in names}
        last_screen = {n: "" for n in names}
        deadline = time.monotonic() + args.timeout
        while len(over) < len(names):
            if time.monotonic() > deadline:
                raise Trouble(f"no match over on every screen within {args.timeout} s")
            for n in names:
                if n in over:
                    continue
                s = sessions[n]
                if mux.dead(s):
                    raise Trouble(f"{n}'s client exited early:\n" + mux("capture-pane", "-p", "-S", "-", "-t", s))
                screen = mux.screen(s)
                if screen != last_screen[n]:
                    last_screen[n], last_change[n] = screen, time.monotonic()
                elif time.monotonic() - last_change[n] > args.stuck:
                    note(report, n, f"screen unchanged for {args.stuck:g} s", screen)
                    last_change[n] = time.monotonic()
                for bad in TROUBLE:
                    if bad in screen:
                        note(report, n, bad, screen)
                m = re.search(r"Match over: (.*?)\. Ledger (\w+)", screen)
                if m:
                    over[n] = screen
                    report["final"][n] = {"line": m.group(1), "ledger": m.group(2), "standings": standings(screen)}
                    r = re.search(r"Round (\d+) over: (.*)", screen)
                    if r:
                        record_round(report, int(r.group(1)), n, r.group(2).strip())
                    (log / f"final-{n}.txt").write_text(screen)
                    continue
                r = re.search(r"Round (\d+) over: (.*)", screen)
                if r and "Enter: deal the next round" in screen and readied[n] < int(r.group(1)):
                    no = int(r.group(1))
                    record_round(report, no, n, r.group(2).strip())
                    (log / f"round-{no:02d}-{n}.txt").write_text(screen)
                    readied[n] = no
                    mux.keys(s, "Enter")
                    continue
                keys = move_for(screen)
                if keys is None:
                    continue
                mux.keys(s, keys)
                report["moves"][n] += 1
                settle(mux, s, screen, 2.0)
            time.sleep(0.05)
        report["seconds"] = round(time.monotonic() - started, 1)
        for n in names:  # the finals as each screen put them, then Q on each
            mux.keys(sessions[n], "q")
        report["exits"] = exits(homes, names)
        return report
    finally:
        if mux is not None:
            for n, sname in sessions.items():  # the last screens, for whoever reads the log
                (log / f"last-{n}.txt").write_text(mux("capture-pane", "-p", "-S", "-200", "-t", sname, check=False))
            mux.close()
        ns.close()


def exits(homes: Path, names: list[str]) -> dict:
    """Each client's exit status after Q, as the shell around it wrote it (30 s each)."""
    out = {}
    for n in names:
        path, end = homes / f"{n.lower()}.status", time.monotonic() + 30
        while time.monotonic() < end and not (path.exists() and path.read_text().strip()):
            time.sleep(0.1)
        out[n] = path.read_text().strip() if path.exists() else "running"
    return out


def standings(screen: str) -> dict[str, int]:
    """The match totals of the standings table: {player: total}."""
    rows = re.findall(r"^\s*\*?\d+(?:st|nd|rd|th)\s+\d+\s+(\S+)\s+\d+\s+(\d+)\s", screen, re.M)
    return {name: int(total) for name, total in rows}


def record_round(report: dict, no: int, who: str, line: str) -> None:
    while len(report["rounds"]) < no:
        report["rounds"].append({})
    report["rounds"][no - 1][who] = line


def note(report: dict, who: str, what: str, screen: str) -> None:
    key = (who, what)
    seen = report.setdefault("_seen", set())
    if key in seen:
        return
    seen.add(key)
    report["noticed"].append({"who": who, "what": what, "screen": screen})


def wait_for(mux: Tmux, session: str, pattern: str, timeout: float) -> str:
    end = time.monotonic() + timeout
    screen = ""
    while time.monotonic() < end:
        screen = mux.screen(session)
        if re.search(pattern, screen):
            return screen
        if mux.dead(session):
            break
        time.sleep(0.1)
    raise Trouble(f"{pattern!r} never showed in {session}:\n" + mux("capture-pane", "-p", "-S", "-", "-t", session))


def settle(mux: Tmux, session: str, before: str, timeout: float) -> str:
    end = time.monotonic() + timeout
    now = before
    while time.monotonic() < end and now == before:
        time.sleep(0.03)
        now = mux.screen(session)
    return now


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", type=int, default=500)
    ap.add_argument("--joiners", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=3600, help="seconds for the whole match")
    ap.add_argument("--stuck", type=float, default=30, help="note a screen unchanged this long")
    ap.add_argument("--columns", type=int, default=100)
    ap.add_argument("--rows", type=int, default=32)
    ap.add_argument("--log", help="directory for the screens of each round's end and the finals")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(143))
    try:
        report = play(args)
    except Trouble as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
        return 1
    report.pop("_seen", None)
    print(json.dumps(report, indent=1, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
