"""The LAN rig's tmux evening (words12): small defects of the full-screen screens' words,
each at the view-model level (`SessionView`, `SessionController`, `ScoreView`)."""

from __future__ import annotations

from unonet import feed
from unonet.tui.remote import RemoteTable
from unonet.tui.session import SessionController, SessionView

LOBBY = feed.Lobby(
    table="Pat's table", code="7KQ2-M9XD-4T",
    seats=(feed.LobbySeat(0, "Pat", "3JX8-Q2PA"), feed.LobbySeat(1, "Hal", "HH4K-77ZD"),
           feed.LobbySeat(2, "Kim", "QQ7A-1B2C")),
    me=2, host=False, can_start=False, players=3, rules="official")


def playing(me=2):
    v = SessionView()
    v.apply(LOBBY)
    v.apply(feed.TableInfo(("Pat", "Hal", "Kim"), me, "official rules"))
    v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    return v


def test_the_election_is_said_once_in_the_status_area():
    """eve12: Kim's status area read the election sentence on its status line and again on
    the notice line under it while she waited for the new host."""
    v = playing()
    ctl = SessionController(v, RemoteTable())
    v.apply(feed.Election("Pat", "Hal", term=1))
    area = ctl.status() + "\n" + ctl.feedback()
    sentence = v.election.text
    assert area.lower().count(sentence.lower()) == 1, area


def test_a_rejoin_in_round_1_says_in_round_1():
    """eve12: mid-round 1, "reconnected: back in seat 2 before the first round ended" read
    oddly on the screen: no round is done yet, so the player is back in round 1."""
    import unonet.protocol as P
    from unonet.net._seat import SeatSide

    players = tuple(P.PlayerEntry(seat=i, id=bytes([i + 1]) * 32, name=n) for i, n in enumerate(("Pat", "Hal", "Kim")))
    me = P.Identity.generate()
    side = SeatSide(name="Kim", identity=me, host_public=me.fair_identity().public)
    side.seat, side.screen = 2, True
    side.receive(P.Roster(table=b"t" * 16, epoch=1, host=b"h" * 32, players=players, rules="official"))
    side.receive(P.Rejoin(table=b"t" * 16, seat=2, round=0, at=0))
    v = playing()
    for value in side.take_feed():
        if isinstance(value, feed.Notice):
            v.apply(value)
    assert "* reconnected: back in seat 2 in round 1; your hand is back" in v.log, v.log
    assert not any("before the first round ended" in line for line in v.log), v.log


def test_the_next_match_line_shows_no_count_of_this_process_as_the_tables():
    """eve12: "— match N at Hal's table —" counted the matches this process had seen: after
    restarts Hal read "match 16" and Pat "match 17" of the same match.  The line names no number."""
    import re

    v = playing()
    for _ in range(2):
        v.apply(feed.MatchOver(0, (512, 40, 0), 6, "cd" * 32))
        v.apply(LOBBY)                       # offered; the player stays on the standings
        v.apply(feed.TableInfo(("Pat", "Hal", "Kim"), 2, "official rules"))
        v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    lines = [x for x in v.log if x.startswith("\u2014")]
    assert lines == ["\u2014 next match at Pat's table \u2014"] * 2, v.log
    assert not [x for x in v.log if re.search(r"match \d", x)], v.log


def test_the_scorekeepers_match_number_is_labelled_as_its_stores():
    """eve12: the scorekeeper's "match #19" beside the players' counts read as the table's
    number; it is the store's row for the match, and the line says so."""
    from unonet.store._board import Board, SideLine
    from unonet.tui.score_view import ScoreView

    view = ScoreView("/tmp/scores.db")
    view.apply(LOBBY)
    view.apply(feed.RoundStarted(4, 0, (0, 0, 0)))
    sides = tuple(SideLine(n, 0, 500, False, i == 0, False) for i, n in enumerate(("Pat", "Hal", "Kim")))
    view.recorded(Board("match #19 0e58abcd  official, to 500  3 rounds", sides, (), None, "ab" * 32), 3)
    assert view.lines(80)[1] == "recorded as match #19 0e58abcd  official, to 500  3 rounds", view.lines(80)


