"""`unonet score …` on a real read-only filesystem and a real full one (issue 23 item 7).

Each case mounts its filesystem in a private mount namespace (`unshare -m`, so nothing is
seen outside it) — a read-only bind mount of a directory holding a real database, or a tiny
tmpfs filled to the last byte — runs the program there (`sys.executable -m unonet`), lists
what is left beside the database, and unmounts whatever happens (the namespace's end would
too).  Before the fix the views said `cannot open the database for writing` on a read-only
medium, `cannot rollback - no transaction is active` on a full one, and left a 3-byte `-shm`
and an empty `-wal` there."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from unonet.store import ScoreStore

from .helpers import filled, played, record

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or not shutil.which("unshare") or not shutil.which("mount")
    or os.geteuid() != 0, reason="a mount namespace of its own needs Linux, root, unshare and mount")

# runs inside the namespace: mount, run each command, list the mount point, unmount
DRIVER = r"""
import json, os, subprocess, sys
spec = json.loads(sys.argv[1])
out = {"runs": []}
mounted = []
try:
    for cmd in spec["mount"]:
        subprocess.run(cmd, check=True, capture_output=True, text=True)
        mounted.append(cmd[-1])
    for cmd in spec["before"]:
        subprocess.run(cmd, check=True, capture_output=True)
    for args in spec["runs"]:
        p = subprocess.run([sys.executable, "-m", "unonet", *args], capture_output=True, text=True, timeout=120)
        out["runs"].append({"args": args, "rc": p.returncode, "out": p.stdout, "err": p.stderr,
                            "left": sorted(os.listdir(spec["dir"]))})
finally:
    for where in reversed(mounted):
        subprocess.run(["umount", where], capture_output=True)
print(json.dumps(out))
"""


def _in_mount_namespace(tmp_path, *, mount, runs, before=(), dir_):
    spec = {"mount": mount, "before": list(before), "runs": runs, "dir": str(dir_)}
    p = subprocess.run(["unshare", "-m", sys.executable, "-c", DRIVER, json.dumps(spec)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert not os.path.ismount(dir_)  # unmounted (and never seen outside the namespace)
    return json.loads(p.stdout)["runs"]


def _read_only(src, at):
    """A read-only bind mount of ``src`` at ``at``."""
    at.mkdir()
    return [["mount", "--bind", str(src), str(at)], ["mount", "-o", "remount,bind,ro", str(at)]]


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    path = tmp_path_factory.mktemp("good") / "scores.db"
    filled(path)
    return path


def _one_line(run, *needles):
    assert run["rc"] == 2, run
    assert run["out"] == "" and len(run["err"].splitlines()) == 1, run
    for needle in needles:
        assert needle in run["err"], run


def test_the_views_read_a_database_on_a_read_only_filesystem(good, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(good, src / "scores.db")
    ro = tmp_path / "ro"
    db = str(ro / "scores.db")
    runs = _in_mount_namespace(tmp_path, mount=_read_only(src, ro), dir_=ro, runs=[
        ["score", "verify", "--db", db],
        ["score", "standings", "--db", db, "--json"],
        ["score", "match", "2", "--db", db],
        ["score", "--no-ui", "--db", db, "127.0.0.1:1"],
    ])
    verify, standings, match, attach = runs
    assert verify["rc"] == 0 and "3 matches, 43 rounds" in verify["out"], verify
    assert standings["rc"] == 0 and json.loads(standings["out"])["ok"], standings
    assert match["rc"] == 0 and "won by" in match["out"], match
    _one_line(attach, db, "is on a read-only filesystem: the scorekeeper cannot record there")
    assert "refused" not in attach["err"]  # refused before connecting to the table
    assert all(r["left"] == ["scores.db"] for r in runs)


def test_a_crashed_writers_rounds_in_its_wal_are_read_on_a_read_only_filesystem(tmp_path):
    """A scorekeeper that died with its last rounds in ``-wal`` (not yet checkpointed), the
    three files carried on a read-only medium: the views read those rounds too.  Without the
    ``-shm`` SQLite cannot read the ``-wal`` there: one line says so and what to do."""
    src, bare = tmp_path / "src", tmp_path / "bare"
    src.mkdir()
    bare.mkdir()
    store = ScoreStore.open(tmp_path / "scores.db")
    store.conn.execute("PRAGMA wal_autocheckpoint = 0")  # the rounds stay in -wal
    pm = played("standard", 1)
    record(store, pm)
    for name in ("scores.db", "scores.db-wal", "scores.db-shm"):
        shutil.copy(tmp_path / name, src / name)  # as a crash leaves them
    for name in ("scores.db", "scores.db-wal"):
        shutil.copy(tmp_path / name, bare / name)
    store.close()
    assert (src / "scores.db-wal").stat().st_size > 0
    ro, ro_bare = tmp_path / "ro", tmp_path / "ro-bare"
    runs = _in_mount_namespace(tmp_path, mount=_read_only(src, ro) + _read_only(bare, ro_bare), dir_=ro, runs=[
        ["score", "verify", "--db", str(ro / "scores.db")],
        ["score", "verify", "--db", str(ro_bare / "scores.db")],
    ])
    whole, no_shm = runs
    assert whole["rc"] == 0 and f"1 match, {len(pm.entries)} rounds" in whole["out"], whole
    assert whole["left"] == ["scores.db", "scores.db-shm", "scores.db-wal"]
    _one_line(no_shm, "read-only filesystem with rounds still in scores.db-wal but no scores.db-shm",
              "copy scores.db and scores.db-wal to a writable place")


def test_a_full_disk_is_said_and_nothing_is_left_beside_the_database(good, tmp_path):
    full = tmp_path / "full"
    full.mkdir()
    size = good.stat().st_size + 48 * 1024
    db = str(full / "scores.db")
    runs = _in_mount_namespace(
        tmp_path, dir_=full,
        mount=[["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(full)]],
        before=[["cp", str(good), db],
                ["sh", "-c", f"dd if=/dev/zero of={full}/filler bs=4096 2>/dev/null; true"]],
        runs=[["score", "verify", "--db", db],
              ["score", "history", "--db", db, "--json"],
              ["score", "--no-ui", "--db", db, "127.0.0.1:1"]])
    verify, history, attach = runs
    _one_line(verify, db, "the disk holding it is full", "free some space")
    assert history["rc"] == 2 and "the disk holding it is full" in json.loads(history["out"])["error"]
    _one_line(attach, db, "the disk holding it is full")
    assert all(r["left"] == ["filler", "scores.db"] for r in runs), runs  # no 3-byte -shm, no empty -wal
