"""What the scorekeeper shows, as plain objects read from the database (no printing here).

Every number comes from re-reading a match's rows into its ledger and replaying its
counted rounds through the rules engine (`read_match`), so a view never shows a score the
chain and the rules do not support: a match whose rows do not check is listed as such and
counted nowhere (``unonet score verify`` names the row).  Views read an older schema as it
is; they never write.
"""

from __future__ import annotations

import csv
import io
import sqlite3
from dataclasses import asdict, dataclass, field

from ..ledger import LedgerError, plural, team_totals  # noqa: F401 - plural re-exported
from ._rows import LoadedMatch, read_match
from ._store import ScoreStore

TEAM_NAMES = ("A", "B")


def rounds_scored(rounds: int, disputed: int) -> str:
    """A match's counted rounds in words, the same on the live board and in `score history`:
    "no round scored" for a match with none recorded (evening19: the board read "0 rounds"
    where history read "no round scored"); a match whose only rounds were disputed keeps
    "0 rounds" (its disputed ones are said beside it)."""
    return plural(rounds - disputed, "round") if rounds > disputed or disputed else "no round scored"


def key_text(key: bytes) -> str:
    """A player's key id, short, for people (the JSON carries it whole)."""
    return key[:6].hex()


@dataclass
class RoundLine:
    round: int
    attempt: int
    status: str
    reason: str
    dealer: int
    winner: int | None
    points: int
    hand_points: list[int]
    scores: list[int]
    team_scores: list[int]
    digest: str
    hash: str
    recorded: str


def round_labels(lines: list[RoundLine]) -> list[str]:
    """Each round's label for people: its number, and which deal it was only where the round
    really was dealt again (after a dispute); the attempt numbers themselves are the chain's."""
    deals: dict[int, int] = {}
    for r in lines:
        deals[r.round] = deals.get(r.round, 0) + 1
    seen: dict[int, int] = {}
    out = []
    for r in lines:
        seen[r.round] = seen.get(r.round, 0) + 1
        out.append(f"{r.round}" if deals[r.round] == 1 else f"{r.round} (deal {seen[r.round]})")
    return out


@dataclass
class MatchView:
    """One match: its settings, seats, where it stands, and (for `match ID`) its rounds."""

    id: int
    match: str
    table: str
    started: str
    finished: str | None
    preset: str
    deck: str
    house: list[str]
    teams: bool
    scoring: str
    target: int
    names: list[str]
    keys: list[str]
    rounds: int
    disputed: int
    scores: list[int]
    team_scores: list[int]
    eliminated: list[int]
    winner: int | None
    winner_text: str
    to_target: list[int]
    head: str
    problem: str = ""
    abandoned: str | None = None      # when its table closed before it was won (None: won or in play)
    #: why the match is incomplete here: it went on to its end while the scorekeeper was away
    #: (None: won, in play, abandoned, or all of it recorded)
    incomplete: str | None = None
    round_lines: list[RoundLine] = field(default_factory=list)
    #: rounds a host election voided and dealt again (history, counted nowhere; `match ID` only)
    voided: list[dict] = field(default_factory=list)

    def side_names(self) -> list[str]:
        """Who the scores are for: the teams at a partners table, else the seats."""
        if self.teams:
            return [f"team {t} ({' & '.join(self.names[i::2])})" for i, t in enumerate(TEAM_NAMES)]
        return list(self.names)

    def to_json(self, *, rounds: bool = False) -> dict:
        out = asdict(self)
        out.pop("round_lines")
        if rounds:
            out["rounds_detail"] = [asdict(r) for r in self.round_lines]
        else:
            out.pop("voided")
        return out


@dataclass
class Standing:
    """A player across every match the database holds, followed by key."""

    key: str
    name: str
    names: list[str]
    matches: int
    wins: int
    playing: int
    rounds: int
    rounds_won: int
    points: int


def _winner_text(lm: LoadedMatch, names: list[str]) -> str:
    w = lm.rescorer.winner
    if w is None:
        return ""
    if lm.row.header.teams:
        return f"team {TEAM_NAMES[w]} ({' & '.join(names[w::2])})"
    return names[w]


