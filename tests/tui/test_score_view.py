"""The scorekeeper's screen as a view model (`unonet.tui.score_view.ScoreView`): fed the
observer's feed values and the store's board of real recorded bot matches, it says what a
scorekeeper looks for - the table and its seats before any round ends, the round in play,
the scores toward the target and who leads, and a change of host with where the record
goes on."""

from __future__ import annotations

import re

from unonet import feed as F
from unonet.store import ScoreStore, board
from unonet.tui.score_view import ScoreView

from ..store.helpers import NAMES, played, record


def _lobby(names=NAMES, *, teams=False, players=None, host="Ana", bots=(), away=()):
    seats = tuple(F.LobbySeat(seat=i, name=n, bot=i in bots, connected=i not in away, team=i % 2 if teams else None)
                  for i, n in enumerate(names))
    return F.Lobby(table="lan-night", code="ABCD-EFGH-JK", seats=seats, me=None, players=players or len(names),
                   rules="official" + (" (teams)" if teams else "") + ", to 500", hosted_by=host)


def _text(view: ScoreView, width: int = 100) -> str:
    lines = view.lines(width)
    assert all(len(line) <= width for line in lines), lines
    return "\n".join(lines)


def test_before_any_round_ends_the_screen_names_the_table_its_host_and_every_seat():
    view = ScoreView("/tmp/s.db")
    assert "attaching" in _text(view)
    assert view.apply(_lobby(NAMES[:2], players=4))
    text = _text(view)
    assert text.splitlines()[0] == "table lan-night, hosted by Ana  (official, to 500)"
    assert "gathering players (2 of 4 seats taken)" in text and "waiting for the first deal" in text
    assert re.search(r"^ +0 +Ana$", text, re.M) and re.search(r"^ +1 +Ben$", text, re.M), text
    assert not view.apply(_lobby(NAMES[:2], players=4))  # the same roster again: nothing to redraw
    # every seat taken: no longer gathering (evening19: 3 of 3 taken read "gathering players")
    assert view.apply(_lobby(NAMES, players=4))
    text = _text(view)
    assert "gathering" not in text, text
    assert "no match yet: every seat is taken (4 of 4); the host starts the match" in text, text
    assert "waiting for the first deal" in text, text
    view.apply(_lobby(teams=True, bots=(3,)))
    view.apply(F.RoundStarted(1, 1, (0, 0, 0, 0)))
    text = _text(view)
    assert "round 1 in play, Ben deals" in text
    assert re.search(r"^ +2 +Cleo +team A$", text, re.M) and re.search(r"^ +3 +Dev \(bot\) +team B$", text, re.M)


def test_the_match_scores_toward_the_target_and_who_leads(tmp_path):
    pm = played("standard", 41)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=0)
        view = ScoreView()
        view.apply(_lobby())
        view.apply(F.RoundStarted(1, 0, (0, 0, 0, 0)))
        view.recorded(board(store), None)
        text = _text(view)
        assert text.splitlines()[1].startswith("recorded as match #1 ") and "nobody has scored yet" in text
        assert ">" not in text  # nobody leads at 0
        assert re.search(r"^ +1 +Ben +0 +500 to go$", text, re.M), text
        record_more = pm.entries[:3]
        for e in record_more:
            store.record_round(e)
        view.apply(F.RoundStarted(4, 3, tuple(record_more[-1].scores)))
        view.recorded(board(store), 3)
        text = _text(view)
    scores = record_more[-1].scores
    lead = max(range(4), key=lambda i: (scores[i], -i))
    second = sorted(scores)[-2]
    for seat, name in enumerate(NAMES):
        mark = ">" if seat == lead else " "
        assert re.search(rf"^  {mark} {seat}  {name} +{scores[seat]}  {500 - scores[seat]} to go$", text, re.M), text
    assert f"{NAMES[lead]} leads with {scores[lead]}, {scores[lead] - second} ahead; {500 - scores[lead]} to go" \
        in text or scores[lead] == second
    assert "round 4 in play, Dev deals" in text and "match #1" in text and "3 rounds" in text
    assert f"ledger head {record_more[-1].hash.hex()}" in text


