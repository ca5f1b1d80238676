"""The public state of one fair round, advanced only by checked events.

`RoundLedger.apply` is the single place where the rules of §4 are enforced on
public evidence; the dealer, every verifier and the auditor all run it, so
they cannot disagree about what is valid.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ._cards import COLOURS, KNOWN_DECKS, Card, face_colour, is_wild_draw

#: the colours a challenge may name on UNO Flip's dark side
DARK_COLOURS = ("P", "T", "O", "U")
from ._encoding import lp, round_context, sha256, tag
from ._errors import FairPlayViolation
from ._events import (
    Challenge, ChallengeDispute, ChallengeKey, ChallengeResponse, ChallengeTimeout, ChallengeVerdict, Commitments, Deal,
    DealDispute, DealKey, Event, Flip,
    GameEvent, Act, HostAct, PlayerCommit, PlayerReveal, Reveal, RoundEnd, RoundStart, SeedCommit,
    SeedReveal, TurnUp, VerdictTimeout,
)
from ._identity import PublicIdentity
from ._seatsig import seat_event_ok
from ._seed import (
    contributions_digest, derive_seed, epoch_secret, host_seed_commit, player_commit_message, player_seed_commit,
)
from ._seal import SealError, deal_ad, challenge_ad, challenge_key_message, challenge_response_message, open_with_ephemeral
from ._shuffle import (
    Opening, deck_commitments, opening_size, sealed_size, unpad_openings, commitments_message, round_end_message,
    shuffle_cards,
)


class Phase(enum.Enum):
    NEW = "new"                    # nothing yet
    SEED_COMMITS = "seed-commits"  # host committed; collecting player commitments
    SEED_REVEALS = "seed-reveals"  # all committed; collecting player reveals
    SHUFFLING = "shuffling"        # all revealed; waiting for the signed commitments
    LIVE = "live"                  # dealing and playing
    CHALLENGE = "challenge"        # a W+4 challenge is open
    CLOSING = "closing"            # host secrets being revealed
    DEAL_DISPUTE = "deal-dispute"  # a seat disputes its deal; the host's deal-key comes next
    ENDED = "ended"

    def __repr__(self) -> str:
        return self.value.upper()

    # the members are singletons, equal only to themselves: hashed by identity (Enum's own
    # `__hash__` is Python code, and every event looks its phase up in ALLOWED)
    __hash__ = object.__hash__


# Which events each phase accepts (GameEvent is accepted in every phase but NEW/ENDED).
ALLOWED: dict[Phase, tuple[type, ...]] = {
    Phase.NEW: (RoundStart,),
    Phase.SEED_COMMITS: (SeedCommit, PlayerCommit),
    Phase.SEED_REVEALS: (PlayerReveal,),
    Phase.SHUFFLING: (Commitments,),
    Phase.LIVE: (Deal, TurnUp, Act, HostAct, Reveal, Flip, Challenge, SeedCommit, SeedReveal, RoundEnd, DealDispute),
    Phase.CHALLENGE: (ChallengeResponse, ChallengeDispute, ChallengeKey, ChallengeTimeout, ChallengeVerdict,
                      VerdictTimeout, DealDispute),
    Phase.DEAL_DISPUTE: (DealKey,),
    Phase.CLOSING: (SeedReveal, RoundEnd),
    Phase.ENDED: (),
}


@dataclass
class EpochState:
    number: int
    base: int
    count: int
    host_commit: bytes
    sources: tuple[int, ...]
    line: int | None
    commits: dict[int, bytes] = field(default_factory=dict)
    reveals: dict[int, bytes] = field(default_factory=dict)
    commitments: tuple[bytes, ...] | None = None
    commitments_line: int | None = None
    next_deal: int = 0               # lowest offset that may be undealt
    top_deal: int = -1               # one past the highest offset that may be undealt (-1: count)
    host_secret: bytes | None = None
    #: "deck" (epoch 0), "discard" (the discard pile minus its top, when the draw pile is
    #: empty), "turned-up" (a Wild Draw Four turned up first, with the undealt pile), "hands"
    #: (Wild Shuffle Hands: every held position) or "hand" (one seat's hand, moved to `to`)
    kind: str = "deck"
    to: int | None = None

    def covers(self, position: int) -> bool:
        return self.base <= position < self.base + self.count


@dataclass
class PositionState:
    holder: int | None = None        # seat holding it now
    dealt_to: int | None = None      # seat it was dealt to (ever)
    dealt_line: int | None = None
    played_by: int | None = None     # seat that played it (-1: turned up by the host)
    played_line: int | None = None
    public_card: Card | None = None  # opened publicly
    announced_public: str | None = None
    announced_side: int = 0          # the side in play when announced_public was shown
    sealed: bytes = b""              # the sealed deal (a disputed one is opened with its key)
    retired: bool = False            # reshuffled into a later epoch


@dataclass
class ChallengeRecord:
    number: int
    challenger: int
    challenged: int
    colour: str
    positions: tuple[int, ...]
    line: int | None
    answered: bool = False
    guilty: bool | None = None
    timed_out: bool = False
    #: the challenger gave no verdict (nor dispute) in time: lost, as if judged innocent
    verdict_timed_out: bool = False
    verdict_line: int | None = None
    side: int = 0                    # the side in play at the wild draw (which face is held)
    face: str = ""                   # the wild draw challenged (W+4; UNO Flip's W+2 or W+C)
    sealed: bytes = b""              # the signed response's sealed evidence
    disputed: bool = False           # the challenger says the response does not open for it
    resolution: str = ""             # how a dispute ended
    false_dispute: bool = False      # the response stood: the challenger lost the challenge for its lie


@dataclass
class FlipRecord:
    number: int
    side: int                        # the side in play after the flip
    held: tuple[int, ...]            # every held position at the flip
    opened: tuple[int, ...]          # those opened by it (not yet public before)
    line: int | None


HOST_TURN = -1

#: the events a seat makes (or, for `reveal`, the host makes in a seat's name): they reach the
#: other peers only through the host, which checks each before relaying it
SEAT_EVENTS = (PlayerCommit, PlayerReveal, Act, Reveal, ChallengeResponse, ChallengeDispute, ChallengeKey,
               ChallengeVerdict, DealDispute)


def seat_named(event: Event) -> int | None:
    """The seat a seat event speaks for (the challenged seat of a response or key, the
    challenger of a verdict or dispute)."""
    if isinstance(event, (ChallengeResponse, ChallengeKey)):
        return event.challenged
    if isinstance(event, (ChallengeDispute, ChallengeVerdict)):
        return event.challenger
    return getattr(event, "seat", None)


def relayed_reason(event: Event, reason: str) -> str:
    """The reason a relayed seat message failed, told as the host's fault."""
    seat = seat_named(event)
    if isinstance(event, Reveal):
        return f"the host published a reveal of seat {seat}'s cards that fails its check: {reason}"
    article = "an" if event.EV[0] in "aeiou" else "a"
    return (f"the host relayed {article} {event.EV} in seat {seat}'s name that fails its check (a host passes on only "
            f"checked seat messages): {reason}")


