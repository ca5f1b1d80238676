"""Stacked-deck scenarios (shared/scenario-format.md): JSON in, state out, no IO here."""

from __future__ import annotations

import functools

from ._actions import (
    ActionError,
    CallUno,
    Catch,
    Challenge,
    ChooseColor,
    CloseRace,
    Draw,
    Respond,
    Pass,
    Play,
    Swap,
)
from ._cards import Card, CardPool, InvalidCardError, parse_color
from ._match import Match
from ._round import DRAWN, Round
from ._rules import RulesError, make_rules


class ScenarioError(ValueError):
    """The scenario file itself is malformed (exit 2)."""


_VERBS = ("play", "draw", "pass", "challenge", "catch", "swap", "respond")
_RULE_KEYS = {"preset", "house", "deck", "teams", "scoring", "target"}


def _int(value, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if type(value) is not int:
        raise ScenarioError(f"{what} must be an integer, not {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        span = f"in {lo}..{hi}" if hi is not None else f"at least {lo}"
        raise ScenarioError(f"{what} must be {span}, not {value}")
    return value


def load_scenario(data) -> tuple[Match, Round, list]:
    """Check a scenario's structure and build its match, round and action list."""
    if not isinstance(data, dict):
        raise ScenarioError("a scenario must be a JSON object")
    rules_in = data.get("rules", {})
    if not isinstance(rules_in, dict):
        raise ScenarioError(f"rules must be an object, not {rules_in!r}")
    extra = set(rules_in) - _RULE_KEYS
    if extra:
        raise ScenarioError(f"unknown key in rules: {sorted(extra)[0]!r}")
    house = rules_in.get("house", [])
    if not isinstance(house, list) or not all(isinstance(h, str) for h in house):
        raise ScenarioError(f"rules.house must be a list of names, not {house!r}")
    teams = rules_in.get("teams", False)
    if not isinstance(teams, bool):
        raise ScenarioError(f"rules.teams must be true or false, not {teams!r}")
    for key in ("preset", "deck", "scoring"):
        if key in rules_in and not isinstance(rules_in[key], str):
            raise ScenarioError(f"rules.{key} must be a name, not {rules_in[key]!r}")
    try:
        rules = make_rules(
            rules_in.get("preset", "official"), house, deck=rules_in.get("deck"), teams=teams,
            scoring=rules_in.get("scoring", "standard"),
            target=_int(rules_in.get("target", 500), "rules.target", 1),
        )
    except RulesError as e:
        raise ScenarioError(str(e)) from None
    players = _int(data.get("players"), "players", 2, 10)
    try:
        rules.check_players(players)
    except RulesError as e:
        raise ScenarioError(str(e)) from None
    dealer = _int(data.get("dealer", 0), "dealer", 0, players - 1)
    seed = data.get("seed", 0)
    if type(seed) is not int:
        raise ScenarioError(f"seed must be an integer, not {seed!r}")
    scores = data.get("scores", [0] * players)
    if not isinstance(scores, list) or len(scores) != players:
        raise ScenarioError(f"scores must list {players} numbers, not {scores!r}")
    scores = [_int(s, "scores[]", 0) for s in scores]
    hands_in = data.get("hands")
    if not isinstance(hands_in, list) or len(hands_in) != players:
        raise ScenarioError(f"hands must list one hand for each of the {players} seats")
    deck_in = data.get("deck")
    if not isinstance(deck_in, list) or not deck_in:
        raise ScenarioError("deck must be a non-empty list of cards (top first; the first is turned up)")
    pool = CardPool(rules.deck)
    try:
        hands = []
        for i, hand in enumerate(hands_in):
            if not isinstance(hand, list):
                raise ScenarioError(f"hands[{i}] must be a list of cards, not {hand!r}")
            hands.append([pool.take(code) for code in hand])
        deck = [pool.take(code) for code in deck_in]
    except InvalidCardError as e:
        raise ScenarioError(str(e)) from None
    actions = data.get("actions", [])
    if not isinstance(actions, list):
        raise ScenarioError("actions must be a list")
    for i, a in enumerate(actions):
        _check_action(i, a, players, rules.deck)
    match = Match(rules, players, seed, scores=scores, dealer=dealer)
    if match.over:
        raise ScenarioError("the match is already over before this round (a score has reached the target)")
    active = match.active if match.eliminated else None
    if active is not None and any(hands[s] for s in range(players) if s not in active):
        raise ScenarioError("an eliminated seat cannot hold cards")
    try:
        rnd = Round.stacked(rules, players, dealer, hands, deck, seed, active=active)
        rnd.start()
    except ValueError as e:
        raise ScenarioError(str(e)) from None
    return match, rnd, actions


def _check_action(i: int, a, players: int, deck: str = "classic") -> None:
    where = f"actions[{i}]"
    if not isinstance(a, dict):
        raise ScenarioError(f"{where} must be an object, not {a!r}")
    if "timeout" in a:
        if a != {"timeout": True}:
            raise ScenarioError(f"{where}: a race timeout is written {{\"timeout\": true}} alone")
        return
    _int(a.get("player"), f"{where}.player", 0, players - 1)
    known = set(_VERBS) | {"player", "color", "uno"}
    extra = set(a) - known
    if extra:
        raise ScenarioError(f"{where}: unknown key {sorted(extra)[0]!r}")
    verbs = [v for v in _VERBS if v in a]
    if len(verbs) > 1:
        raise ScenarioError(f"{where}: one action at a time, got {' and '.join(verbs)}")
    if "uno" in a and not isinstance(a["uno"], bool):
        raise ScenarioError(f"{where}.uno must be true or false, not {a['uno']!r}")
    if not verbs and "color" not in a and a.get("uno") is not True:
        raise ScenarioError(f"{where}: no action (expected one of play, draw, pass, challenge, uno, catch, "
                            "color, swap, respond, timeout)")
    for flag in ("draw", "pass", "challenge", "respond"):
        if flag in a and a[flag] is not True:
            raise ScenarioError(f"{where}.{flag} must be true, not {a[flag]!r}")
    if "play" in a:
        if not isinstance(a["play"], str):
            raise ScenarioError(f"{where}.play must be a card, not {a['play']!r}")
        if deck != "flip":  # Flip faces are checked against the deck when played
            try:
                Card.from_code(a["play"])
            except InvalidCardError as e:
                raise ScenarioError(f"{where}: {e}") from None
    if "color" in a:
        try:
            parse_color(a["color"])
        except InvalidCardError as e:
            raise ScenarioError(f"{where}: {e}") from None
    for key in ("catch", "swap"):
        if key in a:
            _int(a[key], f"{where}.{key}", 0, players - 1)
    if verbs and verbs[0] != "play" and "color" in a:
        raise ScenarioError(f"{where}: a colour goes with a play or alone")
    if verbs and verbs[0] != "play" and "uno" in a:
        raise ScenarioError(f"{where}: \"uno\" goes with a play or alone")


def to_action(rnd: Round, a: dict):
    """Turn a scenario action into an engine action (resolving the card to a physical one)."""
    if "timeout" in a:
        return CloseRace()
    p = a["player"]
    color = parse_color(a["color"]) if "color" in a else None
    if "play" in a:
        face = _face(rnd, a["play"])
        card = face
        if rnd.phase is DRAWN and p == rnd.turn and rnd.drawn is not None and _same(rnd.drawn, a["play"]):
            card = rnd.drawn
        else:
            for c in rnd.hands[p]:
                if _same(c, a["play"]):
                    card = c
                    break
        return Play(p, card, color, a.get("uno", False) is True)
    if "respond" in a:
        return Respond(p)
    if "draw" in a:
        return Draw(p)
    if "pass" in a:
        return Pass(p)
    if "challenge" in a:
        return Challenge(p)
    if "catch" in a:
        return Catch(p, a["catch"])
    if "swap" in a:
        return Swap(p, a["swap"])
    if "color" in a:
        return ChooseColor(p, color)
    return CallUno(p)


def _face(rnd: Round, code: str):
    """The face named in a play; Flip faces are looked up by their code on either side."""
    if rnd.rules.deck == "flip":
        f = _flip_faces().get(code.strip().upper())
        if f is None:
            raise ScenarioError(f"unknown card {code!r} for the flip deck")
        return Card("", None, face=(f.color, f.rank, f.points, f.draw, f.side))
    return Card.from_code(code)


@functools.cache
def _flip_faces() -> dict:
    """Every Flip face by its code and full code (built once, not per play)."""
    from ._cards import FLIP_DECK

    faces: dict = {}
    for card in FLIP_DECK:
        for f in (card, card.other):
            faces.setdefault(f.code, f)
            faces.setdefault(f.full_code, f)
    return faces


def _same(card, code: str) -> bool:
    want = code.strip().upper()
    return card.code == want or card.full_code == want


def scenario_state(match: Match, rnd: Round) -> dict:
    out = rnd.outcome
    over = out is not None
    points = None
    if over:
        if match.rules.scoring == "elimination":
            points = [out.hand_points[s] if s in rnd.dealt_in else 0 for s in range(rnd.players)]
        else:
            points = out.points
    return {
        "turn": rnd.turn,
        "direction": rnd.direction,
        "top": rnd.top.code,
        "color": rnd.color,
        "hands": [[c.code for c in h] for h in rnd.hands],
        "draw_pile": len(rnd.draw_pile),
        "discard_pile": len(rnd.discard),
        "round_over": over,
        "winner": out.winner if over else None,
        "round_points": points,
        "scores": list(match.scores),
        "team_scores": match.team_scores,
        "match_over": match.over,
        "match_winner": match.winner,
    }


def run_scenario(data) -> tuple[int, dict]:
    """Play a scenario; returns (exit status, JSON-ready output).  Raises ScenarioError (exit 2)."""
    match, rnd, actions = load_scenario(data)
    last = None
    for i, a in enumerate(actions):
        action = to_action(rnd, a)
        if not (type(action) in (Pass, Play) and action.seat == rnd.turn):
            _keep_unplayable_draw(rnd)
        # a `pass` written after a draw that found nothing
        # is accepted as a no-op
        if (type(action) is Pass and type(last) is Draw and last.seat == action.seat
                and not (rnd.phase is DRAWN and rnd.turn == action.seat)):
            last = action
            continue
        before = scenario_state(match, rnd)
        try:
            rnd.apply(action)
        except ActionError as e:
            return 3, {"error": str(e), "action": i, "state": before}
        last = action
        if rnd.outcome is not None:
            out = rnd.outcome
            match.apply_outcome(out.winner, out.points, out.hand_points, out.termination)
            # later actions (if any) are refused by the finished round
    _keep_unplayable_draw(rnd)
    return 0, scenario_state(match, rnd)


def _keep_unplayable_draw(rnd: Round) -> None:
    """The format's rule: a drawn card that cannot be played ends the turn, nobody needs
    to say `pass`.  The engine always lets the drawer choose (docs/rules.md), so the
    runner keeps such a card for the scenario unless the drawer's own `pass` (or a play,
    refused) comes next."""
    if rnd.phase is DRAWN and rnd.drawn is not None and not rnd.playable(rnd.turn):
        rnd.apply(Pass(rnd.turn))
