"""`unonet join --no-ui` for a person at a plain terminal: the seat's feed in words, its hand
and what to type when it may act, and actions typed as words (``R7``, ``W G``, ``draw``)."""

from __future__ import annotations

import contextlib
import re
import subprocess
import time

import pytest

from unonet.net._game import _short_action, parse_seat_action
from unonet.net._text_feed import text_feed

from .session_helpers import finish, first_json, reaped, unonet
from .test_election import LOOP


@pytest.mark.parametrize("words, action", [
    ("R7", {"play": "R7"}), ("w g", {"play": "w", "color": "G"}), ("W+4 b uno", {"play": "W+4", "color": "B", "uno": True}),
    ("R9 uno", {"play": "R9", "uno": True}), ("draw", {"draw": True}), ("Pass", {"pass": True}),
    ("challenge", {"challenge": True}), ("uno", {"uno": True}), ("catch 2", {"catch": 2}), ("swap 0", {"swap": 0}),
    ("colour r", {"color": "R"}), ("play R7", {"play": "R7"}), ("play w g", {"play": "w", "color": "G"}),
    ("Play R9 uno", {"play": "R9", "uno": True}), ("slap", {"respond": True}), ("Slap", {"respond": True}),
])
def test_words_a_person_types_are_actions(words, action):
    assert _short_action(words) == action


@pytest.mark.parametrize("words", ["", "catch two", "R7 G B", "R7 please now ok", "W green", "swap", "catch", "draw 2"])
def test_other_words_are_not(words):
    assert _short_action(words) is None


@pytest.mark.parametrize("typed", ["help", "?", "Help "])
def test_help_lists_the_words_instead_of_calling_it_an_unknown_card(typed):
    """A newcomer's first word: seen at a 60-column TERM=dumb terminal, `help` was answered
    "not taken: action: unknown card 'help'"."""
    with pytest.raises(ValueError) as exc:
        parse_seat_action(None, typed)  # (asked before any round: help needs none)
    said: list[str] = []
    text_feed(said.append)({"t": "refused", "reason": str(exc.value), "input": typed.strip()})
    assert said[0].startswith("the moves you can type: R7 ") and "not taken" not in said[0]
    for word in ("W G", "R7 uno", "draw", "pass", "challenge", "catch 2", "color G"):
        assert word in said[0]


def test_a_race_asks_the_typed_seat_to_slap():
    """play16: at an office table Ben played WK; Tod's typed seat read "race on WK! everyone
    else must slap it; the last draws 2", typed "slap" and read "unknown card 'slap'"."""
    from unonet import feed as F

    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Ana", "Ben", "Tod"), me=3, rules_text="office"))
    on(F.TurnState(turn=1, phase="race", direction=1, color="R", pending=0, draw_pile=60, discard=9,
                   counts=(7, 5, 14, 5), catchable=None, race=(0, 1, 3), race_by=2))
    assert said[-1] == "a race: type slap - the last to slap draws 2", said
    with pytest.raises(ValueError) as exc:
        parse_seat_action(None, "help")
    assert "slap (a reaction race)" in str(exc.value)
    # a slap after the race closed (play16: "not taken: respond to the race is not legal now")
    from unonet.engine import Respond
    from unonet.engine._scenario import load_scenario
    from unonet.net._game import _why_not

    _, rnd, _ = load_scenario({"players": 2, "dealer": 1, "seed": 1, "hands": [["r9", "g1"], ["b1", "b2"]],
                               "deck": ["r5", "g9", "y3"], "rules": {"preset": "smackdown"}, "actions": []})
    assert _why_not(rnd, 1, Respond(1), rnd.legal_actions(1)) == "too late: the race is over"


@pytest.mark.parametrize("typed", ["q", "quit", "Exit"])
def test_quit_words_say_how_to_leave(typed):
    with pytest.raises(ValueError, match=r"^to leave the table press Ctrl-C"):
        parse_seat_action(None, typed)


