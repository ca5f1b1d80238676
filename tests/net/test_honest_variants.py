"""Honest tables never cry cheat, under the other rule sets too (redteam18): the schedule of
`test_honest_tables.py` (seeded drops without a word, goodbyes and rejoins with the same key,
over two matches) at tables playing reaction races, seven-o and jump-in, UNO Flip, partners,
elimination, Deadly UNO, stacking and the rest, 3 to 5 seats.  No party reports a cheat or a
fair-play problem, and the table closes after its matches with a result.  (Found nothing
when written: the first 9 cases with seeds 1-5, the other 7 with seeds 3-5; kept as a guard,
one seed each.)"""
from __future__ import annotations

import pytest

from unonet.engine import make_rules

from .net_helpers import run
from .test_honest_tables import assert_nobody_cried_cheat, honest_evening


async def evening(seed: int, steps: int, preset: str, players: int, teams: bool, scoring: str) -> dict:
    rules = make_rules(preset, [], target=150, teams=teams, scoring=scoring)
    return await honest_evening(seed, steps, rules, players, teams, limit=150)


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
    assert_nobody_cried_cheat(run(evening, seed, 30, *case))
