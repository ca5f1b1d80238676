"""The rules engine replayed over a round's public record: one replay for the audit and for
every live verifier.

`Replay` is a `FairRound` backend. It rebuilds the round with the same `FairRound` the host
ran, advances it at each `game` record (`start`, `act`, `end`), and checks at once that

- every action is legal for the engine (an illegal play names its `game` line),
- every action gives the public events recorded with it (draw counts, skips, colours...),
- every card the engine moves is the card the fair record moved: each deal to the seat
  the engine says drew it, each play by the seat that played it, each reshuffle over the
  positions the engine reshuffled, each challenge with the engine's challenger, colour,
  evidence and verdict, each flip, and nothing more (counts match at the end),
- the winner, points, hand points and match scores at the end are the engine's.

Every check above reads only the public record, so a live verifier makes it at the `game`
record that closes the lying action, before any later event. The cards it runs on are a
*plausible world*: every position whose card this verifier knows (the audit, at round end:
all of them; a seat: its own and every public one) holds its true card, every other one a
placeholder of the right remaining multiset, swapped for the true card whenever it is opened
(over the positions not yet true the copy's and the true multisets are equal). So a seat's
copy agrees with the host's round on everything that seat may know; it is what its client
shows and its bot decides on (`TableSeat.round`).

Where a hidden card decides an engine step (a draw-until's stop: keep-drawing, Flip's Wild
Draw Colour; another seat's legality under rules that read its whole hand), the live copy
follows the record (the placeholder is chosen to agree) and notes that it did (`unsure`):
at round end, when every card is known, such a round is replayed once more with the true
cards (`Replay.truth`), so nothing the audit checks escapes a live verifier.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence
from itertools import islice

from ..engine import ActionError, RuleSet, deck_cards
from ..ledger import LedgerError, tally_message
from ..fair import FairPlayViolation, audit
from ..fair._audit import AuditReport
from ..fair._events import Challenge as FairChallenge
from ..fair._events import MatchJoin, RoundAbort, RoundSign
from ..fair._ledger import HOST_TURN, RoundLedger
from ..fair._match import MatchLedger
from ._match import MatchReferee, drawn_dealer, round_dealer
from ..engine import Round
from ._round import REFEREE, STAND_IN, TIMEOUT, HOST_ACT_REASONS, TABLE_DECKS, FairRound, action_from_json, default_action, events_json, fair_key, fair_of, rules_from_json, scores_after

#: how many other placeholder hands a live copy tries for another seat's refused action
RESAMPLES = 64


def parse_setup(setup: dict, ledger: RoundLedger, line: int | None = None):
    """(rules, players, dealer, active, scores) of a `game {g: setup}` record, checked
    against the round's fair ledger."""
    def bad(reason: str) -> FairPlayViolation:
        return FairPlayViolation(f"game record: {reason}", line=line)

    if setup.get("g") != "setup":
        raise bad("a round's first game event must be its set-up")
    if setup.get("v") != 1:
        raise bad(f"unknown game record version {setup.get('v')!r}")
    try:
        rules: RuleSet = rules_from_json(setup.get("rules"))
        players, dealer, active, scores = (setup.get(k) for k in ("players", "dealer", "active", "scores"))
        if not _is_int(players) or players != len(ledger.seats):
            raise ValueError(f"{players!r} players for a table of {len(ledger.seats)} seats")
        if ledger.start is not None and rules.deck != ledger.start.deck_name:
            raise ValueError(f"the rules' deck {rules.deck!r} is not the round's deck {ledger.start.deck_name!r}")
        if not isinstance(scores, list) or len(scores) != players or not all(_is_int(x) for x in scores):
            raise ValueError(f"scores {scores!r} do not list {players} seats")
        if active is not None and (not isinstance(active, list) or not all(_is_int(x) for x in active)):
            raise ValueError(f"bad seats in play {active!r}")
        if not _is_int(dealer) and not (dealer is None and setup.get("round") == 1):
            # (null: round 1's dealer, drawn from its seat reveals once they are in, §6.1)
            raise ValueError(f"bad dealer {dealer!r}")
    except (ValueError, TypeError) as exc:
        raise bad(f"bad set-up: {exc}") from None
    return rules, players, dealer, active, scores


#: `Replay.on_game`'s host act not given: the ledger's, as it stands (a record read as it comes)
_LIVE = object()


