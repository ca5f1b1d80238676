"""The host pins its players' keys under their names (spec §4.5, §5 step 2), run as people
run it: `unonet host` twice on one key store, real joiners with key stores of their own.

A player who played a match at this host is pinned (``player:<name>`` in the host's
known_peers.json, static and signing key); at the host's next table a newcomer giving that
name with another key is not given it: it sits as ``name-2`` (pinned to it when its match
starts), the operator's line says ``KEY CHANGED`` naming both keys, and the name's own key
still gets its name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from unonet.fingerprint import short_fingerprint

from .session_helpers import ROOT, lines, reaped
from .test_cli_lines import _free_udp


def _start(home: Path, *args: str) -> subprocess.Popen:
    """``sys.executable -m unonet ARGS`` with the key store in ``home``; output to files."""
    d = Path(tempfile.mkdtemp(prefix="unonet-test-proc-"))
    env = {**os.environ, "UNONET_HOME": str(home), "PYTHONUNBUFFERED": "1"}
    with open(d / "out", "w") as out, open(d / "err", "w") as err:
        proc = subprocess.Popen([sys.executable, "-m", "unonet", *args], cwd=ROOT, env=env, stdout=out,
                                stderr=err, text=True)
    proc.out_path, proc.err_path = d / "out", d / "err"
    return proc


def _wait_for(proc: subprocess.Popen, test, limit: float = 30.0) -> dict:
    """The first JSON line of ``proc`` that passes ``test`` (waits up to ``limit`` s)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        for line in lines(proc.out_path.read_text()):
            if test(line):
                return line
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    raise AssertionError(f"not seen from {proc.args}: {proc.out_path.read_text()[-2000:]} {proc.err_path.read_text()}")


def _a_match(host_home: Path, joiners: list[tuple[Path, str]]) -> tuple[list[dict], str]:
    """One match at a host on loopback (3 seats: the joiners and one bot), joiners in this order,
    each seated before the next comes; the host's JSON lines and its stderr."""
    host = _start(host_home, "host", "--no-ui", "--json", "--bind", "127.0.0.1", "--port", "0",
                  "--discovery-port", str(_free_udp()), "--players", "3", "--dealer-only", "--bots", "1",
                  "--target", "100")
    with reaped(host):
        port = _wait_for(host, lambda d: d.get("t") == "table")["port"]
        procs = []
        with reaped(*procs):
            for n, (home, name) in enumerate(joiners, 1):
                procs.append(_start(home, "join", "--no-ui", "--json", "--bot", "--name", name,
                                    f"127.0.0.1:{port}"))
                _wait_for(host, lambda d: d.get("t") == "joined" and d.get("seat") == n - 1)
            assert host.wait(timeout=300) == 0, host.err_path.read_text()
            for p in procs:
                assert p.wait(timeout=60) == 0, p.err_path.read_text()
        return lines(host.out_path.read_text()), host.err_path.read_text()


def _pins(home: Path) -> dict:
    return json.loads((home / "known_peers.json").read_text())["peers"]


def test_a_new_key_under_a_known_name_sits_under_a_name_of_its_own(tmp_path):
    host, jo, ann, other = (tmp_path / n for n in ("host", "jo", "ann", "other"))
    for d in (host, jo, ann, other):
        d.mkdir()
    first, _ = _a_match(host, [(jo, "Jo0"), (ann, "Ann")])
    assert [d["name"] for d in first if d.get("t") == "joined"] == ["Jo0", "Ann"]
    pins = _pins(host)
    assert set(pins) == {"player:Jo0", "player:Ann"} and set(pins["player:Jo0"]) == {"static", "sign"}
    jo_key = bytes.fromhex(pins["player:Jo0"]["static"])

    second, _ = _a_match(host, [(other, "Jo0"), (jo, "Jo0")])
    assert [d["name"] for d in second if d.get("t") == "joined"] == ["Jo0-2", "Jo0"]
    pins = _pins(host)
    assert bytes.fromhex(pins["player:Jo0"]["static"]) == jo_key  # the name stays with its key
    other_key = bytes.fromhex(pins["player:Jo0-2"]["static"])  # the newcomer's own name, pinned to it
    assert other_key != jo_key
    loud = [d for d in second if d.get("code") == "key-changed"]
    assert len(loud) == 1, second
    assert loud[0]["text"].startswith("KEY CHANGED for player 'Jo0': this host knows the name with key "
                                      f"{short_fingerprint(jo_key)}; ")
    assert f"brings key {short_fingerprint(other_key)}" in loud[0]["text"]
    assert any(d.get("t") == "match-over" for d in second)  # the table played on to its result


def test_a_name_that_reads_like_a_known_one_is_not_given_to_another_key(tmp_path):
    """A stranger who types Jo's name in Cyrillic letters ("Јо0": Cyrillic Je and o) while Jo is
    away is not seated under a name every screen and scorekeeper would read as Jo's."""
    host, jo, ann, other = (tmp_path / n for n in ("host", "jo", "ann", "other"))
    for d in (host, jo, ann, other):
        d.mkdir()
    _a_match(host, [(jo, "Jo0"), (ann, "Ann")])
    jo_key = bytes.fromhex(_pins(host)["player:Jo0"]["static"])

    second, _ = _a_match(host, [(other, "\u0408\u043e0"), (ann, "Ann")])
    assert [d["name"] for d in second if d.get("t") == "joined"] == ["\u0408\u043e0-2", "Ann"]
    loud = [d for d in second if d.get("code") == "key-changed"]
    assert len(loud) == 1, second
    assert loud[0]["text"].startswith("KEY CHANGED for player '\u0408\u043e0': this host knows 'Jo0', a name "
                                      f"that reads alike, with key {short_fingerprint(jo_key)}; ")
    assert bytes.fromhex(_pins(host)["player:Jo0"]["static"]) == jo_key