def test_a_partners_table_is_told_by_team_letter_and_names():
    """Seen at a --teams table: the round line gave seat scores only and the match ended
    "match over: team 1 wins; scores [0, 0, 0, 72]" where every screen said "team B (Jo & Ana (bot))"."""
    from unonet import feed as F

    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Jo", "Tex", "Ana (bot)"), me=2, rules_text="official; teams", teams=True))
    on(F.RoundScored(number=1, winner=3, points=72, hand_points=(11, 26, 61, 0), hands=((),) * 4,
                     scores=(0, 0, 0, 72), team_scores=(0, 72), match_over=True, match_winner=1))
    on({"t": "match-over", "winner": 1, "teams": True, "scores": [0, 0, 0, 72], "team_scores": [0, 72],
        "rounds": 1, "ledger": "d0e7" * 16})
    assert said[0].endswith("you are seat 2, in team A (Hal & you)")
    assert said[1] == ("round 1: Ana (bot) wins 72 points; scores: Hal 0, Jo 0, you 0, Ana (bot) 72; "
                       "team A (Hal & you) 0, team B (Jo & Ana (bot)) 72")
    assert said[2] == ("match over: team B (Jo & Ana (bot)) wins; team A (Hal & you) 0, team B (Jo & Ana (bot)) 72; "
                       "Hal 0, Jo 0, you 0, Ana (bot) 72")
    assert said[3].startswith("the host starts the next match")  # (seen: nothing said until it was dealt)
    on(F.TableInfo(names=("Hal", "Jo", "Tex", "Ana (bot)"), me=2, rules_text="official", teams=False))
    # (not "match 2": this process's count, which players who came at different times disagree on)
    assert said[4] == "=== next match ==="
    # an election in match 2: the new host's roster and TableInfo (seen: "waiting for Hal to
    # start the match" while it was in play, and the match's heading once more)
    on({"t": "election", "me": False, "lost_name": "Hal", "successor_name": "Jo"})
    # (seen: "host Hal is gone; Jo takes over" said as a fact to a player whose own link had dropped)
    assert said[6] == "lost the link to the host Hal; trying it again, then its successor Jo"
    seats = tuple(F.LobbySeat(seat=i, name=n, team=i % 2) for i, n in enumerate(("Hal", "Jo", "Tex", "Ben (bot)")))
    on(F.Lobby(table="Hal's table", code="", seats=seats, me=2, players=4, hosted_by="Jo"))
    assert "waiting" not in said[7] and said[7].startswith("at the table: 0 Hal (team A)")
    on(F.TableInfo(names=("Hal", "Jo", "Tex", "Ben (bot)"), me=2, rules_text="official", teams=False))
    assert said[8] == "Jo hosts the table now" and said[9].startswith("the match: "), said
    on(F.TableInfo(names=("Hal", "Jo", "Tex", "Ben (bot)"), me=2, rules_text="official", teams=False))
    assert "hosts the table now" not in said[10], said  # (said once)
    del said[6:]
    on({"t": "match-over", "winner": 2, "teams": False, "scores": [0, 0, 80, 0], "rounds": 2, "ledger": "00"})
    assert said[6] == "match over: you win; Hal 0, Jo 0, you 80, Ben (bot) 0"


def test_the_lobby_line_says_teams_empty_seats_and_what_the_person_waits_for():
    """Seen in the lobby of a --teams table: "at the table: 0 Hal, 1 Jo, 2 Tex (you)" and
    nothing else, while the screens said each seat's team and "Waiting for the host to start"."""
    from unonet import feed as F

    said: list[str] = []
    seats = tuple(F.LobbySeat(seat=i, name=n, team=i % 2) for i, n in enumerate(("Hal", "Jo", "Tex")))
    text_feed(said.append)(F.Lobby(table="Hal's table", code="", seats=seats, me=2, players=4, hosted_by="Hal"))
    assert said == ["at the table: 0 Hal (team A), 1 Jo (team B), 2 Tex (you) (team A); 1 seat empty "
                    "(the host may fill it with bots); waiting for Hal to start the match"]
    # a player who said goodbye is not away: nobody waits for them
    said.clear()
    seats = (F.LobbySeat(seat=0, name="Hal"), F.LobbySeat(seat=1, name="Jo", connected=False, left=True),
             F.LobbySeat(seat=2, name="Tex"), F.LobbySeat(seat=3, name="Lee", connected=False))
    text_feed(said.append)(F.Lobby(table="Hal's table", code="", seats=seats, me=2, players=4, hosted_by="Hal"))
    assert said[0].startswith("at the table: 0 Hal, 1 Jo (left), 2 Tex (you), 3 Lee (away)"), said


