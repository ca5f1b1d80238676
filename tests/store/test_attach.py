"""`unonet score [HOST[:PORT]]`: the scorekeeper attached to a live loopback table as an observer.

Real processes (``sys.executable -m unonet``) and real sockets on 127.0.0.1; the lying host
is a real `HostTable` whose `TableHost` signs its own lie."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
import trio

from unonet.engine import make_rules
from unonet.net._game import HostGame, run_local_seat
from unonet.protocol import RoundEnd

from ..net.session_helpers import ROOT, at_a_terminal, config, env_home, finish, first_json, lines, live_table, reaped, unonet
from ..net.test_session_match import _remote_seat


def _db() -> str:
    return str(Path(tempfile.mkdtemp(prefix="unonet-test-score-")) / "scores.db")


def _score_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "unonet", "score", *args], cwd=ROOT, env=env_home(),
                          capture_output=True, text=True, timeout=60)


def _attached(proc, limit: float = 20.0) -> dict:
    line = first_json(proc, limit)
    assert line["t"] == "attached", line
    return line


async def _attached_async(proc, limit: float = 20.0) -> None:
    """Wait (without blocking trio) for the scorekeeper's `attached` line."""
    with trio.fail_after(limit):
        while '"attached"' not in proc.out_path.read_text():
            assert proc.poll() is None, proc.err_path.read_text()
            await trio.sleep(0.05)


def _keeper_beside(cfg, db: str, body, limit: float = 120, **table_kw) -> tuple[int, str, str]:
    """A live in-process table (``cfg``), a scorekeeper process attached to it, then
    ``await body(table)``; waits for the scorekeeper to exit (the table closes); its
    exit status, stdout and stderr."""
    holder = {}

    async def main():
        async with live_table(cfg, local_seat=run_local_seat(None), **table_kw) as table:
            keeper = holder["keeper"] = unonet("score", "--db", db, "--no-ui", "--json", f"127.0.0.1:{table.port}")
            await _attached_async(keeper)
            with trio.fail_after(limit):
                await body(table)
                while keeper.poll() is None:
                    await trio.sleep(0.05)

    with contextlib.ExitStack() as stack:
        stack.callback(lambda: "keeper" in holder and holder["keeper"].poll() is None and holder["keeper"].kill())
        trio.run(main)
        return finish(holder["keeper"], 30)


def _rounds(out: list[dict]) -> list[dict]:
    return [x for x in out if x["t"] == "round"]


def _overs(out: list[dict]) -> list[dict]:
    return [{k: v for k, v in x.items() if k != "t"} for x in out if x["t"] == "match-over"]


@pytest.mark.slow
def test_two_scorekeepers_record_every_round_of_a_bot_match_and_agree_with_the_players():
    """Host (its own seat and a bot) + a bot joiner; two scorekeepers attached before the
    deal.  Every round recorded in each database; both chain heads equal the players'
    match-over ledger; the match-over lines are the players'; `score verify` passes."""
    disc = str(_free_port(socket.SOCK_DGRAM))
    host = unonet("host", "--no-ui", "--json", "--players", "3", "--bots", "1", "--target", "150",
                  "--port", "0", "--bind", "127.0.0.1", "--discovery-port", disc)
    with reaped(host):
        port = first_json(host)["port"]
        dbs = [_db(), _db()]
        keepers = [unonet("score", "--db", dbs[0], "--no-ui", "--json", f"127.0.0.1:{port}"),
                   # the second finds the table by discovery (loopback only: --bind 127.0.0.1)
                   unonet("score", "--db", dbs[1], "--no-ui", "--json", "--bind", "127.0.0.1",
                          "--discovery-port", disc, "--timeout", "1.5")]
        with reaped(*keepers):
            _attached(keepers[0])
            found = first_json(keepers[1], 20)
            assert found["t"] == "found" and found["port"] == port, found
            _attached(keepers[1])
            joiner = unonet("join", "--no-ui", "--json", "--bot", f"127.0.0.1:{port}")
            with reaped(joiner):
                code, jout, jerr = finish(joiner, 180)
                assert code == 0, jerr
                hcode, hout, herr = finish(host, 60)
                assert hcode == 0, herr
                results = [finish(k, 60) for k in keepers]
    player = _overs(lines(jout))[0]
    assert _overs(lines(hout))[0] == player
    heads = []
    for (code, out, err), db in zip(results, dbs):
        assert code == 0, err
        got = lines(out)
        rounds = _rounds(got)
        assert [r["round"] for r in rounds] == list(range(1, player["rounds"] + 1))
        assert all(r["status"] == "verified" for r in rounds)
        assert _overs(got) == [player]                      # the very line the players print
        assert rounds[-1]["head"] == player["ledger"]
        v = _score_cli("verify", "--db", db, "--json")
        assert v.returncode == 0, v.stdout + v.stderr
        report = json.loads(v.stdout)
        assert report["rounds"] == player["rounds"] and report["disputed"] == 0
        m = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)["match"]
        heads.append(m["head"])
    assert heads == [player["ledger"]] * 2


