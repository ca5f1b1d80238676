"""The host and the seats of a fair table, sans IO: message-driven, never calling each other.

`TableHost` runs the rules engine (a `FairRound`) and a `FairDealer`. It never calls a
seat: every method returns the public events to broadcast, in order, the same to
everyone; a seat's signed message comes in through `receive(seat, event)`; `owed()` says
whose message the table waits for; a missed deadline becomes the events the rules say
through `timeout(seat, kind)`. `TableSeat` (a player, or with no seat an observer) checks
every public event with its fair ledger and says what it owes (`owed()`), already signed;
`act(action)` signs one engine action of its seat. The net layer carries these events over
links; `LocalTable` (_driver.py) carries them in memory.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..engine import ActionError, InvalidActionError, OutOfTurnError, Round, RuleSet
from ..engine import Challenge as EngineChallenge
from ..fair import (
    Act, Event, FairDealer, FairPlayViolation, FairStateError, FairVerifier, GameEvent, HostAct, Identity,
    PublicIdentity, RoundStart, TranscriptWriter,
)
from ..fair._events import ChallengeTimeout, Deal, MatchJoin, MatchStart, RoundAbort, RoundEnd, RoundSign
from ._handover import check_handover
from ..fair._identity import RandBytes
from ..fair._match import NONCE_LEN, MatchLedger, sign_match_join, sign_match_start, start_away
from ..fair._seatsig import sign_seat_event
from ._match import MatchReferee, round_dealer
from ._replay import GameAuditor, Replay, round_tally, tally_ok
from ._round import REFEREE, STAND_IN, TIMEOUT, TABLE_DECKS, FairRound, action_from_json, default_action, action_json, events_json, fair_key, fair_of, rules_json, scores_after  # noqa: F401

MATCH_EVENTS = (MatchStart, MatchJoin, RoundAbort, RoundSign)
#: the events a `TableSeat` hands to its verifier (and a game record to its replay) with nothing
#: else to check: no match-level or round-boundary event, no challenge for the rules to judge,
#: none a seat's own checks of the host's word (a timeout, a stand-in) look at
_PLAIN_EVENTS = frozenset({GameEvent, Act, Deal})


def _reaction(event, rnd, seat: int) -> bool:
    """Is ``event`` a seat's reaction -- a catch, or a jump-in play out of turn?  One is signed
    on the seat's copy while others move, so one the table's state no longer allows (another
    catch came first, a card was played, the round ended) lost a race: `stale`, no fault."""
    action = getattr(event, "action", None)
    kind = action.get("t") if isinstance(action, dict) else None
    return kind == "catch" or (kind == "play" and rnd is not None and seat != rnd.turn
                               and bool(getattr(rnd, "_jump_in", False)))


class Refusal(Exception):
    """A seat's message the host will not take, without it being a cheat: `code` is one of
    ``illegal`` (the rules forbid it now), ``out-of-turn`` (not this seat's message to send
    now), ``stale`` (an act number already used or skipped; a race lost) or ``unsupported``."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(f"{code}: {reason}")
        self.code = code
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Owed:
    """The table waits for seat `seat`'s message of kind `kind` (see TableHost.owed)."""

    seat: int
    kind: str


# FairVerifier.pending_action -> the verifier method that produces what the seat owes
_OWED = {
    "commit-seed": "commit_seed",
    "reveal-seed": "reveal_seed",
    "answer-challenge": "answer_challenge",
    "judge-challenge": "judge_challenge",
    "dispute-challenge": "dispute_challenge",
    "disclose-key": "disclose_challenge_key",
    "dispute-deal": "dispute_deal",
}


