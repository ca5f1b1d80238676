"""The language-neutral vectors for framing, padding, identity, versions and cards."""

import json
from pathlib import Path

import pytest

import unonet.protocol as P
from unonet.protocol._noise import CipherState

VEC = Path(__file__).resolve().parents[2] / "protocol" / "vectors"


def load(name):
    return json.loads((VEC / name).read_text())


FRAMING = load("framing.json")
IDENT = load("identity.json")


@pytest.mark.parametrize("v", FRAMING["padded"], ids=[v["name"] for v in FRAMING["padded"]])
def test_padded_plaintext_and_frame(v):
    msg = P.message_from_json(v["fields"])
    plain = bytes.fromhex(v["plaintext"])
    assert P.encode_message(msg).hex() == v["message"]
    assert P.encode_plaintext(msg) == plain and len(plain) % FRAMING["pad_block"] == 0
    assert P.decode_plaintext(plain) == msg
    frame = bytes.fromhex(v["frame"])
    reader = P.FrameReader()
    reader.receive_data(frame)
    cs = CipherState(bytes.fromhex(v["key"]))
    cs.set_nonce(v["nonce"])
    assert cs.decrypt_with_ad(b"", reader.next_frame()) == plain


@pytest.mark.parametrize("v", FRAMING["invalid_plaintexts"],
                         ids=[v["name"] for v in FRAMING["invalid_plaintexts"]])
def test_invalid_plaintext(v):
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.decode_plaintext(bytes.fromhex(v["hex"]))
    assert exc.value.code == v["code"] and exc.value.field == v["field"]


def test_frame_headers():
    assert P.encode_frame(b"\x00").hex() == FRAMING["frames"][0]["frame"]
    for v in FRAMING["invalid_frames"]:
        reader = P.FrameReader()
        reader.receive_data(bytes.fromhex(v["header"]))
        with pytest.raises(P.RemoteProtocolError) as exc:
            reader.next_frame()
        assert (exc.value.code, exc.value.field) == (v["code"], v["field"])


@pytest.mark.parametrize("k", IDENT["keys"], ids=lambda k: k["join_code"])
def test_fingerprints_and_codes(k):
    ident = P.Identity.from_private_bytes(bytes.fromhex(k["x25519_private"]),
                                          bytes.fromhex(k["ed25519_seed"]))
    static = bytes.fromhex(k["static_public"])
    assert ident.static_public == static and ident.sign_public.hex() == k["sign_public"]
    assert ident.seal_public.hex() == k["seal_public"]
    assert P.fingerprint(static).hex() == k["fingerprint"]
    assert P.short_fingerprint(static) == k["short_fingerprint"]
    assert P.join_code(static) == k["join_code"]
    assert k["fingerprint_text"].startswith(k["short_fingerprint"].replace("-", ""))


def test_prologue_and_hello_binding():
    assert bytes.fromhex(IDENT["prologue"]) == P.PROLOGUE
    hb = IDENT["hello_binding"]
    data = P.hello_binding(bytes.fromhex(hb["handshake_hash"]), bytes.fromhex(hb["static_public"]),
                           bytes.fromhex(hb["seal_public"]))
    assert data.hex() == hb["input"]
    assert P.verify_signature(bytes.fromhex(hb["sign_public"]), bytes.fromhex(hb["signature"]),
                              data)


def test_code_normalisation_and_checks():
    for v in IDENT["code_normalisation"]:
        assert P.normalize_join_code(v["input"]) == v["normalised"]
    for bad in IDENT["code_refused"]:
        with pytest.raises(P.InvalidJoinCodeError):
            P.normalize_join_code(bad)
    for v in IDENT["code_checks"]:
        static = bytes.fromhex(v["static_public"])
        if v["match"]:
            P.check_join_code(v["code"], static)
        else:
            with pytest.raises(P.JoinCodeMismatchError):
                P.check_join_code(v["code"], static)


@pytest.mark.parametrize("v", load("versions.json")["vectors"], ids=str)
def test_version_negotiation(v):
    (omin, omax), (tmin, tmax) = v["ours"], v["theirs"]
    if "use" in v:
        assert P.negotiate_version(tmin, tmax, omin, omax) == v["use"]
        assert P.negotiate_version(omin, omax, tmin, tmax) == v["use"]  # symmetric
    else:
        with pytest.raises(P.RemoteProtocolError) as exc:
            P.negotiate_version(tmin, tmax, omin, omax)
        assert exc.value.code == "version"


def test_every_card_of_every_deck_is_a_card_code():
    cards = load("cards.json")
    assert set(cards["decks"]) == {"classic", "2018", "office", "power", "flip"}
    for deck, faces in cards["decks"].items():
        for face in faces:
            assert P.is_card_code(face), face
            for half in face.split("/"):
                assert P.is_card_code(half), half
    for bad in cards["invalid"]:
        assert not P.is_card_code(bad), bad
