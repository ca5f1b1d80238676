"""Every message of unonet protocol version 1, as self-checking frozen dataclasses.

A round's moves are not link message types: they travel as `fair` messages (a seat's
signed ``act``, the host's fair events; spec §6). The schema says who may send what.

Fields are described once, here; ``protocol/spec.md``'s message reference is
generated from these classes (``protocol/make_vectors.py --spec``).
"""

from __future__ import annotations

import json

from ._schema import (
    _Bad, DATAGRAM, HOST, OBSERVER, PLAYER, Blob, Bool, Enum, Int, ListOf, Message,
    Nested, Record, Text, f, message, record,
)

from ._errors import LocalProtocolError
from ..names import CONTROL_RE as _CONTROL_RE  # the one definition, shared with the client

PROTOCOL_VERSION = 4
MIN_PROTOCOL_VERSION = 4
#: the extensions within this version a peer of this code understands (`hello.features`, spec
#: §4.4): ``away-start``, a fresh `match-start` naming seats away at the start (its top-level
#: ``away``, §6.1.1): a host sends one only when every peer at the table announced it
AWAY_START = "away-start"
#: a seat back on its own turn reads `rejoin.turn_left` and holds the host to that, not to a
#: whole clock from its return (spec §4.4, §5 step 6)
TURN_LEFT = "turn-left"
#: a seat back while it owes a word on the 10 s clock (a seed commitment or reveal, a challenge
#: answer, key or verdict) reads `rejoin.word_left` and holds the host to that, not to a whole
#: clock from its return (spec §4.4, §5 step 6)
WORD_LEFT = "word-left"
FEATURES = (AWAY_START, TURN_LEFT, WORD_LEFT)

ANYONE = (HOST, PLAYER, OBSERVER)
PEERS = (HOST, PLAYER)

U32 = 2**32 - 1
MAX_SEATS = 10
MAX_POSITIONS = 4096  # deck positions committed in one round (first deck + reshuffles)
MAX_HAND = 256
MAX_SEALED = 256  # bytes in one sealed opening
MAX_BEACON_HOUSE = 16  # house rules a beacon lists: at its caps a beacon is < 1200 bytes
MAX_LEDGER_ENTRIES = 200  # at its caps a ledger message fits one frame (spec §8)

VERSION = Int(1, 255)
SEAT = Int(0, MAX_SEATS - 1)
SEQ = Int(0, U32)
ROUND = Int(0, U32)
POINTS = Int(0, U32)
TEAM = Int(0, 1)
PEER_ID = Blob(32)  # SHA-256 fingerprint of the peer's Noise static key
TABLE_ID = Blob(16)
MATCH_ID = Blob(16)
HASH = Blob(32)
SECRET = Blob(32)
PUBKEY = Blob(32)
SIGNATURE = Blob(64)
NONCE = Blob(8)
NAME = Text(32, 1)
TOKEN = Text(32, 1, pattern=r"[a-z0-9][a-z0-9+._-]*")


def _version_range(msg) -> None:
    if msg.vmin > msg.v:
        raise _Bad(f"{msg._PREFIX}.vmin", f"greater than v={msg.v}", msg.vmin)


def _unique_seats(path: str, seats) -> None:
    seen = set()
    for s in seats:
        if s in seen:
            raise _Bad(path, "seat listed twice", s)
        seen.add(s)


def _guilty_needs_proof(msg) -> None:
    if msg.guilty and msg.proof is None:
        raise _Bad(f"{msg._PREFIX}.proof", "a guilty verdict needs a proof opening", None)
    if not msg.guilty and msg.proof is not None:
        raise _Bad(f"{msg._PREFIX}.proof", "an innocent verdict carries no proof", msg.proof)


# --- nested records -------------------------------------------------------