def _inflating(table):
    """The host signs its own lie in round 2's end record: seat 0's score inflated."""
    game = HostGame(table)
    ends = [0]

    def tamper(data):
        if data.get("g") == "end":
            ends[0] += 1
            if ends[0] == 2:
                data = dict(data, scores=[s + 1 for s in data["scores"]])
        return data

    game.host.tamper_game = tamper
    return game


def _nonsense(table):
    """The host announces the end of round 2 at its first move, before any record of its end."""
    game = HostGame(table)
    setups = [0]

    def tamper(data):
        if data.get("g") == "setup":
            setups[0] += 1
        elif data.get("g") == "act" and setups[0] == 2:
            setups[0] = -1  # once, at round 2's first move
            table.broadcast(RoundEnd(round=2, reason="out", winner=0, points=(), totals=(), final=False))
        return data

    game.host.tamper_game = tamper
    return game


@pytest.mark.parametrize("host, reason", [(_inflating, "scores"), (_nonsense, "never signed")],
                         ids=["signed-lie", "nonsense"])
def test_a_lying_host_gives_a_disputed_round_and_the_rounds_before_stay_counted(host, reason):
    """A host that signs its own lie, or sends nonsense, in round 2: the scorekeeper's own
    checks catch it, record round 2 disputed with the reason, keep round 1 as verified, exit 1
    with one FAIR-PLAY line; the database still verifies."""
    rules = make_rules("official", [], target=1000)
    cfg = config(2, rules=rules, dealer_only=True, autostart=True, turn_timeout=0.01)
    db = _db()
    seats: dict = {}

    async def caught(port, name):
        try:
            await _remote_seat(port, name, seats)
        except Exception as exc:  # noqa: BLE001 - the seats catch the lie too
            seats[name]["error"] = exc

    async def play(table):
        async with trio.open_nursery() as n:
            for name in ("p0", "p1"):
                n.start_soon(caught, table.port, name)

    code, out, err = _keeper_beside(cfg, db, play, game_factory=host)
    assert code == 1, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("unonet score: FAIR-PLAY VIOLATION:"), err
    rounds = _rounds(lines(out))
    assert [(r["round"], r["status"]) for r in rounds] == [(1, "verified"), (2, "disputed")], rounds
    assert rounds[1]["reason"] and reason in rounds[1]["reason"], rounds[1]
    assert rounds[1]["scores"] == rounds[0]["scores"]       # a disputed round counts nothing
    assert all(seats[p].get("error") is not None and seats[p]["error"].cheat for p in ("p0", "p1"))
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr
    assert json.loads(v.stdout)["disputed"] == 1
    m = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)["match"]
    assert m["head"] == rounds[1]["head"]


