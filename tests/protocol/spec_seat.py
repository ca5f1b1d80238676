#!/usr/bin/env python3
"""A seat (a player) written from protocol/spec.md alone: no `unonet` import, only msgpack,
`cryptography` and `noiseprotocol` (through spec_observer.py, the spec-only observer, whose
link, digest and ledger code is the same logic).  It joins a real host as a `player` (§4, §5),
does a seat's part of the fair deal (§6: `match-join`, the seed commit and reveal, opening its
sealed deals against the host's commitments, signed `act`s, the Wild Draw Four challenge from
either side, `round-sign` with its tally), plays the `official` rules with a simple policy
(docs/rules.md: follow colour or rank, wilds last, UNO called with the play, always challenge a
Wild Draw Four, catch a seat left with one card and no UNO call) and prints the conformance kit's lines (protocol/README.md): one `round-end` per
round and the match-over line, whose `ledger` is its own chain's head.

    python spec_seat.py HOST PORT [CODE] [--bluff] [--drop-at-act N] [--drop-before EV] [--away-start] [--vanish]
                       [--drop-silently] [--back-after S]

`--bluff`: play a Wild Draw Four only as a bluff, holding the colour in force, and then first
(the rules take it; a challenge catches it), so that a test sees guilty verdicts.

`--drop-at-act N`: once, at its first move due from the match's Nth act on (`act`, `host-act`),
close the link instead of sending the move, with no goodbye, join again with the same identity
and rebuild the seat from the host's replay (§7 "Rejoin"): its first messages must be the very
ones read before, rebuilding the same hand, act number and ledger head; then send what it owes
and play on.  `--drop-before EV`: drop
instead of sending our first fair event EV (from the Nth act on, with `--drop-at-act`):
`match-join`, `player-commit`, `player-reveal`, `round-sign`, `challenge-response`,
`challenge-verdict`, or `last-round-sign` (our co-sign of the match's last round).  `--away-start`: announce that
extension (§4.4): a host may start a match with our seat away, and we may rejoin it mid-match,
read ourselves away in the replay and sign our `match-join` late.  `--vanish`: at the match's end
close the link with no `leave` (a laptop asleep between matches, §7).  `--drop-silently`: a drop
leaves the old link open and silent (no FIN reaches the host) and joins again beside it.
`--back-after S`: join again only S seconds after the drop (past the host's hold, its stand-in
plays our seat meanwhile: the replay shows its `host-act`s in our name).

Its identity lives in $UNONET_HOME/spec-seat.json (a fresh one when unset).  What it leaves out:
house rules other than none (it tracks the turn of the `official` rules only), the rules
engine's replay of every `game` record (it checks only who moves), elections, the host-clock checks
of §6.1 step 3.  tests/protocol/test_spec_seat.py runs it.
"""
import hashlib
import hmac
import json
import os
import struct
import sys
import threading
from collections import Counter

import msgpack  # noqa: F401  (the link's encoding, through spec_observer)
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from spec_observer import (RAW, Follower, Link, T, fingerprint, fisher_yates, lp, out, problem, sha, u32,  # noqa: E402
                           unsigned, verify)

COLOURS = "RYGB"


def log(text):
    print(f"spec-seat: {text}", file=sys.stderr, flush=True)


def canonical(body: dict) -> bytes:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()


def card_bytes(card) -> bytes:
    """§6.8 "card": `lp(code) || 00`, or a two-faced Flip card `lp(light) || 01 || lp(dark)`."""
    if isinstance(card, list):
        return lp(card[0].encode()) + b"\x01" + lp(card[1].encode())
    return lp(card.encode()) + b"\x00"


def opening_bytes(o: dict) -> bytes:
    return u32(o["pos"]) + card_bytes(o["card"]) + lp(bytes.fromhex(o["salt"]))


def parse_opening(b: bytes) -> dict:
    pos = struct.unpack(">I", b[:4])[0]
    i = 4
    n = struct.unpack(">I", b[i:i + 4])[0]
    code = b[i + 4:i + 4 + n].decode()
    i += 4 + n
    flag = b[i]
    i += 1
    card = code
    if flag == 1:
        n = struct.unpack(">I", b[i:i + 4])[0]
        card = [code, b[i + 4:i + 4 + n].decode()]
        i += 4 + n
    n = struct.unpack(">I", b[i:i + 4])[0]
    salt = b[i + 4:i + 4 + n]
    return {"pos": pos, "card": card, "salt": salt.hex()}


def seal_key(shared: bytes, e_pub: bytes, pk: bytes) -> bytes:
    return HKDF(hashes.SHA256(), 32, None, T("seal-key") + lp(e_pub) + lp(pk)).derive(shared)


def unseal(priv: X25519PrivateKey, pk: bytes, blob: bytes, ad: bytes, size: int) -> list:
    """§6.8 "seal" and §6.7: `e_pub || ChaCha20-Poly1305(key, 0^12, u32(k) || k × opening padded to S)`."""
    e_pub = blob[:32]
    key = seal_key(priv.exchange(X25519PublicKey.from_public_bytes(e_pub)), e_pub, pk)
    plain = ChaCha20Poly1305(key).decrypt(b"\x00" * 12, blob[32:], ad)
    k = struct.unpack(">I", plain[:4])[0]
    return [parse_opening(plain[4 + i * size:4 + (i + 1) * size]) for i in range(k)]


def seal(pk: bytes, openings: list, ad: bytes, size: int) -> bytes:
    e = X25519PrivateKey.generate()
    e_pub = e.public_key().public_bytes(**RAW)
    key = seal_key(e.exchange(X25519PublicKey.from_public_bytes(pk)), e_pub, pk)
    plain = u32(len(openings)) + b"".join(opening_bytes(o).ljust(size, b"\x00") for o in openings)
    return e_pub + ChaCha20Poly1305(key).encrypt(b"\x00" * 12, plain, ad)