@record
class PlayerEntry(Record):
    seat: int = f(SEAT)
    id: bytes = f(PEER_ID, doc="fingerprint of the player's Noise static key")
    name: str = f(NAME)
    team: int | None = f(TEAM, None, "present only at a partners table")
    addr: str = f(Text(64), "", "host:port where this peer would listen if elected host")
    connected: bool = f(Bool(), True)
    bot: bool = f(Bool(), False, "a bot is playing this seat now")
    left: bool = f(Bool(), False, "not connected because its player left (`leave`), not a lost link: "
                                  "a bot plays the seat now; the same key may still take it back")
    turn_left: int | None = f(Int(0, 3_600_000), None,
                              "only in the roster that says a seat is connected again (its player back, "
                              "spec §7 rejoin): on that seat's entry while its own act is owed, else on the "
                              "entry of the seat whose act is owed on a clock (for the returning screen's "
                              "count only: no check goes by it); the milliseconds left of that turn's "
                              "clock as the host sends this roster (§5 step 6); screens count it down from here")


@record
class ObserverEntry(Record):
    id: bytes = f(PEER_ID)
    name: str = f(NAME)




@record
class SeatPoints(Record):
    seat: int = f(SEAT)
    points: int = f(POINTS)


@record
class LedgerEntry(Record):
    round: int = f(ROUND)
    winner: int | None = f(SEAT, None, "absent for a voided round")
    points: tuple[SeatPoints, ...] = f(ListOf(Nested(SeatPoints), MAX_SEATS), ())
    hash: bytes = f(HASH, doc="SHA-256 chain hash of this entry and the previous one")


# --- discovery (UDP datagrams, plaintext, untrusted hints) ----------------


@message("beacon", senders=(HOST,), channel=DATAGRAM)
class Beacon(Message):
    """A host announces its table once a second, and at once in answer to a probe."""

    v: int = f(VERSION, doc="highest protocol version the host speaks")
    vmin: int = f(VERSION, doc="lowest protocol version the host speaks")
    table: bytes = f(TABLE_ID)
    name: str = f(NAME, doc="table name")
    host: str = f(NAME, doc="host player's name")
    port: int = f(Int(1, 65535), doc="TCP port of the table")
    seats: int = f(Int(2, MAX_SEATS))
    taken: int = f(Int(0, MAX_SEATS))
    rules: str = f(TOKEN, doc="rule preset name")
    house: tuple[str, ...] = f(ListOf(TOKEN, MAX_BEACON_HOUSE), (),
                               "house rules in force (at most 16 here: a beacon fits 1200 bytes)")
    teams: bool = f(Bool(), False)
    target: int = f(Int(1, 100000), 500)
    state: str = f(Enum("lobby", "playing", "ended"), "lobby")
    fp: bytes = f(PEER_ID, doc="fingerprint of the host's static key (the join code is its prefix)")
    nonce: bytes | None = f(NONCE, None, "echo of the probe this beacon answers")

    def _check(self) -> None:
        _version_range(self)
        if self.taken > self.seats:
            raise _Bad("beacon.taken", f"more than seats={self.seats}", self.taken)



@message("probe", senders=(PLAYER, OBSERVER), channel=DATAGRAM)
class Probe(Message):
    """A joining peer asks every host on the LAN to beacon now."""

    v: int = f(VERSION)
    vmin: int = f(VERSION)
    nonce: bytes = f(NONCE)

    def _check(self) -> None:
        _version_range(self)



# --- session ---------------------------------------------------------------


@message("hello", senders=ANYONE)
class Hello(Message):
    """First message each way after the Noise handshake: version, role, identity."""

    v: int = f(VERSION, doc="highest protocol version the sender speaks")
    vmin: int = f(VERSION, doc="lowest protocol version the sender speaks")
    role: str = f(Enum(HOST, PLAYER, OBSERVER))
    name: str = f(NAME)
    sign_key: bytes = f(PUBKEY, doc="sender's long-term Ed25519 public key")
    seal_key: bytes = f(PUBKEY, doc="sender's X25519 key for sealed openings (not the Noise static)")
    sig: bytes = f(SIGNATURE, doc="Ed25519 over the hello binding (spec §4.3)")
    cert: bytes | None = f(SIGNATURE, None, "Ed25519 over the identity certificate: static key and seal key "
                           "(spec §6.1); a fair table needs it")
    table: bytes | None = f(TABLE_ID, None, "table the sender means (joiner) or is (host)")
    client: str = f(Text(64), "", "software name and version, informational")
    features: tuple[str, ...] = f(ListOf(TOKEN, 32), (), "optional extensions the sender understands")
    listen: int | None = f(Int(1, 65535), None, "a player's TCP port where it would listen if elected host (§7)")
    resume: tuple[bytes, ...] = f(ListOf(MATCH_ID, 8), (), "an observer's: match ids it holds open, whose end it "
                                  "missed; the host replays the one it finished (§5 step 3)")

    def _check(self) -> None:
        _version_range(self)



