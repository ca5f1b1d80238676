"""Signatures a process made or verified are looked up, not verified again (`signature_ok`):
the host's referee checking its own seat's and bots' words, a ledger its host's own
commitments, a seat its own acts relayed back.  A lookup proves only what the Ed25519 check
would: any changed byte of key, message or signature is verified, and fails.  So with the
blobs a process sealed (`open_sealed`: the host's own seat's deals) and a digest step an
event was already taken through (`RoundLedger._absorb`: the host's own seat's ledger after
its referee's).

One seeded match is played twice in one process, remembering and not: the transcript and
every party's state are the same, fewer Ed25519 checks run, and the offline audit of the
transcript (in a process that remembers nothing) passes."""

import os

import pytest

from unonet.engine import make_rules
from unonet.fair import Identity
from unonet.fair import _identity, _seal
from unonet.fair._seal import SealError, deal_ad, open_sealed, seal
from unonet.fair.testing import det_randbytes
from unonet.table import audit_transcript

from tests.table.test_trusted_seat import play


@pytest.fixture
def checks(monkeypatch):
    """Count the Ed25519 checks made (the real one runs)."""
    made = []
    real = _identity._ed25519_ok

    def counted(key, sig, msg):
        made.append(key)
        return real(key, sig, msg)

    monkeypatch.setattr(_identity, "_ed25519_ok", counted)
    return made


@pytest.fixture
def forget(monkeypatch):
    """Start with nothing remembered; restore the process's memory after."""
    saved, sealed = dict(_identity._good), dict(_seal._sealed)

    def clear():
        _identity._good.clear()
        _seal._sealed.clear()

    clear()
    yield clear
    clear()
    _identity._good.update(saved)
    _seal._sealed.update(sealed)


@pytest.fixture
def opens(monkeypatch):
    """Count the blobs really decrypted (the real decryption runs)."""
    made = []
    real = _seal._open_sealed

    def counted(blob, *, identity, ad):
        made.append(blob)
        return real(blob, identity=identity, ad=ad)

    monkeypatch.setattr(_seal, "_open_sealed", counted)
    return made


def test_a_signature_made_here_is_looked_up_and_any_change_is_verified(checks, forget):
    me, other = Identity.generate(), Identity.generate()
    msg = b"seat-event " * 20
    sig = me.sign(msg)
    checks.clear()
    assert me.public.verify(sig, msg)
    assert checks == []  # found: no Ed25519 check
    assert not me.public.verify(sig, msg + b"!")
    assert not other.public.verify(sig, msg)
    assert not me.public.verify(bytes([sig[0] ^ 1]) + sig[1:], msg)
    assert not me.public.verify(sig[:63], msg)
    assert len(checks) == 4  # each changed triple went to the Ed25519 check
    forget()
    assert me.public.verify(sig, msg) and len(checks) == 5  # forgotten: verified again


def test_what_is_verified_once_is_looked_up_after(checks, forget):
    me = Identity.generate()
    sig = me.sign(b"cert")
    forget()
    assert me.public.verify(sig, b"cert") and me.public.verify(sig, b"cert")
    assert len(checks) == 1
    assert not me.public.verify(sig, b"cerT") and len(checks) == 2  # a failure is never remembered
    assert not me.public.verify(sig, b"cerT") and len(checks) == 3


def test_the_memory_is_bounded(forget, monkeypatch):
    monkeypatch.setattr(_identity, "KNOWN_GOOD", 8)
    me = Identity.generate()
    sigs = [me.sign(b"m%d" % i) for i in range(20)]
    assert len(_identity._good) == 8
    assert sigs[-1] in _identity._good and sigs[0] not in _identity._good  # the oldest went first
    assert me.public.verify(sigs[0], b"m0")  # forgotten: verified, and still good
    assert me.public.verify(sigs[13], b"m13")  # the oldest kept, used now: kept longest
    me.sign(b"one more")
    assert sigs[13] in _identity._good and sigs[14] not in _identity._good


def state(seat):
    lg = seat.ledger
    return (lg.digest, sorted(seat.hand), [p.holder for p in lg.positions], seat.match.history,
            seat.referee.match.scores)


