"""The view model alone: fed the table's messages as seat 0 sees them."""

from __future__ import annotations

from unonet.engine import Draw, Play, make_rules
from unonet.engine import _events as ev
from unonet.engine._cards import UNKNOWN
from unonet.tui import feed
from unonet.tui.local import LocalTable, run_bots_sync, seat_names
from unonet.tui.view import TableView

from .helpers import codes, stacked_table, started


def test_seat_zero_sees_its_hand_and_only_counts_of_others():
    table = LocalTable(make_rules(), seat_names("Zoe", 4), seed=7)
    seen = []
    table.subscribe(seen.extend)
    view = TableView()
    table.subscribe(view.apply_all)
    table.start()
    run_bots_sync(table)
    assert view.names == ["Zoe", "Ana", "Ben", "Cleo"]
    assert sorted(c.id for c in view.hand) == sorted(c.id for c in table.rnd.hands[0])
    assert view.counts == [len(h) for h in table.rnd.hands]
    assert view.top is table.rnd.top and view.color == table.rnd.color
    assert view.turn == 0 and view.my_turn
    assert view.playable == {c.id for c in table.rnd.playable(0)}
    # nothing private about other seats reached the client
    for m in seen:
        if isinstance(m, (ev.Dealt, ev.Drew, ev.NewHand)) and m.seat != 0:
            assert all(c is UNKNOWN for c in m.cards)
    assert view.draw_pile == len(table.rnd.draw_pile)
    assert view.log[0].startswith("--- round 1:")


def test_hand_follows_plays_and_draws():
    table = stacked_table([["R1", "R2", "G5"], ["B2", "B3", "B4"]],
                          ["R9", "Y7", "Y8", "Y9"])
    view, _ = started(table)
    assert codes(view) == ["R1", "R2", "G5"]
    table.submit(Play(0, view.hand[0]))
    run_bots_sync(table)
    # Ana (seat 1) held no red: she drew Y7, could not play it
    assert codes(view) == ["R2", "G5"]
    assert view.counts[1] == 4
    assert "Ana drew 1 card" in view.log
    assert "you played R1" in view.log
    table.submit(Draw(0))
    assert "Y8" in codes(view) and view.new_ids == {c.id for c in view.hand if c.code == "Y8"}
    assert "you drew Y8" in view.log


def test_prompts_say_what_to_do():
    table = stacked_table([["R1", "G5"], ["B2", "B3", "B4"]], ["R9", "Y7", "R8"])
    view, _ = started(table)
    assert view.prompt().startswith("Your turn: play a card")
    assert "U: UNO!" in view.prompt()
    table.submit(Play(0, next(c for c in view.hand if c.code == "R1"), uno=True))
    run_bots_sync(table)
    # Ana drew Y7 and kept it; our G5 does not fit R1
    assert view.prompt() == "Your turn: nothing fits - D to draw."
    table.submit(Draw(0))
    assert view.phase == "drawn" and view.drawn.code == "R8"
    assert view.prompt() == "You drew R8: Enter to play it, K to keep it."


def test_round_result_and_standings_feed():
    table = stacked_table([["R1"], ["B1", "W", "Y+2"]], ["R9", "Y7"], rules=make_rules(target=60))
    view, _ = started(table)
    table.submit(Play(0, view.hand[0]))
    r = view.result
    assert r is not None and r.winner == 0 and r.points == 1 + 50 + 20
    assert r.hand_points == (0, 71)
    assert r.scores == (71, 0) and view.scores == [71, 0]
    assert r.match_over and r.match_winner == 0
    assert view.prompt().startswith("Match over: you win")
    assert view.turn is None and not view.my_turn


def test_refusal_reaches_the_view_as_a_notice():
    table = stacked_table([["R1", "G5"], ["B2", "B3", "B4"]], ["R9", "Y7", "G8"])
    view, _ = started(table)
    g5 = next(c for c in view.hand if c.code == "G5")
    assert table.submit(Play(0, g5)) is not None
    assert view.notice and "G5" in view.notice and "R9" in view.notice
    assert codes(view) == ["R1", "G5"]