@message("seat", senders=(HOST,))
class SeatAssignment(Message):
    """The host gives a joining player its seat."""

    seat: int = f(SEAT)
    id: bytes = f(PEER_ID)
    team: int | None = f(TEAM, None)
    rejoin: bool = f(Bool(), False, "the seat is given back in a match under way: its `rejoin` and the replay "
                     "follow the `roster` (§7 rejoin); a client says so, not \"waiting for the start\"")


@message("roster", senders=(HOST,))
class Roster(Message):
    """Everything every peer must agree on about the table; re-sent on each change."""

    table: bytes = f(TABLE_ID)
    epoch: int = f(SEQ, doc="increases with every roster change")
    host: bytes = f(PEER_ID)
    players: tuple[PlayerEntry, ...] = f(ListOf(Nested(PlayerEntry), MAX_SEATS))
    observers: tuple[ObserverEntry, ...] = f(ListOf(Nested(ObserverEntry), 16), ())
    succession: tuple[bytes, ...] = f(ListOf(PEER_ID, MAX_SEATS), (), "election order (§5)")
    rules: str = f(TOKEN)
    house: tuple[str, ...] = f(ListOf(TOKEN, 32), ())
    target: int = f(Int(1, 100000), 500)
    teams: bool = f(Bool(), False)
    scoring: str = f(Enum("standard", "elimination"), "standard")
    name: str = f(Text(32), "", "the table's name, as its beacons give it (a joiner that typed an "
                  "address learns it here)")
    seats: int = f(Int(0, MAX_SEATS), 0, "how many seats the table has (the lobby shows the empty ones; "
                   "0: as many as `players` lists)")
    clock: int = f(Int(0, 3_600_000), 0, "the turn clock in milliseconds: how long a seat has for each act "
                   "before the table makes its default move (0: none given); screens count it down")

    def _check(self) -> None:
        _unique_seats("roster.players", (p.seat for p in self.players))



@message("leave", senders=ANYONE)
class Leave(Message):
    """Polite goodbye before closing the link."""

    reason: str = f(Text(200), "")


@message("heartbeat", senders=ANYONE)
class Heartbeat(Message):
    """Sent every second by everyone; a joiner gives up on a host silent for 3 s in a match, 10 s before it (§5)."""

    seq: int = f(SEQ)
    head: bytes | None = f(HASH, None, "sender's ledger head hash")
    took: int | None = f(SEQ, None, "host to a player: the messages of this link the host has acted on, "
                                    "the player's hello the first (§5 step 5, §6.1 step 3)")


@message("error", senders=ANYONE)
class ErrorReport(Message):
    """Tells the peer what it did wrong before (if ``fatal``) the link is dropped."""

    code: str = f(TOKEN)
    message: str = f(Text(256), "")
    field: str | None = f(Text(96), None, "path of the offending field, e.g. turn.seat")
    ref: str | None = f(TOKEN, None, "type of the offending message")
    fatal: bool = f(Bool(), True)
    refuses: bytes | None = f(HASH, None, "a refusal of a `fair` message: SHA-256 of its `body` (§4.6)")


@message("ready", senders=(PLAYER,))
class Ready(Message):
    """Between rounds: the player is ready for the next round to be dealt."""

    round: int = f(ROUND, doc="the round the player is ready for (the next round number)")


@message("match_over", senders=(HOST,))
class MatchOver(Message):
    """The match is decided; every peer checks it against its own engine and ledger."""

    winner: int = f(SEAT, doc="winning seat, or winning team (0/1) at a partners table")
    scores: tuple[int, ...] = f(ListOf(POINTS, MAX_SEATS, 1),
                                doc="final scores, one per seat in seat order (per team with teams)")
    rounds: int = f(ROUND, doc="completed rounds")
    ledger: bytes = f(HASH, doc="hash of the last completed round's ledger entry")

    def _check(self) -> None:
        if self.winner >= len(self.scores):
            raise _Bad("match_over.winner", f"no score for {self.winner} "
                       f"({len(self.scores)} listed)", self.winner)


