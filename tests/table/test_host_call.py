"""The host's own calls for the table: closing a reaction race nobody finished.

Over a network a race closes when the host's clock says so (`TableHost.host_call(CloseRace())`);
bots in one process always slap, so only this test walks that path."""

from __future__ import annotations

from unonet.engine import CloseRace, make_bot, make_rules
from unonet.engine._round import Phase
from unonet.fair.testing import det_randbytes
from unonet.table import audit_transcript, make_table


def test_a_race_closed_by_the_host_is_a_host_act_every_seat_accepts():
    rules = make_rules("smackdown")
    closed = 0
    for seed in range(12):
        table = make_table(rules, 4, randbytes=det_randbytes(f"close-race-{seed}"))
        rnd = table.open_round()
        rnd.start()
        bots = [make_bot("heuristic", f"close-race-{seed}/{s}") for s in range(4)]
        for _ in range(5000):
            if rnd.phase is Phase.OVER:
                break
            if rnd.phase is Phase.RACE:
                rnd.apply(CloseRace())
                closed += 1
            else:
                rnd.apply(bots[rnd.turn].act(rnd, rnd.turn))
        assert rnd.phase is Phase.OVER and table.host.finished
        assert not table.violations
        report = audit_transcript(table.lines)
        assert report.ok, report
        if closed:
            break
    assert closed, "no six was played in twelve rounds: the test never closed a race"
