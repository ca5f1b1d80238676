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


@pytest.mark.parametrize("value", ["nan", "inf", "1e400", "1e10", "-1", "-0.5", "soon"])
def test_simulate_watch_refuses_a_delay_that_is_not_a_sane_number_of_seconds(value):
    proc = unonet("simulate", "--watch", "--rounds", "1", "--seed", "1", f"--delay={value}")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == f"unonet: --delay must be a number of seconds from 0 to 60, not {value!r}\n"


def test_simulate_watch_takes_a_delay_in_range():
    proc = unonet("simulate", "--watch", "--rounds", "1", "--seed", "1", "--delay", "0.0")
    assert proc.returncode == 0 and "went out" in proc.stdout


@pytest.mark.parametrize("var,value", [("UNONET_BOT_DELAY", "inf"), ("UNONET_BOT_DELAY", "nan"),
                                       ("UNONET_BOT_DELAY", "fast"), ("UNONET_BOT_DELAY", "1e10"),
                                       ("UNONET_RACE_TIME", "-3"), ("UNONET_RACE_TIME", " ")])
def test_play_refuses_a_pacing_variable_it_cannot_use_and_names_it(var, value):
    import os

    env = {k: v for k, v in os.environ.items() if not k.startswith("UNONET_")}
    env[var] = value
    with open(os.devnull) as devnull:
        proc = subprocess.run([sys.executable, "-m", "unonet", "play", "--seed", "1"], stdin=devnull,
                              capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 2
    assert proc.stderr == f"unonet: {var} must be a number of seconds from 0 to 60, not {value!r}\n"


@pytest.mark.parametrize("name,why", [
    ("Ann\nEve", "control characters (a newline in"),
    ("\x1b[2J\x1b[31mEve", "control characters (ESC (an escape sequence) in"),
    ("Eve\u202e", "control characters (U+202E in"),
    ("   ", "at least one visible character"),
    ("\u0301\u200b", "at least one visible character"),
    ("x" * 33, "at most 32 characters (33 in"),
])
def test_play_refuses_a_name_that_would_break_the_screen(name, why):
    import os

    with open(os.devnull) as devnull:
        proc = subprocess.run([sys.executable, "-m", "unonet", "play", "--name", name], stdin=devnull,
                              capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("unonet: --name: a name ") and why in proc.stderr
    assert proc.stderr.count("\n") == 1


def test_play_takes_a_wide_name_and_then_wants_a_terminal():
    import os

    with open(os.devnull) as devnull:
        proc = subprocess.run([sys.executable, "-m", "unonet", "play", "--name", "王小明", "--seed", "1"],
                              stdin=devnull, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stderr == "unonet play needs a terminal (stdin is not a tty)\n"


@pytest.fixture(scope="module")
def transcript(tmp_path_factory):
    d = tmp_path_factory.mktemp("audit") / "t"
    proc = unonet("simulate", "--rounds", "1", "--seed", "2", "--transcript", str(d))
    assert proc.returncode == 0, proc.stderr
    (f,) = d.iterdir()
    return f


@pytest.mark.parametrize("host", ["", "zzz", "7KQ2-M9XD-4", "7KQ2-M9XD-4U", "7KQ2_M9XD_4TAB", "7" * 53])
def test_audit_refuses_a_malformed_host_fingerprint(transcript, host):
    proc = unonet("audit", "--host", host, str(transcript))
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == ("unonet: --host must be a host fingerprint or join code like 7KQ2-M9XD-4T "
                           f"(10 to 52 Crockford base32 characters), not {host!r}\n")


def test_audit_checks_a_well_formed_host_fingerprint(transcript):
    clean = unonet("audit", "--json", str(transcript))
    assert clean.returncode == 0
    real = json.loads(clean.stdout)["host"]
    assert unonet("audit", "--host", real.lower().replace("-", " "), str(transcript)).returncode == 0
    assert unonet("audit", "--host", real[:12], str(transcript)).returncode == 0  # the join code
    other = "AAAA-BBBB-CCCC-DDDD" if real != "AAAA-BBBB-CCCC-DDDD" else "BBBB-CCCC-DDDD-EEEE"
    proc = unonet("audit", "--host", other, str(transcript))
    assert proc.returncode == 1 and f"not the expected {other}" in proc.stdout


@pytest.mark.parametrize("command", [["list"], ["join", "--no-ui"], ["score", "--no-ui"]])
@pytest.mark.parametrize("value", ["0", "-1", "nan", "61"])
def test_a_timeout_to_look_for_tables_is_some_time_and_the_message_says_so(command, value):
    """`unonet list --timeout 0` used to say "must be between 0 and 60" while refusing 0."""
    proc = unonet(*command, "--timeout", value, "--bind", "127.0.0.1")
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr == (f"unonet {command[0]}: --timeout {float(value):g}: give the seconds to look for tables, "
                           "more than 0 and at most 60\n")


@pytest.mark.parametrize("address,needle", [
    ("999.1.1.1", "not an IPv4 address"), ("10.0.0", "not an IPv4 address"), ("1.2.3.4.5:80", "not an IPv4 address"),
    ("[::g]:47800", "not an IPv6 address"), ("lap top", "not a host name"), ("a..b", "not a host name"),
    ("127.0.0.1:0", "bad port"),
])
@pytest.mark.parametrize("command", [["join", "--no-ui"], ["join"], ["score", "--no-ui"]])
def test_an_address_that_cannot_be_one_is_bad_input(command, address, needle):
    """Refused before any lookup or packet: exit 2 and one line naming it (the help's word)."""
    proc = unonet(*command, address)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and repr(address) in proc.stderr, proc.stderr


def test_a_well_formed_address_nobody_answers_at_is_a_failed_join_not_bad_input():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # a loopback port nothing listens on: refused at once
    proc = unonet("join", "--no-ui", f"127.0.0.1:{port}")
    assert proc.returncode == 1 and proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_host_refuses_a_target_its_beacon_cannot_carry():
    """A target over the wire's limit crashed the host's beacon task with a traceback."""
    from unonet.host_defaults import MAX_TARGET
    from unonet.protocol import Beacon

    proc = unonet("host", "--no-ui", "--bind", "127.0.0.1", "--port", "0", "--target", str(MAX_TARGET + 1))
    assert proc.returncode == 2
    assert proc.stderr.strip() == f"unonet: --target {MAX_TARGET + 1}: give 1..{MAX_TARGET} points (what a table's beacon can carry)"
    field = next(f for f in Beacon.FIELDS if f.name == "target")
    field.kind.check(MAX_TARGET, "beacon.target", False)  # the limits agree
    with pytest.raises(Exception):
        field.kind.check(MAX_TARGET + 1, "beacon.target", False)