# --- fair play: the fair layer's public events, one to one ------------------
#
# Every event of ``unonet.fair`` (docs/fair-play.md §1-§5) travels as one
# ``fair`` message whose ``body`` is exactly the event's canonical JSON
# (``Event.canonical()``), the very bytes the fair layer folds into the round
# digest the host signs.  Carrying those bytes verbatim means every field the
# fair layer signs, commits or checks reaches every peer, and no re-encoding can
# make two peers disagree about the digest.  The decoder parses the body with
# the fair layer's own parser, insists the body is canonical, and checks the
# sizes and ranges below.

FAIR_EPOCH = Int(0, 255)
MAX_FAIR_BODY = 65_000  # the whole message must still fit one Noise frame (§8)
MAX_EPOCH_POSITIONS = 768  # commitments in one `commitments` event (fits one frame)
MAX_DEAL_SEAL = MAX_SEALED  # one sealed opening (e_pub 32 + opening + tag 16)
MAX_CHALLENGE_SEAL = 32_768  # a sealed list of up to MAX_HAND openings
MAX_GAME_DEPTH = 16

# Events a player originates (the host relays them verbatim to everyone).
PLAYER_FAIR_EVENTS = frozenset({
    "match-join", "player-commit", "player-reveal", "act", "reveal", "challenge-response",
    "challenge-verdict", "challenge-dispute", "challenge-key", "round-sign", "deal-dispute",
})
FAIR_EVENT_NAMES = (
    "match-start", "match-join", "round-abort", "round-sign", "round-start", "seed-commit", "player-commit", "player-reveal", "commitments", "deal",
    "turn-up", "act", "host-act", "reveal", "flip", "challenge", "challenge-response",
    "challenge-timeout", "verdict-timeout", "challenge-verdict", "challenge-dispute", "challenge-key",
    "seed-reveal", "round-end", "game", "deal-dispute", "deal-key",
)

_SEAT_FIELDS = ("seat", "host_seat", "challenger", "challenged")
_POS_FIELDS = ("position", "base")
_HASH_FIELDS = ("host_commit", "commit", "digest", "start", "history", "seen")
MAX_NAME_CHARS = 32  # a seat's name in match-start (spec §7's player name rule)
_SECRET_FIELDS = ("secret", "host_secret")


def _fair_bad(path: str, why: str, value=None) -> _Bad:
    return _Bad(path, why, value)


def _check_opening(op, path: str) -> None:
    if not 0 <= op.position < MAX_POSITIONS:
        raise _fair_bad(f"{path}.pos", f"out of range 0..{MAX_POSITIONS - 1}", op.position)


def _check_list(v, path: str, lo: int, hi: int) -> None:
    if not lo <= len(v) <= hi:
        raise _fair_bad(path, f"must hold {lo}..{hi} items (has {len(v)})", len(v))


def _depth(obj, limit: int) -> bool:
    """Does ``obj`` hold a value deeper than ``limit``?  ``obj`` is at depth 1 and a value
    inside a container one deeper than the container.  Level by level, containers only."""
    level = [obj] if isinstance(obj, _CONTAINERS) else []
    for _ in range(limit - 1):
        below = []
        for c in level:
            for x in c.values() if isinstance(c, dict) else c:
                if type(x) not in _SCALARS and isinstance(x, _CONTAINERS):
                    below.append(x)
        if not below:
            return False
        level = below
    return any(len(c) for c in level)


_CONTAINERS = (dict, list)
_SCALARS = frozenset({str, int, float, bool, type(None)})  # (what JSON holds besides containers)


