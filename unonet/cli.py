"""The `unonet` command line.  Every command reports bad input in one line and exits 2."""

from __future__ import annotations

import argparse
import functools
import os
import sys

from . import __version__
from .host_defaults import HOLD_SEATS, MAX_TARGET, OBSERVERS

BOT_NAMES = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun"]


class UsageError(Exception):
    """Bad input on the command line or in a file: one line, exit 2."""


@functools.cache  # argparse makes a formatter for every add_argument (~90 of them)
def _columns() -> int:
    """The terminal's width as `shutil.get_terminal_size` finds it ($COLUMNS, then stdout's
    terminal, else 80), without importing shutil: argparse's own look-up does, and shutil
    brings bz2, lzma, zlib and fnmatch, ~10 % of `unonet --help`'s start (issue 26)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _HelpFormatter(argparse.HelpFormatter):
    def __init__(self, prog, **kw):
        kw.setdefault("width", _columns() - 2)  # as argparse's default does
        super().__init__(prog, **kw)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args, **kw):
        kw.setdefault("formatter_class", _HelpFormatter)  # (the subcommands' parsers too)
        super().__init__(*args, **kw)

    def error(self, message):  # one line, no usage dump
        raise UsageError(f"{self.prog}: {message} (see --help)")


UI_TURN_TIMEOUT = 90.0  # the full-screen host's turn clock unless --turn-timeout says otherwise
MAX_SECONDS = 60.0  # the longest pause a delay option or variable may ask for


def _seconds(value, what: str) -> float:
    """A pause in seconds, 0..MAX_SECONDS, from an option or a variable named ``what``:
    nan, inf and huge values (which crash or freeze a sleep) are refused like garbage."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        x = None
    if x is None or not 0.0 <= x <= MAX_SECONDS:  # False for nan
        raise UsageError(f"{what} must be a number of seconds from 0 to {MAX_SECONDS:g}, not {value!r}")
    return x


def _env_seconds(name: str, default: float) -> float:
    """``$name`` as seconds (default when unset or empty); any other value it cannot use
    is refused, naming the variable."""
    raw = os.environ.get(name)
    return default if not raw else _seconds(raw, name)


def _fingerprint(text: str) -> str:
    """A host's fingerprint as typed: its join code, short or whole fingerprint (Crockford
    base32; case, dashes and spaces do not matter, spec §4.5), or a one-line refusal."""
    from .fingerprint import InvalidJoinCodeError, normalize_join_code

    try:
        normalize_join_code(text)
    except InvalidJoinCodeError:
        raise UsageError(f"--host must be a host fingerprint or join code like 7KQ2-M9XD-4T "
                         f"(10 to 52 Crockford base32 characters), not {text!r}") from None
    return text


def _db_file(text: str) -> str:
    """``--db FILE``: an empty path names no file (it must not mean the default database)."""
    if not text.strip():
        raise UsageError(f"--db must name a database file, not {text!r}")
    return text


def _house_list(values) -> list[str]:
    out = []
    for v in values or []:
        out += [x for x in v.split(",") if x.strip()]
    return out


def _rules_from(args):
    """The rule set the options name, checked against ``args.players``."""
    from .engine import RulesError, make_rules

    try:
        rules = make_rules(args.rules, _house_list(args.house), deck=args.deck, teams=args.teams,
                           scoring=args.scoring, target=args.target)
        rules.check_players(args.players)
        return rules
    except RulesError as e:
        raise UsageError(str(e)) from None


def _add_rule_options(p) -> None:
    p.add_argument("--rules", default="official", metavar="PRESET", help="rules preset (see `unonet rules`)")
    p.add_argument("--house", action="append", metavar="R1,R2", help="extra house rules, comma separated")
    p.add_argument("--deck", choices=["classic", "2018", "office", "power", "flip"],
                   help="deck (default: the preset's)")
    p.add_argument("--teams", action="store_true", help="partners opposite, scored as teams")
    p.add_argument("--scoring", default="standard", choices=["standard", "elimination"])
    p.add_argument("--target", type=int, default=500, help="match target (default 500)")


