"""`unonet join --no-ui` played by a person at a plain terminal (a screen reader, a serial
line, a `TERM=dumb` shell): the seat's feed as lines of words and, when the seat may act,
its hand and what to type.  It renders the same values the full-screen client draws (the
seat session's table screen, `SeatSide.screen`) and the session's own lines (`election`,
`rejoined`, ...); it keeps no model of the round: each `feed.TurnState` says it all."""

from __future__ import annotations

from typing import Any, Callable

from unonet import feed as F
from unonet.engine import narrate
from unonet.engine._cards import COLOR_NAMES

from ._game import HELP_WORDS

__all__ = ["text_feed", "bot_text_feed"]

#: what to type, in words (`_game.parse_seat_action` takes these words or the JSON notation)
_ASK = {
    "play": "type a card to play it (R7; a wild names a colour: W G; add uno on your next-to-last "
            "card: R7 uno) - or draw",
    "drawn": "type %s to play the card you drew - or pass to keep it",
    "color": "name a colour: color R (one of %s)",
    "challenge": "a wild draw four is on you: challenge - or draw",
    # (a 7 at seven-o: whom to swap with, each other seat by number and name, with its cards)
    "swap": "swap hands with whom? type a seat or a name: %s",
}
#: with ``seven-o-optional`` the 7's swap may be declined (without it "pass" is refused)
_SWAP_PASS = " - or pass to keep yours"