class Replay:
    """The engine replay of one round. ``known``: position -> Opening of the cards a live
    seat knows (its verifier's); None for the audit, which replays a finished round with
    every card known (`ledger.cards`). Feed it every `game` record after the set-up
    (`on_game`), then `finish` at `round-end`."""

    def __init__(self, ledger: RoundLedger, setup: dict, *, seat: int | None = None, known=None,
                 line: int | None = None, referee: MatchReferee | None = None) -> None:
        self.lg = ledger
        self.seat = seat
        self.known = known
        self.setup = setup
        self.referee = referee
        self.rules, self.players, self.dealer, self.active, self.scores = parse_setup(setup, ledger, line)
        self.line: int | None = line
        self.round: Round | None = None
        self.fair: FairRound | None = None  # the round's fair side (`fair_of(self.round)`)
        self.events: list = []        # the engine events of the last record, as this seat sees them
        self.unsure: str | None = None  # why a hidden card decided a step (a live copy only)
        self.started = self.ended = False
        self.next_epoch = 0
        self.next_challenge = 0
        self.next_flip = 0
        self.deals = 0
        self.plays = 0
        self.turn_ups = 0
        self._synced: set[int] = set()    # positions already true in the copy
        self._ev = None                   # the public events the current record claims
        #: how many of `known`'s positions and of the ledger's `published` ones the last sync took
        self._known_seen = self._published_seen = 0
        self._stood_in: set[tuple] = set()  # (seat, what) a host act was flagged for

    # -- violations ------------------------------------------------------------------
    def _bad(self, reason: str, position: int | None = None) -> FairPlayViolation:
        return FairPlayViolation(f"game record: {reason}", position=position, line=self.line)

    def _pos(self, j: int, what: str):
        if not 0 <= j < len(self.lg.positions):
            raise self._bad(f"the rules engine {what} position {j}, which the record does not have", j)
        return self.lg.positions[j]

    # -- what this verifier knows -------------------------------------------------------
    def _true(self, j: int) -> str | None:
        if self.known is None:
            c = self.lg.cards.get(j)
            return fair_key(c) if c is not None else None
        o = self.known.get(j)
        if o is not None:
            return fair_key(o.card)
        p = self.lg.positions[j] if j < len(self.lg.positions) else None
        return fair_key(p.public_card) if p is not None and p.public_card is not None else None

    def _hidden(self, positions) -> list[int]:
        """The positions among ``positions`` whose card this verifier does not know (`_true`
        is None: neither its own nor opened)."""
        if self.known is None:
            cards = self.lg.cards
            return [j for j in positions if j not in cards]
        known, public = self.known, self.lg.positions
        n = len(public)
        return [j for j in positions if j not in known and (j >= n or public[j].public_card is None)]

    # -- Backend: every card movement checked against the fair record -------------------
    def deck(self) -> list[str]:
        if not self.lg.epochs:
            raise self._bad("no deck was committed")
        self.next_epoch = 1
        e = self.lg.epochs[0]
        full = Counter(c.full_code for c in deck_cards(self.rules.deck))
        span = range(e.base, e.base + e.count)
        hidden = set(self._hidden(span))
        faces: list[str | None] = [None if j in hidden else self._true(j) for j in span]
        full.subtract(f for f in faces if f is not None)
        if any(v < 0 for v in full.values()):
            raise self._bad(f"the known cards of the deck are not a {self.rules.deck} deck")
        rest = sorted(full.elements())
        return [f if f is not None else rest.pop() for f in faces]

    def deal(self, seat: int, position: int) -> None:
        p = self._pos(position, "deals")
        if p.dealt_to != seat:
            raise self._bad(f"the rules engine deals position {position} to seat {seat}, but the record "
                            + ("never deals it" if p.dealt_to is None else f"deals it to seat {p.dealt_to}"),
                            position)
        self.deals += 1

    def turn_up(self, position: int) -> None:
        p = self._pos(position, "turns up")
        if p.played_by != HOST_TURN:
            raise self._bad(f"the rules engine turns up position {position}, but the record does not", position)
        self.turn_ups += 1

    def play(self, seat: int, position: int) -> None:
        p = self._pos(position, "plays")
        if p.played_by != seat:
            raise self._bad(f"seat {seat} plays position {position} by the game record, but the fair record "
                            + ("has no such play" if p.played_by is None else
                               f"has it {'turned up' if p.played_by == HOST_TURN else f'played by seat {p.played_by}'}"),
                            position)
        self.plays += 1

    def reshuffle(self, sources: Sequence[int], to: int | None = None) -> tuple[int, list[str]]:
        epochs = self.lg.epochs
        if self.next_epoch >= len(epochs):
            raise self._bad(f"the rules engine reshuffles positions {list(sources)} here, but the record has "
                            f"no epoch {self.next_epoch}")
        e = epochs[self.next_epoch]
        if list(e.sources) != list(sources):
            raise self._bad(f"the rules engine reshuffles positions {list(sources)}, but epoch {e.number} of the "
                            f"record reshuffles {list(e.sources)}")
        if e.to != to:
            raise self._bad(f"the rules engine moves positions {list(sources)} to seat {to}, but epoch {e.number} "
                            f"of the record {'is no moved hand' if e.to is None else f'moves them to seat {e.to}'}")
        self.next_epoch += 1
        fair = self.fair
        assert fair is not None  # the first reshuffle comes at the earliest with the round's start
        at = fair.record_card
        known_new = [self._true(j) for j in range(e.base, e.base + e.count)]
        need = Counter(f for f in known_new if f is not None)
        # the sources must hold (in the copy) every card this verifier already knows of the new epoch
        have = Counter(at(j).full_code for j in sources)
        for face in list((need - have).elements()):
            surplus = have - need
            src = next((j for j in sources if self._true(j) is None and surplus[at(j).full_code] > 0), None)
            if src is None:
                raise self._bad(f"epoch {e.number} holds {face!r}, which the positions it reshuffles cannot hold")
            self._swap_in(src, face, avoid=set(sources))
            have = Counter(at(j).full_code for j in sources)
        pool = Counter(at(j).full_code for j in sources)
        pool.subtract(need)
        rest = sorted(pool.elements())
        return e.base, [f if f is not None else rest.pop() for f in known_new]

    def challenge(self, challenger: int, challenged: int, colour: str, positions: Sequence[int]) -> bool:
        chs = self.lg.challenges
        if self.next_challenge >= len(chs):
            raise self._bad(f"seat {challenger} challenges seat {challenged} but the record has no such challenge")
        ch = chs[self.next_challenge]
        self.next_challenge += 1
        want = (challenger, challenged, colour, sorted(positions))
        got = (ch.challenger, ch.challenged, ch.colour, sorted(ch.positions))
        if want != got:
            raise self._bad(f"the rules engine's challenge (challenger, challenged, colour, hand) is {want}, the "
                            f"record's is {got}")
        if ch.guilty is None:
            raise self._bad(f"the challenge of seat {challenged} is applied before its verdict")
        return bool(ch.guilty)

    def flip(self, side: int, held: Sequence[int]) -> None:
        flips = self.lg.flips
        if self.next_flip >= len(flips):
            raise self._bad(f"the table turns over to side {side} by the rules, but the record has no such flip")
        f = flips[self.next_flip]
        self.next_flip += 1
        if f.side != side or sorted(f.held) != sorted(held):
            raise self._bad(f"the rules engine's flip turns to side {side} with positions {sorted(held)} held; "
                            f"the record's flip (line {f.line}) to side {f.side} with {sorted(f.held)}")

    def after(self, rnd, action, events) -> None:
        pass

    def stops(self, rnd: Round, seat: int, card, stop, then: int, events: list) -> bool:
        """A draw-until's decision on the card just drawn. A card this verifier cannot see is
        made to agree with the record: the draw goes on iff the record's next draws of this
        seat in this action are more than the one draw of ``then`` cards the same penalty
        makes after it (where both readings give the same record, either is right)."""
        fair = fair_of(rnd)
        j = fair.position_of(card)
        if self._true(j) is not None or (not rnd.draw_pile and len(rnd.discard) <= 1):
            return stop(card)  # known, or the last card there is: the draw ends here either way
        recorded = self._ev if isinstance(self._ev, list) else []
        reason = _json_norm(events_json(events[-1:]))[0][3:4] if events else []
        more = 0
        for row in recorded[len(events):]:
            if isinstance(row, list) and row[:2] == ["Drew", seat] and row[3:4] == reason:
                more += 1
            elif not (isinstance(row, list) and row[:1] == ["Reshuffled"]):
                break
        want = more <= (1 if then else 0)
        if stop(fair.card_at(j)) != want:
            faces = {c.full_code: c for k, c in fair.positions() if k != j and self._true(k) is None}
            face = next((f for f, c in sorted(faces.items()) if stop(c if c.other is None or c.side == rnd.side
                                                                      else c.other) == want), None)
            if face is None:
                raise self._bad(f"seat {seat}'s draw {'stops' if want else 'goes on'} at position {j}, but no card "
                                "this verifier cannot see could make it", j)
            self._swap_in(j, face)
        self.unsure = self.unsure or f"a hidden card ended or continued seat {seat}'s draw"
        return stop(fair.card_at(j))

    def check_challenge(self, ev) -> None:
        """The host's `challenge` event, checked live against the rules before any answer: the
        challenger is the next player, allowed to challenge now; the challenged seat is the one
        that played the wild draw; the colour is the one in force before it."""
        rnd = self.round
        if rnd is None or rnd.over:
            raise self._bad(f"a challenge by seat {ev.challenger} outside the round")
        from ..engine import Challenge as EngineChallenge

        wf = rnd.wild_four
        if wf is None or not any(type(a) is EngineChallenge for a in rnd.legal_actions(ev.challenger)):
            nxt = f"seat {rnd.turn} is" if wf is not None else "nobody is"
            raise FairPlayViolation(f"challenge: seat {ev.challenger} may not challenge now by the rules ({nxt} "
                                    "the next player after a wild draw, at a table that plays challenges)")
        if ev.challenged != wf.seat:
            raise FairPlayViolation(f"challenge: seat {ev.challenged} is challenged, but seat {wf.seat} played the "
                                    "wild draw")
        if ev.colour != wf.prev_color:
            raise FairPlayViolation(f"challenge: judged on colour {ev.colour!r}, but the colour in force before the "
                                    f"wild draw was {wf.prev_color!r}")

    # -- keeping the plausible world true to what this verifier knows --------------------
    def _swap_in(self, j: int, face: str, avoid: set[int] = frozenset()) -> None:
        """Put a card showing `face` at position j, taking it from a position not yet true."""
        fair = self.fair
        assert fair is not None
        k = next((k for k, c in fair.positions() if c.full_code == face and k != j and k not in avoid
                  and self._true(k) != c.full_code), None)
        if k is None:
            raise self._bad(f"position {j} shows {face!r}, which no card the record leaves unknown can be", j)
        fair.exchange(j, k)

    def sync(self) -> None:
        """Every live position this verifier knows holds its true card in the copy (a position
        once true stays true: swaps only take from positions not yet true)."""
        fair = self.fair
        if fair is None or self.known is None:
            return
        done = self._synced
        # (`known` only grows: its positions past the last sync's count are the new ones)
        known = self.known
        fresh = [j for j in islice(known, self._known_seen, None) if j not in done] \
            if len(known) > self._known_seen else []
        self._known_seen = len(known)
        published = self.lg.published
        if len(published) > self._published_seen:
            fresh += sorted({j for j in islice(published, self._published_seen, None) if j not in done})
            self._published_seen = len(published)
        for j in fresh:
            done.add(j)
            if fair.holds(j):
                t = self._true(j)
                if fair.record_card(j).full_code != t:
                    self._swap_in(j, t)
        if self.rules.deck == "flip":
            self._show_backs()

    def _show_backs(self) -> None:
        """UNO Flip: a card this verifier cannot see shows the table the face its `deal`
        announced (its back); the copy's placeholder there shows that face too, so that the
        screen's "sees:" and a bot read the other players' backs as the table sees them (play16:
        Ana read "sees: T4 T7 OSE OR OF W+C W+C" under Ben, whose dark side then was P7 PR O7
        O+5 U1 U4 USE).  Placeholders are only exchanged among positions not yet true, each
        keeping its own announced face; one that no such exchange can fix stays as it is."""
        fair, pos = self.fair, self.lg.positions
        n = len(pos)

        def want(j: int) -> tuple[int, str] | None:
            p = pos[j] if j < n else None
            if p is None or p.announced_public is None or self._true(j) is not None:
                return None
            return p.announced_side, p.announced_public

        def shows(card, side: int) -> str:
            light, dark = card.full_code.split("/")
            return dark if side == 0 else light

        hidden = [j for j, _ in fair.positions() if self._true(j) is None]
        wants = {j: w for j in hidden if (w := want(j)) is not None}
        card = {j: fair.record_card(j) for j in hidden}
        if all(shows(card[j], w[0]) == w[1] for j, w in wants.items()):
            return
        # the hidden cards, dealt again over the hidden positions: each announced position takes
        # a card showing its face (its own if it does), the others keep theirs where they can
        take: dict[int, int] = {}   # position -> the position whose card it gets
        used: set[int] = set()
        for j, w in wants.items():
            if shows(card[j], w[0]) == w[1]:
                take[j] = j
                used.add(j)
        for j, w in wants.items():
            if j in take:
                continue
            k = next((k for k in hidden if k not in used and shows(card[k], w[0]) == w[1]), None)
            if k is not None:
                take[j] = k
                used.add(k)
        spare = [k for k in hidden if k not in used]
        for j in hidden:
            if j not in take:
                k = j if j in spare else next(k for k in spare if k not in used)
                take[j] = k
                used.add(k)
        at = {card[k].id: k for k in hidden}   # where each hidden card is now
        for j in hidden:
            c = card[take[j]]
            now = at[c.id]
            if now != j:
                other = fair.record_card(j)
                fair.exchange(j, now)
                at[c.id], at[other.id] = j, now

    # -- driving ------------------------------------------------------------------------
    def on_game(self, data: dict, line: int | None = None, host_act=_LIVE) -> None:
        """One `game` record after the set-up: applied to the engine and checked, at once.
        ``host_act``: the host act this record repeats, as the ledger had it when the record
        came (`replay_round`: the ledger, read after the round's end, holds only its last)."""
        self.line = line
        g = data.get("g")
        try:
            if self.ended:
                raise self._bad("game event after the round's end")
            if g == "start":
                if self.started:
                    raise self._bad("the round starts twice")
                self.started = True
                if self.dealer is None:  # round 1: drawn from the seat reveals, all in by now
                    self.dealer = drawn_dealer(self.lg)
                self.round = FairRound.open(self.rules, self.players, self.dealer, self, active=self.active)
                self.fair = fair_of(self.round)
                self.sync()
                self._same("the opening", self.round.start(), data.get("ev"))
            elif g == "act":
                if not self.started:
                    raise self._bad("an action before the round started")
                rnd = self.round
                if rnd.over:
                    raise self._bad("an action after the round was over")
                self.sync()
                self._ev = data.get("ev")
                action = action_from_json(rnd, data.get("a"))
                ha = self.lg.recorded_host_act if host_act is _LIVE else host_act
                if ha is not None:
                    self._check_host_act(ha, action)
                events = self._apply(action)
                if rnd.over and self.known is not None:
                    self._opened_every_hand()
                self._same(str(action), events, data.get("ev"))
            elif g == "end":
                self.ended = True
                self._check_end(data)
            else:
                raise self._bad(f"unknown game event {g!r}")
        except FairPlayViolation as exc:
            if exc.line is None and line is not None:
                raise FairPlayViolation(exc.reason, seat=exc.seat, position=exc.position, line=line) from None
            raise
        except (ActionError, ValueError, TypeError, KeyError, IndexError, AssertionError, StopIteration) as exc:
            raise self._bad(f"the rules engine refuses it: {exc}" + (" (the host accepted it)"
                                                                      if self.known is not None else "")) from None

    def _check_host_act(self, ha, action) -> None:
        """A host act says why the host acted for a seat (issue 22 class 3), and the reason
        bounds what it may do: a turn that timed out gets exactly the default action (never a
        choice made for the seat); a stand-in is for a seat that is away (the seat itself
        refuses one live; here a stand-in for a seat that was at the table when the round
        started is flagged, since only that seat can tell whether it dropped since)."""
        rnd = self.round
        if ha.reason not in HOST_ACT_REASONS:
            raise self._bad(f"a host act for seat {ha.seat} with the reason {ha.reason!r}: the host acts for a "
                            f"seat only for {', '.join(map(repr, HOST_ACT_REASONS))}")
        if ha.reason == TIMEOUT:
            seat = ha.seat
            if seat is None:
                raise self._bad("a turn-timeout host act names no seat")
            hand_known = all(self._true(j) is not None for j in fair_of(rnd).hand_positions(seat))
            want = default_action(rnd, seat)
            if (type(want).__name__ == "Play" or rnd.hidden_legality) and not hand_known:
                return  # the default depends on a hand this verifier cannot see
            if action != want:
                raise self._bad(f"the host's turn-timeout act for seat {seat} is {action}, not the default action "
                                f"{want} (a timeout never chooses for the seat)")
            self._flag_present(seat, "timed out seat {s}'s turn", "did its clock run out? a seat at the table "
                                                                 "refuses a timeout before its clock ran out live")
        elif ha.reason == STAND_IN:
            self._flag_present(ha.seat, "stood in for seat {s}", "had it dropped since? a seat at the table refuses "
                                                                "a stand-in live")
        elif ha.reason == REFEREE and (ha.seat is not None or getattr(action, "seat", None) is not None):
            raise self._bad(f"a referee's host act plays {action} for seat {getattr(action, 'seat', ha.seat)} (the "
                            "referee only closes the table's races: it never acts in a seat's place)")

    def _flag_present(self, seat: int, did: str, why: str) -> None:
        """A host act for a seat that was at the table when the round started: flagged for a
        look (once per seat, reason and round), never failed -- only that seat could tell."""
        key = (seat, did)
        if seat in (self.lg.start.absent or ()) or key in self._stood_in:
            return
        self._stood_in.add(key)
        self.lg.flags.append((self.line, f"the host {did.format(s=seat)}, which was at the table when the round "
                                         f"started ({why})"))

    def _apply(self, action) -> list:
        """Apply a recorded action. Another seat's action that the rules refuse only because of
        the copy's placeholders in that seat's hand ("you must play when you can") is tried
        again over other placeholders (bounded); a refusal whatever the hidden cards, or of a
        hand this verifier knows whole, is the host's: it accepted an illegal action."""
        rnd, fair = self.round, self.fair
        assert rnd is not None and fair is not None
        seat = getattr(action, "seat", None)
        unknown = self._hidden(fair.hand_positions(seat)) if seat is not None else []
        if unknown and rnd.hidden_legality:
            self.unsure = self.unsure or f"seat {seat}'s hidden hand decided whether its action was legal"
        if not unknown:
            return rnd.apply(action)
        seed, rng = rnd.actions, None  # (the resampling's generator, made at the first refusal)
        for attempt in range(RESAMPLES):
            try:
                return rnd.apply(action)
            except ActionError:
                if rng is None:
                    rng = random.Random(seed)
                pool = [k for k, _ in fair.positions() if self._true(k) is None and k not in unknown
                        and k not in fair.hand_positions(seat)]
                if not pool:
                    break
                self.unsure = self.unsure or f"seat {seat}'s hidden hand decided whether its action was legal"
                if attempt == 0 and self._hand_without_a_play(seat, unknown, pool, rng):
                    continue
                for j in unknown:
                    fair.exchange(j, rng.choice(pool))
                unknown = self._hidden(fair.hand_positions(seat))
        return rnd.apply(action)

    def _hand_without_a_play(self, seat: int, unknown: list[int], pool: list[int], rng) -> bool:
        """The world where ``seat``'s hidden cards give it nothing to play, if the unknown cards
        allow one: what a draw or pass refused as "you could play" needs (deadly, must-play-wd4,
        draw-and-play).  Random placeholders rarely make it: a hand of seven hidden cards holds
        no playable card in a few worlds in a hundred, so 64 random tries accused honest hosts."""
        rnd, fair = self.round, self.fair
        fits = [j for j in unknown if rnd.fits(seat, fair.card_at(j))]
        blank = [k for k in pool if not rnd.fits(seat, fair.card_at(k))]
        if not fits or len(blank) < len(fits):
            return False
        for j, k in zip(fits, rng.sample(blank, len(fits))):
            fair.exchange(j, k)
        return True

    def _opened_every_hand(self) -> None:
        """The host opens every hand before the record of the action that ends the round
        (so every copy computes the result): a hand it left closed is its fault, not its holder's."""
        rnd, fair = self.round, self.fair
        self.sync()
        for s in range(rnd.players):
            j = next((j for j in sorted(fair.hand_positions(s)) if self._true(j) is None), None)
            if j is not None:
                raise self._bad(f"the round is over by the rules, but seat {s}'s position {j} was never opened (the "
                                "host opens every hand at the end)", j)

    def _same(self, what: str, events: list, recorded) -> None:
        """The record's events are the ones the rules give.  A copy whose ledger trusts its
        referee (the host's own seat, `RoundLedger.trusted`) does not compare: that referee
        made the record with this engine from this action, in this process, and checked it
        (docs/fair-play.md §11.14); the copy's own events are what its screen reads either way."""
        if not self.lg.trusted:
            self._compare(what, events_json(events), recorded)
        self.events = [e.visible_to(self.seat) for e in events] if self.known is not None else []

    def _compare(self, what: str, mine: list, recorded) -> None:
        # (the record is JSON: equal as they stand, they are equal after the JSON trip too)
        if mine != recorded and _json_norm(mine) != recorded:
            mine = _json_norm(mine)
            k = next((i for i, (a, b) in enumerate(zip(mine, recorded or [])) if a != b),
                     min(len(mine), len(recorded or [])))
            a = mine[k] if k < len(mine) else "nothing"
            b = recorded[k] if isinstance(recorded, list) and k < len(recorded) else "nothing"
            raise self._bad(f"{what} gives {a} by the rules, but the record says {b}")

    def _check_end(self, data: dict) -> None:
        rnd = self.round
        out = rnd.outcome if rnd is not None else None
        if out is None:
            raise self._bad("the round is announced over, but by the rules it is not")
        want = {"winner": out.winner, "points": out.points, "hand_points": list(out.hand_points),
                "termination": out.termination.value,
                "scores": scores_after(self.rules, self.players, self.scores, out)}
        for k, v in want.items():
            if not _same_json(_json_norm(v), data.get(k)):
                raise self._bad(f"{_END_LABELS[k]}: the record says {data.get(k)!r}, the rules say {_json_norm(v)!r}")

    def finish(self, line: int | None = None) -> None:
        """At `round-end`: the round ended by the rules, and the engine accounts for every card
        movement of the fair record."""
        self.line = line
        if not self.ended:
            raise self._bad("the round ends without the game's end (winner and scores)")
        rnd = self.round
        assert rnd is not None
        lg = self.lg
        if len(lg.flips) > self.next_flip:
            f = lg.flips[self.next_flip]
            self.line = f.line if f.line is not None else line
            raise self._bad(f"the table turns over to side {f.side} here, but the rules engine makes no such flip "
                            "(no Flip card was played)")
        turned = sum(1 for p in lg.positions if p.played_by == HOST_TURN)
        for what, mine, theirs in (
            ("deals", self.deals, lg.counts["deals"]), ("plays", self.plays, lg.counts["plays"]),
            ("turn-ups", self.turn_ups, turned), ("epochs", self.next_epoch, len(lg.epochs)),
            ("challenges", self.next_challenge, len(lg.challenges)), ("flips", self.next_flip, len(lg.flips)),
        ):
            if mine != theirs:
                raise self._bad(f"the rules engine accounts for {mine} {what}, the fair record has {theirs}")
        for s in range(rnd.players):
            mine = sorted(fair_of(rnd).hand_positions(s))
            theirs = sorted(lg.held_by(s))
            if mine != theirs:
                raise self._bad(f"at the end seat {s} holds positions {mine} by the rules engine, "
                                f"{theirs} by the fair record")


