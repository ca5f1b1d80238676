#!/usr/bin/env python3
"""An observer (a scorekeeper) written from protocol/spec.md alone: no `unonet` import, only
msgpack, `cryptography` and the independent `noiseprotocol` package.  It joins as an observer
(§4, §5 step 3), follows the match (a replay too, when it attaches mid-match), recomputes every
round digest and checks the host-signed `round-end` (§6.8, §6.1), keeps the match ledger (§7)
and prints the conformance kit's lines (protocol/README.md): one `round` per round and the
match-over line, whose `ledger` is its own chain's head, checked against `match_over.ledger`.

    python spec_observer.py HOST PORT [CODE] [--away-start]

It follows host elections too (§7 "Election", step 9): a host whose link ends mid-match (or that
is silent 3 s) is gone; it computes the successor from its last roster's `succession`, connects
there as an observer (checking the peer id), reports `election {term, host, head, rounds}` and
hands over its ledger (`ledger` messages), checks the new host's `election` confirmation
(step 6) and the continued `match-start`'s `continues` (step 7) against its own record, and keeps
its chain going to the match's end.  An `election` line says each one.

What it leaves out (a real scorekeeper does it): the seats' signatures, seeds, deals and the
rules engine's replay (so `continues.dealer` is checked only at a `standard` table, by the
deal passing to the left, §7 step 7).  tests/protocol/test_spec_observer.py runs it in the kit
and through an election.
"""
import hashlib
import hmac
import json
import socket
import struct
import sys
import threading
import time

import msgpack
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives import hashes, serialization
from noise.connection import NoiseConnection, Keypair

RAW = dict(encoding=serialization.Encoding.Raw, format=serialization.PublicFormat.Raw)
V = 4
ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
NO_HEAD = bytes(32)   # the head reported before a peer's ledger exists (§7 election step 4)


def out(obj):
    print(json.dumps(obj), flush=True)


def problem(text):
    out({"t": "problem", "text": text})
    sys.exit(1)


def verify(key_hex: str, sig_hex: str, message: bytes, what: str) -> None:
    try:
        Ed25519PublicKey.from_public_bytes(bytes.fromhex(key_hex)).verify(bytes.fromhex(sig_hex), message)
    except Exception:
        problem(f"{what}: its signature does not verify")