def test_view_applies_a_hand_written_feed():
    """The view needs no engine objects beyond the events: a network feed will do the same."""
    from unonet.engine import Card

    v = TableView(me=1)
    v.apply(feed.TableInfo(("Ana", "Me", "Ben", "Cleo"), 1, "official; teams", teams=True, target=200))
    v.apply(feed.RoundStarted(3, 0, (10, 20, 30, 40)))
    v.apply(ev.Dealt(1, [Card("R1", 1), Card("W", 100)], 1))
    for s in (0, 2, 3):
        v.apply(ev.Dealt(s, [UNKNOWN] * 2))
    v.apply(ev.FirstDiscard(Card("R5", 30)))
    v.apply(ev.Played(0, Card("R7", 40), "R"))
    v.apply(feed.TurnState(turn=1, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                           discard=2, counts=(1, 2, 2, 2), catchable=0, playable=(1, 100), can_catch=0))
    assert v.my_turn and v.counts == [1, 2, 2, 2]
    assert v.team_of(1) == 1 and v.team_scores() == [40, 60]
    assert "X: catch Ana" in v.prompt()
    assert v.log[-1] == "Ana played R7"


def test_variant_events_alone_drive_the_view():
    """Races, flips and knock-outs are followed from the engine's events, before any TurnState."""
    from unonet.engine import CardPool

    pool = CardPool("flip")
    view = TableView()
    view.apply(feed.TableInfo(("Zoe", "Ana", "Ben"), 0, "flip", deck="flip"))
    view.apply(feed.RoundStarted(1, 2, (0, 0, 0)))
    mine = [pool.take("RF/P2"), pool.take("G5/UF")]
    view.apply(ev.Dealt(0, mine, 0))
    six = pool.take("R6")
    view.apply(ev.FirstDiscard(pool.take("R1/P6")))
    view.apply(ev.Played(1, six, "R"))
    view.apply(ev.RaceStarted(1, six, [0, 2]))
    assert view.race == (0, 2) and view.racing and view.race_card is six
    assert view.log[-1] == "Ana played R6: race! everyone else must slap it; the last draws 2"  # one line, not two
    assert view.prompt().startswith("RACE! Ana played R6: press SPACE")
    view.apply(ev.Responded(2))
    view.apply(ev.RaceLost(0))
    assert view.race == () and not view.racing and "you were too slow and draw 2" in view.log
    top = pool.take("Y1/P2")
    view.apply(ev.Flipped(1, 1, top.other))
    assert view.side == 1 and view.colors == ("P", "T", "O", "U")
    assert codes(view) == ["P2", "UF"] and view.top.code == "P2" and view.color == "P"
    view.apply(ev.KnockedOut(2))
    assert view.knocked_out == [2] and 2 not in view.active and not view.out
    view.apply(ev.KnockedOut(0))
    assert view.out and view.prompt().startswith("You are out of this round")


def test_the_title_bar_says_who_else_is_at_the_table():
    """Local play: every other seat is a bot.  Over the LAN the feed says which seats bots
    play, and the title bar counts people and bots apart."""
    from unonet.tui.screen import header_text

    def title(**kw) -> str:
        view = TableView()
        view.apply(feed.TableInfo(("Hal", "Jo", "Bot"), 0, "official", **kw))
        return "".join(text for _, text in header_text(view))

    assert "you + 2 bots" in title()
    assert "you + 1 player + 1 bot" in title(bots=(False, False, True))
    assert "you + 2 players" in title(bots=(False, False, False))


def test_a_rejoin_between_rounds_does_not_call_the_deal_how_the_round_ended():
    """play8: a joiner killed at the round's result and started again saw "How it ended:
    --- round 1: Cy deals ---." - the resync's round header was taken for the round's last
    lines.  A client back from a crash saw none of the round: the result says no ending."""
    from unonet.engine import Card
    from unonet.tui.screen import result_lines

    v = TableView(me=1)
    v.apply(feed.TableInfo(("Hal", "Bob", "Ann", "Cy"), 1, "official; teams", teams=True))
    v.apply(feed.RoundStarted(1, 3, (0, 0, 0, 0)))
    v.apply(feed.Resync((Card("GR", 1), Card("B7", 2)), Card("G5", 3), "G"))
    v.apply(feed.RoundScored(1, 0, 59, (0, 27, 47, 32), ((), (), (), ()), (59, 0, 0, 0), (59, 0), False, None))
    assert v.ending == ()
    text = "\n".join(line for _, line in result_lines(v))
    assert "How it ended" not in text and "deals" not in text