def test_the_scorekeepers_80x24_screen_keeps_its_essentials_and_the_latest_news():
    """eve12: at 80x24 news piled up under a host change and pushed "ledger head" and
    "recording into" off the bottom.  Given the height, the screen keeps the scores, the
    ledger head and where it records, and shows the latest news that fit (saying how many
    older ones it left out)."""
    from unonet.store._board import Board, SideLine
    from unonet.tui.score_view import ScoreView

    seats = tuple(feed.LobbySeat(i, n, "", connected=i != 0) for i, n in enumerate(("Pat", "Hal", "Kim", "Ann")))
    view = ScoreView("/home/scores/evening-of-the-lan-rig.db")
    view.apply(feed.Lobby("Pat's table", "CODE", seats, me=None, players=4, rules="official, to 500",
                          hosted_by="Pat"))
    view.apply(feed.RoundStarted(6, 1, (0, 0, 0, 0)))
    sides = tuple(SideLine(n, 40 * i, 500 - 40 * i, False, i == 3, False)
                  for i, n in enumerate(("Pat", "Hal", "Kim", "Ann")))
    view.recorded(Board("match #19 0e58abcd  official, to 500  5 rounds", sides,
                        tuple(f"round {r}: Ann went out, {r * 10} points" for r in range(1, 6)), None, "ab" * 32), 5)
    view.apply(feed.Election("Pat", "Hal", term=1))
    view.apply(feed.Resumed("Hal", 5, "cd" * 32, 1))
    news = [f"news item {i}: a bot plays Pat's seat while they are away; `unonet join` takes it back"
            for i in range(1, 6)]
    for n in news:
        view.apply(feed.Notice(n, 0, "stand-in"))
    assert len(view.lines(80)) > 23                      # (without a height: the whole of it)
    shown = view.lines(80, 23)                           # 24 rows, the status line under it
    assert len(shown) <= 23, shown
    assert shown[-2:] == [f"ledger head {'ab' * 32}", "recording into /home/scores/evening-of-the-lan-rig.db"], shown
    assert any(line.startswith("  > 3  Ann") for line in shown), shown          # the scores
    text = "\n".join(shown)
    assert "news item 5:" in text and "news item 1:" not in text, text          # the latest news
    kept = sum(f"news item {i}:" in text for i in range(1, 6))
    assert f"({5 - kept} older news left out)" in text, text


def test_a_lost_link_says_what_is_known_and_the_new_host_only_once_it_deals():
    """eve12: Kim, whose own link had dropped, read "*** host Pat is gone; Hal takes over ***"
    as a fact before any election had worked, then "the link to the host dropped for a
    moment".  Until the successor deals, the screen says what is known; "Hal hosts the table
    now" only once Hal deals; the lost host answering again claims no new host at all."""
    lost = feed.Election("Pat", "Hal", term=1)
    # the lost host answers again (`play_through_elections`' reconnected line)
    v = playing()
    v.apply(lost)
    said = v.log[-1]
    assert said == "*** lost the link to the host Pat; trying it again, then its successor Hal ***", v.log
    assert "takes over" not in said and "hosts the table" not in v.prompt(), v.prompt()
    v.apply(feed.Notice("the link to the host dropped for a moment: back in our seat", kind="link-back"))
    v.apply(feed.TableInfo(("Pat", "Hal", "Kim"), 2, "official rules"))
    v.apply(feed.RoundStarted(1, 0, (0, 0, 0)))
    assert v.election is None and not [x for x in v.log if "takes over" in x or "hosts the table" in x], v.log
    # the successor takes the table and deals the round again
    v = playing()
    v.apply(lost)
    assert not [x for x in v.log if "hosts the table" in x]
    v.apply(feed.TableInfo(("Pat", "Hal", "Kim"), 2, "official rules"))
    v.apply(feed.RoundStarted(1, 1, (0, 0, 0)))
    assert [x for x in v.log if "hosts the table" in x] == ["*** Hal hosts the table now ***"], v.log
    assert v.election is None


def test_the_lobby_says_a_goodbye_apart_from_a_lost_link():
    """A player who quit (their `leave`, the roster's `left`) was shown as "gone: waiting for a
    rejoin", as one whose link dropped: nobody waits for them, a bot plays their seat."""
    from unonet.tui.session import lobby_lines

    seats = (feed.LobbySeat(0, "Pat", "3JX8-Q2PA"), feed.LobbySeat(1, "Hal", "HH4K-77ZD", connected=False, left=True),
             feed.LobbySeat(2, "Kim", "QQ7A-1B2C"), feed.LobbySeat(3, "Lee", "LL4K-77ZD", connected=False))
    v = SessionView()
    v.apply(feed.Lobby(table="Pat's table", code="7KQ2-M9XD-4T", seats=seats, me=2, host=False, can_start=False,
                       players=4, rules="official"))
    rows = {line.split()[1]: line for _, line in lobby_lines(v, 100) if line.strip()[:1].isdigit()}
    assert rows["Hal"].endswith("left: a bot plays the seat") and "rejoin" not in rows["Hal"], rows
    assert rows["Lee"].endswith("gone: waiting for a rejoin"), rows
