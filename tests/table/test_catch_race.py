"""Two seats catch the same player who forgot UNO: both catches were legal on the seats' own
copies, the host takes the first and the second has lost a race. CI saw the host refuse it
as `illegal` and the host's screen print "!! Ana (bot)'s bot: illegal: illegal catch ..." as
an alarm; a race lost is `stale` (spec §6.3), news for nobody, and nobody is blamed."""

from __future__ import annotations

import pytest

from unonet.engine import Catch, make_bot
from unonet.table import Refusal
from unonet.table._round import action_json

from .test_rejoin import table_and_ids


def _forgetful_rounds(name: str, limit: int):
    """(table, bots) at each moment of rounds played by bots that never call UNO nor catch,
    seed after seed: the caller plays a move itself (and stops) or lets the turn's bot move."""
    for n in range(limit):
        table, _, _ = table_and_ids(f"{name}/{n}")
        table.start_round()
        rnd = table.host.round
        bots = [make_bot("heuristic", f"{name}/{n}/{s}", forget=1.0, catch=0.0) for s in range(4)]
        for _ in range(400):
            if rnd.over:
                break
            yield table, bots
            table.act(bots[rnd.turn].act(rnd, rnd.turn))


def _round_with_a_catchable_seat(limit: int = 60):
    """A round (of the first seed that gives one) where a seat went down to one card without
    calling UNO and two others may catch it."""
    for table, _ in _forgetful_rounds("catch-race", limit):
        rnd = table.host.round
        q = rnd.catchable
        if q is not None:
            catchers = [s for s in range(4) if rnd.can_catch(s) == q]
            if len(catchers) >= 2:
                return table, q, catchers[:2]
    pytest.fail("no seed gave a catchable seat")


def test_the_second_catch_of_one_forgotten_uno_is_a_race_lost_and_nobody_is_blamed():
    table, q, (first, second) = _round_with_a_catchable_seat()
    rnd = table.host.round
    # both seats sign their catch from their own copies before either is relayed
    acts = {s: table.seats[s].act(action_json(rnd, Catch(s, q)), None) for s in (first, second)}
    held = len(rnd.hands[q])
    table.send(first, acts[first])
    assert len(rnd.hands[q]) > held  # caught: the penalty drawn
    with pytest.raises(Refusal) as refused:
        table.send(second, acts[second])
    assert refused.value.code == "stale", refused.value
    assert "too late" in refused.value.reason and f"seat {q}" in refused.value.reason, refused.value.reason
    table.seats[second].withdraw(acts[second])
    table.pump()
    assert not table.violations and all(s.violation is None for s in table.seats)
    # the round goes on: the loser of the race acts again under the same act number
    bot = make_bot("heuristic", "after", forget=1.0, catch=0.0)
    for _ in range(400):
        if rnd.over:
            break
        table.act(bot.act(rnd, rnd.turn))
    assert rnd.over and not table.violations



def test_a_catch_that_reaches_the_table_after_the_round_ended_is_a_race_lost():
    """The forgetful player's catcher was slower than the next player, who went out with its
    last card: the catch reaches a table no longer waiting for actions."""
    for table, bots in _forgetful_rounds("catch-late", 400):
        rnd = table.host.round
        q, p = rnd.catchable, rnd.turn
        if q is not None and len(rnd.hands[p]) == 1:
            last = bots[p].act(rnd, p)
            catcher = next((s for s in range(4) if s not in (q, p) and rnd.can_catch(s) == q), None)
            if catcher is not None and type(last).__name__ == "Play":
                act = table.seats[catcher].act(action_json(rnd, Catch(catcher, q)), None)
                table.act(last)  # the next player goes out first
                assert rnd.over
                with pytest.raises(Refusal) as refused:
                    table.send(catcher, act)
                assert refused.value.code == "stale", refused.value
                assert refused.value.reason.startswith("too late: "), refused.value
                assert not table.violations
                return
    pytest.fail("no seed gave a forgotten UNO beside a player about to go out")