def test_a_partners_table_shows_the_team_totals_and_the_winner(tmp_path):
    pm = played("teams", 42)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm)
        view = ScoreView()
        view.apply(_lobby(teams=True))
        view.recorded(board(store), pm.entries[-1].round)
        view.apply(F.MatchOver(pm.winner, tuple(pm.entries[-1].team_scores), len(pm.entries), "", True, NAMES))
        text = _text(view)
    ts = pm.entries[-1].team_scores
    title, match = text.splitlines()[:2]
    assert "teams" not in title and ", teams, to 500" in match, text  # the rules said once
    assert re.search(rf"^  > team {'AB'[pm.winner]} \(.*\) +{ts[pm.winner]}  match won$", text, re.M), text
    assert re.search(rf"^    team {'AB'[1 - pm.winner]} \(.*\) +{ts[1 - pm.winner]}  {500 - ts[1 - pm.winner]} to go$",
                     text, re.M), text
    assert "wins the match" in text and "the match is over" in text and "leads" not in text


def test_a_host_change_says_who_hosts_now_and_where_the_record_goes_on():
    view = ScoreView()
    view.apply(_lobby())
    view.apply(F.RoundStarted(3, 2, (0, 10, 0, 0)))
    assert view.apply(F.Election("Ana", "Ben", term=1, address="127.0.0.1:40001"))
    text = _text(view)
    # (not "Ana is gone; Ben takes the table over" while nobody has: the scorekeeper's own link
    # may be what dropped, and Ben has not confirmed)
    assert "HOST LOST: the link to Ana is down; following its successor Ben (election 1)" in text
    assert "HOST CHANGED" not in text and "hosted by Ben" not in text.splitlines()[0], text
    assert "round 3 in play" not in text and "waiting for the new host to confirm" in text
    head = "ab" * 32
    assert view.apply(F.Resumed("Ben", 2, head, term=1))
    text = _text(view)
    assert "HOST CHANGED: Ben took the table over from Ana (election 1)" in text and "HOST LOST" not in text
    assert "hosted by Ben" in text.splitlines()[0]
    assert f"Ben hosts now; the record continues after round 2,\n  on ledger head {head[:16]}…, the same as ours" \
        in text
    assert "waiting for the new host" not in text
    view.apply(F.Notice("Ana is away (left or lost the link): their seat is kept for them", 0, "dropped"))
    assert "news: Ana is away" in _text(view)


def test_at_60_columns_the_host_change_and_the_news_wrap_and_lose_no_word():
    """eve12: the scorekeeper's 60x20 screen read "HOST CHANGED: Hal is gone; Pat takes the
    table over (electio" and its news lines were cut at the edge as well."""
    view = ScoreView()
    view.apply(_lobby(("Hal", "Pat", "Kim", "Ana (bot)"), teams=True, host="Hal", bots=(3,)))
    view.apply(F.RoundStarted(2, 2, (72, 0, 0, 0)))
    view.apply(F.Election("Hal", "Pat", term=1))
    view.apply(F.Resumed("Pat", 1, "de" * 32, term=1))
    news = "Pat left: a bot plays their seat; `unonet join` takes it back"
    view.apply(F.Notice(news, 1, "left"))
    text = _text(view, 60)
    words = " ".join(text.split())
    assert "HOST CHANGED: Pat took the table over from Hal (election 1)" in words, text
    assert f"news: {news}" in words, text
    assert "Pat hosts now; the record continues after round 1, on ledger head dededededededede…" in words, text
    assert re.search(r"^HOST CHANGED: .*\n  \S", text, re.M), text  # the rest indented under it


def test_a_host_gone_with_nobody_to_take_over():
    view = ScoreView()
    view.apply(_lobby())
    view.apply(F.Election("Ana", None))
    text = _text(view, 60)
    assert "HOST GONE: Ana is gone and nobody can take the table over" in text
    assert "the record stops at the last round recorded" in text