def unsigned(body: dict) -> bytes:
    """The signed form of a body: canonical JSON with `sig` set to "" (§6.1 "Signatures")."""
    return json.dumps(dict(body, sig=""), sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode()


def lp(b: bytes) -> bytes:
    return struct.pack(">I", len(b)) + b


def u32(n: int) -> bytes:
    return struct.pack(">I", n)


def T(name: str) -> bytes:
    return lp(b"unonet/fair/v1/" + name.encode())


def TL(name: str) -> bytes:
    return lp(b"unonet/ledger/v1/" + name.encode())


def sha(b: bytes) -> bytes:
    return hashlib.sha256(b).digest()


def fisher_yates(seed: bytes, n: int) -> list:
    """§6.8 "shuffle stream", `below`, "Fisher–Yates"."""
    words, counter = [], 0

    def word():
        nonlocal counter
        if not words:
            block = hmac.new(seed, T("shuffle-stream") + struct.pack(">Q", counter), hashlib.sha256).digest()
            counter += 1
            words.extend(struct.unpack(">8I", block))
        return words.pop(0)

    def below(b):
        limit = 2 ** 32 - (2 ** 32 % b)
        while True:
            w = word()
            if w < limit:
                return w % b

    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        k = below(i + 1)
        perm[i], perm[k] = perm[k], perm[i]
    return perm


#: §6.1 "Dealer draw": the classic deck's values, numbers as themselves, the rest 0
CLASSIC_VALUES = ([0] + [v for v in range(1, 10) for _ in (0, 1)] + [0] * 6) * 4 + [0] * 8


def dealer_draw(match_id: bytes, reveals: dict, players: int) -> int:
    """§6.1 "Dealer draw" (version 4): round 1's dealer from the match id and the seats'
    epoch-0 reveals (seat -> r_i), the highest draw over classic piles."""
    key = sha(T("dealer-draw-key") + lp(match_id) + u32(len(reveals))
              + b"".join(u32(s) + lp(reveals[s]) for s in sorted(reveals)))
    contenders = list(range(players))
    for k in range(100):
        perm = fisher_yates(sha(T("dealer-draw") + lp(key) + u32(k)), 108)
        got = [CLASSIC_VALUES[perm[i]] for i in range(len(contenders))]
        contenders = [s for s, v in zip(contenders, got) if v == max(got)]
        if len(contenders) == 1:
            break
    return contenders[0]


def fingerprint(x25519_pub: bytes) -> bytes:
    return sha(b"unonet-fingerprint-v1\x00" + x25519_pub)


def b32(data: bytes) -> str:
    bits = int.from_bytes(data, "big")
    n = len(data) * 8
    chars = []
    for i in range(0, n, 5):
        shift = n - i - 5
        chunk = (bits >> shift) & 31 if shift >= 0 else (bits << -shift) & 31
        chars.append(ALPHABET[chunk])
    return "".join(chars)


def short_fp(static_hex: str) -> str:
    """The short fingerprint (§4.5: 20 characters of the text form, grouped by 4), as
    `continues.host` and `continues.seats` carry a key (§6.1.1)."""
    t = b32(fingerprint(bytes.fromhex(static_hex)))[:20]
    return "-".join(t[i:i + 4] for i in range(0, 20, 4))


class Link:
    def __init__(self, host, port, code=None, role="observer", name="specobs", keys=None, features=()):
        """`keys`: (X25519 static, Ed25519) private keys to present (a seat keeps its own);
        fresh ones by default.  `features`: the `hello.features` extensions we announce (§4.4)."""
        self.sock = socket.create_connection((host, port), timeout=10)
        self.lock = threading.Lock()
        static, ed = keys or (X25519PrivateKey.generate(), Ed25519PrivateKey.generate())
        self.static_pub = static.public_key().public_bytes(**RAW)
        self.ed = ed
        seed = ed.private_bytes(serialization.Encoding.Raw, serialization.PrivateFormat.Raw,
                                serialization.NoEncryption())
        seal_priv = HKDF(hashes.SHA256(), 32, None, b"unonet-seal-key-v1").derive(seed)
        self.seal = X25519PrivateKey.from_private_bytes(seal_priv)
        self.seal_pub = X25519PrivateKey.from_private_bytes(seal_priv).public_key().public_bytes(**RAW)
        self.sign_pub = ed.public_key().public_bytes(**RAW)
        n = NoiseConnection.from_name(b"Noise_XX_25519_ChaChaPoly_SHA256")
        n.set_as_initiator()
        n.set_keypair_from_private_bytes(Keypair.STATIC, static.private_bytes(
            serialization.Encoding.Raw, serialization.PrivateFormat.Raw, serialization.NoEncryption()))
        n.set_prologue(b"unonet link\x00")
        n.start_handshake()
        self.noise = n
        self._frame(n.write_message())
        n.read_message(self._read_frame())
        host_static = n.noise_protocol.handshake_state.rs.public_bytes
        self.host_fp = fingerprint(host_static)
        if code:
            want = code.replace("-", "").replace(" ", "").upper().replace("I", "1").replace("L", "1").replace("O", "0")
            if b32(self.host_fp)[:len(want)] != want:
                problem(f"join code mismatch: {want} vs {b32(self.host_fp)[:10]}")
        self._frame(n.write_message())
        hh = n.get_handshake_hash()
        sig = ed.sign(b"unonet-hello-v1\x00" + hh + self.static_pub + self.seal_pub)
        cert = ed.sign(T("identity-cert") + lp(self.sign_pub) + lp(self.static_pub) + lp(self.seal_pub))
        self.send({"t": "hello", "v": V, "vmin": V, "role": role, "name": name,
                   "sign_key": self.sign_pub, "seal_key": self.seal_pub, "sig": sig, "cert": cert,
                   **({"features": list(features)} if features else {})})
        hello = self.recv()
        if hello.get("t") != "hello" or hello.get("role") != "host":
            problem(f"expected the host's hello, got {hello!r}")
        try:
            Ed25519PublicKey.from_public_bytes(hello["sign_key"]).verify(
                hello["sig"], b"unonet-hello-v1\x00" + hh + host_static + hello["seal_key"])
        except Exception:
            problem("the host's hello signature does not verify")
        self.hello = hello

    def _frame(self, body: bytes):
        self.sock.sendall(struct.pack(">I", len(body)) + body)

    def _exact(self, n):
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                if buf:
                    problem("truncated frame")
                raise EOFError
            buf += chunk
        return buf

    def _read_frame(self):
        (n,) = struct.unpack(">I", self._exact(4))
        if not 1 <= n <= 65535:
            problem(f"bad frame length {n}")
        return self._exact(n)

    def send(self, msg: dict):
        data = msgpack.packb(msg, use_bin_type=True)
        data += b"\x00" * (-len(data) % 256)
        with self.lock:
            self._frame(self.noise.encrypt(data))

    def heartbeats(self, done: threading.Event) -> None:
        """A heartbeat a second from a thread of its own, until ``done``."""
        def beat():
            seq = 0
            while not done.wait(1.0):
                try:
                    self.send({"t": "heartbeat", "seq": seq})
                except OSError:
                    return
                seq += 1

        threading.Thread(target=beat, daemon=True).start()

    def messages(self):
        """The host's messages until it closes the link; a host silent past the socket's
        timeout is a problem."""
        while True:
            try:
                msg = self.recv()
            except (EOFError, ConnectionResetError):
                return
            except socket.timeout:
                problem("the host fell silent")
            yield msg

    def recv(self) -> dict:
        plain = self.noise.decrypt(self._read_frame())
        if len(plain) % 256:
            problem("plaintext not padded to 256")
        u = msgpack.Unpacker(raw=False, strict_map_key=True)
        u.feed(plain)
        msg = next(u)
        rest = plain[u.tell():]
        if len(rest) > 255 or rest.strip(b"\x00"):
            problem("bad padding")
        return msg


class Follower:
    """What the spec says a scorekeeper checks and keeps."""

    def __init__(self, roster_table: bytes):
        self.table = roster_table   # the roster's table id (ledger header)
        self.start = None           # match-start body (dict) and its raw bytes
        self.joins = {}
        self.match_id = None
        self.head = None            # match ledger head
        self.rounds = 0
        self.digest = None          # running round digest of the attempt
        self.round = None
        self.rs = None              # round-start body
        self.dealer = None          # the attempt's dealer (round 1: drawn at its `start`, §6.1)
        self.reveals = {}           # seat -> its epoch-0 player-reveal secret, this attempt
        self.end = None             # game end record
        self.history = None         # the round history chain (§6.8)
        self.ended = False          # a round ended and no round-start came since
        self.signed = set()         # the seats whose co-sign of that round was relayed
        self.context = None
        self.roster_rules = None
        self.said = 0               # the last round whose `round` line is out
        self.said_start = None      # the match-start of the match `said` counts in
        self.away = set()           # away seats not joined yet (§6.1.1)
        self.away_at_start = set()  # the away seats at the current attempt's round-start
        # what an election needs (§7): the chain's head after 0, 1, ... match rounds and each
        # round's entry as a `ledger` message hands it over, whether our ledger exists yet (it
        # begins with round 1's set-up), what a continuation must carry after each match round,
        # the last round every seat that owed it co-signed (`F`, step 6), and the rounds carried
        # into this transcript (`offset`: a transcript's round r is the match's round offset + r)
        self.ledger_match = None    # the match id the ledger header hashes (the match's first transcript's)
        self.heads = []
        self.entries = []
        self.begun = False
        self.snaps = {}             # match rounds -> (scores, next dealer, digest)
        self.floor = 0
        self.offset = 0
        self.expect = None          # after a confirmation: the continuation we hold ("fresh": none)
        self.elections = 0          # the elections this observer has followed in this match

    def event(self, rnd: int, ev: str, raw: bytes):
        body = json.loads(raw)
        if body.get("ev") != ev:
            problem(f"fair ev {ev} but body says {body.get('ev')}")
        if ev == "match-start":
            cont = body.get("continues")
            expect, self.expect = self.expect, None
            if expect is not None and expect != "fresh":
                self.check_continuation(body, cont, expect)
            elif cont is not None:
                problem("a continued match-start (continues) without an election this observer followed")
            else:
                if raw != self.said_start:
                    self.said = 0  # (a new match: its rounds are news)
                self.said_start = raw
                self.ledger_match, self.heads, self.entries, self.begun = None, [], [], False
                self.snaps, self.floor, self.offset, self.rounds = {}, 0, 0, 0
                self.elections = 0  # (`term` counts the elections of this match, §7 step 2)
            self.ended, self.signed, self.digest = False, set(), None
            self.start, self.start_raw = body, raw
            self.joins = {}
            self.match_id = None
            # §6.1.1 away seats (a fresh match's `away`, a continuation's `continues.away`): no
            # join until their player is back; the match id hashes the others' nonces (§6.1)
            self.away = set(body.get("away") or (body.get("continues") or {}).get("away") or [])
            verify(body["host"]["sign"], body["sig"], T("match-start") + lp(unsigned(body)), "match-start")
            self.h_start = sha(T("match-start-hash") + lp(self.start_raw))
            return
        if ev == "match-join":
            seat = body["seat"]
            if bytes.fromhex(body["start"]) != self.h_start:
                problem(f"seat {seat}'s match-join is over another match-start")
            verify(self.start["seats"][seat]["sign"], body["sig"], T("match-join") + lp(unsigned(body)),
                   f"seat {seat}'s match-join")
            self.joins[seat] = bytes.fromhex(body["nonce"])
            seats = [s for s in range(len(self.start["seats"])) if s not in self.away]
            if all(s in self.joins for s in seats) and self.match_id is None:
                self.match_id = sha(T("match-id") + lp(self.h_start) + b"".join(
                    lp(self.joins[s]) for s in seats))[:16]
                self.history = sha(T("round-history") + lp(self.match_id))
                if self.ledger_match is None:  # (a continuation's chain simply goes on, §7 step 7)
                    self.ledger_match = self.match_id
                    self.genesis()
                    self.heads = [self.head]
                    self.on_genesis(self.head)
            elif self.match_id is not None:
                self.away.discard(seat)  # an away seat's player back: a late join, the id stays (§6.1.1)
            return
        if ev == "round-sign":
            # a co-sign of the round that just ended (seat-event signature over its body, §6.1)
            seat = body["seat"]
            ctx = lp(self.match_id) + u32(self.round)
            verify(self.start["seats"][seat]["sign"], body["sig"],
                   T("seat-event") + ctx + lp(self.context) + lp(unsigned(body)), f"seat {seat}'s round-sign")
            self.signed.add(seat)
            if set(range(len(self.start["seats"]))) - self.away_at_start <= self.signed:
                self.floor = max(self.floor, self.offset + self.round)  # every seat that owed it co-signed
            return
        if ev == "round-abort":
            self.digest = None
            return
        if ev == "round-start":
            if bytes.fromhex(body["table"]) != self.match_id:
                problem("round-start.table is not the match id")
            if bytes.fromhex(body["history"]) != self.history:
                problem(f"round {body['round']}: round-start.history is not ours (§6.8 round history)")
            if body["attempt"] == 1 and self.ended:
                # (a seat away at the round-start of the attempt that ended owes no co-sign of it,
                # though its player joined late during it, §6.5)
                missing = sorted(set(range(len(self.start["seats"]))) - self.signed - self.away_at_start)
                if body.get("waived", []) != missing:
                    problem(f"round {body['round']}: waived {body.get('waived')} but the co-signs of {missing} "
                            "are missing (§6.5)")
            elif "waived" in body:
                problem(f"round {body['round']} attempt {body['attempt']}: waived in a later attempt")
            self.ended = False
            self.away_at_start = set(self.away)
            self.reveals = {}
            self.round, self.rs = body["round"], body
            ctx = lp(self.match_id) + u32(self.round)
            self.digest = sha(T("round-digest") + ctx + lp(bytes.fromhex(body["digest"])))
        if ev == "round-end":
            d = bytes.fromhex(body["digest"])
            if d != self.digest:
                problem(f"round {self.round}: round-end digest {d.hex()} is not ours {self.digest.hex()}")
            ctx = lp(self.match_id) + u32(self.round)
            try:
                Ed25519PublicKey.from_public_bytes(bytes.fromhex(self.rs["host"]["sign"])).verify(
                    bytes.fromhex(body["sig"]), T("round-end") + ctx + lp(d))
            except Exception:
                problem(f"round {self.round}: round-end signature does not verify")
            self.ledger_round(d)
            n = len(self.start["seats"])
            self.snaps[self.rounds] = (list(self.end["scores"]), (self.dealer + 1) % n, d.hex())
            self.history = sha(T("round-history") + lp(self.history) + u32(self.round) + lp(d))
            self.ended, self.signed = True, set()
            return
        if self.digest is None:
            problem(f"{ev} outside an attempt")
        self.digest = sha(self.digest + lp(raw))
        if ev == "seed-commit" and body["epoch"] == 0:
            self.context = self.digest  # what seats sign over (§6.1 "Signatures")
        if ev == "player-reveal":
            self.reveals[body["seat"]] = bytes.fromhex(body["secret"])
        if ev == "game":
            data = body["data"]
            if data["g"] == "setup":
                self.context = None
                self.dealer = data["dealer"]
                # §6.1 "Dealer draw": round 1 names none (drawn from the reveals), unless the
                # continuation carried one; every later round names one
                carried = (self.start.get("continues") or {}).get("dealer")
                if data["round"] == 1 and (self.dealer is None) != (carried is None):
                    problem(f"round 1's set-up names the dealer {self.dealer}, but the match rules give {carried} "
                            "(§6.1 \"Dealer draw\")")
                if data["round"] > 1 and self.dealer is None:
                    problem(f"round {data['round']}'s set-up names no dealer (§6.1.2)")
                if not self.begun:  # our ledger begins with round 1's set-up (§7 election step 4)
                    self.begun = True
                    self.snaps[0] = ([0] * len(self.start["seats"]), self.dealer, None)
            elif data["g"] == "start" and self.dealer is None:
                self.dealer = dealer_draw(self.match_id, self.reveals, len(self.start["seats"]))
            elif data["g"] == "end":
                self.end = data

    # -- elections (§7 "Election") ------------------------------------------------------------
    def report(self):
        """Our `election` report's head and rounds: the head after our rounds (all zero bytes
        after 0 rounds before our ledger exists, step 4)."""
        return (self.heads[-1], len(self.heads) - 1) if self.begun else (NO_HEAD, 0)

    def ledger_messages(self):
        """Our whole match ledger as `ledger` messages (step 9): the counted rounds, oldest
        first, at most 200 entries each; none before our ledger exists."""
        if not self.begun:
            return []
        chunks = [self.entries[i:i + 200] for i in range(0, len(self.entries), 200)] or [[]]
        return [{"t": "ledger", "match": self.ledger_match, "rounds": self.rounds, "head": self.head,
                 "entries": c} for c in chunks]

    def won(self):
        """Our own record shows the match won (§5 step 8): the last round's end verified and in
        our chain, a score at the target.  The winner then, or None."""
        rules, e = self.start["rules"], self.end
        if e is None or not self.ended or rules.get("scoring", "standard") != "standard":
            return None
        sc = e["scores"]
        standings = [sum(sc[0::2]), sum(sc[1::2])] if rules.get("teams") else sc
        if max(standings) < rules["target"]:
            return None
        return standings.index(max(standings))

    def confirm(self, msg, term, host):
        """The new host's `election` confirmation against our own record (step 6); the rounds
        beyond it leave our chain (void, dealt again), and what the continued `match-start` must
        carry is kept for it (step 7)."""
        if msg["term"] != term or msg["host"] != host:
            problem(f"the new host confirms term {msg['term']} for host {msg['host'].hex()[:16]}, but we elected "
                    f"{host.hex()[:16]} in term {term} (§7 step 6)")
        r, h = msg["rounds"], msg["head"]
        heads = self.heads if self.begun else [NO_HEAD]
        fresh = r == 0 and h == NO_HEAD
        if not fresh and (r >= len(heads) or heads[r] != h):
            problem(f"the new host continues from head {h.hex()[:16]} after {r} rounds: ours there is "
                    f"{heads[r].hex()[:16] if r < len(heads) else 'none'} (§7 step 6)")
        if r < self.floor - 1:
            problem(f"the new host continues after {r} rounds, but round {self.floor} was co-signed by every "
                    "seat: it drops co-signed rounds (§7 step 6)")
        if fresh:
            self.expect = "fresh"
            return
        if self.rounds > r:
            out({"t": "void", "rounds": list(range(r + 1, self.rounds + 1)),
                 "text": f"the new host continues after {r} rounds: the rounds after it are dealt again"})
        self.heads, self.entries = self.heads[:r + 1], self.entries[:r]
        self.head, self.rounds, self.said = self.heads[r], r, min(self.said, r)
        scores, dealer, digest = self.snaps[r]
        self.expect = {"match": self.match_id.hex(), "rounds": r, "digest": digest, "scores": scores,
                       "dealer": dealer, "host": short_fp(self.start["host"]["static"]),
                       "seats": [short_fp(i["static"]) for i in self.start["seats"]]}

    def check_continuation(self, body, cont, want):
        """The continued `match-start`'s `continues` against our record of the old match (step 7)."""
        if cont is None:
            problem(f"the new host starts a fresh match instead of continuing match {want['match'][:16]} "
                    f"after {want['rounds']} rounds (§7 step 7)")
        for k in ("match", "rounds", "digest", "scores", "host", "seats"):
            if cont.get(k) != want[k]:
                problem(f"continues.{k} is {cont.get(k)!r}, our record of the old match says {want[k]!r} (§7 step 7)")
        if self.start["rules"].get("scoring", "standard") == "standard" and cont.get("dealer") != want["dealer"]:
            problem(f"continues.dealer is {cont.get('dealer')}, the deal passing to the left gives {want['dealer']}")
        if [short_fp(i["static"]) for i in body["seats"]] != cont["seats"]:
            problem("the continued match-start seats other keys than continues.seats (§7 step 7)")
        self.offset = cont["rounds"]
        self.floor = max(self.floor, self.offset)  # (a round an election carried counts as co-signed)
        self.snaps[self.offset] = (list(cont["scores"]), cont["dealer"], cont["digest"])

    def check_round_end(self, msg):
        """The link's `round_end` against the round's `game end` record (§5 step 7)."""
        e = self.end
        sc = e["scores"]
        totals = [sum(sc[0::2]), sum(sc[1::2])] if self.start["rules"].get("teams") else sc
        want = {"round": self.rounds, "reason": "out" if e["winner"] is not None else "blocked",
                "winner": e["winner"], "points": [{"seat": i, "points": p} for i, p in enumerate(e["hand_points"])],
                "totals": [{"seat": i, "points": p} for i, p in enumerate(totals)]}
        got = {k: msg.get(k) for k in want}
        got["points"] = [dict(x) for x in msg.get("points", [])]
        got["totals"] = [dict(x) for x in msg.get("totals", [])]
        if got != want:
            problem(f"round_end {got} is not the round's game end {want}")

    def genesis(self):
        rules = self.start["rules"]
        if self.roster_rules != rules["preset"]:
            problem(f"the roster's rules {self.roster_rules!r} is not match-start's preset {rules['preset']!r}")
        seats = [fingerprint(bytes.fromhex(i["static"])) for i in self.start["seats"]]
        house = sorted(rules.get("house", []))
        header = (lp(self.ledger_match) + lp(self.table) + lp(rules["preset"].encode()) + lp(rules["deck"].encode())
                  + u32(len(house)) + b"".join(lp(h.encode()) for h in house)
                  + bytes([1 if rules.get("teams") else 0])
                  + lp(rules.get("scoring", "standard").encode()) + u32(rules["target"])
                  + u32(len(seats)) + b"".join(lp(s) for s in seats))
        self.head = sha(TL("genesis") + header)

    def ledger_round(self, digest):
        e = self.end
        ints = lambda xs: u32(len(xs)) + b"".join(u32(x) for x in xs)  # noqa: E731
        teams = []
        if self.start["rules"].get("teams"):
            sc = e["scores"]
            teams = [sum(sc[0::2]), sum(sc[1::2])]
        winner = b"\x00" if e["winner"] is None else b"\x01" + u32(e["winner"])
        host_id = fingerprint(bytes.fromhex(self.rs["host"]["static"]))
        number = self.offset + self.round  # the match's round (after an election: agreed + ours, §7 step 7)
        entry = (lp(self.ledger_match) + lp(self.table) + u32(number) + u32(self.rs["attempt"]) + u32(self.dealer)
                 + winner + u32(e["points"]) + ints(e["hand_points"]) + ints(e["scores"]) + ints(teams)
                 + lp(digest) + lp(host_id) + ints([]) + b"\x00" + lp(b""))
        self.head = sha(TL("round") + lp(self.head) + entry)
        self.rounds = number
        self.heads.append(self.head)
        self.entries.append({"round": number, **({} if e["winner"] is None else {"winner": e["winner"]}),
                             "points": [{"seat": i, "points": p} for i, p in enumerate(e["hand_points"])],
                             "hash": self.head})
        if len(self.heads) != number + 1:
            problem(f"round {number}: our chain holds {len(self.heads) - 1} rounds")
        if number > self.said:  # (a seat rebuilt from a replay in the same run says each round once)
            out({"t": "round", "round": number, "status": "verified", "reason": ""})
            self.said = number


def successor(roster, lost: bytes):
    """The first peer id in the roster's `succession` whose entry is connected, not a bot, not
    the lost host, with a non-empty `addr` (§7 election step 2), or None."""
    entries = {p["id"]: p for p in roster["players"]}
    for pid in roster.get("succession", []):
        p = entries.get(pid)
        if pid != lost and p is not None and p.get("connected", True) and not p.get("bot", False) \
                and p.get("addr", ""):
            return p
    return None


def reach(entry, keys, features):
    """A link to the elected host at its roster `addr` (`host:port`), retried for up to 8 s
    (step 4), its key checked against the roster's peer id (a stale peer cannot claim the table)."""
    host, _, port = entry["addr"].rpartition(":")
    deadline = time.monotonic() + 8.0
    while True:
        try:
            link = Link(host.strip("[]"), int(port), None, keys=keys, features=features)
            break
        except (OSError, EOFError) as exc:
            if time.monotonic() > deadline:
                problem(f"the elected host {entry['name']} ({entry['addr']}) cannot be reached ({exc!r})")
            time.sleep(0.1)
    if link.host_fp != entry["id"]:
        link.send({"t": "error", "code": "fair-play", "message": "you are not the elected host"})
        problem(f"the peer at {entry['addr']} is not the elected host {entry['name']} (its key is not the roster's)")
    return link


def lost_host_answers(address, keys, lost: bytes) -> bool:
    """Before electing, the lost host is tried again with the same key for up to 1.5 s; a
    refused connection ends the try at once (§7 "Election"): it answers when the handshake
    completes with its key."""
    deadline = time.monotonic() + 1.5
    while time.monotonic() < deadline:
        try:
            link = Link(*address, None, keys=keys)
        except ConnectionRefusedError:
            return False
        except (OSError, EOFError):
            time.sleep(0.1)
            continue
        link.sock.close()
        return link.host_fp == lost
    return False


class Watch:
    """One observer's session across links: its record (`Follower`) and the last roster."""

    def __init__(self):
        self.follower = None
        self.roster = None
        self.over = None
        self.announced = None   # our ledger head as the host's heartbeats must carry it
        self.beats = 0
        self.awaiting = None    # (term, host) of an election whose confirmation has not come
        self.done = False       # the current match's match_over read

    def follow(self, link):
        """Read the host's messages: "over" (match_over), "left" (its `leave`) or "lost" (its
        link ended, or it was silent 3 s in a match: §5 step 5, §7)."""
        done = threading.Event()
        link.heartbeats(done)
        try:
            return self._follow(link)
        finally:
            done.set()

    def _follow(self, link):
        link.sock.settimeout(10)  # (the lobby's limit; 3 s once the match is under way, §5 step 5)
        while True:
            try:
                msg = link.recv()
            except (EOFError, ConnectionResetError, socket.timeout) as exc:
                if self.follower is not None and self.follower.start is not None and not self.done:
                    return "lost"  # in the middle of a match (§7 "Election")
                if isinstance(exc, socket.timeout) and not self.done:
                    problem("the host fell silent")
                return "closed"
            if self.handle(link, msg):
                return self._end

    def handle(self, link, msg):
        """One message; True when the link's story ends (`self._end` says how)."""
        t = msg.get("t")
        follower = self.follower
        if t == "roster":
            if follower is None:
                self.follower = follower = Follower(msg["table"])
            elif msg["table"] != follower.table:
                problem(f"the roster's table {msg['table'].hex()} is not this table {follower.table.hex()} (§7 step 3)")
            self.roster = msg
            follower.roster_rules = msg["rules"]
            follower.on_genesis = lambda head: setattr(self, "announced", head)
        elif t == "fair":
            if self.awaiting is not None:
                problem(f"a fair message ({msg['ev']} of round {msg['round']}) before the new host's election confirmation (§7 step 6)")
            follower.event(msg["round"], msg["ev"], msg["body"])
            if msg["ev"] == "match-start":
                self.done = False
            link.sock.settimeout(3)
        elif t == "election":
            if self.awaiting is None:
                problem("an election confirmation without an election")
            follower.confirm(msg, *self.awaiting)
            self.awaiting = None
            self.announced = follower.head if follower.expect != "fresh" else None
        elif t == "match_over":
            if msg["ledger"] != follower.head:
                problem(f"match_over.ledger {msg['ledger'].hex()} is not our head {follower.head.hex()}")
            if msg["rounds"] != follower.rounds:
                problem(f"match_over.rounds {msg['rounds']} is not our {follower.rounds}")
            self.say_over(msg["winner"])
            self.done = True
            link.sock.settimeout(10)  # (between matches: the lobby's limit again)
        elif t == "error":
            if msg.get("fatal", True):
                problem(f"the host sent a fatal error {msg!r}")
        elif t == "round_end":
            self.announced = follower.head  # the host's head takes the round in with this message (§7)
            follower.check_round_end(msg)
        elif t == "heartbeat" and "head" in msg and self.announced is not None and self.awaiting is None:
            # the host's heartbeat carries its ledger head (§5 step 5, §7): ours as of the last
            # `round_end` (the genesis before the first), message for message
            if msg["head"] != self.announced:
                problem(f"heartbeat head {msg['head'].hex()} is not our head {follower.head.hex()} "
                        f"after {follower.rounds} rounds")
            self.beats += 1
        elif t == "leave":
            self._end = "left"
            return True
        elif t not in ("heartbeat", "round_end", "rejoin", "turn", "ledger", "election", "seat"):
            problem(f"unknown message {t}")
        return False

    def say_over(self, winner):
        f = self.follower
        # (the kit's line: `scores` per seat, also at a partners table, where match_over's are
        # per team: the last game end record's)
        self.over = {"t": "match-over", "winner": winner, "scores": f.end["scores"], "rounds": f.rounds,
                     "ledger": f.head.hex(), "match": f.ledger_match.hex(), "table": f.table.hex(),
                     "heads_checked": self.beats}
        out(self.over)


def main():
    args = [a for a in sys.argv[1:] if a != "--away-start"]
    host, port = args[0], int(args[1])
    code = args[2] if len(args) > 2 else None
    # --away-start: announce that extension (§4.4): we read a match-start with seats away
    features = ["away-start"] if "--away-start" in sys.argv else ()
    keys = (X25519PrivateKey.generate(), Ed25519PrivateKey.generate())  # (the same key at every host)
    link = Link(host, port, code, keys=keys, features=features)
    watch = Watch()
    address = (host, port)
    while watch.follow(link) == "lost":
        link.sock.close()
        f = watch.follower
        if f is None or f.start is None or watch.roster is None:
            problem("the host's link ended before a match")
        winner = f.won()
        if winner is not None:  # the host lost at the very end: the result stands (§5 step 8)
            out({"t": "host-gone", "text": "the host left after the match was won"})
            watch.say_over(winner)
            break
        if lost_host_answers(address, keys, watch.roster["host"]):
            # (only our link was lost: a living host replays the match to us as to any late
            # observer, §5 step 3; this observer does not take that path)
            problem(f"the host at {address[0]}:{address[1]} still answers: this observer does not rejoin it")
        f.elections += 1
        term = f.elections
        lost = watch.roster["host"]
        nxt = successor(watch.roster, lost)
        if nxt is None:
            problem("the host is gone and no connected peer can take over the table")
        head, rounds = f.report()
        out({"t": "election", "term": term, "lost": lost.hex(), "successor": nxt["id"].hex(),
             "successor_addr": nxt["addr"], "head": head.hex(), "rounds": rounds})
        link = reach(nxt, keys, features)
        link.send({"t": "election", "term": term, "host": nxt["id"], "head": head, "rounds": rounds})
        for m in f.ledger_messages():
            link.send(m)
        watch.awaiting = (term, nxt["id"])
        watch.announced = None
        h, _, p = nxt["addr"].rpartition(":")
        address = (h.strip("[]"), int(p))
    sys.exit(0 if watch.over else 1)


if __name__ == "__main__":
    main()
