"""The match ledger: one entry per completed round, hash-chained per match.  Pure, no IO.

The host, every player and every scorekeeper compute this same chain from what they saw,
so its head can be compared across processes and machines (the players' ``match-over``
line carries it as ``ledger``; the scorekeeper's database stores it row by row).  The
byte encoding is written down in docs/scorekeeper.md, section "The ledger chain", so that
another implementation computes the same heads; this module imports nothing but the
standard library, so every layer may use it.

A round that fails verification is kept as a *disputed* entry with its reason: it is in
the chain (so removing or editing it is evident) but never counted, so its ``scores`` are
the counted scores before it, unchanged.
"""

from __future__ import annotations

import functools
import hashlib
import re
import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

__all__ = [
    "VERSION", "VERIFIED", "DISPUTED", "STATUSES", "MATCH_ID_LEN", "KEY_LEN", "DIGEST_LEN", "NO_KEY",
    "NO_DIGEST", "SIG_LEN", "LedgerError", "MatchHeader", "RoundEntry", "MatchLedger", "team_totals",
    "tally_message", "after_rounds",
]

VERSION = b"unonet/ledger/v1/"
VERIFIED = "verified"
DISPUTED = "disputed"
STATUSES = (VERIFIED, DISPUTED)
MATCH_ID_LEN = 16
KEY_LEN = 32
DIGEST_LEN = 32
SIG_LEN = 64
#: the host or digest of a disputed round that never got as far as naming one
NO_KEY = bytes(KEY_LEN)
NO_DIGEST = bytes(DIGEST_LEN)
MAX_TABLE_ID = 64
MAX_REASON = 500
_TOKEN = re.compile(r"[a-z0-9][a-z0-9+._-]{0,31}\Z")
_U32 = struct.Struct(">I")
SCORINGS = ("standard", "elimination")


class LedgerError(ValueError):
    """A header or entry that is malformed, or an entry that does not follow the chain."""


def _u32(n: int, what: str) -> bytes:
    if type(n) is not int or not 0 <= n < 1 << 32:
        raise LedgerError(f"{what} must be a whole number 0..2^32-1, not {n!r}")
    return _U32.pack(n)


def _lp(data: bytes) -> bytes:
    return _U32.pack(len(data)) + data


def _lp_text(text: str) -> bytes:
    return _lp(text.encode("utf-8"))


@functools.lru_cache(maxsize=None)
def _tag(name: str) -> bytes:
    return _lp(VERSION + name.encode("ascii"))


def _sha256(*parts: bytes) -> bytes:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.digest()


def _blob(value: object, what: str, size: int | None = None, *, most: int | None = None) -> bytes:
    if not isinstance(value, bytes):
        raise LedgerError(f"{what} must be bytes, not {type(value).__name__}")
    if size is not None and len(value) != size:
        raise LedgerError(f"{what} must be {size} bytes, not {len(value)}")
    if most is not None and not 1 <= len(value) <= most:
        raise LedgerError(f"{what} must be 1..{most} bytes, not {len(value)}")
    return value


def _ints(values: Iterable[int], what: str) -> bytes:
    values = tuple(values)
    return _u32(len(values), f"{what} count") + b"".join(_u32(v, what) for v in values)


def _from_hex(value: object, what: str) -> bytes:
    if not isinstance(value, str) or value != value.lower():
        raise LedgerError(f"{what} must be lowercase hex text")
    try:
        return bytes.fromhex(value)
    except ValueError:
        raise LedgerError(f"{what} is not hex: {value[:40]!r}") from None


