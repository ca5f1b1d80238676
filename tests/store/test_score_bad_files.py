"""`unonet score …` views given files that are not a usable score database: one line naming
the file and what is wrong with it, exit 2, the file left as it was; never a traceback.

The named cases run the program (`sys.executable -m unonet`); the fuzz (a real database cut
short at many offsets, or with bits flipped) calls the same `main` in this process, since
hundreds of interpreter starts would take minutes."""

from __future__ import annotations

import json
import os
import random
import sqlite3

import pytest

from unonet.cli import main
from unonet.store import APPLICATION_ID

from .helpers import filled, unonet


@pytest.fixture(scope="module")
def good(tmp_path_factory) -> bytes:
    """The bytes of a real database holding three whole matches."""
    path = tmp_path_factory.mktemp("good") / "scores.db"
    filled(path)
    return path.read_bytes()


def _sqlite(path, *statements):
    conn = sqlite3.connect(path, isolation_level=None)
    for s in statements:
        conn.execute(s)
    conn.close()


def _copy_then(*statements):
    def make(path, good):
        path.write_bytes(good)
        _sqlite(path, *statements)
    return make


# how the file is made, and what its one line must say
BAD = {
    "missing": (lambda p, good: None, "no score database there"),
    "a directory": (lambda p, good: p.mkdir(), "is a directory"),
    "a pipe": (lambda p, good: os.mkfifo(p), "not a regular file"),
    "empty": (lambda p, good: p.write_bytes(b""), "holds no score database yet"),
    "text": (lambda p, good: p.write_text("standings\nAna 500\n"), "not an SQLite file at all"),
    "another program's": (lambda p, good: _sqlite(p, "CREATE TABLE notes (body TEXT)"), "of another program"),
    "cut short": (lambda p, good: p.write_bytes(good[:5000]), "the database is corrupted"),
    "newer": (lambda p, good: _sqlite(p, f"PRAGMA application_id = {APPLICATION_ID}", "PRAGMA user_version = 99",
                                      "CREATE TABLE future (x)"), "written by a newer unonet (schema version 99"),
    "a column gone": (_copy_then("ALTER TABLE matches DROP COLUMN finished"),
                      "table matches lacks column finished"),
    "a table gone": (_copy_then("DROP TABLE team_points"), "table team_points is missing"),
}


@pytest.mark.parametrize("kind", BAD)
def test_a_bad_file_is_one_line_naming_it(kind, good, tmp_path):
    make, needle = BAD[kind]
    path = tmp_path / "scores.db"
    make(path, good)
    before = sorted(os.listdir(tmp_path))
    text = unonet("score", "verify", "--db", str(path))
    assert text.returncode == 2, (text.stdout, text.stderr)
    assert text.stdout == "" and len(text.stderr.splitlines()) == 1, text.stderr
    assert text.stderr.startswith(f"unonet score: {path}: ") and needle in text.stderr, text.stderr
    as_json = unonet("score", "history", "--db", str(path), "--json")
    assert as_json.returncode == 2 and as_json.stderr == "", as_json.stderr
    out = json.loads(as_json.stdout)
    assert out["ok"] is False and out["error"].startswith(f"{path}: ") and needle in out["error"]
    assert sorted(os.listdir(tmp_path)) == before  # no -wal, -shm or journal left, nothing made


def test_an_empty_db_option_is_refused_not_the_default_database(tmp_path):
    proc = unonet("score", "standings", "--db", "", env={**os.environ, "UNONET_HOME": str(tmp_path)})
    assert proc.returncode == 2 and proc.stderr.strip() == "unonet: --db must name a database file, not ''"
    assert os.listdir(tmp_path) == []


def _damaged(good: bytes) -> list[tuple[str, bytes]]:
    """The database cut at every 2 KiB and at 30 seeded offsets, and 50 copies with a few
    seeded bits flipped each."""
    rng = random.Random(23)
    cuts = sorted({*range(0, len(good), 2048), *(rng.randrange(len(good)) for _ in range(30))})
    out = [(f"cut at {n}", good[:n]) for n in cuts]
    for i in range(50):
        b = bytearray(good)
        for _ in range(1 + i % 8):
            b[rng.randrange(100, len(b))] ^= 1 << rng.randrange(8)  # past the magic: that case is named above
        out.append((f"flips #{i}", bytes(b)))
    return out


VIEWS = (["verify"], ["standings", "--json"], ["history"], ["match", "1"], ["export", "2"])


def test_a_damaged_database_never_gives_a_traceback(good, tmp_path, capsys):
    path = tmp_path / "scores.db"
    refused = 0
    for what, data in _damaged(good):
        path.write_bytes(data)
        for view in VIEWS:
            rc = main(["score", *view, "--db", str(path)])  # an exception here fails the test
            out, err = capsys.readouterr()
            lines = err.splitlines()
            where = (what, view, rc, err)
            assert rc in (0, 1, 2), where
            if rc == 0:
                assert err == "", where
            elif rc == 2:
                refused += 1
                if "--json" in view:
                    assert err == "" and json.loads(out)["ok"] is False, where
                else:
                    assert len(lines) == 1 and lines[0].startswith(f"unonet score: {path}: "), where
            else:  # a row that does not check: lines on stderr naming the file, or `match` saying so in its title
                if lines:
                    assert all(line.startswith("unonet score") and str(path) in line for line in lines), where
                else:
                    assert "does not check" in out, where
        assert sorted(os.listdir(tmp_path)) == ["scores.db"], what
    assert refused > 100  # the damage was seen, not read past
