"""Every message of unonet protocol version 1, as self-checking frozen dataclasses.

Requests from a player are verbs (``play``, ``draw``); the host's announcement
of what actually happened is a separate past-tense type (``played``, ``drew``)
carrying the seat and a sequence number.  Keeping them apart means the schema
alone says who may send what, and a player can never forge an announcement.

Fields are described once, here; ``protocol/spec.md``'s message reference is
generated from these classes (``protocol/make_vectors.py --spec``).
"""

from __future__ import annotations

from ._schema import (
    _Bad, DATAGRAM, HOST, OBSERVER, PLAYER, Blob, Bool, Card, Color, Enum, Int, ListOf, Message,
    Nested, Record, Text, f, message, record,
)

PROTOCOL_VERSION = 1
MIN_PROTOCOL_VERSION = 1

ANYONE = (HOST, PLAYER, OBSERVER)
PEERS = (HOST, PLAYER)

U32 = 2**32 - 1
MAX_SEATS = 10
MAX_POSITIONS = 4096  # deck positions committed in one round (first deck + reshuffles)
MAX_HAND = 256
MAX_SEALED = 256  # bytes in one sealed opening

VERSION = Int(1, 255)
SEAT = Int(0, MAX_SEATS - 1)
SEQ = Int(0, U32)
ROUND = Int(0, U32)
POS = Int(0, MAX_POSITIONS - 1)
SHUFFLE = Int(0, 255)
POINTS = Int(0, U32)
TEAM = Int(0, 1)
PEER_ID = Blob(32)  # SHA-256 fingerprint of the peer's Noise static key
TABLE_ID = Blob(16)
MATCH_ID = Blob(16)
HASH = Blob(32)
SECRET = Blob(32)
SALT = Blob(32)
PUBKEY = Blob(32)
SIGNATURE = Blob(64)
NONCE = Blob(8)
SEALED = Blob(lo=16, hi=MAX_SEALED)  # ChaCha20-Poly1305 ciphertext incl. 16-byte tag
NAME = Text(32, 1)
TOKEN = Text(32, 1, pattern=r"[a-z0-9][a-z0-9+._-]*")
POSITIONS = ListOf(POS, MAX_HAND, 1)
SEALED_LIST = ListOf(SEALED, MAX_HAND)
DRAW_REASONS = Enum(
    "draw", "keep-drawing", "draw-two", "draw-four", "stack", "challenge",
    "caught", "false-uno", "race", "timeout",
)


def _wild_needs_color(msg) -> None:
    if msg.card.startswith("W") and msg.color is None:
        raise _Bad(f"{msg._PREFIX}.color", f"a wild ({msg.card}) needs a named colour", None)
    if not msg.card.startswith("W") and msg.color is not None:
        raise _Bad(f"{msg._PREFIX}.color", f"only a wild names a colour, not {msg.card}", msg.color)


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


@record
class ObserverEntry(Record):
    id: bytes = f(PEER_ID)
    name: str = f(NAME)


@record
class SeatValue(Record):
    seat: int = f(SEAT)
    value: bytes = f(HASH)


@record
class SeatPositions(Record):
    seat: int = f(SEAT)
    positions: tuple[int, ...] = f(ListOf(POS, MAX_HAND), ())


@record
class SeatPoints(Record):
    seat: int = f(SEAT)
    points: int = f(POINTS)


@record
class Opening(Record):
    """A card commitment opened: C_pos = SHA-256(domain, table, round, pos, card, salt)."""

    pos: int = f(POS)
    card: str = f(Card())
    salt: bytes = f(SALT)


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
    house: tuple[str, ...] = f(ListOf(TOKEN, 32), ())
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
    sig: bytes = f(SIGNATURE, doc="Ed25519 over the hello binding (spec §4.3)")
    table: bytes | None = f(TABLE_ID, None, "table the sender means (joiner) or is (host)")
    client: str = f(Text(64), "", "software name and version, informational")
    features: tuple[str, ...] = f(ListOf(TOKEN, 32), (), "optional extensions the sender understands")

    def _check(self) -> None:
        _version_range(self)



@message("seat", senders=(HOST,))
class SeatAssignment(Message):
    """The host gives a joining player its seat."""

    seat: int = f(SEAT)
    id: bytes = f(PEER_ID)
    team: int | None = f(TEAM, None)


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

    def _check(self) -> None:
        _unique_seats("roster.players", (p.seat for p in self.players))



