"""Plain-language lines for events ("Ana played W+4, chose G"), for logs and the client."""

from __future__ import annotations

from . import _events as ev
from ._cards import COLOR_NAMES


def _cards(cards) -> str:
    return " ".join(c.code for c in cards)


def narrate(event, names, me: int | None = None) -> str | None:
    """One line for ``event`` as seat ``me`` sees it (None: an observer); None for silent events."""
    def n(seat):
        return "you" if seat == me else names[seat]

    def poss(seat):
        return "your" if seat == me else f"{names[seat]}'s"

    t = type(event)
    if t is ev.Played:
        c = event.card
        text = f"{n(event.seat)} {'jumped in with' if event.jump_in else 'played'} {c.code}"
        if c.wild:
            text += f", chose {COLOR_NAMES[event.color]}"
        return text
    if t is ev.Drew:
        k = len(event.cards)
        what = _cards(event.cards) if event.cards and event.cards[0].known else f"{k} card{'s' if k != 1 else ''}"
        why = {"turn": "", "penalty": " (penalty)", "challenge": " (challenge)",
               "uno": " (false UNO call)", "catch": " (caught without UNO)"}.get(event.reason, "")
        return f"{n(event.seat)} drew {what}{why}"
    if t is ev.Kept:
        return f"{n(event.seat)} kept the drawn card"
    if t is ev.SwapDeclined:
        return f"{n(event.seat)} kept {'your' if event.seat == me else 'their'} own hand"
    if t is ev.FirstDiscard:
        return f"first discard: {event.card.code}"
    if t is ev.ReturnedToDeck:
        return f"{event.card.code} turned up first: back into the deck, reshuffled"
    if t is ev.Reshuffled:
        return f"draw pile empty: {event.count} discards reshuffled"
    if t is ev.ColorChosen:
        return f"{n(event.seat)} named {COLOR_NAMES[event.color]}"
    if t is ev.Skipped:
        return f"{n(event.seat)} {'are' if event.seat == me else 'is'} skipped"
    if t is ev.DirectionChanged:
        return "direction: " + ("clockwise" if event.direction == 1 else "counter-clockwise")
    if t is ev.UnoCalled:
        return f"{n(event.seat)}: UNO!"
    if t is ev.FalseUno:
        return f"{n(event.seat)} called UNO falsely"
    if t is ev.Caught:
        return f"{n(event.seat)} caught {n(event.target)} without UNO"
    if t is ev.Challenged:
        verdict = "guilty" if event.guilty else "innocent"
        held = "held" if event.guilty else "held no"
        why = f" ({n(event.target)} {held} {COLOR_NAMES[event.color]})" if event.color in COLOR_NAMES else ""
        return f"{n(event.seat)} challenged {poss(event.target)} wild draw: {verdict}{why}"
    if t is ev.Evidence:
        if event.cards and event.cards[0].known:
            return f"{poss(event.target)} hand was: {_cards(event.cards)}"
        return None
    if t is ev.Swapped:
        return f"{n(event.seat)} swapped hands with {n(event.target)}"
    if t is ev.HandsPassed:
        return "every hand passed " + ("clockwise" if event.direction == 1 else "counter-clockwise")
    if t is ev.HandsShuffled:
        return f"{n(event.seat)} shuffled all hands and dealt them again"
    if t is ev.RaceStarted:
        return f"race on {event.card.code}! everyone else must slap it; the last draws 2"
    if t is ev.Responded:
        return f"{n(event.seat)} slapped it"
    if t is ev.RaceLost:
        return f"{n(event.seat)} {'were' if event.seat == me else 'was'} too slow and " \
               f"{'draw' if event.seat == me else 'draws'} 2"
    if t is ev.Flipped:
        side = "dark" if event.side else "light"
        return f"{n(event.seat)} flipped the table to the {side} side: top {event.top.code}"
    if t is ev.SkippedAll:
        return f"{n(event.seat)} skipped everyone and plays again"
    if t is ev.ExactMatch:
        return f"{n(event.seat)} matched {n(event.target)} exactly: {n(event.target)} draws {event.count}"
    if t is ev.KnockedOut:
        return f"{n(event.seat)} cannot play and {'are' if event.seat == me else 'is'} out of the round"
    if t is ev.RoundOver:
        if event.winner is None:
            if event.termination == "stalemate":
                return "round over: a stalemate, nobody scores"
            return "round over: nobody can play and nothing is left to draw"
        if event.hands[event.winner]:  # deadly: the last one still in
            return f"{n(event.winner)} {'are' if event.winner == me else 'is'} the last one in: {event.points} points"
        return f"{n(event.winner)} went out: {event.points} points"
    return None