def test_the_prompt_is_said_again_after_the_rejoin_news():
    """Seen after killing `join --no-ui` and starting it again on its turn: the prompt came
    first, then "back in seat 2 after 0 rounds; ..." and "reconnected: ..." under it - the
    last lines said nothing about what to type."""
    from unonet import feed as F
    from unonet.engine._cards import Card

    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Jo", "Tex"), me=2, rules_text="official"))
    hand = (Card("B2", 1), Card("Y8", 2))
    on(F.TurnState(turn=2, phase="play", direction=1, color="Y", pending=0, draw_pile=50, discard=3,
                   counts=(5, 3, 2), catchable=None, playable=(2,), hand=hand, top=Card("Y9", 9)))
    ask = said[-2:]
    assert ask[0].startswith("your turn - on top: Y9")
    on({"t": "rejoined", "seat": 2, "rounds": 0, "hand": ["B2", "Y8"]})
    assert said[-3] == "back in seat 2; your hand: B2 Y8" and said[-2:] == ask
    on(F.Notice("reconnected: back in seat 2 in round 1; your hand is back", 2, "reconnected"))
    assert said[-2:] == ask
    on(F.TurnState(turn=0, phase="play", direction=1, color="Y", pending=0, draw_pile=50, discard=4,
                   counts=(5, 3, 1), catchable=None, hand=hand[:1], top=Card("Y8", 2)))
    n = len(said)
    on({"t": "rejoined", "seat": 2, "rounds": 1, "hand": ["B2"]})
    assert said[n:] == ["back in seat 2 after 1 round; your hand: B2"]  # (not our turn: nothing to ask)


def test_after_a_rejoin_on_its_turn_the_prompt_is_said_once_under_the_news():
    """Seen (join --no-ui killed on its turn and started again): "your hand: ...", the prompt,
    "back in seat 1; ...", the prompt, "reconnected: ...", the prompt - three times.  A rejoin's
    replay ends with these values, in this order (`SeatSide._replay_done`)."""
    from unonet import feed as F
    from unonet.engine._cards import Card

    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Jo"), me=1, rules_text="official"))
    hand = (Card("B2", 1), Card("Y8", 2))
    on(F.RoundStarted(1, 0, (0, 0)))
    on(F.Resync(hand, Card("Y9", 9), "Y"))
    on(F.TurnState(turn=1, phase="play", direction=1, color="Y", pending=0, draw_pile=50, discard=3,
                   counts=(5, 2), catchable=None, playable=(2,), hand=hand, top=Card("Y9", 9)))
    on({"t": "rejoined", "seat": 1, "rounds": 0, "hand": ["B2", "Y8"]})
    on(F.Notice("reconnected: back in seat 1 in round 1; your hand is back", 1, "reconnected"))
    turns = [i for i, x in enumerate(said) if x.startswith("your turn - on top: Y9")]
    assert len(turns) == 1, said
    # the hand said once, by the table's resync (play16: the rejoin's line said it again, unsorted)
    assert [x for x in said if "your hand: " in x and not x.startswith("your turn")] == \
        ["your hand: B2 Y8; on top: Y9"] and "back in seat 1" in said, said
    assert said[turns[0] - 1].startswith("reconnected: back in seat 1") and said[-1].startswith("type a card"), said
    # and play goes on: the next turn's prompt is said as it comes
    from unonet.engine._events import Played

    on(Played(1, hand[1], "Y"))
    on(Played(0, Card("Y3", 3), "Y"))
    n = len(said)
    on(F.TurnState(turn=1, phase="play", direction=1, color="Y", pending=0, draw_pile=50, discard=5,
                   counts=(4, 1), catchable=None, playable=(), hand=hand[:1], top=Card("Y3", 3)))
    assert said[n].startswith("your turn - on top: Y3"), said[n - 2:]