@pytest.mark.parametrize("preset,house,players", [("official", (), 4), ("flip", (), 3)])
def test_a_match_is_the_same_remembering_or_not(preset, house, players, checks, opens, forget, monkeypatch):
    rules = make_rules(preset, house)
    seed = f"known-good-{preset}-{players}"
    size = _identity.KNOWN_GOOD
    remembering = play(rules, players, seed, trusted=False)
    with_memory, opened_with_memory = len(checks), len(opens)
    checks.clear()
    forget()
    monkeypatch.setattr(_identity, "KNOWN_GOOD", 0)
    monkeypatch.setattr(_seal, "SEALED_KNOWN", 0)
    checking = play(rules, players, seed, trusted=False)
    # every blob was sealed in this process, to a seat here: none is decrypted when remembered
    assert opened_with_memory == 0 and len(opens) > 20
    assert remembering.lines == checking.lines
    assert remembering.host.match.history == checking.host.match.history
    assert remembering.host.referee.match.scores == checking.host.referee.match.scores
    for a, b in zip(checking.seats + checking.observers, remembering.seats + remembering.observers):
        assert a.violation is None and b.violation is None
        if a.seat is not None:
            assert state(b) == state(a)
    # one process holds every party here, so it made every signature: none is verified
    assert with_memory == 0 and len(checks) > 500
    monkeypatch.setattr(_identity, "KNOWN_GOOD", size)
    forget()  # the audit runs elsewhere, remembering nothing: it verifies everything, and passes
    checks.clear()
    report = audit_transcript(remembering.lines)
    assert report.ok, report.summary
    assert len(checks) > 50


def test_a_blob_sealed_here_is_found_by_its_recipient_under_its_ad_only(opens, forget):
    rb = det_randbytes("sealed-here")
    alice, bob = Identity.generate(rb), Identity.generate(rb)
    ad = deal_ad(b"t", 1, 4, 0, alice.public.dh_key)
    blob = seal(b"secret", recipient_dh=alice.public.dh_key, ad=ad, randbytes=rb)
    with pytest.raises(SealError):
        open_sealed(blob, identity=bob, ad=ad)  # another key: decrypted, and fails
    with pytest.raises(SealError):
        open_sealed(blob, identity=alice, ad=deal_ad(b"t", 1, 5, 0, alice.public.dh_key))  # another ad
    tampered = blob[:-1] + bytes([blob[-1] ^ 1])
    with pytest.raises(SealError):
        open_sealed(tampered, identity=alice, ad=ad)  # another blob
    assert len(opens) == 3
    assert open_sealed(blob, identity=alice, ad=ad) == b"secret" and len(opens) == 3  # found
    assert open_sealed(blob, identity=alice, ad=ad) == b"secret" and len(opens) == 4  # found once: now decrypted
    other = seal(b"other", recipient_dh=alice.public.dh_key, ad=ad, randbytes=rb)
    forget()
    assert open_sealed(other, identity=alice, ad=ad) == b"other" and len(opens) == 5  # forgotten: decrypted


def test_the_sealed_memory_is_bounded(forget, monkeypatch):
    monkeypatch.setattr(_seal, "SEALED_KNOWN", 4)
    me = Identity.generate()
    blobs = [seal(b"m%d" % i, recipient_dh=me.public.dh_key, ad=b"ad", randbytes=os.urandom) for i in range(10)]
    assert list(_seal._sealed) == blobs[-4:]  # the oldest went first
    assert open_sealed(blobs[0], identity=me, ad=b"ad") == b"m0"  # forgotten: decrypted, the same


def test_a_digest_step_is_taken_again_only_from_the_same_digest(monkeypatch):
    """Two ledgers absorbing one event object from the same digest: the second takes the
    first's result; from another digest it hashes, and gets the chain's own value."""
    from unonet.fair import _ledger
    from unonet.fair._encoding import sha256
    from unonet.fair._events import GameEvent
    from unonet.fair._ledger import RoundLedger

    hashed = []
    monkeypatch.setattr(_ledger, "sha256", lambda *parts: hashed.append(parts) or sha256(*parts))
    ev = GameEvent(data={"g": "act", "a": {"t": "draw", "player": 1}})
    body = ev.canonical().encode("ascii")
    a, b, c = RoundLedger(), RoundLedger(), RoundLedger()
    a.digest = b.digest = bytes(32)
    c.digest = bytes(31) + b"\x01"
    a._absorb(ev)
    assert a.digest == sha256(bytes(32), len(body).to_bytes(4, "big"), body) and len(hashed) == 1
    b._absorb(ev)
    assert b.digest == a.digest and len(hashed) == 1  # the same step: taken, not hashed
    c._absorb(ev)
    assert c.digest == sha256(bytes(31) + b"\x01", len(body).to_bytes(4, "big"), body) and len(hashed) == 2
    a._absorb(ev)  # the same event again, from where a is now: another step
    assert a.digest == sha256(b.digest, len(body).to_bytes(4, "big"), body) and len(hashed) == 3
