"""Replay the cacophony Noise vectors byte for byte, in both roles."""

import json
from pathlib import Path

import pytest

from unonet.protocol import HandshakeState, KeyPair

# A copy of shared/vectors/noise-25519-chachapoly-sha256.json kept with our own vectors, so the
# tests need nothing outside the repository.
VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "noise-25519-chachapoly-sha256.json"

DATA = json.loads(VECTORS.read_text())


def _h(v):
    return None if v is None else bytes.fromhex(v)


def _kp(v):
    return None if v is None else KeyPair.from_private_bytes(bytes.fromhex(v))


def _side(vec, prefix, initiator):
    return HandshakeState(
        vec["protocol_name"],
        initiator=initiator,
        prologue=_h(vec[f"{prefix}_prologue"]),
        s=_kp(vec.get(f"{prefix}_static")),
        e=_kp(vec.get(f"{prefix}_ephemeral")),
        rs=_h(vec.get(f"{prefix}_remote_static")),
        psks=[bytes.fromhex(p) for p in vec.get(f"{prefix}_psks", [])],
    )


def test_vector_file_structure():
    assert set(DATA) >= {"vectors"}
    names = [v["protocol_name"] for v in DATA["vectors"]]
    assert "Noise_XX_25519_ChaChaPoly_SHA256" in names
    for vec in DATA["vectors"]:
        assert vec["protocol_name"].endswith("_25519_ChaChaPoly_SHA256")
        assert len(vec["messages"]) >= 3


@pytest.mark.parametrize("vec", DATA["vectors"], ids=lambda v: v["protocol_name"])
def test_vector(vec):
    init = _side(vec, "init", True)
    resp = _side(vec, "resp", False)
    sender, receiver = init, resp
    transport = None  # (init_send, init_recv, resp_send, resp_recv)
    for i, msg in enumerate(vec["messages"]):
        payload, ciphertext = bytes.fromhex(msg["payload"]), bytes.fromhex(msg["ciphertext"])
        initiator_sends = i % 2 == 0
        if transport is None:
            assert sender.write_message(payload) == ciphertext
            assert receiver.read_message(ciphertext) == payload
            if init.complete:
                assert resp.complete
                assert init.handshake_hash == resp.handshake_hash == bytes.fromhex(vec["handshake_hash"])
                transport = (*init.split(), *resp.split())
            else:
                sender, receiver = receiver, sender
        else:
            i_send, i_recv, r_send, r_recv = transport
            enc, dec = (i_send, r_recv) if initiator_sends else (r_send, i_recv)
            assert enc.encrypt_with_ad(b"", payload) == ciphertext
            assert dec.decrypt_with_ad(b"", ciphertext) == payload
    assert transport is not None
