"""The match around the rounds: one header, one identity, attempts, aborts and co-signs.

A match (one transcript) opens with the host's signed `match-start` (its fresh nonce, the
host, the seats, the rules) and one signed `match-join` per seat (the seat's fresh nonce
over the hash of the start). The **match id** hashes the start and every seat's nonce: it
is the `table` of every round, so nothing signed in another match (another night, another
table) verifies in this one, and the host cannot pick it alone.

`MatchLedger` checks the match-level events and the frame of every round: each
`round-start` belongs to this match (id, host, seats), rounds are numbered 1, 2, ... with
attempts 1, 2, ... after signed `round-abort`s only, no (round, attempt) twice, an abort
names as stalled only seats that really still owed their seed message, every
`round-sign` co-signs the digest of the round it follows, and the next round starts only
with every co-sign of the last one relayed or waived (a dropped seat's) and with the chain
of the round digests this verifier checked itself (`history`).

Some seats may be **away** at the start: after a host election (`match-start.continues`,
unonet.table._handover) the old match's seats whose players did not come back
(``continues["away"]``), and in a fresh match (top-level ``away``) the seats whose player's
link went silent and stayed away past the table's hold.  They keep their players' keys but give
no join, no seed and no co-sign; the match id hashes the other seats' nonces, every
`round-start` deals them absent, and a player that comes back later signs its `match-join`
then (a late join: it leaves the away list, the id stays).

The round itself is checked by a `RoundLedger`; the engine-level set-up checks (dealer,
scores, rules) live in `unonet.table`, which may import the engine.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace

from ._encoding import lp, round_context, sha256, tag, u32
from ._errors import FairPlayViolation
from ._events import Event, MatchJoin, MatchStart, RoundAbort, RoundSign, RoundStart
from ._identity import Identity, PublicIdentity
from ._seatsig import seat_event_ok

NONCE_LEN = 16
MATCH_ID_LEN = 16
#: a seat named as the staller by this many aborts of one round is dealt absent (gives no
#: seed) in the round's later attempts: nobody can make a round be dealt again and again
STALL_CAP = 2
#: no round is tried more often than this, whoever stalls (every verifier refuses attempt 11)
MAX_ATTEMPTS = 10


def _body(event: Event) -> bytes:
    return replace(event, sig=b"").canonical().encode("ascii")


def history_start(match: bytes) -> bytes:
    """The round history of a transcript before its first round ended (spec §6.8)."""
    return sha256(tag("round-history"), lp(match))


def history_next(head: bytes, round_no: int, digest: bytes) -> bytes:
    """The round history once round `round_no` ended with the host-signed `digest`."""
    return sha256(tag("round-history"), lp(head), u32(round_no), lp(digest))


def start_away(ev: MatchStart) -> tuple[str, object]:
    """Where a `match-start` names its away seats and the list as it came: ``("away", [...])``
    for a fresh match (top-level `away`), ``("continues.away", [...])`` for a continuation after
    an election, ``("both", continues.away)`` for a continuation with a top-level `away` too (refused:
    one list, one meaning, spec §7 "away seats").  Unchecked: `MatchLedger` checks it."""
    if ev.away is not None:
        if ev.continues is not None:
            return "both", ev.continues.get("away") if isinstance(ev.continues, dict) else None
        return "away", list(ev.away)
    return "continues.away", ev.continues.get("away", []) if isinstance(ev.continues, dict) else []


def match_start_message(ev: MatchStart) -> bytes:
    return tag("match-start") + lp(_body(ev))


def match_start_hash(ev: MatchStart) -> bytes:
    """What each seat's `match-join` names: the whole signed start."""
    return sha256(tag("match-start-hash"), lp(ev.canonical().encode("ascii")))


def match_join_message(ev: MatchJoin) -> bytes:
    return tag("match-join") + lp(_body(ev))


def match_id(start_hash: bytes, nonces: list[bytes]) -> bytes:
    """The match's identity: fresh with the host's and every seat's contribution in it."""
    return sha256(tag("match-id"), lp(start_hash), *(lp(n) for n in nonces))[:MATCH_ID_LEN]


def round_abort_message(table: bytes, ev: RoundAbort) -> bytes:
    return tag("round-abort") + round_context(table, ev.round) + lp(_body(ev))


