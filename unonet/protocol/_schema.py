"""Field kinds and the message registry: one schema drives build, encode, decode.

Every message class is a frozen, keyword-only dataclass whose fields carry a
``Kind`` in their metadata.  The same kinds validate a value when a message is
built in Python (``LocalProtocolError``) and when it arrives from the wire
(re-raised as ``RemoteProtocolError`` by the codec), and describe the field for
the generated reference in ``protocol/spec.md``.  Hand-written per-message
encode/decode code would drift; a table cannot.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any, ClassVar

from ._errors import LocalProtocolError

__all__ = [
    "Kind", "Int", "Bool", "Text", "Enum", "Blob", "ListOf", "Nested",
    "Record", "Message", "record", "message", "MESSAGE_TYPES", "HOST", "PLAYER", "OBSERVER",
    "ROLES", "LINK", "DATAGRAM",
]

HOST, PLAYER, OBSERVER = "host", "player", "observer"
ROLES = (HOST, PLAYER, OBSERVER)
LINK, DATAGRAM = "link", "datagram"

from ..names import CONTROL_RE as _CONTROL  # the one definition (unonet/names.py)
# One card face (spec §2): every deck the engine has.  Classic/2018/Office/Power
# faces, UNO Flip's light faces (+1, F = flip, W+2) and dark faces (colours P T O
# U; +5, SE = skip everyone, W+C = wild draw colour); a Flip card with both
# faces known is written light/dark, e.g. R5/T7.
_LIGHT_FACE = r"[RYGB](?:[0-9]|S|R|\+2|\+1|F)|W|W\+4|WS|WC|WK|W\+2"
_DARK_FACE = r"[PTOU](?:[1-9]|R|SE|\+5|F)|W|W\+C"
CARD_RE = re.compile(rf"(?:(?:{_LIGHT_FACE})(?:/(?:{_DARK_FACE}))?|{_DARK_FACE})\Z")


def is_card_code(text) -> bool:
    """Is `text` a card code of the notation (R7, GS, Y+2, W, W+4, WK, R+1, TSE, W+C, R5/T7...)?"""
    return type(text) is str and CARD_RE.match(text) is not None


class _Bad(Exception):
    """Internal: a field failed; carries path and value up to the caller."""

    def __init__(self, path: str, why: str, value: Any) -> None:
        self.path, self.why, self.value = path, why, value


class Kind:
    """A field's type, range and length; ``check`` normalizes or raises ``_Bad``."""

    def check(self, v: Any, path: str, wire: bool) -> Any:  # pragma: no cover
        raise NotImplementedError

    def to_wire(self, v: Any) -> Any:
        return v

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


class Int(Kind):
    def __init__(self, lo: int, hi: int) -> None:
        self.lo, self.hi = lo, hi

    def check(self, v, path, wire):
        if type(v) is not int:
            raise _Bad(path, "expected an integer", v)
        if not self.lo <= v <= self.hi:
            raise _Bad(path, f"out of range {self.lo}..{self.hi}", v)
        return v

    def describe(self):
        return f"int {self.lo}..{self.hi}"


class Bool(Kind):
    def check(self, v, path, wire):
        if type(v) is not bool:
            raise _Bad(path, "expected a boolean", v)
        return v

    def describe(self):
        return "bool"


class Text(Kind):
    """UTF-8 text; ``max_len`` counts code points; control characters refused

    (names end up on other people's terminals, so no escape sequences)."""

    def __init__(self, max_len: int, min_len: int = 0, pattern: str | None = None) -> None:
        self.max_len, self.min_len = max_len, min_len
        self.pattern = re.compile(pattern + r"\Z") if pattern else None
        self._pattern_src = pattern

    def check(self, v, path, wire):
        if type(v) is not str:
            raise _Bad(path, "expected a string", v)
        if not self.min_len <= len(v) <= self.max_len:
            raise _Bad(path, f"length must be {self.min_len}..{self.max_len}", v)
        if self.pattern is not None:
            if not self.pattern.match(v):
                raise _Bad(path, f"does not match {self._pattern_src}", v)
        elif _CONTROL.search(v):
            raise _Bad(path, "control characters are not allowed", v)
        return v

    def describe(self):
        pat = f", matching `{self._pattern_src}`" if self._pattern_src else ""
        return f"str {self.min_len}..{self.max_len} chars{pat}"


