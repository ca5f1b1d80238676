"""Schema behaviour: self-validating messages, precise errors, forward compatibility."""

import dataclasses

import msgpack
import pytest

import unonet.protocol as P

def test_invalid_message_cannot_be_built_and_error_names_field_and_value():
    with pytest.raises(P.LocalProtocolError) as exc:
        P.Turn(seq=1, seat=10)
    assert exc.value.field == "turn.seat"
    assert exc.value.value == 10
    assert "turn.seat" in str(exc.value) and "10" in str(exc.value)
    assert not isinstance(exc.value, P.RemoteProtocolError)


@pytest.mark.parametrize("card", ["R0", "Y9", "GS", "BR", "Y+2", "W", "W+4", "WS", "WC", "WK", "R+1",
                                  "GF", "W+2", "P7", "TSE", "U+5", "OF", "W+C", "R5/T7", "W+2/W+C"])
def test_every_card_form_is_a_card_code(card):
    assert P.is_card_code(card)


@pytest.mark.parametrize("card", ["", "R", "P0", "PS", "R+4", "W+5", "WR", "R7 ", "r7", "RS:G", "W:G", "R5/G7", 7])
def test_bad_cards_are_not_card_codes(card):
    assert not P.is_card_code(card)


@pytest.mark.parametrize("t", ["play", "draw", "pass", "challenge", "uno", "catch", "color", "swap", "race",
                               "played", "drew", "passed", "challenged", "uno_called", "caught",
                               "color_chosen", "swapped", "hands", "raced"])
def test_the_superseded_game_messages_are_gone(t):
    """A round's moves travel as `fair` events only (spec §6.3): the old request and
    announcement types are unknown types on the wire."""
    assert t not in P.MESSAGE_TYPES
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(msgpack.packb({"t": t, "at": 1}))
    assert exc.value.code == "unknown-type"


def test_messages_are_frozen_and_keyword_only():
    m = P.Ready(round=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.round = 2
    with pytest.raises(TypeError):
        P.Ready(1)


def test_lists_become_tuples_and_bytearray_becomes_bytes():
    m = P.MatchOver(winner=0, scores=[1, 2], rounds=1, ledger=bytes(32))
    assert m.scores == (1, 2)
    h = P.Heartbeat(seq=1, head=bytearray(32))
    assert type(h.head) is bytes
    assert hash(m) == hash(P.MatchOver(winner=0, scores=(1, 2), rounds=1, ledger=bytes(32)))


def test_bool_is_not_an_int_and_int_is_not_a_bool():
    with pytest.raises(P.LocalProtocolError):
        P.Ready(round=True)
    with pytest.raises(P.LocalProtocolError):
        P.RoundEnd(round=1, reason="voided", final=1)


def test_unknown_fields_are_ignored_for_forward_compatibility():
    wire = msgpack.packb({"t": "ready", "round": 4, "future": {"x": [1, 2.5, None]}})
    assert P.decode_message(wire) == P.Ready(round=4)


def test_defaults_are_left_off_the_wire():
    assert msgpack.unpackb(P.encode_message(P.Turn(seq=1, seat=2))) == {"t": "turn", "seq": 1, "seat": 2}


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
    wire = msgpack.packb({"t": "round_end", "round": 1, "reason": "out", "winner": 0,
                          "points": [{"seat": 99, "points": 3}]})
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_message(wire)
    assert exc.value.field == "round_end.points[0].seat" and exc.value.value == 99


def test_encode_refuses_oversized_and_wrong_channel():
    # every message at its caps fits (test_caps); the encoder's own guard, past the schema:
    big = P.Ready(round=1)
    object.__setattr__(big, "round", b"x" * 66000)
    with pytest.raises(P.LocalProtocolError) as exc:
        P.encode_message(big)
    assert exc.value.code == "too-large"
    with pytest.raises(P.LocalProtocolError):
        P.encode_message(P.Probe(v=1, vmin=1, nonce=bytes(8)))
    with pytest.raises(P.LocalProtocolError):
        P.encode_datagram(P.Ready(round=1))


def test_decode_refuses_oversized_input():
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_datagram(b"\x00" * (P.MAX_DATAGRAM + 1))
    assert exc.value.code == "too-large"


def test_sender_table():
    assert P.may_send(P.PLAYER, P.Ready) and not P.may_send(P.HOST, P.Ready)
    assert P.may_send(P.HOST, P.Turn) and not P.may_send(P.PLAYER, P.Turn)
    assert not P.may_send(P.OBSERVER, P.Fair)
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


def test_a_padded_plaintext_has_only_zero_bytes_after_its_message():
    plain = P.encode_plaintext(P.Heartbeat(seq=3))
    end = len(P.encode_message(P.Heartbeat(seq=3)))
    assert P.decode_plaintext(plain) == P.Heartbeat(seq=3)
    for at in (end, (end + len(plain)) // 2, len(plain) - 1):  # one non-zero byte anywhere in the padding
        bad = plain[:at] + b"\x01" + plain[at + 1:]
        with pytest.raises(P.RemoteProtocolError, match="padding bytes must be zero") as exc:
            P.decode_plaintext(bad)
        assert exc.value.field == "padding"
    with pytest.raises(P.RemoteProtocolError, match="bytes of padding"):
        P.decode_plaintext(plain + bytes(P.PAD_BLOCK))