# The engine action an `act` or `host-act` carries (spec §6.1.1), field by field: the
# fair layer signs it as any JSON object, so its types are checked here, where it enters
# (a seat number 2.0 or true would be signed, published and only refused by the engine,
# wedging the round).  A seat's `seat` is the act's own (the fair layer's events may
# leave it out; the engine's always carry it); `None` marks a field that must be null.
_POS = Int(0, MAX_POSITIONS - 1)
_COLOUR = Text(1, 1, pattern="[RYGBPTOU]")
_ACTION_FIELDS: dict[str, dict[str, tuple[object, bool]]] = {
    # name: {field: (kind, required)}
    "play": {"seat": (SEAT, False), "pos": (_POS, True), "color": (_COLOUR, False), "uno": (Bool(), False)},
    "draw": {"seat": (SEAT, False)},
    "pass": {"seat": (SEAT, False)},
    "challenge": {"seat": (SEAT, False)},
    "calluno": {"seat": (SEAT, False)},
    "respond": {"seat": (SEAT, False)},
    "catch": {"seat": (SEAT, False), "target": (SEAT, True)},
    "swap": {"seat": (SEAT, False), "target": (SEAT, True)},
    "choosecolor": {"seat": (SEAT, False), "color": (_COLOUR, True)},
    "closerace": {"seat": (None, False)},  # the referee's: no seat
}
ACTION_TYPES = tuple(_ACTION_FIELDS)


def check_action(action, path: str, *, host: bool = False) -> None:
    """One engine action as JSON: a known `t`, every field of its type (ints are ints, not
    floats or booleans), nothing else; `closerace` only from the host (`host-act`)."""
    if type(action) is not dict:
        raise _fair_bad(path, "expected an object", None)
    t = action.get("t")
    if type(t) is not str or t not in _ACTION_FIELDS:
        raise _fair_bad(f"{path}.t", f"expected one of {', '.join(ACTION_TYPES)}", t if type(t) is str else None)
    if t == "closerace" and not host:
        raise _fair_bad(f"{path}.t", "only the host's referee closes a race", t)
    spec = _ACTION_FIELDS[t]
    for key in action:
        if key != "t" and key not in spec:
            raise _fair_bad(f"{path}.{key}" if type(key) is str and len(key) <= 16 else path,
                            f"a {t} action has no such field", None)
    for key, (kind, required) in spec.items():
        v = action[key] if key in action else None
        if v is None:
            if required:
                raise _fair_bad(f"{path}.{key}", "required field missing", None)
            continue
        if kind is None:
            raise _fair_bad(f"{path}.{key}", "must be null", v if type(v) in (int, str) else None)
        try:
            kind.check(v, key, True)
        except _Bad as bad:  # (the field's path, built only for the error)
            raise _fair_bad(f"{path}.{key}", bad.why, bad.value) from None


# -- the wire rules of a fair event's fields, by field name ---------------------------------
# Each rule takes the field's value (never None: an absent optional field has no rule to
# keep) and the event, and raises `_Bad` with the path below the field ("" for the field
# itself); `check_fair_event` prefixes the field's own path, so no path is built for a
# field that keeps its rule.  Fields without a rule here (`round`, `guilty`, `host`, `n`:
# u32 / bool / keys) are checked by the fair layer's parser.


def _below(n: int):
    def rule(v, event) -> None:
        if not 0 <= v < n:
            raise _fair_bad("", f"out of range 0..{n - 1}", v)
    return rule


def _bytes_long(n: int):
    def rule(v, event) -> None:
        if len(v) != n:
            raise _fair_bad("", f"must be {n} bytes long (is {len(v)})", v)
    return rule


def _list_of(lo: int, hi: int, item=None):
    """A list of ``lo``..``hi`` items, each kept by ``item(x)`` (a message for `_Bad`, or None)."""
    def rule(v, event) -> None:
        _check_list(v, "", lo, hi)
        if item is not None:
            for i, x in enumerate(v):
                why = item(x)
                if why is not None:
                    raise _fair_bad(f"[{i}]", why, x)
    return rule


def _seat_item(x):
    return None if 0 <= x < MAX_SEATS else f"out of range 0..{MAX_SEATS - 1}"


def _position_item(x):
    return None if 0 <= x < MAX_POSITIONS else f"out of range 0..{MAX_POSITIONS - 1}"


def _hash_item(c):
    return None if len(c) == 32 else f"must be 32 bytes long (is {len(c)})"


def _name_item(nm):
    if 1 <= len(nm) <= MAX_NAME_CHARS and not _CONTROL_RE.search(nm):
        return None
    return f"must be 1..{MAX_NAME_CHARS} printable characters"


