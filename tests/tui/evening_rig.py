"""The evening suite's table on the LAN rig: namespaces (scripts/lan-rig), a tmux server of
its own, and in them real `unonet` processes (`sys.executable -m unonet`, each with its own
UNONET_HOME) - full-screen clients in tmux played by reading their screens, scorekeepers as
`score --no-ui --json` processes.  `Evening` records what every screen showed at each
round's result and match's end, and checks as it goes that the screens agree.  Everything it
started (tmux server, processes, namespaces) is removed on exit, whatever happened."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from ..net.rig_helpers import load_rig
from .test_tmux import move_for

rig = load_rig()

#: what must never show on a screen of an honest table
TROUBLE = ("TABLE PROBLEM", "CHEAT", "FAIR-PLAY", "Traceback", "You don't hold", "doesn't fit",
           "is not a colour", "is not a card", "cannot be signed", "The table has stopped")
#: a row of the seats panel: the turn mark, the seat, the name (a host's bot: "Ana (bot)")
NAME_ROW = re.compile(r"^([> ])(\d+) (\S+(?: \(bot\))?)")
TIMER = re.compile(r"\[\d+:\d\d\]")


def seats_panel(screen: str) -> tuple[dict[int, str], int | None]:
    """({seat: name}, the seat marked to play) from the seats panel of a play screen."""
    lines = screen.splitlines()
    if len(lines) < 3 or not lines[1].startswith(" Seats ("):
        return {}, None
    names, turn = {}, None
    for line in lines[2:]:
        left = line.split("|")[0]
        if left.startswith("---"):
            break
        m = re.match(NAME_ROW, left)
        if m:
            names[int(m.group(2))] = m.group(3)
            if m.group(1) == ">":
                turn = int(m.group(2))
    return names, turn


def standings(screen: str) -> dict[int, tuple[str, int]]:
    """{seat: (name, match total)} from a result screen's standings table."""
    rows = re.findall(r"^\s*\*?\d+(?:st|nd|rd|th)\s+(\d+)\s+(\S+(?: \(bot\))?)\s+\d+\s+(\d+)\s", screen, re.M)
    return {int(seat): (name, int(total)) for seat, name, total in rows}


def header_round(screen: str) -> int | None:
    m = re.search(r"\bround (\d+)\b", screen.splitlines()[0]) if screen else None
    return int(m.group(1)) if m else None


def match_over(screen: str) -> tuple[str, str] | None:
    """(the result line, the ledger prefix) once a screen shows the match over."""
    m = re.search(r"Match over: (.*?)\. Ledger ([0-9a-f]+)", screen)
    return (m.group(1), m.group(2)) if m else None


def descendants(pid: int) -> list[int]:
    """Every process below ``pid`` (by its /proc parent links)."""
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        kids.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


@dataclass
class Screen:
    """One full-screen client: its tmux session, node, key store and what it showed."""
    who: str
    session: str
    node: int
    status: Path
    readied: set = field(default_factory=set)        # (match, round) results Enter was pressed after
    results: dict = field(default_factory=dict)      # (match, round) -> standings at that result
    overs: dict = field(default_factory=dict)        # match -> (result line, ledger prefix, standings)
    acted: str = ""                                  # the screen (less its clock) we last typed on
    acted_at: float = 0.0


