"""End to end: the full-screen `unonet join` in tmux through a host election (spec §7).  The
host is a `unonet host --no-ui` process (SIGKILLed in round 2, on the client's turn); a
`unonet join --bot` process is the third seat.  The client joined first, so it is elected:
its screen says "you host the table now", it deals the round again and the person at the
keyboard (this test, reading the screen) plays its seat to the end of the match, whose
ledger head on the client's standings is the one the bot joiner prints."""

from __future__ import annotations

import os
import re
import signal
import time
import uuid

import pytest

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port, _wait_for
from .test_tmux import capture, exited, log_text, move_for, send_move, settle, start, tmux, unonet_command, wait_change
from .test_tmux import _tmux_server  # noqa: F401 - the module's server is killed after the tests
from .test_tmux import pytestmark as _tmux_marks

pytestmark = [pytest.mark.slow, *_tmux_marks]


def _header(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


def test_the_client_in_tmux_takes_the_table_over_when_the_host_is_killed(tmp_path):
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "3", "--target", "250", "--name", "Hal")
    session = f"el-join-{uuid.uuid4().hex[:8]}"
    procs = []
    with reaped(host):
        port = first_json(host)["port"]
        (tmp_path / "j").mkdir()
        start(session, 80, 24, unonet_command("join", "--name", "Jo", "--bind", "127.0.0.1", f"127.0.0.1:{port}",
                                              HOME=str(tmp_path / "j"), UNONET_BOT_DELAY="0"))
        try:
            screen = wait_change(session, "", 10)
            end = time.monotonic() + 10
            while not re.search(r"\bJo\b.*you", screen) and time.monotonic() < end:
                screen = wait_change(session, screen, 0.5)
            assert re.search(r"\bJo\b.*you", screen), screen
            procs.append(unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Robo",
                                f"127.0.0.1:{port}"))
            with reaped(*procs):
                bot = procs[0]
                killed, said, readied = False, "", set()
                deadline = time.monotonic() + 300
                while time.monotonic() < deadline:
                    screen = capture(session)
                    if "Match over:" in screen:
                        break
                    over = re.search(r"Round (\d+) over: ", screen)
                    if over and over.group(1) not in readied:  # read the result, then Enter
                        readied.add(over.group(1))
                        tmux("send-keys", "-t", session, "Enter")
                        wait_change(session, screen, 2.0)
                        continue
                    keys = move_for(screen)
                    if keys is None:
                        wait_change(session, screen, 0.5)
                        continue
                    if not killed and "round 2" in _header(screen):
                        os.kill(host.pid, signal.SIGKILL)  # mid-round, on our turn
                        host.wait(timeout=10)
                        killed = True
                        end = time.monotonic() + 20
                        while "you host the table now" not in log_text(screen) and time.monotonic() < end:
                            screen = wait_change(session, screen, 0.5)
                        said = screen
                        # play resumes: round 2 dealt again, our hand on the screen
                        end = time.monotonic() + 30
                        while not ("round 2" in _header(screen) and move_for(screen) is not None) \
                                and time.monotonic() < end:
                            screen = wait_change(session, screen, 0.5)
                        continue
                    send_move(session, keys)
                    after = settle(session, screen, 2.0)
                    assert "You don't hold" not in after and "doesn't fit" not in after, after
                    assert "TABLE PROBLEM" not in after and "CHEATING" not in after, after
                else:
                    pytest.fail(f"no match over on the client; screen:\n{capture(session)}")
                assert killed, "the match ended before round 2"
                assert "lost the link to the host Hal: you host the table now" in log_text(said), said
                code, out, err = finish(bot, 60)
            assert code == 0, err[-2000:]
            over = [x for x in lines(out) if x.get("t") == "match-over"][-1]
            election = [x for x in lines(out) if x.get("t") == "election"]
            assert len(election) == 1 and election[0]["successor_name"] == "Jo"
            assert f"Ledger {over['ledger'][:16]}" in screen
            # q leaves at once after the match; the standings stay on the terminal with the ledger
            tmux("send-keys", "-t", session, "q")
            end = time.monotonic() + 10
            while not exited(session) and time.monotonic() < end:
                time.sleep(0.05)
            left = tmux("capture-pane", "-p", "-S", "-", "-t", session)
            assert f"ledger {over['ledger']}" in left, left
            assert "Traceback" not in left and "TABLE PROBLEM" not in left, left
        finally:
            tmux("kill-session", "-t", session, check=False)
