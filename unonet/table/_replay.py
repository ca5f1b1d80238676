"""The auditor's half of the bridge: replay the rules engine over a round's public record.

At a round's `round-end` line every r_h is known, so the ledger knows every card at
every position. `GameAuditor` then rebuilds the round with the same `FairRound` the host
ran, from the revealed deck, replays the recorded actions and checks that

- every action is legal for the engine (an illegal play names its `game` line),
- every action gives the public events recorded with it (draw counts, skips, colours...),
- every card the engine moves is the card the fair record moved: each deal to the seat
  the engine says drew it, each play by the seat that played it, each reshuffle over the
  positions the engine reshuffled, each challenge with the engine's evidence and verdict,
  and nothing more (deal, play, turn-up, epoch and challenge counts match),
- the winner, points, hand points and match scores at the end are the engine's.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..engine import ActionError, RuleSet
from ..fair import FairPlayViolation, audit
from ..fair._audit import AuditReport
from ..fair._events import MatchJoin, RoundAbort
from ..fair._ledger import HOST_TURN, RoundLedger
from ..fair._match import MatchLedger
from ._match import MatchReferee
from ._round import TABLE_DECKS, FairRound, action_from_json, events_json, fair_key, rules_from_json, scores_after


class ReplayBackend:
    """A Backend that checks each card movement against the ledger instead of making it."""

    def __init__(self, ledger: RoundLedger) -> None:
        self.lg = ledger
        self.line: int | None = None
        self.next_epoch = 0
        self.next_challenge = 0
        self.next_flip = 0
        self.deals = 0
        self.plays = 0
        self.turn_ups = 0

    def _bad(self, reason: str, position: int | None = None) -> FairPlayViolation:
        return FairPlayViolation(f"game record: {reason}", position=position, line=self.line)

    def _pos(self, j: int, what: str):
        if not 0 <= j < len(self.lg.positions):
            raise self._bad(f"the rules engine {what} position {j}, which the record does not have", j)
        return self.lg.positions[j]

    def _faces(self, e) -> list[str]:
        return [fair_key(self.lg.cards[j]) for j in range(e.base, e.base + e.count)]

    def deck(self) -> list[str]:
        if not self.lg.epochs:
            raise self._bad("no deck was committed")
        self.next_epoch = 1
        return self._faces(self.lg.epochs[0])

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
        return e.base, self._faces(e)

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

    def check_complete(self, rnd: FairRound) -> None:
        lg = self.lg
        if len(lg.flips) > self.next_flip:
            f = lg.flips[self.next_flip]
            self.line = f.line
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
            mine = sorted(rnd.hand_positions(s))
            theirs = sorted(lg.held_by(s))
            if mine != theirs:
                raise self._bad(f"at the end seat {s} holds positions {mine} by the rules engine, "
                                f"{theirs} by the fair record")


_END_LABELS = {"winner": "the round's winner", "points": "the winner's points", "hand_points": "the hands' points",
               "termination": "how the round ended", "scores": "the match scores after the round"}


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
    """`audit(..., on_game=g.on_game, on_round_end=g.on_round_end, on_match=g.on_match)`:
    the engine replay, and the match rules (MatchReferee) over every round's set-up."""

    def __init__(self) -> None:
        self._games: list[tuple[int, dict]] = []
        self.referee: MatchReferee | None = None
        self.replayed = 0

    def on_game(self, line: int, data: dict) -> None:
        if data.get("g") == "setup" and not self._games and self.referee is not None:
            # the set-up is the match rules' own, checked where it is read (before any seed)
            self.referee.check_setup(data, len(self.referee.match.history) + 1, line)
        self._games.append((line, data))

    def on_match(self, line: int, event, match: MatchLedger) -> None:
        if isinstance(event, MatchJoin) and match.joined:
            try:
                self.referee = MatchReferee(match.start.rules, len(match.seats), match.match_id,
                                             match.start.continues)
            except (ValueError, TypeError) as exc:
                raise FairPlayViolation(f"match-start: bad rules: {exc}", line=match.start_line) from None
        elif isinstance(event, RoundAbort):
            self._games = []  # the aborted attempt's set-up: the next attempt carries its own

    def on_round_end(self, line: int, ledger: RoundLedger) -> bool:
        games, self._games = self._games, []
        if not games:
            # The engine replay is part of the audit: a round without its game record could
            # reshuffle, deal and play anything the fair checks alone allow.
            raise FairPlayViolation("round has no game record (no `game` events): the rules engine cannot "
                                    "replay it", line=ledger.start_line)
        if ledger.start is None or any(e.host_secret is None for e in ledger.epochs):
            return False  # the round-end check itself fails this round
        self._replay(games, ledger, line)
        self.replayed += 1
        return True

    def _replay(self, games: list[tuple[int, dict]], ledger: RoundLedger, end_line: int) -> None:
        def bad(line: int, reason: str) -> FairPlayViolation:
            return FairPlayViolation(f"game record: {reason}", line=line)

        line, setup = games[0]
        if setup.get("g") != "setup":
            raise bad(line, "a round's first game event must be its set-up")
        if setup.get("v") != 1:
            raise bad(line, f"unknown game record version {setup.get('v')!r}")
        try:
            rules: RuleSet = rules_from_json(setup.get("rules"))
            players, dealer, active, scores = (setup.get(k) for k in ("players", "dealer", "active", "scores"))
            if not _is_int(players) or players != len(ledger.seats):
                raise ValueError(f"{players!r} players for a table of {len(ledger.seats)} seats")
            if rules.deck != ledger.start.deck_name:
                raise ValueError(f"the rules' deck {rules.deck!r} is not the round's deck {ledger.start.deck_name!r}")
            if not isinstance(scores, list) or len(scores) != players or not all(_is_int(x) for x in scores):
                raise ValueError(f"scores {scores!r} do not list {players} seats")
            if active is not None and (not isinstance(active, list) or not all(_is_int(x) for x in active)):
                raise ValueError(f"bad seats in play {active!r}")
            if not _is_int(dealer):
                raise ValueError(f"bad dealer {dealer!r}")
        except (ValueError, TypeError) as exc:
            raise bad(line, f"bad set-up: {exc}") from None
        backend = ReplayBackend(ledger)
        backend.line = line
        rnd = None
        started = ended = False
        try:
            rnd = FairRound.open(rules, players, dealer, backend, active=active)
            for line, data in games[1:]:
                backend.line = line
                g = data.get("g")
                if ended:
                    raise bad(line, "game event after the round's end")
                if g == "start":
                    if started:
                        raise bad(line, "the round starts twice")
                    started = True
                    self._same(line, "the opening", events_json(rnd.start()), data.get("ev"))
                elif g == "act":
                    if not started:
                        raise bad(line, "an action before the round started")
                    if rnd.over:
                        raise bad(line, "an action after the round was over")
                    action = action_from_json(rnd, data.get("a"))
                    self._same(line, str(action), events_json(rnd.apply(action)), data.get("ev"))
                elif g == "end":
                    ended = True
                    out = rnd.outcome
                    if out is None:
                        raise bad(line, "the round is announced over, but by the rules it is not")
                    want = {"winner": out.winner, "points": out.points, "hand_points": list(out.hand_points),
                            "termination": out.termination.value,
                            "scores": scores_after(rules, players, scores, out)}
                    for k, v in want.items():
                        if _json_norm(v) != data.get(k):
                            raise bad(line, f"{_END_LABELS[k]}: the record says {data.get(k)!r}, "
                                            f"the rules say {_json_norm(v)!r}")
                    if self.referee is not None:
                        self.referee.record_end(data, self.referee.match.dealer)
                else:
                    raise bad(line, f"unknown game event {g!r}")
            backend.line = end_line
            if not ended:
                raise bad(end_line, "the round ends without the game's end (winner and scores)")
            backend.check_complete(rnd)
        except FairPlayViolation as exc:
            if exc.line is None:
                raise FairPlayViolation(exc.reason, seat=exc.seat, position=exc.position, line=backend.line) from None
            raise
        except (ActionError, ValueError, TypeError, KeyError, IndexError, AssertionError) as exc:
            raise bad(backend.line, f"the rules engine refuses it: {exc}") from None

    @staticmethod
    def _same(line: int, what: str, mine: list, recorded) -> None:
        mine = _json_norm(mine)
        if mine != recorded:
            k = next((i for i, (a, b) in enumerate(zip(mine, recorded or [])) if a != b),
                     min(len(mine), len(recorded or [])))
            a = mine[k] if k < len(mine) else "nothing"
            b = recorded[k] if isinstance(recorded, list) and k < len(recorded) else "nothing"
            raise FairPlayViolation(f"game record: {what} gives {a} by the rules, but the record says {b}", line=line)


def audit_transcript(lines: Iterable[str], **kw) -> AuditReport:
    """`unonet.fair.audit` plus the rules-engine replay of every round's game record."""
    g = GameAuditor()
    kw.setdefault("decks", TABLE_DECKS)
    kw.setdefault("require_match", True)
    return audit(lines, on_game=g.on_game, on_round_end=g.on_round_end, on_match=g.on_match, **kw)