@pytest.mark.slow
def test_the_next_match_on_the_same_table_is_a_new_match_row():
    """A table (the host's seat and a bot) that plays two matches, each started by the
    operator's start: two match-over lines, each the host's result, two match rows.  (It also
    walks the host past a late co-sign of match 1's last round arriving in the lobby, which
    used to drop the host's own seat.)"""
    rules = make_rules("official", [], target=60)
    cfg = config(2, rules=rules, bots=1, turn_timeout=0.01, matches=2)
    db = _db()
    results = []

    async def two_matches(table):
        for i in range(2):
            table.start()
            while table.matches_played <= i:
                await trio.sleep(0.05)
            results.append(table.result)

    code, out, err = _keeper_beside(cfg, db, two_matches, game_factory=HostGame)
    assert code == 0, err
    overs = _overs(lines(out))
    assert overs == results and overs[0]["match"] != overs[1]["match"]
    hist = json.loads(_score_cli("history", "--db", db, "--json").stdout)["matches"]
    assert sorted(h["head"] for h in hist) == sorted(o["ledger"] for o in overs)


def _free_port(kind=socket.SOCK_STREAM) -> int:
    """A loopback port nothing listens on (TCP by default, or UDP)."""
    s = socket.socket(socket.AF_INET, kind)
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_bad_inputs_are_one_line_and_non_zero():
    garbage = Path(tempfile.mkdtemp(prefix="unonet-test-score-")) / "scores.db"
    garbage.write_bytes(b"this is not a database\n" * 50)
    before = garbage.read_bytes()
    host = unonet("host", "--no-ui", "--json", "--players", "3", "--port", "0", "--bind", "127.0.0.1",
                  "--discovery-port", str(_free_port(socket.SOCK_DGRAM)))
    with reaped(host):
        port = first_json(host)["port"]
        cases = [
            (("--no-ui", "--code", "0000-0000-00", "--db", _db(), f"127.0.0.1:{port}"), 1,
             "unonet score: host key does not match join code 0000-0000-00"),
            (("--no-ui", "--db", _db(), f"127.0.0.1:{_free_port()}"), 1, "unonet score: connection refused"),
            (("--no-ui", "--db", str(garbage), f"127.0.0.1:{port}"), 2, f"unonet score: {garbage}"),
            (("--no-ui", "--db", _db(), "127.0.0.1:99999"), 2, "unonet score: bad port"),
            (("--no-ui", "--code", "!!", "--db", _db(), "127.0.0.1"), 2, "unonet score: --code"),
            (("--no-ui", "--db", _db(), "127.0.0.1", "extra"), 2, "unonet score: 'extra'"),
        ]
        for args, want, start in cases:
            p = _score_cli(*args)
            assert p.returncode == want, (args, p.stderr)
            assert "Traceback" not in p.stderr and len(p.stderr.strip().splitlines()) == 1, (args, p.stderr)
            assert p.stderr.startswith(start), (args, p.stderr)
    assert garbage.read_bytes() == before


def test_nothing_found_by_discovery_is_one_line():
    """No address: discovery on loopback (a free port nobody announces on) finds nothing."""
    p = _score_cli("--no-ui", "--db", _db(), "--bind", "127.0.0.1", "--discovery-port", str(_free_port(socket.SOCK_DGRAM)),
                   "--timeout", "0.3")
    assert p.returncode == 1, p.stderr
    assert p.stderr.startswith("unonet score: no table found on this network"), p.stderr
    assert "Traceback" not in p.stderr


