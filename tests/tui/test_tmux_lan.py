"""End to end over the LAN: `unonet host` and `unonet join`, two real full-screen clients in
tmux, each `sys.executable -m unonet ...` in a session of its own on a tmux server of our own;
the host binds 127.0.0.1 (its beacons stay on loopback) and every process has a HOME of its
own (fresh keys, an empty trust store)."""

from __future__ import annotations

import re
import socket
import time
import uuid

import pytest

from .test_tmux import SOCKET, capture, move_for, play_one_round, send_move, settle, tmux, unonet_command, wait_change
from .test_tmux import _tmux_server  # noqa: F401 - the module's server is killed after the tests
from .test_tmux import pytestmark as _tmux_marks

pytestmark = [pytest.mark.slow, *_tmux_marks]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(session: str, pattern: str, timeout: float = 10.0) -> str:
    end = time.monotonic() + timeout
    screen = capture(session)
    while time.monotonic() < end:
        if re.search(pattern, screen):
            return screen
        screen = wait_change(session, screen, 0.3)
    pytest.fail(f"{pattern!r} never showed in {session}; screen:\n{screen}")


def gone(session: str, timeout: float = 8.0) -> bool:
    import subprocess

    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if subprocess.run(["tmux", "-L", SOCKET, "has-session", "-t", session], capture_output=True).returncode:
            return True
        time.sleep(0.05)
    return False


def open_host(tmp_path, tag: str):
    """`unonet host` (3 seats, bound to loopback) in a tmux session of its own; returns
    (host session, joiner session name, port, the join code read off the host's lobby, its screen)."""
    port = free_port()
    run = uuid.uuid4().hex[:8]
    host, join = f"{tag}-host-{run}", f"{tag}-join-{run}"
    (tmp_path / "h").mkdir()
    (tmp_path / "j").mkdir()
    tmux("-f", "/dev/null", "new-session", "-d", "-s", host, "-x", "80", "-y", "24",
         unonet_command("host", "--bind", "127.0.0.1", "--port", str(port), "--players", "3",
                        "--name", "Hal", "--discovery-port", str(free_port()),
                        HOME=str(tmp_path / "h"), UNONET_BOT_DELAY="0"))
    screen = wait_for(host, r"Join code\s+\S+")
    return host, join, port, re.search(r"Join code\s+(\S+)", screen).group(1), screen


def open_joiner(tmp_path, join: str, port: int, code: str) -> str:
    """`unonet join --code CODE 127.0.0.1:PORT` as Jo in a tmux session; its lobby screen."""
    tmux("new-session", "-d", "-s", join, "-x", "80", "-y", "24",
         unonet_command("join", "--name", "Jo", "--code", code, f"127.0.0.1:{port}",
                        HOME=str(tmp_path / "j"), UNONET_BOT_DELAY="0"))
    return wait_for(join, r"1\s+Jo\s+\S+\s+you")


def test_host_and_joiner_meet_in_the_lobby_then_the_host_plays_round_one(tmp_path):
    host, join, port, code, screen = open_host(tmp_path, "lan")
    try:
        assert f"players type: unonet join --code {code} 127.0.0.1:{port}" in screen
        assert re.search(r"0\s+Hal\s+\S{4}-\S{4}-\S{4}-\S{4}-\S{4}\s+you", screen)
        assert "S (or Enter): start the match now" in screen
        hal_key = re.search(r"0\s+Hal\s+(\S+)", screen).group(1)
        assert hal_key.startswith(code)  # the join code is the start of the host's key

        # a wrong code: one line, non-zero exit, the host's lobby unchanged
        bad = ("0000-0000-00" if not code.startswith("0000") else "ZZZZ-ZZZZ-ZZ")
        tmux("new-session", "-d", "-s", f"{join}-bad", "-x", "80", "-y", "24",
             unonet_command("join", "--name", "Eve", "--code", bad, f"127.0.0.1:{port}",
                            HOME=str(tmp_path / "j")) + "; echo EXIT=$?; sleep 20")
        bad_screen = wait_for(f"{join}-bad", r"EXIT=\d+")
        assert "EXIT=1" in bad_screen and "Traceback" not in bad_screen
        assert re.search(r"unonet join: .*join code", bad_screen), bad_screen
        tmux("kill-session", "-t", f"{join}-bad", check=False)

        jscreen = open_joiner(tmp_path, join, port, code)
        assert f"Join code   {code}" in jscreen and "Waiting for the host to start the match" in jscreen
        assert re.search(rf"0\s+Hal\s+{re.escape(hal_key)}", jscreen)  # the same key on both screens
        jo_key = re.search(r"1\s+Jo\s+(\S+)", jscreen).group(1)
        screen = wait_for(host, r"1\s+Jo\s+" + re.escape(jo_key))
        assert "Seats (2 of 3 taken, 2 players)" in screen and "2    (empty)" in screen

        # the joiner cannot start the match; q leaves the lobby at once (exit 0)
        tmux("send-keys", "-t", join, "s")
        wait_for(join, "The host starts the match; q leaves the table.")
        tmux("send-keys", "-t", join, "q")
        assert gone(join), capture(join)
        screen = wait_for(host, r"1\s+Jo\s+.*gone|Seats \(1 of 3 taken")

        # the host starts (the empty seat gets a bot) and plays round 1 by reading its screen
        tmux("send-keys", "-t", host, "s")
        screen = wait_for(host, r"Your hand \(\d+ cards")
        assert "round 1" in screen.splitlines()[0]
        screen, typed, _sides = play_one_round(host, timeout=60)
        assert len(typed) >= 2 and "Hal" in screen
    finally:
        tmux("kill-session", "-t", join, check=False)
        tmux("kill-session", "-t", host, check=False)


def test_two_real_clients_play_a_round_by_reading_their_screens(tmp_path):
    """The host (its own seat) and a joiner, each the full-screen client in tmux, play round 1
    of a 3-seat table (a bot in the third seat) by reading their own screens; the joiner's screen
    comes from its seat's own engine copy.  Both see the same result."""
    host, join, port, code, _screen = open_host(tmp_path, "lan2")
    try:
        open_joiner(tmp_path, join, port, code)
        wait_for(host, r"1\s+Jo\s+")
        tmux("send-keys", "-t", host, "s")
        wait_for(host, r"Your hand \(\d+ cards")
        wait_for(join, r"Your hand \(\d+ cards")
        done: dict[str, str] = {}
        typed = {host: 0, join: 0}
        deadline = time.monotonic() + 90
        while len(done) < 2 and time.monotonic() < deadline:
            for session in (host, join):
                if session in done:
                    continue
                screen = capture(session)
                if re.search(r"Round 1 over: ", screen):
                    done[session] = screen
                    continue
                keys = move_for(screen)
                if keys is None:
                    continue
                send_move(session, keys)
                typed[session] += 1
                after = settle(session, screen, 2.0)
                assert "You don't hold" not in after and "doesn't fit" not in after, after
                assert "TABLE PROBLEM" not in after and "CHEATING" not in after, after
            time.sleep(0.05)
        assert len(done) == 2, f"no result on both screens:\n{capture(host)}\n{capture(join)}"
        assert typed[host] >= 1 and typed[join] >= 1, typed
        # the same result line on both screens (names as each sees them: "you" for oneself)
        head = {s: re.search(r"Round 1 over: .*", done[s]).group(0) for s in done}
        points = {s: re.search(r"scores? (\d+) points", head[s]).group(1) for s in head}
        assert points[host] == points[join], head
    finally:
        tmux("kill-session", "-t", join, check=False)
        tmux("kill-session", "-t", host, check=False)
