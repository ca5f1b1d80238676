"""Under deadly a seat whose turn clock runs out gets the table's default move: its playable
card played, else knocked out of the round (no draw is legal).  A round that ended by such a
move - the host's `host-act` last - was audited at its end against that one host act for
every record, and an honest host was called a cheat (seen: Pat's typed seat at Hal's deadly
table, a 0.2 s clock, never typing: "FAIR-PLAY VIOLATION: ... the host's turn-timeout act for
seat 1 is play 'BS', not the default action draw" as round 1 ended, BS being Hal's first card)."""

from __future__ import annotations

import subprocess
import time

import pytest

from .session_helpers import first_json, lines as json_lines, reaped, unonet
from .test_election import LOOP

pytestmark = pytest.mark.slow


def test_a_deadly_round_ended_by_the_turn_clock_is_no_cheat():
    host = unonet("host", "--no-ui", "--json", *LOOP, "--name", "Hal", "--players", "2", "--rules", "deadly",
                  "--turn-timeout", "0.2", "--target", "3000")
    with reaped(host):
        port = first_json(host)["port"]
        person = unonet("join", "--no-ui", "--json", "--bind", "127.0.0.1", "--name", "Pat", f"127.0.0.1:{port}",
                        stdin=subprocess.PIPE)  # (never typed into: every turn of Pat's runs out)
        with reaped(person):
            ended_by_clock = None  # the round a timeout of Pat's ended
            after = False
            deadline = time.monotonic() + 240  # (a failure's bound only: the loop ends on what it reads)
            while time.monotonic() < deadline and not after:
                lines = json_lines(host.out_path.read_text())
                problems = [x for x in lines if x.get("t") == "problem"]
                assert not problems, problems
                assert host.poll() is None and person.poll() is None, person.err_path.read_text()[-2000:]
                rounds = [x["round"] for x in lines if x.get("t") == "round"]
                for i, x in enumerate(lines):
                    if x.get("t") == "game" and x.get("g") == "act" and x["a"].get("seat") == 1 and \
                            any(e[0] == "RoundOver" for e in x.get("ev", ())) and \
                            lines[i - 1].get("t") == "notice" and lines[i - 1].get("kind") == "timeout":
                        ended_by_clock = ended_by_clock or max(r for r in rounds if r is not None)
                # (the next round dealt, and its first act taken: the audit at the end is behind it)
                after = ended_by_clock is not None and any(r > ended_by_clock for r in rounds) and \
                    lines[-1].get("t") == "game" and lines[-1].get("g") == "act"
                time.sleep(0.1)
            assert after, f"no round ended by Pat's clock, or the table stopped: {lines[-5:]}"
            said = person.out_path.read_text()
            assert "FAIR-PLAY" not in said and '"problem"' not in said, said[-2000:]
