"""Rejoin on the LAN rig (scripts/lan-rig): a player killed with SIGKILL mid-round and
restarted gets its seat and hand back (three namespaces: a host with a bot seat and two
`join --bot`; the player restarts in the namespace it died in); and the issue's "Done
when": the host killed, then a player killed and restarted under the elected host (four
namespaces).  Every match finishes with everyone agreeing.  The rig's namespaces are this
test's own (uniquely named) and deleted whatever happens."""

from __future__ import annotations

import os
from pathlib import Path

from .rig_helpers import RIG_MARKS, load_script

ROOT = Path(__file__).resolve().parents[2]

pytestmark = RIG_MARKS


def test_player_killed_mid_round_on_the_rig_rejoins_with_its_hand_and_everyone_agrees():
    bench = load_script("bench_rejoin", ROOT / "scripts" / "bench" / "rejoin.py")
    with bench.load_rig().Rig(3) as lan:
        names = list(lan.names)
        r = bench.one_run(2, lan)
    assert r["agree"], r
    assert r["rounds"] >= 1 and r["replay"] > 0
    left = os.popen("ip netns list").read()
    assert not any(n in left for n in names)


def test_host_killed_then_a_player_killed_and_restarted_on_the_rig_the_match_finishes():
    """The issue's "Done when": four namespaces; the host SIGKILLed mid-round (an election),
    then a player SIGKILLed mid-round under the elected host and restarted: it rejoins the
    elected host (two transcripts replayed) and every survivor prints one match-over line."""
    bench = load_script("bench_rejoin", ROOT / "scripts" / "bench" / "rejoin.py")
    with bench.load_rig().Rig(4) as lan:
        names = list(lan.names)
        r = bench.host_then_player(lan)
    assert r["codes"] == [0, 0, 0], r
    assert r["agree"] and r["overs"][0]["rounds"] >= 2
    assert r["hosts"] == 2 and r["replay"] > 0
    left = os.popen("ip netns list").read()
    assert not any(n in left for n in names)