class Evening:
    """A rig of ``nodes`` namespaces, a tmux server, the clients and scorekeepers started in them."""

    def __init__(self, tmp_path: Path, nodes: int) -> None:
        self.dir = tmp_path
        self.lan = rig.Rig(nodes)
        self.socket = f"unonet-evening-{uuid.uuid4().hex[:10]}"
        self.screens: dict[str, Screen] = {}
        self.procs: list[subprocess.Popen] = []
        self.match = 1                    # the match being played (for the records)
        self.names: dict[int, str] = {}   # the seats' names every screen must show
        self.seat_of: dict[str, int] = {}  # whose screen plays which seat
        self.turn_checks = 0              # moments when every screen showed one state and agreed whose turn
        self.checked_rounds: set = set()
        self._runs = 0

    # -- set-up and clean-up -------------------------------------------------------------------
    def __enter__(self) -> "Evening":
        self.lan.__enter__()
        try:
            self.tmux("-f", "/dev/null", "new-session", "-d", "-s", "idle", "sleep 3600")
        except BaseException:
            self.lan.down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        try:
            for s in self.screens.values():
                self._save(s)
            pids = []
            for line in self.tmux("list-panes", "-a", "-F", "#{pane_pid}", check=False).split():
                pids += [int(line), *descendants(int(line))]
            self.tmux("kill-server", check=False)
            for p in self.procs:
                if p.poll() is None:
                    p.kill()
                p.wait(timeout=10)
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        finally:
            self.lan.down()

    def tmux(self, *args: str, check: bool = True) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)
        if check and proc.returncode:
            pytest.fail(f"tmux {' '.join(args[:3])}: {proc.stderr.strip()}")
        return proc.stdout

    def home(self, who: str) -> Path:
        path = self.dir / who.lower()
        path.mkdir(exist_ok=True)
        return path

    def _argv(self, who: str, argv: tuple[str, ...]) -> list[str]:
        return ["env", f"UNONET_HOME={self.home(who)}", "UNONET_BOT_DELAY=0", sys.executable, "-m", "unonet", *argv]

    # -- full-screen clients ---------------------------------------------------------------------
    def client(self, who: str, node: int, *argv: str) -> Screen:
        """``unonet ARGV`` full-screen in tmux in namespace ``node`` (the same ``who`` again:
        the same key store, a new session - a restart)."""
        self._runs += 1
        session = f"{who.lower()}-{self._runs}"
        status = self.dir / f"{session}.status"
        # the exit status, written by a shell around the client (tmux may not reap a pane's process)
        cmd = self.lan.command(node, ["sh", "-c", '"$@"; echo $? > "$0"', str(status), *self._argv(who, argv)])
        self.tmux("new-session", "-d", "-s", session, "-x", "100", "-y", "32", shlex.join(cmd),
                  ";", "set-option", "-t", session, "remain-on-exit", "on")
        old = self.screens.get(who)
        self.screens[who] = s = Screen(who, session, node, status)
        if old is not None:
            s.results, s.overs, s.readied = old.results, old.overs, old.readied
        return s

    def screen(self, who: str) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.screens[who].session)

    def scrollback(self, who: str) -> str:
        return self.tmux("capture-pane", "-p", "-S", "-", "-t", self.screens[who].session, check=False)

    def dead(self, who: str) -> bool:
        return self.tmux("display-message", "-p", "-t", self.screens[who].session,
                         "#{pane_dead}", check=False).strip() == "1"

    def keys(self, who: str, keys: str) -> None:
        session = self.screens[who].session
        if keys in ("Enter", " "):
            self.tmux("send-keys", "-t", session, "Enter" if keys == "Enter" else "Space")
            return
        self.tmux("send-keys", "-t", session, "-l", keys)
        if len(keys) > 1:
            self.tmux("send-keys", "-t", session, "Enter")

    def pid(self, who: str) -> int:
        """The client's own process (python -m unonet) under its pane."""
        pane = int(self.tmux("display-message", "-p", "-t", self.screens[who].session, "#{pane_pid}").strip())
        for pid in [pane, *descendants(pane)]:
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    argv = f.read().split(b"\0")
            except OSError:
                continue
            if b"unonet" in argv and b"-m" in argv and argv[0] != b"sh":
                return pid
        pytest.fail(f"no unonet process under {who}'s pane")

    def kill(self, who: str) -> None:
        """SIGKILL the client (a laptop that dies); its pane is left to show what it was."""
        os.kill(self.pid(who), signal.SIGKILL)
        self.exit_code(who, 15)

    def exit_code(self, who: str, timeout: float = 30) -> str:
        """The client's exit status as its shell wrote it ('running' if it never ended)."""
        path, end = self.screens[who].status, time.monotonic() + timeout
        while time.monotonic() < end:
            if path.exists() and path.read_text().strip():
                return path.read_text().strip()
            time.sleep(0.1)
        return "running"

    def wait_for(self, who: str, pattern: str, timeout: float = 60) -> str:
        end = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < end:
            screen = self.screen(who)
            self.clean(who, screen)
            if re.search(pattern, screen):
                return screen
            if self.dead(who):
                break
            time.sleep(0.1)
        pytest.fail(f"{pattern!r} never showed on {who}'s screen; its terminal:\n{self.scrollback(who)}")

    def _save(self, s: Screen) -> None:
        (self.dir / f"last-{s.session}.txt").write_text(
            self.tmux("capture-pane", "-p", "-S", "-300", "-t", s.session, check=False))

    # -- scorekeepers ------------------------------------------------------------------------------
    def scorekeeper(self, who: str, node: int, *argv: str) -> subprocess.Popen:
        """`unonet score --no-ui --json` in namespace ``node``; its lines go to ``<who>.jsonl``."""
        out = open(self.dir / f"{who.lower()}.jsonl", "a")
        err = open(self.dir / f"{who.lower()}.err", "a")
        p = self.lan.popen(node, self._argv(who, ("score", "--no-ui", "--json", *argv)), stdout=out, stderr=err)
        out.close()
        err.close()
        self.procs.append(p)
        return p

    def score_lines(self, who: str) -> list[dict]:
        path = self.dir / f"{who.lower()}.jsonl"
        text = path.read_text() if path.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def score_err(self, who: str) -> str:
        path = self.dir / f"{who.lower()}.err"
        return path.read_text()[-3000:] if path.exists() else ""

    def score_view(self, who: str, *view: str) -> subprocess.CompletedProcess:
        """`unonet score VIEW --json` on ``who``'s database (no network: the machine's namespace)."""
        return subprocess.run(self._argv(who, ("score", *view, "--json")), capture_output=True, text=True,
                              timeout=60)

    def wait_score(self, who: str, pred, timeout: float = 60, what: str = "") -> list[dict]:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            got = self.score_lines(who)
            if pred(got):
                return got
            time.sleep(0.2)
        pytest.fail(f"scorekeeper {who}: {what} never came; its lines: {self.score_lines(who)[-6:]}; "
                    f"stderr: {self.score_err(who)}")

    # -- playing and checking -----------------------------------------------------------------------
    def clean(self, who: str, screen: str) -> None:
        for bad in TROUBLE:
            if bad in screen:
                pytest.fail(f"an honest table, and {who}'s screen shows {bad!r}; its terminal:\n{self.scrollback(who)}")

    def play(self, players: list[str], until, timeout: float, what: str, keep_on: bool = True) -> dict[str, str]:
        """Play every seat in ``players`` by reading its screen (Enter after each round's result)
        until ``until(screens)``; after each round, every screen is checked."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            screens = {}
            for who in players:
                screen = self.screen(who)
                if self.dead(who):
                    pytest.fail(f"{who}'s client exited while {what}; its terminal:\n{self.scrollback(who)}")
                self.clean(who, screen)
                screens[who] = screen
                self._note(who, screen, players)
            self._check_turns(screens)
            if until(screens):
                return screens
            for who, screen in screens.items():
                self._act(who, screen)
            time.sleep(0.1)
        pytest.fail(f"timed out ({timeout:g} s) while {what}; screens:\n"
                    + "\n".join(f"--- {w}\n{self.screen(w)}" for w in players))

    def _act(self, who: str, screen: str) -> None:
        s = self.screens[who]
        still = TIMER.sub("", screen)
        if still == s.acted and time.monotonic() - s.acted_at < 6:
            return  # what we typed has not shown yet
        r = re.search(r"Round (\d+) over: ", screen)
        keys = None
        if r and "Enter: deal the next round" in screen:
            key = (self.match, int(r.group(1)))
            if key not in s.readied:
                s.readied.add(key)
                keys = "Enter"
        elif not r:
            keys = move_for(screen)
        if keys is not None:
            self.keys(who, keys)
            s.acted, s.acted_at = still, time.monotonic()
            self._settle(who, screen)

    def _settle(self, who: str, before: str, timeout: float = 3.0) -> None:
        """Wait for the screen to change after typing and then to stay still a moment (a
        half-typed move must not be read as a screen still asking for one)."""
        end = time.monotonic() + timeout
        now = before
        while time.monotonic() < end and TIMER.sub("", now) == TIMER.sub("", before):
            time.sleep(0.03)
            now = self.screen(who)
        while time.monotonic() < end:
            time.sleep(0.1)
            again = self.screen(who)
            if again == now:
                return
            now = again

    def _note(self, who: str, screen: str, players: list[str]) -> None:
        s = self.screens[who]
        r = re.search(r"Round (\d+) over: ", screen)
        if r:
            key = (self.match, int(r.group(1)))
            table = standings(screen)
            if table and key not in s.results:
                s.results[key] = table
                self._check_round(key, players)
        over = match_over(screen)
        if over and self.match not in s.overs:
            s.overs[self.match] = (*over, standings(screen))

    def _check_round(self, key, players: list[str]) -> None:
        """Once every screen showed a round's result: the same seats, names and totals."""
        if key in self.checked_rounds or not all(key in self.screens[w].results for w in players):
            return
        self.checked_rounds.add(key)
        tables = {w: self.screens[w].results[key] for w in players}
        first = next(iter(tables.values()))
        assert all(t == first for t in tables.values()), f"match {key[0]} round {key[1]}: the screens disagree: {tables}"
        if self.names:
            assert {seat: name for seat, (name, _) in first.items()} == self.names, \
                f"match {key[0]} round {key[1]}: the seats' names changed: {first} (expected {self.names})"

    def _check_turns(self, screens: dict[str, str]) -> None:
        """When every screen shows one moment of a round (the same round, top card, piles and
        hand sizes), they agree whose turn it is, and only that seat's screen says 'Your turn'."""
        moments, turns = set(), set()
        for who, screen in screens.items():
            seats, turn = seats_panel(screen)
            if turn is None or re.search(r"Round \d+ over", screen):
                return
            left = [line.split("|")[0] for line in screen.splitlines()[2:12]]
            moments.add((header_round(screen), tuple(re.findall(r"\d+ cards?|Top \[\S+\]|Draw pile \d+\s+discard \d+",
                                                                "\n".join(left)))))
            turns.add(turn)
        if len(moments) != 1:
            return
        assert len(turns) == 1, "the screens disagree whose turn it is:\n" + "\n".join(screens.values())
        turn = turns.pop()
        for who, screen in screens.items():
            seats, _ = seats_panel(screen)
            if self.names:
                assert seats == self.names, f"{who}'s seats panel shows {seats}, expected {self.names}:\n{screen}"
            mine = "Your turn" in [line for line in screen.splitlines() if line.strip()][-1]
            if who in self.seat_of and mine:
                assert self.seat_of[who] == turn, f"{who}'s screen says 'Your turn' on seat {turn}'s turn:\n{screen}"
        self.turn_checks += 1

    def results_of(self, match: int, who: str) -> dict[int, dict]:
        """{round: standings} as ``who``'s screen showed them in ``match``."""
        return {r: t for (m, r), t in self.screens[who].results.items() if m == match}
