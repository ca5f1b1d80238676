"""Ctrl-C at a headless seat and a headless host: a person who presses it means to leave.
The seat says goodbye (the `leave` the full-screen client's quit sends), so the host stands
a bot in at once instead of holding the seat for --hold-seats; each process ends with its
own line and exit 130.  The ^C is the test's: its processes start as at a terminal
(`at_a_terminal`), a background runner's ignored SIGINT not inherited."""

from __future__ import annotations

import signal
import subprocess
import time

import pytest

from .session_helpers import at_a_terminal, finish, first_json, lines, reaped, unonet
from .test_election import LOOP


def _wait_for(proc: subprocess.Popen, seen, limit: float = 30.0, path: str = "out_path") -> str:
    """The process's output once ``seen(text)`` holds (bounded by ``limit`` s)."""
    deadline = time.monotonic() + limit
    while True:
        text = getattr(proc, path).read_text()
        if seen(text):
            return text
        assert time.monotonic() < deadline and proc.poll() is None, (text[-2000:], proc.err_path.read_text()[-2000:])
        time.sleep(0.05)


def _host_lines(host: subprocess.Popen) -> list[dict]:
    return lines(host.out_path.read_text())


@pytest.mark.parametrize("fmt", [(), ("--json",)], ids=["words", "json"])
def test_ctrl_c_at_a_typed_seat_says_goodbye_and_the_host_does_not_hold_the_seat(fmt):
    """Seen: ^C at `join --no-ui` mid-match ended with "unonet: interrupted" and the host read
    "Jo (seat 1): peer ... closed the link": the seat was held for --hold-seats (60 s) and the
    table waited on it."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--players", "2")
    with reaped(host):
        port = first_json(host)["port"]
        person = unonet("join", "--no-ui", *fmt, "--bind", "127.0.0.1", "--name", "Jo", f"127.0.0.1:{port}",
                        stdin=subprocess.PIPE, preexec_fn=at_a_terminal)
        with reaped(person):
            _wait_for(person, (lambda t: '"t": "state"' in t) if fmt else (lambda t: "--- round 1: " in t))
            person.send_signal(signal.SIGINT)
            code, out, err = finish(person, 30)
            _wait_for(host, lambda t: any(x["t"] == "left" for x in lines(t)))
            left = [x for x in _host_lines(host) if x["t"] == "left"]
    assert code == 130, err
    assert err.strip().splitlines()[-1] == \
        "unonet join: interrupted: left the table; the host was told (it does not hold the seat)", err
    assert "Traceback" not in err
    assert left[0]["text"] == "Jo (seat 1): left (the player left)", left
    assert not any("held" in x["text"] or "closed the link" in x["text"] for x in left), left


def test_a_second_ctrl_c_on_the_host_says_it_stopped_before_the_table_closed():
    """Seen: ^C ^C at `host --no-ui` while the table was closing (a joiner that read nothing:
    the close waits for it) ended with the generic "unonet: interrupted", not the host's own word."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--players", "4", preexec_fn=at_a_terminal)
    with reaped(host):
        port = first_json(host)["port"]
        stuck, live = (unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", n,
                              f"127.0.0.1:{port}") for n in ("Sid", "Liv"))
        with reaped(stuck, live):
            _wait_for(host, lambda t: sum(x["t"] == "joined" for x in lines(t)) == 2)
            stuck.send_signal(signal.SIGSTOP)  # reads nothing: the close waits for it (CLOSE_GRACE)
            try:
                host.send_signal(signal.SIGINT)
                finish(live, 30)  # told the table is closing: the first ^C was taken
                host.send_signal(signal.SIGINT)
                code, _, err = finish(host, 30)
            finally:
                stuck.send_signal(signal.SIGCONT)
    assert code == 130, err
    assert err.strip().splitlines()[-1] == ("unonet host: interrupted again: stopped at once, before the table "
                                            "had closed: a player may not have been told it closed"), err
    assert "Traceback" not in err
