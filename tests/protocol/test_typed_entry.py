"""Types are checked where a message enters (issue 23 item 2): a seat's signed `act` whose
action says ``"seat": 2.0`` used to be published, refused later by the engine and wedge the
round.  Every field of every event a seat sends, and every field of an engine action,
is replaced by values of the wrong type and fed to the host's real entry point (a
`SecureLink` receiving encrypted bytes): each is refused as `malformed` with the field's
path, and nothing else ever escapes the decoder."""

from __future__ import annotations

import json

import msgpack
import pytest

import unonet.protocol as P
from unonet.fair.testing import FairTable
from unonet.protocol._messages import PLAYER_FAIR_EVENTS

from .protocol_helpers import ConnectionPair, feed

TABLE = bytes(range(16))
WRONG = [2.0, True, False, "2", None, [], {}, [1], {"a": 1}, -1, 1 << 40, "x" * 300, 0.5]


def _round_events():
    """A played round's events (with engine-shaped actions in the acts)."""
    idents = [P.Identity.generate() for _ in range(3)]
    t = FairTable(3, table=TABLE, identities=[i.fair_identity() for i in idents],
                  host_identity=P.Identity.generate().fair_identity(), seed="typed-entry")
    t.start()
    t.deal_hands()
    t.turn_up()
    j = min(t.hand(0))
    act = t.verifiers[0].act({"t": "play", "seat": 0, "pos": j, "color": None, "uno": False}, j)
    t.send(act, 0)
    t.send(t.verifiers[1].act({"t": "draw", "seat": 1}), 1)
    t.send(t.verifiers[2].act({"t": "catch", "seat": 2, "target": 0}), 2)
    t.finish()
    return t.events


def _raw_fair(body: dict, ev: str) -> bytes:
    """A `fair` message as the attacker writes it: msgpack by hand, padded (the sending
    side's own checks never run)."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    data = msgpack.packb({"t": "fair", "round": 1, "ev": ev, "body": text.encode("ascii")}, use_bin_type=True)
    return data + bytes(P.pad_length(len(data)) - len(data))


def _at_host(plaintext: bytes):
    """What the host's link makes of one encrypted frame from a seated player."""
    pair = ConnectionPair()
    frame = P.encode_frame(pair.peer._send_cs.encrypt_with_ad(b"", plaintext))
    try:
        return feed(pair.host, frame)
    except P.RemoteProtocolError as exc:
        return exc


def _mutations(body: dict):
    """(path, mutated body) for every top-level field and every action field."""
    for key in sorted(body):
        if key == "ev":
            continue
        for bad in WRONG:
            if type(bad) is type(body[key]) and bad == body[key]:
                continue
            yield key, body[key], bad, {**body, key: bad}
    action = body.get("action")
    if isinstance(action, dict):
        for key in sorted(action):
            for bad in WRONG:
                if type(bad) is type(action[key]) and bad == action[key]:
                    continue
                yield f"action.{key}", action[key], bad, {**body, "action": {**action, key: bad}}
        for extra in ("target", "zz", "seat2"):
            if extra not in action:
                yield f"action.{extra}", None, 1, {**body, "action": {**action, extra: 1}}


def test_the_genuine_events_pass_the_entry_point():
    kinds = set()
    for e in _round_events():
        if e.EV not in PLAYER_FAIR_EVENTS:
            continue
        got = _at_host(_raw_fair(e.to_json(), e.EV))
        assert not isinstance(got, Exception), (e.EV, got)
        assert got[-1].event() == e
        kinds.add(e.EV)
    assert {"act", "player-commit", "player-reveal", "reveal"} <= kinds


def test_every_wrong_type_in_a_seats_event_is_refused_at_entry_with_its_field():
    tried = refused = 0
    for e in _round_events():
        if e.EV not in PLAYER_FAIR_EVENTS:
            continue
        for path, was, bad, body in _mutations(e.to_json()):
            got = _at_host(_raw_fair(body, e.EV))
            tried += 1
            # (null is how an optional field is absent: not a wrong type)
            retyped = bad is not None and type(bad) is not type(was)
            if isinstance(got, Exception):
                assert got.code == "malformed", (e.EV, path, bad, got)
                assert got.field is not None and got.field.startswith("fair."), (e.EV, path, got.field)
                if path.startswith("action."):
                    assert got.field == f"fair.body.{path}" or got.field == "fair.body.action", (path, got.field)
                refused += 1
            else:
                # what passes is well typed: a wrong-typed value never gets through
                assert not retyped, (e.EV, path, was, bad)
    assert tried > 300 and refused > tried * 0.9


@pytest.mark.parametrize("seat", [2.0, True, "2", None, 3])
def test_an_act_whose_action_seat_is_not_the_acts_own_int_is_refused(seat):
    """The attack of the issue: a signed challenge with ``"seat": 2.0`` (and its kin)."""
    body = {"ev": "act", "seat": 2, "n": 0, "opening": None, "sig": "00" * 64,
            "action": {"t": "challenge", "seat": seat}}
    got = _at_host(_raw_fair(body, "act"))
    assert isinstance(got, P.RemoteProtocolError) and got.code == "malformed"
    assert got.field == "fair.body.action.seat"


def test_a_seat_may_not_close_a_race_nor_name_an_unknown_action():
    for action, field in (({"t": "closerace"}, "fair.body.action.t"),
                          ({"t": "teleport", "seat": 1}, "fair.body.action.t"),
                          ({"t": "draw", "seat": 1, "cards": 9}, "fair.body.action.cards"),
                          ({"t": "catch", "seat": 1}, "fair.body.action.target"),
                          ({"t": "play", "seat": 1, "pos": 3, "color": "purple"}, "fair.body.action.color")):
        body = {"ev": "act", "seat": 1, "n": 0, "opening": None, "sig": "00" * 64, "action": action}
        got = _at_host(_raw_fair(body, "act"))
        assert isinstance(got, P.RemoteProtocolError) and got.field == field, (action, got)
