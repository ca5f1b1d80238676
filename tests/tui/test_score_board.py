"""End to end: `unonet score HOST:PORT` in a real terminal (tmux): the table and its seats from
the lobby on, then the live standings of a loopback bot match, redrawn as rounds are recorded,
printed again after ``q``."""

from __future__ import annotations

import re
import shutil
import tempfile
import time
from pathlib import Path

import pytest

from ..net.session_helpers import finish, first_json, reaped, unonet
from .test_tmux import _tmux_server, start, tmux, unonet_command  # noqa: F401 - its server fixture

pytestmark = [
    pytest.mark.tmux,
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (CI installs it)"),
]


def _wait_screen(session: str, pattern: str, limit: float) -> str:
    deadline = time.monotonic() + limit
    screen = ""
    while time.monotonic() < deadline:
        screen = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", session)
        if re.search(pattern, screen):
            return screen
        time.sleep(0.1)
    raise AssertionError(f"{pattern!r} never appeared; the screen:\n{screen}")


def test_the_board_follows_a_bot_match_to_its_winner():
    d = Path(tempfile.mkdtemp(prefix="unonet-test-board-"))
    session = f"board-{d.name[-8:]}"
    host = unonet("host", "--no-ui", "--json", "--players", "3", "--bots", "1", "--target", "100",
                  "--port", "0", "--bind", "127.0.0.1", "--discovery-port", "0")
    with reaped(host):
        port = first_json(host)["port"]
        start(session, 90, 30, unonet_command("score", "--db", str(d / "s.db"), f"127.0.0.1:{port}",
                                              UNONET_HOME=str(d)))
        try:
            # attached while the table gathers players: the table, its host and the seats taken
            screen = _wait_screen(session, r"gathering players \(2 of 3 seats taken\)", 20)
            assert "table host's table, hosted by host" in screen and "waiting for the first deal" in screen, screen
            joiner = unonet("join", "--no-ui", "--json", "--bot", f"127.0.0.1:{port}")
            with reaped(joiner):
                code, out, err = finish(joiner, 180)
                assert code == 0, err
            ledger = [x for x in out.splitlines() if '"match-over"' in x][0]
            head = re.search(r'"ledger": "([0-9a-f]{64})"', ledger).group(1)
            screen = _wait_screen(session, r"the table closed after 1 match", 30)
            assert "wins the match" in screen and f"ledger head {head}" in screen, screen
            assert "the match is over" in screen and re.search(r"^ +(> )?\d +host ", screen, re.M), screen
            # a live table numbers a round's first deal 1: the board shows plain round numbers
            assert "match won" in screen and " to go" in screen and not re.search(r"\s0 to go", screen), screen
            assert re.search(r"round \d+: ", screen) and not re.search(r"round \d+\.\d", screen), screen
            tmux("send-keys", "-t", session, "q")
            after = _wait_screen(session, r"unonet score: the table closed", 10)
            assert "Traceback" not in after
            assert re.search(r"\d+ rounds? recorded \(0 disputed\)", after), after
        finally:
            tmux("kill-session", "-t", session, check=False)


def test_a_table_that_is_not_there_is_said_whole_and_nothing_gathers():
    """The play7 evening: `unonet score` with no table to attach to showed "no match yet: the
    table is gathering players" and "waiting for the first deal" over a status line cut at the
    screen's edge ("... where broadcast is b").  Nothing gathers; the reason wraps, whole."""
    import socket

    with socket.socket() as s:  # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    d = Path(tempfile.mkdtemp(prefix="unonet-test-board-"))
    session = f"board-{d.name[-8:]}"
    start(session, 60, 20, unonet_command("score", "--db", str(d / "s.db"), f"127.0.0.1:{port}",
                                          UNONET_HOME=str(d)))
    try:
        screen = _wait_screen(session, r"\(q: quit\)\s*$", 20)
        screen = _wait_screen(session, r"stopped: ", 20)
        lines = tmux("capture-pane", "-p", "-t", session).rstrip("\n").splitlines()
        said = " ".join(line.strip() for line in lines[-3:])
        assert f"stopped: connection refused by 127.0.0.1:{port} (is a table open there?) (q: quit)" in said, lines
        assert "gathering players" not in screen and "first deal" not in screen, screen
        tmux("send-keys", "-t", session, "q")
        after = _wait_screen(session, r"unonet score: connection refused", 10)
        assert "Traceback" not in after
    finally:
        tmux("kill-session", "-t", session, check=False)