@message("leave", senders=ANYONE)
class Leave(Message):
    """Polite goodbye before closing the link."""

    reason: str = f(Text(200), "")


@message("heartbeat", senders=ANYONE)
class Heartbeat(Message):
    """Sent every second by everyone; a host silent for 3 s is gone."""

    seq: int = f(SEQ)
    head: bytes | None = f(HASH, None, "sender's ledger head hash")


@message("error", senders=ANYONE)
class ErrorReport(Message):
    """Tells the peer what it did wrong before (if ``fatal``) the link is dropped."""

    code: str = f(TOKEN)
    message: str = f(Text(256), "")
    field: str | None = f(Text(96), None, "path of the offending field, e.g. play.card")
    ref: str | None = f(TOKEN, None, "type of the offending message")
    fatal: bool = f(Bool(), True)


# --- round setup: commit-reveal seed, committed deck, deal -----------------


@message("round", senders=(HOST,))
class RoundStart(Message):
    """A round begins: the host commits to its secret r_h."""

    round: int = f(ROUND)
    match: bytes = f(MATCH_ID)
    dealer: int = f(SEAT)
    seats: tuple[int, ...] = f(ListOf(SEAT, MAX_SEATS, 2), doc="seats in play, in seat order")
    commit: bytes = f(HASH, doc="SHA-256(r_h)")

    def _check(self) -> None:
        _unique_seats("round.seats", self.seats)
        if self.dealer not in self.seats:
            raise _Bad("round.dealer", "dealer is not in play", self.dealer)



@message("seed_commit", senders=(PLAYER,))
class SeedCommit(Message):
    """A player's commitment to its seed contribution r_i."""

    round: int = f(ROUND)
    shuffle: int = f(SHUFFLE, 0)
    commit: bytes = f(HASH)


@message("seed_commits", senders=(HOST,))
class SeedCommits(Message):
    """Host relays all commitments once it has them; reveals may start."""

    round: int = f(ROUND)
    shuffle: int = f(SHUFFLE, 0)
    commits: tuple[SeatValue, ...] = f(ListOf(Nested(SeatValue), MAX_SEATS, 1))


@message("seed_reveal", senders=(PLAYER,))
class SeedReveal(Message):
    """A player opens its seed commitment."""

    round: int = f(ROUND)
    shuffle: int = f(SHUFFLE, 0)
    value: bytes = f(SECRET)


@message("seed_reveals", senders=(HOST,))
class SeedReveals(Message):
    """Host relays all contributions; the seed is now fixed."""

    round: int = f(ROUND)
    shuffle: int = f(SHUFFLE, 0)
    reveals: tuple[SeatValue, ...] = f(ListOf(Nested(SeatValue), MAX_SEATS, 1))


@message("reshuffle", senders=(HOST,))
class Reshuffle(Message):
    """Draw pile empty: a fresh commit-reveal shuffle of the discards under the top card."""

    round: int = f(ROUND)
    shuffle: int = f(Int(1, 255))
    count: int = f(Int(1, MAX_POSITIONS), doc="cards being reshuffled")
    commit: bytes = f(HASH, doc="SHA-256 of the host's fresh secret")


@message("deck", senders=(HOST,))
class Deck(Message):
    """The host's signed commitments, one per deck position base..base+n-1."""

    round: int = f(ROUND)
    shuffle: int = f(SHUFFLE, 0)
    base: int = f(POS, 0, "position number of the first commitment")
    commitments: tuple[bytes, ...] = f(ListOf(HASH, 256, 1))
    sig: bytes = f(SIGNATURE, doc="host's Ed25519 signature over the commitments (fair layer)")

    def _check(self) -> None:
        if self.base + len(self.commitments) > MAX_POSITIONS:
            raise _Bad("deck.base", f"positions would pass {MAX_POSITIONS}", self.base)



@message("deal", senders=(HOST,))
class Deal(Message):
    """Who holds which positions (public) plus the recipient's own sealed openings."""

    round: int = f(ROUND)
    hands: tuple[SeatPositions, ...] = f(ListOf(Nested(SeatPositions), MAX_SEATS, 1))
    sealed: tuple[bytes, ...] = f(SEALED_LIST, (), "recipient's openings, in its positions' order")

    def _check(self) -> None:
        _unique_seats("deal.hands", (h.seat for h in self.hands))