class RoundLedger:
    """Public, checked state of one round. Raises FairPlayViolation naming who failed."""

    def __init__(self, *, decks: Mapping[str, Sequence[Card]] = KNOWN_DECKS) -> None:
        self.decks = decks
        self.phase = Phase.NEW
        self.start: RoundStart | None = None
        self.epochs: list[EpochState] = []
        self.positions: list[PositionState] = []
        self.cards: dict[int, Card] = {}          # every card known after its epoch's r_h
        self.challenges: list[ChallengeRecord] = []
        self.last_play: tuple[int, Card] | None = None
        self.last_play_face = ""                  # the face it was played as (the side in play)
        self.last_play_side = 0
        #: UNO Flip: the side in play (0 light, 1 dark); held cards show face `1 - side`
        self.side = 0
        self.two_sided = False                    # every card of the deck has two faces
        self.flips: list[FlipRecord] = []
        #: what the seat of the last W+4 held right after playing it: the challenge evidence
        self.last_play_hand: tuple[int, ...] = ()
        #: played and turned-up positions not yet reshuffled, in the order they reached the pile
        self.discard: list[int] = []
        #: positions of the moved-hand epochs since the last play (a swap or pass in progress)
        self.hand_batch: set[int] = set()
        self.start_line: int | None = None
        #: (line, note): facts that are not provably a violation but deserve a look
        self.flags: list[tuple[int | None, str]] = []
        self.digest = b""
        #: every digest this round's record had (after each event): what a dispute may name
        self.digests: set[bytes] = set()
        self.opening_size = 0                     # one padded opening of this round's deck
        #: the open deal dispute (seat, position) and the phase to return to; false claims per seat
        self.deal_dispute: tuple[int, int, Phase] | None = None
        self.false_claims: dict[int, int] = {}
        #: (seat, canonical event) whose seat signature is known good (see seat_signed)
        self.verified: set[tuple[int, str]] = set()
        self.counts = {"deals": 0, "plays": 0, "challenges": 0, "openings": 0, "flips": 0}
        #: every position made public, in the order it was (one may repeat): the table's live
        #: replay takes the ones since its last look instead of scanning every position
        self.published: list[int] = []
        self.line: int | None = None
        self.start_digest = b""                   # the round's context digest: the seats sign over it
        #: per seat: its signed acts so far (the next act's `n`), and the host's acts for it
        self.acts: list[int] = []
        self.host_acts: list[int] = []
        #: (seat, n, action) of the last act or host-act: the game record must repeat it
        self.last_act: tuple[int, int | None, dict] | None = None
        #: the round has a game record (a set-up before its seed): every act must be recorded
        self.game_record = False
        #: the host act the last game record repeats (None: a seat's own act): the table's
        #: replay checks it against its reason (a timeout's default action, a stand-in's absence)
        self.last_host_act: HostAct | None = None
        self.recorded_host_act: HostAct | None = None
        #: this ledger follows a referee's own output in its own process (the host's own seat
        #: over its in-memory link, `TableSeat(trusted=True)`): the referee's ledger, this
        #: class, checked every event before publishing it, so the checks that only distrust
        #: the host (signatures, openings against commitments, re-derived commitments) are
        #: skipped; the state is kept exactly as a checking ledger keeps it
        self.trusted = False

    # -- helpers -------------------------------------------------------------
    @property
    def table(self) -> bytes:
        assert self.start is not None
        return self.start.table

    @property
    def round_no(self) -> int:
        assert self.start is not None
        return self.start.round

    @property
    def seats(self) -> tuple[PublicIdentity, ...]:
        assert self.start is not None
        return self.start.seats

    @property
    def contributors(self) -> list[int]:
        assert self.start is not None
        away = set(self.start.absent or ())
        return [s for s in range(len(self.seats)) if s != self.start.host_seat and s not in away]

    @property
    def epoch(self) -> EpochState:
        return self.epochs[-1]

    @property
    def challenge(self) -> ChallengeRecord | None:
        if self.challenges and self.challenges[-1].guilty is None:
            return self.challenges[-1]
        return None

    def epoch_of(self, position: int) -> EpochState | None:
        for e in self.epochs:
            if e.covers(position):
                return e
        return None

    def commitment(self, position: int) -> bytes | None:
        e = self.epoch_of(position)
        if e is None or e.commitments is None:
            return None
        return e.commitments[position - e.base]

    def held_by(self, seat: int) -> tuple[int, ...]:
        return tuple(j for j, p in enumerate(self.positions) if p.holder == seat)

    def challengeable_hand(self, seat: int) -> tuple[int, ...]:
        """The positions a challenge of `seat` must show: its hand when it played the last
        Wild Draw Four (cards drawn since, e.g. for a missed UNO, are not evidence)."""
        if self.last_play is not None and self.last_play[0] == seat:
            return tuple(j for j in self.last_play_hand if self.positions[j].holder == seat)
        return self.held_by(seat)

    def pile_epoch(self) -> EpochState | None:
        """The newest epoch that still has undealt positions: the only one deals may come from."""
        return self._pile()[0]

    def _pile(self) -> tuple[EpochState | None, int | None]:
        """The pile epoch and its next undealt position (None, None: no undealt position)."""
        for e in reversed(self.epochs):
            if e.commitments is not None:
                j = self.next_position(e)
                if j is not None:
                    return e, j
        return None, None

    def undealt(self) -> list[int]:
        return [j for j, p in enumerate(self.positions)
                if not p.retired and p.dealt_to is None and p.played_by is None]

    def next_position(self, epoch: EpochState | None = None) -> int | None:
        """The next undealt position of an epoch (by default of the pile epoch, the newest
        epoch with undealt positions).

        The draw pile's top is its lowest undealt position while the light side is in play and
        its highest while the dark side is (UNO Flip turns the pile over, reversing it)."""
        if epoch is None:
            epoch = self.pile_epoch()
            if epoch is None:
                return None
        e = epoch
        top = e.count if e.top_deal < 0 else e.top_deal
        span = range(e.base + e.next_deal, e.base + top)
        for j in (reversed(span) if self.side else span):
            p = self.positions[j]
            if not p.retired and p.dealt_to is None and p.played_by is None:
                return j
        return None

    def _publish(self, j: int, card: Card) -> None:
        self.positions[j].public_card = card
        self.published.append(j)

    def shown_face(self, card: Card) -> str | None:
        """The face of a held card the table sees now (None for a one-faced card)."""
        return card.shown(self.side)

    def _fail(self, reason: str, *, seat: int | None = None, position: int | None = None,
              line: int | None = None) -> FairPlayViolation:
        return FairPlayViolation(reason, seat=seat, position=position, line=line)

    def _seat(self, seat: int, what: str, blame: int | None = None) -> None:
        if not 0 <= seat < len(self.seats):
            raise self._fail(f"{what}: no seat {seat} at this table", seat=blame)

    def check_opening(self, opening: Opening, *, seat: int | None, what: str, whose: str = "") -> None:
        """Opening vs C_j and vs the public face announced when it was dealt."""
        if self.trusted:
            return
        j = opening.position
        who = f" ({whose})" if whose else ""
        c = self.commitment(j)
        if c is None:
            raise self._fail(f"{what} of position {j}{who}: no commitment for it", seat=seat, position=j)
        if not opening.matches(self.table, self.round_no, c):
            raise self._fail(
                f"{what} of position {j}{who} opens to {opening.card.code()!r} but its commitment says otherwise",
                seat=seat, position=j,
            )
        p = self.positions[j]
        ann = p.announced_public
        if ann is not None and opening.card.shown(p.announced_side) != ann:
            where = f" on line {p.dealt_line}" if p.dealt_line is not None and p.dealt_line != self.line else ""
            raise self._fail(
                f"{what} of position {j}{who} opens with visible face {opening.card.shown(p.announced_side)!r} "
                f"but {ann!r} was shown when it was dealt{where}", seat=None, position=j,
                line=p.dealt_line if where else None,
            )

    # -- the state machine ---------------------------------------------------
    def apply(self, event: Event, line: int | None = None, *, sender: int | None = None) -> list[Opening]:
        """Check `event` against the public state, then record it.

        Returns the openings this event makes public. On a violation the
        state is left unchanged except for the failed event's partial checks.

        Who is to blame for a seat's message that fails (issue 22, class 1): `sender` is the
        seat whose own authenticated link carried it (the host's `FairDealer.accept`), which
        is then at fault. Without `sender` the event was *relayed*: a seat's word reaches the
        others only through the host, which must check it before passing it on, so a relayed
        seat message that fails convicts the host, never the seat named in it (the host may
        have altered it, or spliced it from elsewhere).
        """
        try:
            return self._apply(event, line)
        except FairPlayViolation as exc:
            if not isinstance(event, SEAT_EVENTS):
                raise
            if sender is not None:
                raise FairPlayViolation(exc.reason, seat=sender, position=exc.position, line=exc.line) from None
            if exc.line not in (None, line) or exc.reason.startswith("the host"):
                raise  # the host's own earlier claim, or told as the host's already
            out = FairPlayViolation(relayed_reason(event, exc.reason), seat=None, position=exc.position,
                                    line=exc.line)
            out.relayed = True  # (a file shows the host passed it on only under a later host signature)
            what = f"a reveal of seat {seat_named(event)}'s cards" if isinstance(event, Reveal) else \
                f"{'an' if event.EV[0] in 'aeiou' else 'a'} {event.EV} in seat {seat_named(event)}'s name"
            out.plain = f"{what} fails its check: {exc.reason}"
            raise out from None

    def _apply(self, event: Event, line: int | None) -> list[Opening]:
        self.line = line
        cls = type(event)
        if cls is GameEvent:
            if self.phase in (Phase.NEW, Phase.ENDED):
                raise self._fail("game event outside a round")
            if not self.epochs:
                self.game_record = True  # a set-up record: this round records every action
            self._check_game_action(event.data)
            self._absorb(event)
            return []
        if (cls is Act or cls is HostAct) and self.last_act is not None and self.game_record:
            seat, n, _ = self.last_act
            raise self._fail(f"{event.EV} of seat {event.seat} before the game record of "
                             + (f"seat {seat}'s act {n}" if n is not None else f"the host's act for seat {seat}"))
        allowed = ALLOWED[self.phase]
        if not isinstance(event, allowed):
            raise self._fail(
                f"{event.EV} event not allowed in phase {self.phase.value} "
                f"(expects {', '.join(c.EV for c in allowed) or 'nothing'})",
                seat=seat_named(event) if isinstance(event, SEAT_EVENTS) else None,
            )
        out = _HANDLERS[cls](self, event)
        if cls is not RoundEnd:
            self._absorb(event)
        if cls is SeedCommit and event.epoch == 0:
            # the round's context: its start, every set-up record before it, the host's
            # commitment; every seat's signature in this round is over it
            self.start_digest = self.digest
        return out

    def _check_game_action(self, data: dict) -> None:
        """A game record of an action (`{"g": "act", "a": action}`) repeats the action of the
        act (or host act) before it, exactly: the host cannot record one thing and relay another."""
        if data.get("g") != "act" or not self.game_record:
            return
        if self.last_act is None:
            raise self._fail(f"game record: an action ({data.get('a')!r}) that no seat signed and no host act made")
        seat, n, action = self.last_act
        if data.get("a") != action:
            who = f"seat {seat}'s signed act {n}" if n is not None else f"the host's act for seat {seat}"
            raise self._fail(f"game record: the action recorded, {data.get('a')!r}, is not {who}, {action!r}")
        self.last_act = None
        self.recorded_host_act, self.last_host_act = (self.last_host_act if n is None else None), None

    def seat_signed(self, seat: int, event: Event) -> bool:
        """Does `event` carry seat `seat`'s signature over this round's context? A signature
        verified once (the host on receipt, then again when its dealer records the event; a
        seat's own words) is not verified again: Ed25519 checks are most of a round's cost."""
        if self.trusted:
            return True
        key = (seat, event.canonical())
        if key in self.verified:
            return True
        ok = seat_event_ok(self.seats[seat], self.table, self.round_no, self.start_digest, event)
        if ok:
            self.verified.add(key)
        return ok

    def _absorb(self, event: Event) -> None:
        """digest <- SHA-256(digest || lp(body)).  The step is a function of the digest before
        and the event's canonical body alone: an event object remembers its last step (the
        digest it was absorbed into and the one that came out), and another ledger in this
        process that absorbs that very event into that very digest -- the host's own seat
        after its referee's dealer -- takes the result instead of hashing again."""
        memo = event.__dict__.get("_absorbed")
        if memo is not None and memo[0] == self.digest:
            self.digest = memo[1]
        else:
            body = event.canonical().encode("ascii")
            digest = sha256(self.digest, len(body).to_bytes(4, "big"), body)
            event.__dict__["_absorbed"] = (self.digest, digest)
            self.digest = digest
        self.digests.add(self.digest)

    def _on_round_start(self, ev: RoundStart) -> list[Opening]:
        if not ev.seats:
            raise self._fail("round has no seats")
        if ev.host_seat is not None:
            if not 0 <= ev.host_seat < len(ev.seats):
                raise self._fail(f"host seat {ev.host_seat} is not at the table")
            if ev.seats[ev.host_seat] != ev.host:
                raise self._fail(f"host seat {ev.host_seat} has a different identity from the host")
        if len(set(ev.seats)) != len(ev.seats):
            raise self._fail("two seats share one identity")
        if ev.absent is not None:
            if not ev.absent or list(ev.absent) != sorted(set(ev.absent)) or \
                    not all(0 <= s < len(ev.seats) and s != ev.host_seat for s in ev.absent):
                raise self._fail(f"round-start's absent seats {list(ev.absent)} are not distinct seats of the "
                                 "table in order (the host's own seat is never absent)")
        known = self.decks.get(ev.deck_name)
        if known is None:
            raise self._fail(f"unknown deck {ev.deck_name!r}")
        if tuple(ev.deck) != tuple(known):
            diff = next((i for i, (a, b) in enumerate(zip(ev.deck, known)) if a != b), min(len(ev.deck), len(known)))
            raise self._fail(
                f"deck is not the {ev.deck_name!r} deck ({len(ev.deck)} cards, expected {len(known)}; "
                f"first difference at index {diff})"
            )
        self.start = ev
        self.start_line = self.line
        self.opening_size = opening_size(ev.deck)
        self.acts = [0] * len(ev.seats)
        self.host_acts = [0] * len(ev.seats)
        self.two_sided = bool(ev.deck) and all(c.two_sided for c in ev.deck)
        if len(ev.digest) != 32:
            raise self._fail("round-start's chain head is not 32 bytes")
        if len(ev.history) != 32:
            raise self._fail("round-start's round history is not 32 bytes")
        self.digest = sha256(tag("round-digest"), round_context(ev.table, ev.round), lp(ev.digest))
        self.phase = Phase.SEED_COMMITS  # waits for epoch 0's SeedCommit
        return []

    def _on_seed_commit(self, ev: SeedCommit) -> list[Opening]:
        expected_epoch = len(self.epochs)
        if ev.epoch != expected_epoch:
            raise self._fail(f"seed commit for epoch {ev.epoch}, expected epoch {expected_epoch}")
        if self.epochs and self.epochs[-1].commitments is None:
            raise self._fail("seed commit before the previous epoch was committed")
        if len(ev.host_commit) != 32:
            raise self._fail("host seed commitment is not 32 bytes")
        base = len(self.positions)
        if ev.base != base:
            raise self._fail(f"epoch {ev.epoch} starts at position {ev.base}, expected {base}")
        if ev.epoch == 0:
            if ev.sources:
                raise self._fail("epoch 0 cannot reshuffle positions")
            count = len(self.start.deck)  # type: ignore[union-attr]
        else:
            if self.challenge is not None:
                raise self._fail("reshuffle during an open challenge")
            if not ev.sources or list(ev.sources) != sorted(set(ev.sources)):
                raise self._fail("reshuffle sources must be a non-empty ascending list of positions")
            for j in ev.sources:
                if j >= base:
                    raise self._fail(f"reshuffle source position {j} does not exist", position=j)
                if self.positions[j].retired:
                    raise self._fail(f"reshuffle source position {j} was already reshuffled", position=j)
            kind = self._epoch_kind(ev)
            count = len(ev.sources)
            for j in ev.sources:
                p = self.positions[j]
                p.retired = True
                p.holder = None
            src = set(ev.sources)
            self.discard = [j for j in self.discard if j not in src]
        if ev.epoch == 0:
            if ev.seat is not None:
                raise self._fail("epoch 0 is the deck, not a moved hand")
            kind = "deck"
        e = EpochState(ev.epoch, base, count, ev.host_commit, ev.sources, self.line, kind=kind, to=ev.seat)
        if ev.epoch:
            # one seed exchange per round: the players' round secrets key every later epoch
            first = self.epochs[0]
            e.commits = dict(first.commits)
            e.reveals = {s: epoch_secret(r, ev.epoch) for s, r in first.reveals.items()}
        self.epochs.append(e)
        if kind == "hand":
            self.hand_batch.update(range(base, base + count))
        self.positions += [PositionState() for _ in range(count)]
        self.phase = Phase.SEED_COMMITS if self.contributors and not ev.epoch else Phase.SHUFFLING
        return []

    def _epoch_kind(self, ev: SeedCommit) -> str:
        """Which reshuffle this is, from the public state, and its sources checked exactly.

        A new epoch never takes a card out of a hand except to move whole hands (and then
        re-deals every card of it), and never re-rolls a draw pile that still has cards,
        except for a Wild Draw Four turned up first."""
        src = list(ev.sources)
        for e in self.epochs:
            if e.kind in ("hand", "hands") and self.next_position(e) is not None:
                raise self._fail(f"reshuffle while epoch {e.number} (a {e.kind} epoch) is not yet all dealt")
        held_all = sorted(j for j, p in enumerate(self.positions) if p.holder is not None)
        undealt = self.undealt()
        if ev.seat is not None:
            self._seat(ev.seat, "moved hand")
            holders = {self.positions[j].holder for j in src}
            if len(holders) != 1 or None in holders:
                raise self._fail(f"moved hand to seat {ev.seat}: its sources {src} are not one seat's held cards "
                                 f"(held by {sorted(holders, key=str)})")
            frm = holders.pop()
            want = [j for j in self.held_by(frm) if j not in self.hand_batch]  # type: ignore[arg-type]
            if src != want:
                raise self._fail(f"moved hand to seat {ev.seat}: sources {src}, but seat {frm} holds {want}")
            return "hand"
        if held_all and src == held_all:
            return "hands"
        if any(self.positions[j].holder is not None for j in src):
            taken = [j for j in src if self.positions[j].holder is not None]
            raise self._fail(f"reshuffle takes held positions {taken} out of a hand (only whole hands move: "
                             "Wild Shuffle Hands, or a moved hand naming its new holder)", position=taken[0])
        if not undealt:
            # the top card (the last one played or turned up) stays: the rules reshuffle the rest
            want = sorted(self.discard[:-1])
            if src != want:
                top = self.discard[-1] if self.discard else None
                raise self._fail(f"discard reshuffle over {src}, but the discard pile minus its top (position "
                                 f"{top}) is {want}" + (f": it keeps position {sorted(set(self.discard) - set(src))}"
                                                        " instead of the top" if top in src else ""))
            return "discard"
        # the draw pile still has cards: only a Wild Draw Four turned up first goes back into it
        top = self.discard[-1] if self.discard else None
        tp = self.positions[top] if top is not None else None
        if (tp is None or self.counts["plays"] or tp.played_by != HOST_TURN or tp.public_card is None
                or not is_wild_draw(tp.public_card.face(self.side))
                or any(self.positions[j].played_by != HOST_TURN for j in self.discard)):
            raise self._fail(f"reshuffle of {src} while the draw pile still has undealt positions "
                             "(only a Wild Draw Four turned up first is reshuffled into the pile)")
        want = sorted(set(self.discard) | set(undealt))
        if src != want:
            raise self._fail(f"turned-up Wild Draw Four reshuffle over {src}, but the turned-up card and the "
                             f"undealt pile are {want}")
        return "turned-up"

    def _on_player_commit(self, ev: PlayerCommit) -> list[Opening]:
        if not self.epochs or self.epochs[-1].commitments is not None:
            raise self._fail("player commit before the host's seed commit", seat=ev.seat)
        e = self.epoch
        if ev.epoch != e.number:
            raise self._fail(f"player commit for epoch {ev.epoch}, expected {e.number}", seat=ev.seat)
        self._seat(ev.seat, "player commit", ev.seat)
        if ev.seat not in self.contributors:
            raise self._fail(f"seat {ev.seat} (the host's) does not contribute to the seed", seat=None)
        if ev.seat in e.commits:
            raise self._fail(f"seat {ev.seat} committed twice to epoch {e.number}", seat=ev.seat)
        if len(ev.commit) != 32:
            raise self._fail("player seed commitment is not 32 bytes", seat=ev.seat)
        if not self.trusted and not self.seats[ev.seat].verify(ev.sig, player_commit_message(
                self.table, self.round_no, e.number, ev.seat, e.host_commit, ev.commit, self.start_digest)):
            raise self._fail(f"seed commitment of seat {ev.seat} has a bad signature", seat=ev.seat)
        e.commits[ev.seat] = ev.commit
        if len(e.commits) == len(self.contributors):
            self.phase = Phase.SEED_REVEALS
        return []

    def _on_player_reveal(self, ev: PlayerReveal) -> list[Opening]:
        e = self.epoch
        if ev.epoch != e.number:
            raise self._fail(f"player reveal for epoch {ev.epoch}, expected {e.number}", seat=ev.seat)
        self._seat(ev.seat, "player reveal", ev.seat)
        if ev.seat not in e.commits:
            raise self._fail(f"seat {ev.seat} reveals without a commitment", seat=ev.seat)
        if ev.seat in e.reveals:
            raise self._fail(f"seat {ev.seat} revealed twice in epoch {e.number}", seat=ev.seat)
        try:
            c = e.commits[ev.seat] if self.trusted else \
                player_seed_commit(self.table, self.round_no, e.number, ev.seat, ev.secret)
        except ValueError:
            c = None
        if c != e.commits[ev.seat]:
            raise self._fail(
                f"seed contribution of seat {ev.seat} does not match its commitment (changed after commit)",
                seat=ev.seat,
            )
        e.reveals[ev.seat] = ev.secret
        if len(e.reveals) == len(self.contributors):
            self.phase = Phase.SHUFFLING
        return []

    def contributions_digest(self, e: EpochState) -> bytes:
        return contributions_digest([(s, e.commits[s], e.reveals[s]) for s in e.reveals])

    def _on_commitments(self, ev: Commitments) -> list[Opening]:
        e = self.epoch
        if ev.epoch != e.number or ev.base != e.base:
            raise self._fail(f"commitments for epoch {ev.epoch} at {ev.base}, expected epoch {e.number} at {e.base}")
        if len(ev.commitments) != e.count:
            raise self._fail(f"{len(ev.commitments)} commitments for an epoch of {e.count} positions")
        if any(len(c) != 32 for c in ev.commitments):
            raise self._fail("a commitment is not 32 bytes")
        assert self.start is not None
        if not self.trusted and not self.start.host.verify(ev.sig, commitments_message(
                self.table, self.round_no, e.number, e.base, e.host_commit, self.contributions_digest(e),
                ev.commitments)):
            raise self._fail(f"host signature over the epoch {e.number} commitments does not verify")
        e.commitments = ev.commitments
        e.commitments_line = self.line
        self.phase = Phase.LIVE
        return []

    def _deal_position(self, j: int, what: str, e: EpochState | None = None) -> EpochState:
        """Check that position ``j`` is the next to deal (``e``: its epoch, if known) and deal it."""
        if e is None:
            e = self.epoch_of(j)
        if e is None or e.commitments is None:
            raise self._fail(f"{what}: position {j} is not in any committed deck", position=j)
        p = self.positions[j]
        if p.retired:
            raise self._fail(f"{what}: position {j} was reshuffled away", position=j)
        if p.dealt_to is not None:
            raise self._fail(
                f"{what}: position {j} was already dealt to seat {p.dealt_to}"
                + (f" on line {p.dealt_line}" if p.dealt_line else ""), position=j,
            )
        if p.played_by is not None:
            raise self._fail(f"{what}: position {j} was already turned up", position=j)
        pile, nxt = self._pile()
        if pile is not None and e is not pile:
            raise self._fail(f"{what}: position {j} is in epoch {e.number}, but deals come from epoch "
                             f"{pile.number} (the newest with undealt positions)", position=j)
        if pile is None:
            nxt = self.next_position(e)
        if j != nxt:
            raise self._fail(f"{what}: position {j} dealt out of order (next undealt position is {nxt})", position=j)
        if self.side:
            e.top_deal = j - e.base
        else:
            e.next_deal = j - e.base + 1
        return e

    def _on_deal(self, ev: Deal) -> list[Opening]:
        self._seat(ev.seat, "deal")
        if self.two_sided and ev.public is None:
            raise self._fail(f"deal of position {ev.position} to seat {ev.seat} does not announce the face the "
                             "table sees (a two-sided deck)", position=ev.position)
        e = self.epoch_of(ev.position)
        if e is not None and e.kind == "hand" and ev.seat != e.to:
            raise self._fail(f"deal of position {ev.position} to seat {ev.seat}: epoch {e.number} is the hand "
                             f"moved to seat {e.to}", position=ev.position)
        self._deal_position(ev.position, f"deal to seat {ev.seat}", e)
        self.check_deal_size(ev)
        p = self.positions[ev.position]
        p.holder = p.dealt_to = ev.seat
        p.dealt_line = self.line
        p.announced_public = ev.public
        p.announced_side = self.side
        p.sealed = ev.sealed
        self.counts["deals"] += 1
        return []

    def check_deal_size(self, ev: Deal) -> None:
        """Checked by everyone: an unpadded opening tells every peer and sniffer the card's length."""
        if len(ev.sealed) != sealed_size(1, self.opening_size):
            raise self._fail(f"sealed deal of position {ev.position} is {len(ev.sealed)} bytes, not the deck's "
                             f"{sealed_size(1, self.opening_size)} (an unpadded opening leaks the card)",
                             position=ev.position)

    def _on_deal_dispute(self, ev: DealDispute) -> list[Opening]:
        self._seat(ev.seat, "deal dispute")
        j = ev.position
        if not 0 <= j < len(self.positions):
            raise self._fail(f"deal dispute of seat {ev.seat} names position {j}, which the round does not have",
                             seat=ev.seat)
        p = self.positions[j]
        if p.dealt_to != ev.seat or p.holder != ev.seat or p.public_card is not None or not p.sealed:
            raise self._fail(f"seat {ev.seat} disputes position {j}, which is no unopened card dealt to it",
                             seat=ev.seat, position=j)
        if not self.seat_signed(ev.seat, ev):
            raise self._fail(f"deal dispute is not signed by seat {ev.seat}")
        self._check_seen(ev, ev.seat)
        self.deal_dispute = (ev.seat, j, self.phase)
        self.phase = Phase.DEAL_DISPUTE
        return []

    def _check_seen(self, ev, seat: int) -> None:
        """A dispute names the round digest its seat had when it signed it: one this round
        never had here means the seat was shown another story than this one. Relayed, that is
        the host's doing (it showed it; an honest host refuses a dispute over a digest it never
        had); on the seat's own link at the host, the seat's lie."""
        if ev.seen is not None and ev.seen not in self.digests:
            raise self._fail(f"seat {seat} signed its {ev.EV} over the round digest {ev.seen.hex()[:16]}..., which "
                             "this round never had: seat "
                             f"{seat} was shown another story of the round than the table's (two stories)", seat=seat)

    def _on_deal_key(self, ev: DealKey) -> list[Opening]:
        assert self.deal_dispute is not None
        seat, j, back = self.deal_dispute
        if ev.position != j:
            raise self._fail(f"deal key for position {ev.position}, but seat {seat} disputes position {j}")
        recipient = self.seats[seat].dh_key
        ad = deal_ad(self.table, self.round_no, j, seat, recipient)
        try:
            (o,) = unpad_openings(open_with_ephemeral(self.positions[j].sealed, ephemeral=ev.secret,
                                                      recipient_dh=recipient, ad=ad), self.opening_size)
            if o.position != j:
                raise ValueError(f"it opens position {o.position}")
            self.check_opening(o, seat=None, what=f"disputed deal to seat {seat}")
        except (SealError, ValueError, FairPlayViolation) as exc:
            why = exc.reason if isinstance(exc, FairPlayViolation) else str(exc)
            raise self._fail(f"the deal of position {j} to seat {seat} does not open with its disclosed key "
                             f"({why}): the host dealt seat {seat} a card it could not read", position=j) from None
        self.deal_dispute = None
        self.phase = back
        self._publish(j, o.card)
        self.counts["openings"] += 1
        self.false_claims[seat] = self.false_claims.get(seat, 0) + 1
        self.flags.append((self.line, f"seat {seat} claimed its deal of position {j} did not open, but it opens to "
                                      f"the committed card {o.card.secret}: a false claim (its card is now public)"))
        return [o]

    def _on_turn_up(self, ev: TurnUp) -> list[Opening]:
        j = ev.opening.position
        self._deal_position(j, "turn-up")
        self.check_opening(ev.opening, seat=None, what="turn-up")
        p = self.positions[j]
        p.played_by, p.played_line = HOST_TURN, self.line
        self._publish(j, ev.opening.card)
        self.discard.append(j)
        self.counts["openings"] += 1
        return [ev.opening]

    def _check_held(self, seat: int, j: int, what: str) -> None:
        if j >= len(self.positions):
            raise self._fail(f"{what}: position {j} does not exist", seat=seat, position=j)
        p = self.positions[j]
        if p.holder == seat:
            return
        if p.played_by is not None and p.played_by == seat:
            why = f"seat {seat} already played it" + (f" on line {p.played_line}" if p.played_line else "") + \
                "; an opening cannot be replayed"
        elif p.retired:
            why = "it was reshuffled away"
        elif p.played_by == HOST_TURN:
            why = "it was turned up, not dealt"
        elif p.dealt_to is None:
            why = f"it was never dealt to seat {seat}"
        else:
            why = f"it is held by seat {p.holder}" if p.holder is not None else "it was already played"
        raise self._fail(f"{what}: seat {seat} does not hold position {j}: {why}", seat=seat, position=j)

    def _on_act(self, ev: Act) -> list[Opening]:
        self._seat(ev.seat, "act", None)
        if not self.seat_signed(ev.seat, ev):
            raise self._fail(f"act {ev.n} of seat {ev.seat} is not signed by seat {ev.seat} (an action in its name "
                             "that it did not make)", seat=None)
        if ev.n != self.acts[ev.seat]:
            raise self._fail(f"act {ev.n} of seat {ev.seat}, but its next act is number {self.acts[ev.seat]} "
                             f"({'replayed' if ev.n < self.acts[ev.seat] else 'some left out'})", seat=None)
        out = self._acted(ev.seat, ev.action, ev.opening, "act")
        self.last_host_act = None
        self.acts[ev.seat] += 1
        self.last_act = (ev.seat, ev.n, ev.action)
        return out

    def _on_host_act(self, ev: HostAct) -> list[Opening]:
        if ev.seat is None:  # the referee's call for the table (e.g. closing a reaction race)
            if ev.opening is not None:
                raise self._fail("a referee's host act plays a card")
            self.last_act = (-1, None, ev.action)
            self.last_host_act = ev
            return []
        self._seat(ev.seat, "host act")
        if not ev.reason:
            raise self._fail(f"host act for seat {ev.seat} gives no reason")
        out = self._acted(ev.seat, ev.action, ev.opening, "host act")
        self.host_acts[ev.seat] += 1
        self.last_act = (ev.seat, None, ev.action)
        self.last_host_act = ev
        return out

    def _acted(self, seat: int, action: dict, opening: Opening | None, what: str) -> list[Opening]:
        if self._check_opened(seat, action, opening, what):
            j = opening.position  # type: ignore[union-attr]
            self._check_held(seat, j, f"play of position {j}")
            self.check_opening(opening, seat=seat, what="play", whose=f"seat {seat}")  # type: ignore[arg-type]
            return self._play(seat, opening)  # type: ignore[arg-type]
        return []

    def _check_opened(self, seat: int, action: dict, opening: Opening | None, what: str) -> bool:
        """An act's opening goes with its play and only with it (True: there is one)."""
        pos = action.get("pos")
        if opening is None:
            if pos is not None:
                raise self._fail(f"{what} of seat {seat} plays position {pos!r} without its opening", seat=None)
            return False
        if pos != opening.position:
            raise self._fail(f"{what} of seat {seat} opens position {opening.position} but its action plays "
                             f"{pos!r}", seat=None, position=opening.position)
        return True

    def check_act(self, ev: Act, sender: int) -> None:
        """The checks of `_on_act` on a seat's act that came on its own link (``sender``) that
        no race can fail, without recording it: its signature, an opening with its play and only
        with it, the opening against its commitment. The host makes them before its rules engine
        plays the action, so an act whose opening lies moves nothing (else the engine played a
        card no peer ever saw published, and the next honest act's record convicted the host).
        Whether the seat still holds the card is the engine's to refuse first (a hand passed or
        swapped while a jump-in was on its way: a race, not a cheat)."""
        try:
            self._seat(ev.seat, "act", None)
            if not self.seat_signed(ev.seat, ev):
                raise self._fail(f"act {ev.n} of seat {ev.seat} is not signed by seat {ev.seat}")
            if self._check_opened(ev.seat, ev.action, ev.opening, "act"):
                self.check_opening(ev.opening, seat=ev.seat, what="play", whose=f"seat {ev.seat}")
        except FairPlayViolation as exc:
            raise FairPlayViolation(exc.reason, seat=sender, position=exc.position) from None

    def _play(self, seat: int, opening: Opening) -> list[Opening]:
        j = opening.position
        p = self.positions[j]
        p.holder, p.played_by, p.played_line = None, seat, self.line
        self._publish(j, opening.card)
        self.discard.append(j)
        self.hand_batch = set()
        self.last_play = (seat, opening.card)
        self.last_play_face = face = opening.card.face(self.side)
        self.last_play_side = self.side
        self.last_play_hand = self.held_by(seat) if is_wild_draw(face) else ()
        self.counts["plays"] += 1
        self.counts["openings"] += 1
        return [opening]

    def _on_reveal(self, ev: Reveal) -> list[Opening]:
        self._seat(ev.seat, "reveal", ev.seat)
        seen = set()
        for o in ev.openings:
            if o.position in seen:
                raise self._fail(f"reveal opens position {o.position} twice", seat=ev.seat, position=o.position)
            seen.add(o.position)
            self._check_held(ev.seat, o.position, f"reveal of position {o.position}")
            self.check_opening(o, seat=ev.seat, what="reveal", whose=f"seat {ev.seat}")
        for o in ev.openings:
            self._publish(o.position, o.card)
        self.counts["openings"] += len(ev.openings)
        return list(ev.openings)

    def _on_flip(self, ev: Flip) -> list[Opening]:
        if not self.two_sided:
            raise self._fail("flip on a deck whose cards have one face")
        if ev.side != 1 - self.side:
            raise self._fail(f"flip to side {ev.side}, but side {self.side} is in play")
        held = tuple(j for j, p in enumerate(self.positions) if p.holder is not None)
        want = tuple(j for j in held if self.positions[j].public_card is None)
        got = tuple(o.position for o in ev.openings)
        if got != want:
            missing = sorted(set(want) - set(got))
            extra = sorted(set(got) - set(want))
            raise self._fail(
                f"flip opens positions {list(got)}, but the held positions not yet public are {list(want)}"
                + (f" (hides {missing})" if missing else "")
                + (f" (opens {extra}, which {'is' if len(extra) == 1 else 'are'} not a held secret)" if extra else "")
                + ("" if missing or extra else " (out of order)"),
                position=(missing or extra or [None])[0],
            )
        for o in ev.openings:
            self.check_opening(o, seat=None, what="flip", whose=f"held by seat {self.positions[o.position].holder}")
        for o in ev.openings:
            self._publish(o.position, o.card)
        self.side = ev.side
        self.flips.append(FlipRecord(len(self.flips), ev.side, held, got, self.line))
        self.counts["openings"] += len(ev.openings)
        self.counts["flips"] += 1
        return list(ev.openings)

    def _on_challenge(self, ev: Challenge) -> list[Opening]:
        self._seat(ev.challenger, "challenge")
        self._seat(ev.challenged, "challenge")
        if ev.challenger == ev.challenged:
            raise self._fail("a seat cannot challenge itself")
        if self.last_play is None or self.last_play[0] != ev.challenged or not is_wild_draw(self.last_play_face):
            raise self._fail(f"challenge of seat {ev.challenged}, whose last play is not the last play or not a W+4 "
                             "(nor UNO Flip's W+2 / W+C)")
        colours = DARK_COLOURS if self.two_sided and self.last_play_side else COLOURS
        if ev.colour not in colours:
            raise self._fail(f"challenge names colour {ev.colour!r}, not a colour of this side of the deck "
                             f"({' '.join(colours)})")
        held = self.challengeable_hand(ev.challenged)
        if tuple(ev.positions) != held:
            raise self._fail(
                f"challenge lists positions {list(ev.positions)} but seat {ev.challenged} holds {list(held)}"
                " (its hand when it played the Wild Draw Four)",
                seat=None,
            )
        self.challenges.append(ChallengeRecord(
            len(self.challenges), ev.challenger, ev.challenged, ev.colour, held, self.line, side=self.last_play_side,
            face=self.last_play_face))
        self.last_play = None
        self.counts["challenges"] += 1
        self.phase = Phase.CHALLENGE
        return []

    def _on_challenge_response(self, ev: ChallengeResponse) -> list[Opening]:
        ch = self.challenge
        assert ch is not None
        if (ev.challenger, ev.challenged) != (ch.challenger, ch.challenged):
            raise self._fail("challenge response names the wrong seats", seat=ev.challenged)
        if ch.answered:
            raise self._fail("challenge answered twice", seat=ev.challenged)
        if tuple(ev.positions) != ch.positions:
            raise self._fail(
                f"challenge response lists positions {list(ev.positions)}, but seat {ch.challenged} "
                f"holds {list(ch.positions)}", seat=ev.challenged,
            )
        if len(ev.sealed) != sealed_size(len(ch.positions), self.opening_size):
            raise self._fail(f"challenge response of seat {ch.challenged} is {len(ev.sealed)} bytes, not "
                             f"{sealed_size(len(ch.positions), self.opening_size)} (unpadded openings leak the "
                             "cards)", seat=ev.challenged)
        msg = challenge_response_message(self.table, self.round_no, ch.number, ch.challenger, ch.challenged,
                                         ch.positions, ev.sealed)
        if not self.trusted and not self.seats[ch.challenged].verify(ev.sig, msg):
            raise self._fail(f"challenge response is not signed by seat {ch.challenged}")
        ch.answered = True
        ch.sealed = ev.sealed
        return []

    def _on_challenge_dispute(self, ev: ChallengeDispute) -> list[Opening]:
        ch = self.challenge
        assert ch is not None
        if (ev.challenger, ev.challenged) != (ch.challenger, ch.challenged):
            raise self._fail("challenge dispute names the wrong seats", seat=ev.challenger)
        if not ch.answered or ch.disputed:
            raise self._fail("challenge dispute " + ("before the response" if not ch.answered else "filed twice"),
                             seat=ev.challenger)
        if not self.seat_signed(ch.challenger, ev):
            raise self._fail(f"challenge dispute is not signed by the challenger, seat {ch.challenger} (filed in its "
                             "name by someone else)", seat=None)
        if ev.number is not None and ev.number != ch.number:
            raise self._fail(f"challenge dispute signed for challenge {ev.number}, filed in challenge {ch.number} "
                             f"(seat {ch.challenger}'s word from another challenge, replayed)", seat=None)
        self._check_seen(ev, ch.challenger)
        ch.disputed = True
        return []

    def _on_challenge_key(self, ev: ChallengeKey) -> list[Opening]:
        """The disclosed ephemeral key opens the response for everyone: the challenged seat is
        guilty if it does not open, or opens to anything but its exact hand."""
        ch = self.challenge
        assert ch is not None
        if ev.challenged != ch.challenged or not ch.disputed:
            raise self._fail("challenge key " + ("names the wrong seat" if ch.disputed else "without a dispute"))
        msg = challenge_key_message(self.table, self.round_no, ch.number, ch.challenged, ev.secret)
        if not self.trusted and not self.seats[ch.challenged].verify(ev.sig, msg):
            raise self._fail(f"challenge key is not signed by seat {ch.challenged}")
        recipient = self.seats[ch.challenger].dh_key
        ad = challenge_ad(self.table, self.round_no, ch.number, ch.challenger, ch.challenged, ch.positions, recipient)
        why = ""
        openings: list[Opening] = []
        try:
            openings = unpad_openings(open_with_ephemeral(ch.sealed, ephemeral=ev.secret, recipient_dh=recipient,
                                                          ad=ad), self.opening_size)
            if [o.position for o in openings] != list(ch.positions):
                why = f"it shows positions {[o.position for o in openings]}, not {list(ch.positions)}"
            else:
                for o in openings:
                    self.check_opening(o, seat=ch.challenged, what="disclosed challenge response")
        except SealError as exc:
            why = str(exc)
        except ValueError as exc:
            why = f"malformed: {exc}"
        except FairPlayViolation as exc:
            why = exc.reason
        if why:
            ch.guilty, ch.resolution = True, f"guilty: the disclosed response does not stand ({why})"
            openings = []
        else:
            for o in openings:
                self._publish(o.position, o.card)
            # the response stood: the challenger's dispute was false, and a false claim costs its
            # maker the challenge (whatever the cards; it saw them when it disputed)
            ch.guilty = False
            ch.false_dispute = True
            ch.resolution = ("the disclosed response opens to the committed cards: the challenger's dispute was "
                             "false, and it loses the challenge")
            self.false_claims[ch.challenger] = self.false_claims.get(ch.challenger, 0) + 1
            self.flags.append((self.line, f"seat {ch.challenger} disputed seat {ch.challenged}'s challenge response, "
                                          "but it opens to the committed cards: a false claim (it loses the challenge)"))
            self.counts["openings"] += len(openings)
        ch.verdict_line = self.line
        self.phase = Phase.LIVE
        return openings

    def _on_challenge_timeout(self, ev: ChallengeTimeout) -> list[Opening]:
        ch = self.challenge
        assert ch is not None
        if ev.challenged != ch.challenged:
            raise self._fail("challenge timeout names the wrong seat")
        if ch.answered and not ch.disputed:
            raise self._fail(f"challenge timeout after seat {ch.challenged} answered", seat=None)
        ch.guilty, ch.timed_out, ch.verdict_line = True, True, self.line
        self.phase = Phase.LIVE
        return []

    def _on_verdict_timeout(self, ev: VerdictTimeout) -> list[Opening]:
        """The challenger's verdict clock ran out: the challenge is lost as if judged innocent
        (an unproven challenge fails). Only while a verdict is owed: after the response, before
        any dispute; at any other time it is the host's false claim."""
        ch = self.challenge
        assert ch is not None
        if (ev.challenger, ev.challenged) != (ch.challenger, ch.challenged):
            raise self._fail(f"verdict timeout names challenger {ev.challenger} and challenged seat {ev.challenged}, "
                             f"but the open challenge is seat {ch.challenger}'s of seat {ch.challenged}")
        if not ch.answered:
            raise self._fail(f"verdict timeout before seat {ch.challenged} answered (no verdict is owed yet: the "
                             "challenged seat's response is)")
        if ch.disputed:
            raise self._fail(f"verdict timeout during seat {ch.challenger}'s dispute (no verdict is owed: the "
                             f"challenged seat {ch.challenged}'s key is)")
        ch.guilty, ch.verdict_timed_out, ch.verdict_line = False, True, self.line
        ch.resolution = "the challenger gave no verdict in time: it loses the challenge"
        self.phase = Phase.LIVE
        return []

    def _on_challenge_verdict(self, ev: ChallengeVerdict) -> list[Opening]:
        ch = self.challenge
        assert ch is not None
        if (ev.challenger, ev.challenged) != (ch.challenger, ch.challenged):
            raise self._fail("challenge verdict names the wrong seats")
        if not ch.answered:
            raise self._fail(f"challenge verdict before seat {ch.challenged} answered")
        if ch.disputed:
            raise self._fail("challenge verdict during a dispute (the disclosed key decides it)")
        if not self.seat_signed(ch.challenger, ev):
            raise self._fail(f"challenge verdict is not signed by the challenger, seat {ch.challenger} (given in its "
                             "name by someone else)", seat=None)
        if ev.number is not None and ev.number != ch.number:
            raise self._fail(f"challenge verdict signed for challenge {ev.number}, given in challenge {ch.number} "
                             f"(seat {ch.challenger}'s word from another challenge, replayed)", seat=None)
        if ev.guilty:
            o = ev.proof
            if o is None:
                raise self._fail("guilty verdict without a proof opening")
            if o.position not in ch.positions:
                raise self._fail(
                    f"guilty verdict's proof is position {o.position}, not held by seat {ch.challenged}",
                    position=o.position,
                )
            self.check_opening(o, seat=None, what="guilty verdict's proof")
            if face_colour(o.card.face(ch.side)) != ch.colour:
                raise self._fail(
                    f"guilty verdict's proof, position {o.position} ({o.card.face(ch.side)!r}), is not of colour "
                    f"{ch.colour}",
                    position=o.position,
                )
            self._publish(o.position, o.card)
        elif ev.proof is not None:
            raise self._fail("innocent verdict carries a proof opening")
        ch.guilty, ch.verdict_line = ev.guilty, self.line
        self.phase = Phase.LIVE
        return [ev.proof] if ev.proof is not None else []

    def _on_seed_reveal(self, ev: SeedReveal) -> list[Opening]:
        """r_h, revealed once at the round's end: every epoch's deck is recomputed from it."""
        if ev.epoch != 0 or self.epochs[0].host_secret is not None:
            raise self._fail(f"seed reveal for epoch {ev.epoch}: the host reveals its round secret r_h once, "
                             "as epoch 0's")
        for e in self.epochs:
            try:
                r_e = epoch_secret(ev.host_secret, e.number)
                c = e.host_commit if self.trusted else host_seed_commit(self.table, self.round_no, e.number, r_e)
            except ValueError:
                c = None
            if c != e.host_commit:
                raise self._fail(f"revealed r_h does not match the host's commitment for epoch {e.number} "
                                 "(changed after commit)", line=e.line if e.number else None)
            self._check_epoch(e, r_e)
        for e in self.epochs:
            e.host_secret = epoch_secret(ev.host_secret, e.number)
        self.phase = Phase.CLOSING
        self._check_challenges()
        return []

    def _check_epoch(self, e: EpochState, r_e: bytes) -> None:
        seed = derive_seed(self.table, self.round_no, e.number, r_e, list(e.reveals.items()))
        if e.number == 0:
            assert self.start is not None
            deck = list(self.start.deck)
        else:
            deck = [self.cards[j] for j in e.sources]
        shuffled = shuffle_cards(deck, seed)
        assert e.commitments is not None
        if self.trusted:  # (the cards are this ledger's state; their commitments the referee's check)
            self.cards.update(zip(range(e.base, e.base + len(shuffled)), shuffled))
            return
        for i, (card, c) in enumerate(zip(shuffled, deck_commitments(r_e, self.table, self.round_no, e.base,
                                                                    shuffled))):
            j = e.base + i
            if c != e.commitments[i]:
                out = self._fail(
                    f"commitment of position {j} does not match the deck recomputed from the seed "
                    f"(reordered or substituted deck{self._shown_by('; ')})",
                    position=j, line=e.commitments_line,
                )
                # epoch 0's evidence is all signed or a preimage: the host's signature over the list,
                # H(r_h) and the seats' contributions, r_h itself, the named deck; an epoch > 0 takes
                # its cards from the positions an unsigned seed-commit names (an audit needs the round
                # signed over it)
                out.signed = e.number == 0
                raise out
            self.cards[j] = card
        for j in range(e.base, e.base + e.count):
            p = self.positions[j]
            if p.announced_public is not None and self.cards[j].shown(p.announced_side) != p.announced_public:
                raise self._fail(
                    f"deal of position {j} showed {p.announced_public!r} to the table, but the card there is "
                    f"{self.cards[j].code()!r}, which shows {self.cards[j].shown(p.announced_side)!r} on that side"
                    f"{self._shown_by(' (')}", position=j, line=p.dealt_line,
                )

    def _shown_by(self, sep: str = " (") -> str:
        if self.line is None:
            return ""
        text = f"shown by the r_h revealed on line {self.line}"
        return f"; {text}" if sep == "; " else f" ({text})"

    def _check_challenges(self) -> None:
        """Innocent verdicts become checkable once every card is known."""
        for ch in self.challenges:
            hand = [(j, self.cards[j]) for j in ch.positions]
            bad = [(j, c) for j, c in hand if face_colour(c.face(ch.side)) == ch.colour]
            if ch.guilty is False and bad and not ch.false_dispute and not ch.verdict_timed_out:
                j, c = bad[0]
                raise self._fail(
                    f"innocent verdict is false: seat {ch.challenged} held position {j} ({c.face(ch.side)!r}) "
                    f"of colour {ch.colour}{self._shown_by()}",
                    position=j, line=ch.verdict_line,
                )
            if ch.timed_out and not bad and not ch.disputed:
                self.flags.append((ch.verdict_line, (
                    f"seat {ch.challenged} was found guilty by a timeout, but its cards show its wild draw was "
                    f"legal (no {ch.colour}): either it did not answer in time or its answer was withheld (a seat "
                    "that answered refuses the timeout live)")))
            if ch.verdict_timed_out and bad:
                j, c = bad[0]
                self.flags.append((ch.verdict_line, (
                    f"seat {ch.challenger} lost its challenge of seat {ch.challenged} by a verdict timeout, but the "
                    f"cards show the wild draw was illegal (position {j}, {c.face(ch.side)!r}, is {ch.colour}): "
                    "either the challenger did not judge in time or its verdict was withheld (a challenger that "
                    "judged refuses the timeout live)")))

    def _on_round_end(self, ev: RoundEnd) -> list[Opening]:
        if self.challenge is not None:
            raise self._fail("round ended during an open challenge")
        if any(e.host_secret is None for e in self.epochs):
            missing = [e.number for e in self.epochs if e.host_secret is None]
            raise self._fail(f"round ended but r_h was withheld for epoch(s) {missing}")
        for j, p in enumerate(self.positions):
            if p.holder is not None and p.public_card is None:
                # the host opens every hand itself at the end (FairDealer.finish): a hand it never
                # opens is its fault, not its holder's
                raise self._fail(f"round ended but seat {p.holder}'s position {j} was never opened (the host "
                                 "opens every hand at the end)", position=j)
        if ev.digest != self.digest:
            raise self._fail("round-end digest does not match the events of this round (an event was changed, "
                             "added or left out)")
        if not self.trusted and \
                not self.start.host.verify(ev.sig, round_end_message(self.table, self.round_no, ev.digest)):  # type: ignore[union-attr]
            raise self._fail("host signature over the round does not verify")
        self.phase = Phase.ENDED
        return []


#: each event class's handler, `RoundLedger._on_<its ev>` (looked up once, not per event)
_HANDLERS = {cls: getattr(RoundLedger, "_on_" + cls.EV.replace("-", "_")) for allowed in ALLOWED.values()
             for cls in allowed}