def _to_target(lm: LoadedMatch) -> list[int]:
    """How far each side is from the target (0 once reached); elimination: from going out."""
    h, scores = lm.row.header, lm.ledger.scores
    totals = team_totals(scores) if h.teams else scores
    return [max(0, h.target - s) for s in totals]


def _match_view(lm: LoadedMatch, *, with_rounds: bool) -> MatchView:
    row, h, ledger = lm.row, lm.row.header, lm.ledger
    view = MatchView(
        id=row.id, match=h.match.hex(), table=h.table.hex(), started=row.started, finished=row.finished,
        preset=h.preset, deck=h.deck, house=list(h.house), teams=h.teams, scoring=h.scoring, target=h.target,
        names=list(row.names), keys=[k.hex() for k in h.seats], rounds=ledger.rounds,
        disputed=sum(not e.counted for e in ledger.entries), scores=list(ledger.scores),
        team_scores=list(ledger.team_scores), eliminated=sorted(lm.rescorer.eliminated) if h.scoring == "elimination" else [],
        winner=lm.rescorer.winner, winner_text=_winner_text(lm, row.names), to_target=_to_target(lm),
        head=ledger.head.hex(), abandoned=row.abandoned if lm.rescorer.winner is None else None,
        incomplete=row.incomplete if lm.rescorer.winner is None else None)
    if with_rounds:
        recorded = lm.recorded
        view.round_lines = [
            RoundLine(e.round, e.attempt, e.status, e.reason, e.dealer, e.winner, e.points, list(e.hand_points),
                      list(e.scores), list(e.team_scores), e.digest.hex(), e.hash.hex(), recorded[i])
            for i, e in enumerate(ledger.entries)]
        view.voided = [{"round": v.entry.round, "attempt": v.entry.attempt, "winner": v.entry.winner,
                        "points": v.entry.points, "scores": list(v.entry.scores), "hash": v.entry.hash.hex(),
                        "recorded": v.recorded, "voided": v.voided, "why": v.why} for v in lm.voided]
    return view


def _broken_view(conn: sqlite3.Connection, mid: int, problem: str) -> MatchView:
    r = conn.execute("SELECT match_key, started FROM matches WHERE id = ?", (mid,)).fetchone()
    return MatchView(id=mid, match=r[0].hex() if isinstance(r[0], bytes) else str(r[0]), table="", started=r[1],
                     finished=None, preset="", deck="", house=[], teams=False, scoring="", target=0, names=[],
                     keys=[], rounds=0, disputed=0, scores=[], team_scores=[], eliminated=[], winner=None,
                     winner_text="", to_target=[], head="", problem=problem)


def _loaded(store: ScoreStore) -> list[tuple[int, LoadedMatch | str]]:
    """Every match in order, read and checked, or the reason it does not check."""
    conn, out = store.conn, []
    conn.execute("BEGIN")
    try:
        for (mid,) in conn.execute("SELECT id FROM matches ORDER BY id").fetchall():
            try:
                out.append((mid, read_match(conn, mid)))
            except LedgerError as e:
                out.append((mid, f"does not check ({e}); run `unonet score verify`"))
    finally:
        if conn.in_transaction:  # an IO error ends it already
            conn.execute("ROLLBACK")
    return out


def history(store: ScoreStore, player: str | None = None) -> list[MatchView]:
    """Every match, oldest first; with ``player`` (a key prefix in hex, or any name a key
    ever went by) only the matches of the key(s) it names."""
    keys = None if player is None else player_keys(store, player)
    out = []
    for mid, lm in _loaded(store):
        if isinstance(lm, str):
            if keys is None:
                out.append(_broken_view(store.conn, mid, lm))
            continue
        if keys is not None and not keys & set(lm.row.header.seats):
            continue
        out.append(_match_view(lm, with_rounds=False))
    return out


def match_view(store: ScoreStore, ref: str) -> MatchView:
    """One match with every round (``ref``: its number, or a prefix of its id)."""
    mid = store.find_match(ref)
    store.conn.execute("BEGIN")
    try:
        try:
            lm = read_match(store.conn, mid)
        except LedgerError as e:
            return _broken_view(store.conn, mid, f"does not check ({e}); run `unonet score verify`")
        return _match_view(lm, with_rounds=True)
    finally:
        if store.conn.in_transaction:
            store.conn.execute("ROLLBACK")


