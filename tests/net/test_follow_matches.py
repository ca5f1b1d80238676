"""`join --matches N` counts the matches a seat saw at the table across a host election:
a follower whose host died in its last match leaves after it, as it would have without
the election.  (Seen in a play-test: `join --no-ui --matches 2` followed an election in its
second match and then sat on, "waiting for Hal to start the match", a third: the side that
follows the elected host started counting from nothing.)"""

from __future__ import annotations

import contextlib
import os
import signal
import time

from .session_helpers import finish, first_json, lines, reaped, unonet
from .test_election import LOOP, _free_udp_port


def _seen(proc, kind: str) -> int:
    return sum(1 for x in lines(proc.out_path.read_text()) if x.get("t") == kind)


def _wait(proc, kind: str, count: int, limit: float = 90.0) -> None:
    end = time.monotonic() + limit
    while _seen(proc, kind) < count:
        assert time.monotonic() < end and proc.poll() is None, (kind, proc.out_path.read_text()[-2000:])
        time.sleep(0.05)


def _wait_after(proc, first: str, kind: str, limit: float = 90.0) -> None:
    """Until a ``kind`` line comes after the first ``first`` line."""
    end = time.monotonic() + limit
    while True:
        kinds = [x.get("t") for x in lines(proc.out_path.read_text())]
        if first in kinds and kind in kinds[kinds.index(first) + 1:]:
            return
        assert time.monotonic() < end and proc.poll() is None, (kind, proc.out_path.read_text()[-2000:])
        time.sleep(0.05)


@contextlib.contextmanager
def stays_and_goes(host_args, stays_matches: int, goes_matches: int):
    """A CLI host (``host_args``) and two `join --bot` processes, "Stays" seated first (first in
    the succession: elected when the host dies) and then "Goes"; yields (host, stays, goes)."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()), *host_args)
    with reaped(host):
        port = first_json(host)["port"]
        stays = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Stays",
                       "--matches", str(stays_matches), f"127.0.0.1:{port}")
        with reaped(stays):
            _wait(stays, "lobby", 1)
            goes = unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", "Goes",
                          "--matches", str(goes_matches), f"127.0.0.1:{port}")
            with reaped(goes):
                yield host, stays, goes


def test_a_follower_leaves_after_its_last_match_when_the_host_died_in_it():
    # Stays is elected and hosts a third match; Goes stays for two
    with stays_and_goes(("--players", "3", "--target", "30", "--matches", "3"), 3, 2) as (host, stays, goes):
        _wait(goes, "match-over", 1)   # match 1 is over: match 2 is this seat's last
        _wait_after(goes, "match-over", "round")  # match 2 is dealt (match 1 may have had two rounds)
        os.kill(host.pid, signal.SIGKILL)
        host.wait(timeout=10)
        _wait(goes, "election", 1)
        code, out, err = finish(goes, 120)
        seen = lines(out)
        assert code == 0, err[-2000:]
        assert [x.get("t") for x in seen].count("match-over") == 2, [x.get("t") for x in seen][-20:]
        elected = next(x for x in seen if x.get("t") == "election")
        assert elected["successor_name"] == "Stays" and not elected["me"]
        assert stays.poll() is None  # (the elected table goes on to its third match without it)