def test_the_next_match_does_not_show_the_last_ones_host_change_and_news():
    """The play-test's scorekeeper, in the first round of the next match at the elected host,
    still read "the record continues after round 5" (of the match before) and "news: a bot
    plays Hal's seat while they are away" with Hal seated and playing.  Both were about the
    match that ended: its first deal of the next match clears them."""
    view = ScoreView()
    view.apply(_lobby())
    view.apply(F.RoundStarted(6, 1, (0, 0, 0, 0)))
    view.apply(F.Election("Ana", "Ben", term=1))
    view.apply(F.Resumed("Ben", 5, "ab" * 32, term=1))
    view.apply(F.Notice("Ana is away (left or lost the link): their seat is kept for them", 0, "dropped"))
    view.apply(F.RoundStarted(6, 2, (0, 0, 0, 0)))  # the void round dealt again: still this match's story
    assert "the record continues after round 5" in _text(view) and "news: Ana is away" in _text(view)
    view.apply(F.MatchOver(1, (0, 500), 9, "cd" * 32))
    view.apply(F.Notice("a bot plays Ana's seat while they are away", 0, "stand-in"))
    assert "HOST CHANGED" in _text(view)  # the finished match's screen keeps its story
    view.apply(_lobby(host="Ben"))
    view.apply(F.RoundStarted(1, 3, (0, 0, 0, 0)))
    text = _text(view)
    assert "HOST CHANGED" not in text and "record continues" not in text and "news:" not in text, text
    assert "round 1 in play" in text and "hosted by Ben" in text.splitlines()[0]


def test_the_finished_match_keeps_its_seats_while_the_next_one_gathers():
    """The play7 evening's scorekeeper: Ann quit mid-match (a bot played her seat); at its end
    the next match's roster freed her seat and the finished match's board lost her row (its
    standings read Hal 0, Pat 234 - "match won", no Ann), with "news: a bot plays ..." of the
    next match under it.  The board keeps its seats until the next deal."""
    view = ScoreView()
    view.apply(_lobby(NAMES[:3]))
    view.apply(F.RoundStarted(1, 0, (0, 0, 0)))
    view.apply(F.MatchOver(1, (0, 234, 0), 1, "cd" * 32))
    view.apply(F.Notice("a bot plays Ana's seat while they are away", 0, "stand-in"))
    view.apply(_lobby(NAMES[:2], players=3))      # the next match: Cleo's seat is free again
    text = _text(view)
    assert re.search(r"^ +2 +Cleo", text, re.M) and "the match is over" in text, text
    assert "a bot plays" not in text, text
    view.apply(F.RoundStarted(1, 1, (0, 0, 0)))   # the next match's first deal: its own seats
    text = _text(view)
    assert not re.search(r"^ +2 +Cleo", text, re.M) and "round 1 in play" in text, text


def test_the_lobby_news_ends_with_the_first_deal():
    """The play7 scorekeeper read "news: Ann left the table" all match: Ann had left the lobby
    and come back before the deal, and played every round."""
    view = ScoreView()
    view.apply(_lobby(NAMES[:3]))
    view.apply(F.Notice("Cleo left the table", 2, "left"))
    assert "news: Cleo left the table" in _text(view)     # (news while the table gathers)
    view.apply(_lobby(NAMES[:3]))
    view.apply(F.RoundStarted(1, 0, (0, 0, 0)))
    assert "news:" not in _text(view), _text(view)
    view.apply(F.Notice("Cleo is away (left or lost the link): their seat is kept for them", 2, "dropped"))
    view.apply(F.Election("Ana", "Ben", term=1))
    view.apply(F.RoundStarted(1, 1, (0, 0, 0)))          # round 1 dealt again by the new host
    assert "news: Cleo is away" in _text(view)           # the match's own news stays


