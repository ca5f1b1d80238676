"""The full-screen client back in its seat: `unonet join` in tmux plays at a headless host
(bots in the other seats); its process is killed with SIGKILL in the middle of a round and
started again with the same identity (the same HOME): the screen says "reconnected: back in
seat 1" and shows the table and the hand again, and the player plays on."""

from __future__ import annotations

import os
import re
import signal
import uuid

import pytest

from .test_tmux import tmux, unonet_command
from .test_tmux import _tmux_server  # noqa: F401 - the module's server is killed after the tests
from .test_tmux import pytestmark as _tmux_marks
from .test_tmux_lan import free_port, wait_for
from ..net.session_helpers import first_json, unonet

pytestmark = [pytest.mark.slow, *_tmux_marks]


def _pane_pid(session: str) -> int:
    out = tmux("display-message", "-p", "-t", session, "#{pane_pid}")
    return int(out.strip())


def test_a_killed_full_screen_client_restarted_gets_its_seat_and_hand_back(tmp_path):
    run = uuid.uuid4().hex[:8]
    (tmp_path / "j").mkdir()
    host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--discovery-port",
                  str(free_port()), "--players", "3", "--bots", "1", "--hold-seats", "60", "--bot-pace", "0.1")
    port = first_json(host)["port"]
    first, second = f"rj-a-{run}", f"rj-b-{run}"
    cmd = unonet_command("join", "--name", "Jo", f"127.0.0.1:{port}", HOME=str(tmp_path / "j"),
                         UNONET_HOME=str(tmp_path / "j"), UNONET_BOT_DELAY="0")
    try:
        tmux("-f", "/dev/null", "new-session", "-d", "-s", first, "-x", "80", "-y", "24", f"exec {cmd}")
        wait_for(first, r"Your hand \(\d+ cards", 30)
        os.kill(_pane_pid(first), signal.SIGKILL)  # the client dies mid-round
        tmux("kill-session", "-t", first, check=False)
        tmux("new-session", "-d", "-s", second, "-x", "80", "-y", "24", f"exec {cmd}")
        screen = wait_for(second, r"reconnected: back in seat 1", 30)
        screen = wait_for(second, r"Your hand \([1-9]\d* cards", 15)
        assert "Traceback" not in screen
        n = int(re.search(r"Your hand \((\d+) cards", screen).group(1))
        seat_row = re.search(r">?1 Jo\s+(\d+) cards", screen)
        assert n >= 1 and seat_row and int(seat_row.group(1)) == n, screen  # the whole hand, shown again
        assert re.search(r"Top \[\S+\]", screen), screen
        assert host.poll() is None  # the table is still there, waiting for its player
    finally:
        tmux("kill-session", "-t", first, check=False)
        tmux("kill-session", "-t", second, check=False)
        host.kill()
        host.wait(timeout=10)


def _count(screen: str) -> int | None:
    """Seconds the status line's clock shows on our own turn (None: no count, or not our turn)."""
    m = re.search(r"\[(\d+):(\d\d)\] Your turn", screen)
    return int(m.group(1)) * 60 + int(m.group(2)) if m else None


def test_a_client_restarted_on_its_own_turn_counts_down_what_the_host_left_of_it(tmp_path):
    """Back on its own turn a seat has what is left of the turn (spec §5 step 6), not a whole
    clock: killed 15 s into a 40 s turn and started again, the screen counts down from about
    25 s (the host's `rejoin.turn_left`), not from 0:40 (the last session restarted a whole
    clock at every return, and a player could hold the table by coming back again and again)."""
    run = uuid.uuid4().hex[:8]
    (tmp_path / "j").mkdir()
    host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--discovery-port",
                  str(free_port()), "--players", "3", "--bots", "1", "--hold-seats", "60", "--bot-pace", "0.1",
                  "--turn-timeout", "40")
    port = first_json(host)["port"]
    first, second = f"rc-a-{run}", f"rc-b-{run}"
    cmd = unonet_command("join", "--name", "Jo", f"127.0.0.1:{port}", HOME=str(tmp_path / "j"),
                         UNONET_HOME=str(tmp_path / "j"), UNONET_BOT_DELAY="0")
    try:
        tmux("-f", "/dev/null", "new-session", "-d", "-s", first, "-x", "100", "-y", "30", f"exec {cmd}")
        screen = wait_for(first, r"\[0:(2[0-4]|1\d)\] Your turn", 60)  # 16+ s of our 40 s turn went by
        before = _count(screen)
        os.kill(_pane_pid(first), signal.SIGKILL)  # the client dies on its own turn
        tmux("kill-session", "-t", first, check=False)
        tmux("new-session", "-d", "-s", second, "-x", "100", "-y", "30", f"exec {cmd}")
        screen = wait_for(second, r"reconnected: back in seat 1", 30)
        screen = wait_for(second, r"\[\d+:\d\d\] Your turn", 15)
        after = _count(screen)
        assert "Traceback" not in screen
        # what is left (less the restart's seconds), never the whole 40 s again
        assert after is not None and 10 <= after <= before, (before, after, screen)
        said = re.search(r"your turn: (\d+) s left", screen)
        assert said and 10 <= int(said.group(1)) <= before, screen
        assert host.poll() is None
    finally:
        tmux("kill-session", "-t", first, check=False)
        tmux("kill-session", "-t", second, check=False)
        host.kill()
        host.wait(timeout=10)