def hm(key: bytes, msg: bytes) -> bytes:
    return hmac.new(key, msg, hashlib.sha256).digest()


def colour_of(card: str):
    return None if card.startswith("W") else card[0]


def rank_of(card: str):
    return card if card.startswith("W") else card[1:]


def load_keys():
    """The seat's long-term keys, kept in $UNONET_HOME so that a second run is the same seat."""
    home = os.environ.get("UNONET_HOME")
    path = os.path.join(home, "spec-seat.json") if home else None
    if path and os.path.exists(path):
        d = json.load(open(path))
        return (X25519PrivateKey.from_private_bytes(bytes.fromhex(d["static"])),
                Ed25519PrivateKey.from_private_bytes(bytes.fromhex(d["sign"])))
    static, ed = X25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    if path:
        raw = dict(encoding=serialization.Encoding.Raw, format=serialization.PrivateFormat.Raw,
                   encryption_algorithm=serialization.NoEncryption())
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            json.dump({"static": static.private_bytes(**raw).hex(), "sign": ed.private_bytes(**raw).hex()}, f)
    return static, ed


class Dropped(Exception):
    """We close our link instead of making our move (`--drop-at-act`)."""


class Seat(Follower):
    """The observer's checks and ledger, plus what a seat owes and plays (§5 step 6, §6)."""

    def __init__(self, roster_table, link):
        super().__init__(roster_table)
        self.link = link
        self.me = None              # our seat number
        self.sign_pub = link.sign_pub.hex()
        self.verdicts = []          # our verdicts as challenger (True: guilty)
        self.decks_checked = 0      # rounds whose every shuffle we recomputed
        self.returns = 0            # Wild Draw Fours turned up first and returned
        self.replaying = False      # reading a rejoin's replay (§7)
        self.owed = {}              # ev -> the message we owe once the replay ends
        self.owe_ready = None       # the round we owe a `ready` for
        self.bluff = False          # play a Wild Draw Four whenever we hold one (to be caught)
        self.said_back = False
        self.before_send = None     # called with each event we are about to send live; True: drop the link instead
        self.reset_round()

    def reset_round(self):
        self.hand = {}              # position -> opening (dict)
        self.commits = {}           # position -> C_j (bytes)
        self.secret = None          # our r_i of this attempt
        self.committed = set()      # seats whose player-commit was relayed
        self.revealed = False
        self.n = 0                  # our next act number (§6.1.1 `act.n`)
        self.waiting = None         # the body of our act on its way (at most one: §5 step 6)
        self.live = False
        self.cur = None             # whose move, as our copy of the official rules says
        self.dir = 1
        self.phase = None           # None, "drawn", "w4", "color"
        self.drawn = None           # position of the card we just drew on our turn
        self.top = None
        self.colour = None
        self.challenge = None       # the open challenge event
        self.challenges = 0         # challenge events this attempt (the challenge number)
        self.held = None            # our positions when we played a Wild Draw Four
        self.ctx = None
        self.refusals = 0           # refusals since the last game record
        self.counts = {}            # seat -> cards held (public counts, §6.1.2 events)
        self.catchable = None       # a seat down to one card without UNO called, catch window open
        self.epochs = {}            # epoch -> its seed-commit body
        self.last_turn_up = None
        self.returned_base = None   # the base of a returned Wild Draw Four's epoch (§6.1 step 2)
        self.known = {}             # position -> card, every opening made public this attempt
        self.seat_commits = {}      # seat -> its epoch-0 player-commit
        self.seat_secrets = {}      # seat -> its revealed r_i

    # -- sending ------------------------------------------------------------------------------
    def send_event(self, body: dict, rnd=None):
        msg = {"t": "fair", "round": self.round if rnd is None else rnd, "ev": body["ev"], "body": canonical(body)}
        if not self.replaying and self.before_send is not None and self.before_send(body["ev"]):
            raise Dropped  # (--drop-at-act: the link goes instead of this message)
        if self.replaying:
            # §7 rejoin: nothing is sent until the replay ends; what is still owed then (our own
            # event of that kind not in the replay) goes out at its end.  An act is decided afresh.
            if body["ev"] != "act":
                self.owed[body["ev"]] = msg
            return
        self.link.send(msg)

    def own_event(self, ev):
        """Our own event came back (live or in a replay): it is no longer owed."""
        self.owed.pop(ev, None)

    def replay_over(self):
        """§7 rejoin: send what we owe at the replay's end: seeds, a challenge's answer, a
        co-sign, `ready` between rounds, our move."""
        self.replaying = False
        for msg in list(self.owed.values()):
            log(f"after the replay we owe {msg['ev']}")
            self.link.send(msg)
        self.owed = {}
        if self.owe_ready is not None:
            self.link.send({"t": "ready", "round": self.owe_ready})
            self.owe_ready = None
        self.waiting = None
        self.maybe_act()

    def seat_signed(self, body: dict) -> dict:
        """§6.1 "Signatures": `T("seat-event") ‖ ctx ‖ lp(context) ‖ lp(body with sig "")`."""
        sig = self.link.ed.sign(T("seat-event") + self.ctx + lp(self.context) + lp(unsigned(body)))
        return dict(body, sig=sig.hex())

    # -- the fair events ------------------------------------------------------------------------
    def event(self, rnd, ev, raw):
        super().event(rnd, ev, raw)
        body = json.loads(raw)
        if body.get("seat") == self.me and self.me is not None and ev in (
                "match-join", "player-commit", "player-reveal", "round-sign"):
            self.own_event(ev)
        if ev in ("challenge-response", "challenge-key") and body.get("challenged") == self.me:
            self.own_event(ev)
        if ev in ("challenge-verdict", "challenge-dispute") and body.get("challenger") == self.me:
            self.own_event(ev)
        self.check_relayed(ev, body)
        self.last_ev = ev if ev != "game" else f"game {body['data']['g']}"
        if ev == "round-start":
            self.owe_ready = None
            self.owed.pop("round-sign", None)
        if ev == "player-reveal" and body["seat"] == self.me:
            self.revealed = True
        if ev == "seed-commit" and self.rs is not None:
            self.epochs[body["epoch"]] = body
            if body["epoch"] and not self.live:
                # §6.1 step 2: a Wild Draw Four turned up, returned with the undealt pile
                turned = self.known.get(self.last_turn_up)
                undealt = sorted(p for p in range(self.last_turn_up, body["base"]))
                if turned != "W+4" or body["sources"] != undealt:
                    problem(f"an epoch before the round's start whose sources {body['sources'][:4]}… are not "
                            f"the turned-up Wild Draw Four and the undealt pile (turned up: {turned})")
                self.returned_base = body["base"]
                self.returns += 1
                log(f"a Wild Draw Four turned up and returned: epoch {body['epoch']}, base {body['base']}")
        if ev == "turn-up":
            if self.returned_base is not None and body["opening"]["pos"] != self.returned_base:
                problem(f"the turn-up after a returned Wild Draw Four is at {body['opening']['pos']}, not the "
                        f"new epoch's base {self.returned_base}")
            self.returned_base = None
            self.last_turn_up = body["opening"]["pos"]
        if ev in ("turn-up", "act", "host-act") and body.get("opening"):
            self.known[body["opening"]["pos"]] = body["opening"]["card"]
        if ev == "match-start":
            seats = [s["sign"] for s in body["seats"]]
            if self.sign_pub not in seats:
                problem("a match-start that does not seat our key")
            self.me = seats.index(self.sign_pub)
            if self.me in self.away:
                # §6.1.1 away seats: right in a rejoin's replay (we were away: we join late, at its
                # end); live, the host would have a present player's seat played for it
                if not self.replaying:
                    problem(f"a live match-start that names our seat {self.me} away (§6.1.1)")
                log(f"the match started with our seat {self.me} away: we join late")
            nonce = os.urandom(16).hex()
            join = {"ev": "match-join", "seat": self.me, "start": self.h_start.hex(), "nonce": nonce, "sig": ""}
            join["sig"] = self.link.ed.sign(T("match-join") + lp(unsigned(join))).hex()
            self.send_event(join, 0)
        elif ev == "round-start":
            self.reset_round()
            self.ctx = lp(self.match_id) + u32(body["round"])
            self.size = max(len(opening_bytes({"pos": 0, "card": c, "salt": "00" * 32})) for c in body["deck"])
            self.absent = set(body.get("absent", []))
            if self.me in self.absent and self.replaying:
                log(f"round {body['round']} attempt {body['attempt']}: dealt absent (we were away)")
            if self.me in self.absent and self.me in self.joins and not self.replaying:
                problem(f"round {body['round']}: a round-start that deals our seat absent while we are at "
                        "the table (§6.1.1 `absent`)")
            host_seat = body["host_seat"]
            self.contributors = {s for s in range(len(body["seats"])) if s != host_seat and s not in self.absent}
        elif ev == "game" and body["data"]["g"] == "setup":
            d = body["data"]
            self.players, self.dealer_seat = d["players"], d["dealer"]
            if d["rules"].get("house"):
                log(f"house rules {d['rules']['house']}: this seat tracks the official turn order only")
        elif ev == "seed-commit" and body["epoch"] == 0:
            self.host_commit = bytes.fromhex(body["host_commit"])
            if self.me in self.contributors:
                # §6.8 "seat's own seed": derived from our key, so a seat back from a crash
                # reveals the very secret it committed
                self.secret = sha(T("seat-secret") + lp(self.link.ed.sign(
                    T("seat-secret") + self.ctx + u32(self.rs["attempt"]) + u32(0))))
                commit = sha(T("player-seed-commit") + self.ctx + u32(0) + u32(self.me) + lp(self.secret))
                sig = self.link.ed.sign(T("player-commit-signature") + self.ctx + u32(0) + u32(self.me)
                                        + lp(self.host_commit) + lp(commit) + lp(self.context))
                self.send_event({"ev": "player-commit", "epoch": 0, "seat": self.me, "commit": commit.hex(),
                                 "sig": sig.hex()})
        elif ev == "player-commit":
            self.committed.add(body["seat"])
            if self.secret and not self.revealed and self.contributors <= self.committed:
                self.revealed = True
                self.send_event({"ev": "player-reveal", "epoch": 0, "seat": self.me, "secret": self.secret.hex()})
        elif ev == "commitments":
            for i, c in enumerate(body["commitments"]):
                self.commits[body["base"] + i] = bytes.fromhex(c)
            self.check_commitments(body)
        elif ev == "seed-reveal":
            self.check_deck(bytes.fromhex(body["host_secret"]))
        elif ev == "reveal":
            for o in body["openings"]:
                self.known[o["pos"]] = o["card"]
        elif ev == "deal" and body["seat"] == self.me:
            self.open_deal(body)
        elif ev == "act" and body["seat"] == self.me:
            if self.waiting is not None and body["n"] == self.waiting["n"]:
                self.waiting = None
            self.n = max(self.n, body["n"] + 1)
            action = body["action"]
            if action["t"] == "play":
                self.hand.pop(action["pos"], None)
        elif ev == "host-act" and body["seat"] == self.me and body["seat"] is not None:
            # §6.1 "stand-in for a dropped player": the host played our seat while we were away
            # (only in a replay: live, a stand-in in our own name is refused; a timeout is not one)
            if not self.replaying and str(body.get("reason", "")).startswith("stand-in"):
                problem(f"a host-act in our own name while we are at the table: {body['action']} "
                        f"({body.get('reason')!r})")
            if body["action"]["t"] == "play":
                self.hand.pop(body["action"]["pos"], None)
        elif ev == "challenge":
            self.challenge = dict(body, number=self.challenges)
            self.challenges += 1
            if body["challenged"] == self.me:
                self.answer_challenge(body)
        elif ev == "challenge-response" and body["challenger"] == self.me:
            self.give_verdict(body)
        elif ev == "game":
            self.on_game(body["data"])
        elif ev == "round-end":
            if self.me in self.away_at_start:
                # §6.1.1, §6.5: away at this round's start (we joined late during it): no co-sign owed
                log(f"round {self.round}: we were away at its start: we owe no co-sign")
                self.live = False
            else:
                self.co_sign(bytes.fromhex(body["digest"]))
        if ev == "game":
            self.refusals = 0
            self.maybe_act()

    def check_relayed(self, ev, body):
        """What every peer checks of a relayed seat event (§6.1 "Who sends", "Signatures"): its
        seat's signature; and of every move, that it is that seat's to make (§6.1.2 "Who moves")."""
        if self.rs is None or ev in ("match-start", "match-join", "round-start", "round-sign"):
            return
        seat = body.get("seat", body.get("challenger") if ev in ("challenge-verdict", "challenge-dispute")
                        else body.get("challenged"))
        key = self.rs["seats"][seat]["sign"] if isinstance(seat, int) else None
        if ev in ("act", "challenge-verdict", "challenge-dispute", "deal-dispute"):
            verify(key, body["sig"], T("seat-event") + self.ctx + lp(self.context) + lp(unsigned(body)),
                   f"the host relayed {ev} in seat {seat}'s name that fails its check")
        elif ev == "player-commit":
            verify(key, body["sig"], T("player-commit-signature") + self.ctx + u32(body["epoch"]) + u32(seat)
                   + lp(self.host_commit) + lp(bytes.fromhex(body["commit"])) + lp(self.context),
                   f"the host relayed player-commit in seat {seat}'s name that fails its check")
            self.seat_commits[seat] = bytes.fromhex(body["commit"])
        elif ev == "player-reveal":
            r = bytes.fromhex(body["secret"])
            if sha(T("player-seed-commit") + self.ctx + u32(0) + u32(seat) + lp(r)) != self.seat_commits.get(seat):
                problem(f"seat {seat}'s player-reveal does not open its player-commit")
            self.seat_secrets[seat] = r
        elif ev == "challenge-response":
            positions = body["positions"]
            verify(key, body["sig"], T("challenge-response") + self.ctx + u32(self.challenge["number"])
                   + u32(body["challenger"]) + u32(seat) + u32(len(positions))
                   + b"".join(u32(p) for p in positions) + lp(bytes.fromhex(body["sealed"])),
                   f"the host relayed challenge-response in seat {seat}'s name that fails its check")
        if ev in ("act", "host-act") and body["seat"] is not None and self.live:
            t = body["action"]["t"]
            if t in ("calluno", "catch"):
                return
            if body["seat"] != self.cur or (t == "challenge") != (self.phase == "w4") and t != "draw":
                problem(f"{ev} {body['action']} of seat {body['seat']}, but by our copy seat {self.cur} moves "
                        f"(phase {self.phase}): §6.1.2 'Who moves' or this seat is wrong")

    def epoch_secrets(self, e):
        """§6.8 "epoch secrets": the contributors' r_i,e, ascending seats."""
        return [(seat, r if e == 0 else hm(r, T("epoch-secret") + u32(e)))
                for seat, r in sorted(self.seat_secrets.items())]

    def check_commitments(self, body):
        """§6.1 "Signatures", §6.8 "contributions digest": the host's signature over an epoch's
        commitment, every seat's commitment and epoch secret, and every C_j."""
        e = body["epoch"]
        contributions = sha(T("contributions") + u32(len(self.seat_secrets)) + b"".join(
            u32(seat) + lp(self.seat_commits[seat]) + lp(r) for seat, r in self.epoch_secrets(e)))
        cs = [bytes.fromhex(c) for c in body["commitments"]]
        verify(self.rs["host"]["sign"], body["sig"], T("commitments") + self.ctx + u32(e) + u32(body["base"])
               + lp(bytes.fromhex(self.epochs[e]["host_commit"])) + lp(contributions) + u32(len(cs))
               + b"".join(lp(c) for c in cs), f"epoch {e}'s commitments")

    def check_deck(self, r_h):
        """At the round's end (the host's seed revealed, every card played or revealed), recompute
        every epoch's seed, shuffle, salts and card commitments (§6.8) and compare."""
        for e, sc in sorted(self.epochs.items()):
            r = r_h if e == 0 else hm(r_h, T("epoch-secret") + u32(e))
            if sha(T("host-seed-commit") + self.ctx + u32(e) + lp(r)) != bytes.fromhex(sc["host_commit"]):
                problem(f"epoch {e}: the host's seed does not open its commitment")
            contrib = self.epoch_secrets(e)
            seed = sha(T("seed") + self.ctx + u32(e) + lp(r) + u32(len(contrib))
                       + b"".join(u32(seat) + lp(x) for seat, x in contrib))
            if e == 0:
                deck = self.rs["deck"]
                # (a later epoch's sources may be cards never shown, e.g. the undealt pile a Wild
                # Draw Four turned up first is shuffled back into: epoch 0's shuffle names them)
            else:
                missing = [p for p in sc["sources"] if p not in self.known]
                if missing:
                    problem(f"epoch {e} reshuffles positions {missing} whose cards were never public")
                deck = [self.known[p] for p in sc["sources"]]
            perm = fisher_yates(seed, len(deck))
            for i, k in enumerate(perm):
                j = sc["base"] + i
                salt = hm(r, T("salt") + self.ctx + u32(j))
                c = sha(T("card-commitment") + self.ctx + u32(j) + card_bytes(deck[k]) + lp(salt))
                if c != self.commits.get(j):
                    problem(f"epoch {e}: position {j} ({deck[k]}) is not its commitment: the deck was "
                            "not the shuffle of the seeds (§6.8)")
                if j in self.known and self.known[j] != deck[k]:
                    problem(f"position {j} was opened as {self.known[j]} but the shuffle put {deck[k]} there")
                self.known[j] = deck[k]
        self.decks_checked += 1

    def open_deal(self, body):
        pk = self.link.seal_pub
        ad = T("seal-deal") + self.ctx + u32(body["position"]) + u32(self.me) + lp(pk)
        blob = bytes.fromhex(body["sealed"])
        if len(blob) != 48 + 4 + self.size:
            problem(f"deal at {body['position']}: sealed is {len(blob)} bytes, not {48 + 4 + self.size} (§6.7)")
        try:
            [o] = unseal(self.link.seal, pk, blob, ad, self.size)
        except Exception as e:
            problem(f"deal at {body['position']} does not open: {e!r}")
        j = body["position"]
        want = self.commits.get(j)
        got = sha(T("card-commitment") + self.ctx + u32(j) + card_bytes(o["card"]) + lp(bytes.fromhex(o["salt"])))
        if o["pos"] != j or got != want:
            problem(f"deal at {j} opens to {o} which is not its commitment")
        self.hand[j] = o
        self.last_dealt = j

    def answer_challenge(self, ch):
        """§6.4 step 2: our openings of the named positions, sealed to the challenger."""
        number = self.challenge["number"]
        positions = ch["positions"]
        pk = bytes.fromhex(self.rs["seats"][ch["challenger"]]["dh"])
        ad = (T("seal-challenge") + self.ctx + u32(number) + u32(ch["challenger"]) + u32(self.me)
              + u32(len(positions)) + b"".join(u32(p) for p in positions) + lp(pk))
        sealed = seal(pk, [self.hand[p] for p in positions], ad, self.size)
        sig = self.link.ed.sign(T("challenge-response") + self.ctx + u32(number) + u32(ch["challenger"])
                                + u32(self.me) + u32(len(positions)) + b"".join(u32(p) for p in positions)
                                + lp(sealed))
        log(f"challenged by seat {ch['challenger']}: answering with {len(positions)} openings")
        self.send_event({"ev": "challenge-response", "challenger": ch["challenger"], "challenged": self.me,
                         "positions": positions, "sealed": sealed.hex(), "sig": sig.hex()})

    def give_verdict(self, resp):
        """§6.4 step 3: open the evidence; guilty with one card of the colour in force as proof."""
        ch = self.challenge
        pk = self.link.seal_pub
        positions = resp["positions"]
        ad = (T("seal-challenge") + self.ctx + u32(ch["number"]) + u32(self.me) + u32(resp["challenged"])
              + u32(len(positions)) + b"".join(u32(p) for p in positions) + lp(pk))
        openings = unseal(self.link.seal, pk, bytes.fromhex(resp["sealed"]), ad, self.size)
        for o in openings:
            c = sha(T("card-commitment") + self.ctx + u32(o["pos"]) + card_bytes(o["card"])
                    + lp(bytes.fromhex(o["salt"])))
            if self.commits.get(o["pos"]) != c:
                problem(f"the challenge evidence at {o['pos']} is not its commitment (a dispute is owed, §6.4)")
        proof = next((o for o in openings if colour_of(o["card"]) == ch["colour"]), None)
        self.verdicts.append(proof is not None)
        log(f"challenge evidence {[o['card'] for o in openings]}, colour {ch['colour']}: "
            f"{'guilty' if proof else 'innocent'}")
        body = self.seat_signed({"ev": "challenge-verdict", "challenger": self.me, "challenged": resp["challenged"],
                                 "guilty": proof is not None, "proof": proof, "number": ch["number"], "sig": ""})
        self.send_event(body)

    def co_sign(self, digest):
        """§6.5: the round-sign over the digest we computed (the base class checked the host's
        equals ours), with the tally of our own `game end` record."""
        e = self.end
        winner = b"\x00" if e["winner"] is None else b"\x01" + u32(e["winner"])
        tally = self.link.ed.sign(lp(b"unonet/ledger/v1/round-tally") + lp(digest) + winner + u32(e["points"])
                                  + u32(len(e["hand_points"])) + b"".join(u32(p) for p in e["hand_points"]))
        self.send_event(self.seat_signed({"ev": "round-sign", "seat": self.me, "digest": digest.hex(),
                                          "tally": tally.hex(), "sig": ""}))
        self.live = False

    # -- our copy of the official turn order (docs/rules.md, §6.1.2) ------------------------------
    def left(self, s, d=None):
        return (s + (d or self.dir)) % self.players

    def on_game(self, d):
        g = d["g"]
        if g == "act" and d["a"]["t"] in ("play", "draw", "challenge"):
            self.catchable = None   # the next player began a turn: the catch window closes
        for e in d.get("ev", []):
            self.count(e)
        if g == "start":
            if self.dealer_seat is None:  # round 1 (§6.1 "Dealer draw"): drawn from the seats' reveals
                self.dealer_seat = self.dealer
            self.live, self.dir = True, 1
            self.cur = self.left(self.dealer_seat)
            base = self.dealer_seat
            for e in d["ev"]:
                if e[0] == "FirstDiscard":
                    self.top, self.colour = e[1], colour_of(e[1])
                    if e[1].startswith("W"):
                        self.phase = "color"
                elif e[0] == "DirectionChanged":
                    self.dir = e[1]
                elif e[0] == "Skipped":
                    base = e[1]
                elif e[0] == "ColorChosen":
                    self.colour = e[2]
            self.cur = self.left(base)
            if rank_of(self.top) == "R":
                self.cur = self.dealer_seat  # §6.1.2: a Reverse turned up first: the dealer plays first
            return
        if g != "act":
            return
        a = d["a"]
        actor = a.get("seat")
        names = [e[0] for e in d["ev"]]
        base, nxt = actor, True
        self.challenge = None if a["t"] == "challenge" else self.challenge
        if a["t"] in ("calluno", "catch"):
            return  # they move nothing (a catch's penalty draw skips nobody)
        for e in d["ev"]:
            if e[0] == "Played":
                self.top, self.colour = e[2], e[3]
                self.phase = None
                if e[2] == "W+4" and "RoundOver" not in names:
                    self.phase = "w4"
            elif e[0] == "DirectionChanged":
                self.dir = e[1]
            elif e[0] == "Skipped":
                base = e[1]
                self.phase = None
            elif e[0] == "Drew" and e[3] == "turn":
                if e[2] > 0 and "Kept" not in names:
                    self.phase, nxt = "drawn", False
                    self.drawn = self.last_dealt if e[1] == self.me else None
            elif e[0] == "Kept":
                self.phase = None
            elif e[0] == "ColorChosen":
                self.colour, self.phase, nxt = e[2], None, False
            elif e[0] == "Challenged" and e[3]:
                self.phase, nxt = None, False   # guilty: the challenger plays a normal turn
            elif e[0] == "RoundOver":
                self.live = False
        if nxt:
            self.cur = self.left(base)
        else:
            self.cur = actor

    def count(self, e):
        """Public hand counts and the UNO catch window (docs/rules.md "UNO")."""
        name = e[0]
        if name in ("Dealt", "NewHand"):
            self.counts[e[1]] = e[2]
        elif name == "Drew":
            self.counts[e[1]] = self.counts.get(e[1], 0) + e[2]
            if e[1] == self.catchable:
                self.catchable = None   # it holds more than one card again
        elif name == "Played":
            self.counts[e[1]] -= 1
            self.catchable = e[1] if self.counts[e[1]] == 1 and e[1] != self.me else None
        elif name in ("UnoCalled", "Caught") and (e[1] == self.catchable or e[0] == "Caught"):
            self.catchable = None
        elif name == "RoundOver":
            self.catchable = None

    def legal_plays(self):
        out_ = []
        for pos, o in sorted(self.hand.items()):
            c = o["card"]
            if c == "W+4":
                # docs/rules.md: the engine takes a bluff (a Wild Draw Four while holding the colour
                # in force); only the challenge enforces the rule.  A bluffing seat makes one.
                # A bluffing seat plays its Wild Draw Four only as a bluff.
                if self.bluff == any(colour_of(x["card"]) == self.colour for x in self.hand.values()):
                    out_.append(pos)
            elif c.startswith("W") or colour_of(c) == self.colour or rank_of(c) == rank_of(self.top):
                out_.append(pos)
        return out_

    def maybe_act(self):
        if not self.live or self.waiting is not None or self.challenge is not None:
            return
        if self.cur != self.me and self.catchable is None:
            return
        if self.live and self.catchable is not None and self.waiting is None and self.challenge is None:
            return self.act({"t": "catch", "seat": self.me, "target": self.catchable})
        if self.refusals >= 2:
            return  # our copy and the host's differ: wait for the next record (a finding if it happens)
        if self.refusals == 1 and self.phase is None:
            return self.act({"t": "draw", "seat": self.me})
        if self.phase == "color":
            action = {"t": "choosecolor", "seat": self.me, "color": self.best_colour()}
            return self.act(action)
        if self.phase == "w4":
            return self.act({"t": "challenge", "seat": self.me})
        if self.phase == "drawn":
            if self.drawn is not None and self.drawn in self.legal_plays():
                return self.play(self.drawn)
            return self.act({"t": "pass", "seat": self.me})
        plays = self.legal_plays()
        if not plays:
            return self.act({"t": "draw", "seat": self.me})
        plays.sort(key=lambda p: (self.hand[p]["card"].startswith("W"), self.hand[p]["card"] == "W+4"))
        if self.bluff:
            plays.sort(key=lambda p: self.hand[p]["card"] != "W+4")
        self.play(plays[0])

    def best_colour(self, without=None):
        counts = Counter(colour_of(o["card"]) for p, o in self.hand.items() if p != without)
        counts.pop(None, None)
        return counts.most_common(1)[0][0] if counts else "R"

    def play(self, pos):
        o = self.hand[pos]
        wild = o["card"].startswith("W")
        action = {"t": "play", "seat": self.me, "pos": pos, "color": self.best_colour(pos) if wild else None,
                  "uno": len(self.hand) == 2}
        self.act(action, o)

    def act(self, action, opening=None):
        if not self.replaying and self.me in self.away_at_start and not self.said_back:
            self.said_back = True
            log(f"round {self.round}: back from away, we play our seat from here on")
        body = self.seat_signed({"ev": "act", "seat": self.me, "n": self.n, "action": action, "opening": opening,
                                 "sig": ""})
        self.waiting = body
        self.send_event(body)

    def refused(self, msg):
        """§4.6: a non-fatal refusal of our act takes it back (its number is free again)."""
        if self.waiting is None:
            return
        if "refuses" in msg and msg["refuses"] != sha(canonical(self.waiting)):
            return
        log(f"the host refused our act {self.waiting['action']}: {msg.get('code')} {msg.get('message')}")
        if self.waiting["action"]["t"] == "catch":
            self.catchable = None   # a reaction that lost its race (§6.3: `stale`), no fault
        else:
            self.refusals += 1
        self.waiting = None


