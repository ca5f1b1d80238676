"""A joiner whose own network goes for longer than an election's tries (scripts/lan-rig):
play10's Ben, whose laptop link was down 15 s, was told "host Hal is gone; Ana takes over",
then "the elected host Ana ... cannot be reached", and his client ended for good while Hal's
table lived on and held his seat.  Nobody answering, the lost host nor its successor, the
joiner tries the lost host again (`rejoin_after_outage`) and gets its seat back."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from .rig_helpers import RIG_MARKS, load_rig, load_script

ROOT = Path(__file__).resolve().parents[2]

pytestmark = RIG_MARKS

bench = load_script("bench_election", ROOT / "scripts" / "bench" / "election.py")
PY = [sys.executable, "-m", "unonet"]


@pytest.mark.parametrize("ben_seat", [1, 2])
def test_a_joiner_cut_off_longer_than_an_election_gets_its_seat_back_when_its_link_returns(ben_seat):
    """Seat 1 is next in the succession: Ben elects himself and nobody follows him; seat 2
    follows Ana, whom he cannot reach either.  Both ways he is back in his seat."""
    with load_rig().Rig(3) as lan:
        host = bench.Proc(lan.command(0, PY + ["host", "--no-ui", "--json", "--port", "0", "--players", "4",
                                               "--bots", "1", "--target", "500", "--bot-pace", "0.1"]), bench._env())
        procs = [host]
        try:
            bench._wait([host], lambda: host.first(lambda x: "port" in x) is not None, 60)
            port = host.first(lambda x: "port" in x)[1]["port"]
            def joiner(node, name):
                p = bench.Proc(lan.command(node, PY + ["join", "--no-ui", "--json", "--bot", "--bot-pace", "0.1",
                                                       "--name", name, f"{lan.addrs[0]}:{port}"]), bench._env())
                procs.append(p)
                bench._wait(procs, lambda: p.first(lambda x: x.get("t") == "joined") is not None
                            or p.proc.poll() is not None, 60)
                return p

            # the seats in the order they joined: Ben first takes seat 1
            if ben_seat == 1:
                ben, ana = joiner(2, "Ben"), joiner(1, "Ana")
            else:
                ana, ben = joiner(1, "Ana"), joiner(2, "Ben")
            procs[1:] = [ana, ben]
            # round 2 under way at Ben's: his seat has a hand and a record to come back to
            bench._wait(procs, lambda: ben.first(lambda x: x.get("t") == "round" and x.get("round", 0) >= 2)
                        is not None or ben.proc.poll() is not None, 300)
            assert ben.proc.poll() is None, (ben.dir / "err").read_text()[-2000:]
            subprocess.run(["ip", "-n", lan.names[2], "link", "set", "eth0", "down"], check=True)
            # longer than the host's silence (3 s), a try at the host and the successor's tries (8 s)
            bench._wait(procs, lambda: ben.first(lambda x: x.get("t") == "election") is not None
                        or ben.proc.poll() is not None, 30)
            time.sleep(12)
            subprocess.run(["ip", "-n", lan.names[2], "link", "set", "eth0", "up"], check=True)

            def done():
                codes = [p.proc.poll() for p in procs]
                return None not in codes or any(c not in (None, 0) for c in codes)

            bench._wait(procs, done, 900)
            err = (ben.dir / "err").read_text()[-2000:]
            assert [p.proc.returncode for p in procs] == [0, 0, 0], err
            assert ben.first(lambda x: x.get("t") == "reconnected") is not None, err
            overs = [p.first(lambda x: x.get("t") == "match-over") for p in procs]
            assert None not in overs, err
            assert overs[2][1]["ledger"] == overs[0][1]["ledger"] == overs[1][1]["ledger"]
            back = ben.first(lambda x: x.get("t") == "rejoined")
            assert back is not None and back[1]["seat"] == ben_seat, err
        finally:
            for p in procs:
                p.stop()