def text_feed(say: Callable[[str], None]) -> Callable[[Any], None]:
    """An ``on_feed`` (and ``emit``) for a person's headless seat: ``say`` gets one line at a time."""
    names: list[str] = []
    me: list[int | None] = [None]
    lobby: list[str] = [""]
    prompt: list[str] = []      # the last turn's lines that ask something (said again after news)
    playing: list[bool] = [False]  # a match is in play (a lobby then is an election's or a rejoin's)
    heading: list[bool] = [False]  # a match ended: the next TableInfo is a new match's
    teams: list[bool] = [False]  # partners on even/odd seats: team A and team B, as every screen says
    house: list[tuple] = [()]   # the match's house rules (a 7's swap may be declined with seven-o-optional)
    successor: list[str] = [""]  # an election's successor, said to host the table once it deals
    # a rejoin's replay has ended (`feed.Resync`): its news follows (back in seat N, reconnected),
    # and the turn's prompt is said once, under it (seen: three times, before and after each)
    rejoining: list[bool] = [False]

    def team(t: int) -> str:
        """``team B (Jo & Ana (bot))``: the letter the screens use, and who plays in it."""
        who = " & ".join(name(s) for s in range(t, len(names), 2))
        return f"team {'AB'[t] if t in (0, 1) else t}" + (f" ({who})" if who else "")

    def name(seat: int | None) -> str:
        if seat is None:
            return "nobody"
        if seat == me[0]:
            return "you"
        return names[seat] if 0 <= seat < len(names) else f"seat {seat}"

    def on_feed(v) -> None:
        if isinstance(v, dict):
            if v.get("t") == "match-over":  # (one of several: the last is the command's own line)
                say(_match_over(v, name, team))
                if v.get("last"):  # (the command's own closing line follows)
                    return
                playing[0], heading[0] = False, True
                say("the host starts the next match when everyone is back; wait here (Ctrl-C leaves)")
                return
            if v.get("t") == "election" and not v.get("me"):
                successor[0] = v.get("successor_name") or ""
            elif v.get("t") == "reconnected":  # the lost host answered: it still hosts, nobody took over
                successor[0] = ""
            # (after the rejoin's table was said, "your hand: ..." stands above already: the
            # rejoin's line said the hand again, unsorted - play16)
            line = _line(v, name, hand_said=rejoining[0])
            if line:
                say(line)
                if v.get("t") in ("rejoined", "reconnected") and not rejoining[0]:
                    for ask in prompt:  # (seen: the prompt scrolled above them)
                        say(ask)
            return
        t = type(v)
        if t is F.TableInfo:
            names[:] = list(v.names)
            me[0] = v.me
            teams[0] = v.teams
            house[0] = tuple(v.house)
            if heading[0]:  # (not again for the new host's TableInfo after an election)
                # (not "match N": this process's own count, which players who came at different
                # times disagree on; the screens say "— next match —" too)
                say("=== next match ===")
            elif successor[0]:  # an election's new host dealt: the table is its now
                say(f"{successor[0]} hosts the table now")
            successor[0] = ""
            playing[0], heading[0] = True, False
            say(f"the match: {v.rules_text}; you are seat {v.me}"
                + (f", in {team(v.me % 2)}" if v.teams else ""))
        elif t is F.RoundStarted:
            say(f"--- round {v.number}: {name(v.dealer)} deal{'' if v.dealer == me[0] else 's'} ---")
        elif t is F.TurnState:
            prompt[:] = _turn(v, me[0], name, teams[0], house[0])
            if rejoining[0]:
                return  # (said under the rejoin's news)
            for line in prompt:
                say(line)
        elif t is F.RoundScored:
            who = "you win" if v.winner == me[0] else f"{name(v.winner)} wins"
            if v.stand_in:  # a bot played the seat of a player who was away (words15)
                who = ("your seat wins" if v.winner == me[0] else f"{name(v.winner)}'s seat wins") \
                    + " (a bot played it)"
            elif v.by_clock:  # the table played the last card when the seat's time ran out
                who = ("your seat wins (the table played it: your time ran out)" if v.winner == me[0] else
                       f"{name(v.winner)}'s seat wins (the table played it: {name(v.winner)}'s time ran out)")
            say(f"round {v.number}: {who} {v.points} points; scores: "
                + ", ".join(f"{name(s)} {p}" for s, p in enumerate(v.scores))
                + ("; " + ", ".join(f"{team(t)} {p}" for t, p in enumerate(v.team_scores))
                   if v.team_scores else ""))
        elif t is F.Resync:
            rejoining[0] = True
            if v.between:  # (the finished round's leftover hand read as the hand in play: the
                return     # rejoin's news says the next round is dealt once every player is ready)
            # (back after a round its seat went out in: no cards, and "your hand: ; on top" read as a fault)
            say(("your hand: " + " ".join(str(c) for c in v.hand) if v.hand else "no cards in your hand")
                + (f"; on top: {v.top}" if v.top is not None else ""))
        elif t is F.Refused:
            say(f"not taken: {v.reason}")
        elif t.__name__ == "Lobby":
            text = "at the table: " + ", ".join(
                f"{s.seat} {s.name}" + (" (you)" if s.seat == v.me else "") + ("" if s.connected else " (left)" if s.left else " (away)")
                + (f" (team {'AB'[s.team]})" if s.team in (0, 1) else "")
                for s in v.seats)
            if v.players > len(v.seats):  # (seen: nothing said what the person waits for)
                empty = v.players - len(v.seats)
                text += (f"; {empty} seat{'s' if empty != 1 else ''} empty (the host may fill "
                         f"{'them' if empty != 1 else 'it'} with bots)")
            if v.back and not playing[0]:
                # (seen: a player back mid-match read "waiting for Hal to start the match" - this
                # roster comes before the rejoin's replay)
                text += "; you are back in the match (the table as it stands follows)"
            elif not v.host and not playing[0]:  # (seen after an election: the match was in play)
                text += f"; waiting for {v.hosted_by or 'the host'} to start the match"
            if text != lobby[0]:
                lobby[0] = text
                say(text)
        elif t.__name__ == "Notice":  # (a problem is said on stderr by the command itself)
            say(v.text)
            if v.kind == "reconnected":
                rejoining[0] = False
                for ask in prompt:
                    say(ask)
        elif t.__module__.endswith("engine._events"):
            rejoining[0] = False  # (play goes on: whatever the rejoin's news, its prompts are said again)
            line = narrate(v, names, me[0]) if names else None
            if line:
                say(line)

    on_feed.takes_values = True  # (`scripted_feed` hands it the values themselves, not JSON lines)
    return on_feed


#: of a bot's seat, what a person watching it reads: the table, the match, each round's
#: result, the session's news (its own lines and notices); not every move, nor its hand
_BOT_SAYS = frozenset({"TableInfo", "RoundScored", "Notice", "Lobby"})


def bot_text_feed(say: Callable[[str], None]) -> Callable[[Any], None]:
    """`unonet join --bot --no-ui` (no ``--json``): a few plain lines in `text_feed`'s words
    (seen: it printed nothing but its last line)."""
    words = text_feed(say)

    def on_feed(v) -> None:
        if isinstance(v, dict) or type(v).__name__ in _BOT_SAYS:
            words(v)

    on_feed.takes_values = True
    return on_feed


