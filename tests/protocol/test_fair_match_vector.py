"""The whole-match vector (protocol/vectors/fair-match.json): every line travels as a `fair`
message byte for byte, audits clean, and every sealed deal opens for its seat."""

from __future__ import annotations

import json
from pathlib import Path

import unonet.protocol as P
from unonet.fair import Deal, Identity
from unonet.fair._events import Event
from unonet.table import TableSeat, audit_transcript

VECTOR = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "fair-match.json"


def _events(lines):
    for ln in lines:
        obj = json.loads(ln)
        obj.pop("prev")
        yield Event.from_json(obj)


def test_the_match_vector_audits_clean_and_travels_byte_for_byte():
    v = json.loads(VECTOR.read_text())
    report = audit_transcript(v["lines"])
    starts = sum(1 for ln in v["lines"] if json.loads(ln)["ev"] == "round-start")
    assert starts >= 2  # a whole match, every round to the target
    assert report.ok and report.rounds == starts and report.unsigned == () and report.games == starts, report.summary
    evs = [e.EV for e in _events(v["lines"])]
    assert evs[:3] == ["match-start", "match-join", "match-join"] and evs[-2:] == ["round-sign", "round-sign"]
    rnd = 0
    for e in _events(v["lines"]):
        rnd = getattr(e, "round", rnd) if e.EV == "round-start" else rnd
        msg = P.Fair.of(e, round=0 if e.EV.startswith("match-") else rnd)
        back = P.decode_message(P.encode_message(msg))
        assert back == msg and back.event() == e


def test_each_seat_of_the_vector_opens_its_deals_and_an_observer_replays_the_round():
    from unonet.fair._seal import deal_ad, open_sealed
    from unonet.fair._shuffle import unpad_openings

    v = json.loads(VECTOR.read_text())
    host = Identity(bytes.fromhex(v["secrets"]["host"]))
    seats = [Identity(bytes.fromhex(v["secrets"][f"seat {s}"])) for s in range(2)]
    viewer = TableSeat(None, None, host.public)
    deals = 0
    for e in _events(v["lines"]):
        viewer.receive(e)  # every check a live observer runs, the engine replay at round-end included
        if isinstance(e, Deal):
            lg = viewer.ledger
            me = seats[e.seat]
            plain = open_sealed(e.sealed, identity=me, ad=deal_ad(lg.table, lg.round_no, e.position, e.seat,
                                                                  me.public.dh_key))
            (o,) = unpad_openings(plain, lg.opening_size)
            assert o.position == e.position and o.matches(lg.table, lg.round_no, lg.commitment(e.position))
            deals += 1
    assert deals > 14 and viewer.violation is None and viewer.referee.match.history