def replay_round(ledger: RoundLedger, games: Sequence[tuple], end_line: int | None = None) -> Replay:
    """The whole round replayed with every card known (the audit; a live copy that was
    `unsure`): `games` is its game records, set-up first, each with its line and, when the
    records were taken live, the host act it repeats (`GameAuditor.on_game`).  (Each record
    was checked against the ledger's last host act: a round that ended by a host act - under
    deadly, a timed-out seat knocked out - had every record checked against that one, and an
    honest host was called a cheat at the round's end.)"""
    line, setup = games[0][:2]
    r = Replay(ledger, setup, line=line)
    for line, data, *ha in games[1:]:
        r.on_game(data, line, *ha)
    r.finish(end_line)
    return r


_END_LABELS = {"winner": "the round's winner", "points": "the winner's points", "hand_points": "the hands' points",
               "termination": "how the round ended", "scores": "the match scores after the round"}


def _same_json(a, b) -> bool:
    """Equal as JSON values, types included: Python's ``==`` takes 14.0 and True for 14 and 1,
    and a result recorded so would pass the check, then fail every seat's tally (a whole
    number) and reach the scorekeeper as another number."""
    if type(a) is not type(b):
        return False
    if type(a) is list:
        return len(a) == len(b) and all(map(_same_json, a, b))
    if type(a) is dict:
        return a.keys() == b.keys() and all(_same_json(v, b[k]) for k, v in a.items())
    return a == b