class TableSeat:
    """One player's side (or, with ``seat=None``, an observer's): checks every public event
    with a MatchLedger (the match's frame), a MatchReferee (the set-up each round must carry)
    and a FairVerifier (a fresh one per round attempt); owes signed messages; signs its actions.

    A violation is raised from `receive` and kept in `violation` (the first one): the
    cheat and the cheater, as the fair layer names them."""

    def __init__(self, seat: int | None, identity: Identity | None, host: PublicIdentity | None = None, *,
                 randbytes: RandBytes = os.urandom, continues=None, trusted: bool = False) -> None:
        self.seat = seat
        #: the events come from a `TableHost` in this process, which checked each before
        #: publishing it (the host's own seat over its in-memory link): the ledgers keep their
        #: state but do not verify signatures or re-derive commitments again
        #: (`RoundLedger.trusted`); this seat's own checks of its private knowledge stay
        self.trusted = trusted
        #: after a host election: this seat's own `Continuation` of the old match, which the
        #: new host's `match-start` must carry exactly (_handover.py)
        self.continues = continues
        self.identity = identity
        self.host = host
        self.randbytes = randbytes
        self.match = MatchLedger()
        self.match.trusted = trusted
        self._recovering = False
        #: seed secrets derived from the seat's key (FairVerifier.secrets_from_key): set by a
        #: seat that may crash and come back (the net layer's seats)
        self.secrets_from_key = False
        #: the rules-engine replay and the match rules (the audit's own, run live)
        self.replay = GameAuditor(seat)
        #: the canonical acts of this seat the host refused (taken back), over the whole match:
        #: one shared by every round's verifier, and carried to a new `TableSeat` of the same
        #: process that rebuilds the seat from a replay (`remember`)
        self._taken_back: set[str] = set()
        self.verifier = self._new_verifier()
        self.violation: FairPlayViolation | None = None
        #: the event on which the violation was raised (the moment the cheat was caught)
        self.violation_event: Event | None = None
        self.rounds = 0
        self._made: set[str] = set()     # canonical forms of the match-level events this seat signed
        self._joined = False
        self._signed: set[tuple[int, int]] = set()  # (round, attempt) co-signed
        #: co-signs made in the first breath after a replay (back in our seat): the host may have
        #: started the next round without us while we were away, before this co-sign reached it
        self._unsure: set[tuple[int, int]] = set()
        self._just_back = False
        #: set by the net driver for one event: this seat's own process (or reader) was held up
        #: since the event that owed its last word reached it, so that word may have left after
        #: the host's clock ran out (a backlog read late): no contest of a timeout, an abort or a
        #: waiver then (it would accuse an honest host of withholding a word that was late)
        self.held_up = False
        self._in_round = False
        self._received = 0              # events received so far (owed() changes only with them)
        self._owed_cache: tuple[int, list] | None = None
        self._duty: tuple | None = None  # the last verifier duty whose message was made
        #: the last `_make_owed` found nothing owed and no duty pending, and only events that
        #: change none of what it reads came since (`_PLAIN_EVENTS`, a deal to another seat):
        #: nothing is owed now either
        self._quiet = False

    def _new_verifier(self) -> FairVerifier:
        v = FairVerifier(seat=self.seat, identity=self.identity, host=self.host, randbytes=self.randbytes,
                         decks=TABLE_DECKS)
        v.ledger.trusted = self.trusted
        v.dispute_bad_deals = True  # a deal that does not open is disputed: the host's key settles it
        v.recovering = self._recovering
        v.secrets_from_key = self.secrets_from_key
        v._taken_back = self._taken_back
        return v

    def remember(self, refused: set[str]) -> None:
        """This seat is rebuilt from the host's replay on a new link while its process lives (its
        link dropped, or the host closed it): the acts the host refused it on the old link are
        known still, and a replay that relays one is the host playing a move the seat withdrew
        (an honest host never relays an act it refused). What a crash forgot stays forgotten;
        nothing else carries over (a word sent as the link died may never have arrived)."""
        self._taken_back = refused
        self.verifier._taken_back = refused

    @property
    def refused(self) -> set[str]:
        """The acts of this seat the host refused (see `remember`)."""
        return self._taken_back

    @property
    def recovering(self) -> bool:
        """A fresh seat rebuilding itself from the host's replay of the match so far (a player
        back after a crash, spec §7 `rejoin`): events in its name are its own word once their
        signature verifies -- only this seat holds its key -- and it owes nothing until the
        replay ends (set False then; `owed()` says what it still owes)."""
        return self._recovering

    @recovering.setter
    def recovering(self, on: bool) -> None:
        self._just_back = self._recovering and not on
        self._recovering = self.verifier.recovering = bool(on)
        self._owed_cache = None
        self._quiet = False

    def receive(self, event: Event) -> None:
        if self.violation is not None:
            raise self.violation
        self._received += 1
        if not self._recovering:
            self._just_back = False  # the table has spoken since we came back: we are at it again
        try:
            cls = type(event)
            if cls in _PLAIN_EVENTS:  # most of a round: no match-level or round-boundary check applies
                if cls is Deal and event.seat == self.seat:
                    self._quiet = False  # (a deal to us that does not open is disputed)
                self.verifier.receive(event)
                if self._in_round and cls is GameEvent:
                    self.replay.on_game(None, event.data, self.verifier.ledger, known=self.verifier._known)
            else:
                self._quiet = False
                self._receive(event)
        except FairPlayViolation as exc:
            self.violation = exc
            self.violation_event = event
            raise

    def _receive(self, event: Event) -> None:
        me = self.seat
        if isinstance(event, MATCH_EVENTS):
            own = me is not None and isinstance(event, (MatchJoin, RoundSign)) and event.seat == me
            if own and not self._recovering and event.canonical() not in self._made:
                raise FairPlayViolation(f"the host published a {event.EV} in seat {me}'s name that seat {me} never "
                                        f"made: {event.canonical()[:160]}")
            if isinstance(event, MatchStart):
                if self.host is not None and event.host != self.host:
                    raise FairPlayViolation("match started by a host with an unexpected identity")
                if me is not None and (not 0 <= me < len(event.seats) or event.seats[me] != self.identity.public):
                    raise FairPlayViolation(f"seat {me} is announced with an identity that is not ours")
                check_handover(event, self.continues, me)
                where, away = start_away(event)
                if me is not None and isinstance(away, list) and me in away and not self._recovering:
                    # this seat hears the host live: it is here (a stand-in would play its hand;
                    # a player back from a replay reads itself away, rightly, and joins late)
                    when = "after the election" if where == "continues.away" else "at the match's start"
                    raise FairPlayViolation(f"the host calls seat {me} away {when} (match-start {where} {away}) "
                                            f"while seat {me} is at the table: it would play a present player's seat")
            self.match.apply(event, self.verifier.ledger if self._in_round or isinstance(event, RoundSign) else None)
            if isinstance(event, RoundAbort) and me in event.stalled and not self._recovering and self._in_round \
                    and not self.held_up:
                self._check_not_stalled(event)  # (the public checks first: they name the line for everyone)
            if own and self._recovering:
                # our own join or co-sign from before the crash: its signature verified above
                # (only this seat holds the key), so it is our word, and not owed again
                self._made.add(event.canonical())
                if isinstance(event, MatchJoin):
                    self._joined = True
                elif self.match.current is not None:
                    self._signed.add((self.match.current.round, self.match.current.attempt))
            self.replay.on_match(None, event, self.match)
            if isinstance(event, RoundAbort):
                self._in_round = False
            return
        if isinstance(event, RoundStart):
            last = self.match.current
            self.match.check_round_start(event)  # every co-sign relayed or waived; our history
            self._check_waiver(event, last)
            self.verifier = self._new_verifier()
            # dealt absent after stalling this round too often (STALL_CAP): no seed owed
            self.verifier.excused_absence = self.seat in self.match.must_be_absent()
            self.rounds += 1
            self._in_round = True
        if isinstance(event, RoundEnd):
            self.replay.on_round_end(None, self.verifier.ledger)
        if isinstance(event, ChallengeTimeout) and me is not None and event.challenged == me and not self._recovering \
                and not self.held_up:
            self._check_not_answered(event)
        if isinstance(event, HostAct) and event.seat == me and me is not None and event.reason == STAND_IN \
                and not self._recovering:
            # this seat hears the table live, so it is not away: a stand-in would play its hand
            raise FairPlayViolation(f"the host stands in for seat {me} ('{event.reason}') while seat {me} is at the "
                                    f"table: it plays a present player's seat ({event.action})")
        self.verifier.receive(event)
        if isinstance(event, GameEvent) and self._in_round:
            # the audit's own replay, on this event (a set-up is checked against the match rules)
            self.replay.on_game(None, event.data, self.verifier.ledger, known=self.verifier._known)
        elif self._in_round and not isinstance(event, RoundEnd):
            self.replay.on_event(None, event, self.verifier.ledger)  # e.g. a challenge, by the rules
        if isinstance(event, RoundEnd):
            self.match.round_ended(self.verifier.ledger)
            self._in_round = False

    def _check_waiver(self, ev: RoundStart, last) -> None:
        """The contest: the next round waives this seat's co-sign of the last one, which this
        seat sent. A host that told this seat another story of that round (its co-sign is over
        another digest) must drop that co-sign, and every verifier refuses a round-start that
        neither has it nor waives it (MatchLedger); only this seat knows the waiver is a lie
        (issue 22 class 4). A co-sign made in the first breath after a rejoin's replay may have
        crossed the round-start on its way (`_unsure`): no contest then."""
        me = self.seat
        if me is None or self._recovering or self.held_up or last is None or last.status != "ended" \
                or me not in (ev.waived or ()):
            return
        key = (last.round, last.attempt)
        if key in self._signed and key not in self._unsure:
            raise FairPlayViolation(f"the host starts round {ev.round} waiving seat {me}'s co-sign of round "
                                    f"{last.round}, which seat {me} sent (it withheld it: a co-sign over the history "
                                    "this seat was shown)")

    def _check_not_answered(self, ev) -> None:
        """A challenge timeout for this seat after it answered (or disclosed its key when the
        challenger disputed): the host withheld the answer to find it guilty (class 6)."""
        v = self.verifier
        ch = v.ledger.challenge
        if ch is None or ch.challenged != self.seat:
            return
        if (not ch.answered and ch.number in v._ephemeral) or (ch.disputed and ch.number in v._disclosed):
            what = "its challenge response" if not ch.answered else "the key of its disputed response"
            raise FairPlayViolation(f"the host times out seat {self.seat} in challenge {ch.number} though seat "
                                    f"{self.seat} sent {what} (it withheld it to find the seat guilty)")

    def _check_not_stalled(self, ev: RoundAbort) -> None:
        """An abort that names this seat as stalling, though it sent the seed message the
        abort says it owes: the host withheld it (issue 22 class 2: it can then deal again
        until the deal suits it). Only this seat knows; it refuses the abort."""
        v = self.verifier
        lg = v.ledger
        if not lg.epochs:
            return
        e = lg.epoch.number
        phase = lg.phase.value
        sent = (e in v._commits) if phase == "seed-commits" else (e in v._revealed) if phase == "seed-reveals" else False
        if sent:
            what = "commitment" if phase == "seed-commits" else "reveal"
            raise FairPlayViolation(f"the host aborts round {ev.round} (attempt {ev.attempt}) naming seat {self.seat} "
                                    f"as stalling, but seat {self.seat} sent its seed {what}: the host withheld it")

    @property
    def referee(self) -> MatchReferee | None:
        """The engine Match of this match, as this seat verified it (scores, dealer, winner)."""
        return self.replay.referee

    @property
    def copy(self) -> Replay | None:
        """This seat's engine replay of the current round, advanced and checked at every record."""
        return self.replay.current

    @property
    def round(self) -> Round | None:
        """This seat's engine copy of the round (its own cards true, the others placeholders):
        for its client's view and its bot's choices (`legal_actions(seat)`)."""
        return self.copy.round if self.copy is not None else None

    @property
    def engine_events(self) -> list:
        """The engine events of the last `game` record, as this seat may see them."""
        return self.copy.events if self.copy is not None else []

    def owed(self) -> list[Event]:
        """The messages this seat owes now (match join, seed commit/reveal, challenge answer/
        verdict/dispute/key, round co-sign), signed. Idempotent: until the next event comes
        in, every call returns the same list and changes nothing; a message once handed out
        is not handed out again (it is on its way to the host, which relays it)."""
        if self.violation is not None or self.seat is None:
            return []
        if self._owed_cache is not None and self._owed_cache[0] == self._received:
            return list(self._owed_cache[1])
        if self._quiet:
            return []
        out = self._make_owed()
        self._owed_cache = (self._received, out)
        return list(out)

    def _make_owed(self) -> list[Event]:
        me = self.seat
        m = self.match
        if m.start is not None and not self._joined and me not in m.joins:
            self._joined = True
            ev = sign_match_join(self.identity, MatchJoin(seat=me, start=m.start_hash,
                                                          nonce=self.randbytes(NONCE_LEN)))
            self._made.add(ev.canonical())
            return [ev]
        cur = m.current
        if cur is not None and cur.status == "ended" and (cur.round, cur.attempt) not in self._signed \
                and me not in cur.signs and me not in cur.away:
            self._signed.add((cur.round, cur.attempt))
            if self._just_back:
                self._unsure.add((cur.round, cur.attempt))
            lg = self.verifier.ledger
            end = self.replay.last_end
            tally = self.identity.sign(round_tally(lg.digest, end)) if end is not None else None
            ev = sign_seat_event(self.identity, lg.table, lg.round_no, lg.start_digest,
                                 RoundSign(seat=me, digest=lg.digest, tally=tally))
            self._made.add(ev.canonical())
            return [ev]
        pending = self.verifier.pending_action
        method = _OWED.get(pending)
        if method is None:
            self._quiet = True
            return []
        lg = self.verifier.ledger
        duty = (self.rounds, pending, len(lg.epochs), len(lg.challenges), lg.counts["deals"])
        if duty == self._duty:
            return []  # made already: the verifier asks until the host relays it
        self._duty = duty
        return [getattr(self.verifier, method)()]

    def act(self, action: dict, position: int | None = None) -> Act:
        """Sign one engine action (`action_json` form); a play names its position."""
        return self.verifier.act(action, position)

    def withdraw(self, act: Act, *, refused: bool = True) -> None:
        self.verifier.withdraw(act, refused=refused)

    @property
    def hand(self) -> dict:
        return self.verifier.hand

    @property
    def ledger(self):
        return self.verifier.ledger


