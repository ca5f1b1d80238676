"""`ScoreStore.record_cosign` on a real file: a seat's co-signature is kept once when it
verifies with the key the match stored for that seat, and refused otherwise — also after
the store has checked that seat's co-signatures before (it builds each seat's key once)."""

from __future__ import annotations

import pytest

from unonet.engine import make_rules
from unonet.fair import Identity
from unonet.store import RecordRefused, ScoreStore
from unonet.store import testing

NAMES = ("Ana", "Ben", "Cleo")


@pytest.fixture
def seated(tmp_path, monkeypatch):
    """A store holding a 3-seat match with its seats' identities and its first round; the
    seats' identities (real Ed25519 keys, each seat's key id its identity's fingerprint)."""
    idents = {n: Identity(bytes([i + 1]) * 64) for i, n in enumerate(NAMES)}
    monkeypatch.setattr(testing, "player_key", lambda name: idents[name].public.fingerprint_bytes)
    pm = testing.bot_match(make_rules("official", [], target=200), NAMES, seed=5)
    store = ScoreStore.open(tmp_path / "scores.db")
    store.begin_match(pm.header, list(NAMES), [idents[n].public.to_json() for n in NAMES])
    assert store.record_round(pm.entries[0])
    yield store, pm, [idents[n] for n in NAMES]
    store.close()


def kept(store) -> list[tuple[int, bytes]]:
    return store.conn.execute("SELECT seat, sig FROM round_cosigns ORDER BY seat").fetchall()


def test_each_seat_s_co_signature_is_kept_once(seated):
    store, pm, idents = seated
    entry = pm.entries[0]
    sigs = [i.sign(entry.tally()) for i in idents]
    assert [store.record_cosign(entry, s, sig) for s, sig in enumerate(sigs)] == [True] * 3
    assert [store.record_cosign(entry, s, sig) for s, sig in enumerate(sigs)] == [False] * 3
    assert kept(store) == list(enumerate(sigs))


def test_a_co_signature_by_another_key_or_over_another_result_is_refused(seated):
    store, pm, idents = seated
    entry = pm.entries[0]
    assert store.record_cosign(entry, 0, idents[0].sign(entry.tally()))  # (seat 0's key built and kept now)
    with pytest.raises(RecordRefused, match="seat 0's co-signature does not check against its key"):
        store.record_cosign(entry, 0, idents[1].sign(entry.tally()))
    with pytest.raises(RecordRefused, match="seat 1's co-signature does not check against its key"):
        store.record_cosign(entry, 1, idents[1].sign(entry.tally() + b"x"))
    with pytest.raises(RecordRefused, match="seat 3's co-signature does not check against its key"):
        store.record_cosign(entry, 3, idents[0].sign(entry.tally()))  # no seat 3: no key
    with pytest.raises(RecordRefused, match="a co-signature of a round not recorded as this one"):
        store.record_cosign(pm.entries[1], 1, idents[1].sign(pm.entries[1].tally()))
    assert len(kept(store)) == 1


def test_a_stored_key_of_small_order_refuses_the_co_signature_in_one_line(seated):
    """A file written before keys of small order were refused may hold one: its seat's
    co-signature is refused, naming the seat, not a traceback (the identity point: one fixed
    signature verifies over every message, so it binds nothing)."""
    store, pm, idents = seated
    identity_point = bytes([1]) + bytes(31)
    store.conn.execute("UPDATE seat_identities SET sign_key = ? WHERE seat = 1", (identity_point,))
    entry = pm.entries[0]
    with pytest.raises(RecordRefused, match="seat 1's stored identity is not one .*small order"):
        store.record_cosign(entry, 1, idents[1].sign(entry.tally()))
    assert store.record_cosign(entry, 0, idents[0].sign(entry.tally()))