@message("turn_up", senders=(HOST,))
class TurnUp(Message):
    """The first discard is turned up and opened publicly."""

    round: int = f(ROUND)
    opening: Opening = f(Nested(Opening))


# --- player actions (player -> host) ---------------------------------------
# ``at`` is the seq of the last announcement the player had seen: the host
# refuses an action decided on a stale view (error code "stale").


@message("play", senders=(PLAYER,))
class Play(Message):
    """Play a held card, revealing its opening; ``color`` names a wild's colour."""

    at: int = f(SEQ)
    card: str = f(Card())
    pos: int = f(POS)
    salt: bytes = f(SALT)
    color: str | None = f(Color(), None)
    uno: bool = f(Bool(), False, "UNO called with this play")

    def _check(self) -> None:
        _wild_needs_color(self)



@message("draw", senders=(PLAYER,))
class Draw(Message):
    """Draw instead of playing."""

    at: int = f(SEQ)


@message("pass", senders=(PLAYER,))
class Pass(Message):
    """Keep the card just drawn."""

    at: int = f(SEQ)


@message("challenge", senders=(PLAYER,))
class Challenge(Message):
    """Challenge the Wild Draw Four just played on us."""

    at: int = f(SEQ)


@message("uno", senders=(PLAYER,))
class Uno(Message):
    """Call UNO."""

    at: int = f(SEQ)


@message("catch", senders=(PLAYER,))
class Catch(Message):
    """Catch a player who failed to call UNO."""

    at: int = f(SEQ)
    target: int = f(SEAT)


@message("color", senders=(PLAYER,))
class ChooseColor(Message):
    """Name the colour of a wild turned up as the first discard."""

    at: int = f(SEQ)
    color: str = f(Color())


@message("swap", senders=(PLAYER,))
class Swap(Message):
    """Seven-o: swap hands with the target seat."""

    at: int = f(SEQ)
    target: int = f(SEAT)


@message("race", senders=(PLAYER,))
class Race(Message):
    """Respond to a reaction race (6-smackdown, Kevin's chili...)."""

    at: int = f(SEQ)
    kind: str = f(TOKEN)


@message("show", senders=(PLAYER,))
class Show(Message):
    """Challenged player shows its hand, sealed for the challenger alone."""

    round: int = f(ROUND)
    to: int = f(SEAT)
    sealed: tuple[bytes, ...] = f(SEALED_LIST)


@message("verdict", senders=(PLAYER,))
class Verdict(Message):
    """Challenger's finding after checking the shown hand; guilty needs a proof."""

    at: int = f(SEQ)
    guilty: bool = f(Bool())
    proof: Opening | None = f(Nested(Opening), None, "an opening of a card that matched")

    def _check(self) -> None:
        _guilty_needs_proof(self)



# --- host announcements (host -> all) ---------------------------------------


@message("turn", senders=(HOST,))
class Turn(Message):
    """Whose move it is and how long they have (0 = no limit)."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    timeout_ms: int = f(Int(0, 3_600_000), 0)


@message("played", senders=(HOST,))
class Played(Message):
    """A play the host accepted, with its public opening."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    card: str = f(Card())
    pos: int = f(POS)
    salt: bytes = f(SALT)
    color: str | None = f(Color(), None)
    uno: bool = f(Bool(), False)
    jump: bool = f(Bool(), False, "played out of turn (jump-in)")

    def _check(self) -> None:
        _wild_needs_color(self)



@message("drew", senders=(HOST,))
class Drew(Message):
    """Positions went to a seat; only the drawer's copy carries sealed openings."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    positions: tuple[int, ...] = f(POSITIONS)
    reason: str = f(DRAW_REASONS, "draw")
    sealed: tuple[bytes, ...] = f(SEALED_LIST, ())

    def _check(self) -> None:
        if self.sealed and len(self.sealed) != len(self.positions):
            raise _Bad("drew.sealed", "one sealed opening per position, or none", len(self.sealed))



@message("passed", senders=(HOST,))
class Passed(Message):
    """The seat kept its drawn card."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)


@message("shown", senders=(HOST,))
class Shown(Message):
    """Host forwards a challenged hand to the challenger (only)."""

    round: int = f(ROUND)
    seat: int = f(SEAT, doc="the challenged seat")
    sealed: tuple[bytes, ...] = f(SEALED_LIST)


