"""Signatures a process made or verified are looked up, not verified again (`signature_ok`):
the host's referee checking its own seat's and bots' words, a ledger its host's own
commitments, a seat its own acts relayed back.  A lookup proves only what the Ed25519 check
would: any changed byte of key, message or signature is verified, and fails.

One seeded match is played twice in one process, remembering and not: the transcript and
every party's state are the same, fewer Ed25519 checks run, and the offline audit of the
transcript (in a process that remembers nothing) passes."""

import pytest

from unonet.engine import make_rules
from unonet.fair import Identity
from unonet.fair import _identity
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
    saved = dict(_identity._good)
    _identity._good.clear()
    yield lambda: _identity._good.clear()
    _identity._good.clear()
    _identity._good.update(saved)


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
def test_a_match_is_the_same_remembering_or_not(preset, house, players, checks, forget, monkeypatch):
    rules = make_rules(preset, house)
    seed = f"known-good-{preset}-{players}"
    size = _identity.KNOWN_GOOD
    remembering = play(rules, players, seed, trusted=False)
    with_memory = len(checks)
    checks.clear()
    forget()
    monkeypatch.setattr(_identity, "KNOWN_GOOD", 0)
    checking = play(rules, players, seed, trusted=False)
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
