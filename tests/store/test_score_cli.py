"""`unonet score …` run as a program on real database files: the views, export, verify catching
every kind of edit, and the attach's checks before it connects."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import sqlite3

import pytest

from unonet.ledger import MatchLedger
from unonet.store._rows import insert_round, match_row, round_rows

from .helpers import NAMES, filled, played, unonet


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("score") / "scores.db"
    return path, filled(path)


def test_verify_passes_on_an_honest_database(db):
    path, matches = db
    proc = unonet("score", "verify", "--db", str(path))
    assert proc.returncode == 0, proc.stderr
    assert f"3 matches, {sum(len(m.entries) for m in matches)} rounds (0 disputed)" in proc.stdout
    out = json.loads(unonet("score", "verify", "--db", str(path), "--json").stdout)
    assert out["ok"] and out["heads"] == {m.header.match.hex(): m.head.hex() for m in matches}


def test_verify_of_one_match_says_one_match(tmp_path):
    """play15: an evening's file with one match read "ok: scores2.db: 1 matches, 11 rounds"."""
    path = tmp_path / "one.db"
    [pm] = filled(path, kinds=("teams",))
    proc = unonet("score", "verify", "--db", str(path))
    assert proc.returncode == 0, proc.stderr
    assert f": 1 match, {len(pm.entries)} rounds (0 disputed) check" in proc.stdout, proc.stdout


def _round_id(c, match=1, rnd=3):
    return c.execute("SELECT id FROM rounds WHERE match_id = ? AND round = ?", (match, rnd)).fetchone()[0]


def _rows(c, mid):
    """A match's header and its round rows, read as the store reads them."""
    m = match_row(c, mid)
    return m.header, list(round_rows(c, m))


def _insert_after_round_2(c):
    """A correctly hashed entry slipped in as round 2, attempt 1 (what a forger can compute)."""
    header, rows = _rows(c, 1)
    ledger = MatchLedger(header, [r.entry for r in rows[:2]])
    fake = ledger.disputed(round=2, attempt=1, dealer=0, reason="inserted")
    return insert_round(c, 1, fake, "2026-01-01T00:00:00+00:00")


def _edit_and_rehash(c):
    """Round 3's dealer edited and its stored hash recomputed to match: the next row gives it away."""
    rid = _round_id(c)
    c.execute("UPDATE rounds SET dealer = (dealer + 1) % 4 WHERE id = ?", (rid,))
    entry = next(r.entry for r in _rows(c, 1)[1] if r.id == rid)
    c.execute("UPDATE rounds SET hash = ? WHERE id = ?", (entry.hash, rid))
    return _round_id(c, 1, 4)


def _append_a_round(c):
    """A correctly hashed entry added after match 2's last round, the match row left alone."""
    header, rows = _rows(c, 2)
    ledger = MatchLedger(header, [r.entry for r in rows])
    last = ledger.last
    fake = ledger.disputed(round=last.round + 1, dealer=0, reason="appended")
    return insert_round(c, 2, fake, "2026-01-01T00:00:00+00:00")