class Enum(Kind):
    def __init__(self, *values: str) -> None:
        self.values = values

    def check(self, v, path, wire):
        if type(v) is not str or v not in self.values:
            raise _Bad(path, f"expected one of {', '.join(self.values)}", v)
        return v

    def describe(self):
        return "one of " + ", ".join(f"`{x}`" for x in self.values)


class Blob(Kind):
    """Binary (msgpack bin); ``size`` fixed, or ``lo``..``hi`` bytes."""

    def __init__(self, size: int | None = None, *, lo: int = 0, hi: int | None = None) -> None:
        self.lo = size if size is not None else lo
        self.hi = size if size is not None else hi
        assert self.hi is not None

    def check(self, v, path, wire):
        if type(v) is not bytes:
            if wire or not isinstance(v, (bytearray, memoryview)):
                raise _Bad(path, "expected bytes", v)
            v = bytes(v)
        if not self.lo <= len(v) <= self.hi:
            want = f"{self.lo}" if self.lo == self.hi else f"{self.lo}..{self.hi}"
            raise _Bad(path, f"must be {want} bytes long (is {len(v)})", v)
        return v

    def describe(self):
        if self.lo == self.hi:
            return f"bin {self.lo} bytes"
        return f"bin {self.lo}..{self.hi} bytes"


class ListOf(Kind):
    def __init__(self, item: Kind, max_len: int, min_len: int = 0) -> None:
        self.item, self.max_len, self.min_len = item, max_len, min_len

    def check(self, v, path, wire):
        if wire:
            if type(v) is not list:
                raise _Bad(path, "expected an array", v)
        elif not isinstance(v, (list, tuple)):
            raise _Bad(path, "expected a list or tuple", v)
        if not self.min_len <= len(v) <= self.max_len:
            raise _Bad(path, f"must hold {self.min_len}..{self.max_len} items (has {len(v)})", v)
        check = self.item.check
        return tuple(check(x, f"{path}[{i}]", wire) for i, x in enumerate(v))

    def to_wire(self, v):
        tw = self.item.to_wire
        return [tw(x) for x in v]

    def describe(self):
        return f"array ({self.min_len}..{self.max_len}) of {self.item.describe()}"


class Nested(Kind):
    """A map whose fields are described by a ``Record`` class."""

    def __init__(self, cls: type[Record]) -> None:
        self.cls = cls

    def check(self, v, path, wire):
        if wire:
            if type(v) is not dict:
                raise _Bad(path, "expected a map", v)
            return self.cls._from_map(v, path)
        if type(v) is not self.cls:
            raise _Bad(path, f"expected a {self.cls.__name__}", v)
        return v

    def to_wire(self, v):
        return v._to_map()

    def describe(self):
        return f"`{self.cls.__name__}` map"


def f(kind: Kind, default: Any = dataclasses.MISSING, doc: str = "") -> Any:
    """Declare a schema field.  A field equal to its default is left off the wire."""
    return dataclasses.field(default=default, metadata={"kind": kind, "doc": doc})


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    name: str
    kind: Kind
    default: Any
    doc: str

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING


