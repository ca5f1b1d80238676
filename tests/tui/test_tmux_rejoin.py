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