def test_an_observer_attached_mid_match_is_given_the_match_so_far_and_records_it_whole():
    """Attached while match 1 is being played (in this process, over loopback): the host replays
    the match so far (spec §7 rejoin, no seat); no false accusation; match 1 and match 2 are
    recorded whole, their lines the host's (issue 21 item 4)."""
    from unonet.net._join import play_seat, reach_table
    from unonet.net._observe import ObserverSide
    from unonet.protocol import Identity
    from unonet.protocol._schema import OBSERVER
    from unonet.store import ScoreStore, verify
    from unonet.store.attach import Recorder

    # (500: a first round can score past 200, and the scorekeeper attaches in round 2)
    rules = make_rules("official", [], target=500)
    cfg = config(3, rules=rules, bots=2, turn_timeout=0.01, matches=2)
    db = _db()
    got: list[dict] = []
    results = []

    async def main(store):
        recorder = Recorder(store, got.append)
        async with live_table(cfg, local_seat=run_local_seat(None), game_factory=HostGame) as table:
            with trio.fail_after(300):
                table.start()
                while table.game is None or table.game.round_no < 2:
                    await trio.sleep(0.001)
                link, _ = await reach_table(f"127.0.0.1:{table.port}", Identity.generate(), name="keeper",
                                            role=OBSERVER)
                side = ObserverSide(name="keeper", host_public=link.peer_fair_identity, on_round=recorder.round,
                                    on_match_over=recorder.match_over)
                async with trio.open_nursery() as n:
                    n.start_soon(lambda: play_seat(link, side, seated=True))
                    while table.matches_played < 1:
                        await trio.sleep(0.01)
                    results.append(table.result)
                    table.start()
                    while table.matches_played < 2:
                        await trio.sleep(0.01)
                    results.append(table.result)

    with ScoreStore.open(db) as store:
        trio.run(main, store)
        assert verify(store).ok
    overs = [{k: v for k, v in x.items() if k != "t"} for x in got if x["t"] == "match-over"]
    assert overs == results, (overs, results)
    for r in results:
        rounds = [x for x in got if x["t"] == "round" and x["match"] == r["match"]]
        assert [x["round"] for x in rounds] == list(range(1, r["rounds"] + 1))
        assert all(x["status"] == "verified" for x in rounds) and rounds[-1]["head"] == r["ledger"]


def test_a_scorekeeper_killed_and_restarted_mid_match_holds_every_round():
    """Issue 21 item 4: `unonet score` SIGKILLed in the middle of a match and started again on
    the same database is replayed the match so far and records the rest: every round of the
    match in the database once, the chain head the players' ledger, `score verify` passing."""
    import signal

    disc = str(_free_port(socket.SOCK_DGRAM))
    # (to 500: the match outlasts the restarted scorekeeper's start on a loaded machine - to 250
    # it was once won and the table closed before it, "connection refused")
    host = unonet("host", "--no-ui", "--json", "--players", "3", "--bots", "1", "--target", "500",
                  "--port", "0", "--bind", "127.0.0.1", "--discovery-port", disc, "--bot-pace", "0.02")
    db = _db()
    with reaped(host):
        port = first_json(host)["port"]
        first = unonet("score", "--db", db, "--no-ui", "--json", f"127.0.0.1:{port}")
        with reaped(first):
            _attached(first)
            joiner = unonet("join", "--no-ui", "--json", "--bot", "--bot-pace", "0.02", f"127.0.0.1:{port}")
            with reaped(joiner):
                deadline = time.monotonic() + 60
                while len(_rounds(lines(first.out_path.read_text()))) < 2 and time.monotonic() < deadline:
                    assert first.poll() is None, first.err_path.read_text()
                    time.sleep(0.05)
                first.send_signal(signal.SIGKILL)
                first.wait(timeout=10)
                before = _rounds(lines(first.out_path.read_text()))
                assert len(before) >= 2
                again = unonet("score", "--db", db, "--no-ui", "--json", f"127.0.0.1:{port}")
                with reaped(again):
                    code, jout, jerr = finish(joiner, 180)
                    assert code == 0, jerr
                    kcode, kout, kerr = finish(again, 60)
    assert kcode == 0, kerr
    player = _overs(lines(jout))[0]
    assert _overs(lines(kout)) == [player]
    got = json.loads(_score_cli("match", "1", "--db", db, "--json").stdout)
    m = got["match"]
    assert m["head"] == player["ledger"] and m["rounds"] == player["rounds"], got
    v = _score_cli("verify", "--db", db, "--json")
    assert v.returncode == 0, v.stdout + v.stderr


