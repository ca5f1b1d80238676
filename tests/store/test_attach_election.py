"""The scorekeeper follows the table through a host election (spec §7): the host (a real
`unonet host` process) is killed with SIGKILL mid-match; the players elect a successor and
play on; the attached scorekeeper follows it as an observer, reports its ledger head and
hands its ledger over (checked by the new host), records every completed round once, and
ends with the players' very match-over line.  Real processes, loopback sockets, a real
SQLite file."""

from __future__ import annotations

import json
import os
import signal
import time

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from ..net.test_election import LOOP, _free_udp_port, _wait_for
from .test_attach import _attached, _db, _overs, _rounds, _score_cli


def test_the_scorekeeper_follows_the_table_to_its_elected_host_and_agrees_with_the_players():
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()),
                  "--players", "4", "--target", "500")
    with reaped(host):
        port = first_json(host)["port"]
        db = _db()
        keeper = unonet("score", "--db", db, "--no-ui", "--json", f"127.0.0.1:{port}")
        with reaped(keeper):
            _attached(keeper)
            joins = []
            for i in range(3):  # in order: the first joiner is the first in the succession
                joins.append(unonet("join", "--no-ui", "--json", "--bot", "--bind", "127.0.0.1", "--name", f"j{i}",
                                    f"127.0.0.1:{port}"))
                time.sleep(0.3)
            with reaped(*joins):
                _wait_for(joins[0], lambda x: x.get("t") == "round" and x.get("round") == 2)
                _wait_for(joins[0], lambda x: x.get("t") == "game" and x.get("g") == "act")
                os.kill(host.pid, signal.SIGKILL)
                host.wait(timeout=10)
                results = [finish(j, 300) for j in joins]
                kcode, kout, kerr = finish(keeper, 60)
                heir_out = results[0][1]
    for code, out, err in results:
        assert code == 0, err[-2000:]
    player = _overs(lines(results[1][1]))[0]
    assert kcode == 0, kerr[-3000:]
    got = lines(kout)
    assert [x for x in got if x["t"] == "election"], "the scorekeeper saw the host go and followed"
    rounds = _rounds(got)
    assert [r["round"] for r in rounds] == list(range(1, player["rounds"] + 1))  # every round, once
    assert all(r["status"] == "verified" for r in rounds)
    assert _overs(got) == [player]            # the players' very line: its ledger equals theirs
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["rounds"] == player["rounds"]
    # the new host checked the scorekeeper's report and the ledger it handed over
    handed = [x for x in lines(heir_out) if x.get("t") == "observer"]
    assert handed and "agrees" in handed[0]["text"], lines(heir_out)[-5:]
    # the new host checked the scorekeeper's report and the ledger it handed over
