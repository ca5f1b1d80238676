"""A dealer-only host's full-screen client through two matches (play14): Max hosts with
`--dealer-only`, Jo and Lee play in full-screen clients of their own until the match is over
and stay on its final screen (people read it).  Max's screen offers the next match (it said
"Q to quit." only, and Enter answered "The match is over: Q to quit."), its lobby starts it,
and Max watches match 2 (the screen stayed in the lobby: "The match is starting: waiting for
every player to join it.")."""

from __future__ import annotations

import re
import time
import uuid

import pytest

from .test_tmux import capture, move_for, send_move, tmux, unonet_command
from .test_tmux import _tmux_server  # noqa: F401 - the module's server is killed after the tests
from .test_tmux import pytestmark as _tmux_marks
from .test_tmux_lan import free_port, wait_for

pytestmark = [pytest.mark.slow, *_tmux_marks]


def test_a_dealer_only_host_offers_the_next_match_and_watches_it(tmp_path):
    run = uuid.uuid4().hex[:8]
    port = free_port()
    host, players = f"do-max-{run}", {f"do-jo-{run}": "Jo", f"do-lee-{run}": "Lee"}
    for who in ("max", "Jo", "Lee"):
        (tmp_path / who).mkdir()
    try:
        tmux("-f", "/dev/null", "new-session", "-d", "-s", host, "-x", "80", "-y", "24",
             unonet_command("host", "--dealer-only", "--bind", "127.0.0.1", "--port", str(port), "--players", "2",
                            "--target", "60", "--name", "Max", "--discovery-port", str(free_port()),
                            HOME=str(tmp_path / "max"), UNONET_HOME=str(tmp_path / "max"), UNONET_BOT_DELAY="0"))
        code = re.search(r"Join code\s+(\S+)", wait_for(host, r"Join code\s+\S+", 20)).group(1)
        for session, name in players.items():
            tmux("new-session", "-d", "-s", session, "-x", "80", "-y", "24",
                 unonet_command("join", "--name", name, "--code", code, f"127.0.0.1:{port}",
                                HOME=str(tmp_path / name), UNONET_HOME=str(tmp_path / name)))
        wait_for(host, r"Every seat is taken", 20)
        tmux("send-keys", "-t", host, "s")
        over: set[str] = set()
        seen: dict[str, str] = {}
        deadline = time.monotonic() + 240
        while len(over) < 2 and time.monotonic() < deadline:
            for session in players:
                screen = capture(session)
                assert "Traceback" not in screen and "TABLE PROBLEM" not in screen, screen
                if "Match over" in screen:
                    over.add(session)
                    continue
                if screen == seen.get(session):
                    continue
                if "Enter: deal the next round" in screen:
                    tmux("send-keys", "-t", session, "Enter")
                elif (keys := move_for(screen)) is not None:
                    send_move(session, keys)
                else:
                    continue
                seen[session] = screen
            time.sleep(0.1)
        assert len(over) == 2, {s: capture(s) for s in players}
        # the players stay on the final screen; the host's offers the next match
        screen = wait_for(host, r"Match over: \S+ wins\. Enter: the next match\.", 20)
        tmux("send-keys", "-t", host, "Enter")
        wait_for(host, r"Every seat is taken\. S \(or Enter\): start the match\.", 20)
        tmux("send-keys", "-t", host, "s")
        screen = wait_for(host, r"Watching \(you hold no seat\)", 30)
        assert "round 1" in screen.splitlines()[0], screen
    finally:
        for session in (host, *players):
            tmux("kill-session", "-t", session, check=False)
