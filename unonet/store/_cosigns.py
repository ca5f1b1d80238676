"""The players' co-signatures of each round's result, and the seat keys that check them.

A round's row holds what the scorekeeper was told; its hash chain shows that nothing was
edited since, but a scorekeeper that rewrites the rows and re-chains them is not caught by
hashes alone.  So each round keeps what its players signed: every seat's tally (`unonet.ledger.
tally_message`: the round digest, the winner, the points and every hand's points) signed by
the seat's Ed25519 key, and each match keeps its seats' public identities, whose Noise
static key must give the seat's key id in the match header.  A stored result the players
did not sign fails `check_round` (docs/scorekeeper.md, "Co-signatures").
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from ..fair._identity import PublicIdentity
from ..ledger import LedgerError, MatchHeader, RoundEntry

__all__ = ["has_cosigns", "insert_identities", "read_identities", "insert_cosign", "read_cosigns",
           "check_identities", "check_round"]


def has_cosigns(conn: sqlite3.Connection) -> bool:
    """Schema 5 on: the file can keep co-signatures."""
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'round_cosigns'").fetchone() \
        is not None


def insert_identities(conn: sqlite3.Connection, mid: int, identities: Sequence[dict]) -> None:
    """The seats' identities (their JSON form), once per match."""
    for seat, ident in enumerate(identities):
        p = PublicIdentity.from_json(ident)
        conn.execute("INSERT OR IGNORE INTO seat_identities (match_id, seat, sign_key, dh_key, static_key, cert) "
                     "VALUES (?, ?, ?, ?, ?, ?)", (mid, seat, p.sign_key, p.dh_key, p.static_key, p.cert))


def read_identities(conn: sqlite3.Connection, mid: int) -> dict[int, tuple]:
    """seat -> (sign, dh, static, cert) as stored (checked by `check_identities`)."""
    if not has_cosigns(conn):
        return {}
    return {r[0]: tuple(r[1:]) for r in conn.execute(
        "SELECT seat, sign_key, dh_key, static_key, cert FROM seat_identities WHERE match_id = ? ORDER BY seat",
        (mid,))}


def check_identities(mid: int, header: MatchHeader, rows: dict[int, tuple]) -> dict[int, PublicIdentity]:
    """The stored identities, each certified and naming the header's key id for its seat."""
    out = {}
    for seat, (sign, dh, static, cert) in rows.items():
        if not 0 <= seat < header.players:
            raise LedgerError(f"match #{mid}: an identity for seat {seat}, which the match does not have")
        try:
            ident = PublicIdentity(sign, dh, static, cert)
        except (ValueError, TypeError) as e:
            raise LedgerError(f"match #{mid}: seat {seat}'s stored identity is not one ({e})") from None
        if ident.fingerprint_bytes != header.seats[seat]:
            raise LedgerError(f"match #{mid}: seat {seat}'s stored identity is not the key the match seated there "
                              f"(the identity or the seat's key was rewritten)")
        out[seat] = ident
    return out


def insert_cosign(conn: sqlite3.Connection, rid: int, seat: int, sig: bytes) -> bool:
    """Keep one co-signature (True if new)."""
    cur = conn.execute("INSERT OR IGNORE INTO round_cosigns (round_id, seat, sig) VALUES (?, ?, ?)", (rid, seat, sig))
    return cur.rowcount == 1


def read_cosigns(conn: sqlite3.Connection, rid: int) -> dict[int, bytes]:
    if not has_cosigns(conn):
        return {}
    return dict(conn.execute("SELECT seat, sig FROM round_cosigns WHERE round_id = ? ORDER BY seat", (rid,)))


def check_round(where: str, entry: RoundEntry, cosigns: dict[int, bytes], identities: dict[int, PublicIdentity]) -> None:
    """Every co-signature kept for the round verifies over its stored result."""
    if not cosigns:
        return
    tally = entry.tally()
    for seat, sig in sorted(cosigns.items()):
        ident = identities.get(seat)
        if ident is None:
            raise LedgerError(f"{where}: seat {seat}'s co-signature is kept, but not the seat's key that checks it")
        if not ident.verify(sig, tally):
            raise LedgerError(f"{where}: seat {seat}'s co-signature does not verify over the round's stored result "
                              f"(winner {entry.winner}, {entry.points} points, hands {list(entry.hand_points)}): "
                              "the round was rewritten after the players signed it")
