"""Honest tables never cry cheat, under the other rule sets too (redteam18): the schedule of
`test_honest_tables.py` (seeded drops without a word, goodbyes and rejoins with the same key,
over two matches) at tables playing reaction races, seven-o and jump-in, UNO Flip, partners,
elimination, Deadly UNO, stacking and the rest, 3 to 5 seats.  No party reports a cheat or a
fair-play problem, and the table closes after its matches with a result.  (Found nothing
when written: the first 9 cases with seeds 1-5, the other 7 with seeds 3-5; kept as a guard,
one seed each.)"""
from __future__ import annotations

import random

import pytest
import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat

from .net_helpers import run
from .session_helpers import config, live_table
from .test_honest_tables import ACTIONS, Seat, suspect


async def evening(seed: int, steps: int, preset: str, players: int, teams: bool, scoring: str) -> dict:
    rnd = random.Random(seed)
    rules = make_rules(preset, [], target=150, teams=teams, scoring=scoring)
    cfg = config(players, rules=rules, autostart=True, hold_seats=0.3, matches=2, ready_timeout=2.0,
                 teams=teams)
    names = ["ana", "bo", "cy", "di", "ed"][:players - 1]
    seats = [Seat(n) for n in names]
    schedule = []
    async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
        with trio.fail_after(150):
            async with trio.open_nursery() as n:
                for s in seats:
                    await n.start(s.sit, table)
                for _ in range(steps):
                    await trio.sleep(rnd.uniform(0.02, 0.3))
                    if table.matches_played >= 2:
                        break
                    s, action = rnd.choice(seats), rnd.choice(ACTIONS)
                    if action == "drop" and s.seated:
                        s.scope.cancel()
                    elif action == "quit" and s.seated:
                        s.leave.set()
                    elif action == "rejoin" and not s.seated:
                        await n.start(s.sit, table)
                    else:
                        continue
                    schedule.append((s.name, action))
                while table.matches_played < 2:
                    for s in seats:
                        if not s.seated:
                            await n.start(s.sit, table)
                    await trio.sleep(0.2)
                n.cancel_scope.cancel()
        return {"schedule": schedule, "events": list(table.events), "seats": seats, "result": table.result,
                "matches": table.matches_played}


CASES = [("smackdown", 3, False, "standard"), ("house", 3, False, "standard"), ("flip", 3, False, "standard"),
         ("official", 4, True, "standard"), ("official", 3, False, "elimination"), ("office", 3, False, "standard"),
         ("deadly", 3, False, "standard"), ("dirty", 3, False, "standard"), ("cowboy", 4, True, "standard"),
         ("power", 3, False, "standard"), ("cross-family", 3, False, "standard"), ("combo", 4, False, "standard"),
         ("uno-stack", 3, False, "standard"), ("2018", 5, False, "standard"), ("flip", 4, True, "standard"),
         ("house", 4, False, "elimination")]


@pytest.mark.slow
@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}-{c[1]}{'-teams' if c[2] else ''}-{c[3]}" for c in CASES])
@pytest.mark.parametrize("seed", [1])
def test_variant_evening(case, seed):
    out = run(evening, seed, 30, *case)
    host_said = [(e.kind, e.text) for e in out["events"] if e.data.get("cheat") or suspect(e.text)]
    assert not host_said, (out["schedule"], host_said)
    for s in out["seats"]:
        feed = [v for v in s.feed if isinstance(v, dict) and (v.get("cheat") or suspect(str(v)))]
        assert not feed, (s.name, out["schedule"], feed)
        assert not [f for f in s.failures if suspect(f)], (s.name, out["schedule"], s.failures)
    assert out["result"] is not None and out["matches"] == 2, \
        (out["schedule"], [(e.kind, e.text) for e in out["events"]][-15:])
