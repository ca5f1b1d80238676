"""SecureLink: Noise XX + framing + codec + session rules, over a fake network."""

import pytest

import unonet.protocol as P
from unonet.protocol._noise import MAX_NONCE

from .protocol_helpers import ConnectionPair, feed, pump


@pytest.mark.parametrize("chunk", [None, 1, 7])
def test_handshake_hello_and_messages_in_any_chunking(chunk):
    pair = ConnectionPair(chunk=chunk)
    hc_host = [e for e in pair.host_events if isinstance(e, P.HandshakeComplete)]
    hc_peer = [e for e in pair.peer_events if isinstance(e, P.HandshakeComplete)]
    assert hc_host[0].remote_static == pair.peer_identity.static_public
    assert hc_peer[0].remote_static == pair.host_identity.static_public
    assert hc_host[0].handshake_hash == hc_peer[0].handshake_hash
    assert hc_peer[0].peer_id == pair.host_identity.fingerprint
    assert pair.host.peer_hello.name == "pat" and pair.peer.peer_hello.name == "hal"
    assert pair.host.version == pair.peer.version == P.PROTOCOL_VERSION
    ready = P.Ready(round=3)
    assert pair.to_host(ready) == [ready]
    turn = P.Turn(seq=4, seat=1, timeout_ms=30000)
    assert pair.to_peer(turn) == [turn]


def test_ciphertext_does_not_contain_plaintext():
    pair = ConnectionPair()
    wire = pair.peer.send(P.Leave(reason="secret-marker-xyz"))
    assert b"secret-marker-xyz" not in wire


def test_tampered_frame_kills_the_link():
    pair = ConnectionPair()
    wire = bytearray(pair.peer.send(P.Ready(round=1)))
    wire[-1] ^= 1
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed(pair.host, bytes(wire))
    assert exc.value.code == "decrypt" and "decryption failed" in str(exc.value)
    assert pair.host.state is P.ERROR
    with pytest.raises(P.RemoteProtocolError):
        pair.host.next_event()
    with pytest.raises(P.LocalProtocolError) as exc2:
        pair.host.send(P.Turn(seq=1, seat=0))
    assert exc2.value.code == "closed"


def test_replayed_frame_is_refused():
    pair = ConnectionPair()
    wire = pair.peer.send(P.Ready(round=1))
    assert feed(pair.host, wire) == [P.Ready(round=1)]
    with pytest.raises(P.RemoteProtocolError):
        feed(pair.host, wire)


def test_send_nonce_exhaustion_ends_the_link():
    pair = ConnectionPair()
    pair.peer._send_cs.set_nonce(MAX_NONCE - 1)
    last = pair.peer.send(P.Ready(round=1))  # n = 2^64-2 is the last usable nonce
    with pytest.raises(P.LocalProtocolError) as exc:
        pair.peer.send(P.Ready(round=2))
    assert exc.value.code == "nonce-exhausted"
    assert pair.peer.state is P.ERROR
    pair.host._recv_cs.set_nonce(MAX_NONCE - 1)
    assert feed(pair.host, last) == [P.Ready(round=1)]
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed(pair.host, last)
    assert exc.value.code == "nonce-exhausted"


def test_wrong_prologue_fails_the_handshake():
    a = P.SecureLink(P.Identity.generate(), role=P.PLAYER, initiator=True, prologue=b"other")
    b = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=False)
    pump(a, b)
    with pytest.raises(P.RemoteProtocolError) as exc:
        pump(b, a)
    assert exc.value.code == "auth"


def test_garbage_instead_of_handshake():
    b = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=False)
    with pytest.raises(P.RemoteProtocolError):
        feed(b, P.encode_frame(b"\x01" * 10))


def test_first_message_must_be_hello_both_ways():
    pair = ConnectionPair(hello=False)
    with pytest.raises(P.LocalProtocolError):
        pair.peer.send(P.Ready(round=1))
    # a peer that skips hello anyway is refused
    pair.peer._hello_sent = True
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed(pair.host, pair.peer.send(P.Ready(round=1)))
    assert exc.value.code == "unexpected"


def test_hello_signed_for_another_session_is_refused():
    pair = ConnectionPair(hello=False)
    other = ConnectionPair(hello=False, peer_id=pair.peer_identity)
    stolen = other.peer.hello(name="pat")  # valid signature, but bound to the other handshake
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed(pair.host, pair.peer.send(stolen))
    assert exc.value.code == "auth" and exc.value.field == "hello.sig"


def test_role_rules():
    pair = ConnectionPair(hello=False)
    feed(pair.host, pair.peer.send(pair.peer.hello(name="pat")))
    with pytest.raises(P.LocalProtocolError) as exc:  # we refuse to send a host's message
        pair.peer.send(P.Turn(seq=1, seat=0))
    assert exc.value.code == "forbidden"
    pair2 = ConnectionPair(role=P.OBSERVER)
    pair2.peer.role = P.PLAYER  # a lying observer sends a player action
    with pytest.raises(P.RemoteProtocolError) as exc:
        pair2.to_host(P.Ready(round=1))
    assert exc.value.code == "forbidden"