def cmd_rules(args) -> int:
    import json

    from .engine import HOUSE_RULES, PRESETS

    if args.json:
        print(json.dumps({
            "presets": [{"name": p.name, "aliases": list(p.aliases), "summary": p.summary,
                         "deck": p.deck, "house": sorted(p.house), "seed": p.seed} for p in PRESETS],
            "house_rules": [{"name": k, "summary": v} for k, v in HOUSE_RULES.items()],
        }, indent=2))
        return 0
    width = 2 + max(len(n) for n in [p.name for p in PRESETS] + list(HOUSE_RULES))
    print("Presets (--rules NAME):")
    for p in PRESETS:
        alias = f" (also: {', '.join(p.aliases)})" if p.aliases else ""
        print(f"  {p.name:<{width}}{p.summary}{alias}")
    print("House rules (--house NAME,NAME):")
    for k, v in HOUSE_RULES.items():
        print(f"  {k:<{width}}{v}")
    return 0


def cmd_scenario(args) -> int:
    import json

    from .engine import ScenarioError, run_scenario

    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
        if not text.strip():
            raise UsageError(f"scenario {args.file!r} is empty")
        data = json.loads(text)
    except OSError as e:
        raise UsageError(f"cannot read scenario {args.file!r}: {e.strerror}") from None
    except (ValueError, RecursionError) as e:  # JSONDecodeError, bad UTF-8, huge ints, deep nesting
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e).splitlines()[0]
        raise UsageError(f"scenario {args.file!r} is not valid JSON: {reason}") from None
    try:
        status, out = run_scenario(data)
    except (ScenarioError, RecursionError) as e:
        reason = "nested too deeply" if isinstance(e, RecursionError) else str(e)
        raise UsageError(f"scenario {args.file!r}: {reason}") from None
    print(json.dumps(out, ensure_ascii=False))
    return status


def cmd_simulate(args) -> int:
    from .sim import simulate

    rules = _rules_from(args)
    bots = [b.strip() for b in args.bot.split(",") if b.strip()]
    if not bots:
        raise UsageError("--bot needs at least one kind: random or heuristic")
    if args.delay is not None:
        args.delay = _seconds(args.delay, "--delay")
    if args.watch and args.json:
        raise UsageError("--watch and --json do not mix (--json prints one object for scripts)")
    for b in bots:
        if b not in ("random", "heuristic"):
            raise UsageError(f"unknown bot {b!r} (known: random, heuristic)")
    if args.rounds is not None and args.rounds < 0 or args.matches is not None and args.matches < 0:
        raise UsageError("--rounds and --matches take a count of 0 or more")
    rounds, matches = args.rounds, args.matches
    if rounds is None and matches is None:
        rounds = 1 if args.watch else 100
    names = BOT_NAMES[: args.players]
    kw = {}
    if args.watch:
        from .watch import Watcher

        delay = args.delay if args.delay is not None else (0.4 if sys.stdout.isatty() else 0.0)
        watcher = Watcher(names, delay=delay)
        kw = {"on_events": watcher.on_events, "on_round": watcher.on_round}
    if args.transcript is not None:
        from .fairsim import transcript_factory
        from .table import TABLE_DECKS

        if rules.deck not in TABLE_DECKS:
            raise UsageError(f"--transcript: fair play does not support the {rules.deck} deck yet")
        _check_transcript_dir(args.transcript)
        kw.update(transcript_factory(args.transcript))
    stats = simulate(rules, args.players, rounds=rounds, matches=matches, seed=args.seed, bots=bots, **kw)
    out = stats.as_dict(by_match=matches is not None)
    if args.json:
        import json

        out.update(players=args.players, seed=args.seed, bots=bots, rules=rules.describe())
        print(json.dumps(out))
        return 0
    print(f"{rules.describe()}; {args.players} players; bots: {', '.join(bots)}")
    print(f"{_count(out['rounds'], 'round')}, {_count(out['matches'], 'match', 'matches')}, "
          f"{_count(out['actions'], 'action')} in {out['seconds']:.2f} s "
          f"({out['rounds_per_s']:.0f} rounds/s, {out['actions_per_s']:.0f} actions/s)")
    label = "match wins" if matches is not None else "round wins"
    if rules.teams:
        print(f"{label} per team: " + ", ".join(
            f"team {'AB'[t]} (seats {', '.join(str(s) for s in range(t, args.players, 2))}): {w}"
            for t, w in enumerate(out["team_wins"])))
    if not (rules.teams and matches is not None):
        wins = out["match_wins"] if matches is not None else out["round_wins"]
        print(f"{label} per seat: " + ", ".join(f"{names[s]} (seat {s}, {bots[s % len(bots)]}): {w}"
                                                  for s, w in enumerate(wins)))
    if out["blocked_rounds"]:
        print(f"{out['blocked_rounds']} rounds ended blocked (nothing to draw, nobody could play)")
    return 0


