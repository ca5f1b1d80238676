"""The public events of a fair round: frozen values that check their own shape.

The same sequence of events drives the host's `FairDealer`, every
`FairVerifier` and the offline `audit`. Each event has a JSON form (binary as
lowercase hex) used for the transcript and for the round digest.
"""

from __future__ import annotations

import functools
import json
import types
from json import encoder as _json_encoder
import typing
from dataclasses import dataclass, field, fields
from collections.abc import Callable
from typing import Any, ClassVar

from ._cards import Card
from ._encoding import parse_hex, parse_int, sha256  # noqa: F401 - re-exported
from ._errors import EventFormatError
from ._identity import PublicIdentity
from ._shuffle import Opening



#: `json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=True)` builds this very
#: encoder on every call: one, made once, gives the same text without (every event, every party)
#: (NaN and Infinity are not JSON: an event holding one cannot be written, spec §6.1)
_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False)


def canonical_json(obj: object) -> str:
    return _CANONICAL.encode(obj)


def _plain_canonical() -> Callable[[object], str]:
    """`canonical_json` for a value read by `json.loads` (acyclic, so no circular-reference
    check): the C encoder `_CANONICAL.encode` builds on every call, built once."""
    make = _json_encoder.c_make_encoder
    if make is None:  # pragma: no cover - (a Python without json's C accelerator)
        return canonical_json
    c_encode = make(None, _CANONICAL.default, _json_encoder.encode_basestring_ascii, None,
                    _CANONICAL.key_separator, _CANONICAL.item_separator, True, False, False)
    return lambda obj: "".join(c_encode(obj, 0))


_read_canonical = _plain_canonical()


def _inner(tp: Any) -> tuple[str, Any]:
    origin = typing.get_origin(tp)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in typing.get_args(tp) if a is not type(None)]
        return "optional", inner
    if origin is tuple:
        return "tuple", typing.get_args(tp)[0]
    return "plain", tp


@functools.lru_cache(maxsize=None)
def _codec(tp: Any) -> tuple[Callable[[Any], Any], Callable[[Any, str], Any], Callable[[Any, str], None]]:
    """(encode, decode, check) for one field type, built once per type."""
    kind, inner = _inner(tp)
    if kind != "plain":
        enc_i, dec_i, chk_i = _codec(inner)
        if kind == "optional":
            return (
                lambda v: None if v is None else enc_i(v),
                lambda v, n: None if v is None else dec_i(v, n),
                lambda v, n: None if v is None else chk_i(v, n),
            )

        def dec_t(v: Any, n: str) -> tuple:
            if not isinstance(v, list):
                raise EventFormatError(f"field {n!r} is not a list")
            return tuple([dec_i(x, n) for x in v])

        def chk_t(v: Any, n: str) -> None:
            if not isinstance(v, tuple):
                raise EventFormatError(f"field {n!r} must be a tuple")
            for x in v:
                chk_i(x, n)

        return (lambda v: [enc_i(x) for x in v]), dec_t, chk_t

    def chk(v: Any, n: str) -> None:
        if tp is int:
            parse_int(v, n)
        elif not isinstance(v, tp):
            raise EventFormatError(f"field {n!r} must be {tp.__name__}, not {type(v).__name__}")

    if tp is bytes:
        return (lambda v: v.hex()), parse_hex, chk
    if tp is int:
        return (lambda v: v), parse_int, chk
    if tp in (bool, str, dict):
        def dec_p(v: Any, n: str) -> Any:
            if type(v) is not tp and not isinstance(v, tp):
                raise EventFormatError(f"field {n!r} is not a {tp.__name__}")
            return v
        return (lambda v: v), dec_p, chk

    def dec_o(v: Any, n: str) -> Any:
        try:
            return tp.from_json(v)
        except EventFormatError:
            raise
        except (ValueError, TypeError, KeyError) as exc:
            raise EventFormatError(f"field {n!r}: {exc}") from None

    return (lambda v: v.to_json()), dec_o, chk


def _encode(tp: Any, v: Any) -> Any:
    return _codec(tp)[0](v)


