"""A whole match fair-play-on through the real CLI, and `unonet audit` on its transcripts."""

import json
import subprocess
import sys

import pytest

from .helpers import edit, game_events


def run(*args):
    return subprocess.run([sys.executable, "-m", "unonet", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def match_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("fair") / "transcripts"  # created by simulate
    r = run("simulate", "--matches", "1", "--target", "200", "--transcript", str(d), "--seed", "3")
    assert r.returncode == 0, r.stderr
    assert "1 match" in r.stdout
    return d


def test_a_whole_match_writes_one_transcript_and_it_audits_clean(match_dir):
    files = sorted(match_dir.iterdir())
    assert [f.name for f in files] == ["match-001.jsonl"]
    r = run("audit", str(files[0]))
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout.strip()
    rounds = sum(1 for _, d in game_events(files[0].read_text().splitlines()) if d["g"] == "setup")
    assert rounds > 1 and "\n" not in out and out.startswith(f"clean: {rounds} rounds,")
    assert f"{rounds} rounds replayed by the rules engine" in out
    assert "co-signs missing" not in out and "aborted" not in out  # every round co-signed by every seat


def test_the_match_scores_carry_from_round_to_round_and_reach_the_target(match_dir):
    scores = [0, 0, 0, 0]
    games = [d for _, d in game_events(sorted(match_dir.iterdir())[0].read_text().splitlines())]
    for d in games:
        if d["g"] == "setup":
            assert d["scores"] == scores
        elif d["g"] == "end":
            scores = d["scores"]
    assert max(scores) >= 200


def test_the_same_seed_writes_the_same_transcripts(match_dir, tmp_path):
    r = run("simulate", "--matches", "1", "--target", "200", "--transcript", str(tmp_path), "--seed", "3")
    assert r.returncode == 0
    for f in sorted(match_dir.iterdir()):
        assert (tmp_path / f.name).read_text() == f.read_text()


def test_audit_json_reports_the_replay(match_dir):
    f = sorted(match_dir.iterdir())[0]
    r = run("audit", str(f), "--json")
    obj = json.loads(r.stdout)
    assert r.returncode == 0 and obj["ok"] and obj["games"] == obj["rounds"] > 1


def _tampered(match_dir, tmp_path, pick, change):
    f = sorted(match_dir.iterdir())[0]
    lines = f.read_text().splitlines()
    i = pick(lines)
    out = tmp_path / "tampered.jsonl"
    out.write_text("\n".join(edit(lines, i, change)) + "\n")
    return out, i + 1


def test_a_play_changed_to_a_card_not_held_fails_naming_the_line(match_dir, tmp_path):
    def pick(lines):
        return next(i for i, d in game_events(lines) if d["g"] == "act" and d["a"]["t"] == "play")

    def change(obj):
        obj["data"]["a"]["pos"] = 107 if obj["data"]["a"]["pos"] != 107 else 106

    path, line = _tampered(match_dir, tmp_path, pick, change)
    r = run("audit", str(path))
    assert r.returncode == 1
    assert r.stdout.startswith(f"line {line}: game record: ")


def test_an_illegal_colour_named_fails_naming_the_line(match_dir, tmp_path):
    def pick(lines):
        return next(i for i, d in game_events(lines) if d["g"] == "act" and d["a"]["t"] == "play"
                    and d["a"]["color"] is None)

    def change(obj):
        obj["data"]["a"]["color"] = "R"  # a coloured card cannot name a colour

    path, line = _tampered(match_dir, tmp_path, pick, change)
    r = run("audit", str(path))
    assert r.returncode == 1 and r.stdout.startswith(f"line {line}: game record: the action recorded, ")
    assert "is not seat" in r.stdout and "signed act" in r.stdout


def test_a_score_changed_fails_naming_the_line(match_dir, tmp_path):
    def pick(lines):
        return next(i for i, d in game_events(lines) if d["g"] == "end")

    def change(obj):
        obj["data"]["scores"][0] += 50

    path, line = _tampered(match_dir, tmp_path, pick, change)
    r = run("audit", str(path))
    assert r.returncode == 1
    assert r.stdout.startswith(f"line {line}: game record: the match scores after the round: the record says ")
    assert "\n" not in r.stdout.strip()
    # anyone holding the file could have made that edit: the host's own record line is not signed
    assert "the file does not show who put it there" in r.stdout and "blames nobody" in r.stdout, r.stdout


def test_an_edit_without_fixing_the_chain_is_named_at_the_edited_line(match_dir, tmp_path):
    """The engine replay reads each game line as it comes: the edited line itself is named,
    before the next line's broken chain is read."""
    f = sorted(match_dir.iterdir())[0]
    lines = f.read_text().splitlines()
    i = next(i for i, d in game_events(lines) if d["g"] == "end")
    out = tmp_path / "t.jsonl"
    out.write_text("\n".join(edit(lines, i, lambda o: o["data"].update(winner=None), chain=False)) + "\n")
    r = run("audit", str(out))
    assert r.returncode == 1 and r.stdout.startswith(f"line {i + 1}: game record: the round's winner: the record "
                                                     "says None")
    assert "blames nobody" in r.stdout, r.stdout