def test_a_match_whose_table_closes_before_it_is_won_is_abandoned_not_in_play():
    """Issue 21 item 4: the host closes the table in the middle of a match: the scorekeeper says
    so (an `abandoned` line), the match's row is 'abandoned' in the history, and standings do not
    count it as being played; the rounds recorded stay and verify passes."""
    rules = make_rules("official", [], target=500)
    # (paced: unpaced bots in this process played a whole match to 500 in the half second
    # below, and CI saw the match won before the table closed - no abandoned line)
    cfg = config(2, rules=rules, bots=1, bot_pace=0.03, matches=1)
    db = _db()

    async def close_mid_match(table):
        table.start()
        while table.game is None or table.game.ledger is None or table.game.ledger.rounds < 1:
            await trio.sleep(0.02)
        await trio.sleep(0.5)  # (the scorekeeper reads round 1's end)
        table.close()

    code, out, err = _keeper_beside(cfg, db, close_mid_match, game_factory=HostGame)
    assert code == 0, err
    got = lines(out)
    aband = [x for x in got if x["t"] == "abandoned"]
    assert len(aband) == 1 and aband[0]["rounds"] >= 1, got[-3:]
    text = _score_cli("history", "--db", db).stdout
    assert "abandoned" in text and "in play" not in text, text
    st = json.loads(_score_cli("standings", "--db", db, "--json").stdout)
    assert all(p["playing"] == 0 for p in st["players"]), st
    assert _score_cli("verify", "--db", db).returncode == 0


def test_a_scorekeeper_whose_own_link_drops_rejoins_the_living_host_and_no_election_starts():
    """Issue 21 (one election loop for every side): the scorekeeper's network drops for a
    moment while the host lives.  It joins the host again as an observer (as a seat does), is
    replayed the match, records the rest once, and never starts an election of its own."""
    from unonet.net._election import play_with_elections
    from unonet.net._join import play_seat, reach_table
    from unonet.net._observe import ObserverSide
    from unonet.protocol import Identity
    from unonet.protocol._schema import OBSERVER
    from unonet.store import ScoreStore, verify
    from unonet.store.attach import Recorder

    # (a paced match: the cut comes while it is still being played, however loaded the machine)
    cfg = config(3, rules=make_rules("official", [], target=500), bots=2, bot_pace=0.02)
    db = _db()
    got: list[dict] = []
    cut: list[int] = []
    results = []

    async def main(store):
        recorder = Recorder(store, got.append)
        async with live_table(cfg, local_seat=run_local_seat(None), game_factory=HostGame) as table:
            identity = Identity.generate()
            link, _ = await reach_table(f"127.0.0.1:{table.port}", identity, name="keeper", role=OBSERVER)
            side = ObserverSide(name="keeper", host_public=link.peer_fair_identity, on_round=recorder.round,
                                on_match_over=recorder.match_over, on_match_begin=recorder.begin)

            links = []

            async def play(lk, sd):
                links.append(lk)
                return await play_seat(lk, sd, seated=True)

            async def drop_once():
                while recorder.rounds < 1:
                    await trio.sleep(0.005)
                cut.append(recorder.rounds)
                await links[0]._stream.aclose()  # our network drops: the socket is gone, the host lives

            with trio.fail_after(300):
                while not table.observers:
                    await trio.sleep(0.01)
                async with trio.open_nursery() as n:
                    n.start_soon(lambda: play_with_elections(link, side, identity=identity, listeners=None, play=play,
                                                             game_factory=None, emit=got.append))
                    n.start_soon(drop_once)
                    table.start()
                    while table.matches_played < 1:
                        await trio.sleep(0.01)
                    results.append(table.result)
                    while not any(x["t"] == "match-over" for x in got):
                        await trio.sleep(0.01)
                    n.cancel_scope.cancel()

    with ScoreStore.open(db) as store:
        trio.run(main, store)
        assert verify(store).ok
    assert cut, "the link was never cut"
    kinds = [x["t"] for x in got]
    assert "reconnected" in kinds and "election" not in kinds, kinds
    assert _overs(got) == results
    rounds = _rounds(got)
    assert [x["round"] for x in rounds] == list(range(1, results[0]["rounds"] + 1))  # each once, in order
    assert all(x["status"] == "verified" for x in rounds) and rounds[-1]["head"] == results[0]["ledger"]


