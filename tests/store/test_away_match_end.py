"""A scorekeeper killed in one match and started again on the same SQLite file in a later
match of the same table: the first match went on to its end without it.  It used to stay
"in play" in the file for ever (history, standings' Playing, a silent verify); it is now
marked incomplete - from which round on the scorekeeper was away, and why - in every view.

Real processes on loopback: `unonet host --matches N`, a `join --bot`, `unonet score` twice."""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path

from ..net.session_helpers import finish, first_json, lines, reaped, unonet
from .test_attach import _score_cli


def _wait(proc, pred, limit: float = 120.0) -> list[dict]:
    """``proc``'s JSON lines once ``pred`` holds for them (bounded)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        got = lines(proc.out_path.read_text())
        if pred(got):
            return got
        assert proc.poll() is None or pred(lines(proc.out_path.read_text())), proc.err_path.read_text()[-2000:]
        time.sleep(0.05)
    raise AssertionError(f"{proc.args}: not reached in {limit} s")


def test_a_match_that_ended_while_the_scorekeeper_was_away_is_incomplete_not_in_play():
    db = str(Path(tempfile.mkdtemp(prefix="unonet-test-away-")) / "scores.db")
    host = unonet("host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0", "--players", "3", "--bots", "1",
                  "--target", "150", "--matches", "3", "--bot-pace", "0.03", "--turn-timeout", "5")
    with reaped(host):
        port = first_json(host)["port"]
        first = unonet("score", "--no-ui", "--json", "--db", db, f"127.0.0.1:{port}")
        with reaped(first):
            assert first_json(first, 20)["t"] == "attached"
            join = unonet("join", "--bot", "--no-ui", "--json", "--matches", "3", "--name", "a", f"127.0.0.1:{port}")
            with reaped(join):
                kept = _wait(first, lambda got: any(x["t"] == "round" for x in got))
                first.kill()
                first.wait(10)
                kept = [x for x in lines(first.out_path.read_text()) if x["t"] == "round"]
                assert not any(x["t"] == "match-over" for x in lines(first.out_path.read_text()))
                # match 1 goes on to its end without a scorekeeper; then one starts again
                _wait(join, lambda got: any(x.get("t") == "match-over" for x in got), 300)
                again = unonet("score", "--no-ui", "--json", "--db", db, f"127.0.0.1:{port}")
                with reaped(again):
                    code, out, err = finish(again, 300)
                assert finish(join, 60)[0] == 0
    assert code == 0, err[-2000:]
    got = lines(out)
    match1 = kept[0]["match"]
    nxt = max(x["round"] for x in kept if x["match"] == match1) + 1
    said = [x for x in got if x["t"] == "incomplete"]
    assert len(said) == 1 and said[0]["match"] == match1 and said[0]["from_round"] == nxt, said
    assert f"the scorekeeper was away from round {nxt} on" in said[0]["why"], said

    hist = json.loads(_score_cli("history", "--db", db, "--json").stdout)["matches"]
    one = next(m for m in hist if m["match"] == match1)
    assert one["winner"] is None and one["incomplete"] and not one["abandoned"], one
    text = _score_cli("history", "--db", db).stdout
    first_line = next(ln for ln in text.splitlines() if match1[:8] in ln)
    assert "in play" not in text and f"incomplete: the scorekeeper was away from round {nxt} on" in first_line, text
    assert all(p["playing"] == 0 for p in json.loads(_score_cli("standings", "--db", db, "--json").stdout)["players"])
    v = _score_cli("verify", "--db", db)
    assert v.returncode == 0, v.stdout + v.stderr
    assert f"note: match #{one['id']} is incomplete: the scorekeeper was away from round {nxt} on" in v.stdout, v.stdout
    vj = json.loads(_score_cli("verify", "--db", db, "--json").stdout)
    assert len(vj["incomplete"]) == 1, vj
    shown = _score_cli("match", str(one["id"]), "--db", db).stdout
    assert "incomplete: the scorekeeper was away" in shown and "its result are not in this file" in shown, shown
