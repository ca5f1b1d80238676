"""The host lost between the match's last `round_end` and its `match_over` (spec §5 step 8):
every seat and the scorekeeper end the match on their own record - exit 0, the same
match-over line - and the scorekeeper's SQLite file holds the match finished.

Real processes on loopback: the host is `unonet host` itself, with a prelude that stops it at
that very moment (its `match_over` never sent): SIGKILLed (its sockets closed by the kernel),
or closing its table politely (`leave`, as a host quit at that moment does)."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

import pytest

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from .test_attach import _score_cli

#: the host's `match_over` never leaves: instead the process dies (its last round_end written)
#: or closes its table with its goodbye
_KILLED = r'''
import os, signal, time, unonet.net._host as H, unonet.protocol as P
_b = H.HostTable.broadcast
def b(self, msg, data=None):
    if isinstance(msg, P.MatchOver):
        self.flush(); time.sleep(0.3); os.kill(os.getpid(), signal.SIGKILL)
    return _b(self, msg, data)
H.HostTable.broadcast = b
'''
_CLOSED = r'''
import unonet.net._host as H, unonet.protocol as P
_b = H.HostTable.broadcast
def b(self, msg, data=None):
    if isinstance(msg, P.MatchOver):
        return self.close()
    return _b(self, msg, data)
H.HostTable.broadcast = b
'''


def _table_lost_at_the_end(prelude: str, db: str) -> tuple[list, tuple]:
    """A host (its own seat, a bot) and two `join --bot` processes to a 60-point target, a
    scorekeeper on ``db``; the host stopped by ``prelude`` after the final round_end.  The
    (rc, out, err) of the two joiners and the scorekeeper, then the host's."""
    host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--players", "4",
                  "--bots", "1", "--target", "60", prelude=prelude)
    with reaped(host):
        port = first_json(host)["port"]
        keeper = unonet("score", "--no-ui", "--json", "--db", db, f"127.0.0.1:{port}")
        with reaped(keeper):
            assert first_json(keeper, 20)["t"] == "attached"
            joiners = []
            for name in ("a", "b"):
                joiners.append(unonet("join", "--bot", "--no-ui", "--json", "--name", name, f"127.0.0.1:{port}"))
                time.sleep(0.3)  # (in order: the succession is the seat order)
            with reaped(*joiners):
                ends = [finish(p, 180) for p in (*joiners, keeper)]
        return ends, finish(host, 30)


@pytest.mark.parametrize("prelude", [_KILLED, _CLOSED], ids=["killed", "closed"])
def test_a_host_lost_between_the_final_round_end_and_match_over_leaves_the_match_finished(prelude):
    db = str(Path(tempfile.mkdtemp(prefix="unonet-test-end-")) / "scores.db")
    ends, _ = _table_lost_at_the_end(prelude, db)
    for rc, out, err in ends:
        assert rc == 0, (rc, out[-2000:], err)
    outs = [lines(out) for _, out, _ in ends]
    finals = [[x for x in o if x.get("t") == "round-end" and x.get("final")] for o in outs[:2]]
    assert all(len(f) == 1 for f in finals), finals  # (the final round_end came: the moment we mean)
    overs = [[x for x in o if x.get("t") == "match-over"] for o in outs]
    assert all(len(o) == 1 for o in overs), overs  # the scorekeeper too: it said the match's end
    assert overs[1][0] == overs[0][0] and overs[2][0] == overs[0][0], overs
    keeper_rounds = [x for x in outs[2] if x.get("t") == "round"]
    assert overs[2][0]["ledger"] == keeper_rounds[-1]["head"]
    # the file holds the match finished, won, and its chain checks
    hist = json.loads(_score_cli("history", "--db", db, "--json").stdout)
    (m,) = hist["matches"]
    assert m["finished"] and not m.get("abandoned") and m["winner"] == overs[0][0]["winner"], m
    v = _score_cli("verify", "--db", db)
    assert v.returncode == 0, v.stdout + v.stderr
