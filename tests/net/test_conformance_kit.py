"""The conformance kit (protocol/conformance.py) as another implementer runs it: our own peer
passes a whole match and a rejoin; broken peers get their first deviation named."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import tempfile
import textwrap

import pytest

from .session_helpers import ROOT, env_home

KIT = ROOT / "protocol" / "conformance.py"
OUR_OBSERVER = f"{shlex.quote(sys.executable)} -m unonet score --no-ui --json --db {{home}}/scores.db --code {{code}} {{address}}"
OUR_PEER = [sys.executable, "-m", "unonet", "join", "--bot", "--no-ui", "--json", "--code", "{code}", "{address}"]


def kit(*args: str, limit: float = 300) -> tuple[int, dict, str]:
    """Run the kit with --json; its exit status, its report and its stderr.  (Its logs, kept
    by a failing run, are removed.)"""
    logs = tempfile.mkdtemp(prefix="unonet-test-conformance-")
    try:
        proc = subprocess.run([sys.executable, str(KIT), "--json", "--keep", logs, *args], cwd=ROOT,
                              env=env_home(), capture_output=True, text=True, timeout=limit)
    finally:
        shutil.rmtree(logs, ignore_errors=True)
    lines = [x for x in proc.stdout.splitlines() if x.strip()]
    assert len(lines) == 1, (proc.stdout, proc.stderr)
    return proc.returncode, json.loads(lines[0]), proc.stderr


@pytest.mark.slow
def test_our_peer_plays_a_whole_match_and_a_rejoin_clean_and_our_scorekeeper_follows_it():
    code, report, err = kit("--observer", OUR_OBSERVER, "--", *OUR_PEER)
    assert code == 0 and report["ok"] is True, (report, err)
    assert report["stage"] is None and report["deviation"] is None
    assert [s["stage"] for s in report["steps"]] == ["host", "observer", "seat", "kill", "rejoin", "match",
                                                     "round-end", "match-over", "observer"]
    host, peer, observer = report["host"], report["peer"], report["observer"]
    assert host["rounds"] >= 1 and max(host["scores"]) >= 100
    for key in ("winner", "scores", "rounds", "ledger", "match", "table"):
        assert peer[key] == host[key] == observer[key]


def test_a_peer_that_sends_garbage_is_named_at_its_seat():
    garbage = textwrap.dedent("""
        import os, socket, time
        s = socket.create_connection(("127.0.0.1", int(os.environ["UNONET_CONFORMANCE_PORT"])))
        s.sendall(b"\\x00\\x00\\x00\\x05garbage, not a Noise message" * 3)
        time.sleep(20)
    """)
    code, report, _ = kit("--seat-timeout", "20", "--", sys.executable, "-c", garbage, limit=120)
    assert code == 1 and report["ok"] is False
    assert report["stage"] == "seat"
    assert report["deviation"].startswith("the host refused the peer: ")
    assert "(auth)" in report["deviation"] and "handshake" in report["deviation"]
    assert report["logs"] and report["peer"] is None


def test_a_peer_whose_hello_lacks_its_certificate_is_named_at_its_seat():
    """A peer built on our sans-IO SecureLink that leaves hello's optional `cert` out (issue 24:
    it used to be seated and end the table; now the host refuses it, and the kit says why)."""
    nocert = textwrap.dedent("""
        import dataclasses, os, socket, time
        import unonet.protocol as P
        sl = P.SecureLink(P.Identity.generate(), role=P.PLAYER, initiator=True)
        s = socket.create_connection(("127.0.0.1", int(os.environ["UNONET_CONFORMANCE_PORT"])))
        s.sendall(sl.data_to_send())
        for _ in range(100):
            ev = sl.next_event()
            s.sendall(sl.data_to_send())
            if ev is P.NEED_DATA:
                data = s.recv(65536)
                if not data:
                    break
                sl.receive_data(data)
            elif isinstance(ev, P.PeerKey):
                sl.accept_peer()
                s.sendall(sl.data_to_send())
            elif isinstance(ev, P.HandshakeComplete):
                s.sendall(sl.send(dataclasses.replace(sl.hello(name="nocert"), cert=None)))
            elif ev is P.CLOSED:
                break
        time.sleep(20)
    """)
    code, report, _ = kit("--seat-timeout", "20", "--", sys.executable, "-c", nocert, limit=120)
    assert code == 1 and report["stage"] == "seat"
    assert report["deviation"].startswith("the host refused the peer: nocert (127.0.0.1:")
    assert report["deviation"].endswith("a player's hello must carry its identity certificate (hello.cert)")


@pytest.mark.slow
def test_a_peer_whose_result_is_not_the_hosts_is_named_at_match_over():
    """Our peer, its match-over line's scores changed by one point on the way out: it plays
    the whole match (and the rejoin) honestly, so the only deviation is the result it states."""
    liar = textwrap.dedent("""
        import json, subprocess, sys
        argv = sys.argv[1:]
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
        for line in proc.stdout:
            obj = json.loads(line)
            if obj.get("t") == "match-over":
                obj["scores"][0] += 1
            print(json.dumps(obj), flush=True)
        sys.exit(proc.wait())
    """)
    code, report, _ = kit("--", sys.executable, "-c", liar, *OUR_PEER)
    assert code == 1 and report["ok"] is False, report
    assert report["stage"] == "match-over", report
    host = report["host"]
    wrong = [host["scores"][0] + 1] + host["scores"][1:]
    assert report["deviation"] == f"the peer reports scores {wrong!r}, the host {host['scores']!r}"
    assert [s["stage"] for s in report["steps"]] == ["host", "seat", "kill", "rejoin", "match", "round-end"]


def test_an_observer_that_cannot_attach_is_named():
    """A scorekeeper that gives up at once (here: it is asked for a table that is not there)."""
    observer = f"{shlex.quote(sys.executable)} -m unonet score --no-ui --json --db {{home}}/s.db 127.0.0.1:1"
    code, report, _ = kit("--observer", observer, "--", *OUR_PEER, limit=120)
    assert code == 1 and report["stage"] == "observer"
    assert report["deviation"] == ("the observer reports a problem: connection refused by 127.0.0.1:1 "
                                   "(is a table open there?)")


def test_usage_errors_are_one_line_and_exit_2():
    proc = subprocess.run([sys.executable, str(KIT)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no peer command" in proc.stderr
    proc = subprocess.run([sys.executable, str(KIT), "--", "peer", "{nope}"], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 2 and "unknown placeholder" in proc.stderr and "{nope}" in proc.stderr
