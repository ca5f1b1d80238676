"""Rows to ledger values and back: one place that knows how a header and an entry are stored."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..ledger import LedgerError, MatchHeader, MatchLedger, RoundEntry, team_totals
from ._cosigns import check_identities, check_round, read_cosigns, read_identities
from ._scoring import Rescorer


class RowError(LedgerError):
    """A row that cannot be read back into a ledger value (a column edited to nonsense,
    a seat's points missing)."""


@dataclass
class MatchRow:
    id: int
    header: MatchHeader
    names: list[str]
    genesis: bytes
    head: bytes
    rounds: int
    started: str
    winner: int | None
    finished: str | None
    has_result: bool  # schema 3 on: the row keeps the match's winner
    abandoned: str | None = None  # schema 4 on: when its table closed before it was won
    #: schema 7 on: the scorekeeper was away when the match went on to its end (why, in words)
    incomplete: str | None = None


@dataclass
class RoundRow:
    id: int
    entry: RoundEntry
    stored_hash: bytes
    recorded: str


def _has_table(conn: sqlite3.Connection, name: str) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def match_row(conn: sqlite3.Connection, mid: int) -> MatchRow:
    """The match's header as its rows give it (RowError when they cannot make one)."""
    columns = _columns(conn, "matches")
    has_result = "winner" in columns
    results = "winner, finished" if has_result else "NULL, NULL"
    results += ", abandoned" if "abandoned" in columns else ", NULL"
    results += ", incomplete" if "incomplete" in columns else ", NULL"
    r = conn.execute(
        f"SELECT m.match_key, t.table_key, m.preset, m.deck, m.house, m.teams, m.scoring, m.target, m.genesis, "
        f"m.head, m.rounds, m.started, {results} FROM matches m JOIN tables t ON t.id = m.table_id "
        f"WHERE m.id = ?", (mid,)).fetchone()
    if r is None:
        raise RowError(f"match #{mid} has no row (or its table's row is missing)")
    seats = conn.execute("SELECT s.seat, p.key, s.name FROM match_seats s JOIN players p ON p.id = s.player_id "
                         "WHERE s.match_id = ? ORDER BY s.seat", (mid,)).fetchall()
    if [s[0] for s in seats] != list(range(len(seats))):
        raise RowError(f"match #{mid}: its seats are {[s[0] for s in seats]}, not 0..n-1")
    try:
        header = MatchHeader(match=r[0], table=r[1], seats=tuple(s[1] for s in seats), preset=r[2], deck=r[3],
                             house=tuple(r[4].split(",")) if r[4] else (), teams=bool(r[5]), scoring=r[6],
                             target=r[7])
    except (LedgerError, TypeError, AttributeError) as e:
        raise RowError(f"match #{mid}: {e}") from None
    return MatchRow(mid, header, [s[2] for s in seats], r[8], r[9], r[10], r[11], r[12], r[13],
                    has_result, r[14], r[15])


def round_rows(conn: sqlite3.Connection, m: MatchRow) -> Iterator[RoundRow]:
    """The match's rounds in chain order ((round, attempt), then row id), each as an entry."""
    n, teams = m.header.players, _has_table(conn, "team_points")
    rows = conn.execute("SELECT id, round, attempt, dealer, winner, points, status, reason, digest, host, "
                        "cosigners, prev, hash, recorded FROM rounds WHERE match_id = ? "
                        "ORDER BY round, attempt, id", (m.id,)).fetchall()
    for (rid, rnd, attempt, dealer, winner, points, status, reason, digest, host, cosigners, prev, stored,
         recorded) in rows:
        where = f"rounds row {rid} (match #{m.id}, round {rnd})"
        seats = conn.execute("SELECT seat, hand_points, score FROM seat_points WHERE round_id = ? ORDER BY seat",
                             (rid,)).fetchall()
        if [s[0] for s in seats] != list(range(n)):
            raise RowError(f"{where}: points for seats {[s[0] for s in seats]}, not 0..{n - 1}")
        hands = [s[1] for s in seats]
        if teams:
            tp = conn.execute("SELECT team, score FROM team_points WHERE round_id = ? ORDER BY team",
                              (rid,)).fetchall()
            if [t[0] for t in tp] != ([0, 1] if m.header.teams else []):
                raise RowError(f"{where}: team points for teams {[t[0] for t in tp]}")
            team_scores = tuple(t[1] for t in tp)
        else:  # version 1: team totals were not stored yet
            team_scores = team_totals([s[2] for s in seats]) if m.header.teams else ()
        try:
            if all(h is None for h in hands) and status != "verified":
                hands = []
            elif any(h is None for h in hands):
                raise LedgerError("some seats have no hand points")
            entry = RoundEntry(match=m.header.match, table=m.header.table, round=rnd, attempt=attempt,
                               dealer=dealer, winner=winner, points=points, hand_points=tuple(hands),
                               scores=tuple(s[2] for s in seats), team_scores=team_scores, digest=digest,
                               host=host, cosigners=tuple(json.loads(cosigners)), prev=prev, status=status,
                               reason=reason)
        except (LedgerError, TypeError, ValueError) as e:
            raise RowError(f"{where}: {e}") from None
        yield RoundRow(rid, entry, stored, recorded)


@dataclass
class VoidedRow:
    """A round recorded, then voided: a host election continued the match from before it and
    dealt it again (spec §7 step 6).  Kept apart from the chain, never counted."""
    id: int
    entry: RoundEntry
    cosigns: dict[int, bytes]
    recorded: str
    voided: str
    why: str


def voided_rows(conn: sqlite3.Connection, mid: int) -> list[VoidedRow]:
    """The match's voided rounds, oldest first (RowError names one that is not a round)."""
    if not _has_table(conn, "voided_rounds"):
        return []
    out = []
    for rid, text, stored, cosigns, recorded, voided, why in conn.execute(
            "SELECT id, entry, hash, cosigns, recorded, voided, why FROM voided_rounds WHERE match_id = ? "
            "ORDER BY id", (mid,)):
        where = f"voided_rounds row {rid} (match #{mid})"
        try:
            entry = RoundEntry.from_json(json.loads(text))
            sigs = {int(k): bytes.fromhex(v) for k, v in json.loads(cosigns).items()}
        except (LedgerError, ValueError, TypeError, AttributeError) as e:
            raise RowError(f"{where}: not a round ({e})") from None
        if entry.hash != stored:
            raise RowError(f"{where}: edited (its contents do not give its stored hash)")
        out.append(VoidedRow(rid, entry, sigs, recorded, voided, why))
    return out


def insert_voided(conn: sqlite3.Connection, mid: int, e: RoundEntry, cosigns: dict[int, bytes], recorded: str,
                  when: str, why: str) -> None:
    entry = e.to_json()
    entry.pop("hash")
    conn.execute("INSERT INTO voided_rounds (match_id, round, attempt, entry, hash, cosigns, recorded, voided, why) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                 (mid, e.round, e.attempt, json.dumps(entry, sort_keys=True), e.hash,
                  json.dumps({str(s): sig.hex() for s, sig in sorted(cosigns.items())}), recorded, when, why))


