#!/usr/bin/env python3
"""Conformance kit: run a real unonet host and drive a peer command through a whole match
and a rejoin, reporting the first deviation (protocol/README.md says what a peer must do).

    python protocol/conformance.py [options] -- PEER COMMAND...

Why a live host and not only vectors: the vectors pin bytes; the kit shows the bytes add up
to a seat the reference host plays a whole match with -- seated, dealt, acting, co-signing,
killed in the middle and back in its seat -- and that the peer's result is the host's.

Only the standard library: the host is ``sys.executable -m unonet host`` (this checkout's),
bound to 127.0.0.1 (nothing leaves the machine), one seat for the peer, bots in the others.
Exit status: 0 clean, 1 a deviation (one line naming it), 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
POLL = 0.05            # seconds between looks at the processes' output
PEER_NAME = "peer"     # the name the kit suggests ({name}); the host may seat it as another
COMPARED = ("winner", "scores", "rounds", "ledger")   # match-over fields every peer reports
OPTIONAL = ("match", "table")                          # compared when the peer reports them


class Deviation(Exception):
    """The first thing that differs from a conforming peer: where, and what."""

    def __init__(self, stage: str, text: str) -> None:
        super().__init__(f"{stage}: {text}")
        self.stage, self.text = stage, text


class Lines:
    """A process whose stdout goes to a file, read as JSON lines as they come."""

    def __init__(self, name: str, argv: list[str], logs: Path, env: dict, *, group: bool = False) -> None:
        self.name = name
        self.out_path, self.err_path = logs / f"{name}.out", logs / f"{name}.err"
        with open(self.out_path, "wb") as out, open(self.err_path, "wb") as err:
            self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env,
                                         cwd=ROOT, start_new_session=group)
        self.group = group
        self._at = 0
        self.seen: list[dict] = []
        self.unread: list[dict] = []  # lines read but not yet looked at (after the one a wait wanted)

    def poll_lines(self) -> list[dict]:
        """The complete stdout lines written since the last call, parsed; a line that is
        not a JSON object is a deviation (the contract: every stdout line is one)."""
        with open(self.out_path, "rb") as f:
            f.seek(self._at)
            data = f.read()
        new = []
        while b"\n" in data:
            raw, data = data.split(b"\n", 1)
            self._at += len(raw) + 1
            text = raw.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                obj = json.loads(text)
            except ValueError:
                obj = None
            if not isinstance(obj, dict):
                raise Deviation("output", f"{self.name} printed a line that is not a JSON object: {text[:120]!r}")
            new.append(obj)
        self.seen += new
        new, self.unread = self.unread + new, []
        return new

    def last_error(self) -> str:
        try:
            lines = [x for x in self.err_path.read_text(errors="replace").splitlines() if x.strip()]
        except OSError:
            return ""
        return lines[-1][:300] if lines else ""

    def kill(self) -> None:
        if self.proc.poll() is None:
            try:
                if self.group:
                    os.killpg(self.proc.pid, signal.SIGKILL)
                else:
                    self.proc.kill()
            except (ProcessLookupError, PermissionError):
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass


def plural(n, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Kit:
    """One conformance run: a host, the peer (twice, with a kill between), the comparison."""

    def __init__(self, args: argparse.Namespace, logs: Path) -> None:
        self.args, self.logs = args, logs
        self.steps: list[dict] = []
        self.host: Lines | None = None
        self.peers: list[Lines] = []
        self.home = logs / "peer-home"
        self.home.mkdir(mode=0o700, exist_ok=True)
        self.seat: int | None = None
        self.name: str | None = None
        self.params: dict[str, str] = {}
        self.host_over: dict | None = None
        self.peer_over: dict | None = None
        self.observer: Lines | None = None
        self.observer_over: dict | None = None
        self.host_rounds: dict[int, dict] = {}
        self.killed = False
        self.notes: list[str] = []   # the host's refusals of the peer's messages
        self.peer_rounds: list[dict] = []

    def step(self, stage: str, text: str) -> None:
        self.steps.append({"stage": stage, "text": text})
        if not self.args.json and not self.args.quiet:
            print(f"ok  {stage:<10} {text}", flush=True)

    # -- processes ---------------------------------------------------------------------
    def start_host(self) -> None:
        a = self.args
        env = dict(os.environ, UNONET_HOME=str(self.logs / "host-home"), PYTHONUNBUFFERED="1")
        argv = [sys.executable, "-m", "unonet", "host", "--no-ui", "--json", "--bind", "127.0.0.1",
                "--port", "0", "--discovery-port", str(free_udp_port()), "--players", str(a.players),
                "--bots", str(a.players - 2), "--target", str(a.target), "--rules", a.rules,
                "--bot-pace", str(a.bot_pace), "--hold-seats", str(a.hold)] + (["--teams"] if a.teams else [])
        self.host = Lines("host", argv, self.logs, env)
        table = self.wait(lambda line: line.get("t") == "table", a.start_timeout, "host",
                          "the host printed no table line")
        port, code = table["port"], table["join_code"]
        self.params = {"host": "127.0.0.1", "port": str(port), "address": f"127.0.0.1:{port}", "code": code,
                       "home": str(self.home), "name": PEER_NAME}
        self.step("host", f"table open on 127.0.0.1:{port}, join code {code}, {a.players} seats "
                          f"(the peer's and {a.players - 1} of the host's), target {a.target}")

    def start_peer(self) -> Lines:
        peer = self._spawn(f"peer-{len(self.peers) + 1}", self.args.command, self.params)
        self.peers.append(peer)
        return peer

    def start_observer(self) -> None:
        """An observer command (a scorekeeper) attached before the peer: it must follow the
        whole match -- the kill and the rejoin too -- and state the host's result."""
        home = self.logs / "observer-home"
        home.mkdir(mode=0o700, exist_ok=True)
        params = {**self.params, "home": str(home), "name": "observer"}
        self.observer = self._spawn("observer", shlex.split(self.args.observer), params, what="observer")
        self.wait(lambda x: x.get("t") == "joined" and str(x.get("text", "")).startswith("observer "),
                  self.args.seat_timeout, "observer", "the observer did not attach")
        self.step("observer", "the observer is watching")

    def _spawn(self, name: str, command: list[str], params: dict, what: str = "peer") -> Lines:
        argv = [part.format(**params) for part in command]
        env = dict(os.environ, UNONET_HOME=params["home"], PYTHONUNBUFFERED="1",
                   **{f"UNONET_CONFORMANCE_{k.upper()}": v for k, v in params.items()})
        try:
            return Lines(name, argv, self.logs, env, group=True)
        except OSError as exc:
            raise Deviation("start", f"the {what} command cannot be run: {exc}") from None

    # -- watching ----------------------------------------------------------------------
    def wait(self, done, limit: float, stage: str, missing: str) -> dict:
        """Read the host's and the peers' lines until ``done(host line)``; every line is
        checked on the way (`check_host`, `check_peer`).  The line that satisfied it."""
        deadline = time.monotonic() + limit
        while True:
            assert self.host is not None
            lines = self.host.poll_lines()
            for i, line in enumerate(lines):
                self.check_host(line, stage)
                if done(line):
                    self.host.unread = lines[i + 1:]  # the next step looks at the rest (a fast match)
                    return line
            for peer in self.peers:
                for line in peer.poll_lines():
                    self.check_peer(peer, line)
            self.check_observer()
            if self.host.proc.poll() is not None:
                for line in self.host.poll_lines():  # (its last lines, written as it exited)
                    self.check_host(line, stage)
                    if done(line):
                        return line
                raise Deviation(stage, f"the host exited (status {self.host.proc.returncode}) before that: "
                                       f"{missing}; its last words: {self.host.last_error() or '-'}")
            live = self.peers[-1] if self.peers else None
            if live is not None and live.proc.poll() is not None and not (self.killed and live is self.peers[0]):
                for line in live.poll_lines():
                    self.check_peer(live, line)
                if live.proc.returncode != 0 or stage != "match":
                    raise Deviation(stage, f"the peer exited (status {live.proc.returncode}) before that: "
                                           f"{missing}; its last words: {live.last_error() or '-'}")
            if time.monotonic() >= deadline:
                raise Deviation(stage, f"{missing} within {limit:g} s")
            time.sleep(POLL)

    def check_host(self, line: dict, stage: str) -> None:
        """What the host says about the peer: a refusal, a drop, a cheat, a refused act."""
        t, text = line.get("t"), str(line.get("text", ""))
        if t == "refused" and "text" in line:  # (a `refused` with `reason` is the host's own seat's feed)
            who = "the observer" if self.observer is not None and text.startswith("observer ") else "the peer"
            raise Deviation(stage, f"the host refused {who}: {text}")
        if t == "joined" and self.seat is not None and "seat" in line and line.get("seat") != self.seat:
            raise Deviation(stage, f"the peer came back to seat {line.get('seat')}, not its seat {self.seat}")
        if t == "left" and line.get("name") == self.name and "dropped (" in text:
            raise Deviation(stage, f"the host dropped the peer: {text}")
        if t == "refusal" and line.get("seat") == self.seat:
            # a refused act is not yet a fault: a catch or a call can lose a race with the
            # table honestly (spec §5 step 6: `stale`, `illegal`, `out-of-turn`, non-fatal)
            self.notes.append(text)
            if len(self.notes) > self.args.refusals:
                raise Deviation(stage, f"the host refused {len(self.notes)} of the peer's messages (more than "
                                       f"--refusals {self.args.refusals}); the first: {self.notes[0]}")
        if t == "problem":
            about_peer = self.seat is not None and (line.get("seat") == self.seat or f"seat {self.seat} (" in text
                                                    or f"seat {self.seat}'s " in text)
            if "the table failed" in text or "cannot start" in text or "cannot go on" in text or \
                    (about_peer and not line.get("stand_in")):
                raise Deviation(stage, f"the host reports: {text}")
        if t == "round-end" and isinstance(line.get("round"), int):
            self.host_rounds[line["round"]] = line

    def check_peer(self, peer: Lines, line: dict) -> None:
        if line.get("t") == "problem":
            raise Deviation("peer", f"{peer.name} reports a problem: {line.get('message') or line}")
        if line.get("t") == "round-end":
            self.peer_rounds.append(line)  # (compared once the host's are all in: either may be first)
        if line.get("t") == "match-over":
            self.peer_over = line

    # -- the run -----------------------------------------------------------------------
    def run(self) -> None:
        a = self.args
        self.start_host()
        if a.observer:
            self.start_observer()
        self.start_peer()
        joined = self.wait(lambda x: x.get("t") == "joined" and "seat" in x, a.seat_timeout, "seat",
                           "the peer took no seat")
        self.seat, self.name = joined.get("seat"), joined.get("name")
        self.step("seat", f"the peer took seat {self.seat} as {self.name!r}")
        self.wait(lambda x: x.get("t") == "started", a.seat_timeout, "start", "the match did not start")
        if a.rejoin:
            acts = [0]

            def kill_point(x: dict) -> bool:
                if x.get("t") == "match-over":
                    raise Deviation("rejoin", "the match ended before the kill point: lower --kill-at or "
                                              "raise --target")
                acts[0] += x.get("t") == "game" and x.get("g") == "act"
                return acts[0] >= a.kill_at

            self.wait(kill_point, a.timeout, "play", f"the match reached no act number {a.kill_at}")
            self.killed = True
            self.peers[0].kill()
            self.step("kill", f"the peer was killed (SIGKILL) after the match's {a.kill_at}th act")
            self.wait(lambda x: x.get("t") == "left" and x.get("name") == self.name, a.seat_timeout, "kill",
                      "the host did not notice the peer's link die")
            self.start_peer()
            self.wait(lambda x: x.get("t") == "joined" and x.get("seat") == self.seat, a.seat_timeout, "rejoin",
                      "the restarted peer was not given its seat back")
            self.step("rejoin", f"the restarted peer is back in seat {self.seat}")
        self.host_over = self.wait(lambda x: x.get("t") == "match-over", a.timeout, "match",
                                   "the host did not finish the match")
        self.step("match", f"the host played the match out: {plural(self.host_over.get('rounds'), 'round')}, scores "
                           f"{self.host_over.get('scores')}")
        peer = self.peers[-1]
        deadline = time.monotonic() + a.seat_timeout
        while peer.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(POLL)
        for line in peer.poll_lines():
            self.check_peer(peer, line)
        if peer.proc.poll() is None:
            raise Deviation("exit", f"the peer did not exit within {a.seat_timeout:g} s of the match's end")
        if peer.proc.returncode != 0:
            raise Deviation("exit", f"the peer exited with status {peer.proc.returncode} after the match: "
                                    f"{peer.last_error() or '-'}")
        self.compare_rounds()
        self.compare("the peer", self.peer_over, "match-over")
        self.step("match-over", f"the peer's result is the host's: winner {self.peer_over['winner']}, scores "
                                f"{self.peer_over['scores']}, ledger {str(self.peer_over['ledger'])[:16]}…")
        if self.observer is not None:
            self.finish_observer()

    def check_observer(self) -> None:
        obs = self.observer
        if obs is None:
            return
        for line in obs.poll_lines():
            if line.get("t") == "problem":
                raise Deviation("observer", f"the observer reports a problem: {line.get('message') or line}")
            if line.get("t") == "match-over":
                self.observer_over = line
            if line.get("t") == "round" and line.get("status", "verified") != "verified":
                raise Deviation("observer", f"the observer recorded round {line.get('round')} "
                                            f"{line.get('status')}: {line.get('reason') or '-'}")
        if obs.proc.poll() is not None and obs.proc.returncode != 0:
            raise Deviation("observer", f"the observer exited with status {obs.proc.returncode}: "
                                        f"{obs.last_error() or '-'}")

    def finish_observer(self) -> None:
        """The observer exits when the table closes (the host's exit), having stated the result."""
        obs = self.observer
        assert obs is not None and self.host is not None
        deadline = time.monotonic() + self.args.seat_timeout
        while (obs.proc.poll() is None or self.host.proc.poll() is None) and time.monotonic() < deadline:
            self.check_observer()
            time.sleep(POLL)
        self.check_observer()
        if obs.proc.poll() is None:
            raise Deviation("observer", f"the observer did not exit within {self.args.seat_timeout:g} s of the "
                                        "match's end")
        self.compare("the observer", self.observer_over, "observer")
        self.step("observer", "the observer's result is the host's")

    def compare_rounds(self) -> None:
        """The peer's round results (its optional round-end lines), first round first."""
        for line in sorted(self.peer_rounds, key=lambda x: (not isinstance(x.get("round"), int), x.get("round"))):
            n = line.get("round")
            mine = self.host_rounds.get(n) if isinstance(n, int) else None
            if mine is None:
                raise Deviation("round-end", f"the peer reports a round {n!r} the host never ended")
            for key in ("winner", "totals", "final"):
                if key in line and line[key] != mine.get(key):
                    raise Deviation("round-end", f"round {n}: the peer's {key} is {line[key]!r}, the host's "
                                                 f"{mine.get(key)!r}")
        if self.peer_rounds:
            self.step("round-end", f"the peer's {plural(len(self.peer_rounds), 'round result')} are the host's")

    def compare(self, who: str, said: dict | None, stage: str) -> None:
        host = self.host_over
        assert host is not None
        if said is None:
            raise Deviation(stage, f"{who} printed no match-over line")
        for key in COMPARED:
            if key not in said:
                raise Deviation(stage, f"{who}'s match-over line has no {key!r}")
            if said[key] != host.get(key):
                raise Deviation(stage, f"{who} reports {key} {said[key]!r}, the host {host.get(key)!r}")
        for key in OPTIONAL:
            if key in said and said[key] != host.get(key):
                raise Deviation(stage, f"{who} reports {key} {said[key]!r}, the host {host.get(key)!r}")

    def close(self) -> None:
        for p in self.peers + [x for x in (self.observer, self.host) if x is not None]:
            p.kill()


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="conformance.py",
        description="Run a real unonet host (127.0.0.1 only) and drive PEER COMMAND through a whole match and "
                    "a rejoin; report the first deviation. {host} {port} {address} {code} {home} {name} in the "
                    "command are replaced (and given as UNONET_CONFORMANCE_* in its environment; UNONET_HOME is "
                    "{home}). protocol/README.md says what the command must do.")
    p.add_argument("--players", type=int, default=3, help="seats in all: the peer's and the host's bots (2..10; "
                                                          "default 3)")
    p.add_argument("--target", type=int, default=100, help="match target (default 100: a few rounds)")
    p.add_argument("--rules", default="official", help="the host's rules preset (default official)")
    p.add_argument("--teams", action="store_true", help="a partners table (even seats against odd; --players "
                                                        "4, 6, 8 or 10)")
    p.add_argument("--bot-pace", type=float, default=0.02, help="seconds the host's bots take per answer "
                                                                 "(default 0.02)")
    p.add_argument("--hold", type=float, default=60.0, help="seconds the host holds the killed peer's seat "
                                                            "(default 60)")
    p.add_argument("--kill-at", type=int, default=8, help="kill the peer after this many acts of the match "
                                                          "(default 8)")
    p.add_argument("--no-rejoin", dest="rejoin", action="store_false", help="play one match, no kill")
    p.add_argument("--refusals", type=int, default=3, help="refused messages of the peer's tolerated as lost "
                                                           "races (default 3; 0: none)")
    p.add_argument("--timeout", type=float, default=240.0, help="seconds for the match (default 240)")
    p.add_argument("--seat-timeout", type=float, default=30.0, help="seconds for each step: seat, start, "
                                                                    "rejoin, exit (default 30)")
    p.add_argument("--start-timeout", type=float, default=30.0, help=argparse.SUPPRESS)
    p.add_argument("--observer", metavar="COMMAND", help="also run this observer command (one string, the same "
                                                         "placeholders; {home} its own): it attaches before the "
                                                         "peer and must state the host's result")
    p.add_argument("--keep", metavar="DIR", help="write the processes' output under DIR and keep it")
    p.add_argument("--json", action="store_true", help="one JSON report on stdout")
    p.add_argument("--quiet", action="store_true", help="only the last line")
    p.add_argument("command", nargs=argparse.REMAINDER, help="-- PEER COMMAND...")
    args = p.parse_args(argv)
    if args.command[:1] == ["--"]:
        args.command = args.command[1:]
    if not args.command:
        p.error("no peer command: give it after --")
    if not 2 <= args.players <= 10:
        p.error(f"--players {args.players}: a table has 2..10 seats")
    if args.teams and (args.players < 4 or args.players % 2):
        p.error(f"--teams needs 4, 6, 8 or 10 --players, not {args.players}")
    if args.target < 1 or args.kill_at < 1:
        p.error("--target and --kill-at are at least 1")
    for part in args.command:
        try:
            part.format(host="", port="", address="", code="", home="", name="")
        except (KeyError, IndexError, ValueError) as exc:
            p.error(f"peer command argument {part!r}: unknown placeholder {exc} (use {{host}} {{port}} "
                    "{address} {code} {home} {name}; {{ }} for braces)")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    logs = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="unonet-conformance-"))
    logs.mkdir(parents=True, exist_ok=True)
    kit = Kit(args, logs)
    failure: Deviation | None = None
    try:
        kit.run()
    except Deviation as exc:
        failure = exc
    except KeyboardInterrupt:
        kit.close()
        print("conformance: interrupted", file=sys.stderr)
        return 130
    finally:
        kit.close()
    report = {"t": "conformance", "ok": failure is None, "stage": failure.stage if failure else None,
              "deviation": failure.text if failure else None, "steps": kit.steps,
              "host": kit.host_over, "peer": kit.peer_over, "observer": kit.observer_over,
              "refusals": kit.notes, "logs": str(logs) if failure or args.keep else None}
    if args.json:
        print(json.dumps(report, sort_keys=True))
    elif failure is None:
        print(f"conformance: PASS: a whole match{' and a rejoin' if args.rejoin else ''}"
              f"{' beside an observer' if args.observer else ''}, the peer's result is the host's "
              f"({plural(kit.host_over.get('rounds'), 'round')}, ledger {str(kit.host_over.get('ledger'))[:16]}…)")
    else:
        print(f"conformance: FAIL at {failure.stage}: {failure.text} (logs: {logs})")
    if failure is None and not args.keep:
        shutil.rmtree(logs, ignore_errors=True)
    return 0 if failure is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