@message("challenged", senders=(HOST,))
class Challenged(Message):
    """Outcome of a Wild Draw Four challenge; the named colour stands either way."""

    seq: int = f(SEQ)
    seat: int = f(SEAT, doc="challenger")
    target: int = f(SEAT)
    guilty: bool = f(Bool())
    proof: Opening | None = f(Nested(Opening), None)

    def _check(self) -> None:
        _guilty_needs_proof(self)



@message("uno_called", senders=(HOST,))
class UnoCalled(Message):
    """A seat called UNO; ``valid`` false means a false call (penalty follows)."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    valid: bool = f(Bool(), True)


@message("caught", senders=(HOST,))
class Caught(Message):
    """A seat was caught without calling UNO (the penalty draw follows)."""

    seq: int = f(SEQ)
    seat: int = f(SEAT, doc="catcher")
    target: int = f(SEAT)


@message("color_chosen", senders=(HOST,))
class ColorChosen(Message):
    """Colour named for a first-discard wild."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    color: str = f(Color())


@message("swapped", senders=(HOST,))
class Swapped(Message):
    """Seven-o swap; the new holdings follow in a ``hands`` message."""

    seq: int = f(SEQ)
    seat: int = f(SEAT)
    target: int = f(SEAT)


@message("hands", senders=(HOST,))
class Hands(Message):
    """Hands moved wholesale (seven, zero, wild shuffle); recipient's openings sealed."""

    seq: int = f(SEQ)
    reason: str = f(Enum("seven", "zero", "shuffle"))
    hands: tuple[SeatPositions, ...] = f(ListOf(Nested(SeatPositions), MAX_SEATS, 1))
    sealed: tuple[bytes, ...] = f(SEALED_LIST, ())

    def _check(self) -> None:
        _unique_seats("hands.hands", (h.seat for h in self.hands))



@message("raced", senders=(HOST,))
class Raced(Message):
    """Response order of a reaction race; the last seat listed loses."""

    seq: int = f(SEQ)
    kind: str = f(TOKEN)
    order: tuple[int, ...] = f(ListOf(SEAT, MAX_SEATS, 1))


@message("reveal", senders=(HOST,))
class Reveal(Message):
    """Public openings of a seat's cards (round end, or a challenge proof)."""

    round: int = f(ROUND)
    seat: int = f(SEAT)
    openings: tuple[Opening, ...] = f(ListOf(Nested(Opening), MAX_HAND))


@message("round_end", senders=(HOST,))
class RoundEnd(Message):
    """Round over: points, running totals, and r_h so everyone can audit the deck."""

    round: int = f(ROUND)
    reason: str = f(Enum("out", "voided"))
    winner: int | None = f(SEAT, None)
    secret: bytes | None = f(SECRET, None, "r_h; absent only when voided by a lost host")
    points: tuple[SeatPoints, ...] = f(ListOf(Nested(SeatPoints), MAX_SEATS), ())
    totals: tuple[SeatPoints, ...] = f(ListOf(Nested(SeatPoints), MAX_SEATS), ())
    final: bool = f(Bool(), False, "the match is over")

    def _check(self) -> None:
        if self.reason == "out" and (self.winner is None or self.secret is None):
            raise _Bad("round_end.winner", "a round won by going out names winner and secret", self.winner)



# --- match continuity --------------------------------------------------------


@message("ledger", senders=ANYONE)
class Ledger(Message):
    """The hash-chained match ledger (or its head), handed over after an election."""

    match: bytes = f(MATCH_ID)
    rounds: int = f(ROUND, doc="completed rounds")
    head: bytes = f(HASH)
    entries: tuple[LedgerEntry, ...] = f(ListOf(Nested(LedgerEntry), 256), ())


@message("election", senders=PEERS)
class Election(Message):
    """After a host is lost: who the sender computes as successor, and its ledger head."""

    term: int = f(SEQ, doc="increases with every election")
    host: bytes = f(PEER_ID, doc="the successor")
    head: bytes = f(HASH)
    rounds: int = f(ROUND)


@message("rejoin", senders=(PLAYER,))
class Rejoin(Message):
    """A dropped player returns (same identity) and asks for its seat back."""

    table: bytes = f(TABLE_ID)
    seat: int = f(SEAT)
    round: int = f(ROUND, 0)
    at: int = f(SEQ, 0, "last announcement seen; the host replays from there")