def _json_norm(value):
    """What a value looks like after a trip through the transcript's JSON."""
    if isinstance(value, (list, tuple)):
        return [_json_norm(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _json_norm(v) for k, v in value.items()}
    return value


def _is_int(v) -> bool:
    return type(v) is int


class GameAuditor:
    """The engine replay and the match rules (MatchReferee) over a match, record by record:
    `unonet audit` drives it with every line (`on_game`, `on_round_end`, `on_match`, the
    hooks of `unonet.fair.audit`), and so does every live `TableSeat` with every event, with
    the cards its seat knows (`known`). One code path: what the audit checks at a `game`
    line, a seat checks on receiving that event."""

    def __init__(self, seat: int | None = None) -> None:
        self.seat = seat
        self._games: list[tuple] = []  # (line, game record, the host act it repeats or None)
        self.referee: MatchReferee | None = None
        #: the current round's replay (a live seat's engine copy; see `TableSeat.round`)
        self.current: Replay | None = None
        self.replayed = 0
        #: the last ended round's `game end` record (what its seats' tallies sign)
        self.last_end: dict | None = None

    def on_game(self, line: int | None, data: dict, ledger: RoundLedger, known=None) -> None:
        """One `game` record, with the round's ledger before it; `known`: position -> Opening
        of the cards a live seat knows (None: only public cards, as for the audit)."""
        first = not self._games
        # (with the host act it repeats: the round replayed at its end checks each against its own)
        self._games.append((line, data, ledger.recorded_host_act))
        if first:
            if data.get("g") == "setup" and self.referee is not None:
                # the set-up is the match rules' own, checked where it is read (before any seed)
                self.referee.check_setup(data, len(self.referee.match.history) + 1, line)
            self.current = Replay(ledger, data, seat=self.seat, known={} if known is None else known, line=line)
        elif self.current is not None:
            self.current.on_game(data, line)

    def on_event(self, line: int | None, event, ledger: RoundLedger) -> None:
        """Any other event of the round, once its ledger took it: a `challenge` is checked
        against the rules at once (the next player, on the colour in force)."""
        if isinstance(event, FairChallenge) and self.current is not None:
            try:
                self.current.check_challenge(event)
            except FairPlayViolation as exc:
                raise FairPlayViolation(exc.reason, seat=exc.seat, line=line) from None

    def on_match(self, line: int | None, event, match: MatchLedger) -> None:
        if isinstance(event, MatchJoin) and match.joined and self.referee is None:
            # (the join that fixed the match id; a late join of a seat away after an election
            # changes nothing of the match)
            try:
                self.referee = MatchReferee(match.start.rules, len(match.seats), match.match_id,
                                             match.start.continues)
            except (ValueError, TypeError) as exc:
                raise FairPlayViolation(f"match-start: bad rules: {exc}", line=match.start_line) from None
        elif isinstance(event, RoundAbort):
            self._games = []  # the aborted attempt's set-up: the next attempt carries its own
            self.current = None
        elif isinstance(event, RoundSign) and event.tally is not None:
            cur = match.current
            if self.last_end is None or cur is None or \
                    (not match.trusted and not tally_ok(match.seats[event.seat], event, self.last_end)):
                # the host checks a co-sign's tally before it relays it (TableHost): a relayed one
                # that fails convicts the host, never the seat named in it
                out = FairPlayViolation(f"the host relayed a round-sign in seat {event.seat}'s name whose tally does "
                                        f"not verify over round {cur.round if cur else '?'}'s result (a host passes "
                                        "on only checked seat messages)", line=line)
                out.relayed = True  # (a file shows the host passed it on only under a later host signature)
                out.plain = (f"a round-sign in seat {event.seat}'s name has a tally that does not verify over "
                             f"round {cur.round if cur else '?'}'s result")
                raise out

    def on_round_end(self, line: int | None, ledger: RoundLedger) -> bool:
        """At the round's `round-end`: every record was replayed as it came; what is left is the
        round's accounting, unless a hidden card decided a step, when the round is replayed
        once more with every card (now known)."""
        games, self._games = self._games, []
        live = self.current  # kept: a seat's screen shows the round's end from it
        if not games:
            # The engine replay is part of the audit: a round without its game record could
            # reshuffle, deal and play anything the fair checks alone allow.
            raise FairPlayViolation("round has no game record (no `game` events): the rules engine cannot "
                                    "replay it", line=ledger.start_line)
        if ledger.start is None or any(e.host_secret is None for e in ledger.epochs):
            return False  # the round-end check itself fails this round
        if live is not None and live.unsure is None:
            live.finish(line)
        else:
            replay_round(ledger, games, line)
        end = next((d for _, d, _ha in reversed(games) if d.get("g") == "end"), None)
        self.last_end = end
        if self.referee is not None and end is not None:
            self.referee.record_end(end, round_dealer(games[0][1], ledger))
        self.replayed += 1
        return True


def round_tally(digest: bytes, end: dict) -> bytes:
    """The tally a seat co-signs for a round whose `game end` record is ``end``."""
    return tally_message(digest, end.get("winner"), end.get("points", 0), end.get("hand_points") or ())


def tally_ok(who, event, end: dict) -> bool:
    """Does ``event`` (a `round-sign`) carry ``who``'s tally over the round's digest and result?"""
    try:
        return event.tally is not None and who.verify(event.tally, round_tally(event.digest, end))
    except LedgerError:  # a result that cannot be put in a tally (the audit names the record itself)
        return False


def audit_transcript(lines: Iterable[str], **kw) -> AuditReport:
    """`unonet.fair.audit` plus the rules-engine replay of every round's game record."""
    g = GameAuditor()
    kw.setdefault("decks", TABLE_DECKS)
    kw.setdefault("require_match", True)
    return audit(lines, on_game=g.on_game, on_round_end=g.on_round_end, on_match=g.on_match, on_event=g.on_event,
                 **kw)
