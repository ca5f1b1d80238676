"""Schema behaviour: self-validating messages, precise errors, forward compatibility."""

import dataclasses

import msgpack
import pytest

import unonet.protocol as P

SALT = bytes(range(32))


def play(**kw):
    base = dict(at=1, card="R7", pos=5, salt=SALT)
    base.update(kw)
    return P.Play(**base)


def test_invalid_message_cannot_be_built_and_error_names_field_and_value():
    with pytest.raises(P.LocalProtocolError) as exc:
        play(card="R10")
    assert exc.value.field == "play.card"
    assert exc.value.value == "R10"
    assert "play.card" in str(exc.value) and "'R10'" in str(exc.value)
    assert not isinstance(exc.value, P.RemoteProtocolError)


@pytest.mark.parametrize("card", ["R0", "Y9", "GS", "BR", "Y+2", "W", "W+4", "WS", "WC", "WK", "R+1",
                                  "GF", "W+2", "P7", "TSE", "U+5", "OF", "W+C", "R5/T7", "W+2/W+C"])
def test_every_card_form_is_accepted(card):
    kw = {"color": "R"} if card.startswith("W") else {}
    assert P.decode_message(P.encode_message(play(card=card, **kw))).card == card


@pytest.mark.parametrize("card", ["", "R", "P0", "PS", "R+4", "W+5", "WR", "R7 ", "r7", "RS:G", "W:G", "R5/G7", 7])
def test_bad_cards_refused(card):
    with pytest.raises(P.LocalProtocolError):
        play(card=card)


def test_messages_are_frozen_and_keyword_only():
    m = play()
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.card = "R8"
    with pytest.raises(TypeError):
        P.Draw(1)


def test_lists_become_tuples_and_bytearray_becomes_bytes():
    m = P.Raced(seq=1, kind="chili", order=[0, 1])
    assert m.order == (0, 1)
    h = P.Heartbeat(seq=1, head=bytearray(32))
    assert type(h.head) is bytes
    assert hash(m) == hash(P.Raced(seq=1, kind="chili", order=(0, 1)))


def test_bool_is_not_an_int_and_int_is_not_a_bool():
    with pytest.raises(P.LocalProtocolError):
        P.Draw(at=True)
    with pytest.raises(P.LocalProtocolError):
        play(uno=1)


def test_unknown_fields_are_ignored_for_forward_compatibility():
    wire = msgpack.packb({"t": "draw", "at": 4, "future": {"x": [1, 2.5, None]}})
    assert P.decode_message(wire) == P.Draw(at=4)


def test_defaults_are_left_off_the_wire():
    assert msgpack.unpackb(P.encode_message(play())) == {
        "t": "play", "at": 1, "card": "R7", "pos": 5, "salt": SALT}


def test_cross_field_rules():
    with pytest.raises(P.LocalProtocolError, match="winner"):
        P.RoundEnd(round=1, reason="out")
    with pytest.raises(P.LocalProtocolError, match="vmin"):
        P.Probe(v=1, vmin=2, nonce=bytes(8))
    with pytest.raises(P.LocalProtocolError, match="taken"):
        P.Beacon(v=1, vmin=1, table=bytes(16), name="t", host="h", port=1, seats=2, taken=3,
                 rules="official", fp=bytes(32))
    with pytest.raises(P.LocalProtocolError, match="twice"):
        P.Roster(table=bytes(16), epoch=0, host=bytes(32), rules="official",
                 players=[P.PlayerEntry(seat=1, id=bytes(32), name="a"),
                          P.PlayerEntry(seat=1, id=bytes(32), name="b")])


def test_names_refuse_terminal_escapes():
    with pytest.raises(P.LocalProtocolError, match="control"):
        P.ObserverEntry(id=bytes(32), name="\x1b]0;pwned\x07")
    assert P.ObserverEntry(id=bytes(32), name="Zoë 🎲").name == "Zoë 🎲"


def test_nested_error_path():
    wire = msgpack.packb({"t": "challenged", "seq": 1, "seat": 0, "target": 1, "guilty": True,
                          "proof": {"pos": 99999, "card": "R1", "salt": SALT}})
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(wire)
    assert exc.value.field == "challenged.proof.pos" and exc.value.value == 99999


def test_encode_refuses_oversized_and_wrong_channel():
    big = P.Hands(seq=1, reason="zero", hands=[P.SeatPositions(seat=0, positions=[1])],
                  sealed=[bytes(256)] * 256)
    with pytest.raises(P.LocalProtocolError) as exc:
        P.encode_message(big)
    assert exc.value.code == "too-large"
    with pytest.raises(P.LocalProtocolError):
        P.encode_message(P.Probe(v=1, vmin=1, nonce=bytes(8)))
    with pytest.raises(P.LocalProtocolError):
        P.encode_datagram(P.Draw(at=1))


def test_decode_refuses_oversized_input():
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_datagram(b"\x00" * (P.MAX_DATAGRAM + 1))
    assert exc.value.code == "too-large"


def test_sender_table():
    assert P.may_send(P.PLAYER, P.Play) and not P.may_send(P.HOST, P.Play)
    assert P.may_send(P.HOST, P.Played) and not P.may_send(P.PLAYER, P.Played)
    assert not P.may_send(P.OBSERVER, P.Draw)
    for cls in P.MESSAGE_TYPES.values():
        assert cls.SENDERS and cls.SENDERS <= set(P.ROLES)


def test_public_names_are_exported_from_the_package():
    for name in P.__dict__:
        obj = getattr(P, name)
        if isinstance(obj, type) and not name.startswith("_"):
            # the fingerprint's refusals live in the one module both layers share
            assert obj.__module__ in ("unonet.protocol", "unonet.fingerprint"), name
    for cls in P.MESSAGE_TYPES.values():
        assert getattr(P, cls.__name__) is cls


def test_local_and_remote_errors_are_protocol_errors():
    assert issubclass(P.LocalProtocolError, P.ProtocolError)
    assert issubclass(P.RemoteProtocolError, P.ProtocolError)
    with pytest.raises(TypeError):
        P.ProtocolError("abstract")