def _decode(tp: Any, v: Any, name: str) -> Any:
    return _codec(tp)[1](v, name)


def _check(tp: Any, v: Any, name: str) -> None:
    _codec(tp)[2](v, name)


_HINTS: dict[type, dict[str, Any]] = {}
EVENT_TYPES: dict[str, type["Event"]] = {}


class Event:
    """Base of all public events; `EV` is the transcript name."""

    EV: ClassVar[str] = ""
    #: optional fields left out of the JSON (and so of the signed canonical form) while None:
    #: a field added later does not change the events that do not use it
    OMIT_NONE: ClassVar[frozenset[str]] = frozenset()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        if cls.EV:
            EVENT_TYPES[cls.EV] = cls

    @classmethod
    def _hints(cls) -> dict[str, Any]:
        if cls not in _HINTS:
            hints = typing.get_type_hints(cls, globalns=globals())
            _HINTS[cls] = {f.name: hints[f.name] for f in fields(cls)}  # type: ignore[arg-type]
        return _HINTS[cls]

    def __post_init__(self) -> None:
        for name, tp in self._hints().items():
            _check(tp, getattr(self, name), name)

    def to_json(self) -> dict:
        out: dict = {"ev": self.EV}
        for name, enc, omit in _writer(type(self)):
            v = getattr(self, name)
            if v is None and omit:
                continue
            out[name] = enc(v)
        return out

    @staticmethod
    def from_json(obj: object) -> "Event":
        if type(obj) is not dict and not isinstance(obj, dict):
            raise EventFormatError("an event must be a JSON object")
        name = obj.get("ev")
        cls = EVENT_TYPES.get(name) if type(name) is str or isinstance(name, str) else None
        if cls is None:
            raise EventFormatError(f"unknown event type {name!r}")
        plan = _PLANS[cls] if cls in _PLANS else _plan(cls)
        if obj.keys() != plan.keys:  # (some field missing or extra, or an optional one left out)
            _check_keys(obj, name, plan)
            obj = {k: obj.get(k) for k in plan.names}  # (the ones left out: None)
        elif plan.omit and any(obj[k] is None for k in plan.omit):
            raise EventFormatError(f"{name} event: an absent optional field is left out, not null")
        try:
            if not plan.direct:
                return cls(**{k: dec(obj[k], k) for k, dec, _ in plan.decoders})
            event = object.__new__(cls)
            for k, dec, u32 in plan.decoders:
                v = obj[k]
                # (a u32 field's int is taken here; anything else goes to its decoder, to say what)
                _setattr(event, k, v if u32 and type(v) is int and 0 <= v <= _U32_MAX else dec(v, k))
            return event
        except EventFormatError:
            raise
        except ValueError as exc:
            raise EventFormatError(f"{name} event: {exc}") from None

    def keep_canonical(self, obj: dict, text: str) -> bool:
        """Is ``text`` this event's canonical JSON, the event being `from_json(obj)` and ``obj``
        what `json.loads(text)` read?  `from_json` takes every value exactly as it would write it
        back (ints that are ints, lowercase hex, strings, cards, openings and identities as
        read, nothing else, `OMIT_NONE` fields left out while None), so `to_json()` is ``obj``
        value for value and the event's canonical JSON is ``obj``'s, without `to_json`.  When
        it is ``text``, the event keeps it as its `canonical()`."""
        if _read_canonical(obj) != text:
            return False
        self.__dict__["_canonical"] = text
        return True

    def canonical(self) -> str:
        """The event's canonical JSON, computed once per event object (events are frozen;
        the ledger's digest, signatures and relaying each need it)."""
        d = self.__dict__
        c = d.get("_canonical")
        if c is None:
            c = d["_canonical"] = canonical_json(self.to_json())
        return c


@functools.lru_cache(maxsize=None)
def _writer(cls: type[Event]) -> tuple[tuple[str, Callable[[Any], Any], bool], ...]:
    """How `Event.to_json` writes a ``cls``: each field's name, encoder, and whether it is left
    out while None (looked up once per class, not per field of every event)."""
    return tuple((name, _codec(tp)[0], name in cls.OMIT_NONE) for name, tp in cls._hints().items())


