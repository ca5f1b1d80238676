"""An observer built from protocol/spec.md alone (tests/protocol/spec_observer.py, no `unonet`
import) follows a real host's match in the conformance kit, rejoin included, and its own
match ledger is the host's: what a second implementation needs of §4-§7 is in the spec."""

from __future__ import annotations

import ast
import json
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

pytest.importorskip("noise.connection")

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OBSERVER = HERE / "spec_observer.py"


def test_the_spec_observer_imports_nothing_of_ours():
    tree = ast.parse(OBSERVER.read_text())
    names = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module}
    assert "unonet" not in names and "tests" not in names, names


@pytest.mark.parametrize("table", [
    # `classic` is an alias of the `official` preset: the ledger header hashes the roster's
    # `rules`, which must be the preset's own name (`match-start`'s `rules.preset`), or a
    # peer reading either could not know which to hash (spec §7 `ledger`)
    ("--rules", "classic", "--players", "3"),
    # partners: team totals in the ledger and in round_end, a team's win
    pytest.param(("--teams", "--players", "4"), marks=pytest.mark.slow),
])
def test_an_observer_from_the_spec_alone_keeps_the_hosts_ledger(table):
    observer = f"{shlex.quote(sys.executable)} {shlex.quote(str(OBSERVER))} {{host}} {{port}} {{code}}"
    peer = [sys.executable, "-m", "unonet", "join", "--bot", "--no-ui", "--json", "--code", "{code}", "{address}"]
    logs = tempfile.mkdtemp(prefix="unonet-test-spec-observer-")
    try:
        proc = subprocess.run([sys.executable, str(ROOT / "protocol" / "conformance.py"), "--json", "--keep", logs,
                               *table, "--target", "150",
                               "--observer", observer, "--", *peer],
                              cwd=ROOT, capture_output=True, text=True, timeout=300)
        report = json.loads(proc.stdout.strip().splitlines()[-1])
        assert proc.returncode == 0 and report["ok"], (report, (Path(logs) / "observer.out").read_text())
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    host, observer_over = report["host"], report["observer"]
    assert observer_over is not None
    for key in ("winner", "scores", "rounds", "ledger", "match", "table"):
        assert observer_over[key] == host[key], key


def test_the_spec_observer_leaves_away_seats_out_of_the_match_id():
    """A fresh match that starts with a seat away (match-start `away`, spec §6.1.1): the
    observer written from the spec alone computes the host's match id from the other seats'
    nonces, and the away seat's late `match-join` (its player back) changes nothing."""
    import importlib.util

    from tests.adversaries.test_fresh_away import AWAY, _fresh
    from unonet.table import TableSeat

    spec = importlib.util.spec_from_file_location("spec_observer", OBSERVER)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    t, ids = _fresh("spec-observer-away")
    t.seats = [s for s in t.seats if s.seat != AWAY]
    t.start_match()
    follower = mod.Follower(bytes(16))
    follower.roster_rules = t.host.match.start.rules["preset"]
    follower.on_genesis = lambda head: None
    for e in t.host.events:
        follower.event(0, e.EV, e.canonical().encode("ascii"))
    assert follower.match_id == t.host.match.match_id is not None
    back = TableSeat(AWAY, ids[AWAY], ids[0].public)
    back.recovering = True
    for e in t.host.events:
        back.receive(e)
    back.recovering = False
    t.seats.append(back)
    t.pump()
    late = [e for e in t.host.events if e.EV == "match-join" and e.seat == AWAY]
    assert late
    follower.event(0, "match-join", late[0].canonical().encode("ascii"))
    assert follower.match_id == t.host.match.match_id
