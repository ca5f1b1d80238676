"""``unonet score verify``: every row of the database against the chain and the rules.

Each match is rebuilt from its rows by the same `read_match` the recorder and the views
use (stored hash, chain link, the engine's re-scoring, the match row's head, round count
and result, and here also every round's co-signatures by its players), then rows that belong to nothing are looked for: points of a round that is
not there, rounds or seats of a match that is not there.  The first problem is named;
what an edit cannot hide is written down in docs/scorekeeper.md ("What verify catches").
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ledger import LedgerError
from ._rows import read_match
from ._store import ScoreStore

#: rows whose owner is not there: (table, its owner's column, the owner's table, query, what it is)
_ORPHANS = (
    ("seat_points", "round_id", "rounds", "SELECT round_id, seat FROM seat_points",
     "points of seat {1} for round row {0}, which is not there"),
    ("team_points", "round_id", "rounds", "SELECT round_id, team FROM team_points",
     "points of team {1} for round row {0}, which is not there"),
    ("rounds", "match_id", "matches", "SELECT match_id, id FROM rounds",
     "rounds row {1} of match #{0}, which is not there"),
    ("match_seats", "match_id", "matches", "SELECT match_id, seat FROM match_seats",
     "seat {1} of match #{0}, which is not there"),
    ("round_cosigns", "round_id", "rounds", "SELECT round_id, seat FROM round_cosigns",
     "the co-signature of seat {1} for round row {0}, which is not there"),
    ("seat_identities", "match_id", "matches", "SELECT match_id, seat FROM seat_identities",
     "the identity of seat {1} of match #{0}, which is not there"),
    ("voided_rounds", "match_id", "matches", "SELECT match_id, id FROM voided_rounds",
     "voided_rounds row {1} of match #{0}, which is not there"),
)


@dataclass
class VerifyReport:
    matches: int = 0
    rounds: int = 0
    disputed: int = 0
    voided: int = 0  # rounds a host election voided and dealt again (kept, counted nowhere)
    problem: str | None = None
    heads: dict[str, str] = field(default_factory=dict)
    #: "match #M round R" for every counted round that keeps no player's co-signature: its
    #: result rests on the scorekeeper's word alone (an older database, a scorekeeper that
    #: stopped before the co-signs came, or their rows deleted)
    unanchored: list[str] = field(default_factory=list)
    #: "match #M is incomplete: why" for every match that went on to its end while the
    #: scorekeeper was away (its chain checks as far as it goes; its end is not in the file)
    incomplete: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.problem is None

    def to_json(self) -> dict:
        return {"ok": self.ok, "matches": self.matches, "rounds": self.rounds, "disputed": self.disputed,
                "voided": self.voided, "problem": self.problem, "heads": self.heads, "unanchored": self.unanchored,
                "incomplete": self.incomplete}


def verify(store: ScoreStore) -> VerifyReport:
    """Check everything in one read transaction; stop at the first bad row."""
    conn, report = store.conn, VerifyReport()
    conn.execute("BEGIN")
    try:
        for (mid,) in conn.execute("SELECT id FROM matches ORDER BY id").fetchall():
            try:
                lm = read_match(conn, mid, check_cosigns=True)
            except LedgerError as e:
                report.problem = str(e)
                return report
            report.matches += 1
            report.rounds += lm.ledger.rounds
            report.disputed += sum(not e.counted for e in lm.ledger.entries)
            report.voided += len(lm.voided)
            report.heads[lm.row.header.match.hex()] = lm.ledger.head.hex()
            report.unanchored += [f"match #{mid} round {r}" for r in lm.unanchored]
            if lm.row.incomplete and lm.rescorer.winner is None:
                report.incomplete.append(f"match #{mid} is incomplete: {lm.row.incomplete}")
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table, column, parent, query, text in _ORPHANS:
            if table not in tables:  # team_points before schema 2
                continue
            for row in conn.execute(f"{query} WHERE {column} NOT IN (SELECT id FROM {parent}) ORDER BY 1, 2 LIMIT 1"):
                report.problem = f"{table}: {text.format(*row)} (a row was inserted, or its owner deleted)"
                return report
    finally:
        if conn.in_transaction:  # an IO error ends it already
            conn.execute("ROLLBACK")
    return report
