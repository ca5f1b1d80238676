"""`unonet host` / `unonet join` as processes on loopback (`sys.executable -m unonet`):
whole matches with fair play on, scripting output, and every way joining fails."""

from __future__ import annotations

import json
import socket
import subprocess
import time

import pytest

from .session_helpers import finish, first_json, lines, reaped, unonet

LOOP = ("--bind", "127.0.0.1", "--port", "0")


def _free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _host(*args: str) -> subprocess.Popen:
    return unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", str(_free_udp_port()), *args)


def _finish(proc: subprocess.Popen, limit: float = 120) -> tuple[int, list[dict], str]:
    code, out, err = finish(proc, limit)
    return code, lines(out), err


def _check_match(result: list[dict], *, players: int, teams: bool = False) -> dict:
    over = result[-1]
    assert over["t"] == "match-over" and over["event"] == "match-over"
    assert over["teams"] is teams and len(over["scores"]) == players
    standings = over["team_scores"] if teams else over["scores"]
    assert standings[over["winner"]] >= 500 and standings[over["winner"]] == max(standings)
    ends = [x for x in result if x["t"] == "round-end"]
    assert len(ends) == over["rounds"] and ends[-1]["final"] and ends[-1]["totals"] == standings
    assert len(over["ledger"]) == 64
    return over


@pytest.mark.parametrize("args,players,teams", [
    (("--players", "4", "--bots", "3"), 4, False),
    (("--players", "4", "--bots", "3", "--teams"), 4, True),
    (("--players", "6", "--bots", "5", "--teams"), 6, True),
    (("--players", "3", "--bots", "2", "--rules", "flip"), 3, False),
    (("--players", "4", "--bots", "3", "--rules", "office"), 4, False),
])
def test_a_host_with_bots_plays_a_whole_500_point_match(args, players, teams):
    with reaped(_host(*args)) as (host,):
        code, out, err = _finish(host)
    assert code == 0, err
    assert out[0]["t"] == "table" and out[0]["players"] == players
    _check_match(out, players=players, teams=teams)
    games = [x for x in out if x["t"] == "game"]
    assert games and all(isinstance(x["ev"], list) for x in games if x["g"] == "act")


def test_refused_connection_is_one_line_and_exit_1():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # bound, not listening: the connection is refused
        with reaped(unonet("join", "--no-ui", "--bot", f"127.0.0.1:{port}")) as (j,):
            code, out, err = finish(j, 30)
    assert code == 1
    assert err.strip() == f"unonet join: connection refused by 127.0.0.1:{port} (is a table open there?)"


def test_wrong_join_code_full_table_and_vanished_host_are_one_line_each():
    with reaped(_host("--players", "2", "--dealer-only")) as (host,):
        opened = first_json(host)
        port = opened["port"]
        wrong = unonet("join", "--no-ui", "--bot", "--code", "0000-0000-00", f"127.0.0.1:{port}")
        code, _, err = finish(wrong, 30)  # (without --json its stdout is words)
        assert code == 1 and "Traceback" not in err and err.count("\n") == 1
        assert err.startswith("unonet join: host key does not match join code 0000-0000-00")
        # whoever answered may be an impostor: its own code is never said
        assert opened["join_code"] not in err and opened["join_code"].replace("-", "")[:4] not in err, err
        a = unonet("join", "--no-ui", "--json", f"127.0.0.1:{port}", "--name", "a", stdin=subprocess.DEVNULL)
        b = unonet("join", "--no-ui", "--json", f"127.0.0.1:{port}", "--name", "b", stdin=subprocess.DEVNULL)
        with reaped(a, b):
            for p in (a, b):
                assert first_json(p)["t"] == "joined"
            full = unonet("join", "--no-ui", "--bot", f"127.0.0.1:{port}", "--name", "c")
            code, _, err = finish(full, 30)
            assert code == 1 and "Traceback" not in err
            assert "refused us: the table is full" in err and err.count("\n") == 1
            host.kill()  # the host vanishes mid-match: the joiners take the table over (an election)
            host.wait(10)
            for p in (a, b):
                assert _wait_line(p, "election")["lost_name"] == "host"
    # a host that vanishes before the match (nothing to take over): one line, exit 1
    with reaped(_host("--players", "3", "--dealer-only")) as (host,):
        port = first_json(host)["port"]
        with reaped(unonet("join", "--no-ui", "--json", f"127.0.0.1:{port}", "--name", "a",
                           stdin=subprocess.DEVNULL)) as (a,):
            assert first_json(a)["t"] == "joined"
            host.kill()
            host.wait(10)
            code, out, err = _finish(a, 30)
    assert code == 1 and "Traceback" not in err, err
    assert err.count("\n") == 1 and "the host has gone" in err or "went silent" in err
    assert out[-1]["t"] == "problem" and out[-1]["cheat"] is False


def _wait_line(proc: subprocess.Popen, kind: str, limit: float = 30.0) -> dict:
    for _ in range(int(limit / 0.05)):
        found = [x for x in lines(proc.out_path.read_text()) if x.get("t") == kind]
        if found:
            return found[0]
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"no {kind} line from {proc.args}: {proc.out_path.read_text()[-2000:]}")


