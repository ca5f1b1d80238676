"""The host killed with SIGKILL in the middle of a round, on the LAN rig (scripts/lan-rig):
four network namespaces, a host and three `join --bot`; the match finishes and every
survivor prints the same match-over line.  The rig's namespaces are this test's own
(uniquely named) and deleted whatever happens."""

from __future__ import annotations

import os
from pathlib import Path

from .rig_helpers import RIG_MARKS, load_script

ROOT = Path(__file__).resolve().parents[2]

pytestmark = RIG_MARKS


def test_host_killed_mid_round_on_the_rig_the_match_finishes_and_survivors_agree():
    bench = load_script("bench_election", ROOT / "scripts" / "bench" / "election.py")
    rig = bench.load_rig()  # scripts/lan-rig
    with rig.Rig(4) as lan:
        names = list(lan.names)
        r = bench.one_run("kill", lan)
    assert r["codes"] == [0, 0, 0]
    assert r["overs"][0] == r["overs"][1] == r["overs"][2] and r["overs"][0]["rounds"] >= 2
    # every survivor computed the same successor, exactly one of them is it
    firsts = [e[0] for e in r["elections"]]
    assert len({e["successor"] for e in firsts}) == 1 and sum(e["me"] for e in firsts) == 1
    # the rig deleted its namespaces
    left = os.popen("ip netns list").read()
    assert not any(n in left for n in names)