def _sealed(hi: int):
    def rule(v, event) -> None:
        if not 48 <= len(v) <= hi:
            raise _fair_bad("", f"must be 48..{hi} bytes long (is {len(v)})", len(v))
    return rule


def _opening(op, event) -> None:
    _check_opening(op, "")


def _openings(hi: int):
    def rule(v, event) -> None:
        _check_list(v, "", 0, hi)
        for i, op in enumerate(v):
            _check_opening(op, f"[{i}]")
    return rule


def _short_text(v, event) -> None:
    if not 1 <= len(v) <= 64 or _CONTROL_RE.search(v):
        raise _fair_bad("", "must be 1..64 printable characters", v)


def _action(host: bool, own_seat: bool):
    def rule(v, event) -> None:
        check_action(v, "", host=host)
        if own_seat and v.get("seat", event.seat) != event.seat:
            raise _fair_bad(".seat", f"differs from the act's seat {event.seat}", v.get("seat"))
    return rule


def _shallow(v, event) -> None:
    if _depth(v, MAX_GAME_DEPTH):
        raise _fair_bad("", f"nested deeper than {MAX_GAME_DEPTH}", None)


def _no_rule(name: str):  # pragma: no cover - a new fair field must get a wire rule here
    def rule(v, event) -> None:
        raise _fair_bad("", "field has no wire rule", name)
    return rule


def _wire_rule(name: str, ev: str):
    """The rule of field ``name`` in a fair event named ``ev`` (None: the parser's checks do)."""
    if name in _SEAT_FIELDS:
        return _below(MAX_SEATS)
    if name in _POS_FIELDS:
        return _below(MAX_POSITIONS)
    if name == "epoch":
        return _below(256)
    if name == "number":  # a challenge number (challenge-verdict, challenge-dispute): at most one a wild draw dealt
        return _below(MAX_POSITIONS)
    if name == "side":
        return _below(2)
    if name in _HASH_FIELDS or name in _SECRET_FIELDS:
        return _bytes_long(32)
    if name in ("sig", "tally"):
        return _bytes_long(64)
    if name in ("table", "nonce"):
        return _bytes_long(16)
    if name == "sealed":
        return _sealed(MAX_CHALLENGE_SEAL if ev == "challenge-response" else MAX_DEAL_SEAL)
    if name == "commitments":
        return _list_of(1, MAX_EPOCH_POSITIONS, _hash_item)
    if name == "sources":
        return _list_of(0, MAX_POSITIONS, _position_item)
    if name == "positions":  # (empty: a Wild Draw Four played as the last card leaves no hand to show)
        return _list_of(0, MAX_HAND, _position_item)
    if name == "seats":
        return _list_of(2, MAX_SEATS)
    if name == "names":
        return _list_of(2, MAX_SEATS, _name_item)
    if name in ("stalled", "absent", "waived", "away"):
        return _list_of(0 if name == "stalled" else 1, MAX_SEATS, _seat_item)
    if name == "attempt":
        def attempt(v, event) -> None:
            if not 1 <= v <= 255:
                raise _fair_bad("", "out of range 1..255", v)
        return attempt
    if name == "deck":
        return _list_of(1, MAX_POSITIONS)
    if name in ("opening", "proof"):
        return _opening
    if name == "openings":
        return _openings(MAX_HAND if ev == "reveal" else MAX_POSITIONS)
    if name in ("deck_name", "public", "colour", "reason"):
        return _short_text
    if name == "action":
        return _action(host=ev == "host-act", own_seat=ev == "act")
    if name in ("data", "rules", "continues"):  # continues: checked by unonet.table._handover
        return _shallow
    if name in ("round", "guilty", "host", "n"):
        return None
    return _no_rule(name)


_WIRE_RULES: dict[type, tuple] = {}


def _wire_rules(cls) -> tuple:
    """A fair event class's fields that have a wire rule, in field order, with their rules."""
    if cls in _WIRE_RULES:
        return _WIRE_RULES[cls]
    import dataclasses as _dc

    pairs = ((fl.name, _wire_rule(fl.name, cls.EV)) for fl in _dc.fields(cls))
    rules = _WIRE_RULES[cls] = tuple((name, rule) for name, rule in pairs if rule is not None)
    return rules


