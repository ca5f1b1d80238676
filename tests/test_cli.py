"""The real `unonet` command: scenarios from tests/scenarios/, rules, simulate, bad input."""

import json
import pathlib
import subprocess
import sys

import pytest

SCEN = pathlib.Path(__file__).parent / "scenarios"


def unonet(*args, env=None):
    return subprocess.run([sys.executable, "-m", "unonet", *args], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("path", sorted(p for p in SCEN.glob("*.json") if not p.name.endswith(".expect.json")
                                        and not p.name.startswith("bad-")), ids=lambda p: p.stem)
def test_scenario_file_through_the_cli(path):
    expect = json.loads(path.with_suffix(".expect.json").read_text())
    proc = unonet("scenario", str(path))
    assert proc.returncode == expect["exit"], proc.stdout + proc.stderr
    assert proc.stderr == ""
    out = json.loads(proc.stdout)
    for key, value in expect.get("subset", {}).items():
        assert out[key] == value, key
    if "hand_sizes" in expect:
        assert [len(h) for h in out["hands"]] == expect["hand_sizes"]
    if expect["exit"] == 0:
        assert set(out) == {"turn", "direction", "top", "color", "hands", "draw_pile", "discard_pile",
                            "round_over", "winner", "round_points", "scores", "team_scores",
                            "match_over", "match_winner"}
    else:
        assert set(out) == {"error", "action", "state"}


@pytest.mark.parametrize("name,needle", [("bad-json", "not valid JSON"),
                                         ("bad-unknown-card", "unknown card 'X9'"),
                                         ("bad-too-many-copies", "too many copies of 'R0'"),
                                         ("bad-house-rule", "unknown house rule 'stackin'")])
def test_malformed_scenarios_exit_2_with_one_line(name, needle):
    proc = unonet("scenario", str(SCEN / f"{name}.json"))
    assert proc.returncode == 2
    assert needle in proc.stderr and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_missing_scenario_file():
    proc = unonet("scenario", "/nonexistent/x.json")
    assert proc.returncode == 2 and "cannot read scenario" in proc.stderr


def test_rules_lists_presets_and_house_rules():
    proc = unonet("rules", "--json")
    data = json.loads(proc.stdout)
    assert {p["name"] for p in data["presets"]} >= {"official", "2018", "house"}
    assert {h["name"] for h in data["house_rules"]} >= {"stacking", "seven-o", "jump-in",
                                                         "no-wild-endings", "keep-drawing"}
    text = unonet("rules").stdout
    for h in data["house_rules"]:
        assert h["name"] in text


def test_simulate_json_reports_rounds_and_wins():
    proc = unonet("simulate", "--rounds", "50", "--seed", "3", "--json", "--bot", "random")
    out = json.loads(proc.stdout)
    assert out["rounds"] == 50 and out["matches"] == 0 and out["actions"] > 50
    assert out["rounds_per_s"] > 0 and out["seconds"] > 0
    assert sum(out["wins"]) + out["blocked_rounds"] == 50 and len(out["wins"]) == 4
    again = json.loads(unonet("simulate", "--rounds", "50", "--seed", "3", "--json", "--bot", "random").stdout)
    assert again["round_wins"] == out["round_wins"] and again["actions"] == out["actions"]


def test_simulate_matches_with_teams_reports_team_wins():
    out = json.loads(unonet("simulate", "--matches", "2", "--teams", "--seed", "1", "--json",
                            "--target", "200").stdout)
    assert out["matches"] == 2 and len(out["wins"]) == 2 and sum(out["wins"]) == 2


def test_simulate_watch_draws_the_table():
    proc = unonet("simulate", "--watch", "--seed", "5", "--delay", "0")
    assert proc.returncode == 0
    assert "=== round 1" in proc.stdout and "top " in proc.stdout and "went out" in proc.stdout


@pytest.mark.parametrize("args,needle", [
    (["simulate", "--players", "11"], "players must be 2..10"),
    (["simulate", "--house", "stacks"], "unknown house rule 'stacks'"),
    (["simulate", "--rules", "nope"], "unknown rules preset 'nope'"),
    (["simulate", "--teams", "--players", "3"], "teams need an even number"),
    (["simulate", "--bot", "genius"], "unknown bot 'genius'"),
    (["simulate", "--rounds", "x"], "invalid int value"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_flags_exit_2_in_one_line(args, needle):
    proc = unonet(*args)
    assert proc.returncode == 2, proc.stdout
    assert needle in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