class _Plan(typing.NamedTuple):
    """How `Event.from_json` builds one class, worked out once: each field's decoder (it yields
    a value of the field's type or raises: it checks what `_check` would, so a class whose
    only ``__post_init__`` is the base's type check is built from the decoded values directly,
    not checked twice), the keys of its JSON object when no field is left out, its field names
    and the optional ones."""

    decoders: tuple[tuple[str, Callable[[Any, str], Any], bool], ...]  # (name, decoder, a plain int)
    keys: frozenset[str]
    names: frozenset[str]
    omit: frozenset[str]
    direct: bool


_PLANS: dict[type, _Plan] = {}
_U32_MAX = (1 << 32) - 1
_setattr = object.__setattr__


def _plan(cls: type[Event]) -> _Plan:
    hints = cls._hints()
    names = frozenset(hints)
    plan = _PLANS[cls] = _Plan(
        tuple((k, _codec(tp)[1], tp is int) for k, tp in hints.items()), names | {"ev"}, names,
        frozenset(cls.OMIT_NONE) & names, cls.__post_init__ is Event.__post_init__)
    return plan


def _check_keys(obj: dict, name: str, plan: _Plan) -> None:
    """Refuse a null optional field, and a missing or an unexpected one; pass an object whose
    only difference from the class's full set of keys is optional fields left out."""
    if any(k in obj and obj[k] is None for k in plan.omit):
        raise EventFormatError(f"{name} event: an absent optional field is left out, not null")
    keys = (set(obj) - {"ev"}) | plan.omit
    if keys != plan.names:
        missing, extra = plan.names - keys, keys - plan.names
        raise EventFormatError(
            f"{name} event: " + "; ".join(
                ([f"missing {sorted(missing)}"] if missing else []) + ([f"unexpected {sorted(extra)}"] if extra else [])
            )
        )


def _ev(name: str):
    def wrap(cls):
        cls.EV = name
        cls = dataclass(frozen=True, kw_only=True, slots=True)(cls)
        EVENT_TYPES[name] = cls
        return cls

    return wrap


#: the chain head of an empty transcript (`unonet.fair.GENESIS` as bytes)
GENESIS_HEAD = sha256(b"unonet/fair/v1/transcript-genesis")


@_ev("match-start")
class MatchStart(Event):
    """The head of a match (one transcript): the host's fresh nonce, who hosts, who sits
    where (identities and names), the rules. Signed by the host (`match_start_message`)."""

    nonce: bytes
    host: PublicIdentity
    host_seat: int | None
    seats: tuple[PublicIdentity, ...]
    names: tuple[str, ...]
    rules: dict
    sig: bytes = b""
    #: a hand-over after a host election (unonet.table._handover): the match this one
    #: continues, its last co-signed round digest, the rounds and the scores carried
    continues: dict | None = None
    #: seats of a fresh match (no `continues`) whose player is away at its start: the seat
    #: keeps its player's key, signs no join until that player is back (spec §7 "away seats");
    #: left out when none (a continuation names its away seats in `continues`)
    away: tuple[int, ...] | None = None

    OMIT_NONE = frozenset({"continues", "away"})


@_ev("match-join")
class MatchJoin(Event):
    """A seat takes its place: its fresh nonce over the hash of the `match-start`, signed by
    the seat. The match id (every round's `table`) hashes the start and every seat's nonce."""

    seat: int
    start: bytes
    nonce: bytes
    sig: bytes = b""


@_ev("round-abort")
class RoundAbort(Event):
    """The host ends an attempt before its deck was committed, naming who stalled (empty:
    the host gave up). The next `round-start` has the same round and attempt + 1. Host-signed."""

    round: int
    attempt: int
    reason: str
    stalled: tuple[int, ...]
    sig: bytes = b""


@_ev("round-sign")
class RoundSign(Event):
    """A seat co-signs the round-end digest it computed itself (seat-signed, round context):
    a host that told peers different stories cannot collect matching co-signs."""

    seat: int
    digest: bytes
    sig: bytes = b""
    #: the seat's Ed25519 signature over the round's tally (`unonet.ledger.tally_message`:
    #: the digest and the result its own engine gave), which a scorekeeper keeps with the
    #: round so its stored points stay anchored in what the players signed; every seat of
    #: this version sends it (left out only in older transcripts)
    tally: bytes | None = None

    OMIT_NONE = frozenset({"tally"})