def test_bad_input_exits_2_with_one_line():
    for args, text in [(("join", "--no-ui", "host:99999"), "bad port"),
                       (("join", "--no-ui", "--code", "!!", "127.0.0.1"), "--code"),
                       (("host", "--no-ui", "--players", "4", "--bots", "4"), "--bots 4"),
                       (("host", "--no-ui", "--teams", "--players", "3"), "even")]:
        with reaped(unonet(*args)) as (proc,):
            code, _, err = finish(proc, 30)
        p = subprocess.CompletedProcess(proc.args, code, "", err)
        assert p.returncode == 2, (args, p.stderr)
        assert text in p.stderr and p.stderr.count("\n") == 1, p.stderr


def test_join_without_address_finds_the_one_table_on_loopback():
    disc = str(_free_udp_port())
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", disc, "--players", "2",
                  "--dealer-only", "--table", "loopy")
    with reaped(host):
        first_json(host)
        j = unonet("join", "--no-ui", "--json", "--bind", "127.0.0.1", "--discovery-port", disc,
                   "--name", "finder")
        with reaped(j):
            found = first_json(j)
            assert found["t"] == "found" and found["name"] == "loopy" and found["address"] == "127.0.0.1"
            assert first_json(j)["t"] == "joined"


@pytest.mark.slow
def test_a_host_and_three_joiner_processes_play_a_500_point_match_and_agree():
    """Four processes on loopback, fair play and Noise on: every one prints the same
    match-over line. No turn clock: each joiner's bot plays its seat from its own engine
    copy; every joiner commits, reveals, verifies every event, co-signs every round and
    checks the result against its own ledger."""
    host = _host("--players", "4")
    with reaped(host):
        port = first_json(host)["port"]
        joins = [unonet("join", "--no-ui", "--json", "--bot", "--name", f"j{i}", f"127.0.0.1:{port}")
                 for i in range(3)]
        with reaped(*joins):
            results = [_finish(j, 600) for j in joins]
            code, out, err = _finish(host, 60)
    assert code == 0, (err, [x for x in out if x["t"] in ("problem", "refused", "left", "refusal")],
                       [r[2] for r in results])
    over = _check_match(out, players=4)
    for jcode, jout, jerr in results:
        assert jcode == 0, jerr
        assert jout[-1] == over


@pytest.mark.slow
def test_discovery_in_a_private_namespace_finds_an_unbound_host_and_joins_it():
    """A host that announces on every interface (no --bind) runs only inside a network
    namespace of the test's own (`unshare -n`): its beacons cannot leave it."""
    import shutil

    # no skip: the suite runs as root with util-linux and iproute2 (.ci/run installs iproute2
    # when it is missing), so a machine without them is a broken test machine, said plainly
    assert shutil.which("unshare") and shutil.which("ip"), "this test needs unshare (util-linux) and ip (iproute2)"
    import sys

    from .session_helpers import ROOT, env_home

    script = (
        "ip link set lo up || exit 3\n"
        f"{sys.executable} -m unonet host --no-ui --json --port 0 --players 2 --dealer-only "
        "--table nslab > \"$H/host.out\" 2>&1 &\n"
        "HP=$!; sleep 1.5\n"
        f"UNONET_HOME=\"$H/j\" {sys.executable} -m unonet join --no-ui --json --timeout 1 --name nsjoin "
        "> \"$H/join.out\" 2>&1 &\n"
        "J=$!; sleep 4; kill $J $HP 2>/dev/null; wait $J $HP\n")
    env = env_home()
    env["H"] = env["UNONET_HOME"]
    p = subprocess.run(["unshare", "-n", "sh", "-c", script], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=60)
    assert p.returncode in (0, 143), p.stderr
    from pathlib import Path

    out = lines(Path(env["H"], "join.out").read_text())
    assert out[0]["t"] == "found" and out[0]["name"] == "nslab", out
    assert out[1]["t"] == "joined" and any(x["t"] == "lobby" for x in out)


def test_a_joiners_lobby_line_shows_the_hosts_join_code():
    """A play-tester's `join --no-ui --json` printed `"code": ""` in its `lobby` line while the
    host's `table` line had the code: the joiner knows it (the host's key, proved at the
    handshake), by address as by discovery or --code."""
    disc = str(_free_udp_port())
    host = unonet("host", "--no-ui", "--json", *LOOP, "--discovery-port", disc, "--players", "3",
                  "--dealer-only", "--table", "coded")
    with reaped(host):
        table = first_json(host)
        by_addr = unonet("join", "--no-ui", "--json", "--name", "addr", f"127.0.0.1:{table['port']}")
        by_code = unonet("join", "--no-ui", "--json", "--name", "code", "--code", table["join_code"],
                         f"127.0.0.1:{table['port']}")
        with reaped(by_addr, by_code):
            for j in (by_addr, by_code):
                lobby = _wait_line(j, "lobby")
                assert lobby["code"] == table["join_code"], (lobby, table)
