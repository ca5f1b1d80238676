"""Host election and migration (spec §7, unonet/net/_election.py) on loopback: the host
killed mid-match, a successor elected alike by every peer, the match finished from the
last completed round with the same match-over line everywhere."""

from __future__ import annotations

import os
import signal
import socket
import time

import pytest

from .session_helpers import finish, first_json, lines, reaped, unonet

LOOP = ("--bind", "127.0.0.1", "--port", "0")


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for(proc, pred, limit: float = 120.0) -> dict:
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for x in lines(proc.out_path.read_text()):
            if pred(x):
                return x
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"never seen in {proc.args}: {proc.out_path.read_text()[-2000:]} {proc.err_path.read_text()}")


def _kill_host_mid_match(host_args, joiners: int, *, kill_at_round: int = 2):
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()), *host_args)
    with reaped(host):
        port = first_json(host)["port"]
        joins = [unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", f"j{i}",
                        f"127.0.0.1:{port}") for i in range(joiners)]
        with reaped(*joins):
            # the host dies in round `kill_at_round`, once its first act is in
            _wait_for(joins[0], lambda x: x.get("t") == "round" and x.get("round") == kill_at_round)
            _wait_for(joins[0], lambda x: x.get("t") == "game" and x.get("g") == "act"
                      and x.get("round", kill_at_round) == kill_at_round)
            os.kill(host.pid, signal.SIGKILL)
            host.wait(timeout=10)
            results = [finish(j, 600) for j in joins]
    return results


def _over(out: str) -> dict:
    return [x for x in lines(out) if x.get("t") == "match-over"][-1]


def test_host_killed_mid_round_the_successor_finishes_the_match():
    results = _kill_host_mid_match(("--players", "4", "--bots", "1", "--target", "500"), 2)
    for code, out, err in results:
        assert code == 0, err[-3000:]
    overs = [_over(out) for _, out, _ in results]
    assert overs[0] == overs[1]
    assert overs[0]["rounds"] >= 2 and max(overs[0]["scores"]) >= 500
    elections = [[x for x in lines(out) if x.get("t") == "election"] for _, out, _ in results]
    # every peer computed the same successor; exactly one of them is it
    assert all(len(e) == 1 for e in elections)
    assert len({e[0]["successor"] for e in elections}) == 1 and sum(e[0]["me"] for e in elections) == 1