def test_a_person_at_a_plain_terminal_reads_the_table_and_plays_by_typing_words():
    host = unonet("host", "--no-ui", "--json", *LOOP, "--players", "3", "--bots", "1", "--target", "60")
    with reaped(host):
        port = first_json(host)["port"]
        person = unonet("join", "--no-ui", "--bind", "127.0.0.1", "--name", "Pat", f"127.0.0.1:{port}",
                        stdin=subprocess.PIPE)
        with reaped(person):
            typed, at, prompt = [], 0, None
            for _ in range(6000):  # bounded: a match to 60 is a few hundred moves
                if person.poll() is not None:
                    break
                text = person.out_path.read_text()
                end = text.rfind("\n") + 1  # (whole lines only: the rest is still being written)
                new, at = text[at:end], max(at, end)
                # as a person reads it: a prompt says what is playable, the line under it what to type
                for line in new.splitlines():
                    # (the cards playable are said where a card is played; not when naming a colour)
                    m = re.match(r"your turn - .*?(?:; playable: (.*))?$", line)
                    if m:
                        prompt = (m.group(1) or "nothing").split()
                        continue
                    if prompt is None:
                        continue
                    playable, ask, prompt = prompt, line, None
                    if ask.startswith("type ") and "play the card you drew" in ask:
                        word = ask[len("type "):ask.index(" to play")]  # (a wild's with its colour)
                    elif ask.startswith("pass to keep"):
                        word = "pass"
                    elif ask.startswith("type a card") and playable != ["nothing"]:
                        word = playable[0] + (" G" if playable[0].startswith("W") else "")
                    elif ask.startswith("name a colour"):
                        word = "color G"
                    else:  # nothing fits, or a wild draw four on us
                        word = "draw"
                    typed.append(word)
                    with contextlib.suppress(BrokenPipeError, OSError, ValueError):
                        person.stdin.write(word + "\n")
                        person.stdin.flush()
                time.sleep(0.02)
            with contextlib.suppress(OSError):
                person.stdin.close()
            code, out, err = finish(person, 60)
    assert code == 0, err[-2000:]
    assert "at the table: 0 " in out and "(you)" in out and "--- round 1: " in out
    assert re.search(r"your turn - on top: \S+ \(colour \w+\); your hand: ", out)
    assert "you played " in out  # a card typed as words was played
    assert "your time ran out" not in out, out  # every prompt said what to type, and it was taken
    assert re.search(r"round \d+: .* wins? \d+ points; scores: ", out)
    # the last match by name (seen: only "seat 0 wins; scores [137, 0, 52, 0]"), said once (words15:
    # the older "unonet join: match over: seat 2 wins; ..." line followed it), and no promise of a
    # next match
    assert "unonet join: match over" not in out, out[-600:]
    ends = [line for line in out.splitlines() if line.startswith("match over: ")]
    assert len(ends) == 1 and re.match(r"match over: (you win|.+ wins); ", ends[0]), ends
    last = out[out.index(ends[0]) - 300:]
    assert "the host starts the next match" not in last
    refused = out.count("not taken:")
    assert refused <= len(typed) // 4, out[-3000:]  # (a prompt answered late can be stale: news, not a fault)


def test_a_refused_move_says_why_in_words_a_person_can_act_on():
    """Seen: a drawn wild typed alone ("W") was answered "play 'W' is not legal now"."""
    from unonet.engine import Play
    from unonet.engine._scenario import load_scenario
    from unonet.net._game import _why_not

    _, rnd, _ = load_scenario({"players": 2, "dealer": 1, "seed": 1, "hands": [["w", "r9", "g1"], ["b1", "b2"]],
                               "deck": ["r5", "g9", "y3"], "actions": []})
    w, g1 = (next(c for c in rnd.hands[0] if c.code == code) for code in ("W", "G1"))
    legal = rnd.legal_actions(0)
    assert _why_not(rnd, 0, Play(0, w, None, False), legal) == "a wild names a colour: W R (one of R Y G B)"
    assert _why_not(rnd, 0, Play(0, g1, None, False), legal) == "illegal play 'G1' on 'R5' (colour in force: R)"
    # play16: "W R" typed on Flip's dark side (colours P T O U) read "illegal play 'W' on 'O3'"
    assert _why_not(rnd, 0, Play(0, w, "P", False), legal) == "P is not a colour on this side: W R (one of R Y G B)"
    assert _why_not(rnd, 1, Play(1, rnd.hands[1][0], None, False), rnd.legal_actions(1)) == \
        "illegal play 'B1': it is not your turn (seat 0 plays)"


def test_the_lost_host_answering_again_is_not_said_to_be_replaced():
    """play13: a person whose own link dropped read "lost the link to the host Hal; trying it
    again, then its successor Jo"; Hal answered ("reconnected to the host") and the next
    match heading it sent would have been preceded by "Jo hosts the table now" - Jo never did."""
    from unonet import feed as F

    said: list[str] = []
    on = text_feed(said.append)
    info = F.TableInfo(names=("Hal", "Jo", "Tex"), me=2, rules_text="official", teams=False)
    on(info)
    on({"t": "election", "me": False, "lost_name": "Hal", "successor_name": "Jo"})
    on({"t": "reconnected"})
    assert said[-1] == "reconnected to the host", said
    on(info)
    assert not any("hosts the table" in line for line in said), said