def test_a_challenge_the_table_decided_is_play_not_news_of_players():
    """The play7 scorekeeper at 100 columns: "news: Hal is away, so the challenge went
    unanswered: the wild draw counts as guilty (the hand was no" twice, cut at the edge - the
    players' log line about a move, like the table's other default moves (kind "timeout")."""
    view = ScoreView()
    view.apply(_lobby(NAMES[:3]))
    view.apply(F.RoundStarted(1, 0, (0, 0, 0)))
    for kind in ("challenge-timeout", "verdict-timeout"):
        assert not view.apply(F.Notice("Ana is away, so the challenge went unanswered: the wild draw counts as "
                                       "guilty (the hand was not shown)", 0, kind))
    assert "news:" not in _text(view)


def test_a_host_change_after_the_match_was_won_says_the_next_match_is_at_the_new_host():
    """Seen: the host killed right after a match was won; the scorekeeper's screen read "the
    record continues from the match's start, on ledger head 0e5887e5…, the same as ours" above
    "ledger head acdc0beb…" and the match won - nothing of that match goes on."""
    view = ScoreView()
    view.apply(_lobby())
    view.apply(F.RoundStarted(1, 2, (0, 0, 0, 0)))
    view.apply(F.MatchOver(1, (0, 81, 0, 0), 1, "cd" * 32))
    view.apply(F.Election("Ana", "Ben", term=1))
    assert view.apply(F.Resumed("Ben", 0, "0e" * 32, term=1))
    text = _text(view)
    assert "HOST CHANGED: Ben took the table over from Ana (election 1)" in text
    assert "Ben hosts now; this match was over: the next one is dealt at Ben's table" in text
    assert "the record continues" not in text and "0e0e0e0e" not in text


def test_a_table_closed_mid_round_no_longer_shows_the_round_in_play(tmp_path):
    """play13: a host ^C'd in round 2 left the board reading "round 2 in play, Robo deals"
    above the status line "the table closed"."""
    pm = played("standard", 41)
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=0)
        store.record_round(pm.entries[0])
        view = ScoreView()
        view.apply(_lobby())
        view.apply(F.RoundStarted(2, 1, tuple(pm.entries[0].scores)))
        view.recorded(board(store), 1)
        assert "round 2 in play, Ben deals" in _text(view)
        view.closed()
        text = _text(view, 60)
    assert "in play" not in text, text
    assert "the table closed in round 2, before the match was won" in text, text


def test_a_table_closed_between_rounds_or_before_any_deal_says_so():
    view = ScoreView()
    view.apply(_lobby(NAMES[:2], players=4))
    view.closed()
    text = _text(view)
    assert "gathering" not in text and "waiting for the first deal" not in text, text
    assert "no match recorded: the table closed" in text and "\nthe table closed\n" in text, text


def test_at_60_columns_the_ledger_head_and_the_database_path_wrap_whole(tmp_path):
    """play13: at 60x20 the board read "ledger head 258e0b58…(48 digits)" and nothing of the
    rest, nothing saying it was cut; every digit is on the screen, and the path too."""
    pm = played("standard", 41)
    db = "/home/a-scorekeeper-with-a-long-name/.local/share/unonet/scores.db"
    with ScoreStore.open(tmp_path / "s.db") as store:
        record(store, pm, upto=0)
        store.record_round(pm.entries[0])
        view = ScoreView(db)
        view.apply(_lobby())
        view.recorded(board(store), 1)
        lines = view.lines(60, 19)
    assert all(len(line) <= 60 for line in lines), lines
    head = pm.entries[0].hash.hex()
    assert lines[-4].startswith("ledger head ") and (lines[-4] + lines[-3].strip()).endswith(head), lines
    assert (lines[-2] + lines[-1].strip()) == f"recording into {db}", lines