@_ev("round-start")
class RoundStart(Event):
    """Who sits where, who deals, and which deck (by name and in canonical order); `attempt`
    numbers the tries at this round (1, then + 1 after each `round-abort`)."""

    table: bytes
    round: int
    host: PublicIdentity
    host_seat: int | None
    seats: tuple[PublicIdentity, ...]
    deck_name: str
    deck: tuple[Card, ...]
    #: the transcript's chain head before this round (the `prev` of its line); it enters the
    #: round digest d_0, so the host's round-end signature covers the order of rounds
    digest: bytes = GENESIS_HEAD
    attempt: int = 1
    #: seats whose player is away (its link dropped and the table's hold ran out): they give
    #: no seed this round, and the host acts for them; left out when none
    absent: tuple[int, ...] | None = None
    #: the chain head over the digests of this transcript's ended rounds (spec §6.8 "round
    #: history"): every verifier compares it with the chain of the digests it verified itself,
    #: so a round told to one seat differently cannot be carried on as if it were one story
    history: bytes = b""
    #: seats whose co-sign of the round that just ended is not in the record (they dropped):
    #: the next round starts only with every co-sign relayed or waived here; left out when none
    waived: tuple[int, ...] | None = None

    OMIT_NONE = frozenset({"absent", "waived"})


@_ev("seed-commit")
class SeedCommit(Event):
    """Host's H(r_h) for an epoch; epoch > 0 reshuffles the cards at `sources`.

    `seat` is set only for a moved hand (seven-o swap, zero pass): the seat that receives
    the hand, to which the whole epoch is dealt. The ledger derives every epoch's kind from
    the public state and checks its sources exactly (see RoundLedger._epoch_kind)."""

    epoch: int
    base: int
    host_commit: bytes
    sources: tuple[int, ...]
    seat: int | None = None


@_ev("player-commit")
class PlayerCommit(Event):
    epoch: int
    seat: int
    commit: bytes
    sig: bytes


@_ev("player-reveal")
class PlayerReveal(Event):
    epoch: int
    seat: int
    secret: bytes


@_ev("commitments")
class Commitments(Event):
    """C_j for every position of an epoch, signed by the host."""

    epoch: int
    base: int
    commitments: tuple[bytes, ...]
    sig: bytes


@_ev("deal")
class Deal(Event):
    """Position -> seat; the opening travels sealed for that seat alone."""

    position: int
    seat: int
    sealed: bytes
    public: str | None = None


@_ev("turn-up")
class TurnUp(Event):
    """The host turns the next position face up (the first discard)."""

    opening: Opening


@_ev("act")
class Act(Event):
    """One engine action of a seat, signed by that seat (`seat_event_message`).

    `n` counts the seat's acts in this round, from 0 with no gap, so none can be replayed
    or silently dropped. `action` is the engine action as JSON (the fair layer reads only
    its `pos`: a play carries the opening of the card it plays, `opening`)."""

    seat: int
    n: int
    action: dict
    opening: Opening | None = None
    sig: bytes = b""


@_ev("host-act")
class HostAct(Event):
    """An action the host makes for a seat (a turn that timed out, a bot standing in for a
    dropped player, the referee closing a reaction race): never in the seat's own name."""

    seat: int | None
    action: dict
    reason: str
    opening: Opening | None = None


@_ev("reveal")
class Reveal(Event):
    """Held positions opened publicly without being played (round end, Flip)."""

    seat: int
    openings: tuple[Opening, ...]


@_ev("flip")
class Flip(Event):
    """The table turns over (UNO Flip): `side` is now in play (0 light, 1 dark).

    Every held position not yet public is opened: its face that now shows to the table was
    its holder's secret until now, and the face its holder now plays was public already."""

    side: int
    openings: tuple[Opening, ...]