def test_a_partner_left_without_uno_is_offered_as_our_partner():
    """play15: at a teams table the prompt offered "X: catch Hal (no UNO!)" of the player's own
    partner as of anyone (legal, docs/rules.md, but it costs our own team): it says so."""
    from unonet.engine import Card

    v = TableView(me=1)
    v.apply(feed.TableInfo(("Ana", "Me", "Ben", "Hal"), 1, "official; teams", teams=True))
    v.apply(feed.RoundStarted(1, 0, (0, 0, 0, 0)))
    v.apply(ev.FirstDiscard(Card("R5", 30)))
    v.apply(feed.TurnState(turn=0, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                           discard=1, counts=(5, 5, 5, 1), catchable=3, can_catch=3))
    assert "X: catch Hal, your partner (no UNO!)" in v.prompt(), v.prompt()
    v.apply(feed.TurnState(turn=0, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                           discard=1, counts=(1, 5, 5, 5), catchable=0, can_catch=0))
    assert "X: catch Ana (no UNO!)" in v.prompt(), v.prompt()  # (an opponent: as before)


def test_a_jump_in_hint_for_a_card_the_shown_hand_lacks_is_left_out_not_a_crash():
    """play16: the "J: jump in" hint looked its card up in the hand shown with `next()`; a hand
    behind the seat's (then, a swapped one) raised StopIteration and the screen died."""
    from unonet.engine import Card

    v = TableView(me=1)
    v.apply(feed.TableInfo(("Ana", "Me", "Ben"), 1, "house"))
    v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    v.apply(ev.FirstDiscard(Card("R5", 30)))
    v.apply(feed.TurnState(turn=0, phase="play", direction=1, color="R", pending=0, draw_pile=50,
                           discard=1, counts=(5, 1, 5), catchable=None, jump_in=(77,),
                           hand=(Card("G2", 12),)))
    assert v.prompt().startswith("Ana's turn."), v.prompt()
    assert "J: jump in" not in v.prompt()


def test_a_rejoin_at_a_deadly_table_knows_its_seat_was_knocked_out_not_eliminated():
    """evening18: Dev, knocked out of a deadly round, killed and started again, read "You are out
    of the match (elimination). Watching the others." and his seat "out", not "OUT": the rejoin's
    resync does not replay the knock-outs (`KnockedOut`), only the seats still in the round."""
    from unonet.engine import Card
    from unonet.tui.screen import seats_text

    v = TableView(me=3)
    v.apply(feed.TableInfo(("Hal", "Ana", "Ben", "Dev", "Cleo"), 3, "deadly; deck classic; target 150; house: deadly",
                           house=("deadly",), preset="deadly", target=150))
    v.apply(feed.RoundStarted(2, 2, (0, 0, 0, 85, 0)))
    v.apply(feed.Resync((Card("Y4", 1), Card("B8", 2)), Card("R3", 3), "R"))
    v.apply(feed.TurnState(turn=2, phase="play", direction=-1, color="R", pending=0, draw_pile=72, discard=19,
                           counts=(3, 4, 4, 2, 1), catchable=None, can_catch=None, active=(2, 4)))
    assert v.out and "You are out of this round (deadly" in v.prompt(), v.prompt()
    assert sorted(v.knocked_out) == [0, 1, 3]
    rows = "".join(text for _, text in seats_text(v))
    assert "Dev" in rows and rows.count(" OUT") == 3 and " out" not in rows, rows
    # at an elimination table a seat not in the round is out of the match, as before
    e = TableView(me=3)
    e.apply(feed.TableInfo(("Hal", "Ana", "Ben", "Dev"), 3, "official; elimination scoring", scoring="elimination"))
    e.apply(feed.RoundStarted(2, 2, (0, 0, 0, 85)))
    e.apply(feed.Resync((Card("Y4", 1), Card("B8", 2)), Card("R3", 3), "R"))
    e.apply(feed.TurnState(turn=2, phase="play", direction=1, color="R", pending=0, draw_pile=72, discard=19,
                           counts=(3, 4, 4, 2), catchable=None, can_catch=None, active=(0, 1, 2)))
    assert "You are out of the match (elimination)" in e.prompt(), e.prompt()