def test_a_table_that_closes_before_any_round_ends_is_said_not_a_silent_exit_0():
    """`unonet score --no-ui --json` attached to a table whose host stops (Ctrl-C) before any
    round ended: it used to exit 0 having printed only its `attached` line, so a script took a
    match kept where nothing was.  Now one `problem` line (code `nothing-recorded`, naming the
    file) and exit 1; the text mode says it in one line too."""
    import signal

    for fmt in (("--json",), ()):
        host = unonet("host", "--no-ui", "--json", "--players", "3", "--port", "0", "--bind", "127.0.0.1",
                      "--bots", "1", "--discovery-port", str(_free_port(socket.SOCK_DGRAM)),
                      preexec_fn=at_a_terminal)  # (its ^C is the test's: not ignored under a background runner)
        with reaped(host):
            port = first_json(host)["port"]
            db = _db()
            keeper = unonet("score", "--no-ui", *fmt, "--db", db, f"127.0.0.1:{port}")
            with reaped(keeper):
                if fmt:
                    _attached(keeper)
                else:  # (the text mode prints nothing on attaching: the host says it saw us)
                    deadline = time.monotonic() + 20
                    while "is watching" not in host.out_path.read_text():
                        assert time.monotonic() < deadline, host.err_path.read_text()
                        time.sleep(0.05)
                host.send_signal(signal.SIGINT)
                code, out, err = finish(keeper, 60)
        assert code == 1, (fmt, out, err)
        assert err.startswith("unonet score: the table closed before any round ended here: nothing was recorded in "
                              f"{db}") and len(err.strip().splitlines()) == 1, err
        if fmt:
            last = lines(out)[-1]
            assert last["t"] == "problem" and last["code"] == "nothing-recorded" and last["db"] == db, last


def test_the_json_attach_ends_with_a_closed_line():
    """A table that closes after its match: the --json scorekeeper's last line says how it ended
    and what it recorded (the text mode's end line, as JSON), exit 0."""
    host = unonet("host", "--no-ui", "--json", "--players", "3", "--port", "0", "--bind", "127.0.0.1",
                  "--bots", "1", "--target", "1", "--discovery-port", str(_free_port(socket.SOCK_DGRAM)))
    with reaped(host):
        port = first_json(host)["port"]
        db = _db()
        keeper = unonet("score", "--no-ui", "--json", "--db", db, f"127.0.0.1:{port}")
        with reaped(keeper):
            _attached(keeper)
            join = unonet("join", "--bot", "--no-ui", "--json", f"127.0.0.1:{port}")
            with reaped(join):
                assert finish(join, 60)[0] == 0
            code, out, err = finish(keeper, 60)
    assert code == 0, err
    got = lines(out)
    rounds = _rounds(got)
    assert got[-1] == {"t": "closed", "text": "the table closed after 1 match", "matches": 1,
                       "rounds": len(rounds), "disputed": 0, "voided": 0, "known": 0, "db": db}, got[-3:]


def test_the_close_line_says_a_match_was_cut_off_and_counts_matches_in_words():
    """play13: a host ^C'd in its first match's round 2 read "the table closed after 0 match(es)"."""
    from unonet.store.attach import closed_text

    assert closed_text(1, False) == "the table closed after 1 match"
    assert closed_text(2, False) == "the table closed after 2 matches"
    assert closed_text(0, True) == "the table closed in the middle of a match: it is recorded abandoned"
    assert closed_text(1, True) == ("the table closed in the middle of a match: it is recorded abandoned "
                                    "(1 match finished before it)")