def _count(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _check_transcript_dir(path: str) -> None:
    """A directory for transcripts: made if missing, refused if it is a file or already used."""
    import os

    if not path.strip():
        raise UsageError("--transcript needs a directory name")
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"cannot write transcripts to {path!r}: it is not a directory")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise UsageError(f"cannot write transcripts to {path!r}: {e.strerror}") from None
    if any(name.endswith(".jsonl") for name in os.listdir(path)):
        raise UsageError(f"{path!r} already holds transcripts; choose an empty directory")


def cmd_play(args) -> int:
    from .names import BadName, check_name

    rules = _rules_from(args)
    try:
        args.name = check_name(args.name)
    except BadName as e:
        raise UsageError(f"--name: {e}") from None
    from .tui import run_play
    from .tui.local import DEFAULT_DELAY, DEFAULT_RACE_TIME, Pacing

    pacing = Pacing(_env_seconds("UNONET_BOT_DELAY", DEFAULT_DELAY),
                    race_limit=_env_seconds("UNONET_RACE_TIME", DEFAULT_RACE_TIME))
    return run_play(rules, args, pacing)


def cmd_audit(args) -> int:
    from .fair.audit_cli import run_audit_cli

    host = _fingerprint(args.host) if args.host is not None else None
    return run_audit_cli(args.file, args.json, host=host, continues=args.continues)


def cmd_list(args) -> int:
    from .net.list_cli import run_list

    _look_timeout(args.timeout, "list")
    return run_list(args.timeout, as_json=args.json, bind=args.bind, port=args.port)


def _look_timeout(seconds: float, command: str) -> None:
    """How long `list`, `join` and `score` look for tables: some time, and not forever."""
    if not 0 < seconds <= 60:  # (nan fails too)
        raise UsageError(f"unonet {command}: --timeout {seconds:g}: give the seconds to look for tables, "
                         "more than 0 and at most 60")


def _name_arg(name: str, what: str = "--name") -> str:
    from .names import BadName, check_name

    try:
        return check_name(name)
    except BadName as e:
        raise UsageError(f"{what}: {e}") from None


def _bot_pace(args) -> float:
    pace = args.bot_pace
    if not (0 <= pace <= 3):  # also refuses nan; below the 5 s a stuck bot is given
        raise UsageError(f"--bot-pace {pace}: give 0..3 seconds")
    return pace


def _can_listen(bind: str | None, port: int) -> None:
    """Before a full-screen client starts: can we listen there?  ``BindFailed`` (one line
    naming the address, exit 2) now, rather than on the screen after it opened."""
    import trio

    from .net._serve import open_listeners

    async def probe() -> None:
        for listener in await open_listeners(port, bind):
            await listener.aclose()

    trio.run(probe)


def cmd_host(args) -> int:
    from .net._host import TableConfig
    from .net.session_cli import run_host

    rules = _rules_from(args)
    if args.bots < 0 or args.bots > args.players - (0 if args.dealer_only else 1):
        raise UsageError(f"--bots {args.bots}: the table has {args.players} seats"
                         + ("" if args.dealer_only else " and the host sits in one"))
    if args.turn_timeout is not None and not 0.05 <= args.turn_timeout <= 3600:
        raise UsageError("--turn-timeout must be between 0.05 and 3600 seconds")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be 0..65535 (0: any free port)")
    if args.matches is not None and not 1 <= args.matches <= 1000:
        raise UsageError(f"--matches {args.matches}: give 1..1000")
    if not 0 <= args.hold_seats <= 3600:  # (also refuses nan)
        raise UsageError(f"--hold-seats {args.hold_seats}: give 0..3600 seconds")
    if not 1 <= args.target <= MAX_TARGET:
        raise UsageError(f"--target {args.target}: give 1..{MAX_TARGET} points (what a table's beacon can carry)")
    if not 0 <= args.observers <= 16:
        raise UsageError(f"--observers {args.observers}: give 0..16 (a roster lists at most 16)")
    name = _name_arg(args.name)
    config = TableConfig(
        rules=rules, name=_name_arg(args.table or f"{name}'s table", "--table"), host_name=name,
        players=args.players, teams=args.teams, preset=rules.preset, house=tuple(sorted(rules.house)),
        target=args.target, scoring=args.scoring, bots=args.bots, port=args.port, bind=args.bind,
        dealer_only=args.dealer_only, bot_pace=_bot_pace(args), hold_seats=args.hold_seats,
        observers=args.observers, pin_players=True,
        turn_timeout=args.turn_timeout if (args.turn_timeout is not None or args.no_ui) else UI_TURN_TIMEOUT,
        discovery_port=args.discovery_port,
        autostart=args.no_ui, matches=args.matches if args.matches is not None else (1 if args.no_ui else None),
        seed=args.seed)
    if not args.no_ui:
        from .net._clients import host_seat
        from .tui.remote import run_remote

        _can_listen(config.bind, config.port)  # a bad --bind or a port in use: one line, exit 2, no screen
        return run_remote(host_seat(config), command="unonet host")
    return run_host(config, as_json=args.json)