# (what is done to the file, what the one line must say; {rid} is the row the edit touched)
TAMPER = {
    "seat score edited": (lambda c: c.execute("UPDATE seat_points SET score = score + 5 WHERE round_id = ? AND seat = 1",
                                              (rid := _round_id(c),)) and rid, "rounds row {rid} (match #1, round 3, attempt 0): edited"),
    "round points edited": (lambda c: c.execute("UPDATE rounds SET points = points + 1 WHERE id = ?",
                                                (rid := _round_id(c),)) and rid, "rounds row {rid} (match #1, round 3, attempt 0): edited"),
    "team total edited": (lambda c: c.execute("UPDATE team_points SET score = score + 9 WHERE round_id = ? AND team = 0",
                                              (rid := _round_id(c, 2, 2),)) and rid, "rounds row {rid} (match #2, round 2, attempt 0): edited"),
    "hand points edited": (lambda c: c.execute("UPDATE seat_points SET hand_points = 0 WHERE round_id = ? AND seat = 0",
                                               (rid := _round_id(c, 3, 4),)) and rid, "rounds row {rid} (match #3, round 4, attempt 0): edited"),
    "edited and re-hashed": (_edit_and_rehash, "rounds row {rid} (match #1, round 4, attempt 0): does not follow"),
    "middle round deleted": (lambda c: (c.execute("DELETE FROM seat_points WHERE round_id = ?", (_round_id(c),)),
                                        c.execute("DELETE FROM rounds WHERE id = ?", (_round_id(c),)),
                                        _round_id(c, 1, 4))[2], "rounds row {rid} (match #1, round 4, attempt 0): does not follow"),
    "round inserted": (_insert_after_round_2, "rounds row {rid} (match #1, round 2, attempt 1): round 2 (attempt 1) cannot follow"),
    "round appended": (lambda c: _append_a_round(c) and 2, "match #{rid}: its head names"),
    "last round deleted": (lambda c: (rid := c.execute("SELECT max(id) FROM rounds WHERE match_id = 1").fetchone()[0],
                                      c.execute("DELETE FROM seat_points WHERE round_id = ?", (rid,)),
                                      c.execute("DELETE FROM rounds WHERE id = ?", (rid,)))[0] and 1,
                           "match #{rid}: its head names"),
    "settings edited": (lambda c: c.execute("UPDATE matches SET target = 400 WHERE id = 2") and 2,
                        "match #{rid}: its settings or seats were edited"),
    "seat swapped": (lambda c: c.execute("UPDATE match_seats SET player_id = 5 - player_id WHERE match_id = 1 "
                                         "AND seat IN (1, 2)") and 1, "match #{rid}: its settings or seats were edited"),
    "winner edited": (lambda c: c.execute("UPDATE matches SET winner = (winner + 1) % 4 WHERE id = 1") and 1,
                      "match #{rid}: its recorded winner"),
    "orphan points inserted": (lambda c: c.execute("INSERT INTO seat_points VALUES (9999, 0, 1, 1)") and 9999,
                               "seat_points: points of seat 0 for round row {rid}, which is not there"),
}