def test_the_lost_host_answering_again_takes_the_host_lost_line_back():
    """play13, the LAN rig: the scorekeeper's own link was down 12 s while Hal went on hosting;
    its board said "HOST LOST: the link to Hal is down; following its successor Robo" and,
    after it watched Hal again (the election loop's "reconnected"), kept saying it under the
    rounds Hal dealt, for good.  An earlier host change a new host confirmed comes back."""
    reconnected = F.Notice("the link to the host dropped for a moment: watching again", kind="reconnected")
    view = ScoreView()
    view.apply(_lobby(host="Ana"))
    view.apply(F.RoundStarted(3, 2, (0, 10, 0, 0)))
    view.apply(F.Election("Ana", "Ben", term=1))
    assert "HOST LOST" in _text(view)
    assert view.apply(reconnected)
    view.apply(F.RoundStarted(3, 2, (0, 10, 0, 0)))
    text = _text(view)
    assert "HOST LOST" not in text and "waiting for the new host" not in text and "HOST" not in text, text
    assert "hosted by Ana" in text.splitlines()[0] and "round 3 in play" in text, text
    assert "news: the link to the host dropped for a moment: watching again" in text, text
    # Ben did take over later; then our own link dropped while Ben hosted, and Ben answered again
    view.apply(F.Election("Ana", "Ben", term=1))
    view.apply(F.Resumed("Ben", 2, "ab" * 32, term=1))
    view.apply(F.Election("Ben", "Cleo", term=2))
    assert "HOST LOST: the link to Ben is down" in _text(view)
    view.apply(reconnected)
    text = _text(view)
    assert "HOST LOST" not in text and "HOST CHANGED: Ben took the table over from Ana (election 1)" in text, text


def test_a_player_back_for_the_next_match_is_not_left_standing_as_gone():
    """evening17: Ben quit at match 1's end and ran `unonet join` again for match 2; the
    scorekeeper's board read "news: Ben left the table" the whole time the next match gathered
    with Ben seated in it.  A player who sits down while a table gathers is news too."""
    view = ScoreView()
    view.apply(_lobby())
    view.apply(F.RoundStarted(1, 0, (0, 0, 0, 0)))
    view.apply(F.MatchOver(0, (500, 0, 0, 0), 4, "cd" * 32))
    view.apply(F.Notice("Dev left the table", 3, "left"))
    view.apply(_lobby(NAMES[:3], players=4))          # the next match gathers without Dev
    assert "news: Dev left the table" in _text(view)
    assert view.apply(_lobby(players=4))              # Dev is back: the screen changes
    text = _text(view)
    assert "news: Dev joined the table for the next match" in text, text
    assert text.index("Dev left the table") < text.index("Dev joined the table"), text
    view.apply(_lobby(players=4))                     # the same lobby again: no news
    assert _text(view).count("joined the table") == 1, _text(view)
    # the first match's lobby likewise: one who left it and came back before the deal
    view = ScoreView()
    view.apply(_lobby(NAMES[:3]))
    view.apply(F.Notice("Cleo left the table", 2, "left"))
    view.apply(_lobby(NAMES[:2], players=3))
    view.apply(_lobby(NAMES[:3]))
    assert "news: Cleo joined the table" in _text(view), _text(view)


def test_at_80_columns_a_long_rules_title_wraps_and_loses_no_word(tmp_path):
    """evening18: a `--rules dirty --teams` table's title read "table Hal's table, hosted by
    Hal  (dirty + exact-match-penalty, seven-o, seven-o" at 80 columns, the rest cut off."""
    rules = "dirty + exact-match-penalty, seven-o, seven-o-optional, wd4-strict (teams), to 200"
    seats = tuple(F.LobbySeat(seat=i, name=n, bot=False, connected=True, team=i % 2) for i, n in enumerate(NAMES))
    view = ScoreView()
    view.apply(F.Lobby(table="Hal's table", code="ABCD-EFGH-JK", seats=seats, me=None, players=4,
                       rules=rules, hosted_by="Hal"))
    lines = view.lines(80, 24)
    assert all(len(line) <= 80 for line in lines), lines
    assert lines[0].startswith("table Hal's table, hosted by Hal  (dirty")
    assert " ".join(line.strip() for line in lines[:2]) == f"table Hal's table, hosted by Hal  ({rules})", lines
    assert lines[2].startswith("no match yet")
