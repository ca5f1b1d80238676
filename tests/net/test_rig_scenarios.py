"""The LAN rig scenarios of issue 13 (scripts/lan-rig; figures: scripts/bench/rig.py):
discovery across the bridge, a whole bot match across four namespaces, and the same with
10 % loss and 20 ms delay on every link (the rig's own lossy switch: these machines have no
tc netem).  Each test makes and deletes its own uniquely named namespaces."""

from __future__ import annotations

import json
import os
from pathlib import Path

from .rig_helpers import RIG_MARKS, load_rig, load_script

ROOT = Path(__file__).resolve().parents[2]

pytestmark = RIG_MARKS

bench = load_script("bench_rig", ROOT / "scripts" / "bench" / "rig.py")


def _no_leftovers(names) -> None:
    left = os.popen("ip netns list").read()
    assert not any(n in left for n in names), left


def test_a_table_in_one_namespace_is_discovered_from_another_across_the_bridge():
    d = bench.discovery(8)
    assert len(d["lib"]) == 8 and all(x == x for x in d["lib"]), d  # every call found the table
    assert all(x == x for x in d["cli"]), d                         # and `unonet list --json` listed it


def test_four_namespaces_play_a_whole_bot_match_and_agree():
    r = bench.match(200, None)
    assert r["ok"], json.dumps(r, indent=1)  # (in full: pytest cuts a long dict's repr, and its "err")
    assert r["rounds"] >= 1 and r["codes"] == [0, 0, 0, 0]


def test_under_ten_percent_loss_and_20ms_delay_on_every_link_the_match_completes():
    r = bench.match(150, "delay 20ms loss 10%")
    assert r["ok"], json.dumps(r, indent=1)
    assert r["rounds"] >= 1


def test_the_lossy_switch_drops_and_delays_what_it_forwards_and_leaves_nothing_behind():
    """The rig's impairment is real: about 10 % of frames are lost each way and each crossing
    takes 20 ms (a UDP echo across it), and its namespaces are gone afterwards."""
    import sys
    import time

    rig = load_rig()
    echo = ("import socket\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.bind(('',9999))\n"
            "while True:\n d,a=s.recvfrom(100); s.sendto(d,a)")
    probe = ("import socket,sys,time\ns=socket.socket(socket.AF_INET,socket.SOCK_DGRAM);s.settimeout(0.3)\n"
             "ok=[]\nfor i in range(200):\n t=time.monotonic();s.sendto(b'x',(sys.argv[1],9999))\n"
             " try:\n  s.recvfrom(100);ok.append(time.monotonic()-t)\n except socket.timeout: pass\n"
             "ok.sort();print(len(ok), ok[len(ok)//2])")
    with rig.Rig(2, impair="delay 20ms loss 10%") as lan:
        names = list(lan.names)
        srv = lan.popen(1, [sys.executable, "-c", echo])
        try:
            time.sleep(0.3)
            out = lan.run(0, [sys.executable, "-c", probe, lan.addrs[1]], capture_output=True, text=True, timeout=120)
        finally:
            srv.kill()
            srv.wait()
    n, rtt = out.stdout.split()
    assert 130 <= int(n) <= 190, out.stdout  # 0.9 * 0.9 of 200 = 162 expected
    assert 0.039 <= float(rtt) <= 0.08, out.stdout
    _no_leftovers(names)