def _int_list(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(type(v) is int for v in value):
        raise LedgerError(f"{what} must be a list of whole numbers")
    return tuple(value)


def team_totals(scores: Sequence[int]) -> tuple[int, int]:
    """Team 0 holds the even seats, team 1 the odd seats (design.md §3)."""
    return (sum(scores[0::2]), sum(scores[1::2]))


def team_letter(team: int) -> str:
    """A partners table's team as every screen names it: team 0 (the even seats) is A."""
    return "AB"[team]


def plural(n: int, word: str) -> str:
    """``1 round``, ``2 rounds`` (the operator's lines and the scorekeeper's alike)."""
    return f"{n} {word}" + ("" if n == 1 else "s")


def after_rounds(rounds: int) -> str:
    """How far a match had got, in words for people: "before the first round ended",
    "after 1 completed round", "after 3 completed rounds" (never "after round 0")."""
    if rounds <= 0:
        return "before the first round ended"
    return f"after {rounds} completed round{'' if rounds == 1 else 's'}"


def tally_message(digest: bytes, winner: int | None, points: int, hand_points: Sequence[int]) -> bytes:
    """What a seat's round tally signs (its co-signature of the round's result): the round
    digest the host signed and the result the seat's own engine gave.  The digest already
    binds the match, the round, its attempt and every event; the tally adds the points in
    the open, so a database or a handed-over ledger that keeps only the result can be
    checked against what the players signed (docs/scorekeeper.md, "Co-signatures")."""
    _blob(digest, "round digest", DIGEST_LEN)
    won = b"\x00" if winner is None else b"\x01" + _u32(winner, "winner")
    return _tag("round-tally") + _lp(digest) + won + _u32(points, "points") + _ints(hand_points, "hand points")


@dataclass(frozen=True)
class MatchHeader:
    """What a match is played under, fixed at its start; its hash is the chain's genesis.

    ``seats`` are the players' 32-byte key ids in seat order (at a networked table the
    roster's peer ids); display names are not part of it, since a player's history follows
    the key, not the name.  ``house`` is every house rule in force, sorted."""

    match: bytes
    table: bytes
    seats: tuple[bytes, ...]
    preset: str = "official"
    deck: str = "classic"
    house: tuple[str, ...] = ()
    teams: bool = False
    scoring: str = "standard"
    target: int = 500

    def __post_init__(self) -> None:
        _blob(self.match, "match id", MATCH_ID_LEN)
        _blob(self.table, "table id", most=MAX_TABLE_ID)
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "house", tuple(self.house))
        if not 2 <= len(self.seats) <= 10:
            raise LedgerError(f"a match seats 2..10 players, not {len(self.seats)}")
        for s, key in enumerate(self.seats):
            _blob(key, f"seat {s} key", KEY_LEN)
        for what, token in [("preset", self.preset), ("deck", self.deck), *(("house rule", h) for h in self.house)]:
            if not isinstance(token, str) or not _TOKEN.match(token):
                raise LedgerError(f"{what} must be a short lowercase name, not {token!r}")
        if list(self.house) != sorted(set(self.house)):
            raise LedgerError(f"house rules must be sorted and unique: {list(self.house)}")
        if type(self.teams) is not bool:
            raise LedgerError(f"teams must be true or false, not {self.teams!r}")
        if self.teams and (len(self.seats) < 4 or len(self.seats) % 2):
            raise LedgerError(f"teams need an even number of seats, 4 or more (got {len(self.seats)})")
        if self.scoring not in SCORINGS:
            raise LedgerError(f"scoring must be one of {', '.join(SCORINGS)}, not {self.scoring!r}")
        if self.teams and self.scoring != "standard":
            raise LedgerError("teams are scored the standard way")
        _u32(self.target, "target")
        if self.target < 1:
            raise LedgerError("target must be at least 1")

    @property
    def players(self) -> int:
        return len(self.seats)

    def encode(self) -> bytes:
        return b"".join([
            _lp(self.match), _lp(self.table), _lp_text(self.preset), _lp_text(self.deck),
            _u32(len(self.house), "house rules"), *(_lp_text(h) for h in self.house),
            bytes([self.teams]), _lp_text(self.scoring), _u32(self.target, "target"),
            _u32(len(self.seats), "seats"), *(_lp(k) for k in self.seats),
        ])

    @functools.cached_property
    def genesis(self) -> bytes:
        """The head of the match's chain before its first round."""
        return _sha256(_tag("genesis"), self.encode())

    def to_json(self) -> dict:
        return {"match": self.match.hex(), "table": self.table.hex(), "seats": [k.hex() for k in self.seats],
                "preset": self.preset, "deck": self.deck, "house": list(self.house), "teams": self.teams,
                "scoring": self.scoring, "target": self.target}

    @classmethod
    def from_json(cls, obj: object) -> "MatchHeader":
        if not isinstance(obj, dict):
            raise LedgerError("a match header is a JSON object")
        want = {"match", "table", "seats", "preset", "deck", "house", "teams", "scoring", "target"}
        if set(obj) != want:
            raise LedgerError(f"a match header has the fields {sorted(want)}, not {sorted(obj)}")
        seats = obj["seats"]
        if not isinstance(seats, list) or not isinstance(obj["house"], list):
            raise LedgerError("a match header's seats and house are lists")
        return cls(match=_from_hex(obj["match"], "match id"), table=_from_hex(obj["table"], "table id"),
                   seats=tuple(_from_hex(k, "seat key") for k in seats), preset=obj["preset"],
                   deck=obj["deck"], house=tuple(obj["house"]), teams=obj["teams"], scoring=obj["scoring"],
                   target=obj["target"])


