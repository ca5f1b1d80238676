"""The peer side: a player (or an observer) checking everything the host says."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from ._cards import KNOWN_DECKS, Card, face_colour
from ._errors import FairPlayViolation, FairStateError
from ._events import (
    Act, ChallengeDispute, ChallengeKey, ChallengeResponse, ChallengeVerdict, Deal, DealDispute, Event, GameEvent,
    PlayerCommit, PlayerReveal, Reveal, RoundStart, VerdictTimeout,
)
from ._seatsig import sign_seat_event
from ._identity import Identity, PublicIdentity, RandBytes
from ._ledger import Phase, RoundLedger
from ._seal import (
    SealError, challenge_ad, challenge_key_message, challenge_response_message, deal_ad, open_sealed, seal,
)
from ._seed import (SECRET_LEN, challenge_secret_from_key, player_commit_message, player_seed_commit,
                    seat_secret_from_key)
from ._shuffle import Opening, pad_openings, unpad_openings


#: the seat events a seat signs itself, and the field naming that seat: one in this seat's name
#: that it did not make is a forgery (the host's)
_SPEAKER = {Act: "seat", DealDispute: "seat", ChallengeVerdict: "challenger", ChallengeDispute: "challenger"}


class FairVerifier:
    """Sans-IO checker of one round's public events, from one seat's point of view.

    `seat=None, identity=None` makes an observer (scorekeeper): it checks all
    public evidence but holds no cards. A seated verifier also opens its own
    sealed deals and, as a challenger, the sealed hand of the challenged seat.
    Feed every public event, in order, to `receive`; `pending_action` says when
    this seat must speak (and the matching method builds the message).

    A challenge response that does not stand for this challenger is not fatal: it is
    recorded and `pending_action` becomes "dispute-challenge" (the challenged seat must then
    disclose its seal's key, "disclose-key"). Set `dispute_bad_responses = False` to make it
    raise FairPlayViolation instead.
    """

    dispute_bad_responses: bool = True

    def __init__(
        self,
        *,
        seat: int | None = None,
        identity: Identity | None = None,
        host: PublicIdentity | None = None,
        decks: Mapping[str, Sequence[Card]] = KNOWN_DECKS,
        randbytes: RandBytes = os.urandom,
    ) -> None:
        if (seat is None) != (identity is None):
            raise ValueError("a seated verifier needs an identity; an observer has neither")
        self.seat = seat
        self.identity = identity
        self.expected_host = host
        self.randbytes = randbytes
        self.ledger = RoundLedger(decks=decks)
        self._known: dict[int, Opening] = {}
        self._secrets: dict[int, bytes] = {}
        self._commits: dict[int, PlayerCommit] = {}
        self._evidence: dict[int, list[Opening]] = {}
        #: challenge number -> why the response sealed to us did not stand (we dispute it)
        self._unopened: dict[int, str] = {}
        #: challenge number -> the ephemeral private key of our sealed response
        self._ephemeral: dict[int, bytes] = {}
        #: every signed seat event this seat produced (its word; anything else in its name is a forgery)
        self._made: set[str] = set()
        self._made_acts: dict[int, Act] = {}
        #: acts of ours the host refused, which we took back (`withdraw`)
        self._taken_back: set[str] = set()
        #: a deal sealed to us that does not open (or opens wrong): position -> why; we dispute it
        #: (`dispute_bad_deals`; otherwise the deal raises at once, blaming the host)
        self._bad_deals: dict[int, str] = {}
        self._disputed: set[int] = set()
        self.dispute_bad_deals = False
        #: a seat rebuilding itself from the host's replay of the match (a rejoin, spec §7):
        #: an event in its name is its own word once its signature verifies (only it holds
        #: the key), not a forgery, and a seed it committed but no longer knows is not revealed
        self.recovering = False
        #: derive this seat's seed secrets from its signing key (`seat_secret_from_key`) rather
        #: than draw them: a seat rebuilt after a crash can then reveal what it committed
        self.secrets_from_key = False
        #: epochs whose seed reveal this seat handed out (sent): an abort naming it as the
        #: staller of that reveal is the host's lie
        self._revealed: set[int] = set()
        #: challenge numbers whose seal key this seat disclosed (a timeout after it is the host's lie)
        self._disclosed: set[int] = set()
        #: challenge number -> the verdict or dispute this seat sent as the challenger (a verdict timeout
        #: after it is the host's lie: it withheld our word to make us lose the challenge)
        self._judged: dict[int, str] = {}
        #: this seat stalled its seed too often this round (unonet.fair._match.STALL_CAP): the
        #: host deals it absent, and that is no cheat
        self.excused_absence = False

    @property
    def phase(self) -> Phase:
        return self.ledger.phase

    def card(self, position: int) -> Card | None:
        """The card at a position if this party knows it (own hand or opened publicly)."""
        o = self._known.get(position)
        return o.card if o else self.ledger.cards.get(position)

    @property
    def hand(self) -> dict[int, Card]:
        if self.seat is None:
            return {}
        return {j: self._known[j].card for j in self.ledger.held_by(self.seat)}

    @property
    def pending_action(self) -> str | None:
        """'commit-seed', 'reveal-seed', 'answer-challenge', 'judge-challenge' or None."""
        lg, me = self.ledger, self.seat
        if me is None or lg.start is None or not lg.epochs:
            return None
        e = lg.epoch
        if lg.phase is Phase.SEED_COMMITS and me in lg.contributors and me not in e.commits \
                and e.number not in self._commits:
            return "commit-seed"
        if lg.phase is Phase.SEED_REVEALS and me in e.commits and me not in e.reveals \
                and e.number in self._secrets:  # (a seat back from a crash lost its secret: the host aborts)
            return "reveal-seed"
        if self._bad_deals and lg.phase in (Phase.LIVE, Phase.CHALLENGE) and set(self._bad_deals) - self._disputed:
            return "dispute-deal"
        ch = lg.challenge
        if ch is not None and ch.challenged == me and not ch.answered:
            return "answer-challenge"
        if ch is not None and ch.challenged == me and ch.disputed and ch.number in self._ephemeral:
            return "disclose-key"
        if ch is not None and ch.challenger == me and ch.answered and not ch.disputed:
            return "dispute-challenge" if ch.number in self._unopened else "judge-challenge"
        return None

    # -- receiving public events -------------------------------------------
    def receive(self, event: Event) -> list[Opening]:
        """Check one public event; returns the openings it taught this party.

        Every check of this party's private knowledge (its sealed deal, the challenge
        evidence sealed to it, its own seed messages) runs before the event is recorded, so
        after a FairPlayViolation the state is as it was before the event."""
        cls = type(event)
        if cls is GameEvent:  # (a third of a round's events: nothing in it is this seat's own)
            return self.ledger.apply(event)
        if cls is RoundStart:
            self._check_start(event)
        me = self.seat
        lg = self.ledger
        mine: Opening | None = None
        bad_deal: str | None = None
        evidence: list[Opening] | None = None
        bad_response: str | None = None
        own: str | None = None  # recovering: our own signed event, adopted once the ledger verified it
        speaker = _SPEAKER.get(cls)
        our_word = me is not None and speaker is not None and getattr(event, speaker) == me
        if our_word and self.recovering:
            own = event.canonical()
        if our_word and me is not None and event.canonical() in self._taken_back:
            # (checked while rebuilding from a replay too: a seat back on a new link in the same
            # process remembers the acts the host refused it - TableSeat.remember)
            raise FairPlayViolation(
                f"the host relayed seat {me}'s act {event.n} ({event.action.get('t')}), which it had refused and "
                f"seat {me} took back (it may sign another act under that number): the host plays a move the "
                "seat withdrew")
        if me is not None and own is None:
            if our_word and event.canonical() not in self._made:
                raise FairPlayViolation(
                    f"the host published {'an act' if cls is Act else 'a ' + event.EV} in seat {me}'s "
                    f"name that seat {me} never made: {event.canonical()[:160]}")
            if cls is Act:
                pass  # (most of the rest: an act is checked by the ledger alone)
            elif cls is Deal and event.seat == me and lg.commitment(event.position) is not None:
                lg.check_deal_size(event)  # public: everyone refuses an unpadded deal
                mine, bad_deal = self._open_or_dispute(self._open_deal, event, self.dispute_bad_deals)
            elif cls is PlayerCommit and event.seat == me:
                ours = self._commits.get(event.epoch)
                if ours is not None and ours != event:
                    raise FairPlayViolation(f"the host published a seed commitment for seat {me} that is not ours")
            elif cls is PlayerReveal and event.seat == me:
                if self._secrets.get(event.epoch) not in (None, event.secret):
                    raise FairPlayViolation(f"the host published a seed contribution for seat {me} that is not ours")
            elif cls is ChallengeResponse and event.challenger == me and self._response_fits(event):
                evidence, bad_response = self._open_or_dispute(self._open_challenge, event,
                                                               self.dispute_bad_responses)
            elif cls is VerdictTimeout and event.challenger == me:
                self._check_not_judged(event)
            elif cls is ChallengeVerdict and event.challenger == me and self._verdict_fits(event):
                ch = lg.challenges[-1]
                ev_ = self._evidence.get(ch.number)
                if ev_ is not None and self._guilty(ev_, ch.colour, ch.side) != event.guilty:
                    raise FairPlayViolation(
                        f"published verdict says {'guilty' if event.guilty else 'innocent'}, but seat "
                        f"{ch.challenged}'s hand shown to challenger seat {me} says otherwise"
                    )
        learned = lg.apply(event)
        if own is not None:
            self._made.add(own)
        if self.recovering and cls is PlayerReveal and event.seat == me:
            self._secrets.setdefault(event.epoch, event.secret)  # (it matched our commitment)
        if self.recovering and self.secrets_from_key and cls is ChallengeResponse and event.challenged == me:
            # our answer, sealed before the crash under a key derived from our signing key: found
            # again, so we can still disclose it if the challenger disputes it (redhost19)
            number = lg.challenges[-1].number
            eph = self._own_challenge_secret(number)
            if X25519PrivateKey.from_private_bytes(eph).public_key().public_bytes_raw() == event.sealed[:32]:
                self._ephemeral.setdefault(number, eph)
        if self.recovering and self.secrets_from_key and cls is PlayerCommit and event.seat == me:
            r = self._own_secret(event.epoch)  # the secret we committed before the crash, found again
            if player_seed_commit(lg.table, lg.round_no, event.epoch, me, r) == event.commit:
                self._secrets.setdefault(event.epoch, r)
        for o in learned:
            self._known[o.position] = o
        if mine is not None:
            self._known[mine.position] = mine
            learned = learned + [mine]
        if bad_response is not None:
            self._unopened[lg.challenges[-1].number] = bad_response
        if bad_deal is not None:
            self._bad_deals[event.position] = bad_deal
        if evidence is not None:
            self._evidence[lg.challenges[-1].number] = evidence
            for o in evidence:
                self._known[o.position] = o
        return learned

    @staticmethod
    def _open_or_dispute(open_fn, event, dispute: bool):
        """(what `open_fn(event)` opens, None), or with `dispute` (None, why it failed): a seat
        that disputes records the reason once the ledger accepts the event, and disputes it."""
        try:
            return open_fn(event), None
        except FairPlayViolation as exc:
            if not dispute:
                raise
            return None, exc.reason

    def _response_fits(self, ev: ChallengeResponse) -> bool:
        """The ledger would accept this response (else let the ledger name the fault)."""
        ch = self.ledger.challenge
        return (ch is not None and self.ledger.phase is Phase.CHALLENGE and not ch.answered
                and (ev.challenger, ev.challenged) == (ch.challenger, ch.challenged)
                and tuple(ev.positions) == ch.positions)

    def _verdict_fits(self, ev: ChallengeVerdict) -> bool:
        ch = self.ledger.challenge
        return (ch is not None and self.ledger.phase is Phase.CHALLENGE and ch.answered
                and (ev.challenger, ev.challenged) == (ch.challenger, ch.challenged))

    def _check_not_judged(self, ev: VerdictTimeout) -> None:
        """A verdict timeout in our challenge after we sent our verdict (or our dispute): the
        host withheld it to make us lose the challenge. Only we know we spoke; the others see an
        ordinary timeout. (A seat rebuilt from a replay reads the past without this check.)"""
        ch = self.ledger.challenge
        if self.recovering or getattr(self, "held_up", False) or ch is None or ch.challenger != self.seat \
                or ch.number not in self._judged:
            return  # (a timeout at the wrong time: the ledger names the host for everyone)
        raise FairPlayViolation(
            f"the host times out challenger seat {self.seat}'s verdict in challenge {ch.number} (of seat "
            f"{ch.challenged}) though seat {self.seat} sent its {self._judged[ch.number]} (it withheld it to make "
            "the challenge fail)")

    def _check_start(self, ev: RoundStart) -> None:
        if self.expected_host is not None and ev.host != self.expected_host:
            raise FairPlayViolation("round started by a host with an unexpected identity")
        if self.seat is not None:
            assert self.identity is not None
            if not 0 <= self.seat < len(ev.seats) or ev.seats[self.seat] != self.identity.public:
                raise FairPlayViolation(f"seat {self.seat} is announced with an identity that is not ours")
            if self.seat in (ev.absent or ()) and not self.recovering and not self.excused_absence:
                # a seat at the table always gives its seed: a host that leaves ours out picks
                # the shuffle with fewer hands on it (all of them, were every seat "absent")
                raise FairPlayViolation(f"the host deals round {ev.round} without seat {self.seat}'s seed, calling "
                                        f"it absent while it is at the table")

    def _open_deal(self, ev: Deal) -> Opening:
        me, j = self.seat, ev.position
        assert me is not None and self.identity is not None
        lg = self.ledger
        ad = deal_ad(lg.table, lg.round_no, j, me, self.identity.public.dh_key)
        try:
            plain = open_sealed(ev.sealed, identity=self.identity, ad=ad)
            (o,) = unpad_openings(plain, lg.opening_size)
        except SealError:
            raise FairPlayViolation(
                f"sealed opening of position {j} for seat {me} does not open for seat {me} "
                "(sealed to another key, or tampered)", position=j) from None
        except ValueError as exc:
            raise FairPlayViolation(f"sealed opening of position {j} is malformed: {exc}", position=j) from None
        if o.position != j:
            raise FairPlayViolation(f"sealed opening for position {j} opens position {o.position}", position=j)
        lg.check_opening(o, seat=None, what="deal", whose=f"to seat {me}")
        if ev.public is not None and o.card.shown(lg.side) != ev.public:
            raise FairPlayViolation(
                f"deal of position {j} (to seat {me}) opens with visible face {o.card.shown(lg.side)!r} but "
                f"{ev.public!r} was shown when it was dealt", position=j)
        return o

    def _open_challenge(self, ev: ChallengeResponse) -> list[Opening]:
        assert self.identity is not None
        lg = self.ledger
        ch = lg.challenge
        assert ch is not None
        ad = challenge_ad(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged, ch.positions,
                          self.identity.public.dh_key)
        blame = ch.challenged
        msg = challenge_response_message(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged, ch.positions,
                                         ev.sealed)
        if not lg.trusted and not lg.seats[ch.challenged].verify(ev.sig, msg):
            # not the challenged seat's word: whatever it holds, the relay (the host) made it
            raise FairPlayViolation(f"the host relayed a challenge response in seat {blame}'s name that seat {blame} "
                                    "did not sign")
        try:
            openings = unpad_openings(open_sealed(ev.sealed, identity=self.identity, ad=ad), lg.opening_size)
        except SealError:
            raise FairPlayViolation(f"challenge response from seat {blame} does not open for the challenger",
                                    seat=blame) from None
        except ValueError as exc:
            raise FairPlayViolation(f"challenge response from seat {blame} is malformed: {exc}", seat=blame) from None
        got = [o.position for o in openings]
        if got != list(ch.positions):
            missing = sorted(set(ch.positions) - set(got))
            extra = sorted(set(got) - set(ch.positions))
            raise FairPlayViolation(
                f"challenge response from seat {blame} shows positions {got} but it holds {list(ch.positions)}"
                + (f" (hides {missing})" if missing else "") + (f" (adds {extra})" if extra else ""),
                seat=blame, position=(missing or extra or [None])[0],
            )
        for o in openings:
            lg.check_opening(o, seat=blame, what="challenge response", whose=f"from seat {blame}")
        return list(openings)

    @staticmethod
    def _guilty(openings: Sequence[Opening], colour: str, side: int = 0) -> bool:
        return any(face_colour(o.card.face(side)) == colour for o in openings)

    # -- speaking -----------------------------------------------------------
    def _need_seat(self) -> tuple[int, Identity]:
        if self.seat is None or self.identity is None:
            raise FairStateError("an observer cannot act")
        return self.seat, self.identity

    def commit_seed(self) -> PlayerCommit:
        seat, ident = self._need_seat()
        if self.pending_action != "commit-seed":
            raise FairStateError(f"seat {seat} is not asked for a seed commitment now")
        lg, e = self.ledger, self.ledger.epoch
        r = self._own_secret(e.number) if self.secrets_from_key else self.randbytes(SECRET_LEN)
        self._secrets[e.number] = r
        commit = player_seed_commit(lg.table, lg.round_no, e.number, seat, r)
        sig = ident.sign(player_commit_message(lg.table, lg.round_no, e.number, seat, e.host_commit, commit,
                                                         lg.start_digest))
        ev = PlayerCommit(epoch=e.number, seat=seat, commit=commit, sig=sig)
        self._commits[e.number] = ev
        return ev

    def _own_secret(self, epoch: int) -> bytes:
        lg = self.ledger
        return seat_secret_from_key(self.identity.sign, lg.table, lg.round_no, lg.start.attempt, epoch)

    def _own_challenge_secret(self, number: int) -> bytes:
        lg = self.ledger
        return challenge_secret_from_key(self.identity.sign, lg.table, lg.round_no, lg.start_digest, number)

    def reveal_seed(self) -> PlayerReveal:
        seat, _ = self._need_seat()
        if self.pending_action != "reveal-seed":
            raise FairStateError(f"seat {seat} is not asked for its seed contribution now")
        e = self.ledger.epoch
        self._revealed.add(e.number)
        return PlayerReveal(epoch=e.number, seat=seat, secret=self._secrets[e.number])

    def _signed(self, event):
        """Sign one of this seat's events and remember it as our own word."""
        _, ident = self._need_seat()
        lg = self.ledger
        out = sign_seat_event(ident, lg.table, lg.round_no, lg.start_digest, event)
        self._made.add(out.canonical())
        # (the very act refused before, made again under its free number - a reaction the
        # race had closed, made when the next one opened: our word again, relayed at last)
        self._taken_back.discard(out.canonical())
        lg.verified.add((self.seat, out.canonical()))  # our own signature: no need to verify it
        return out

    @property
    def next_act(self) -> int:
        """The `n` of this seat's next act (its published acts, plus those sent but not yet back)."""
        me = self.seat
        base = self.ledger.acts[me] if me is not None and self.ledger.acts else 0
        while base in self._made_acts:
            base += 1
        return base

    def act(self, action: dict, position: int | None = None) -> Act:
        """Sign one engine action of this seat; `position` for a play (its opening goes with it)."""
        seat, _ = self._need_seat()
        opening = None
        if position is not None:
            if position not in self.hand:
                raise FairStateError(f"seat {seat} does not hold position {position}")
            opening = self._known[position]
        ev = self._signed(Act(seat=seat, n=self.next_act, action=action, opening=opening))
        self._made_acts[ev.n] = ev
        return ev

    def withdraw(self, act: Act, *, refused: bool = True) -> None:
        """The host refused `act` (e.g. stale): its number is free again. A refused act is no
        longer our word: a host that relays it after all plays a move we took back (nobody
        else can tell), so we refuse that relay. (``refused=False``: taken back only because the
        host did not answer in time; a slow host may still relay it, as it came in.)"""
        if self._made_acts.get(act.n) == act and self.ledger.acts[act.seat] <= act.n:
            del self._made_acts[act.n]
            if refused:
                self._made.discard(act.canonical())
                self._taken_back.add(act.canonical())

    def play(self, position: int) -> Act:
        """A bare play of a held position (the fair layer's own tests; the table sends engine actions)."""
        return self.act({"t": "play", "pos": position}, position)

    def reveal(self, positions: Sequence[int] | None = None) -> Reveal:
        """Open held positions publicly (by default every held one not yet public)."""
        seat, _ = self._need_seat()
        held = self.hand
        pub = self.ledger.positions
        chosen = sorted(j for j in held if pub[j].public_card is None) if positions is None else list(positions)
        return Reveal(seat=seat, openings=tuple(self._known[j] for j in chosen))

    def dispute_deal(self) -> DealDispute:
        """Our sealed deal does not open for us: say so, signed; the host must then disclose
        its key, and everyone sees who lied."""
        j = min(set(self._bad_deals) - self._disputed)
        self._disputed.add(j)
        seat, _ = self._need_seat()
        # (the round as we were shown it: the others check it against theirs, so a host that
        # showed us another story is caught at once, not our protest taken for a lie)
        return self._signed(DealDispute(seat=seat, position=j, seen=self.ledger.digest))

    def answer_challenge(self) -> ChallengeResponse:
        seat, _ = self._need_seat()
        if self.pending_action != "answer-challenge":
            raise FairStateError(f"seat {seat} has no challenge to answer")
        lg = self.ledger
        ch = lg.challenge
        assert ch is not None
        recipient = lg.seats[ch.challenger].dh_key
        ad = challenge_ad(lg.table, lg.round_no, ch.number, ch.challenger, ch.challenged, ch.positions, recipient)
        eph = self._own_challenge_secret(ch.number) if self.secrets_from_key else self.randbytes(32)
        self._ephemeral[ch.number] = eph
        blob = seal(pad_openings([self._known[j] for j in ch.positions], lg.opening_size), recipient_dh=recipient,
                    ad=ad,
                    randbytes=self.randbytes, ephemeral=eph)
        sig = self.identity.sign(challenge_response_message(  # type: ignore[union-attr]
            lg.table, lg.round_no, ch.number, ch.challenger, seat, ch.positions, blob))
        return ChallengeResponse(challenger=ch.challenger, challenged=seat, positions=ch.positions, sealed=blob,
                                 sig=sig)

    def dispute_challenge(self) -> ChallengeDispute:
        """The response does not open (or opens wrong) for us: ask for its ephemeral key."""
        seat, _ = self._need_seat()
        if self.pending_action != "dispute-challenge":
            raise FairStateError(f"seat {seat} has no challenge response to dispute")
        ch = self.ledger.challenge
        assert ch is not None
        out = self._signed(ChallengeDispute(challenger=seat, challenged=ch.challenged, seen=self.ledger.digest,
                                            number=ch.number))
        self._judged[ch.number] = "challenge dispute"
        return out

    def disclose_challenge_key(self) -> ChallengeKey:
        """Our response was disputed: publish its seal's ephemeral private key, signed."""
        seat, ident = self._need_seat()
        if self.pending_action != "disclose-key":
            raise FairStateError(f"seat {seat} has no disputed challenge response")
        lg = self.ledger
        ch = lg.challenge
        assert ch is not None
        eph = self._ephemeral[ch.number]
        self._disclosed.add(ch.number)
        return ChallengeKey(challenged=seat, secret=eph,
                            sig=ident.sign(challenge_key_message(lg.table, lg.round_no, ch.number, seat, eph)))

    def judge_challenge(self) -> ChallengeVerdict:
        seat, _ = self._need_seat()
        if self.pending_action != "judge-challenge":
            raise FairStateError(f"seat {seat} has no challenge to judge")
        ch = self.ledger.challenge
        assert ch is not None
        evidence = self._evidence.get(ch.number)
        if evidence is None:
            raise FairStateError(f"seat {seat} has no usable response from seat {ch.challenged} to judge (it did "
                                 "not open for this seat)")
        proof = next((o for o in evidence if face_colour(o.card.face(ch.side)) == ch.colour), None)
        out = self._signed(ChallengeVerdict(challenger=seat, challenged=ch.challenged, guilty=proof is not None,
                                            proof=proof, number=ch.number))
        self._judged[ch.number] = "challenge verdict"
        return out
