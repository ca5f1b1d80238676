"""Every message type at its caps still fits: a beacon in a 1200-byte datagram, a
link message (padded) in one Noise frame (spec §8)."""

from __future__ import annotations

import pytest

import unonet.protocol as P
from unonet.protocol._schema import Blob, Bool, Enum, Int, ListOf, Nested, Text



def biggest(kind, i: int = 0):
    """The largest value a field kind admits (in encoded bytes)."""
    if isinstance(kind, Bool):
        return True
    if isinstance(kind, Int):
        return kind.hi
    if isinstance(kind, Enum):
        return max(kind.values, key=len)
    if isinstance(kind, Text):
        if kind.pattern is not None:
            return "a" * kind.max_len
        return "\U0001F0CF" * kind.max_len  # 4 bytes of UTF-8 per character
    if isinstance(kind, Blob):
        return bytes(kind.hi)
    if isinstance(kind, ListOf):
        return tuple(biggest(kind.item, j) for j in range(kind.max_len))
    if isinstance(kind, Nested):
        return biggest_record(kind.cls, i)
    raise AssertionError(kind)


def biggest_record(cls, i: int = 0):
    kw = {}
    for spec in cls.FIELDS:
        kw[spec.name] = biggest(spec.kind, i)
        if spec.name in ("seat",) and isinstance(spec.kind, Int):
            kw[spec.name] = min(i, spec.kind.hi)  # seats in a list are distinct
    if cls is P.MatchOver:
        kw["winner"] = 0
    return cls(**kw)


KEPT = sorted(t for t in P.MESSAGE_TYPES if t != "fair")


@pytest.mark.parametrize("t", KEPT)
def test_at_its_caps_it_fits(t):
    msg = biggest_record(P.MESSAGE_TYPES[t])
    if msg.CHANNEL == P.DATAGRAM:
        assert len(P.encode_datagram(msg)) <= P.MAX_DATAGRAM
    else:
        plain = P.encode_plaintext(msg)
        assert len(plain) <= P.MAX_PLAINTEXT
        assert P.decode_plaintext(plain) == msg


def test_fair_body_cap_fits_a_frame():
    # t, round (u32), ev (longest name) and a bin32 header around the body cap
    overhead = len(P.encode_message(P.Fair.of(__import__("unonet.fair", fromlist=["x"])
                                              .SeedReveal(epoch=0, host_secret=bytes(32)),
                                              round=2**32 - 1)))
    assert overhead + 65000 + len("challenge-response") <= P.MAX_MESSAGE


def test_one_more_over_the_caps_is_refused():
    big = biggest_record(P.Beacon)
    with pytest.raises(P.LocalProtocolError):
        P.Beacon(**{**{s.name: getattr(big, s.name) for s in P.Beacon.FIELDS},
                    "house": big.house + ("x",)})
    with pytest.raises(P.LocalProtocolError):
        P.Ledger(match=bytes(16), rounds=0, head=bytes(32),
                 entries=(P.LedgerEntry(round=1, hash=bytes(32)),) * (P.MAX_LEDGER_ENTRIES + 1))
