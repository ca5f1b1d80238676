"""Crash safety with real processes: a recorder killed with SIGKILL at 100 random moments loses
no completed round and doubles none; two recorders fed the same rounds end with the same heads."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest

from unonet.store import MissingDatabase, ScoreStore, verify
from unonet.store.testing import feed, write_feed

from .helpers import unonet

SEED = 5
RECORDER = [sys.executable, "-m", "unonet.store.testing"]


def recorder(path, rounds):
    return subprocess.Popen([*RECORDER, str(path), str(rounds)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def held(path) -> dict[str, list[str]]:
    """Each match's recorded chain (entry hashes), checked by verify first."""
    try:
        store = ScoreStore.open(path, readonly=True)
    except MissingDatabase:
        return {}
    with store:
        report = verify(store)
        assert report.ok, report.problem
        out = {}
        for (key,) in store.conn.execute("SELECT match_key FROM matches ORDER BY id").fetchall():
            out[key.hex()] = [e.hash.hex() for e in store.ledger(key).entries]
        return out


@pytest.mark.slow
def test_a_recorder_killed_at_100_random_moments_loses_and_doubles_nothing(tmp_path):
    matches = feed(SEED, 30)  # about 1300 rounds: more than 100 short runs get through
    rounds = tmp_path / "feed.jsonl"
    write_feed(rounds, matches)
    expected = {pm.header.match.hex(): [e.hash.hex() for e in pm.entries] for pm in matches}
    order = list(expected)
    total = sum(len(v) for v in expected.values())
    path = tmp_path / "scores.db"
    rng = random.Random(20261122)
    reported: set[tuple[str, int]] = set()
    progress = []
    for kill in range(100):
        proc = recorder(path, rounds)
        try:
            if rng.random() < 0.3:  # anywhere from start-up (opening, migrating) on
                time.sleep(rng.uniform(0, 0.15))
            else:  # or once it has recorded a few rounds, a moment later
                for _ in range(rng.randint(1, 3)):
                    line = proc.stdout.readline()
                    if not line:
                        break
                    _, match, rnd = line.split()
                    reported.add((match, int(rnd)))
                time.sleep(rng.uniform(0, 0.004))
        finally:
            proc.kill()
            out, err = proc.communicate(timeout=60)
        assert proc.returncode == -9, f"kill {kill + 1}: the recorder was not running any more: {err}"
        for line in out.splitlines():
            _, match, rnd = line.split()
            reported.add((match, int(rnd)))
        now = held(path)
        where = f"after kill {kill + 1}"
        assert list(now) == order[: len(now)], where  # the matches in feed order, none skipped
        for match, hashes in now.items():
            assert hashes == expected[match][: len(hashes)], where  # a prefix: no gap, no double
        for match, rnd in reported:
            assert len(now.get(match, [])) >= rnd, f"{where}: round {rnd} of {match[:8]} was reported, is gone"
        progress.append(sum(len(h) for h in now.values()))
        assert progress == sorted(progress), where
    assert 0 < progress[-1] < total  # every kill came while rounds were still to record
    proc = recorder(path, rounds)  # the last restart runs to the end
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert held(path) == expected
    assert len(out.splitlines()) == total - progress[-1]  # it recorded exactly what was missing
    proc = unonet("score", "verify", "--db", str(path))
    assert proc.returncode == 0 and f"{len(matches)} matches, {total} rounds" in proc.stdout


def test_two_recorders_fed_the_same_rounds_end_with_the_same_heads(tmp_path):
    a, b, shared = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "shared.db"
    matches = feed(SEED, 1)
    rounds = tmp_path / "feed.jsonl"
    write_feed(rounds, matches)
    procs = [recorder(a, rounds), recorder(b, rounds), recorder(shared, rounds), recorder(shared, rounds)]
    for p in procs:
        _, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    heads = [json.loads(unonet("score", "verify", "--db", str(p), "--json").stdout) for p in (a, b, shared)]
    want = {pm.header.match.hex(): pm.head.hex() for pm in matches}
    assert all(h["ok"] and h["heads"] == want for h in heads)
    assert heads[0]["rounds"] == heads[2]["rounds"] == sum(len(pm.entries) for pm in matches)