def test_two_hosts_refuse_each_other():
    a = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=True)
    b = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=False)
    pump(a, b), pump(b, a), pump(a, b)
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed(b, a.send(a.hello(name="x")))
    assert exc.value.field == "hello.role"


def test_version_negotiation():
    v = P.PROTOCOL_VERSION
    assert P.negotiate_version(1, v + 2) == v
    assert P.negotiate_version(1, 1, our_min=1, our_max=2) == 1
    with pytest.raises(P.RemoteProtocolError) as exc:
        P.negotiate_version(v + 1, v + 4)
    assert exc.value.code == "version"
    with pytest.raises(P.RemoteProtocolError) as exc:  # an old peer: version 1 only
        P.negotiate_version(1, 1)
    assert exc.value.code == "version"
    pair = ConnectionPair(hello=False)
    future = pair.peer.hello(name="pat")
    future = type(future)(**{**{f.name: getattr(future, f.name) for f in future.FIELDS},
                             "v": P.PROTOCOL_VERSION + 3, "vmin": P.PROTOCOL_VERSION + 2})
    with pytest.raises(P.RemoteProtocolError) as exc:
        feed(pair.host, pair.peer.send(future))
    assert exc.value.code == "version"


def test_eof_during_handshake_is_an_error_and_after_is_closed():
    b = P.SecureLink(P.Identity.generate(), role=P.HOST, initiator=False)
    b.receive_data(b"")
    with pytest.raises(P.RemoteProtocolError):
        b.next_event()
    pair = ConnectionPair()
    pair.host.receive_data(b"")
    assert pair.host.next_event() is P.CLOSED


# -- trust gating (review finding 2) ------------------------------------------


def _gated():
    init_id, resp_id = P.Identity.generate(), P.Identity.generate()
    a = P.SecureLink(init_id, role=P.PLAYER, initiator=True)
    b = P.SecureLink(resp_id, role=P.HOST, initiator=False)
    assert pump(a, b, approve=False) == []                     # -> e
    evs = pump(b, a, approve=False)                            # <- e, ee, s, es
    return a, b, init_id, resp_id, evs


def test_initiator_does_not_reveal_its_static_before_approval():
    a, b, init_id, resp_id, evs = _gated()
    assert evs == [P.PeerKey(remote_static=resp_id.static_public)]
    assert a.state is P.AWAIT_PEER
    assert a.data_to_send() == b""                             # message 3 not written
    with pytest.raises(P.LocalProtocolError):
        a.next_event()                                         # must decide first
    with pytest.raises(P.LocalProtocolError):
        a.send(P.Ready(round=1))
    a.accept_peer()
    msg3 = a.data_to_send()
    assert msg3                                                 # only now
    assert a.next_event() == P.HandshakeComplete(remote_static=resp_id.static_public,
                                                 handshake_hash=a.handshake_hash)
    b.receive_data(msg3)
    ev = b.next_event()
    assert ev == P.PeerKey(remote_static=init_id.static_public)


def test_initiator_rejecting_the_responder_never_writes_message_3():
    a, b, *_ = _gated()
    err = a.reject_peer("join code mismatch")
    assert a.state is P.ERROR and err.code == "untrusted"
    assert a.data_to_send() == b""
    with pytest.raises(P.LocalProtocolError):
        a.send(P.Ready(round=1))
    # the responder sees only a handshake that never completed
    b.receive_data(b"")
    with pytest.raises(P.RemoteProtocolError) as exc:
        b.next_event()
    assert exc.value.code == "truncated"


def test_responder_delivers_nothing_before_approving_the_initiator():
    a, b, init_id, resp_id, _ = _gated()
    a.accept_peer()
    assert isinstance(a.next_event(), P.HandshakeComplete)
    data = a.data_to_send() + a.send(a.hello(name="pat")) + a.send(P.Leave(reason="x"))
    b.receive_data(data)
    assert b.next_event() == P.PeerKey(remote_static=init_id.static_public)
    assert b.state is P.AWAIT_PEER
    with pytest.raises(P.LocalProtocolError):
        b.next_event()                                         # hello is held back
    with pytest.raises(P.LocalProtocolError):
        b.send(b.hello(name="hal")) if b.handshake_hash else b.send(P.Leave())
    b.accept_peer()
    assert isinstance(b.next_event(), P.HandshakeComplete)
    assert isinstance(b.next_event(), P.Hello)
    assert b.next_event() == P.Leave(reason="x")


def test_responder_rejecting_the_initiator_delivers_nothing():
    a, b, init_id, *_ = _gated()
    a.accept_peer()
    a.next_event()
    b.receive_data(a.data_to_send() + a.send(a.hello(name="pat")))
    assert isinstance(b.next_event(), P.PeerKey)
    b.reject_peer("key changed")
    with pytest.raises(P.LocalProtocolError) as exc:
        b.next_event()
    assert exc.value.code == "untrusted" and b.state is P.ERROR


def test_approval_only_when_asked():
    a = P.SecureLink(P.Identity.generate(), role=P.PLAYER, initiator=True)
    with pytest.raises(P.LocalProtocolError):
        a.accept_peer()
    with pytest.raises(P.LocalProtocolError):
        a.reject_peer()
