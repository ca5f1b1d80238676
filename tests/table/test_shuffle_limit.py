"""A fair round that comes near the fair record's caps (256 epochs, 4096 positions a round:
spec §6.1, §6.2) ends blocked at that action, every party alike (docs/rules.md "Stalemate").
In a soak, house rules at 6 seats where two seats played while the turn clocks of the rest ran
out (a draw, the card played only when it fits) reshuffled so often that the table failed at
the round's 256th epoch: "fair.body.epoch: out of range 0..255 (got 256)"."""

from unonet.engine import Draw, Pass, Play, RandomBot, make_rules
from unonet.protocol import Fair
from unonet.protocol._messages import FAIR_EPOCH
from unonet.protocol._messages import MAX_POSITIONS as WIRE_POSITIONS
from unonet.table._round import EPOCH_ROOM, MAX_EPOCHS, MAX_POSITIONS

from .helpers import fair_round


class ClockRunsOut(RandomBot):
    """What a seat whose turn clock always runs out does: draw, then play the card if it fits."""

    def act(self, rnd, seat):
        acts = rnd.legal_actions(seat)
        plays = [a for a in acts if type(a) is Play]
        if rnd.phase.value == "drawn":
            return plays[0] if plays else next(a for a in acts if type(a) is Pass)
        draws = [a for a in acts if type(a) is Draw]
        return draws[0] if draws else (plays[0] if plays else acts[0])


def test_the_caps_are_the_wires():
    assert MAX_EPOCHS == FAIR_EPOCH.hi + 1 and MAX_POSITIONS == WIRE_POSITIONS


def test_a_fair_round_near_its_epoch_cap_ends_blocked_and_every_event_goes_on_the_wire():
    bots = [RandomBot(1), RandomBot(2)] + [ClockRunsOut(s) for s in range(3, 7)]
    table, rnd = fair_round(make_rules("house", []), 6, seed="s11", bots=bots)  # (its every party checks)
    epochs = max(e.epoch for e in table.host.events if type(e).__name__ == "SeedCommit") + 1
    assert rnd.outcome.termination.value == "stalemate" and rnd.outcome.winner is None, rnd.outcome
    assert MAX_EPOCHS - EPOCH_ROOM <= epochs <= MAX_EPOCHS, epochs
    for event in table.host.events:
        Fair.of(event, 1)  # every event fits its message (its epoch among its fields)