@pytest.mark.parametrize("kind", list(TAMPER))
def test_verify_names_the_first_bad_row(db, tmp_path, kind):
    path = tmp_path / "edited.db"
    shutil.copy(db[0], path)
    change, needle = TAMPER[kind]
    c = sqlite3.connect(path, isolation_level=None)
    rid = change(c)
    c.close()
    proc = unonet("score", "verify", "--db", str(path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert proc.stderr.count("\n") == 1 and needle.format(rid=rid) in proc.stderr, proc.stderr
    out = json.loads(unonet("score", "verify", "--db", str(path), "--json").stdout)
    assert out["ok"] is False and needle.format(rid=rid) in out["problem"]
    if kind != "orphan points inserted":  # the views list the match as not checking, and count it nowhere
        hist = json.loads(unonet("score", "history", "--db", str(path), "--json").stdout)["matches"]
        assert sum(bool(m["problem"]) for m in hist) == 1
        bad = next(m for m in hist if m["problem"])
        # standings say which match they leave out (naming the row, as verify does), exit 1,
        # and still stand on the matches that check
        proc = unonet("score", "standings", "--db", str(path))
        assert proc.returncode == 1 and proc.stderr.count("\n") == 1, proc.stderr
        assert f"match #{bad['id']} {bad['match'][:8]} is left out" in proc.stderr
        assert needle.format(rid=rid) in proc.stderr and all(n in proc.stdout for n in NAMES)
        out = unonet("score", "standings", "--db", str(path), "--json")
        report = json.loads(out.stdout)
        assert out.returncode == 1 and report["ok"] is False and [m["id"] for m in report["left_out"]] == [bad["id"]]
        assert {p["matches"] for p in report["players"]} == {2}


def test_standings_and_history_text_and_json(db):
    path, matches = db
    proc = unonet("score", "standings", "--db", str(path))
    assert proc.returncode == 0 and all(n in proc.stdout for n in NAMES) and proc.stderr == ""
    report = json.loads(unonet("score", "standings", "--db", str(path), "--json").stdout)
    assert report["ok"] and report["left_out"] == []
    players = report["players"]
    assert sorted(p["name"] for p in players) == sorted(NAMES)
    assert sum(p["wins"] for p in players) == 1 + 2 + 1  # both partners win the teams match
    assert players == sorted(players, key=lambda p: (-p["wins"], -p["points"], p["name"]))
    hist = unonet("score", "history", "--db", str(path))
    assert hist.returncode == 0 and hist.stdout.count("won by") == 3 and "team A (Ana & Cleo)" in hist.stdout
    js = json.loads(unonet("score", "history", "--db", str(path), "--json").stdout)["matches"]
    assert [m["head"] for m in js] == [m.head.hex() for m in matches]
    assert [m["rounds"] for m in js] == [len(m.entries) for m in matches]


def test_one_match_by_number_or_id_prefix(db):
    path, matches = db
    pm = matches[1]  # the partners match
    by_number = json.loads(unonet("score", "match", "2", "--db", str(path), "--json").stdout)["match"]
    by_id = json.loads(unonet("score", "match", pm.header.match.hex()[:6], "--db", str(path), "--json").stdout)["match"]
    assert by_number == by_id
    assert [r["hash"] for r in by_number["rounds_detail"]] == [e.hash.hex() for e in pm.entries]
    assert by_number["team_scores"] == list(pm.entries[-1].team_scores)
    text = unonet("score", "match", "2", "--db", str(path)).stdout
    assert "Team A" in text and f"ledger head {pm.head.hex()}" in text
    elim = unonet("score", "match", "3", "--db", str(path)).stdout
    assert "elimination" in elim and "won by" in elim
    for ref, needle in [("42", "no match '42'"), ("zz", "no match 'zz'")]:
        proc = unonet("score", "match", ref, "--db", str(path))
        assert proc.returncode == 2 and needle in proc.stderr and proc.stderr.count("\n") == 1


def test_export_is_csv_one_row_per_round(db):
    path, matches = db
    for number, pm in enumerate(matches, 1):
        proc = unonet("score", "export", str(number), "--db", str(path))
        assert proc.returncode == 0, proc.stderr
        rows = list(csv.DictReader(io.StringIO(proc.stdout)))
        assert len(rows) == len(pm.entries)
        last = rows[-1]
        assert [int(last[f"{n} (seat {s}) score"]) for s, n in enumerate(NAMES)] == list(pm.entries[-1].scores)
        assert [r["hash"] for r in rows] == [e.hash.hex() for e in pm.entries]
        if pm.header.teams:
            assert [int(last["team A score"]), int(last["team B score"])] == list(pm.entries[-1].team_scores)


def test_history_of_one_player(db):
    path, _ = db
    assert json.loads(unonet("score", "history", "--player", "Cleo", "--db", str(path), "--json").stdout)["matches"]
    out = json.loads(unonet("score", "history", "--player", "Zed", "--db", str(path), "--json").stdout)
    assert out == {"ok": True, "db": str(path), "matches": []}


def test_the_default_database_is_in_the_data_directory(db, tmp_path):
    path, _ = db
    env = {k: v for k, v in os.environ.items() if k not in ("UNONET_HOME", "XDG_DATA_HOME")}
    (tmp_path / "xdg" / "unonet").mkdir(parents=True)
    shutil.copy(path, tmp_path / "xdg" / "unonet" / "scores.db")
    proc = unonet("score", "verify", env={**env, "XDG_DATA_HOME": str(tmp_path / "xdg")})
    assert proc.returncode == 0 and str(tmp_path / "xdg" / "unonet" / "scores.db") in proc.stdout
    proc = unonet("score", "verify", env={**env, "XDG_DATA_HOME": str(tmp_path / "xdg"),
                                          "UNONET_HOME": str(tmp_path / "home")})
    assert proc.returncode == 2 and str(tmp_path / "home" / "scores.db") in proc.stderr
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("args", [[], ["127.0.0.1:4000"], ["kitchen-table"]])
def test_the_live_attach_refuses_before_connecting(args, tmp_path):
    """The attach (tests/store/test_attach.py) needs a terminal for its board, and a
    database it can use: both are checked, one line each, before any packet is sent (so
    these cases never look anything up, nor discover)."""
    bad = tmp_path / "scores.db"
    bad.write_bytes(b"not a database\n" * 10)
    proc = unonet("score", *args, "--db", str(bad))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "needs a terminal" in proc.stderr and "--no-ui" in proc.stderr
    proc = unonet("score", *args, "--no-ui", "--db", str(bad))
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "is not a unonet score database" in proc.stderr
    assert bad.read_bytes() == b"not a database\n" * 10


@pytest.mark.parametrize("args,needle", [
    (["match"], "takes a match"), (["standings", "x"], "takes nothing more"),
    (["export", "1", "--json"], "writes CSV"), (["verify", "--no-ui"], "for attaching"),
    (["standings", "--player", "x"], "--player goes with"), (["history", "--bogus"], "unrecognized"),
    # play8: a misspelt view was taken for a table's host name ("stopped: cannot resolve
    # 'standing': Temporary failure in name resolution", and a database made for it)
    (["standing"], "did you mean `unonet score standings`"), (["History"], "did you mean `unonet score history`"),
    (["verfiy", "--no-ui"], "did you mean `unonet score verify`"),
])
def test_bad_words_are_one_line_and_exit_2(db, args, needle):
    proc = unonet("score", *args, "--db", str(db[0]))
    assert proc.returncode == 2 and needle in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr


def test_the_readme_sample_is_what_the_script_and_the_views_give(tmp_path):
    """README.md shows `unonet score` on scripts/score_sample.py's database; the numbers must hold."""
    root = __import__("pathlib").Path(__file__).parents[2]
    script = subprocess.run([sys.executable, str(root / "scripts" / "score_sample.py"), "scores.db"],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert script.returncode == 0, script.stderr
    readme = (root / "README.md").read_text(encoding="utf-8")
    for view in ("standings", "verify"):
        proc = subprocess.run([sys.executable, "-m", "unonet", "score", view, "--db", "scores.db"], cwd=tmp_path,
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and proc.stdout in readme, proc.stdout
    proc = subprocess.run([sys.executable, "-m", "unonet", "score", "match", "1", "--db", "scores.db"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines()[3:8] == readme.split("$ unonet score match 1 --db scores.db\n")[1].splitlines()[3:8]
    assert proc.stdout.splitlines()[-2:] == readme.split("\n$ unonet score verify")[0].splitlines()[-2:]


def test_a_flip_match_killed_at_its_start_reads_plainly(tmp_path):
    """evening18: a Flip match whose table (and scorekeeper) was killed before its first round
    ended read "0 rounds  in play" in history for ever, and `match 1` a table heading over nothing
    and "to the target (500): Ana 500" - as if Ana had 500 points."""
    from unonet.store import ScoreStore

    path = tmp_path / "scores.db"
    killed, closed = played(seed=7, preset="flip"), played(seed=8, preset="flip")
    with ScoreStore.open(path) as store:
        store.begin_match(killed.header, killed.names)   # the scorekeeper died with its table
        store.begin_match(closed.header, closed.names)   # the scorekeeper saw the table close
        assert store.abandon_match(closed.header.match)
    hist = unonet("score", "history", "--db", str(path))
    assert hist.returncode == 0, hist.stderr
    first, _, second, _ = hist.stdout.splitlines()
    assert "flip, 4 seats, to 500  no round scored  not finished" in first, hist.stdout
    assert "flip, 4 seats, to 500  no round scored  abandoned" in second, hist.stdout
    assert "in play" not in hist.stdout and "0 rounds" not in hist.stdout
    one = unonet("score", "match", "1", "--db", str(path))
    assert one.returncode == 0, one.stderr
    assert "Round" not in one.stdout and "no round was scored" in one.stdout, one.stdout
    assert "points still to score to reach 500: Ana 500, Ben 500, Cleo 500, Dev 500" in one.stdout, one.stdout


def test_the_live_board_of_a_match_with_no_round_scored_says_so_as_history_does(tmp_path):
    """evening19: the scorekeeper's full-screen board read "0 rounds" over a match just begun
    (and over one killed at its start), where `score history` read "no round scored"."""
    from unonet.store import ScoreStore
    from unonet.store._board import board

    path = tmp_path / "scores.db"
    begun = played(seed=7, preset="flip")
    with ScoreStore.open(path) as store:
        store.begin_match(begun.header, begun.names)
        title = board(store).lines(100)[0]
    assert title.endswith("flip, to 500  no round scored") and "0 rounds" not in title, title
    hist = unonet("score", "history", "--db", str(path))
    assert "to 500  no round scored  not finished" in hist.stdout, hist.stdout