class Record:
    """Base of schema-described frozen dataclasses (messages and nested maps)."""

    __slots__ = ()
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = ()
    _PREFIX: ClassVar[str] = ""
    #: how `_from_map` reads each field, worked out once: name, its kind's check, default, and
    #: its path under ``_PREFIX``
    _READ: ClassVar[tuple[tuple[str, Any, Any, str], ...]] = ()
    #: how `_to_map` writes each field: name, its kind's `to_wire` (None: the value as it is), default
    _WRITE: ClassVar[tuple[tuple[str, Any, Any], ...]] = ()

    def _check(self) -> None:
        """Cross-field rules; raise ``_Bad``.  Runs on build and on decode."""

    def __post_init__(self) -> None:
        for spec in self.FIELDS:
            v = getattr(self, spec.name)
            if v is spec.default and spec.default is None:
                continue
            try:
                nv = spec.kind.check(v, f"{self._PREFIX}.{spec.name}", False)
            except _Bad as bad:
                raise LocalProtocolError(bad.why, field=bad.path, value=bad.value) from None
            if nv is not v:
                object.__setattr__(self, spec.name, nv)
        try:
            self._check()
        except _Bad as bad:
            raise LocalProtocolError(bad.why, field=bad.path, value=bad.value) from None

    def _to_map(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, to_wire, default in self._WRITE:
            v = getattr(self, name)
            if default is not dataclasses.MISSING and v == default:
                continue
            out[name] = v if to_wire is None else to_wire(v)
        return out

    @classmethod
    def _from_map(cls, d: dict[str, Any], path: str):
        obj = object.__new__(cls)
        top = path == cls._PREFIX  # (a message's own fields: their paths are made already)
        for name, check, default, fp in cls._READ:
            if not top:
                fp = f"{path}.{name}"
            if name in d:
                v = d[name]
                if v is None and default is None:
                    raise _Bad(fp, "omit an absent field instead of sending nil", v)
                v = check(v, fp, True)
            elif default is dataclasses.MISSING:
                raise _Bad(fp, "required field missing", None)
            else:
                v = default
            _setattr(obj, name, v)
        obj._check()
        return obj


_setattr = object.__setattr__


class Message(Record):
    """Base of every wire message; ``TYPE`` is its ``"t"`` value."""

    __slots__ = ()
    TYPE: ClassVar[str] = ""
    SENDERS: ClassVar[frozenset[str]] = frozenset()
    CHANNEL: ClassVar[str] = LINK
    DOC: ClassVar[str] = ""


MESSAGE_TYPES: dict[str, type[Message]] = {}


def _finish(cls, prefix: str):
    cls = dataclasses.dataclass(frozen=True, kw_only=True, slots=True)(cls)
    cls.FIELDS = tuple(
        FieldSpec(fl.name, fl.metadata["kind"], fl.default, fl.metadata.get("doc", ""))
        for fl in dataclasses.fields(cls)
    )
    for spec in cls.FIELDS:
        if spec.default is not dataclasses.MISSING and spec.default is not None:
            spec.kind.check(spec.default, f"{prefix}.{spec.name}", False)
    cls._PREFIX = prefix
    cls._READ = tuple((spec.name, spec.kind.check, spec.default, f"{prefix}.{spec.name}")
                      for spec in cls.FIELDS)
    cls._WRITE = tuple((spec.name, None if type(spec.kind).to_wire is Kind.to_wire else spec.kind.to_wire,
                        spec.default) for spec in cls.FIELDS)
    return cls


def record(cls):
    """Make a nested-map record class."""
    return _finish(cls, cls.__name__)


def message(t: str, *, senders: tuple[str, ...], channel: str = LINK):
    """Make a message class and enter it in ``MESSAGE_TYPES`` under ``t``."""

    def deco(cls):
        assert t not in MESSAGE_TYPES, t
        cls = _finish(cls, t)
        cls.TYPE = t
        cls.SENDERS = frozenset(senders)
        cls.CHANNEL = channel
        cls.DOC = inspect.cleandoc(cls.__doc__ or "")  # (3.13 strips the indentation itself)
        MESSAGE_TYPES[t] = cls
        return cls

    return deco
