"""The host side: holds r_h and the deck, emits the public events of a round."""

from __future__ import annotations

import os
from collections.abc import Sequence

from ._cards import KNOWN_DECKS, Card, face_colour
from ._errors import FairPlayViolation, FairStateError
from ._events import (
    GENESIS_HEAD, Act, Challenge, ChallengeDispute, ChallengeKey, ChallengeResponse, ChallengeTimeout,
    ChallengeVerdict, Commitments, Deal, DealDispute, DealKey, Event, Flip, GameEvent, HostAct, PlayerCommit, PlayerReveal, Reveal, RoundAbort, RoundEnd, RoundStart, SeedCommit,
    SeedReveal, TurnUp, VerdictTimeout,
)
from ._identity import Identity, PublicIdentity, RandBytes
from ._ledger import ALLOWED, Phase, RoundLedger
from ._match import history_start, sign_round_abort
from ._seal import challenge_ad, challenge_key_message, challenge_response_message, deal_ad, seal
from ._seatsig import sign_seat_event
from ._seed import SECRET_LEN, derive_seed, epoch_secret, host_seed_commit, player_commit_message
from ._shuffle import (
    Opening, pad_openings, card_commitment, commitments_message, position_salt, round_end_message, shuffle_cards,
)


class FairDealer:
    """Sans-IO host side of a fair round.

    Every method returns the public events to broadcast (and to append to the
    transcript) in order; each has already been checked by the dealer's own
    `RoundLedger`, so a bug here fails loudly before anything is sent.
    Messages from players (`PlayerCommit`, `PlayerReveal`, `Play`, `Reveal`,
    `ChallengeResponse`, `ChallengeVerdict`) go through `accept`.
    """

    #: Check every outgoing event against our own ledger first. Adversary tests
    #: turn this off to play a host that publishes evidence that does not verify.
    check_self: bool = True

    def __init__(
        self,
        identity: Identity,
        *,
        table: bytes,
        round_no: int,
        seats: Sequence[PublicIdentity],
        host_seat: int | None = None,
        deck_name: str = "classic",
        deck: Sequence[Card] | None = None,
        randbytes: RandBytes = os.urandom,
        chain_head: bytes = GENESIS_HEAD,
        attempt: int = 1,
        absent: Sequence[int] = (),
        history: bytes | None = None,
        waived: Sequence[int] = (),
    ) -> None:
        """`chain_head` is the transcript's head before this round (the `prev` its
        `round-start` line will carry): it is signed into the round digest. `history` is the
        match's chain of ended rounds (default: none ended yet); `waived` the seats whose
        co-sign of the round that just ended is not in the record."""
        self.identity = identity
        self.randbytes = randbytes
        self.ledger = RoundLedger(decks={deck_name: tuple(deck)} if deck is not None else KNOWN_DECKS)
        self._start = RoundStart(
            table=table, round=round_no, host=identity.public, host_seat=host_seat, seats=tuple(seats),
            deck_name=deck_name, deck=tuple(deck if deck is not None else KNOWN_DECKS[deck_name]),
            digest=chain_head, attempt=attempt, absent=tuple(sorted(set(absent))) or None,
            history=history if history is not None else history_start(table), waived=tuple(sorted(set(waived))) or None,
        )
        self._secrets: list[bytes] = []      # r_h per epoch
        self._deck: dict[int, Opening] = {}  # every position's opening
        self._identities: dict[int, Identity] = {}
        self._ephemeral: dict[int, bytes] = {}  # challenge number -> ephemeral key of a response we sealed
        self._deal_keys: dict[int, bytes] = {}  # position -> ephemeral key of its sealed deal

    # -- plumbing -----------------------------------------------------------
    @property
    def table(self) -> bytes:
        return self._start.table

    @property
    def round_no(self) -> int:
        return self._start.round

    @property
    def phase(self) -> Phase:
        return self.ledger.phase

    def _emit(self, *events: Event) -> list[Event]:
        for ev in events:
            try:
                self.ledger.apply(ev)
            except FairPlayViolation:
                if self.check_self:
                    raise
                self.ledger._absorb(ev)
        return list(events)

    def opening(self, position: int) -> Opening:
        """The host knows every card: that is level A's known limit."""
        return self._deck[position]

    def card(self, position: int) -> Card:
        return self._deck[position].card

    def hand(self, seat: int) -> dict[int, Card]:
        return {j: self._deck[j].card for j in self.ledger.held_by(seat)}

    def next_position(self) -> int | None:
        return self.ledger.next_position()

    # -- seed and shuffle ---------------------------------------------------
    def start(self, setup: dict | None = None) -> list[Event]:
        """RoundStart, the round's set-up record (a `game` event, if given) and the host's
        seed commitment for epoch 0: the set-up is fixed before any seed."""
        if self.ledger.phase is not Phase.NEW:
            raise FairStateError("round already started")
        out = self._emit(self._start)
        if setup is not None:
            out += self._emit(GameEvent(data=setup))
        out += self._emit(self._seed_commit(()))
        return out + self._shuffle_if_ready()

    def reshuffle(self, sources: Sequence[int], *, to: int | None = None) -> list[Event]:
        """Start a new epoch over the cards at `sources` (e.g. the discard pile minus its top).

        `to` names the new holder when the sources are one seat's hand moving (seven-o,
        zero pass): the whole epoch must then be dealt to that seat."""
        return self._emit(self._seed_commit(tuple(sorted(sources)), to)) + self._shuffle_if_ready()

    def _seed_commit(self, sources: tuple[int, ...], to: int | None = None) -> SeedCommit:
        epoch = len(self._secrets)
        r_h = self.randbytes(SECRET_LEN) if epoch == 0 else epoch_secret(self._secrets[0], epoch)
        self._secrets.append(r_h)
        return SeedCommit(
            epoch=epoch, base=len(self.ledger.positions), sources=sources,
            host_commit=host_seed_commit(self.table, self.round_no, epoch, r_h), seat=to,
        )

    def _shuffle_if_ready(self) -> list[Event]:
        if self.ledger.phase is not Phase.SHUFFLING:
            return []
        e = self.ledger.epoch
        r_h = self._secrets[e.number]
        seed = derive_seed(self.table, self.round_no, e.number, r_h, list(e.reveals.items()))
        cards = list(self._start.deck) if e.number == 0 else [self._deck[j].card for j in e.sources]
        commitments = []
        for i, card in enumerate(self._order(cards, seed)):
            j = e.base + i
            salt = position_salt(r_h, self.table, self.round_no, j)
            self._deck[j] = Opening(j, card, salt)
            commitments.append(card_commitment(self.table, self.round_no, j, card, salt))
        msg = commitments_message(
            self.table, self.round_no, e.number, e.base, e.host_commit,
            self.ledger.contributions_digest(e), commitments,
        )
        return self._emit(Commitments(
            epoch=e.number, base=e.base, commitments=tuple(commitments), sig=self.identity.sign(msg)))

    def _order(self, cards: list[Card], seed: bytes) -> list[Card]:
        return shuffle_cards(cards, seed)

    def accept(self, event: Event, sender_seat: int) -> list[Event]:
        """Check a player's message and return what to publish (it, plus any follow-up).

        `sender_seat` is the seat whose authenticated link carried the message: a seat may
        only speak for itself (its commits, reveals, plays and reveals; the challenged seat's
        response; the challenger's verdict)."""
        if not isinstance(event, (PlayerCommit, PlayerReveal, Act, Reveal, ChallengeResponse, ChallengeVerdict,
                                  ChallengeDispute, ChallengeKey, DealDispute)):
            raise FairStateError(f"{event.EV} events come from the host, not from players")
        if isinstance(event, (ChallengeResponse, ChallengeKey)):
            named, role = event.challenged, "the challenged seat"
        elif isinstance(event, (ChallengeVerdict, ChallengeDispute)):
            named, role = event.challenger, "the challenger"
        else:
            named, role = event.seat, "its seat"
        if named != sender_seat:
            raise FairPlayViolation(
                f"{event.EV} names seat {named} as {role}, but seat {sender_seat} sent it (a seat speaks only "
                "for itself)", seat=sender_seat)
        lg = self.ledger
        if isinstance(event, PlayerCommit) and lg.epochs and 0 <= event.seat < len(lg.seats) and \
                not lg.seats[event.seat].verify(event.sig, player_commit_message(
                    lg.table, lg.round_no, lg.epoch.number, event.seat, lg.epoch.host_commit, event.commit,
                    lg.start_digest)):
            # refused, not a cheat: a commitment signed for an earlier attempt of this round (it
            # raced the host's abort) does not verify in this one; the seat still owes its own
            raise FairStateError(f"seat {sender_seat}'s seed commitment is not signed over this attempt's context")
        if self.after_verdict_timeout(event, sender_seat):
            ch = self.ledger.challenges[-1]
            raise FairStateError(f"seat {sender_seat}'s {event.EV} in challenge {ch.number} is stale: its clock ran "
                                 f"out and the host published a verdict-timeout (the challenge is lost)")
        late = self._late_challenge(event, sender_seat)
        if late is not None:
            settled = "challenge-timeout" if late.timed_out else "verdict-timeout"
            raise FairStateError(f"seat {sender_seat}'s {event.EV} of challenge {late.number} is stale: its clock ran "
                                 f"out and the host published a {settled}")
        if not isinstance(event, ALLOWED[self.ledger.phase]):
            # a message that comes too late (a timeout answered it) or too early is refused,
            # not a cheat: an honest seat's message can race the host's clock
            raise FairStateError(f"seat {sender_seat}'s {event.EV} is not expected in phase {self.ledger.phase.value}")
        if isinstance(event, ChallengeVerdict) and not event.guilty:
            self._check_innocent(event, sender_seat)
        self.ledger.apply(event, sender=sender_seat)  # a failure here is the sender's (its own link)
        out = [event]
        if isinstance(event, DealDispute):  # answered at once: the deal's key proves who lies
            out += self._emit(DealKey(position=event.position, secret=self._deal_keys[event.position]))
        if self.ledger.phase is Phase.SHUFFLING:
            out += self._shuffle_if_ready()
        return out

    def _check_innocent(self, ev: ChallengeVerdict, sender_seat: int) -> None:
        """An innocent verdict carries no proof, so nobody else can check it before the
        round's end opens every hand -- and a false one is then the relaying host's fault (it
        knows every hand: level A). So the host checks it here, against the challenged
        hand it dealt: a false one is the challenger's lie (its own link carried it), refused
        and never relayed. (A challenger framing an honest host by declaring a guilty seat
        innocent, at the cost of its own draw, would otherwise convict the host at every peer.)"""
        lg = self.ledger
        ch = lg.challenge
        if ch is None or (ev.challenger, ev.challenged) != (ch.challenger, ch.challenged) or not ch.answered \
                or ch.disputed or ev.proof is not None or not lg.seat_signed(ch.challenger, ev):
            return  # (the ledger names what is wrong with it)
        held = [(j, self._deck[j].card) for j in ch.positions if j in self._deck]
        bad = [(j, c) for j, c in held if face_colour(c.face(ch.side)) == ch.colour]
        if bad:
            j, c = bad[0]
            raise FairPlayViolation(
                f"seat {sender_seat}'s challenge verdict says seat {ch.challenged} is innocent, but seat "
                f"{ch.challenged}'s response opened position {j} ({c.face(ch.side)!r}) of colour {ch.colour} to it: "
                "a false verdict", seat=sender_seat, position=j)

    # -- dealing and playing ------------------------------------------------
    def deal(self, seat: int, *, public: bool = True, position: int | None = None) -> Deal:
        """Deal (or let `seat` draw) the next position, sealed for that seat.

        `position` deals from an older epoch (its next undealt position): the draw pile
        can be an older epoch than the newest one, e.g. after a hand changed holders."""
        j = self.ledger.next_position() if position is None else position
        if j is None:
            raise FairStateError("the draw pile is empty: reshuffle first")
        if j not in self._deck:
            raise FairStateError(f"no position {j} in any committed deck")
        o = self._deck[j]
        recipient = self._start.seats[seat].dh_key
        eph = self.randbytes(32)
        self._deal_keys[j] = eph  # kept: a disputed deal is proven by disclosing it
        blob = seal(pad_openings([o], self.ledger.opening_size), recipient_dh=recipient,
                    ad=deal_ad(self.table, self.round_no, j, seat, recipient),
                    randbytes=self.randbytes, ephemeral=eph)
        (ev,) = self._emit(Deal(position=j, seat=seat, sealed=blob,
                                 public=self.ledger.shown_face(o.card) if public else None))
        return ev  # type: ignore[return-value]

    def turn_up(self) -> TurnUp:
        j = self.ledger.next_position()
        if j is None:
            raise FairStateError("the draw pile is empty")
        (ev,) = self._emit(TurnUp(opening=self._deck[j]))
        return ev  # type: ignore[return-value]

    def host_act(self, seat: int | None, action: dict, reason: str, position: int | None = None) -> HostAct:
        """An action the host makes for a seat (turn timeout, stand-in bot, referee), in its own name."""
        opening = self._deck[position] if position is not None else None
        (ev,) = self._emit(HostAct(seat=seat, action=action, reason=reason, opening=opening))
        return ev  # type: ignore[return-value]

    def flip(self) -> Flip:
        """UNO Flip: the table turns over; every held card not yet public is opened publicly
        (the face it now shows was its holder's secret; the face it now hides was shown)."""
        lg = self.ledger
        unopened = [j for j, p in enumerate(lg.positions) if p.holder is not None and p.public_card is None]
        (ev,) = self._emit(Flip(side=1 - lg.side, openings=tuple(self._deck[j] for j in unopened)))
        return ev  # type: ignore[return-value]

    def reveal(self, seat: int, positions: Sequence[int] | None = None) -> Reveal:
        held = self.ledger.held_by(seat) if positions is None else tuple(positions)
        (ev,) = self._emit(Reveal(seat=seat, openings=tuple(self._deck[j] for j in held)))
        return ev  # type: ignore[return-value]

    # -- Wild Draw Four challenge ------------------------------------------
    def challenge(self, challenger: int, challenged: int, colour: str) -> Challenge:
        (ev,) = self._emit(Challenge(challenger=challenger, challenged=challenged, colour=colour,
                                     positions=self.ledger.challengeable_hand(challenged)))
        return ev  # type: ignore[return-value]

    def answer_challenge(self) -> ChallengeResponse:
        """The challenged seat's answer, made by the host (host seat or bot)."""
        ch = self.ledger.challenge
        if ch is None:
            raise FairStateError("no open challenge")
        recipient = self._start.seats[ch.challenger].dh_key
        ad = challenge_ad(self.table, self.round_no, ch.number, ch.challenger, ch.challenged, ch.positions, recipient)
        ident = self._identities.get(ch.challenged)
        if ident is None:
            raise FairStateError(f"the host does not act for seat {ch.challenged} (see act_for)")
        eph = self.randbytes(32)
        self._ephemeral[ch.number] = eph
        blob = seal(pad_openings([self._deck[j] for j in ch.positions], self.ledger.opening_size),
                    recipient_dh=recipient, ad=ad,
                    randbytes=self.randbytes, ephemeral=eph)
        sig = ident.sign(challenge_response_message(self.table, self.round_no, ch.number, ch.challenger,
                                                    ch.challenged, ch.positions, blob))
        (ev,) = self._emit(ChallengeResponse(challenger=ch.challenger, challenged=ch.challenged,
                                             positions=ch.positions, sealed=blob, sig=sig))
        return ev  # type: ignore[return-value]

    def act_for(self, seat: int, identity: Identity) -> None:
        """Let the host speak for a seat it runs (the host's own seat, a bot): it signs that
        seat's challenge responses and keys with `identity`."""
        self._identities[seat] = identity

    def disclose_challenge_key(self) -> ChallengeKey:
        """A disputed response of a seat the host runs: publish its seal's ephemeral key."""
        ch = self.ledger.challenge
        if ch is None or not ch.disputed:
            raise FairStateError("no disputed challenge")
        eph = self._ephemeral[ch.number]
        sig = self._identities[ch.challenged].sign(
            challenge_key_message(self.table, self.round_no, ch.number, ch.challenged, eph))
        (ev,) = self._emit(ChallengeKey(challenged=ch.challenged, secret=eph, sig=sig))
        return ev  # type: ignore[return-value]

    def judge_challenge(self) -> ChallengeVerdict:
        """The challenger's verdict, made by the host (host seat or bot)."""
        ch = self.ledger.challenge
        if ch is None:
            raise FairStateError("no open challenge")
        proof = next((self._deck[j] for j in ch.positions
                      if face_colour(self._deck[j].card.face(ch.side)) == ch.colour), None)
        verdict = ChallengeVerdict(challenger=ch.challenger, challenged=ch.challenged, guilty=proof is not None,
                                   proof=proof, number=ch.number)
        ident = self._identities.get(ch.challenger)
        if ident is None:
            raise FairStateError(f"the host does not act for seat {ch.challenger} (see act_for)")
        lg = self.ledger
        (ev,) = self._emit(sign_seat_event(ident, lg.table, lg.round_no, lg.start_digest, verdict))
        return ev  # type: ignore[return-value]

    def challenge_timeout(self) -> ChallengeTimeout:
        ch = self.ledger.challenge
        if ch is None:
            raise FairStateError("no open challenge")
        (ev,) = self._emit(ChallengeTimeout(challenged=ch.challenged))
        return ev  # type: ignore[return-value]

    def after_verdict_timeout(self, event: Event, sender_seat: int) -> bool:
        """Is ``event`` the challenger's verdict or dispute of a challenge it already lost by a
        `verdict-timeout`?  (Stale: it raced the host's clock, no cheat.)"""
        chs = self.ledger.challenges
        return isinstance(event, (ChallengeVerdict, ChallengeDispute)) and self.ledger.challenge is None \
            and bool(chs) and chs[-1].verdict_timed_out and chs[-1].challenger == sender_seat

    def late_challenge_word(self, event: Event, sender_seat: int) -> bool:
        """Is ``event`` the sender's word in an earlier challenge of this round, one the host's
        clock settled against that very word (an answer or key after its `challenge-timeout`, a
        verdict or dispute after its `verdict-timeout`), signed by the sender over it?  Stale: it
        raced the clock, no cheat -- also while a later challenge is open, whose checks it
        would otherwise fail on the sender's own link (redhost19)."""
        return self._late_challenge(event, sender_seat) is not None

    def _late_challenge(self, event: Event, sender_seat: int):
        lg = self.ledger
        if not isinstance(event, (ChallengeResponse, ChallengeKey, ChallengeVerdict, ChallengeDispute)) \
                or not 0 <= sender_seat < len(lg.seats):
            return None
        open_ = lg.challenge
        if isinstance(event, (ChallengeVerdict, ChallengeDispute)) and open_ is not None and (
                event.number == open_.number
                or (event.number is None and (event.challenger, event.challenged) == (open_.challenger,
                                                                                      open_.challenged))):
            return None  # (the open challenge's word, or one that cannot tell: the ledger judges it)
        key = lg.seats[sender_seat]
        for ch in reversed(lg.challenges):
            if ch is open_ or event.challenged != ch.challenged \
                    or getattr(event, "challenger", ch.challenger) != ch.challenger:
                continue  # (a key names the challenged seat alone)
            if isinstance(event, ChallengeResponse):
                if ch.answered or not ch.timed_out or tuple(event.positions) != ch.positions:
                    continue
                msg = challenge_response_message(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged,
                                                 ch.positions, event.sealed)
                if key.verify(event.sig, msg):
                    return ch
            elif isinstance(event, ChallengeKey):
                if not (ch.disputed and ch.timed_out):
                    continue
                if key.verify(event.sig, challenge_key_message(lg.table, lg.round_no, ch.number, ch.challenged,
                                                               event.secret)):
                    return ch
            elif ch.verdict_timed_out and event.number in (None, ch.number) and lg.seat_signed(sender_seat, event):
                return ch
        return None

    def verdict_timeout(self) -> VerdictTimeout:
        """The challenger did not judge (nor dispute) the response in time: it loses."""
        ch = self.ledger.challenge
        if ch is None:
            raise FairStateError("no open challenge")
        (ev,) = self._emit(VerdictTimeout(challenger=ch.challenger, challenged=ch.challenged))
        return ev  # type: ignore[return-value]

    def abort(self, reason: str, stalled: Sequence[int] = ()) -> RoundAbort:
        """End this attempt before its deck is committed, naming the seats that stalled
        (checked by every verifier: each must still owe its seed message)."""
        ev = RoundAbort(round=self.round_no, attempt=self._start.attempt, reason=reason,
                        stalled=tuple(sorted(stalled)))
        return sign_round_abort(self.identity, self.table, ev)

    # -- round end ----------------------------------------------------------
    def open_hands(self) -> list[Event]:
        """Open every hand still unopened (the host does it itself at the end: a hand it never
        opens is its fault, not its holder's)."""
        out: list[Event] = []
        for seat in range(len(self._start.seats)):
            unopened = [j for j in self.ledger.held_by(seat) if self.ledger.positions[j].public_card is None]
            if unopened:
                out += self._emit(self.reveal_event(seat, unopened))
        return out

    def finish(self) -> list[Event]:
        """Open every hand still unopened, reveal every r_h, sign the round."""
        out = self.open_hands()
        out += self.reveal_secrets()
        out += self._emit(self.round_end_event())
        return out

    def reveal_event(self, seat: int, positions: Sequence[int]) -> Reveal:
        return Reveal(seat=seat, openings=tuple(self._deck[j] for j in positions))

    def reveal_secrets(self) -> list[Event]:
        """r_h, once: every later epoch's secret is derived from it.

        This dealer made every commitment the reveal opens, from the very secret, seed and
        cards its ledger would recompute them from (`_shuffle_if_ready`), and announced each
        dealt face from the card itself: an honest dealer's ledger applies its own reveal
        trusting it (`RoundLedger.trusted`: the deck is still re-derived, its cards are the
        ledger's state; the commitments are not recomputed).  A dealer whose output is
        altered (a subclass, ``check_self`` off: the adversary tests) keeps every check."""
        ev = SeedReveal(epoch=0, host_secret=self._secrets[0])
        lg = self.ledger
        if type(self) is not FairDealer or not self.check_self or lg.trusted:
            return self._emit(ev)
        lg.trusted = True
        try:
            return self._emit(ev)
        finally:
            lg.trusted = False

    def round_end_event(self) -> RoundEnd:
        d = self.ledger.digest
        return RoundEnd(digest=d, sig=self.identity.sign(round_end_message(self.table, self.round_no, d)))

    def note_game(self, data: dict) -> GameEvent:
        """Record a rules-engine action in the round (and its signed digest)."""
        (ev,) = self._emit(GameEvent(data=data))
        return ev  # type: ignore[return-value]
