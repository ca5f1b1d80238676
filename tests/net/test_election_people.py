"""Host election for people (spec §7): a `unonet join` reading its actions from stdin plays
on after its host (a `unonet host --no-ui` process) is SIGKILLed mid-match, as a follower
and as the elected host (its own seat still played from stdin); every survivor prints the
same match-over line.  (The full-screen client's election: tests/tui/test_tmux_election.py.)"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import threading

import pytest

from .session_helpers import finish, first_json, lines, reaped, unonet
from .test_election import LOOP, _agreed, _free_udp_port, _wait_for

#: what the stdin player types, over and over: draw, then keep what it drew.  Its engine copy
#: refuses what is not legal now (a `refused` line, nothing sent), so this plays every turn
#: honestly without reading its hand (a script that reads its `state` lines and plays its
#: cards: tests/net/test_stdin_reader.py).
DRAW_AND_KEEP = ('{"draw": true}\n', '{"pass": true}\n')

#: more than the whole classic deck is worth (1240): no first round ends the match, so the host
#: is always killed in round 2 (at 1000 a typist that kept 82 cards lost the match in round 1)
TARGET = 1250


def _typist(proc: subprocess.Popen, stop: threading.Event, every: float = 0.15) -> threading.Thread:
    """Feed ``proc``'s stdin with `DRAW_AND_KEEP` until it exits or ``stop`` is set."""

    def run() -> None:
        for _ in range(20000):  # bounded: 20000 * every s is far beyond any match here
            if stop.wait(every) or proc.poll() is not None:
                return
            try:
                for line in DRAW_AND_KEEP:
                    proc.stdin.write(line)
                proc.stdin.flush()
            except (BrokenPipeError, ValueError, OSError):
                return

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@contextlib.contextmanager
def _stdin_match(stdin_first: bool):
    """A CLI host (its own seat and one seat of bots), a stdin joiner and a `join --bot`,
    joined in the order asked (the first to join is first in the succession)."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--bots", "1", "--target", str(TARGET))
    stop = threading.Event()
    with reaped(host):
        port = first_json(host)["port"]

        def person():
            p = unonet("join", "--no-ui", "--json", "--bind", "127.0.0.1", "--name", "person", f"127.0.0.1:{port}",
                       stdin=subprocess.PIPE)
            _typist(p, stop)
            return p

        def bot():
            return unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "robot",
                          f"127.0.0.1:{port}")

        first = person() if stdin_first else bot()
        _wait_for(first, lambda x: x.get("t") == "lobby")
        second = bot() if stdin_first else person()
        person_proc = first if stdin_first else second
        try:
            with reaped(first, second):
                yield host, person_proc, [first, second]
        finally:
            stop.set()
            with contextlib.suppress(OSError):
                person_proc.stdin.close()


@pytest.mark.parametrize("stdin_first", [True, False], ids=["stdin-joiner-elected", "stdin-joiner-follows"])
def test_a_stdin_joiner_plays_on_after_the_host_is_killed(stdin_first):
    with _stdin_match(stdin_first) as (host, person, joins):
        # the host dies in round 2, once an act of that round is in
        _wait_for(person, lambda x: x.get("t") == "round" and x.get("round") == 2)
        _wait_for(person, lambda x: x.get("t") == "game" and x.get("g") == "act")
        os.kill(host.pid, signal.SIGKILL)
        host.wait(timeout=10)
        results = [finish(j, 600) for j in joins]
    over = _agreed(results)
    assert max(over["scores"]) >= TARGET and over["rounds"] >= 2
    out = lines(results[0 if stdin_first else 1][1])
    at = next(i for i, x in enumerate(out) if x.get("t") == "election")
    election = out[at]
    assert election["me"] is stdin_first and election["lost_name"] == "host"
    assert election["successor_name"] == ("person" if stdin_first else "robot")
    # the person played on from stdin after the election: actions of its own seat came after it
    # (its seat is the one it was given; as the elected host it keeps it)
    seat = next(x["me"] for x in out if x.get("t") == "lobby")
    acts = [x for x in out[at:] if x.get("t") == "game" and x.get("g") == "act"
            and (x.get("a") or {}).get("seat") == seat and (x.get("a") or {}).get("t") in ("draw", "pass")]
    assert acts, out[at:at + 40]
    if stdin_first:
        assert any(x.get("t") == "elected" for x in out[at:])
