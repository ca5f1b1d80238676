"""Issue 12's "Done when", as a test: in a private network namespace (`unshare -n`, so no
beacon leaves it), `unonet host` and two plain `unonet join` (no address: they find the
table by its beacons), each the real full-screen client in a tmux server of its own, play
a whole match by reading their screens (scripts/lan_match.py; the manual run uses the
default target 500, this test 150 to stay within a few minutes)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = [pytest.mark.slow, pytest.mark.tmux]


def test_host_and_two_joiners_play_a_whole_match_in_a_namespace(tmp_path):
    for tool in ("tmux", "unshare", "nsenter", "ip"):
        assert shutil.which(tool), f"{tool} is needed (.ci/run installs it)"
    assert os.geteuid() == 0, "unshare -n needs root (or CAP_SYS_ADMIN)"
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "lan_match.py"), "--target", "150",
                           "--timeout", "400", "--log", str(tmp_path / "screens")],
                          capture_output=True, text=True, timeout=600)
    report = json.loads(proc.stdout)
    assert proc.returncode == 0, report.get("error", proc.stderr)
    assert report["exits"] == {"Hal": "0", "Jo1": "0", "Jo2": "0"}
    # every screen shows the same final standings and ledger head, the winner over the target
    finals = report["final"]
    assert len({json.dumps(f["standings"], sort_keys=True) for f in finals.values()}) == 1
    assert len({f["ledger"] for f in finals.values()}) == 1
    totals = finals["Hal"]["standings"]
    assert set(totals) == {"Hal", "Jo1", "Jo2"} and max(totals.values()) >= 150
    winner = max(totals, key=totals.get)
    for who, final in finals.items():  # the winner reads "you win", everyone else "<winner> wins"
        assert final["line"] == ("you win" if who == winner else f"{winner} wins"), (who, final)
    # each round's result as each player read it: one winner, one number of points
    assert len(report["rounds"]) >= 1
    for i, lines in enumerate(report["rounds"], 1):
        assert set(lines) == {"Hal", "Jo1", "Jo2"}, (i, lines)
        points = {re.search(r"scores? (\d+) points", x).group(1) for x in lines.values()}
        assert len(points) == 1, (i, lines)
    assert sum(int(re.search(r"scores? (\d+) points", r["Hal"]).group(1)) for r in report["rounds"]) \
        == sum(totals.values())
    # the joiners' lobbies named the table as the host named it (found by beacon)
    assert all("Hal's table" in report["lobby"][n] for n in ("Jo1", "Jo2"))
    assert all(report["moves"][n] > 0 for n in ("Hal", "Jo1", "Jo2"))
    assert report["noticed"] == [], [(n["who"], n["what"]) for n in report["noticed"]]