class Session:
    """The seat across its links: the first join and, with ``drop_at``, a link it closes in the
    middle of a round (no `leave`: a laptop whose Wi-Fi went) and the rejoin after it (§7
    "Rejoin"), checked against what the seat held when its link went."""

    def __init__(self, host, port, code, keys, name, bluff=False, drop_at=None, drop_before="act",
                 features=(), vanish=False):
        self.host, self.port, self.code, self.keys, self.name = host, port, code, keys, name
        self.bluff, self.drop_at, self.drop_before = bluff, drop_at, drop_before
        self.features, self.vanish = tuple(features), vanish
        self.silent = False     # --drop-silently: the old link is abandoned, not closed
        self.back_after = 0.0   # --back-after S: seconds before we join again
        self.abandoned = []
        self.seat = None
        self.record = []        # every `fair` and `round_end` message read, in order (a replay's prefix)
        self.printed = 0        # the last round whose `round-end` line is out (a replay prints none twice)
        self.acts = 0           # `act` and `host-act` events of the match read live
        self.over = None
        self.rejoins = 0

    def run(self):
        link = Link(self.host, self.port, self.code, role="player", name=self.name, keys=self.keys,
                        features=self.features)
        held = None
        while True:
            if self.link_session(link, held) != "dropped":
                return 0 if self.over else 1
            held = self.drop(link)
            link = self.reconnect()

    def drop(self, link):
        """Close the link with no goodbye; what the seat held then, to check the rejoin by."""
        import socket
        s = self.seat
        held = {"me": s.me, "hand": dict(s.hand), "head": s.head, "rounds": s.rounds, "match": s.match_id,
                "n": s.n, "record": list(self.record), "table": s.table, "start": s.start_raw}
        log(f"dropping the link at act {self.acts} of the match (round {s.round}, {len(s.hand)} cards held, "
            f"{len(self.record)} messages read)")
        if self.silent:
            # Wi-Fi gone: nothing reaches the host, not even a FIN; the socket stays open (kept
            # here) and silent, and the host learns of it only from our new link (§7: a new link
            # with a seated key replaces one the host has not seen end)
            self.abandoned.append(link.sock)
            return held
        try:
            link.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        link.sock.close()
        return held

    def reconnect(self):
        """§7 "Rejoin": join again with the same identity (retrying a refused connection for a
        bounded while: the host is alive, only our link went)."""
        import time
        if self.back_after:
            log(f"back in {self.back_after:g} s")
            time.sleep(self.back_after)  # (--back-after: past the host's hold, a stand-in plays our seat)
        for attempt in range(50):
            try:
                return Link(self.host, self.port, self.code, role="player", name=self.name, keys=self.keys,
                        features=self.features)
            except (ConnectionRefusedError, ConnectionResetError, EOFError) as e:
                log(f"rejoin attempt {attempt + 1}: {e!r}")
                time.sleep(0.1)
        problem("could not join the host again with the same identity")

    def link_session(self, link, held):
        """Read one link until the match ends ("over"), the host closes it ("closed") or we drop
        it ("dropped")."""
        done = threading.Event()
        link.heartbeats(done)
        try:
            return self._read(link, held)
        except Dropped:
            self.rejoins += 1
            return "dropped"
        finally:
            done.set()

    def _read(self, link, held):
        me_id = fingerprint(link.static_pub)
        replay = 0              # replay messages still to come
        fed = 0                 # replay messages read
        rejoin = None
        announced = [None]      # our head as the host's heartbeats must carry it (§7 "ledger")
        if held is not None:
            self.seat = None    # §7: the seat rebuilds its state from the replay, checked as the first time
            self.record = []
        seat = self.seat
        link.sock.settimeout(30)
        for msg in link.messages():
            t = msg.get("t")
            if t == "seat":
                if msg["id"] != me_id:
                    problem("seat.id is not our fingerprint")
                if held is not None and msg["seat"] != held["me"]:
                    problem(f"rejoined: the host gave us seat {msg['seat']}, not our seat {held['me']} (§7)")
            elif t == "roster":
                if seat is None:
                    seat = self.seat = Seat(msg["table"], link)
                    seat.bluff = self.bluff
                    seat.on_genesis = lambda head: announced.__setitem__(0, head)
                    seat.before_send = self.dropping
                    if held is not None:
                        seat.said, seat.said_start = held["rounds"], held["start"]  # (its `round` lines are out)
                if held is not None:
                    if msg["table"] != held["table"]:
                        problem("rejoined: the roster names another table")
                    mine = [p for p in msg["players"] if p["id"] == me_id]
                    if not mine or mine[0]["seat"] != held["me"]:
                        problem(f"rejoined: the roster does not list us in seat {held['me']}: {mine}")
                    if rejoin is None and not mine[0].get("connected", True):
                        problem("rejoined: the roster that follows our `seat` says we are not connected (§7)")
                seat.roster_rules = msg["rules"]
                self.target = msg.get("target", 500)
            elif t == "rejoin":
                # §7: `at` messages of replay follow; we rebuild from them and send nothing meanwhile
                rejoin, replay = msg, msg.get("at", 0)
                if held is not None:
                    self.check_rejoin(msg, held)
                seat.replaying = replay > 0
                log(f"rejoined seat {msg.get('seat')}: replay of {replay} messages, {msg.get('round', 0)} rounds done")
                if not replay:
                    seat.replay_over()
                continue
            elif t in ("fair", "round_end"):
                if replay and held is not None and fed < len(held["record"]) and msg != held["record"][fed]:
                    problem(f"replay message {fed} is not the message {fed} we read before our link went: "
                            f"{msg!r} vs {held['record'][fed]!r} (§7: every message sent every peer, in order)")
                self.record.append(msg)
                if t == "fair":
                    if not replay and msg["ev"] in ("act", "host-act"):
                        self.acts += 1
                    seat.event(msg["round"], msg["ev"], msg["body"])
                else:
                    self.round_end(link, seat, msg)
                    announced[0] = seat.head  # the host's head takes the round in with this message (§7)
                if replay:
                    fed += 1
                    if held is not None and fed == len(held["record"]):
                        self.check_rebuilt(seat, held)
            elif t == "match_over":
                if msg["ledger"] != seat.head:
                    problem(f"match_over.ledger {msg['ledger'].hex()} is not our head {seat.head.hex()}")
                self.over = {"t": "match-over", "winner": msg["winner"], "scores": seat.end["scores"],
                             "rounds": seat.rounds, "ledger": seat.head.hex(), "match": seat.match_id.hex(),
                             "table": seat.table.hex(), "verdicts": seat.verdicts,
                             "decks_checked": seat.decks_checked, "returns": seat.returns,
                             "rejoins": self.rejoins}
                out(self.over)
                if self.vanish:
                    # --vanish: the laptop sleeps after the match, no goodbye (§7 "between matches")
                    import socket
                    link.sock.shutdown(socket.SHUT_RDWR)
                    link.sock.close()
                    log("match over: closing the link with no goodbye")
                    return "over"
                link.send({"t": "leave", "reason": "match over"})
                return "over"
            elif t == "error":
                if msg.get("fatal", True):
                    problem(f"the host sent a fatal error {msg!r}")
                seat.refused(msg)
                seat.maybe_act()
            elif t == "leave":
                return "closed"
            elif t == "heartbeat":
                if "head" in msg and announced[0] is not None and msg["head"] != announced[0]:
                    problem(f"heartbeat head {msg['head'].hex()} is not our head {announced[0].hex()} "
                            f"as of our last round_end (§7 \"ledger\")")
            elif t not in ("turn", "ledger", "election"):
                problem(f"unknown message {t}")
            if replay and t not in ("fair", "round_end"):
                problem(f"a {t} message inside the replay (§7: live messages come after it, never inside)")
            if replay and t in ("fair", "round_end"):
                replay -= 1
                if not replay:
                    if held is not None:
                        self.check_replay_end(seat, rejoin, held)
                    seat.replay_over()
        return "closed"

    def dropping(self, ev):
        """Close the link instead of sending `ev`? (`--drop-at-act`, `--drop-before`; with
        `--drop-before last-round-sign`: our co-sign of the match's last round)."""
        if self.drop_at is None or self.rejoins or self.acts < self.drop_at:
            return False
        if self.drop_before == "last-round-sign":
            scores = self.seat.end["scores"] if ev == "round-sign" else [0]
            return max(scores) >= self.target  # (standard scoring, no teams: the match is won)
        return ev == self.drop_before

    def round_end(self, link, seat, msg):
        seat.check_round_end(msg)
        if msg["round"] > self.printed:
            out({"t": "round-end", "round": msg["round"], "winner": msg.get("winner"),
                 "totals": [p["points"] for p in msg.get("totals", [])]})
            self.printed = msg["round"]
        if not msg.get("final"):
            if seat.replaying:
                seat.owe_ready = msg["round"] + 1
            else:
                link.send({"t": "ready", "round": msg["round"] + 1})

    def check_rejoin(self, msg, held):
        """§7: `rejoin {table, seat, round, at}`: our table and seat, the rounds completed (at
        least ours), and a replay at least as long as what we read."""
        if msg["table"] != held["table"]:
            problem("rejoin.table is not the roster's table id")
        if msg.get("seat") != held["me"]:
            problem(f"rejoin.seat {msg.get('seat')} is not our seat {held['me']}")
        # (the rounds in the host's ledger: as many as its `round_end` messages, §7 "ledger"; the
        # match's last round enters only after its co-signs, so one fewer than the fair
        # `round-end`s we read when we dropped before co-signing it)
        ends = sum(1 for m in held["record"] if m["t"] == "round_end")
        if msg.get("round", 0) < ends:
            problem(f"rejoin.round {msg.get('round', 0)} is fewer than the {ends} round_end messages we read")
        if msg.get("at", 0) < len(held["record"]):
            problem(f"rejoin.at {msg.get('at', 0)}: a replay shorter than the {len(held['record'])} messages "
                    "we read before our link went")

    def check_rebuilt(self, seat, held):
        """The replay, as far as we had read before our link went, rebuilt what we held."""
        got = {"me": seat.me, "hand": seat.hand, "head": seat.head, "rounds": seat.rounds, "match": seat.match_id,
               "n": seat.n}
        for k, v in got.items():
            if v != held[k]:
                problem(f"the replay rebuilt {k} = {v!r}, but we held {held[k]!r} when our link went")
        log(f"the replay's first {len(held['record'])} messages are what we read: hand of {len(seat.hand)} "
            f"cards, ledger head after {seat.rounds} rounds, act number {seat.n} rebuilt as held")

    def check_replay_end(self, seat, rejoin, held):
        ends = sum(1 for m in self.record if m["t"] == "round_end")
        if ends != rejoin.get("round", 0) or seat.rounds not in (ends, ends + 1):
            problem(f"the replay holds {ends} round_end messages and {seat.rounds} fair round-ends, but "
                    f"rejoin.round said {rejoin.get('round', 0)} rounds")
        log(f"replay read: round {seat.round}, {len(seat.hand)} cards in hand, {seat.rounds} rounds in our ledger")


