"""Player names are untrusted text: one rule for them everywhere, and their width on a
terminal.

A name comes from a command line today and from other machines tomorrow; it ends up on
everybody's terminal.  So every layer checks it by the same rule (the wire protocol's
control-character ban, `CONTROL_RE`, is defined here and nowhere else), and every screen
measures it in terminal cells - an east-asian wide character takes 2, a combining mark 0 -
and cuts it to its column with an ellipsis.  Pure: no IO, importable from every layer.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

# C0, DEL, C1, the line and paragraph separators, the bidi embeddings/overrides and
# isolates: text that would move the cursor, reorder a line or hide what follows
# (protocol/spec.md, "Free-text str fields").
CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

MAX_NAME = 32        # code points: the wire's limit for a name (protocol NAME = Text(32, 1))
ELLIPSIS = "\u2026"
REPLACEMENT = "\ufffd"


class BadName(ValueError):
    """A name that breaks the rule; the message says why, in one line."""


def _describe(ch: str) -> str:
    known = {"\n": "a newline", "\r": "a carriage return", "\t": "a tab", "\x1b": "ESC (an escape sequence)"}
    return known.get(ch, f"U+{ord(ch):04X}")


def check_name(text) -> str:
    """The name to use for ``text`` (surrounding spaces dropped), or `BadName`: 1 to
    MAX_NAME characters, no control characters, something visible."""
    if not isinstance(text, str):
        raise BadName(f"a name is text, not {text!r}")
    bad = CONTROL_RE.search(text)  # before trimming: str.strip() would eat some (U+0085)
    name = text.strip()
    if bad:
        raise BadName(f"a name may not contain control characters ({_describe(bad.group())} in {text!r})")
    if not name:
        raise BadName(f"a name needs at least one visible character, not {text!r}")
    if len(name) > MAX_NAME:
        raise BadName(f"a name is at most {MAX_NAME} characters ({len(name)} in {text!r})")
    if width(name) == 0:
        raise BadName(f"a name needs at least one visible character, not {text!r}")
    return name


def clean(text: str) -> str:
    """``text`` safe to print: every control character replaced by U+FFFD (for text that
    did not pass `check_name`, e.g. an old record)."""
    return CONTROL_RE.sub(REPLACEMENT, text)


def char_width(ch: str) -> int:
    """Terminal cells of one character: 0 for combining marks and invisible format
    characters, 2 for east-asian wide and full-width ones, else 1."""
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    if CONTROL_RE.match(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def width(text: str) -> int:
    """Terminal cells ``text`` takes."""
    if text.isascii():
        return len(text) - sum(1 for ch in text if ch < " " or ch == "\x7f")
    return sum(char_width(ch) for ch in text)


def cut(text: str, cells: int) -> tuple[str, str]:
    """``text`` split where its first part fills at most ``cells`` cells (combining marks
    stay with their letter)."""
    used = 0
    for i, ch in enumerate(text):
        w = char_width(ch)
        if used + w > cells:
            return text[:i], text[i:]
        used += w
    return text, ""


def fit(text: str, cells: int) -> str:
    """``text`` (cleaned) in at most ``cells`` cells, cut with an ellipsis when it is
    longer ("Maximilian G…")."""
    text = clean(text)
    if width(text) <= cells:
        return text
    if cells <= 0:
        return ""
    head, _ = cut(text, cells - 1)
    return head.rstrip() + ELLIPSIS


def pad(text: str, cells: int) -> str:
    """``text`` fitted to ``cells`` cells and padded with spaces to exactly that width."""
    text = fit(text, cells)
    return text + " " * max(0, cells - width(text))

#: names the bots take at a table (the local client's and the LAN host's alike)
BOT_NAMES = ["Ana", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai"]

#: how a bot's name says it is one ("Ana (bot)"); a bot standing in for a person says it too
BOT_SUFFIX = " (bot)"


#: Cyrillic and Greek letters drawn as a Latin one in common terminal fonts (a subset of
#: Unicode's confusables, UTS #39, for the scripts a stranger would reach for): "Аna" with a
#: Cyrillic А reads as "Ana".  Mapped before case folding, so Greek "Ν" is "N" and "ν" is "v".
LOOKALIKE = str.maketrans({
    # Cyrillic capitals, then small letters
    "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P", "С": "C",
    "Т": "T", "У": "Y", "Х": "X", "Ѕ": "S", "І": "I", "Ј": "J", "Ԛ": "Q", "Ԝ": "W", "Ү": "Y",
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "ѕ": "s", "і": "i",
    "ј": "j", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y",
    # Greek capitals, then small letters
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    "ο": "o", "ν": "v", "ρ": "p", "α": "a", "ι": "i", "υ": "u", "χ": "x", "κ": "k",
    # Latin letters drawn as another Latin letter
    "ı": "i", "ȷ": "j",
})


def reads_as(name: str) -> str:
    """What ``name`` reads as on a screen, for telling two names apart: compatibility forms
    folded (a full-width "Ａｎａ" is "Ana"), Cyrillic and Greek look-alikes read as the Latin
    letter they are drawn as (`LOOKALIKE`), case folded, invisible characters (zero-width
    spaces and joiners, combining marks alone) dropped, runs of spaces one.  Two names that
    read alike are one name to the people at a table: a newcomer under one is numbered."""
    folded = unicodedata.normalize("NFKC", name).translate(LOOKALIKE).casefold()
    seen = "".join(ch for ch in folded if char_width(ch) > 0 or ch.isspace())
    return " ".join(seen.split())


def stand_in_name(name: str) -> str:
    """The name of a bot that takes ``name``'s seat: ``"Hal (bot)"``, never a second "Hal"
    under another key (a scorekeeper's standings would list two); a bot's own name as it is."""
    if name.endswith(BOT_SUFFIX):
        return name
    return name[:MAX_NAME - len(BOT_SUFFIX)] + BOT_SUFFIX


def successor_bot_name(name: str, taken: Collection[str] = ()) -> str:
    """The name of a new host's bot in the seat of another key's bot ``name``: the seat's name,
    numbered on (``"Ana (bot)"`` -> ``"Ana-2 (bot)"`` -> ``"Ana-3 (bot)"``), so every screen
    still reads the seat it knew, and no name goes to a second key - not even the one the seat
    had two elections ago (a fresh bot name did: "Ana (bot)", "Ben (bot)", "Ana (bot)" again).
    ``taken``: the names at the table now (casefolded or not)."""
    base = name[:-len(BOT_SUFFIX)] if name.endswith(BOT_SUFFIX) else name
    head, sep, num = base.rpartition("-")
    n = 1
    if sep and head and num.isdigit() and not num.startswith("0"):
        base, n = head, int(num)
    busy = {t.casefold() for t in taken}
    for i in range(n + 1, n + 100):
        tail = f"-{i}{BOT_SUFFIX}"
        cand = base[:MAX_NAME - len(tail)] + tail
        if cand.casefold() not in busy:
            return cand
    return stand_in_name(base)
