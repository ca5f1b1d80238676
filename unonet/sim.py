"""Bot-versus-bot play: rounds or whole matches, with statistics (used by `unonet simulate`)."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .engine import Match, RuleSet, make_bot, play_round


@dataclass
class SimStats:
    players: int
    teams: bool
    rounds: int = 0
    matches: int = 0
    actions: int = 0
    seconds: float = 0.0
    round_wins: list = field(default_factory=list)
    match_wins: list = field(default_factory=list)
    blocked_rounds: int = 0
    points: list = field(default_factory=list)

    def as_dict(self, *, by_match: bool) -> dict:
        rps = self.rounds / self.seconds if self.seconds else 0.0
        aps = self.actions / self.seconds if self.seconds else 0.0
        out = {
            "rounds": self.rounds,
            "matches": self.matches,
            "actions": self.actions,
            "seconds": round(self.seconds, 4),
            "rounds_per_s": round(rps, 1),
            "actions_per_s": round(aps, 1),
            "round_wins": self.round_wins,
            "match_wins": self.match_wins,
            "blocked_rounds": self.blocked_rounds,
            "points": self.points,
        }
        wins = self.match_wins if by_match else self.round_wins
        out["wins"] = wins
        if self.teams:
            out["team_wins"] = wins if by_match else [sum(wins[0::2]), sum(wins[1::2])]
            out["wins"] = out["team_wins"]
        return out


def simulate(rules: RuleSet, players: int, *, rounds: int | None = None, matches: int | None = None,
             seed=None, bots=("heuristic",), on_round=None, on_events=None,
             round_factory=None) -> SimStats:
    """Play ``rounds`` single rounds (rotating dealer) or ``matches`` whole matches.

    ``bots`` names a bot kind per seat, cycled.  ``round_factory(match)`` may replace
    `Match.new_round` (the fair-play layer uses it)."""
    rng = random.Random(seed)
    stats = SimStats(players, rules.teams, round_wins=[0] * players,
                     match_wins=[0] * (2 if rules.teams else players), points=[0] * players)
    kinds = [bots[s % len(bots)] for s in range(players)]
    start = time.perf_counter()

    def one_round(match: Match):
        rnd = round_factory(match) if round_factory else match.new_round()
        start_events = rnd.start()
        if on_events:
            on_events(rnd, None, start_events)
        seat_bots = [make_bot(kinds[s], rng.getrandbits(32)) for s in range(players)]
        cb = (lambda a, e: on_events(rnd, a, e)) if on_events else None
        play_round(rnd, seat_bots, on_events=cb)
        match.record(rnd)
        out = rnd.outcome
        stats.rounds += 1
        stats.actions += rnd.actions
        if out.winner is None:
            stats.blocked_rounds += 1
        else:
            stats.round_wins[out.winner] += 1
            stats.points[out.winner] += out.points
        if on_round:
            on_round(match, rnd)

    if matches is not None:
        for _ in range(matches):
            match = Match(rules, players, rng.getrandbits(64))
            while not match.over:
                one_round(match)
            stats.matches += 1
            stats.match_wins[match.winner] += 1
    else:
        # Single rounds: one long "match" whose target is never reached matters not;
        # scores are kept but only rounds are counted.
        match = Match(rules, players, rng.getrandbits(64))
        for _ in range(rounds if rounds is not None else 100):
            if match.over:
                match = Match(rules, players, rng.getrandbits(64), dealer=match.dealer)
            one_round(match)
    stats.seconds = time.perf_counter() - start
    return stats