def check_fair_event(event, path: str = "fair.body") -> None:
    """Wire sizes and ranges of one fair event (the fair layer checks the types)."""
    for name, rule in _wire_rules(type(event)):
        v = getattr(event, name)
        if v is not None:
            try:
                rule(v, event)
            except _Bad as bad:
                raise _fair_bad(f"{path}.{name}{bad.path}", bad.why, bad.value) from None


def _parse_fair(body: bytes, ev: str, path: str):
    """The event in ``body``, checked: canonical ASCII JSON of a fair event named ``ev`` that
    keeps the wire rules.  A body checked once in this process is not parsed again (`_CHECKED`)."""
    if body in _CHECKED:
        event = _CHECKED[body]
    else:
        event = _CHECKED[body] = _parse_body(body, path)
    if event.EV != ev:
        raise _fair_bad(f"{path}.ev", f"body is a {event.EV!r} event", ev)
    return event


def _no_constant(name: str):
    """`NaN`, `Infinity` and `-Infinity` are Python's, not JSON's (RFC 8259): a peer written in
    another language refuses them, so every party refuses them alike (spec §6.1)."""
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_no_constant)
_SCAN_JSON = _DECODER.scan_once  # (the C scanner json.loads runs, without its wrapper)


def _read_json(text: str):
    """`json.loads(text)` without NaN or Infinity: a text that is one JSON value from its first
    character to its last (a canonical body always is) is read by the scanner alone; anything
    else by the decoder, whose value or error it is."""
    try:
        obj, end = _SCAN_JSON(text, 0)
    except Exception:
        return _DECODER.decode(text)
    return obj if end == len(text) else _DECODER.decode(text)


_Event = None  # unonet.fair's Event, imported at the first body (importing the protocol loads no fair layer)


def _parse_body(body: bytes, path: str):
    global _Event
    if _Event is None:
        from unonet.fair._events import Event as _Event
    try:
        text = body.decode("ascii")
        obj = _read_json(text)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise _fair_bad(f"{path}.body", "not canonical ASCII JSON", None) from None
    try:
        event = _Event.from_json(obj)
    except Exception as exc:  # the fair parser's errors, or anything odd: all mean malformed
        raise _fair_bad(f"{path}.body", f"not a fair event: {exc}"[:160], None) from None
    try:
        canonical = event.keep_canonical(obj, text)
    except (ValueError, TypeError, RecursionError):  # pragma: no cover
        raise _fair_bad(f"{path}.body", "not canonical JSON", None) from None
    if not canonical:
        raise _fair_bad(f"{path}.body", "not the event's canonical JSON (sorted keys, no spaces)", None)
    check_fair_event(event, f"{path}.body")
    return event


@message("fair", senders=PEERS)
class Fair(Message):
    """One fair-play event (docs/fair-play.md §1-§4), byte for byte as the fair layer
    digests it; the host relays every event of the round to every peer, in order."""

    round: int = f(ROUND, doc="round number (the `round` of this round's `round-start`)")
    ev: str = f(Enum(*FAIR_EVENT_NAMES), doc="the event's `ev` name (repeated inside `body`)")
    body: bytes = f(Blob(lo=2, hi=MAX_FAIR_BODY),
                    doc="the event's canonical JSON (`Event.canonical()`), ASCII")

    def _check(self) -> None:
        event = _parse_fair(self.body, self.ev, self._PREFIX)
        if event.EV == "round-start" and event.round != self.round:
            raise _Bad("fair.round", f"differs from round-start's round {event.round}", self.round)

    @classmethod
    def of(cls, event, round: int) -> "Fair":
        """Wrap a ``unonet.fair`` event.  Its body is the event's own canonical JSON, so it is
        not parsed back: the wire rules are checked on the event itself, and every reader
        of the message in this process is handed this very event."""
        body = event.canonical().encode("ascii")
        if body not in _CHECKED:
            try:
                check_fair_event(event, f"{cls._PREFIX}.body")
            except _Bad as bad:
                raise LocalProtocolError(bad.why, field=bad.path, value=bad.value) from None
            _CHECKED[body] = event
        return cls(round=round, ev=event.EV, body=body)

    def event(self):
        """The ``unonet.fair`` event this message carries (events are immutable values:
        the one parsed when the message was checked is handed out)."""
        return _parse_fair(self.body, self.ev, self._PREFIX)