def _names_by_key(conn: sqlite3.Connection) -> dict[bytes, list[str]]:
    """Each key's display names, oldest first (player_names since schema 2, else the seats)."""
    if conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'player_names'").fetchone():
        rows = conn.execute("SELECT p.key, n.name FROM player_names n JOIN players p ON p.id = n.player_id "
                            "ORDER BY n.last_seen, n.first_seen, n.name").fetchall()
    else:
        rows = conn.execute("SELECT p.key, s.name FROM match_seats s JOIN players p ON p.id = s.player_id "
                            "JOIN matches m ON m.id = s.match_id ORDER BY m.started, m.id").fetchall()
    out: dict[bytes, list[str]] = {}
    for key, name in rows:
        names = out.setdefault(key, [])
        if name in names:
            names.remove(name)
        names.append(name)
    return out


def player_keys(store: ScoreStore, player: str) -> set[bytes]:
    """The keys ``player`` names: a hex prefix of a key, or a name any key went by."""
    text = player.strip().lower()
    found = {k for k, names in _names_by_key(store.conn).items()
             if k.hex().startswith(text) and len(text) >= 4 or any(n.lower() == text for n in names)}
    return found


@dataclass
class LeftOut:
    """A match the standings do not count: its rows do not check (the first bad row named)."""

    id: int
    match: str
    problem: str

    def __str__(self) -> str:
        return f"match #{self.id} {self.match[:8]} is left out: it {self.problem}"


def standings(store: ScoreStore) -> list[Standing]:
    """Every player by key over the checked matches (`checked_standings`)."""
    return checked_standings(store)[0]


def checked_standings(store: ScoreStore) -> tuple[list[Standing], list[LeftOut]]:
    """Every player by key: matches played and won, rounds won and points, over the checked
    matches (a seat wins a partners match when its team does); and the matches left out."""
    names = _names_by_key(store.conn)
    table: dict[bytes, Standing] = {}
    left_out = []
    for mid, lm in _loaded(store):
        if isinstance(lm, str):
            broken = _broken_view(store.conn, mid, lm)
            left_out.append(LeftOut(mid, broken.match, lm))
            continue
        h = lm.row.header
        counted = [e for e in lm.ledger.entries if e.counted]
        for seat, key in enumerate(h.seats):
            known = names.get(key) or [lm.row.names[seat]]
            st = table.setdefault(key, Standing(key.hex(), known[-1], known, 0, 0, 0, 0, 0, 0))
            st.matches += 1
            side = seat % 2 if h.teams else seat
            if lm.rescorer.winner is None:
                # (an abandoned match is played no more, nor one that ended while we were away)
                st.playing += lm.row.abandoned is None and lm.row.incomplete is None
            elif lm.rescorer.winner == side:
                st.wins += 1
            st.rounds += len(counted)
            won = [e for e in counted if e.winner == seat]
            st.rounds_won += len(won)
            st.points += sum(e.points for e in won)
    return sorted(table.values(), key=lambda s: (-s.wins, -s.points, s.name, s.key)), left_out


EXPORT_FIXED = ["match", "round", "attempt", "status", "dealer", "winner", "points"]


def export_csv(view: MatchView) -> str:
    """One CSV row per round of a match: who won what, each seat's hand and score after it."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    seats = [f"{n} (seat {s})" for s, n in enumerate(view.names)]
    header = EXPORT_FIXED + [f"{s} hand" for s in seats] + [f"{s} score" for s in seats]
    if view.teams:
        header += [f"team {t} score" for t in TEAM_NAMES]
    w.writerow(header + ["reason", "digest", "hash", "recorded"])
    for r in view.round_lines:
        winner = "" if r.winner is None else view.names[r.winner]
        hands = r.hand_points or [""] * len(view.names)
        w.writerow([view.match, r.round, r.attempt, r.status, view.names[r.dealer], winner, r.points, *hands,
                    *r.scores, *r.team_scores, r.reason, r.digest, r.hash, r.recorded])
    return buf.getvalue()
