"""Rule sets: a frozen bundle of flags, and named presets with aliases.

House rules combine freely, so they are flags rather than subclasses; a preset is a
named bundle (python-chess's variant registry, without the subclassing).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ._cards import DECKS


class RulesError(ValueError):
    """An unknown preset, house rule or option, or a combination that cannot work."""


HOUSE_RULES: dict[str, str] = {
    "stacking": "+2 on +2 and +4 on +4 (never mixed); who cannot stack draws the sum",
    "seven-o": "a 7 swaps hands with a chosen player; a 0 passes every hand along the direction of play",
    "jump-in": "an identical card (colour and rank) may be played out of turn; play goes on from the jumper",
    "no-wild-endings": "a wild card cannot be your last card",
    "keep-drawing": "drawing goes on until a playable card comes (then play it or keep it)",
}

SCORINGS = ("standard", "elimination")


@dataclass(frozen=True)
class RuleSet:
    preset: str = "official"
    deck: str = "classic"
    house: frozenset[str] = field(default_factory=frozenset)
    teams: bool = False
    scoring: str = "standard"
    target: int = 500
    hand_size: int = 7

    def __post_init__(self) -> None:
        unknown = sorted(set(self.house) - set(HOUSE_RULES))
        if unknown:
            raise RulesError(
                f"unknown house rule {unknown[0]!r} (known: {', '.join(HOUSE_RULES)})"
            )
        if self.deck not in DECKS:
            raise RulesError(f"unknown deck {self.deck!r} (known: {', '.join(DECKS)})")
        if self.scoring not in SCORINGS:
            raise RulesError(f"unknown scoring {self.scoring!r} (known: {', '.join(SCORINGS)})")
        if self.teams and self.scoring == "elimination":
            raise RulesError("teams cannot be combined with elimination scoring")
        if not isinstance(self.target, int) or self.target < 1:
            raise RulesError(f"target must be a positive number of points, not {self.target!r}")
        if not 1 <= self.hand_size <= 20:
            raise RulesError(f"hand size must be 1..20, not {self.hand_size!r}")

    # Flags read on the hot path are plain attributes computed once.
    @property
    def stacking(self) -> bool:
        return "stacking" in self.house

    @property
    def seven_o(self) -> bool:
        return "seven-o" in self.house

    @property
    def jump_in(self) -> bool:
        return "jump-in" in self.house

    @property
    def no_wild_endings(self) -> bool:
        return "no-wild-endings" in self.house

    @property
    def keep_drawing(self) -> bool:
        return "keep-drawing" in self.house

    def check_players(self, players: int) -> None:
        if not isinstance(players, int) or not 2 <= players <= 10:
            raise RulesError(f"players must be 2..10, not {players!r}")
        if self.teams and (players < 4 or players % 2):
            raise RulesError(f"teams need an even number of players, 4 or more (got {players})")
        need = players * self.hand_size + 1
        have = len(DECKS[self.deck])
        if need > have:
            raise RulesError(f"{players} players x {self.hand_size} cards do not fit a {have}-card deck")

    def describe(self) -> str:
        bits = [self.preset, f"deck {self.deck}", f"target {self.target}"]
        if self.house:
            bits.append("house: " + ",".join(sorted(self.house)))
        if self.teams:
            bits.append("teams")
        if self.scoring != "standard":
            bits.append(f"{self.scoring} scoring")
        return "; ".join(bits)


@dataclass(frozen=True)
class Preset:
    name: str
    summary: str
    seed: str
    house: frozenset[str] = frozenset()
    deck: str = "classic"
    aliases: tuple[str, ...] = ()


PRESETS: tuple[Preset, ...] = (
    Preset("official", "the classic rules as printed: 108 cards, no house rules",
           "official rules (VRA) and the Official Guide", aliases=("classic", "standard")),
    Preset("2018", "the 2018 printing: 112 cards with Wild Shuffle Hands and 3 Wild Customizable",
           "the Official Guide (112-card deck)", deck="2018", aliases=("modern",)),
    Preset("house", "the official house rules together: stacking, seven-o, jump-in",
           "official rules, 'House rules'", house=frozenset({"stacking", "seven-o", "jump-in"}),
           aliases=("progressive",)),
)


def find_preset(name: str) -> Preset:
    key = str(name).strip().lower()
    for preset in PRESETS:
        if key == preset.name or key in preset.aliases:
            return preset
    raise RulesError(f"unknown rules preset {name!r} (known: {', '.join(p.name for p in PRESETS)})")


def make_rules(
    preset: str = "official",
    house=(),
    *,
    deck: str | None = None,
    teams: bool = False,
    scoring: str = "standard",
    target: int = 500,
) -> RuleSet:
    """Build a RuleSet from a preset name plus extra house rules and options."""
    p = find_preset(preset)
    extra = set()
    for name in house:
        key = str(name).strip().lower().replace("_", "-")
        if key in ("seven-0", "7-0", "7-o", "sevenoh"):
            key = "seven-o"
        if key not in HOUSE_RULES:
            raise RulesError(f"unknown house rule {name!r} (known: {', '.join(HOUSE_RULES)})")
        extra.add(key)
    return RuleSet(
        preset=p.name,
        deck=deck or p.deck,
        house=frozenset(p.house | extra),
        teams=bool(teams),
        scoring=scoring,
        target=target,
    )


def with_options(rules: RuleSet, **changes) -> RuleSet:
    return replace(rules, **changes)
