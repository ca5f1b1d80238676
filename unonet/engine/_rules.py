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
    "six-smackdown": "a 6 starts a reaction race: every other player slaps it; the last (or too slow) draws 2",
    "stacking-mixed": "stacking that mixes +2 and +4 (UNO Stack): who cannot answer draws the sum",
    "no-challenges": "a Wild Draw Four cannot be challenged (nor restricted): it is played any time",
    "uno-penalty-4": "a player caught without UNO draws 4 instead of 2",
    "draw-and-play": "a playable card you drew must be played (no keeping it)",
    "seven-o-optional": "with seven-o, the 7's swap may be declined (pass)",
    "exact-match-penalty": "playing the exact card the previous player just played makes them draw its number",
    "deadly": "a player who cannot play is out of the round (no drawing); last one in or first out wins",
    "wd4-strict": "a Wild Draw Four may not be played holding the colour in force or the top card's number "
                  "(refused, so never challenged)",
    "no-draw-first-round": "no +2 or +4 may be played until every player has had a turn",
    "must-play-wd4": "no drawing in your turn while you hold a Wild Draw Four: play it",
    "first-wd4-green": "a Wild Draw Four turned up as the first discard stays, and green is in force",
}

# Pairs that cannot work together, with the reason the refusal gives.
CONFLICTS: tuple[tuple[str, str, str], ...] = (
    ("deadly", "keep-drawing", "under deadly nobody draws on their turn"),
    ("deadly", "draw-and-play", "under deadly nobody draws on their turn"),
    ("wd4-strict", "no-challenges", "wd4-strict restricts the Wild Draw Four, no-challenges lifts the restriction"),
)
REQUIRES: dict[str, str] = {"seven-o-optional": "seven-o", "stacking-mixed": "stacking"}
DECK_CONFLICTS: dict[str, tuple[str, ...]] = {
    # Flip's draw cards differ by side; stacking and the 7/0 swaps are not defined for it here.
    "flip": ("stacking", "stacking-mixed", "seven-o", "seven-o-optional", "exact-match-penalty",
             "wd4-strict", "must-play-wd4", "first-wd4-green"),
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
        if not isinstance(self.deck, str) or self.deck not in DECKS:
            raise RulesError(f"unknown deck {self.deck!r} (known: {', '.join(DECKS)})")
        for a, b, why in CONFLICTS:
            if a in self.house and b in self.house:
                raise RulesError(f"house rules {a!r} and {b!r} conflict: {why}")
        for rule, needs in REQUIRES.items():
            if rule in self.house and needs not in self.house:
                raise RulesError(f"house rule {rule!r} needs {needs!r}")
        for rule in DECK_CONFLICTS.get(self.deck, ()):
            if rule in self.house:
                raise RulesError(f"house rule {rule!r} does not work with the {self.deck} deck")
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

    def has(self, rule: str) -> bool:
        return rule in self.house

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
    Preset("office", "UNO The Office: 4 Wild Kevin's Famous Chili (a reaction race, 50 points)",
           "UNO The Office rules", deck="office", aliases=("the-office", "chili")),
    Preset("flip", "UNO Flip: 112 double-sided cards, light and dark sides, Flip cards",
           "UNO Flip", deck="flip", aliases=("uno-flip",)),
    Preset("smackdown", "official rules plus 6-smackdown (a 6 starts a reaction race)",
           "the Official Guide, '6-Smackdown'", house=frozenset({"six-smackdown"}),
           aliases=("6-smackdown", "six-smackdown")),
    Preset("deadly", "Deadly UNO: cannot play, you are out of the round", "community: Deadly UNO",
           house=frozenset({"deadly"})),
    Preset("power", "Power UNO: 66 cards (no 0-5 but a B2 and a G3), stacking, no challenges, "
           "no drawing while holding a +4, a first +4 is green",
           "community: Power UNO", deck="power",
           house=frozenset({"stacking", "no-challenges", "must-play-wd4", "first-wd4-green"})),
    Preset("cross-family", "Cross Family: draw until playable and play it, stacking, no challenges, UNO penalty 4, "
           "no draw cards in the first round of turns",
           "community: Cross Family UNO", aliases=("cross",),
           house=frozenset({"keep-drawing", "draw-and-play", "stacking", "no-challenges", "uno-penalty-4",
                            "no-draw-first-round"})),
    Preset("cowboy", "Cowboy UNO: stacking draw cards and cutting in with an identical card",
           "community: 'Cowboy' UNO", house=frozenset({"stacking", "jump-in"})),
    Preset("combo", "Combo UNO: stacking, and Wild Draw Four any time (no challenges)",
           "community: Combo UNO", house=frozenset({"stacking", "no-challenges"})),
    Preset("uno-stack", "UNO Stack: +2 and +4 stack on each other", "community: UNO Stack",
           house=frozenset({"stacking", "stacking-mixed"}), aliases=("stack",)),
    Preset("dirty", "Dirty UNO: 7-0 with an optional swap, exact-match penalty, no +4 holding the colour or number",
           "community: Dirty UNO / UNO 7-0", aliases=("7-0",),
           house=frozenset({"seven-o", "seven-o-optional", "exact-match-penalty", "wd4-strict"})),
)


def find_preset(name: str) -> Preset:
    if not isinstance(name, str):
        raise RulesError(f"a rules preset is a name, not {name!r}")
    key = name.strip().lower()
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
    if deck is not None and p.deck != "classic" and deck != p.deck:
        raise RulesError(f"the {p.name} preset plays the {p.deck} deck, not {deck!r}")
    extra = set()
    for name in house:
        key = str(name).strip().lower().replace("_", "-")
        key = {"seven-0": "seven-o", "7-0": "seven-o", "7-o": "seven-o", "6-smackdown": "six-smackdown",
               "smackdown": "six-smackdown"}.get(key, key)
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
