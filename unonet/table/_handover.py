"""The fair side of a host hand-over (a host election, spec §7): one match across hosts.

A match transcript has one host key, so a new host (elected when the old one went silent)
opens a new transcript.  Its `match-start` carries ``continues``, signed by the new host
and hashed into the new match id (so every round after it is bound to it):

    {"match": <old match id hex>, "rounds": N, "digest": <hex or null>,
     "scores": [...], "dealer": d, "host": <old host key fingerprint>,
     "seats": [<old seat key fingerprint>, ...], "away": [seat, ...]}

``match`` is the id of the transcript that died; ``rounds`` the rounds completed in the
whole match so far (earlier hand-overs included); ``digest`` the host-signed round-end
digest of the last of them, the one every seat co-signed (null before any); ``scores``
and ``dealer`` what the engine `Match` holds after it (the round in progress when the old
host died is void: it never ended, nobody co-signed it).  ``seats`` are the old match's
seat keys (its `match-start`'s): a hand-over never gives a seat to another key (issue 22
class 5: an elected host seating its own bot in a live player's seat, keeping that seat's
score), so the new `match-start` seats exactly them.  ``away`` names the seats whose player
is not at the new table (the lost host's own seat, the old host's bots, a player that did
not come back in time): they keep their key but give no join, no seed and no co-sign, the
new host plays them by `host-act` stand-ins, and a player that comes back joins late
(unonet.fair._match).  A seat that reads itself away while it hears the table refuses it.

Every seat checks the continuation against its **own** record of the old match
(`Continuation.of_seat`): a new host that changes a score, skips or replays a round, or
continues another match is refused live, naming what differs; the new match's referee
then starts from the seat's own scores and dealer, so the set-up of every round after it
is checked as before.  `unonet audit` checks the same offline against the old transcript
(`check_continuation`).
"""

from __future__ import annotations

import dataclasses

from ..engine import Match, RuleSet
from ..fair import FairPlayViolation
from ..ledger import after_rounds

__all__ = ["Continuation", "check_continuation", "check_handover", "check_seats", "continued_match",
           "cosigned_rounds", "holds_cosign"]


FIELDS = frozenset({"match", "rounds", "digest", "scores", "dealer", "host", "seats", "away"})


@dataclasses.dataclass(frozen=True)
class Continuation:
    """Where a match stands when its host hands over (see the module docstring)."""

    match: bytes            # the old transcript's match id
    rounds: int             # completed rounds in the whole match
    digest: bytes | None    # the last completed round's round-end digest (co-signed)
    scores: tuple[int, ...]
    dealer: int | None      # the next round's; None while no round ended (round 1's is drawn)
    host: str = ""          # the old host's key fingerprint (informational)
    seats: tuple[str, ...] = ()  # the old match's seat keys (fingerprints), in seat order
    away: tuple[int, ...] = ()   # seats whose player is not at the new table (the new host's claim)

    def to_json(self) -> dict:
        return {"match": self.match.hex(), "rounds": self.rounds,
                "digest": self.digest.hex() if self.digest is not None else None,
                "scores": list(self.scores), "dealer": self.dealer, "host": self.host,
                "seats": list(self.seats), "away": list(self.away)}

    @classmethod
    def from_json(cls, obj) -> "Continuation":
        try:
            if not isinstance(obj, dict) or set(obj) != FIELDS:
                raise ValueError(f"fields {sorted(obj) if isinstance(obj, dict) else type(obj).__name__}")
            if not isinstance(obj["seats"], list) or not isinstance(obj["away"], list):
                raise ValueError("seats and away are lists")
            c = cls(match=bytes.fromhex(obj["match"]), rounds=int(obj["rounds"]),
                    digest=None if obj["digest"] is None else bytes.fromhex(obj["digest"]),
                    scores=tuple(int(s) for s in obj["scores"]), dealer=None if obj["dealer"] is None else int(obj["dealer"]), host=str(obj["host"]),
                    seats=tuple(str(k) for k in obj["seats"]), away=tuple(int(s) for s in obj["away"]))
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            raise FairPlayViolation(f"match-start: malformed continuation ({exc})") from None
        if c.rounds < 0 or (c.rounds == 0) != (c.digest is None) or len(c.match) != 16 \
                or len(c.seats) != len(c.scores) or (c.dealer is None and c.rounds):
            raise FairPlayViolation(f"match-start: inconsistent continuation {obj}")
        return c

    @classmethod
    def of_seat(cls, seat) -> "Continuation":
        """What a `TableSeat` (or a `TableHost`, or an audit's replay) itself holds of its
        match: the rounds it verified (with those its own `match-start` carried), the last
        digest, the referee's scores and next dealer."""
        m = seat.match
        ended = [a for a in m.attempts if a.status == "ended" and a.end_digest is not None]
        ref = seat.referee
        if m.match_id is None or ref is None:
            raise ValueError("the match had not started: nothing to continue")
        carried = cls.from_json(m.start.continues) if m.start.continues is not None else None
        digest = ended[-1].end_digest if ended else (carried.digest if carried else None)
        host = m.start.host.fingerprint if m.start is not None else ""
        return cls(match=m.match_id, rounds=(carried.rounds if carried else 0) + len(ref.match.history),
                   digest=digest, scores=tuple(ref.match.scores), dealer=ref.match.dealer if ref.drawn else None,
                   host=host,
                   seats=tuple(k.fingerprint for k in m.start.seats))