class _CheckedBodies(dict):
    """The events of the last few hundred checked `fair` bodies, by body: the host's relay
    of an act, its own seats and bots, and a rejoin's replay read one body many times in one
    process; the JSON parse, the canonical re-serialisation and the wire rules run once.  A
    body maps to one event whoever sent it (the event is a value of the body alone)."""

    LIMIT = 256

    def __setitem__(self, key, value) -> None:
        if len(self) >= self.LIMIT:
            self.pop(next(iter(self)))
        super().__setitem__(key, value)


_CHECKED = _CheckedBodies()


# --- host advice and results (host -> all) ---------------------------------
# A round's moves travel as `fair` events only (spec §6): signed `act`s and the host's
# fair events. `turn` is advice for clocks; `round_end` the points.


@message("turn", senders=(HOST,))
class Turn(Message):
    """Whose move it is and how long they have (0 = no limit)."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    timeout_ms: int = f(Int(0, 3_600_000), 0)


@message("round_end", senders=(HOST,))
class RoundEnd(Message):
    """Round over: points and running totals (the evidence travels as `fair` events:
    every `seed-reveal`, then the host-signed `round-end` digest)."""

    round: int = f(ROUND)
    reason: str = f(Enum("out", "blocked", "voided"),
                    doc="out: a seat went out; blocked: nobody could (the deck ran dry, or the action "
                        "limit), no winner; voided: the round was abandoned")
    winner: int | None = f(SEAT, None)
    points: tuple[SeatPoints, ...] = f(ListOf(Nested(SeatPoints), MAX_SEATS), ())
    totals: tuple[SeatPoints, ...] = f(ListOf(Nested(SeatPoints), MAX_SEATS), ())
    final: bool = f(Bool(), False, "the match is over")

    def _check(self) -> None:
        if self.reason == "out" and self.winner is None:
            raise _Bad("round_end.winner", "a round won by going out names its winner", self.winner)



# --- match continuity --------------------------------------------------------


@message("ledger", senders=ANYONE)
class Ledger(Message):
    """The hash-chained match ledger (or its head), handed over after an election."""

    match: bytes = f(MATCH_ID)
    rounds: int = f(ROUND, doc="completed rounds")
    head: bytes = f(HASH)
    entries: tuple[LedgerEntry, ...] = f(ListOf(Nested(LedgerEntry), MAX_LEDGER_ENTRIES), (),
                                         "oldest first; a longer ledger travels in several "
                                         "messages, each continuing the last")


@message("election", senders=ANYONE)
class Election(Message):
    """After a host is lost: who the sender computes as successor, and its ledger head (a
    scorekeeper following the election reports too)."""

    term: int = f(SEQ, doc="increases with every election")
    host: bytes = f(PEER_ID, doc="the successor")
    head: bytes = f(HASH)
    rounds: int = f(ROUND)


@message("rejoin", senders=(HOST,))
class Rejoin(Message):
    """A player back in its seat (same key) in the middle of a match, or an observer (a
    scorekeeper) that attached in the middle of one: the host's replay of the match so far
    follows."""

    table: bytes = f(TABLE_ID)
    seat: int | None = f(SEAT, None, "the seat given back; absent for an observer")
    round: int = f(ROUND, 0, "the rounds in the host's match ledger: its `round_end` messages in the replay "
                             "(the last round counts only once its co-signs are relayed, spec §7)")
    at: int = f(SEQ, 0, "how many messages the replay holds (they follow this one)")
    turn_left: int | None = f(Int(0, 3_600_000), None,
                              "present when the seat's own act is owed at the replay's end (its turn under way): "
                              "the milliseconds left of that turn's clock as the host sends this message, "
                              "not a whole clock (§5 step 6, §7 rejoin); the seat's screen and its check "
                              "of a `turn timeout` go by it")
    word_left: int | None = f(Int(0, 3_600_000), None,
                              "present when the seat owes a word on the host's word clock at the replay's end "
                              "(a seed commitment or reveal, a challenge answer, key or verdict): the "
                              "milliseconds left of that clock as the host sends this message, not a whole "
                              "clock (§5 step 6, §7 rejoin); the seat's check of the timeout of that word goes by it")