def test_a_bot_seat_without_json_says_a_few_plain_lines():
    """Seen: `join --bot --no-ui` without --json printed nothing until its very last line."""
    host = unonet("host", "--no-ui", "--json", *LOOP, "--players", "2", "--target", "60")
    with reaped(host):
        port = first_json(host)["port"]
        bot = unonet("join", "--no-ui", "--bot", "--bind", "127.0.0.1", "--name", "Bo", f"127.0.0.1:{port}")
        with reaped(bot):
            code, out, err = finish(bot, 120)
    assert code == 0, err
    said = out.splitlines()
    assert said[0] == f"joined host's table at 127.0.0.1:{port}", said
    assert said[1].startswith("at the table: 0 host, 1 Bo (you)"), said
    assert said[2].startswith("the match: official; ") and said[2].endswith("you are seat 1"), said
    rounds = [x for x in said if re.match(r"round \d+: .* wins? \d+ points; scores: host \d+, you \d+$", x)]
    assert rounds and len(rounds) == len(said) - 4, said  # each round's result, nothing of every move
    # the match's end once, in words (words15: "unonet join: match over: seat 1 wins; scores [...]" followed)
    assert re.match(r"match over: (you win|host wins); host \d+, you \d+$", said[-1]), said
    assert sum(line.startswith(("match over", "unonet join: match over")) for line in said) == 1, said


def test_the_typed_seat_says_a_catchable_partner_is_its_partner():
    """play15: at a teams table "Hal has one card and did not call UNO: catch 3" of the seat's
    own partner, as of anyone; it now says "(your partner)"."""
    from unonet import feed as F

    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Ana", "Jo", "Ben", "Hal"), me=1, rules_text="official; teams", teams=True))
    on(F.TurnState(turn=0, phase="play", direction=1, color="Y", pending=0, draw_pile=50, discard=3,
                   counts=(5, 5, 5, 1), catchable=3, can_catch=3))
    assert "Hal (your partner) has one card and did not call UNO: catch 3" in said, said
    on(F.TurnState(turn=0, phase="play", direction=1, color="Y", pending=0, draw_pile=50, discard=3,
                   counts=(1, 5, 5, 5), catchable=0, can_catch=0))
    assert "Ana has one card and did not call UNO: catch 0" in said, said


def test_a_turn_clock_taking_a_penalty_says_so():
    """play16: at a house table Ana's time ran out under a +2 stack; every screen read "Ana's time
    ran out: the table drew a card for Ana", then "Ana drew 2 cards (penalty)"."""
    from unonet.engine import Play
    from unonet.engine._scenario import load_scenario
    from unonet.net._game import timeout_move

    def after(card, hands, deck, house=(), color=None):
        _, rnd, _ = load_scenario({"players": 2, "dealer": 1, "seed": 1, "hands": hands, "deck": deck,
                                   "rules": {"preset": "official", "house": list(house)}, "actions": []})
        rnd.apply(Play(0, next(c for c in rnd.hands[0] if c.code == card), color, False))
        return rnd

    stack = after("R+2", [["r+2", "r9", "g1"], ["b1", "b2"]], ["r5", "g9", "y3", "y4"], house=["stacking"])
    assert timeout_move({"t": "draw", "seat": 1}, stack) == "took the 2 cards"
    four = after("W+4", [["w+4", "r9", "g1"], ["b1", "b2"]], ["g5", "g9", "y3", "y4", "y5"], color="R")
    assert timeout_move({"t": "draw", "seat": 1}, four) == "accepted the Wild Draw Four"
    plain = after("R9", [["r9", "r8", "g1"], ["b1", "b2"]], ["r5", "g9", "y3", "y4"])
    assert timeout_move({"t": "draw", "seat": 1}, plain) == "drew a card"
    assert timeout_move({"t": "pass", "seat": 1}, plain) == "kept the drawn card"
    # deadly: no drawing - the seat that has nothing that fits is put out (evening18: "the table
    # drew a card for Hal", then "Hal cannot play and is out of the round", no card drawn)
    deadly = after("R9", [["r9", "r8", "g1"], ["b1", "b2"]], ["r5", "g9", "y3", "y4"], house=["deadly"])
    assert timeout_move({"t": "draw", "seat": 1}, deadly) == "played nothing (nothing fit)"