def cosigned_rounds(seat) -> int:
    """The rounds of the whole match up to the last one this party saw co-signed by every seat
    (a `TableSeat`'s record): every seat verified it, so no honest peer reports fewer, and a
    new host that continues after fewer drops co-signed rounds (issue 22 class 5)."""
    m = seat.match
    if m.start is None:
        return 0
    carried = Continuation.from_json(m.start.continues).rounds if m.start.continues is not None else 0
    ended = [a for a in m.attempts if a.status == "ended" and a.end_digest is not None]
    signed = [i for i, a in enumerate(ended, 1) if set(range(len(m.seats))) - a.away <= set(a.signs)]
    return carried + (signed[-1] if signed else 0)


def holds_cosign(seat, who: int, rounds: int) -> bool:
    """Does this party's record (a `TableSeat`'s) hold seat ``who``'s co-sign of the match's
    round ``rounds``?  Only then is a peer's other ledger head there provably its own lie: a
    round whose co-signs never crossed may have been told to that peer as another story by
    the host that ran it (it split the view and died before the next round-start, where the
    co-signs must be relayed or waived).  A round an earlier election carried is held: every
    continuing peer confirmed it then."""
    m = seat.match
    if m.start is None:
        return False
    carried = Continuation.from_json(m.start.continues).rounds if m.start.continues is not None else 0
    if rounds <= carried:
        return True
    ended = [a for a in m.attempts if a.status == "ended" and a.end_digest is not None]
    i = rounds - carried
    return i <= len(ended) and who in ended[i - 1].signs


def continued_match(rules: RuleSet, players: int, c: Continuation) -> Match:
    """The engine Match a continuation starts from (scores and dealer carried)."""
    if len(c.scores) != players or c.dealer is not None and not 0 <= c.dealer < players:
        raise FairPlayViolation(f"the continuation carries {len(c.scores)} scores and dealer {c.dealer} for a "
                                f"{players}-seat match")
    m = Match(rules, players, scores=list(c.scores), dealer=0 if c.dealer is None else c.dealer)
    if m.over:
        raise FairPlayViolation(f"the continuation carries scores {list(c.scores)}: that match is already over")
    return m


def check_continuation(claimed: Continuation | None, own: Continuation) -> None:
    """The new host's claim against what this party holds of the old match (FairPlayViolation
    naming the difference, blaming the new host)."""
    if claimed is None:
        raise FairPlayViolation(f"the new host starts a fresh match instead of continuing match "
                                f"{own.match.hex()[:16]} {after_rounds(own.rounds)} (scores {list(own.scores)})")
    if claimed.match != own.match:
        raise FairPlayViolation(f"the new host continues match {claimed.match.hex()[:16]}, not this table's match "
                                f"{own.match.hex()[:16]} (a different match)")
    if claimed.rounds != own.rounds:
        what = "skips" if claimed.rounds > own.rounds else "replays"
        raise FairPlayViolation(f"the new host continues {after_rounds(claimed.rounds)}, but the co-signed record "
                                f"ends {after_rounds(own.rounds)}: it {what} a round")
    if claimed.digest != own.digest:
        raise FairPlayViolation(f"the new host names round {claimed.rounds}'s digest "
                                f"{(claimed.digest or b'').hex()[:16]}, not the co-signed "
                                f"{(own.digest or b'').hex()[:16]}")
    if tuple(claimed.scores) != tuple(own.scores):
        raise FairPlayViolation(f"the new host carries scores {list(claimed.scores)}, but the co-signed rounds give "
                                f"{list(own.scores)}")
    if claimed.dealer != own.dealer:
        raise FairPlayViolation(f"the new host names seat {claimed.dealer} to deal next, but the match rules give "
                                f"seat {own.dealer}")
    for s, (was, now) in enumerate(zip(own.seats, claimed.seats)):
        if was != now:
            raise FairPlayViolation(f"the new host's continuation gives seat {s} to key {now[:16]}, but the match "
                                    f"seated key {was[:16]} there: a hand-over never gives a seat to another key")


def check_seats(start, claimed: Continuation) -> None:
    """The new `match-start` seats the keys its continuation carries, seat for seat (an
    elected host that puts its own bot's key in a player's seat keeps that seat's score)."""
    now = [k.fingerprint for k in start.seats]
    for s, (was, key) in enumerate(zip(claimed.seats, now)):
        if was != key:
            raise FairPlayViolation(f"the new host seats key {key[:16]} in seat {s}, which the match it continues "
                                    f"gave to key {was[:16]}: a hand-over never gives a seat to another key")
    if len(now) != len(claimed.seats):
        raise FairPlayViolation(f"the new host seats {len(now)} players in a match of {len(claimed.seats)} seats")


def check_handover(start, expected: Continuation | None, seat: int | None) -> None:
    """A seat's check of a `match-start` (TableSeat's hook): a seat that expects a hand-over
    gets exactly its own record continued; a seat that played no earlier match refuses a
    continuation it cannot check (an observer without a record takes it as it comes; the
    audit checks it against the old transcript)."""
    claimed = Continuation.from_json(start.continues) if start.continues is not None else None
    if claimed is not None:
        check_seats(start, claimed)
    if expected is not None:
        check_continuation(claimed, expected)
    elif claimed is not None and seat is not None:
        raise FairPlayViolation(f"the host claims to continue match {claimed.match.hex()[:16]} after round "
                                f"{claimed.rounds}, which this seat never played")