@dataclass(frozen=True)
class RoundEntry:
    """One completed round of a match, as every party records it.

    ``points`` is what the round's winner (or winning team) scored; ``hand_points`` the
    points left in each seat's hand (empty for a disputed round whose claim made no sense);
    ``scores`` each seat's counted total after the round and ``team_scores`` the two teams'
    at a partners table (empty otherwise).  ``digest`` is the fair-play round digest the
    host signed (docs/fair-play.md §2), ``host`` the signing host's key id, ``cosigners``
    the seats that co-signed it.  ``prev`` is the head before this entry."""

    match: bytes
    table: bytes
    round: int
    attempt: int
    dealer: int
    winner: int | None
    points: int
    hand_points: tuple[int, ...]
    scores: tuple[int, ...]
    team_scores: tuple[int, ...]
    digest: bytes
    host: bytes
    cosigners: tuple[int, ...]
    prev: bytes
    status: str = VERIFIED
    reason: str = ""
    _hash: bytes = field(default=b"", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("hand_points", "scores", "team_scores", "cosigners"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        _blob(self.match, "match id", MATCH_ID_LEN)
        _blob(self.table, "table id", most=MAX_TABLE_ID)
        _blob(self.digest, "round digest", DIGEST_LEN)
        _blob(self.host, "host key", KEY_LEN)
        _blob(self.prev, "previous head", DIGEST_LEN)
        if self.status not in STATUSES:
            raise LedgerError(f"status must be {' or '.join(STATUSES)}, not {self.status!r}")
        if not isinstance(self.reason, str) or len(self.reason) > MAX_REASON:
            raise LedgerError(f"reason must be text of at most {MAX_REASON} characters")
        if (self.status == DISPUTED) != bool(self.reason):
            raise LedgerError("a disputed round gives its reason; a verified round has none")
        if type(self.round) is not int or self.round < 1:
            raise LedgerError(f"round numbers start at 1, not {self.round!r}")
        if self.winner is not None:
            _u32(self.winner, "winner")
        object.__setattr__(self, "_hash", _sha256(_tag("round"), _lp(self.prev), self.encode()))

    @property
    def hash(self) -> bytes:
        """This entry's link: the chain head once it is appended."""
        return self._hash

    @property
    def counted(self) -> bool:
        return self.status == VERIFIED

    @property
    def key(self) -> tuple[int, int]:
        return (self.round, self.attempt)

    def encode(self) -> bytes:
        winner = b"\x00" if self.winner is None else b"\x01" + _u32(self.winner, "winner")
        return b"".join([
            _lp(self.match), _lp(self.table), _u32(self.round, "round"), _u32(self.attempt, "attempt"),
            _u32(self.dealer, "dealer"), winner, _u32(self.points, "points"),
            _ints(self.hand_points, "hand points"), _ints(self.scores, "scores"),
            _ints(self.team_scores, "team scores"), _lp(self.digest), _lp(self.host),
            _ints(self.cosigners, "co-signer seat"), bytes([STATUSES.index(self.status)]),
            _lp_text(self.reason),
        ])

    def tally(self) -> bytes:
        """The message each seat's co-signature of this round signs (`tally_message`)."""
        return tally_message(self.digest, self.winner, self.points, self.hand_points)

    def to_json(self) -> dict:
        return {"match": self.match.hex(), "table": self.table.hex(), "round": self.round,
                "attempt": self.attempt, "dealer": self.dealer, "winner": self.winner, "points": self.points,
                "hand_points": list(self.hand_points), "scores": list(self.scores),
                "team_scores": list(self.team_scores), "digest": self.digest.hex(), "host": self.host.hex(),
                "cosigners": list(self.cosigners), "status": self.status, "reason": self.reason,
                "prev": self.prev.hex(), "hash": self.hash.hex()}

    @classmethod
    def from_json(cls, obj: object) -> "RoundEntry":
        """The JSON form back; a ``hash`` that is not this entry's is refused."""
        if not isinstance(obj, dict):
            raise LedgerError("a ledger entry is a JSON object")
        if not _ENTRY_FIELDS - {"hash"} <= set(obj) <= _ENTRY_FIELDS:
            raise LedgerError(f"a ledger entry has the fields {sorted(_ENTRY_FIELDS)}, not {sorted(obj)}")
        for name in ("round", "attempt", "dealer", "points"):
            if type(obj[name]) is not int:
                raise LedgerError(f"{name} must be a whole number, not {obj[name]!r}")
        if obj["winner"] is not None and type(obj["winner"]) is not int:
            raise LedgerError(f"winner must be a seat or null, not {obj['winner']!r}")
        entry = cls(
            match=_from_hex(obj["match"], "match id"), table=_from_hex(obj["table"], "table id"),
            round=obj["round"], attempt=obj["attempt"], dealer=obj["dealer"], winner=obj["winner"],
            points=obj["points"], hand_points=_int_list(obj["hand_points"], "hand_points"),
            scores=_int_list(obj["scores"], "scores"), team_scores=_int_list(obj["team_scores"], "team_scores"),
            digest=_from_hex(obj["digest"], "digest"), host=_from_hex(obj["host"], "host"),
            cosigners=_int_list(obj["cosigners"], "cosigners"), prev=_from_hex(obj["prev"], "prev"),
            status=obj["status"], reason=obj["reason"])
        if "hash" in obj and _from_hex(obj["hash"], "hash") != entry.hash:
            raise LedgerError(f"round {entry.round}: the hash given is not the hash of the entry")
        return entry


_ENTRY_FIELDS = frozenset({"match", "table", "round", "attempt", "dealer", "winner", "points", "hand_points",
                           "scores", "team_scores", "digest", "host", "cosigners", "status", "reason", "prev",
                           "hash"})


class MatchLedger:
    """One match's chain: checks each entry against the header and the head, then appends.

    The rules it enforces (docs/scorekeeper.md): the first entry is round 1; each next
    entry is the next round, or the same round again with a higher attempt after a
    disputed one; every seat list has one value per seat; a partners table's team scores
    are the sums of its seats'; a disputed round leaves the counted scores unchanged.
    Whether a verified round's scores follow from its points is the rules engine's
    business (the store re-scores every round with it)."""

    def __init__(self, header: MatchHeader, entries: Iterable[RoundEntry] = ()) -> None:
        self.header = header
        self.entries: list[RoundEntry] = []
        #: each round's co-signatures, seat -> Ed25519 signature over its `RoundEntry.tally`
        #: (keyed by the entry's (round, attempt)); outside the hash chain: they come after
        #: the round's entry, and each anchors itself in the seat's key
        self.cosigns: dict[tuple[int, int], dict[int, bytes]] = {}
        #: the seats' public identities (their JSON form) whose keys sign the co-signatures;
        #: set by the party that knows them (the match's `match-start`), not part of the chain
        self.identities: tuple[dict, ...] = ()
        #: the fingerprint of the key that signed this transcript's `match-start` (set by the
        #: party that read it; not part of the chain): whose word may close the match's other
        #: open matches in a scorekeeper's file (a roster's table id is the host's word alone)
        self.host: bytes | None = None
        self.head = header.genesis
        self.scores: tuple[int, ...] = (0,) * header.players
        for e in entries:
            self.append(e)

    @property
    def rounds(self) -> int:
        return len(self.entries)

    @property
    def last(self) -> RoundEntry | None:
        return self.entries[-1] if self.entries else None

    @property
    def team_scores(self) -> tuple[int, ...]:
        return team_totals(self.scores) if self.header.teams else ()

    def check(self, e: RoundEntry) -> None:
        """Raise LedgerError if ``e`` cannot be the next entry; change nothing."""
        h, n = self.header, self.header.players
        where = f"round {e.round} (attempt {e.attempt})"
        if e.match != h.match or e.table != h.table:
            raise LedgerError(f"{where} belongs to another match or table")
        if e.prev != self.head:
            raise LedgerError(f"{where} does not follow the head {self.head.hex()[:16]}… "
                              f"(its prev is {e.prev.hex()[:16]}…)")
        last = self.last
        if last is None:
            if e.round != 1:
                raise LedgerError(f"{where}: a match's first round is round 1")
        elif not (e.round == last.round + 1 or (e.round == last.round and not last.counted
                                                and e.attempt > last.attempt)):
            raise LedgerError(f"{where} cannot follow round {last.round} (attempt {last.attempt}, {last.status})")
        if not 0 <= e.dealer < n:
            raise LedgerError(f"{where}: dealer {e.dealer} is not a seat of this {n}-seat match")
        if e.winner is not None and not 0 <= e.winner < n:
            raise LedgerError(f"{where}: winner {e.winner} is not a seat of this {n}-seat match")
        if len(e.scores) != n or len(e.hand_points) not in ((n,) if e.counted else (0, n)):
            raise LedgerError(f"{where}: scores and hand points list one value per seat ({n})")
        if e.team_scores != (team_totals(e.scores) if h.teams else ()):
            raise LedgerError(f"{where}: team scores {list(e.team_scores)} are not the sums of the seats'")
        if list(e.cosigners) != sorted(set(e.cosigners)) or any(not 0 <= s < n for s in e.cosigners):
            raise LedgerError(f"{where}: co-signers must be distinct seats in order, not {list(e.cosigners)}")
        if not e.counted and e.scores != self.scores:
            raise LedgerError(f"{where} is disputed, so it cannot change the scores {list(self.scores)}")

    def append(self, e: RoundEntry) -> bytes:
        self.check(e)
        self.entries.append(e)
        self.head = e.hash
        if e.counted:
            self.scores = e.scores
        return self.head

    def add_cosign(self, key: tuple[int, int], seat: int, sig: bytes) -> None:
        """Keep seat ``seat``'s co-signature of the entry ``key`` (its caller checked it)."""
        _blob(sig, "co-signature", SIG_LEN)
        self.cosigns.setdefault(key, {})[seat] = sig

    def match_over(self, winner: int) -> dict:
        """The ``match-over`` line every party prints when the match is won (JSON-ready):
        the same fields from the same chain, so players' and scorekeepers' lines are equal.
        ``winner`` is the winning seat, or team (0 or 1) at a partners table."""
        return {"event": "match-over", "match": self.header.match.hex(), "table": self.header.table.hex(),
                "winner": winner, "teams": self.header.teams, "scores": list(self.scores),
                "team_scores": list(self.team_scores), "rounds": sum(e.counted for e in self.entries),
                "disputed": sum(not e.counted for e in self.entries), "ledger": self.head.hex()}

    def entry(self, *, round: int, dealer: int, winner: int | None, points: int, hand_points: Sequence[int],
              scores: Sequence[int], digest: bytes, host: bytes, cosigners: Sequence[int] = (),
              attempt: int = 0) -> RoundEntry:
        """A verified entry that follows the head (not yet appended)."""
        return RoundEntry(match=self.header.match, table=self.header.table, round=round, attempt=attempt,
                          dealer=dealer, winner=winner, points=points, hand_points=tuple(hand_points),
                          scores=tuple(scores),
                          team_scores=team_totals(scores) if self.header.teams else (), digest=digest,
                          host=host, cosigners=tuple(cosigners), prev=self.head)

    def disputed(self, *, round: int, dealer: int, reason: str, winner: int | None = None, points: int = 0,
                 hand_points: Sequence[int] = (), digest: bytes = NO_DIGEST, host: bytes = NO_KEY,
                 cosigners: Sequence[int] = (), attempt: int = 0) -> RoundEntry:
        """A disputed entry that follows the head: the claim as far as it made sense, the
        reason it failed, and the counted scores carried over unchanged."""
        reason = " ".join(reason.split())[:MAX_REASON] or "disputed"
        return RoundEntry(match=self.header.match, table=self.header.table, round=round, attempt=attempt,
                          dealer=dealer, winner=winner, points=points, hand_points=tuple(hand_points),
                          scores=self.scores, team_scores=self.team_scores, digest=digest, host=host,
                          cosigners=tuple(cosigners), prev=self.head, status=DISPUTED, reason=reason)
