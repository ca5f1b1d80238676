"""Bot-versus-bot soak: thousands of rounds with the invariants checked after every action."""

from collections import Counter

import pytest

from unonet.engine import PRESETS, Match, Phase, make_bot, make_rules, play_round


def _check(rnd, full):
    ids = Counter(c.id for c in rnd.draw_pile + rnd.discard + [c for h in rnd.hands for c in h])
    assert ids == full, rnd
    assert rnd.discard, rnd
    if rnd.phase is Phase.OVER:
        assert rnd.turn is None and rnd.outcome is not None
    else:
        assert rnd.turn in rnd.active and (rnd.color in rnd.colors or rnd.color is None)
        assert rnd.pending >= 0
        if rnd.phase is Phase.DRAWN:
            assert rnd.drawn in rnd.hands[rnd.turn]


HOUSE_SETS = [(), ("stacking",), ("seven-o",), ("jump-in",), ("keep-drawing",), ("no-wild-endings",),
              ("six-smackdown",), ("stacking", "seven-o", "jump-in", "no-wild-endings", "keep-drawing")]


def soak(rounds: int, seed: int = 0, preset: str | None = None) -> dict:
    stats = Counter()
    for i in range(rounds):
        players = 2 + i % (5 if preset == "power" else 9)
        teams = players in (4, 6, 8) and i % 3 == 0
        if preset is None:
            rules = make_rules("official", HOUSE_SETS[i % len(HOUSE_SETS)],
                               deck=("classic", "2018")[i % 2], teams=teams)
        else:
            rules = make_rules(preset, teams=teams)
        match = Match(rules, players, seed + i)
        rnd = match.new_round()
        rnd.start()
        full = Counter(c.id for c in rnd.draw_pile + rnd.discard + [c for h in rnd.hands for c in h])
        bots = [make_bot(("random", "heuristic")[(i + s) % 2], seed * 7919 + i * 13 + s) for s in range(players)]
        play_round(rnd, bots, on_events=lambda a, e: _check(rnd, full))
        match.record(rnd)
        if rules.scoring == "standard":
            assert sum(match.scores) == (rnd.outcome.points if rnd.outcome.winner is not None else 0)
        stats["rounds"] += 1
        stats["actions"] += rnd.actions
        stats["blocked"] += rnd.outcome.winner is None
    return stats


def test_soak_short():
    stats = soak(400)
    assert stats["rounds"] == 400 and stats["actions"] > 400 * 20


@pytest.mark.parametrize("preset", [p.name for p in PRESETS])
def test_every_preset_soaks_briefly(preset):
    stats = soak(60, seed=5, preset=preset)
    assert stats["rounds"] == 60


@pytest.mark.slow
def test_soak_long():
    stats = soak(5000, seed=1)
    assert stats["rounds"] == 5000
    assert stats["blocked"] < 50  # blocked rounds are rare oddities, not the norm


@pytest.mark.slow
@pytest.mark.parametrize("preset", [p.name for p in PRESETS])
def test_every_preset_soaks_for_thousands_of_rounds(preset):
    stats = soak(2000, seed=11, preset=preset)
    assert stats["rounds"] == 2000
    assert stats["blocked"] < 40


def test_heuristic_beats_random_clearly():
    """Heads-up over 1,000 rounds, seats alternating; the heuristic bot should win most."""
    rules = make_rules()
    wins = Counter()
    for i in range(1000):
        rnd = Match(rules, 2, i, dealer=i % 2).new_round()
        rnd.start()
        kinds = ("heuristic", "random") if i % 2 else ("random", "heuristic")
        play_round(rnd, [make_bot(k, i * 2 + s) for s, k in enumerate(kinds)])
        if rnd.outcome.winner is not None:
            wins[kinds[rnd.outcome.winner]] += 1
    rate = wins["heuristic"] / (wins["heuristic"] + wins["random"])
    assert rate > 0.6, wins