def cmd_join(args) -> int:
    from .net.session_cli import run_join

    _look_timeout(args.timeout, "join")
    if args.code is not None:
        from .protocol import InvalidJoinCodeError, normalize_join_code

        try:
            normalize_join_code(args.code)
        except InvalidJoinCodeError as e:
            raise UsageError(f"--code: {e}") from None
    if args.address is not None:
        from .net._address import parse_address

        try:
            parse_address(args.address)
        except ValueError as e:
            raise UsageError(str(e)) from None
    if not args.no_ui:
        from .net._clients import join_seat
        from .tui.picker import pick_in_client
        from .tui.remote import run_remote

        _can_listen(args.bind, 0)
        return run_remote(join_seat(args.address, name=_name_arg(args.name), code=args.code, bind=args.bind,
                                    discovery_port=args.discovery_port, timeout=args.timeout,
                                    pick=pick_in_client, bot=args.bot, bot_pace=_bot_pace(args)))
    if not 1 <= args.matches <= 1000:
        raise UsageError(f"--matches {args.matches}: give 1..1000")
    return run_join(address=args.address, name=_name_arg(args.name), code=args.code, bot=args.bot,
                    as_json=args.json, bind=args.bind, discovery_port=args.discovery_port,
                    timeout=args.timeout, bot_pace=_bot_pace(args), matches=args.matches)


def cmd_score(args) -> int:
    from .store.score_cli import run_score

    _look_timeout(args.timeout, "score")
    return run_score(args)