def _seven_played(house=("seven-o",)):
    """A seat-side stand-in whose round (seat 0's own copy) waits for seat 0's swap after its 7,
    at Hal's table of three: Hal (seat 0, the typed seat), Jo, Ana (bot)."""
    from types import SimpleNamespace

    from unonet.engine import Play
    from unonet.engine._scenario import load_scenario
    from unonet.protocol import PlayerEntry

    _, rnd, _ = load_scenario({"players": 3, "dealer": 2, "seed": 1,
                               "hands": [["r7", "r9", "g1"], ["b1", "b2"], ["y1", "y2", "y3"]],
                               "deck": ["r5", "g9", "y3", "y4"],
                               "rules": {"preset": "official", "house": list(house)}, "actions": []})
    rnd.apply(Play(0, next(c for c in rnd.hands[0] if c.code == "R7"), None, False))
    assert rnd.phase.value == "swap" and rnd.turn == 0
    players = tuple(PlayerEntry(seat=i, id=bytes([i]) * 32, name=n) for i, n in enumerate(("Hal", "Jo", "Ana (bot)")))
    side = SimpleNamespace(seat=0, game=SimpleNamespace(view=lambda: rnd), roster=SimpleNamespace(players=players))
    return side, rnd


@pytest.mark.parametrize("typed, target", [("2", 2), ("1", 1), ("Jo", 1), ("jo", 1), ("ana (bot)", 2),
                                           ("swap 1", 1), ("swap Jo", 1), (" 2 ", 2)])
def test_the_swap_after_a_seven_takes_a_bare_seat_or_a_name(typed, target):
    """Seen at Hal's seven-o table (`join --no-ui`, typed): asked "swap hands: swap SEAT - or
    pass to keep yours", Pat typed "0" and read "not taken: an action is a JSON object, not
    '0'", then "Hal" and read "unknown card 'Hal'"; "pass" read "pass is not legal now"."""
    from unonet.engine import Swap

    side, _ = _seven_played()
    assert parse_seat_action(side, typed) == Swap(0, target)


def test_the_swap_prompt_says_whom_and_how():
    from unonet import feed as F

    side, rnd = _seven_played()
    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Jo", "Ana (bot)"), me=0, rules_text="official; house: seven-o",
                   house=("seven-o",)))
    ts = F.TurnState(turn=0, phase="swap", direction=1, color="R", pending=0, draw_pile=4, discard=2,
                     counts=(2, 2, 3), catchable=None, active=(0, 1, 2), hand=tuple(rnd.hands[0]), top=rnd.discard[-1])
    on(ts)
    assert said[-1] == "swap hands with whom? type a seat or a name: 1 Jo (2 cards), 2 Ana (bot) (3 cards)", said
    # the turn's line above it shows the hand, and no "playable: nothing" (no card is played here)
    assert said[-2].startswith("your turn - on top: R7") and "playable" not in said[-2], said
    # pass is offered only where the swap may be declined
    on(F.TableInfo(names=("Hal", "Jo", "Ana (bot)"), me=0, rules_text="official",
                   house=("seven-o", "seven-o-optional")))
    on(ts)
    assert said[-1].endswith("(3 cards) - or pass to keep yours"), said
    # not asked: a bare number is no swap (a card code, a JSON action as before)
    side.seat = 1
    with pytest.raises(ValueError, match="JSON object"):
        parse_seat_action(side, "2")