class TableHost:
    """The host of one match: one transcript, one FairDealer and one FairRound per round.

    `start_match()` publishes the match header; once every seat's `match-join` is in (see
    `owed`), `start_round()` opens each round with the set-up the match rules give (never the
    host's choice); feed it the seats' messages (`receive`) until the round is `finished`
    (then the seats' co-signs are owed) and call `start_round()` again until `match_over`.
    ``on_finish(host)`` runs at each round's end, once every co-sign is in (or waived).
    ``tamper_game(data) -> data`` lets adversary tests make the host announce something false
    in its game record.
    """

    def __init__(
        self,
        rules: RuleSet,
        players: int,
        *,
        identity: Identity,
        seats: Sequence[PublicIdentity],
        names: Sequence[str] | None = None,
        host_seat: int | None = None,
        randbytes: RandBytes = os.urandom,
        writer: TranscriptWriter | None = None,
        on_finish: Callable[["TableHost"], None] | None = None,
        tamper_game: Callable[[dict], dict] | None = None,
        dealer_cls: type[FairDealer] = FairDealer,
        continues=None,
        away: Sequence[int] = (),
        keep_record: bool = True,
    ) -> None:
        if rules.deck not in TABLE_DECKS:
            raise ValueError(f"fair play does not support the {rules.deck} deck yet")
        if len(seats) != players:
            raise ValueError(f"{players} players need {players} seats, got {len(seats)}")
        self.rules = rules
        self.players = players
        self.identity = identity
        self.seat_ids = list(seats)
        self.names = list(names) if names is not None else [f"seat {s}" for s in range(players)]
        self.host_seat = host_seat
        self.randbytes = randbytes
        #: False (a long-running networked host, whose wire history holds the match once, on
        #: disk): ``events`` holds the current round's only, and the transcript no lines
        self.keep_record = keep_record
        self.writer = writer if writer is not None else TranscriptWriter(keep=keep_record)
        self.on_finish = on_finish
        self.tamper_game = tamper_game
        self.dealer_cls = dealer_cls
        self.match = MatchLedger()
        self.continues = continues  # a hand-over's `Continuation` (_handover.py), carried in match-start
        #: a fresh match's seats whose player is away at its start (match-start `away`; a
        #: continuation names its own in ``continues.away``)
        self.away = tuple(sorted(away))
        self.referee: MatchReferee | None = None
        self.round_no = 0
        self.attempt = 0
        self.dealer: FairDealer | None = None
        #: the ledger of the last round that was dealt (not an attempt aborted in its seed
        #: exchange): an act signed over it that comes in later is late, not forged (`_on_act`)
        self._dealt_before = None
        self.round: Round | None = None  # built by FairRound.open (fair_of: its fair side)
        self.finished = True
        self.events: list[Event] = []
        #: the engine events of the last action applied (for the driver and the host's own client)
        self.last_engine_events: list = []
        self._out: list[Event] | None = None
        self._pending: Act | HostAct | None = None  # the act being applied, published at its first effect
        self._challenge: tuple | None = None        # (engine action, act) waiting for the fair verdict
        self._setup: dict = {}
        self._waived: set[int] = set()             # seats whose co-sign the host no longer waits for
        #: seats whose turn another seat's jump-in took since their last act was played: one of
        #: their acts refused now was signed before that jump-in reached them (a race lost)
        self._overtaken: set[int] = set()
        #: the cards played this round, in order, and where each seat's last played act left it:
        #: a seat's refused play of a card identical to one played since was a jump-in on its way
        #: when the turn came to it (jump-in tables)
        self._plays: list = []
        self._seen_at: dict[int, int] = {}

    # -- plumbing ---------------------------------------------------------------
    @property
    def lines(self) -> list[str]:
        return self.writer.lines

    @property
    def table(self) -> bytes | None:
        """The match id (every round's `table`), once every seat joined."""
        return self.match.match_id

    @property
    def match_over(self) -> bool:
        return self.referee is not None and self.referee.over

    def _publish(self, events: Sequence[Event]) -> list[Event]:
        for e in events:
            self.writer.append(e)
            self.events.append(e)
            if self._out is not None:
                self._out.append(e)
        return list(events)

    def _collect(self, fn, *a) -> list[Event]:
        """Run `fn`, returning every event published meanwhile, in order."""
        outer, self._out = self._out, []
        try:
            fn(*a)
            return self._out
        finally:
            got, self._out = self._out, outer
            if outer is not None:
                outer.extend(got)

    def _note(self, data: dict) -> None:
        if self.tamper_game is not None:
            data = self.tamper_game(data)
        assert self.dealer is not None
        self._publish([self.dealer.note_game(data)])

    def _match_event(self, ev: Event) -> None:
        """Check a match-level event against the host's own match ledger, then publish it."""
        self.match.apply(ev, self.dealer.ledger if self.dealer is not None else None)
        self._publish([ev])

    # -- the match --------------------------------------------------------------------
    def start_match(self) -> list[Event]:
        """The match header: the host's fresh nonce, the host, the seats, the rules."""
        if self.match.start is not None:
            raise FairStateError("the match has already started")
        ev = sign_match_start(self.identity, MatchStart(
            nonce=self.randbytes(NONCE_LEN), host=self.identity.public, host_seat=self.host_seat,
            seats=tuple(self.seat_ids), names=tuple(self.names), rules=rules_json(self.rules),
            continues=self.continues.to_json() if self.continues is not None else None,
            away=self.away or None))
        return self._collect(self._match_event, ev)

    def start_round(self, absent: Sequence[int] = ()) -> list[Event]:
        """Open the next round (or the next attempt after an abort): its start, its set-up
        (from the match rules), the host's seed commitment.  ``absent``: seats whose player
        is away (the net layer's hold ran out): they give no seed, the host acts for them."""
        if not self.match.joined:
            raise FairStateError("not every seat has joined the match: " + (
                "call start_match() first" if self.match.start is None else
                f"waiting for seat(s) {self.match.missing_joins()}"))
        if not self.finished:
            raise FairStateError(f"round {self.round_no} is not over")
        if self.match_over:
            raise FairStateError("the match is over")
        assert self.referee is not None
        # a co-sign of the round that just ended that is not in by now is waived, in the record
        # (its seat dropped, or never sent it): the seat contests a waiver it did not earn
        waived = self.match.missing_signs()
        self.round_no, self.attempt = self.match.next_round()
        if self.attempt > 1:  # a seat that stalled this round STALL_CAP times gives no seed now
            absent = sorted(set(absent) | set(self.match.must_be_absent()))
        if self.match.away:  # away since a host election, not joined (yet): the host plays it
            absent = sorted(set(absent) | self.match.away)
        self.finished = False
        self.round = None
        self._waived = set()
        self._overtaken = set()
        self._plays, self._seen_at = [], {}
        if not self.keep_record:
            self.events.clear()
        self._setup = self.referee.setup(self.round_no)
        if self.dealer is not None and self.dealer.ledger.phase.value not in ("seed-commits", "seed-reveals"):
            self._dealt_before = self.dealer.ledger
        self.dealer = self.dealer_cls(
            self.identity, table=self.match.match_id, round_no=self.round_no, seats=self.seat_ids,
            host_seat=self.host_seat, deck_name=self.rules.deck, deck=TABLE_DECKS[self.rules.deck],
            randbytes=self.randbytes, chain_head=bytes.fromhex(self.writer.head), attempt=self.attempt,
            absent=absent, history=self.match.history, waived=waived,
        )
        return self._collect(self._open)

    def _open(self) -> None:
        assert self.dealer is not None
        setup = self.tamper_game(self._setup) if self.tamper_game is not None else self._setup
        start = self.dealer._start
        self.match.check_round_start(start)
        self._publish(self.dealer.start(setup))  # the set-up, before any seed
        self._maybe_deal()

    def _maybe_deal(self) -> None:
        """Once epoch 0 is committed: build the engine round, deal it and start it."""
        assert self.dealer is not None
        if self.round is None and self.dealer.ledger.epochs and self.dealer.ledger.epochs[0].commitments is not None:
            s = self._setup
            dealer = round_dealer(s, self.dealer.ledger)  # (round 1: drawn from the reveals just in)
            self.round = FairRound.open(self.rules, self.players, dealer, self, active=s["active"])
            self.last_engine_events = self.round.start()

    def abort(self, reason: str, stalled: Sequence[int] = ()) -> list[Event]:
        """End this attempt before its deck is committed (`stalled`: the seats that still owe
        their seed message; empty: the host gives up). Then `start_round()` tries again."""
        assert self.dealer is not None
        ev = self.dealer.abort(reason, stalled)

        def go() -> None:
            self._match_event(ev)
            self.finished = True
            self.round = None
        return self._collect(go)

    # -- what the table waits for ---------------------------------------------------
    def owed(self) -> list[Owed]:
        m = self.match
        if m.start is not None and not m.joined:
            return [Owed(s, "match-join") for s in m.missing_joins()]
        if self.dealer is None:
            return []
        if self.finished:
            cur = m.current
            if cur is not None and cur.status == "ended" and cur.round == self.round_no:
                return [Owed(s, "round-sign") for s in m.missing_signs() if s not in self._waived]
            return []
        lg = self.dealer.ledger
        phase = lg.phase.value
        if phase == "seed-commits":
            return [Owed(s, "commit-seed") for s in lg.contributors if s not in lg.epoch.commits]
        if phase == "seed-reveals":
            return [Owed(s, "reveal-seed") for s in lg.contributors if s not in lg.epoch.reveals]
        ch = lg.challenge
        if ch is not None:
            if not ch.answered:
                return [Owed(ch.challenged, "answer-challenge")]
            if ch.disputed:
                return [Owed(ch.challenged, "disclose-key")]
            return [Owed(ch.challenger, "judge-challenge")]
        rnd = self.round
        if rnd is None or rnd.over:
            return []
        if rnd.phase.value == "race":
            return [Owed(s, "act") for s in sorted(rnd.race.waiting)]
        return [Owed(rnd.turn, "act")]

    # -- seats' messages ------------------------------------------------------------
    def receive(self, seat: int, event: Event) -> list[Event]:
        """Seat `seat`'s message (it came on that seat's link): the events to broadcast.

        Raises Refusal (not a cheat: drop the message, tell the seat) or FairPlayViolation
        (a cheat by that seat: drop the seat)."""
        if isinstance(event, (MatchJoin, RoundSign)):
            return self._collect(self._on_match_event, seat, event)
        if self.dealer is None or self.finished:
            if _reaction(event, self.round, seat) or (isinstance(event, Act) and seat in self._overtaken):
                raise Refusal("stale", f"too late: no round is in play (seat {seat}'s {event.EV})")
            raise Refusal("out-of-turn", f"no round is in play (seat {seat}'s {event.EV})")
        if isinstance(event, Act):
            return self._collect(self._on_act, seat, event)
        return self._collect(self._on_fair, seat, event)

    def _on_match_event(self, seat: int, ev: MatchJoin | RoundSign) -> None:
        if ev.seat != seat:
            raise FairPlayViolation(f"{ev.EV} names seat {ev.seat}, but seat {seat} sent it (a seat speaks only for "
                                    "itself)", seat=seat)
        kind = "match-join" if isinstance(ev, MatchJoin) else "round-sign"
        # an away seat's player is back (its late match-join); or a co-sign whose clock ran out,
        # still in before the next round-start: taken, and no longer waived (a seat back from a
        # rejoin co-signs as soon as its replay ends)
        late = (isinstance(ev, MatchJoin) and seat in self.match.away) or (
            kind == "round-sign" and seat in self._waived and self.finished and not self.match_over
            and seat in self.match.missing_signs() and self.match.current.round == self.round_no)
        if Owed(seat, kind) not in self.owed() and not late:
            raise Refusal("out-of-turn", f"the table does not wait for seat {seat}'s {kind}")
        if isinstance(ev, RoundSign) and ev.digest != self.match.current.end_digest:
            # refused, not relayed: a relayed co-sign over another digest convicts the host
            if not self.dealer.ledger.seat_signed(seat, ev):
                raise FairPlayViolation(f"round-sign of seat {seat} is not signed by seat {seat}", seat=seat)
            raise FairPlayViolation(f"seat {seat} co-signed round {self.round_no} over a digest that is not the "
                                    "round's", seat=seat)
        if isinstance(ev, RoundSign):
            self._check_tally(seat, ev)
        self.match.apply(ev, self.dealer.ledger if self.dealer is not None else None, sender=seat)
        self._publish([ev])
        if self.match.joined and self.referee is None:
            self.referee = MatchReferee(self.rules, self.players, self.match.match_id, self.match.start.continues)
        if late:
            self._waived.discard(seat)
        elif isinstance(ev, RoundSign):
            self._maybe_done()

    def _check_tally(self, seat: int, ev: RoundSign) -> None:
        """A co-sign carries the seat's tally over this round's digest and result (what a
        scorekeeper keeps to anchor the points it stores): checked here, on the seat's own
        link, so a relayed one that fails convicts the host (class 7)."""
        out = self.round.outcome if self.round is not None else None
        end = {"winner": out.winner, "points": out.points, "hand_points": list(out.hand_points)} if out else None
        if end is None or not tally_ok(self.match.seats[seat], ev, end):
            raise FairPlayViolation(f"seat {seat}'s co-sign of round {self.round_no} carries no tally of the "
                                    f"round's result signed by seat {seat}", seat=seat)

    def _on_fair(self, seat: int, event: Event) -> None:
        assert self.dealer is not None
        try:
            self._publish(self.dealer.accept(event, seat))
        except FairStateError as exc:
            late = self.dealer.after_verdict_timeout(event, seat) or self.dealer.late_challenge_word(event, seat)
            raise Refusal("stale" if late else "out-of-turn", str(exc)) from None
        self._maybe_deal()
        self._settle_challenge()

    def _on_act(self, seat: int, ev: Act) -> None:
        assert self.dealer is not None
        lg = self.dealer.ledger
        rnd = self.round
        if ev.seat != seat:
            raise FairPlayViolation(f"act names seat {ev.seat}, but seat {seat} sent it (a seat speaks only for "
                                    "itself)", seat=seat)
        if not 0 <= seat < self.players or not lg.seat_signed(seat, ev):
            before = self._dealt_before
            if 0 <= seat < self.players and before is not None and before.seat_signed(seat, ev):
                # signed over the round before: a seat's act (a UNO call, a catch) that was on
                # its way as that round ended and came in after the next one was dealt (a slow
                # uplink holds everything, in order): late, never forged (redteam15)
                raise Refusal("stale", f"too late: seat {seat}'s act {ev.n} is of round {before.round_no}, "
                                       "which is over")
            raise FairPlayViolation(f"act {ev.n} of seat {seat} is not signed by seat {seat}", seat=seat)
        # a reaction, or the act of a seat a jump-in overtook: signed while the table moved on,
        # so what the table's state refuses of it lost a race (`stale`)
        reaction = _reaction(ev, rnd, seat) or seat in self._overtaken
        if rnd is None or rnd.over or self._challenge is not None or lg.phase.value != "live":
            raise Refusal("stale" if reaction else "out-of-turn",
                          f"{'too late: ' if reaction else ''}seat {seat} acts while the table is not waiting for "
                          "actions")
        if ev.n != lg.acts[seat]:
            raise Refusal("stale", f"act {ev.n} of seat {seat}: its next act is number {lg.acts[seat]}")
        # the fair checks no race can fail first (its opening against the commitment): the
        # engine must not play what the dealer will then refuse to publish
        lg.check_act(ev, seat)
        try:
            action = action_from_json(rnd, ev.action)
        except (InvalidActionError, TypeError, ValueError) as exc:
            pos = ev.action.get("pos") if isinstance(ev.action, dict) else None
            if reaction and type(pos) is int and not fair_of(rnd).holds(pos):
                # (its card left the seat's hand while the act was on its way: a hand passed by a
                # jump-in's 0, swapped or shuffled, then played -- the opening checked above)
                raise Refusal("stale", f"too late: seat {seat}: {exc}") from None
            raise Refusal("illegal", f"seat {seat}: {exc}") from None
        if getattr(action, "seat", seat) != seat:
            raise FairPlayViolation(f"act of seat {seat} carries an action of seat {action.seat}", seat=seat)
        form = action_json(rnd, action)
        if form != ev.action:
            # the action's `game` record repeats the signed action exactly, and it is written in
            # the engine's form: taken in another (a play without `color` or `uno`, which the
            # wire allows), the act would be played and published and its record then refused
            # by every ledger, ours first - the table wedged, every later act "before the game
            # record" of this one, each honest seat's named a cheat. Refused before anything moves.
            raise Refusal("illegal", f"seat {seat}'s act {ev.n} gives its action as {ev.action!r}, not in the "
                                     f"engine's form {form!r} (every field, as the game record repeats it)")
        if type(action) is EngineChallenge:
            self._start_challenge(seat, ev, action)
            return
        turn = rnd.turn
        try:
            self._apply(action, ev)
        except Refusal as exc:
            if (reaction or self._late_jump_in(seat, action)) and exc.code != "stale":
                raise Refusal("stale", f"too late: {exc.reason}") from None
            raise
        self._overtaken.discard(seat)  # (at most one act of a seat is on its way: §5 step 6)
        played = [e for e in self.last_engine_events if type(e).__name__ == "Played"]
        if seat != turn and any(getattr(e, "jump_in", False) for e in played):
            self._overtaken.add(turn)
        self._plays += [getattr(e.card, "code", None) for e in played]
        self._seen_at[seat] = len(self._plays)

    def _late_jump_in(self, seat: int, action) -> bool:
        """Is ``action``, refused, a jump-in that reached the table after the turn came to its
        seat?  So when it plays a card identical to one played since the seat's last act, at a
        table that plays jump-in (it was signed as one; the engine now reads it as a turn's)."""
        rnd = self.round
        card = getattr(action, "card", None)
        if rnd is None or card is None or not getattr(rnd, "_jump_in", False) or getattr(card, "wild", False):
            return False
        return getattr(card, "code", None) in self._plays[self._seen_at.get(seat, 0):]

    def _apply(self, action, act: Act | HostAct | None) -> None:
        assert self.round is not None
        self._pending = act
        try:
            self.last_engine_events = self.round.apply(action)
        except ActionError as exc:
            if self._pending is not None or act is None:
                self._pending = None
                raise Refusal("out-of-turn" if isinstance(exc, OutOfTurnError) else "illegal", str(exc)) from None
            raise  # the engine refused after the act was published: a host bug, never a seat's fault
        finally:
            self._pending = None

    def _emit_pending(self, position: int | None = None) -> None:
        p, self._pending = self._pending, None
        if p is None:
            return
        if p.opening is not None and p.opening.position != position:
            raise FairPlayViolation(f"seat {p.seat}'s act opens position {p.opening.position} but the engine plays "
                                    f"{position}", seat=p.seat)
        assert self.dealer is not None
        if isinstance(p, HostAct):
            self._publish([self.dealer.host_act(p.seat, p.action, p.reason, position)])
        else:
            self._publish(self.dealer.accept(p, p.seat))

    # -- challenges: settled by the fair exchange before the engine applies them ------
    def _start_challenge(self, seat: int, act: Act, action) -> None:
        rnd = self.round
        assert rnd is not None and self.dealer is not None
        if not any(type(a) is EngineChallenge for a in rnd.legal_actions(seat)):
            raise Refusal("out-of-turn" if seat != rnd.turn else "illegal", f"seat {seat} may not challenge now (only the next player, right after a "
                                     "Wild Draw Four, at a table that plays challenges)")
        wf = rnd.wild_four
        self._publish(self.dealer.accept(act, seat))
        ev = self.dealer.challenge(seat, wf.seat, wf.prev_color)
        want = sorted(fair_of(rnd).position_of(c) for c in wf.hand)
        if sorted(ev.positions) != want:
            raise FairPlayViolation(f"challenge evidence {list(ev.positions)} differs from the engine's hand {want}")
        self._publish([ev])
        self._challenge = (action, act)

    def _settle_challenge(self) -> None:
        if self._challenge is None or self.dealer is None or self.dealer.ledger.challenge is not None:
            return
        action, _ = self._challenge
        self._challenge = None
        self._apply(action, None)

    # -- deadlines ------------------------------------------------------------------
    def timeout(self, seat: int, kind: str, late: Sequence[int] | None = None) -> list[Event]:
        """Seat `seat` missed its deadline for `kind` (an `Owed` the table waits for).  For a
        seed message, ``late``: every seat whose own clock for it ran out (default: every seat
        that still owes it); an abort names only those, never a seat whose message may still
        be on its way (one just back from a rejoin sends it after its replay: named, it would
        refuse the abort and accuse an honest host)."""
        if Owed(seat, kind) not in self.owed():
            raise Refusal("stale", f"the table does not wait for seat {seat}'s {kind}")
        return self._collect(self._timeout, seat, kind, late)

    def _timeout(self, seat: int, kind: str, late: Sequence[int] | None = None) -> None:
        if kind == "round-sign":
            self._waived.add(seat)  # the audit reports the missing co-sign
            self._maybe_done()
            return
        if kind == "match-join":
            raise Refusal("unsupported", f"seat {seat} never joined: start a new match without it")
        assert self.dealer is not None
        if kind in ("commit-seed", "reveal-seed"):
            stalled = [o.seat for o in self.owed() if o.kind == kind and (late is None or o.seat in late
                                                                            or o.seat == seat)]
            ev = self.dealer.abort(f"seed {kind.split('-')[0]} timed out", stalled)
            self._match_event(ev)
            self.finished = True
            self.round = None
            return
        if kind in ("answer-challenge", "disclose-key"):
            self._publish([self.dealer.challenge_timeout()])
            self._settle_challenge()
        elif kind == "judge-challenge":
            # the challenger neither judged nor disputed the response in time (gone, or silent):
            # it loses the challenge, as if it had judged the seat innocent -- the engine then
            # applies the rule set's penalty for a failed challenge
            self._publish([self.dealer.verdict_timeout()])
            self._settle_challenge()
        elif kind == "act":
            rnd = self.round
            assert rnd is not None
            action = default_action(rnd, seat)
            js = action_json(rnd, action)
            # the default move can be a play (draw-and-play: the playable card just drawn is the
            # only legal move): it opens its card, as a stand-in's play does, or the engine's
            # play has no opening and the table fails
            opening = self.dealer.opening(js["pos"]) if js.get("pos") is not None else None
            self._apply(action, HostAct(seat=seat, action=js, reason=TIMEOUT, opening=opening))
        else:
            raise Refusal("unsupported", f"a missed {kind} (seat {seat}) has no timeout rule yet")

    def stand_in(self, seat: int, action) -> list[Event]:
        """A bot standing in for a dropped player (the table's hold on its seat ran out): the
        host makes the seat's owed act, in its own name (a `host-act`), as the rules allow it."""
        if Owed(seat, "act") not in self.owed():
            raise Refusal("stale", f"the table does not wait for seat {seat}'s act")
        rnd = self.round
        assert rnd is not None
        if action not in rnd.legal_actions(seat):
            raise Refusal("illegal", f"{action} is not legal for seat {seat} now")
        js = action_json(rnd, action)
        # a play opens the card it plays (level A: the host knows every card), as a seat's act does
        opening = self.dealer.opening(js["pos"]) if js.get("pos") is not None and self.dealer is not None else None
        return self._collect(self._apply, action, HostAct(seat=seat, action=js, reason=STAND_IN,
                                                          opening=opening))

    def host_call(self, action) -> list[Event]:
        """The host's own call for the table (e.g. closing a reaction race), as a host act."""
        rnd = self.round
        assert rnd is not None
        seat = getattr(action, "seat", None)
        return self._collect(self._apply, action,
                             HostAct(seat=seat, action=action_json(rnd, action), reason=REFEREE))

    # -- Backend: what the engine did, turned into fair messages -------------------------
    def deck(self) -> list[str]:
        assert self.dealer is not None
        e = self.dealer.ledger.epochs[0]
        return [fair_key(self.dealer.card(j)) for j in range(e.base, e.base + e.count)]

    def deal(self, seat: int, position: int) -> None:
        self._emit_pending()
        assert self.dealer is not None
        self._publish([self.dealer.deal(seat, position=position)])

    def turn_up(self, position: int) -> None:
        self._emit_pending()
        assert self.dealer is not None
        if self.dealer.next_position() != position:
            raise AssertionError(f"the engine turns up position {position}, the dealer's next is "
                                 f"{self.dealer.next_position()}")
        self._publish([self.dealer.turn_up()])

    def play(self, seat: int, position: int) -> None:
        if self._pending is None or self._pending.seat != seat or self._pending.opening is None:
            raise FairPlayViolation(f"the engine plays position {position} for seat {seat}, which no act of it "
                                    "opened")
        self._emit_pending(position)

    def reshuffle(self, sources: Sequence[int], to: int | None = None) -> tuple[int, list[str]]:
        self._emit_pending()
        assert self.dealer is not None
        self._publish(self.dealer.reshuffle(sources, to=to))
        e = self.dealer.ledger.epoch
        if e.commitments is None:
            raise FairPlayViolation(f"epoch {e.number} was not committed at once")
        return e.base, [fair_key(self.dealer.card(j)) for j in range(e.base, e.base + e.count)]

    def flip(self, side: int, held: Sequence[int]) -> None:
        self._emit_pending()
        assert self.dealer is not None
        lg = self.dealer.ledger
        mine = sorted(j for j, p in enumerate(lg.positions) if p.holder is not None)
        if mine != sorted(held):
            raise FairPlayViolation(f"the engine's hands hold positions {sorted(held)}, the fair record {mine}")
        ev = self.dealer.flip()
        if ev.side != side:
            raise FairPlayViolation(f"the engine turns to side {side}, the fair record to side {ev.side}")
        self._publish([ev])

    def challenge(self, challenger: int, challenged: int, colour: str, positions: Sequence[int]) -> bool:
        assert self.dealer is not None
        ch = self.dealer.ledger.challenges[-1]
        if (ch.challenger, ch.challenged, ch.colour, sorted(ch.positions)) != \
                (challenger, challenged, colour, sorted(positions)) or ch.guilty is None:
            raise FairPlayViolation(f"the engine's challenge {(challenger, challenged, colour, sorted(positions))} "
                                    "is not the one the fair exchange settled")
        return bool(ch.guilty)

    def stops(self, rnd: Round, seat: int, card, stop, then: int, events: list) -> bool:
        return stop(card)

    def after(self, rnd: Round, action, events: list) -> None:
        self._emit_pending()
        if rnd.over and not self.finished:
            # every hand opened before the last action's record: each seat's engine copy then
            # computes the result (hands, points) itself
            self._publish(self.dealer.open_hands())
        if action is None:
            self._note({"g": "start", "ev": events_json(events)})
        else:
            self._note({"g": "act", "a": action_json(rnd, action), "ev": events_json(events)})
        if rnd.over and not self.finished:
            self._finish()

    def _finish(self) -> None:
        rnd = self.round
        assert rnd is not None and rnd.outcome is not None and self.dealer is not None
        out = rnd.outcome
        end = {"g": "end", "winner": out.winner, "points": out.points, "hand_points": list(out.hand_points),
               "termination": out.termination.value,
               "scores": scores_after(self.rules, self.players, self._setup["scores"], out)}
        self._note(end)
        # the host opens every hand itself: a hand it never opens is its fault, not its holder's
        self._publish(self.dealer.finish())
        self.match.round_ended(self.dealer.ledger)
        assert self.referee is not None
        self.referee.record_end(end, rnd.dealer)
        self.finished = True
        self._maybe_done()

    def _maybe_done(self) -> None:
        """``on_finish`` runs once a finished round has every co-sign it will get."""
        if self.finished and self.on_finish is not None and not self.owed():
            self.on_finish(self)