def build_parser() -> argparse.ArgumentParser:

    p = _Parser(prog="unonet", description="UNO played for real across a LAN.")
    p.add_argument("--version", action="version", version=f"unonet {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    r = sub.add_parser("rules", help="list the rule presets and house rules")
    r.add_argument("--json", action="store_true", help="one JSON object")
    r.set_defaults(func=cmd_rules)

    s = sub.add_parser("scenario", help="run a stacked-deck rule scenario (JSON) and print the state",
                       description="Run a stacked-deck scenario (docs/scenario-format.md) and print the "
                                   "resulting state as one JSON object. Exit 0: done; 2: malformed file; "
                                   "3: an action was refused (the JSON names it and the state before it).")
    s.add_argument("file", metavar="FILE", help="the scenario, a JSON file (- reads standard input)")
    s.set_defaults(func=cmd_scenario)

    m = sub.add_parser("simulate", help="bot-versus-bot rounds or matches, with a summary")
    m.add_argument("--players", type=int, default=4, help="2..10 (default 4)")
    g = m.add_mutually_exclusive_group()
    g.add_argument("--rounds", type=int, help="play N single rounds (default 100; 1 with --watch)")
    g.add_argument("--matches", type=int, help="play N whole matches to the target")
    m.add_argument("--seed", type=int, default=None, help="seed for a replayable run")
    _add_rule_options(m)
    m.add_argument("--bot", default="heuristic", metavar="KIND[,KIND…]",
                   help="random or heuristic, one per seat, cycled (default heuristic)")
    m.add_argument("--json", action="store_true", help="print one JSON object")
    m.add_argument("--watch", action="store_true", help="draw the table as the bots play")
    m.add_argument("--delay", default=None, metavar="SECONDS",
                   help="seconds between actions with --watch (default 0.4 on a terminal, else 0)")
    m.add_argument("--transcript", metavar="DIR",
                   help="play fair-play-on and write one transcript per round into DIR (new or empty); "
                        "the cards then come from the committed shuffle, so a --seed deals differently")
    m.set_defaults(func=cmd_simulate)

    au = sub.add_parser("audit", help="re-verify a fair-play transcript offline",
                        description="Re-verify a round's fair-play transcript (JSON Lines) offline: every "
                                    "commitment, deal, play and challenge, and the rules engine replayed over "
                                    "the public record. Exit 0: clean (one-line summary); 1: the first bad "
                                    "line and what is wrong; 2: the file cannot be read.")
    au.add_argument("file", metavar="TRANSCRIPT", help="a JSON Lines transcript (round or match)")
    au.add_argument("--json", action="store_true", help="one JSON object")
    au.add_argument("--host", metavar="FINGERPRINT",
                    help="the host you expect: its join code, short or whole fingerprint (as the host's screen "
                         "shows it; case and dashes ignored); a transcript signed by another fails")
    au.add_argument("--continues", metavar="OLD",
                    help="the transcript of the match this one continues after a host election: the new "
                         "match-start must carry exactly its rounds, last co-signed digest and scores")
    au.set_defaults(func=cmd_audit)

    pl = sub.add_parser("play", help="play a match against bots in the full-screen client",
                        description="Play a whole match against bots in a full-screen terminal table. "
                                    "In the game: ? shows the keys and the rules in force, q quits. "
                                    "UNONET_BOT_DELAY=SECONDS sets the bots' pace (default 0.55); "
                                    "UNONET_RACE_TIME=SECONDS the time you get in a reaction race (default 3); "
                                    "both 0..60, anything else is refused. "
                                    "Keys: docs/client.md.")
    pl.add_argument("--players", type=int, default=4, help="2..10 seats, you and bots (default 4)")
    _add_rule_options(pl)
    pl.add_argument("--name", default="You",
                    help="your name at the table (1-32 characters, no control characters)")
    pl.add_argument("--seed", type=int, default=None, help="seed for a replayable deal")
    pl.add_argument("--bot", default="heuristic", choices=["random", "heuristic"],
                    help="how the bots play: heuristic (keeps wilds, calls UNO, sometimes forgets) or random")
    pl.set_defaults(func=cmd_play)

    ls = sub.add_parser("list", help="list the tables open on the LAN",
                        description="Probe the LAN for open tables (UDP broadcast, spec §3) and print "
                                    "each: name, address:port, seats taken/total, rules, target, state, "
                                    "join code, host and version compatibility. Beacons are hints: "
                                    "`unonet join --code` checks the host's key. Exit 0 (also when "
                                    "none is found); 2 when discovery cannot run.")
    ls.add_argument("--json", action="store_true", help="one JSON object per table, one per line")
    ls.add_argument("--timeout", type=float, default=1.0, metavar="S",
                    help="seconds to listen, more than 0 and at most 60 (default 1; hosts answer the probe at once)")
    ls.add_argument("--bind", metavar="ADDR",
                    help="search only the network of the interface holding ADDR (127.0.0.1: this machine)")
    ls.add_argument("--port", type=int, default=47777, help="discovery port (default 47777)")
    ls.set_defaults(func=cmd_list)

    ho = sub.add_parser("host", help="open a table on the LAN and play a match at it",
                        description="Open a table: listen for players (TCP), announce it (UDP beacons, "
                                    "spec §3), seat joiners (partners on even/odd seats with --teams), fill "
                                    "seats with bots, deal with fair play (level A) and referee the match. "
                                    "--no-ui: headless; the match starts when --players seats are filled "
                                    "(joiners + --bots), the host's own seat is a bot unless --dealer-only, "
                                    "exit 0 after the match, 1 if it could not be played out. --json: one "
                                    "JSON object per line (docs/network.md, scripting mode).")
    ho.add_argument("--name", default="host", help="your name at the table (default host)")
    ho.add_argument("--table", metavar="N", help="the table's name in `unonet list` (default: <name>'s table)")
    ho.add_argument("--players", type=int, default=4, help="2..10 seats in all (default 4)")
    _add_rule_options(ho)
    ho.add_argument("--bots", type=int, default=0, metavar="K", help="seats kept for the host's bots")
    ho.add_argument("--port", type=int, default=47800, help="TCP port (default 47800; 0: any free port)")
    ho.add_argument("--bind", metavar="ADDR", help="listen and announce only on the interface holding ADDR")
    ho.add_argument("--discovery-port", type=int, default=47777, help="UDP discovery port (default 47777)")
    ho.add_argument("--dealer-only", action="store_true", help="deal and referee without holding a seat")
    ho.add_argument("--turn-timeout", type=float, metavar="S",
                    help="seconds a seat has for its turn before the table plays it (draw/pass); "
                         "default 90 in the full-screen host; with --no-ui none, but a turn owed "
                         "for 60 s is still played (a stalled table never hangs)")
    ho.add_argument("--bot-pace", type=float, default=0.0, metavar="S",
                    help="a bot sends each answer S seconds after the message that asked for it, whatever its choices (default 0: as soon as it has decided)")
    ho.add_argument("--hold-seats", type=float, default=HOLD_SEATS, metavar="S",
                    help=f"a player whose link drops mid-match keeps its seat: the table waits S seconds "
                         f"for it to come back (`unonet join` again, same identity: seat and hand back), "
                         f"then a bot plays the seat until it does (default {HOLD_SEATS:g})")
    ho.add_argument("--observers", type=int, default=OBSERVERS, metavar="N",
                    help=f"observers (scorekeepers, watching screens) admitted at once; more are refused "
                         f"(default {OBSERVERS}; at most 16)")
    ho.add_argument("--matches", type=int, metavar="N",
                    help="matches to play before the table closes (default: 1 with --no-ui, where the "
                         "next starts by itself once every seat is back; as many as you start in the client)")
    ho.add_argument("--seed", type=int, help="seed of the first dealer choice (the deal is always fair-random)")
    ho.add_argument("--no-ui", action="store_true", help="headless")
    ho.add_argument("--json", action="store_true", help="with --no-ui: one JSON object per line")
    ho.set_defaults(func=cmd_host)

    jo = sub.add_parser("join", help="join a table on the LAN (found by discovery, or HOST[:PORT])",
                        description="Join a table. Without an address: probe the LAN and join the one "
                                    "table found (several: they are listed, name one). --code checks the "
                                    "host's key before ours is sent; without it the host's key is pinned on "
                                    "first use. --no-ui without --bot: this seat is played from stdin, "
                                    "the table told in lines of words and moves typed as words (R7, W G, "
                                    "draw, pass, challenge, catch 2) or in the scenario notation; with "
                                    "--json one JSON object per line (a state line shows the hand). "
                                    "Exit 0 after the match; 1 if it was not played out: the host closed the "
                                    "table (said plainly), or the table failed (refused, full, gone, a "
                                    "fair-play check failed); 2 bad input (an option, or an address that cannot be one).")
    jo.add_argument("address", nargs="?", metavar="HOST[:PORT]", help="the table's address (default port 47800)")
    jo.add_argument("--name", default="player", help="your name at the table")
    jo.add_argument("--code", metavar="C", help="the join code the host shows (XXXX-XXXX-XX)")
    jo.add_argument("--bot", action="store_true", help="let a bot play this seat")
    jo.add_argument("--bot-pace", type=float, default=0.0, metavar="S",
                    help="a bot sends each answer S seconds after the message that asked for it, whatever its choices (default 0: as soon as it has decided)")
    jo.add_argument("--bind", metavar="ADDR", help="discover only on the interface holding ADDR")
    jo.add_argument("--discovery-port", type=int, default=47777, help="UDP discovery port (default 47777)")
    jo.add_argument("--timeout", type=float, default=1.0, metavar="S",
                    help="seconds to look for tables, more than 0 and at most 60 (default 1); "
                         "when none answered, it looks once more before saying so")
    jo.add_argument("--matches", type=int, default=1, metavar="N",
                    help="with --no-ui: matches to stay for (default 1; a match-over line each); the "
                         "client stays as long as the table goes on (q leaves)")
    jo.add_argument("--no-ui", action="store_true",
                    help="no full screen: a bot plays (--bot), or you type moves as words, the table said in lines")
    jo.add_argument("--json", action="store_true", help="with --no-ui: one JSON object per line")
    jo.set_defaults(func=cmd_join)

    sc = sub.add_parser(
        "score", help="the scorekeeper: standings, history and checks of recorded matches",
        usage="unonet score [--db FILE] [--json] {standings|history [--player NAME|KEY]|match ID|export ID|verify}\n"
              "       unonet score [--db FILE] [--code C] [--no-ui] [--json] [--name NAME] [--bind ADDR]\n"
              "                    [--discovery-port PORT] [--timeout S] [HOST[:PORT]]",
        description="The scorekeeper's database of verified, hash-chained rounds (docs/scorekeeper.md). "
                    "Views: standings (every player, followed by key), history [--player NAME|KEY], "
                    "match ID (every round; ID is the number from history or a prefix of the match id), "
                    "export ID (CSV), verify (exit 0 when every row checks, 1 naming the first bad row). "
                    "Without a view: attach to a table as an observer (found by discovery like `unonet join`, "
                    "or HOST[:PORT]), check every round as the players do and record it (a round that fails a "
                    "check is recorded disputed, with the reason); the live standings board, or with --no-ui "
                    "--json one line per recorded round and the players' match-over line at each match's end. "
                    "Exit 0 when the table closes; 1 when it failed (gone, refused, a fair-play check failed). "
                    "Exit 2: bad input, or a database that is missing, not ours, locked, corrupted or newer.")
    sc.add_argument("words", nargs="*", metavar="VIEW [ID] | HOST[:PORT]",
                    help="standings, history, match ID, export ID, verify; or a table to attach to")
    sc.add_argument("--db", metavar="FILE", type=_db_file,
                    help="the database (default $UNONET_HOME/scores.db, else $XDG_DATA_HOME/unonet/scores.db, "
                         "else ~/.local/share/unonet/scores.db)")
    sc.add_argument("--json", action="store_true", help="one JSON object (attach --no-ui: one per line)")
    sc.add_argument("--player", metavar="NAME|KEY", help="history: only this player's matches (by any name "
                                                        "their key went by, or a key prefix)")
    sc.add_argument("--code", metavar="C", help="(attach) the table's join code: checks the host's key")
    sc.add_argument("--no-ui", action="store_true", help="(attach) no screen; with --json one line per round")
    sc.add_argument("--name", default="scorekeeper", help="(attach) the name the table lists this observer by")
    sc.add_argument("--bind", metavar="ADDR", help="(attach) discover only on the interface holding ADDR")
    sc.add_argument("--discovery-port", type=int, default=47777, help="(attach) UDP discovery port (default 47777)")
    sc.add_argument("--timeout", type=float, default=1.0, metavar="S", help="(attach) seconds to look for tables, more than 0 and at most 60 (default 1)")
    sc.set_defaults(func=cmd_score)
    return p


def _printable_streams() -> None:
    """A name or a "§" that the terminal's code page cannot show (a Windows pipe writes
    cp1252) is escaped, never a UnicodeEncodeError traceback."""
    for stream in (sys.stdout, sys.stderr):
        if hasattr(stream, "reconfigure") and (stream.encoding or "").lower().replace("-", "") != "utf8":
            stream.reconfigure(errors="backslashreplace")


def main(argv=None) -> int:
    _printable_streams()
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return args.func(args)
    except UsageError as e:
        msg = str(e)
        print(msg if msg.startswith("unonet") else f"unonet: {msg}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except (KeyboardInterrupt, BaseExceptionGroup, OSError) as e:
        # trio hands these up from inside its nurseries, often wrapped in exception groups;
        # only a command that loaded the network layer can have raised BindFailed (and a ^C
        # while `play` runs must not load trio and cryptography to say "interrupted")
        bad = None
        if "unonet.net._errors" in sys.modules:
            bad = _first_of(e, sys.modules["unonet.net._errors"].BindFailed)
        if bad is not None:
            print(f"unonet: {bad}", file=sys.stderr)
            return 2
        if _first_of(e, KeyboardInterrupt) is not None:
            print("unonet: interrupted", file=sys.stderr)
            return 130
        if _first_of(e, BrokenPipeError) is not None:
            return 0
        raise


def _first_of(exc: BaseException, kind: type) -> BaseException | None:
    """``exc`` itself, or the first ``kind`` in its (nested) exception groups."""
    todo = [exc]
    while todo:
        e = todo.pop(0)
        if isinstance(e, kind):
            return e
        todo.extend(getattr(e, "exceptions", ()))
    return None