def sign_match_start(identity: Identity, ev: MatchStart) -> MatchStart:
    return replace(ev, sig=identity.sign(match_start_message(ev)))


def sign_match_join(identity: Identity, ev: MatchJoin) -> MatchJoin:
    return replace(ev, sig=identity.sign(match_join_message(ev)))


def sign_round_abort(identity: Identity, table: bytes, ev: RoundAbort) -> RoundAbort:
    return replace(ev, sig=identity.sign(round_abort_message(table, ev)))


@dataclass
class AttemptRecord:
    """One try at a round: open, ended (with its digest and co-signs) or aborted."""

    round: int
    attempt: int
    start_digest: bytes = b""
    status: str = "open"
    end_digest: bytes | None = None
    signs: dict[int, bytes] = field(default_factory=dict)
    line: int | None = None
    away: frozenset[int] = frozenset()  # seats away since an election (not joined yet): they owe no co-sign
    #: seats whose co-sign the next round-start waived (they were not in the record)
    waived: tuple[int, ...] = ()


class MatchLedger:
    """Public, checked state of one match (its header and the frame of its rounds).

    A failure here blames the host: a seat's join or co-sign reaches the others only
    through the host, which must check it first (`TableHost.receive` then blames the seat)."""

    def __init__(self) -> None:
        self.start: MatchStart | None = None
        self.start_line: int | None = None
        self.start_hash = b""
        self.joins: dict[int, MatchJoin] = {}
        self.match_id: bytes | None = None
        self.attempts: list[AttemptRecord] = []
        self.aborts: list[RoundAbort] = []
        #: seat -> how many aborts named it as the staller; the host's own give-ups
        self.stalls: Counter[int] = Counter()
        #: the same, for the round in play only (STALL_CAP)
        self.round_stalls: Counter[int] = Counter()
        self.host_aborts = 0
        self.line: int | None = None
        #: seats away after a host election that have not joined (yet); `away_at_start` the
        #: list the match-start named (the match id hashes the others' nonces)
        self.away: set[int] = set()
        self.away_at_start: tuple[int, ...] = ()
        #: the chain over the digests of the rounds this ledger saw end (history_next)
        self.history = b""
        #: the ledger of the host's own seat over its in-memory link (`RoundLedger.trusted`):
        #: the referee's match ledger checked every event first; signatures are not verified again
        self.trusted = False

    # -- helpers -----------------------------------------------------------------
    def _fail(self, reason: str, *, seat: int | None = None) -> FairPlayViolation:
        return FairPlayViolation(reason, seat=seat, line=self.line)

    @property
    def seats(self) -> tuple[PublicIdentity, ...]:
        assert self.start is not None
        return self.start.seats

    @property
    def joined(self) -> bool:
        return self.match_id is not None

    @property
    def current(self) -> AttemptRecord | None:
        return self.attempts[-1] if self.attempts else None

    def missing_joins(self) -> list[int]:
        if self.start is None:
            return []
        return [s for s in range(len(self.start.seats)) if s not in self.joins and s not in self.away_at_start]

    def missing_signs(self) -> list[int]:
        """Seats that have not co-signed the last ended round (yet)."""
        cur = self.current
        if cur is None or cur.status != "ended" or self.start is None:
            return []
        return [s for s in range(len(self.start.seats)) if s not in cur.signs and s not in cur.away]

    def next_round(self) -> tuple[int, int]:
        """The (round, attempt) the next `round-start` must carry."""
        cur = self.current
        if cur is None:
            return 1, 1
        if cur.status == "aborted":
            return cur.round, cur.attempt + 1
        return cur.round + 1, 1

    # -- events --------------------------------------------------------------------
    def apply(self, event: Event, round_ledger=None, line: int | None = None, *, sender: int | None = None) -> None:
        """Check a match-level event (`match-start`, `match-join`, `round-abort`,
        `round-sign`); `round_ledger` is the current round's (for aborts and co-signs).

        A seat's join or co-sign that fails convicts the host that relayed it, or, with
        `sender` (the seat whose own link carried it: the host's check), that seat."""
        try:
            self._apply(event, round_ledger, line)
        except FairPlayViolation as exc:
            if not isinstance(event, (MatchJoin, RoundSign)):
                raise
            if sender is not None:
                raise FairPlayViolation(exc.reason, seat=sender, line=exc.line) from None
            out = FairPlayViolation(f"the host relayed a {event.EV} in seat {event.seat}'s name that fails its "
                                    f"check (a host passes on only checked seat messages): {exc.reason}",
                                    line=exc.line)
            out.relayed = True  # (a file shows the host passed it on only under a later host signature)
            out.plain = f"a {event.EV} in seat {event.seat}'s name fails its check: {exc.reason}"
            raise out from None

    def _apply(self, event: Event, round_ledger, line: int | None) -> None:
        self.line = line
        if isinstance(event, MatchStart):
            self._on_start(event)
        elif isinstance(event, MatchJoin):
            self._on_join(event)
        elif isinstance(event, RoundAbort):
            self._on_abort(event, round_ledger)
        elif isinstance(event, RoundSign):
            self._on_sign(event, round_ledger)
        else:  # pragma: no cover - a caller bug
            raise TypeError(f"{event.EV} is no match-level event")

    def _on_start(self, ev: MatchStart) -> None:
        if self.start is not None:
            raise self._fail("a second match-start in one match (one match per transcript)")
        if len(ev.nonce) != NONCE_LEN:
            raise self._fail(f"match-start nonce must be {NONCE_LEN} bytes")
        if len(ev.names) != len(ev.seats) or len(ev.seats) < 2:
            raise self._fail(f"match-start lists {len(ev.seats)} seats and {len(ev.names)} names")
        if len(set(ev.seats)) != len(ev.seats):
            raise self._fail("two seats of the match share one identity")
        if ev.host_seat is not None and (not 0 <= ev.host_seat < len(ev.seats) or ev.seats[ev.host_seat] != ev.host):
            raise self._fail(f"host seat {ev.host_seat} is not the host's identity")
        if not self.trusted and not ev.host.verify(ev.sig, match_start_message(ev)):
            raise self._fail("the host's signature over match-start does not verify")
        where, away = start_away(ev)
        if where == "both":
            raise self._fail(f"match-start carries continues and a top-level away {list(ev.away or ())!r} (a "
                             f"continuation names its away seats in continues.away only, here {away!r})")
        if not isinstance(away, list) or not all(type(s) is int for s in away) or away != sorted(set(away)) \
                or not all(0 <= s < len(ev.seats) and s != ev.host_seat for s in away) \
                or len(away) >= len(ev.seats) or (where == "away" and not away):
            raise self._fail(f"match-start's {where} {away!r} is not a list of distinct seats of the match in "
                             f"order (0..{len(ev.seats) - 1}), none the host's seat {ev.host_seat}, with one seat "
                             "left to join")
        self.away, self.away_at_start = set(away), tuple(away)
        self.start = ev
        self.start_hash = match_start_hash(ev)
        self.start_line = self.line

    def _on_join(self, ev: MatchJoin) -> None:
        if self.start is None:
            raise self._fail("match-join before match-start")
        n = len(self.start.seats)
        if not 0 <= ev.seat < n:
            raise self._fail(f"match-join names seat {ev.seat}, but the match has seats 0..{n - 1}")
        if not self.trusted and not self.start.seats[ev.seat].verify(ev.sig, match_join_message(ev)):
            raise self._fail(f"match-join of seat {ev.seat} is not signed by seat {ev.seat}")
        if ev.seat in self.joins:
            raise self._fail(f"seat {ev.seat} joins the match twice")
        if ev.start != self.start_hash:
            raise self._fail(f"seat {ev.seat}'s match-join names another match-start (a join replayed from "
                             "another match)")
        if len(ev.nonce) != NONCE_LEN:
            raise self._fail(f"seat {ev.seat}'s match-join nonce is not {NONCE_LEN} bytes")
        self.joins[ev.seat] = ev
        self.away.discard(ev.seat)  # (an away seat's player back: it joins late, the id stays)
        if self.match_id is None and not self.missing_joins():
            self.match_id = match_id(self.start_hash, [self.joins[s].nonce for s in range(n)
                                                       if s not in self.away_at_start])
            self.history = history_start(self.match_id)

    def check_round_start(self, ev: RoundStart, line: int | None = None) -> None:
        """A `round-start` belongs to this match and comes in its place."""
        self.line = line
        st = self.start
        if st is None or self.match_id is None:
            raise self._fail("round-start before every seat joined the match (no match id yet)")
        if ev.table != self.match_id:
            raise self._fail(f"round {ev.round} names table {ev.table.hex()}, not this match's id "
                             f"{self.match_id.hex()} (a round from another match)")
        if ev.host != st.host:
            raise self._fail(f"round {ev.round} is signed by host key {ev.host.fingerprint}, but the match by "
                             f"{st.host.fingerprint}")
        if ev.seats != st.seats or ev.host_seat != st.host_seat:
            raise self._fail(f"round {ev.round} seats other identities than the match's seat list")
        if ev.deck_name != st.rules.get("deck"):
            raise self._fail(f"round {ev.round} deals the {ev.deck_name!r} deck, the match's rules "
                             f"{st.rules.get('deck')!r}")
        for a in self.attempts:
            if (a.round, a.attempt) == (ev.round, ev.attempt):
                raise self._fail(f"round {ev.round} attempt {ev.attempt} again: a (round, attempt) seen before "
                                 "(a restarted deal)")
        cur = self.current
        if cur is not None and cur.status == "open":
            raise self._fail(f"round {ev.round} starts before round {cur.round} (attempt {cur.attempt}) ended or "
                             "was aborted")
        want = self.next_round()
        if ev.attempt > MAX_ATTEMPTS and (ev.round, ev.attempt) == want:
            raise self._fail(f"round {ev.round} attempt {ev.attempt}: a round is tried at most {MAX_ATTEMPTS} times "
                             "(every new attempt is a new deal)")
        if (ev.round, ev.attempt) != want:
            why = ("after a round-abort the round is tried again with the next attempt"
                   if cur is not None and cur.status == "aborted" else
                   "rounds are numbered 1, 2, ... and a new round starts at attempt 1; a new attempt needs a "
                   "signed round-abort")
            raise self._fail(f"round {ev.round} attempt {ev.attempt} where round {want[0]} attempt {want[1]} "
                             f"comes next ({why})")
        self._check_history(ev, cur)
        if ev.attempt == 1:
            self.round_stalls = Counter()
        due = sorted(s for s, n in self.round_stalls.items() if n >= STALL_CAP and s not in (ev.absent or ()))
        away = sorted(self.away - set(ev.absent or ()))
        if away:
            raise self._fail(f"round {ev.round} attempt {ev.attempt} takes a seed from seat(s) {away}, away since the "
                             "host election and not joined: only a seat's own match-join brings it back")
        if due:
            raise self._fail(f"round {ev.round} attempt {ev.attempt} takes a seed from seat(s) {due} again, after "
                             f"{STALL_CAP} aborts of this round named them as stalling: a seat that stalls "
                             f"{STALL_CAP} times is dealt absent (else the round could be dealt again on demand)")
        self.attempts.append(AttemptRecord(ev.round, ev.attempt, line=line, away=frozenset(self.away)))

    def _check_history(self, ev: RoundStart, cur: AttemptRecord | None) -> None:
        """The round-start carries this verifier's own chain of round digests, and every
        co-sign of the round that just ended is in the record or waived (issue 22 class 4: a
        host that told one seat another story of that round, and dropped that seat's co-sign
        over it, must say so in the record; the seat itself contests a waiver it did not earn)."""
        if ev.history != self.history:
            raise self._fail(f"round {ev.round} carries the round history {ev.history.hex()[:16]}..., but the rounds "
                             f"this match ended give {self.history.hex()[:16]}...: the host carries on another "
                             "story of the earlier rounds than the one it signed here")
        missing = [s for s in range(len(self.seats)) if s not in cur.signs and s not in cur.away] \
            if cur is not None and cur.status == "ended" else []  # (a seat away after an election owes none)
        waived = list(ev.waived or ())
        if ev.waived is not None and (not waived or waived != sorted(set(waived))):
            raise self._fail(f"round {ev.round}'s waived seats {waived} are not distinct seats in order")
        dropped = sorted(set(missing) - set(waived))
        if dropped:
            raise self._fail(f"round {ev.round} starts without seat(s) {dropped}'s co-sign of round {cur.round} and "
                             "waives none of them: the next round needs every co-sign of the last one relayed, or "
                             "a waiver naming the seat (dropping a co-sign hides the story the host told that seat)")
        extra = sorted(set(waived) - set(missing))
        if extra:
            where = (f"is in the record of round {cur.round}" if cur is not None and cur.status == "ended" else
                     "no round that just ended owes")
            raise self._fail(f"round {ev.round} attempt {ev.attempt} waives the co-sign of seat(s) {extra}, "
                             f"which {where} (a waiver stands only for a co-sign missing from the record)")
        if cur is not None and cur.status == "ended":
            cur.waived = tuple(waived)

    def must_be_absent(self) -> list[int]:
        """The seats the round's next attempt deals absent (STALL_CAP; away, not joined)."""
        return sorted({s for s, n in self.round_stalls.items() if n >= STALL_CAP} | self.away)

    def round_ended(self, round_ledger) -> None:
        """The current attempt's `round-end` verified: remember its digest for co-signs."""
        cur = self.current
        assert cur is not None
        cur.status = "ended"
        cur.end_digest = round_ledger.digest if round_ledger.phase.value == "ended" else None
        cur.start_digest = round_ledger.start_digest
        if cur.end_digest is not None and self.history:
            self.history = history_next(self.history, cur.round, cur.end_digest)

    def _on_abort(self, ev: RoundAbort, lg) -> None:
        cur = self.current
        if cur is None or cur.status != "open" or lg is None or lg.start is None:
            raise self._fail("round-abort outside a round")
        if (ev.round, ev.attempt) != (cur.round, cur.attempt):
            raise self._fail(f"round-abort names round {ev.round} attempt {ev.attempt}, but round {cur.round} "
                             f"attempt {cur.attempt} is in play")
        if not self.trusted and not lg.start.host.verify(ev.sig, round_abort_message(lg.table, ev)):
            raise self._fail("the host's signature over round-abort does not verify")
        phase = lg.phase.value
        if phase not in ("seed-commits", "seed-reveals"):
            raise self._fail(f"the host aborts round {ev.round} in phase {phase}: once the deck is committed a "
                             "round is played to its end (an abort then would let the host redeal a deal it dislikes)")
        owing = set() if not lg.epochs else \
            set(lg.contributors) - set(lg.epoch.commits if phase == "seed-commits" else lg.epoch.reveals)
        liars = sorted(set(ev.stalled) - owing)
        if liars or len(set(ev.stalled)) != len(ev.stalled):
            raise self._fail(f"round-abort names seat(s) {liars or list(ev.stalled)} as stalled, but they sent "
                             f"their {'commitment' if phase == 'seed-commits' else 'reveal'} (the host blames "
                             "an innocent seat)")
        if phase == "seed-reveals" and not ev.stalled:
            # the host saw reveals (the last one first: then it knows the deck); giving up now
            # and dealing again is choosing a deal
            raise self._fail(f"the host gives up round {ev.round} in its seed reveals, naming no staller: once seeds "
                             "are being revealed only a seat that still owes its reveal can stop the round (a give-up "
                             "here is a re-deal on demand)")
        cur.status = "aborted"
        self.aborts.append(ev)
        if ev.stalled:
            self.stalls.update(ev.stalled)
            self.round_stalls.update(ev.stalled)
        else:
            self.host_aborts += 1

    def _on_sign(self, ev: RoundSign, lg) -> None:
        cur = self.current
        if cur is None or cur.status != "ended" or cur.end_digest is None or lg is None:
            raise self._fail(f"round-sign of seat {ev.seat} outside the end of a round")
        if not 0 <= ev.seat < len(self.seats):
            raise self._fail(f"round-sign names seat {ev.seat}, not a seat of the match")
        if ev.seat in cur.signs:
            raise self._fail(f"seat {ev.seat} co-signs round {cur.round} twice")
        if not self.trusted and not seat_event_ok(self.seats[ev.seat], lg.table, lg.round_no, lg.start_digest, ev):
            raise self._fail(f"round-sign of seat {ev.seat} is not signed by seat {ev.seat}")
        if ev.digest != cur.end_digest:
            # an honest host refuses a co-sign that is not over its own digest: relaying one means
            # it told this seat a different story (or relays a forgery it should have refused)
            raise self._fail(f"seat {ev.seat} co-signed round {cur.round} over digest {ev.digest.hex()[:16]}..., "
                             f"not the round's {cur.end_digest.hex()[:16]}...: the host told the peers different "
                             "stories")
        cur.signs[ev.seat] = ev.digest
