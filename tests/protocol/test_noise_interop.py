"""Our Noise against the independent ``noiseprotocol`` package, both directions."""

import pytest

noise_connection = pytest.importorskip("noise.connection")
from noise.connection import Keypair, NoiseConnection  # noqa: E402

import unonet.protocol as P  # noqa: E402
from unonet.protocol._framing import FrameReader  # noqa: E402

NAME = b"Noise_XX_25519_ChaChaPoly_SHA256"
PROLOGUE = b"interop"


def theirs(initiator: bool, static: P.KeyPair, prologue=PROLOGUE) -> NoiseConnection:
    conn = NoiseConnection.from_name(NAME)
    conn.set_as_initiator() if initiator else conn.set_as_responder()
    conn.set_keypair_from_private_bytes(Keypair.STATIC, static.private.private_bytes_raw())
    conn.set_prologue(prologue)
    conn.start_handshake()
    return conn


@pytest.mark.parametrize("we_initiate", [True, False], ids=["ours-initiator", "theirs-initiator"])
def test_handshake_and_transport(we_initiate):
    our_static, their_static = P.KeyPair.generate(), P.KeyPair.generate()
    us = P.HandshakeState(initiator=we_initiate, prologue=PROLOGUE, s=our_static)
    them = theirs(not we_initiate, their_static)
    payloads = [b"", b"second payload", b"third"]
    for i, payload in enumerate(payloads):
        if (i % 2 == 0) == we_initiate:
            assert bytes(them.read_message(us.write_message(payload))) == payload
        else:
            assert us.read_message(bytes(them.write_message(payload))) == payload
    assert us.complete and them.handshake_finished
    assert us.handshake_hash == them.get_handshake_hash()
    assert us.rs == their_static.public
    send, recv = us.split()
    for n in range(5):
        msg = f"ours {n}".encode() * (n + 1)
        assert them.decrypt(send.encrypt_with_ad(b"", msg)) == msg
        reply = f"theirs {n}".encode()
        assert recv.decrypt_with_ad(b"", them.encrypt(reply)) == reply
    # rekey interoperates too (Noise §11.3)
    send.rekey()
    them.rekey_inbound_cipher()
    assert them.decrypt(send.encrypt_with_ad(b"", b"after rekey")) == b"after rekey"


def test_prologue_mismatch_detected_by_both_implementations():
    us = P.HandshakeState(initiator=True, prologue=b"a", s=P.KeyPair.generate())
    them = theirs(False, P.KeyPair.generate(), prologue=b"b")
    them.read_message(us.write_message())
    with pytest.raises(P.RemoteProtocolError):
        us.read_message(bytes(them.write_message()))


@pytest.mark.parametrize("we_initiate", [True, False], ids=["link-initiator", "link-responder"])
def test_secure_link_against_noiseprotocol(we_initiate):
    """A whole SecureLink session, framed, against their implementation."""
    ident = P.Identity.generate()
    their_static = P.KeyPair.generate()
    link = P.SecureLink(ident, role=P.PLAYER if we_initiate else P.HOST, initiator=we_initiate)
    them = theirs(not we_initiate, their_static, prologue=P.PROLOGUE)
    reader = FrameReader()

    def from_link():
        reader.receive_data(link.data_to_send())
        frame = reader.next_frame()
        assert isinstance(frame, bytes)
        return frame

    def to_link(body: bytes):
        link.receive_data(P.encode_frame(body))
        ev = link.next_event()
        if isinstance(ev, P.PeerKey):  # trust gate: approve, then the handshake completes
            assert ev.remote_static == their_static.public
            link.accept_peer()
            ev = link.next_event()
        return ev

    if we_initiate:
        them.read_message(from_link())
        ev = to_link(bytes(them.write_message()))
        them.read_message(from_link())
    else:
        assert to_link(bytes(them.write_message())) is P.NEED_DATA
        them.read_message(from_link())
        ev = to_link(bytes(them.write_message()))
    assert isinstance(ev, P.HandshakeComplete)
    assert ev.remote_static == their_static.public
    assert ev.handshake_hash == them.get_handshake_hash()
    # our hello, decrypted and decoded by hand on their side
    reader.receive_data(link.send(link.hello(name="us")))
    hello = P.decode_plaintext(them.decrypt(reader.next_frame()))
    assert isinstance(hello, P.Hello) and hello.name == "us"
    assert P.verify_signature(hello.sign_key, hello.sig,
                              P.hello_binding(ev.handshake_hash, ident.static_public, hello.seal_key))
    # their hello and a message, encrypted by them
    peer_ident = P.Identity.generate()  # their signing key; binding uses their Noise key
    sig = peer_ident.sign(P.hello_binding(ev.handshake_hash, their_static.public, peer_ident.seal_public))
    their_hello = P.Hello(v=P.PROTOCOL_VERSION, vmin=P.MIN_PROTOCOL_VERSION, role=P.HOST if we_initiate else P.PLAYER, name="them",
                          sign_key=peer_ident.sign_public, seal_key=peer_ident.seal_public,
                          sig=sig)
    assert to_link(them.encrypt(P.encode_plaintext(their_hello))) == their_hello
    msg = P.Turn(seq=1, seat=2) if we_initiate else P.Ready(round=1)
    assert to_link(them.encrypt(P.encode_plaintext(msg))) == msg
