"""The wire carries the fair layer's events one to one (review finding 1)."""

import json

import msgpack
import pytest

import unonet.fair as F
from unonet.fair.testing import FairTable

import unonet.protocol as P
from .protocol_helpers import ConnectionPair, fair_vector_events

TABLE = bytes(range(16))


def _table(**kw):
    idents = [P.Identity.generate() for _ in range(3)]
    t = FairTable(3, table=TABLE, identities=[i.fair_identity() for i in idents],
                  host_identity=P.Identity.generate().fair_identity(), **kw)
    return t, idents


def test_a_whole_fair_round_travels_byte_for_byte():
    t, _ = _table(seed="wire-round")
    t.start()
    t.deal_hands()
    t.turn_up()
    t.play(0, min(t.hand(0)))
    t.finish()
    kinds = set()
    observer = F.FairVerifier()
    for ev in t.events:
        msg = P.Fair.of(ev, round=1)
        wire = P.encode_message(msg)
        back = P.decode_message(wire)
        assert back == msg
        got = back.event()
        assert got == ev and got.canonical().encode() == back.body  # the digested bytes
        observer.receive(got)
        kinds.add(ev.EV)
    assert {"round-start", "seed-commit", "player-commit", "player-reveal", "commitments",
            "deal", "turn-up", "act", "reveal", "seed-reveal", "round-end"} <= kinds
    # the transcript of what crossed the wire audits clean
    assert F.audit(t.lines).ok


def test_every_fair_event_type_has_a_wire_form():
    events = fair_vector_events()
    from unonet.fair._events import EVENT_TYPES
    assert {e.EV for e in events} == set(EVENT_TYPES)
    for ev in events:
        assert P.decode_message(P.encode_message(P.Fair.of(ev, round=1))).event() == ev


def test_player_commit_signature_and_seat_travel():
    t, _ = _table(seed="wire-commit")
    t.start()
    pc = next(e for e in t.events if e.EV == "player-commit")
    body = json.loads(P.decode_message(P.encode_message(P.Fair.of(pc, round=1))).body)
    assert bytes.fromhex(body["sig"]) == pc.sig and body["seat"] == pc.seat
    rs = next(e for e in t.events if e.EV == "round-start")
    body = json.loads(P.Fair.of(rs, round=1).body)
    assert bytes.fromhex(body["table"]) == TABLE and len(body["seats"]) == 3 and body["deck"]


def test_seed_commit_is_the_fair_layers_domain_separated_commitment():
    t, _ = _table(seed="wire-seed")
    t.start()
    sc = next(e for e in t.events if e.EV == "seed-commit")
    t.finish()
    sr = next(e for e in t.events if e.EV == "seed-reveal")
    import hashlib
    assert sc.host_commit != hashlib.sha256(sr.host_secret).digest()


@pytest.mark.parametrize("ev", sorted(P.PLAYER_FAIR_EVENTS))
def test_player_may_send_only_player_events(ev):
    assert ev in P.Fair.__dataclass_fields__["ev"].metadata["kind"].values


def test_link_refuses_a_host_event_from_a_player():
    pair = ConnectionPair()
    fake = P.Fair.of(F.SeedReveal(epoch=0, host_secret=bytes(32)), round=1)
    with pytest.raises(P.LocalProtocolError) as exc:
        pair.peer.send(fake)
    assert exc.value.code == "forbidden"
    # forced onto the wire anyway: the host refuses it
    ct = pair.peer._send_cs.encrypt_with_ad(b"", P.encode_plaintext(fake))
    with pytest.raises(P.RemoteProtocolError) as exc:
        pair.host.receive_data(P.encode_frame(ct))
        pair.host.next_event()
    assert exc.value.code == "forbidden"


def test_link_carries_player_and_host_events():
    pair = ConnectionPair()
    pc = P.Fair.of(F.PlayerCommit(epoch=0, seat=1, commit=bytes(32), sig=bytes(64)), round=1)
    assert pair.to_host(pc) == [pc]
    sr = P.Fair.of(F.SeedReveal(epoch=0, host_secret=bytes(32)), round=1)
    assert pair.to_peer(sr) == [sr]


def test_hello_announces_the_seal_key_bound_by_the_signature():
    pair = ConnectionPair()
    assert pair.host.peer_fair_identity == pair.peer_identity.fair_identity().public
    assert pair.peer.peer_fair_identity == pair.host_identity.fair_identity().public
    assert pair.peer_identity.seal_public != pair.peer_identity.static_public
    # a hello whose seal key was swapped does not verify
    other = ConnectionPair(hello=False)
    h = other.peer.hello(name="pat")
    import dataclasses
    forged = dataclasses.replace(h, seal_key=P.Identity.generate().seal_public)
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed_all(other.host, other.peer.send(forged))
    assert exc.value.code == "auth"


def feed_all(link, data):
    link.receive_data(data)
    return link.next_event()


def test_seal_key_is_stable_for_an_identity(tmp_path):
    a = P.load_or_create_identity(tmp_path)
    b = P.load_or_create_identity(tmp_path)
    assert a.seal_public == b.seal_public
    assert a.fair_identity().public.sign_key == a.sign_public


def test_a_non_canonical_body_is_refused():
    ev = F.SeedReveal(epoch=0, host_secret=bytes(32))
    body = json.dumps(ev.to_json(), indent=1).encode()
    wire = msgpack.packb({"t": "fair", "round": 1, "ev": ev.EV, "body": body})
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(wire)
    assert exc.value.field == "fair.body"


def test_a_deeply_nested_body_is_a_clean_error():
    body = b'{"data":' + b"[" * 100_000 + b"]" * 100_000 + b',"ev":"game"}'
    wire = msgpack.packb({"t": "fair", "round": 1, "ev": "game", "body": body[:65000]})
    with pytest.raises(P.RemoteProtocolError):
        P.decode_message(wire)


def test_a_game_record_nests_at_most_sixteen_deep():
    def nested(depth):  # a value `depth` deep: the data dict is 1, each container inside one more
        v = 0
        for k in range(depth - 2):
            v = [v] if k % 2 else {"k": v}
        return {"g": "act", "a": v}

    for depth, ok in ((16, True), (17, False)):
        ev = F.GameEvent(data=nested(depth))
        wire = msgpack.packb({"t": "fair", "round": 1, "ev": "game", "body": ev.canonical().encode()})
        if ok:
            assert P.decode_message(wire).event() == ev
        else:
            with pytest.raises(P.RemoteProtocolError, match="deeper than 16"):
                P.decode_message(wire)
    for flat in ({"g": "act", "a": []}, {"g": "act", "a": [[], {}, 1, "x"]}):
        assert P.decode_message(msgpack.packb({"t": "fair", "round": 1, "ev": "game",
                                               "body": F.GameEvent(data=flat).canonical().encode()})).event().data == flat