def main():
    args = [a for a in sys.argv[1:] if a != "--bluff"]
    drop_at, drop_before = None, "act"
    if "--drop-at-act" in args:
        i = args.index("--drop-at-act")
        drop_at = int(args[i + 1])
        del args[i:i + 2]
    back_after = 0.0
    if "--back-after" in args:
        i = args.index("--back-after")
        back_after = float(args[i + 1])
        del args[i:i + 2]
    if "--drop-before" in args:
        i = args.index("--drop-before")
        drop_before = args[i + 1]
        drop_at = drop_at or 0
        del args[i:i + 2]
    name = os.environ.get("UNONET_CONFORMANCE_NAME", "specseat")
    features = ["away-start"] if "--away-start" in args else []
    vanish = "--vanish" in args
    silent = "--drop-silently" in args
    args = [a for a in args if a not in ("--away-start", "--vanish", "--drop-silently")]
    host, port = args[0], int(args[1])
    code = args[2] if len(args) > 2 else None
    session = Session(host, port, code, load_keys(), name, bluff="--bluff" in sys.argv, drop_at=drop_at,
                      drop_before=drop_before, features=features, vanish=vanish)
    session.silent = silent
    session.back_after = back_after
    sys.exit(session.run())


if __name__ == "__main__":
    main()