def _turn(ts: F.TurnState, me: int | None, name, teams: bool = False, house: tuple = ()) -> list[str]:
    """The lines a `TurnState` asks for: none unless this seat may do something now."""
    out = []
    if ts.can_catch is not None:
        # (play15: a partner offered as any other: catching them costs our own team)
        partner = " (your partner)" if teams and me is not None and ts.can_catch % 2 == me % 2 else ""
        out.append(f"{name(ts.can_catch)}{partner} has one card and did not call UNO: catch {ts.can_catch}")
    if ts.jump_in:
        codes = {c.id: str(c) for c in ts.hand}
        out.append("you may jump in with " + " ".join(codes[i] for i in ts.jump_in if i in codes))
    if me is not None and me in ts.race:
        # (play16: a typed seat read "race on WK! everyone else must slap it" and no word to slap)
        out.append("a race: type slap - the last to slap draws 2")
        return out
    if ts.turn != me or me is None or ts.phase not in _ASK:
        return out
    codes = {c.id: str(c) for c in ts.hand}
    top = f"on top: {ts.top}" + (f" (colour {COLOR_NAMES.get(ts.color, ts.color)})" if ts.color else "")
    hand = " ".join(str(c) for c in ts.hand)
    playable = " ".join(codes[i] for i in ts.playable if i in codes) or "nothing"
    # (words17: "playable: nothing" stood above a 7's swap question; no card is played there,
    # nor when naming a colour or answering a Wild Draw Four)
    out.append(f"your turn - {top}; your hand: {hand}" + (f"; playable: {playable}"
                                                          if ts.phase in ("play", "drawn") else ""))
    ask = _ASK[ts.phase]
    if ts.phase == "drawn":
        card = next((c for c in ts.hand if c.id == ts.drawn), None)
        drawn = str(card) if card is not None else "?"
        if card is not None and card.wild:  # (a wild names its colour with it)
            drawn = f"{drawn} {ts.colors[0]}"
        ask = ask % drawn if ts.drawn in ts.playable else "pass to keep the card you drew"
    elif ts.phase == "play" and not ts.playable:
        ask = "nothing fits: type draw"
    elif ts.phase == "color":
        ask = ask % " ".join(ts.colors)
    elif ts.phase == "swap":
        others = [s for s in (ts.active or range(len(ts.counts))) if s != me]
        ask = ask % ", ".join(f"{s} {name(s)}" + (f" ({ts.counts[s]} card{'s' if ts.counts[s] != 1 else ''})"
                                                  if s < len(ts.counts) else "") for s in others)
        if "seven-o-optional" in house:
            ask += _SWAP_PASS
    out.append(ask)
    return out


def _line(d: dict, name, hand_said: bool = False) -> str | None:
    """The session's own lines, in words (the JSON mode prints them as they are)."""
    t = d.get("t")
    if t == "joined":
        return f"joined {d.get('host')}'s table at {d.get('address')}"
    if t == "refused" and "input" in d:  # (a line of ours; the host's news is said on stderr)
        if str(d.get("input", "")).strip().lower() in HELP_WORDS:
            return str(d.get("reason"))  # (help asked for: the words, not a refusal)
        return f"not taken: {d.get('reason')}"
    if t == "election":
        if not d.get("successor_name"):
            return f"host {d.get('lost_name')} is gone and nobody can take the table over"
        if d.get("me"):
            return (f"lost the link to the host {d.get('lost_name')}: you host the table now (the round in play "
                    "is dealt again)")
        # what is known, not what may come (the screens' words, `lan_feed.Election`): a player
        # whose own link dropped was told the host was gone; "... hosts the table now" follows
        # once the successor deals
        return (f"lost the link to the host {d.get('lost_name')}; trying it again, then its successor "
                f"{d.get('successor_name')}")
    if t == "reconnected":
        return "reconnected to the host"
    if t in ("host-gone", "link-lost"):
        return d.get("text")
    if t == "rejoined":
        rounds = d.get("rounds") or 0
        # (between rounds no hand is dealt: words15, "your hand: " said nothing)
        hand = [] if hand_said else d.get("hand") or []
        return (f"back in seat {d.get('seat')}" + (f" after {rounds} round{'s' if rounds != 1 else ''}" if rounds else "")
                + (f"; your hand: {' '.join(hand)}" if hand else ""))
    return None


def _match_over(d: dict, name, team) -> str:
    """The match-over line in words: who won, by name (a team by its letter, as the screens
    say it), and the totals."""
    scores = d.get("scores") or []
    totals = ", ".join(f"{name(s)} {p}" for s, p in enumerate(scores))
    if d.get("teams"):
        teams = ", ".join(f"{team(t)} {p}" for t, p in enumerate(d.get("team_scores") or []))
        return f"match over: {team(d.get('winner'))} wins; {teams}; {totals}"
    return f"match over: {name(d.get('winner'))} win{'' if name(d.get('winner')) == 'you' else 's'}; {totals}"
