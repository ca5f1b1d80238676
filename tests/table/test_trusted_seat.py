"""A seat that trusts its host (the host's own seat, fed by the table in its own process):
it keeps every piece of state a checking seat keeps, and verifies no signature again.

Each match is played twice from one seed, once by checking seats and once by trusting ones:
the transcript, every seat's ledger, hand, engine copy and match result must be the same.
A checking observer follows the trusting run and audits it (the host is honest either way)."""

import pytest

from unonet.engine import make_bot, make_rules, play_round
from unonet.fair import Identity
from unonet.fair._events import canonical_json
from unonet.fair.testing import det_randbytes
from unonet.table import LocalTable, TableHost, TableSeat, audit_transcript

CASES = [
    ("official", (), 4),
    ("official", ("seven-o", "stacking"), 4),
    ("official", ("jump-in",), 3),
    ("flip", (), 4),
]


def play(rules, players, seed, *, trusted, rounds=2):
    rb = det_randbytes(seed)
    host_id = Identity.generate(rb)
    ids = [Identity.generate(rb) for _ in range(players)]
    host = TableHost(rules, players, identity=host_id, seats=[i.public for i in ids], randbytes=rb)
    seats = [TableSeat(s, ids[s], host_id.public, randbytes=rb, trusted=trusted) for s in range(players)]
    table = LocalTable(host, seats, [TableSeat(None, None, host_id.public)])
    for r in range(rounds):
        rnd = table.open_round()
        rnd.start()
        if not rnd.over:
            play_round(rnd, [make_bot("random" if s % 2 else "heuristic", f"{seed}/{r}/{s}")
                             for s in range(players)])
        assert host.finished
        table.pump()  # the co-signs
    return table


def seat_state(seat):
    lg = seat.ledger
    return (lg.digest, lg.phase, sorted(seat.hand), dict(lg.cards), [p.holder for p in lg.positions],
            seat.match.history, seat.referee.match.scores, seat.round.hands[seat.seat], seat.owed())


@pytest.mark.parametrize("preset,house,players", CASES)
def test_a_trusting_seat_keeps_the_state_a_checking_seat_keeps(preset, house, players):
    rules = make_rules(preset, house)
    seed = f"trust-{preset}-{'-'.join(house)}-{players}"
    checking = play(rules, players, seed, trusted=False)
    trusting = play(rules, players, seed, trusted=True)
    assert trusting.lines == checking.lines
    for a, b in zip(checking.seats, trusting.seats):
        assert seat_state(b) == seat_state(a)
        assert a.violation is None and b.violation is None
        # the checking seat verified the others' signatures itself; the trusting one knows
        # only its own (which it made)
        assert {seat for seat, _ in a.ledger.verified} - {a.seat}
        assert {seat for seat, _ in b.ledger.verified} <= {b.seat}
    observer = trusting.observers[0]
    assert observer.violation is None and observer.ledger.digest == trusting.host.dealer.ledger.digest
    report = audit_transcript(trusting.lines)
    assert report.ok, report.summary


def test_a_trusting_seat_is_not_an_observer_s_licence():
    """Trust is the seat's own (its link's), never the table's: a checking seat at the same
    table still verifies every signature of the round."""
    rules = make_rules()
    table = play(rules, 4, "trust-mixed", trusted=True, rounds=1)
    checker = TableSeat(None, None, table.host.dealer.identity.public)
    assert not checker.trusted and not checker.match.trusted and not checker.ledger.trusted



def test_a_host_whose_record_lies_is_caught_by_every_checking_seat_beside_a_trusting_one():
    """The trusting seat does not compare the game record's events with its engine copy's
    (its own referee made both); a host whose record says what the rules do not give is
    still refused, on that record, by every seat that checks and by the observer."""
    from .helpers import draw_count_lie
    from .test_adversaries import _bots, play_until

    tamper = draw_count_lie()
    rb = det_randbytes("trust-lying-record")
    host_id = Identity.generate(rb)
    ids = [Identity.generate(rb) for _ in range(3)]
    host = TableHost(make_rules(), 3, identity=host_id, seats=[i.public for i in ids], randbytes=rb,
                     tamper_game=tamper)
    seats = [TableSeat(s, ids[s], host_id.public, randbytes=rb, trusted=s == 0) for s in range(3)]
    table = LocalTable(host, seats, [TableSeat(None, None, host_id.public)], strict=False)
    table.open_round().start()
    play_until(table, _bots(3, "trust-lie"), lambda: tamper.done)
    record = host.events[-1]
    assert record.EV == "game" and record.data["a"]["t"] == "draw"
    for p in [*seats[1:], *table.observers]:
        assert p.violation_event is record, (p.seat, p.violation)
        assert "draw gives" in p.violation.reason and "but the record says" in p.violation.reason
        assert p.violation.seat is None  # the host is the cheater
    assert not any(e.EV == "round-sign" for e in host.events)


def test_canonical_json_is_json_dumps_sorted_compact_ascii():
    """`canonical_json` keeps one encoder: the text is `json.dumps`'s with the same settings,
    for every event of a round (nested data, hex, non-ASCII escaped)."""
    import json

    table = play(make_rules(preset="flip"), 4, "trust-lines", trusted=False, rounds=1)
    objs = [e.to_json() for e in table.host.events] + [{"b": "é\u2603\n", "a": [1.5, None, True, {"z": 1, "y": []}]}]
    for obj in objs:
        assert canonical_json(obj) == json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