def test_back_in_the_middle_of_a_match_the_typed_seat_is_not_told_to_wait_for_the_start():
    """Seen (`join --no-ui` killed on its turn and started again, the same key): "at the table:
    0 Hal, 1 Pat (you); waiting for Hal to start the match" above the round in play - the roster
    comes before the rejoin's replay.  The host's `seat` now says the seat is given back in a
    match (`SeatAssignment.rejoin`), and the typed seat says so."""
    import trio

    import unonet.protocol as P
    from unonet.engine import make_rules
    from unonet.net._game import HostGame, run_local_seat

    from .net_helpers import run
    from .session_helpers import config, live_table
    from .test_rejoin_between_rounds import _life

    cfg = config(2, rules=make_rules("official", [], target=3000), target=3000, dealer_only=True,
                 autostart=True, hold_seats=60)
    ident = P.Identity.generate()
    first: list = []
    second: list = []

    async def main():
        async with live_table(cfg, game_factory=HostGame, local_seat=run_local_seat(None)) as table:
            with trio.fail_after(60):
                async with trio.open_nursery() as n:
                    killed = trio.CancelScope()
                    n.start_soon(lambda: _life(table.port, P.Identity.generate(), "Hal", []))
                    await trio.sleep(0.05)
                    n.start_soon(lambda: _life(table.port, ident, "Pat", first, killed=killed, pace=5.0))
                    while not any(isinstance(v, dict) and v.get("t") == "round" for v in first):
                        await trio.sleep(0.005)
                    killed.cancel()  # (its seat held: the round waits for it)
                    n.start_soon(lambda: _life(table.port, ident, "Pat", second, screen=True))
                    while not any(isinstance(v, dict) and v.get("t") == "rejoined" for v in second):
                        await trio.sleep(0.005)
                    n.cancel_scope.cancel()

    run(main)
    said: list[str] = []
    on = text_feed(said.append)
    for value in second:
        on(value)
    lobby = [line for line in said if line.startswith("at the table: ")]
    assert lobby and lobby[0].endswith("; you are back in the match (the table as it stands follows)"), said
    assert not any("to start the match" in line for line in said), said
    assert any(line.startswith("reconnected: back in seat ") for line in said), said
    # the first life, dealt into a match from the lobby, waited for its start as before
    words: list[str] = []
    on = text_feed(words.append)
    for value in first:
        on(value)
    assert any(line.endswith("to start the match") for line in words), words


def test_a_seat_the_table_played_out_when_its_clock_ran_out_is_said_so():
    """At Hal's deadly table (a 0.3 s turn clock) Pat's typed seat never typed: each time its
    clock ran out the table played its playable card for it (under deadly no draw is legal
    then).  A round its seat went out of that way read "round 1: you win" and "You go out", as
    if Pat had played the card (a stand-in's round was marked so, words15; a clock's was not)."""
    import dataclasses
    from types import SimpleNamespace

    from unonet import feed as F
    from unonet.engine._cards import Card
    from unonet.net._game import SeatGame
    from unonet.tui.screen import result_lines
    from unonet.tui.session import SessionView

    def seen(moved_by, standing_in=()):
        return SimpleNamespace(moved_by=moved_by, standing_in=set(standing_in), side=SimpleNamespace(roster=None))

    scored = F.RoundScored(number=1, winner=1, points=88, hand_points=(3, 0), hands=((Card("G3", 1),), ()),
                           scores=(0, 88), team_scores=None, match_over=False, match_winner=None)
    marked = SeatGame._stood_in(seen({0: "seat", 1: "turn timeout"}), scored)
    assert marked.by_clock and not marked.stand_in
    # its own last card, or the last one left in (deadly: its hand not empty), or an away seat's
    # (a bot stands in: the stand-in's words): no clock's mark
    assert SeatGame._stood_in(seen({1: "seat"}), scored) == scored
    last_in = dataclasses.replace(scored, hands=((), (Card("G3", 1),)))
    assert SeatGame._stood_in(seen({1: "turn timeout"}), last_in) == last_in
    assert not SeatGame._stood_in(seen({1: "turn timeout"}, standing_in=(1,)), scored).by_clock
    # the words: the typed seat's, and the full screen's result
    said: list[str] = []
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Pat"), me=1, rules_text="deadly"))
    on(marked)
    assert said[-1].startswith("round 1: your seat wins (the table played it: your time ran out) 88 points"), said
    v = SessionView()
    v.apply(F.TableInfo(names=("Hal", "Pat"), me=1, rules_text="deadly"))
    v.apply(marked)
    head = result_lines(v, width=120)[0][1]
    assert "Your seat goes out (the table played it: your time ran out); you score 88" in head, head
    assert "You go out" not in head, head
    # Hal's screen says it of Pat's seat
    said.clear()
    on = text_feed(said.append)
    on(F.TableInfo(names=("Hal", "Pat"), me=0, rules_text="deadly"))
    on(marked)
    assert said[-1].startswith("round 1: Pat's seat wins (the table played it: Pat's time ran out) 88"), said