@_ev("challenge")
class Challenge(Event):
    """Challenge of the last play (a W+4); `positions` = all the challenged seat holds."""

    challenger: int
    challenged: int
    colour: str
    positions: tuple[int, ...]


@_ev("challenge-response")
class ChallengeResponse(Event):
    """The challenged hand sealed to the challenger, signed by the challenged seat."""

    challenger: int
    challenged: int
    positions: tuple[int, ...]
    sealed: bytes
    sig: bytes = b""


@_ev("challenge-dispute")
class ChallengeDispute(Event):
    """The challenger says the response does not open (or opens wrong) for it (signed by it).
    `seen`: the round digest as the challenger had it when it signed, as in `deal-dispute`
    (a response that does not open against commitments the host showed the challenger alone
    would otherwise make the challenger's honest dispute look false). `number`: the challenge
    number it disputes, as in `challenge-verdict`: without it a dispute made in one challenge
    was the same signed bytes in a later one between the same two seats of the attempt, which
    a host could relay again in place of the challenger's verdict (the challenger then lost the
    challenge and stood recorded for a false claim). Left out only in older transcripts."""

    challenger: int
    challenged: int
    sig: bytes = b""
    seen: bytes | None = None
    number: int | None = None

    OMIT_NONE = frozenset({"seen", "number"})


@_ev("challenge-key")
class ChallengeKey(Event):
    """The challenged seat publishes its response seal's ephemeral private key, signed:
    anyone can then open the response."""

    challenged: int
    secret: bytes
    sig: bytes


@_ev("deal-dispute")
class DealDispute(Event):
    """A seat says the sealed deal of `position` does not open (or opens wrong) for it;
    signed by the seat. The host must answer with the deal's `deal-key` at once.

    `seen` is the round digest as the seat had it when it signed (after the last event it
    had read, the disputed deal included): a host that showed the seat another story than the
    table's (other bytes of its deal, other commitments) -- which only the round's co-sign
    would expose -- is convicted by every verifier at the dispute, whose history of this
    round never had that digest, instead of the seat's protest passing for a false claim
    where the others' copy opens. Every seat of this version sends it (left out only in older
    transcripts)."""

    seat: int
    position: int
    sig: bytes = b""
    seen: bytes | None = None

    OMIT_NONE = frozenset({"seen"})


@_ev("deal-key")
class DealKey(Event):
    """The host discloses a deal's ephemeral seal key: anyone opens the disputed deal. If it
    opens to the committed card the claimant lied (its card is now public, and the false
    claim is recorded against it); if not, the host is caught."""

    position: int
    secret: bytes


@_ev("challenge-timeout")
class ChallengeTimeout(Event):
    """The challenged seat did not answer in time: guilty."""

    challenged: int


@_ev("verdict-timeout")
class VerdictTimeout(Event):
    """The challenger gave no verdict (nor dispute) in time after the response: its challenge
    fails as if it had judged the challenged seat innocent (an unproven challenge is lost).
    The host's word, covered by the round digest; a challenger that sent its verdict or
    dispute refuses it (the host withheld it)."""

    challenger: int
    challenged: int


@_ev("challenge-verdict")
class ChallengeVerdict(Event):
    """Guilty verdicts carry one matching opening as proof; innocent ones none. Signed by
    the challenger. `number`: the challenge number it judges, so a verdict made in one
    challenge never passes for another between the same two seats in the round (two
    innocent verdicts would otherwise be the same signed bytes). Every seat of this version
    sends it (left out only in older transcripts)."""

    challenger: int
    challenged: int
    guilty: bool
    proof: Opening | None = None
    sig: bytes = b""
    number: int | None = None

    OMIT_NONE = frozenset({"number"})


@_ev("seed-reveal")
class SeedReveal(Event):
    epoch: int
    host_secret: bytes


@_ev("round-end")
class RoundEnd(Event):
    """The host signs the digest of every event of the round."""

    digest: bytes
    sig: bytes


@_ev("game")
class GameEvent(Event):
    """A game action for the rules engine; the fair layer only records it."""

    data: dict


__all__ = [name for name, obj in list(globals().items()) if isinstance(obj, type) and issubclass(obj, Event)]
_ = field