@dataclass
class LoadedMatch:
    row: MatchRow
    ledger: MatchLedger
    rescorer: Rescorer
    recorded: list[str]
    #: counted rounds that keep no player's co-signature (read with ``check_cosigns``)
    unanchored: list[int] = field(default_factory=list)
    #: rounds voided by a host election (dealt again): history, counted nowhere
    voided: list[VoidedRow] = field(default_factory=list)

    @property
    def last_recorded(self) -> str | None:
        return self.recorded[-1] if self.recorded else None


def read_match(conn: sqlite3.Connection, mid: int, *, check_result: bool = True,
               check_cosigns: bool = False) -> LoadedMatch:
    """A match's ledger and engine state, rebuilt from its rows and checked as it goes.

    RowError names the first row that does not check: a round row whose stored hash is not
    the hash of its contents (edited), one that does not follow the chain (a row deleted or
    inserted before it) or whose scores the rules do not give; then the match row itself
    (settings edited: its genesis; its last round deleted: its head and round count; its
    result, unless ``check_result`` is off, as while migration 3 fills it in).  With
    ``check_cosigns`` (`unonet score verify`) every round's kept co-signatures are checked
    against its stored result and the seats' stored keys (`_cosigns.check_round`); the
    counted rounds that keep none are listed in ``unanchored``."""
    m = match_row(conn, mid)
    identities = check_identities(mid, m.header, read_identities(conn, mid)) if check_cosigns else {}
    unanchored: list[int] = []
    ledger, rescorer, recorded = MatchLedger(m.header), Rescorer(m.header), []
    if m.genesis != m.header.genesis:
        raise RowError(f"match #{mid}: its settings or seats were edited (they do not give its genesis)")
    for rr in round_rows(conn, m):
        e = rr.entry
        where = f"rounds row {rr.id} (match #{mid}, round {e.round}, attempt {e.attempt})"
        if rr.stored_hash != e.hash:
            raise RowError(f"{where}: edited (its contents do not give its stored hash)")
        if e.prev != ledger.head:
            raise RowError(f"{where}: does not follow the previous round (a row before it was deleted, "
                           f"inserted or re-chained)")
        try:
            rescorer.apply(e)
            ledger.append(e)
        except LedgerError as err:
            raise RowError(f"{where}: {err}") from None
        if check_cosigns:
            cosigns = read_cosigns(conn, rr.id)
            check_round(where, e, cosigns, identities)
            if e.counted and not cosigns:
                unanchored.append(e.round)
        recorded.append(rr.recorded)
    voided = voided_rows(conn, mid)
    heads = {m.header.genesis, *(e.hash for e in ledger.entries)}
    for v in voided:  # each hangs off the chain (or off a round voided with it): a branch, not a gap
        where = f"voided_rounds row {v.id} (match #{mid}, round {v.entry.round}, attempt {v.entry.attempt})"
        if v.entry.match != m.header.match or v.entry.table != m.header.table:
            raise RowError(f"{where}: a round of another match")
        if v.entry.prev not in heads:
            raise RowError(f"{where}: does not follow any round of the match's chain")
        if check_cosigns:
            check_round(where, v.entry, v.cosigns, identities)
        heads.add(v.entry.hash)
    if (m.head, m.rounds) != (ledger.head, ledger.rounds):
        raise RowError(f"match #{mid}: its head names {m.rounds} rounds ending {m.head.hex()[:16]}…, the rows "
                       f"chain {ledger.rounds} ending {ledger.head.hex()[:16]}… (a round row was deleted or added)")
    if check_result and m.has_result and m.winner != (rescorer.winner if rescorer.over else None):
        raise RowError(f"match #{mid}: its recorded winner {m.winner} is not what the rounds give "
                       f"({rescorer.winner_text()})")
    return LoadedMatch(m, ledger, rescorer, recorded, unanchored, voided)


def insert_round(conn: sqlite3.Connection, mid: int, e: RoundEntry, when: str) -> int:
    cur = conn.execute(
        "INSERT INTO rounds (match_id, round, attempt, dealer, winner, points, status, reason, digest, host, "
        "cosigners, prev, hash, recorded) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (mid, e.round, e.attempt, e.dealer, e.winner, e.points, e.status, e.reason, e.digest, e.host,
         json.dumps(list(e.cosigners)), e.prev, e.hash, when))
    rid = cur.lastrowid
    hands = e.hand_points or (None,) * len(e.scores)
    conn.executemany("INSERT INTO seat_points (round_id, seat, hand_points, score) VALUES (?, ?, ?, ?)",
                     [(rid, s, hands[s], e.scores[s]) for s in range(len(e.scores))])
    for t, score in enumerate(e.team_scores):
        won = e.points if e.counted and e.winner is not None and e.winner % 2 == t else 0
        conn.execute("INSERT INTO team_points (round_id, team, points, score) VALUES (?, ?, ?, ?)",
                     (rid, t, won, score))
    return rid
