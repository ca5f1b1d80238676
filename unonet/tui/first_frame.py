"""The first frame of `unonet play`, drawn before the screen library is loaded.

Importing asyncio and prompt_toolkit takes longer than the whole start-up budget (issue 26:
the dealt table on the screen within 150 ms), so `play` deals first and draws the table
itself: `screen.table_screen`'s lines - the same lines the application shows a moment later
- written with plain escape codes on the alternate screen.  Then prompt_toolkit starts,
redraws the same picture in one write (no blank frame between) and owns the terminal.

The terminal goes into prompt_toolkit's own raw mode before anything is drawn, so that keys
typed while the library loads wait, unechoed, in the terminal's input queue and reach the
application as it would have read them (the line discipline translates input as it
arrives: with ICRNL still on, an early Enter would arrive as ^J).  prompt_toolkit saves and
restores the mode it finds (this one); `close()` puts back the one from before.

Drawn only where prompt_toolkit would draw the same colours (256-colour escapes: not for a
"dumb" or 16-colour console, nor under NO_COLOR or PROMPT_TOOLKIT_COLOR_DEPTH);
UNONET_FIRST_FRAME=0 turns it off.
"""

from __future__ import annotations

import os
import sys

# prompt_toolkit's 256-colour table for RGB colours: the 6x6x6 cube and the 24 greys (the
# 16 ANSI colours are skipped: they depend on the terminal's scheme)
_CUBE = (0x00, 0x5F, 0x87, 0xAF, 0xD7, 0xFF)
_PALETTE = [(16 + i, (_CUBE[i // 36], _CUBE[i // 6 % 6], _CUBE[i % 6])) for i in range(216)]
_PALETTE += [(232 + i, (8 + i * 10,) * 3) for i in range(24)]
_FLAGS = ("bold", "italic", "underline", "reverse", "blink", "hidden")
_SGR = {"bold": "1", "italic": "3", "blink": "5", "underline": "4", "reverse": "7", "hidden": "8"}


def colour_256(rgb: str) -> int:
    """The palette entry nearest to ``#rrggbb`` (as prompt_toolkit picks it)."""
    r, g, b = (int(rgb[i:i + 2], 16) for i in (1, 3, 5))
    return min(_PALETTE, key=lambda e: ((e[1][0] - r) ** 2 + (e[1][1] - g) ** 2 + (e[1][2] - b) ** 2, e[0]))[0]


class Styles:
    """Fragment styles (``"class:card.red class:card.selected"``) to escape codes, from the
    style rules the application uses (`screen.STYLE_RULES`), resolved as prompt_toolkit
    resolves them: a rule for ``card.red`` applies to ``card.red.dim`` too, rules in order,
    later ones winning."""

    def __init__(self, rules) -> None:
        self.rules = [(name, self.parse(spec)) for name, spec in rules]
        self.cache: dict[str, str] = {}

    @staticmethod
    def parse(spec: str) -> dict:
        attrs: dict = {}
        for word in spec.split():
            if word.startswith("bg:#"):
                attrs["bg"] = word[3:]
            elif word.startswith("#") and len(word) == 7:
                attrs["fg"] = word
            elif word in _FLAGS:
                attrs[word] = True
            elif word.startswith("no") and word[2:] in _FLAGS:
                attrs[word[2:]] = False
            else:
                raise ValueError(f"style word {word!r} is not drawn by the first frame")
        return attrs

    def sgr(self, style: str) -> str:
        code = self.cache.get(style)
        if code is None:
            classes = set()
            for word in style.split():
                if word.startswith("class:"):
                    for name in word[6:].split(","):
                        parts = name.split(".")
                        classes.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
            attrs: dict = {}
            for name, rule in self.rules:
                if name in classes:
                    attrs.update(rule)
            parts = []
            if "fg" in attrs:
                parts.append(f"38;5;{colour_256(attrs['fg'])}")
            if "bg" in attrs:
                parts.append(f"48;5;{colour_256(attrs['bg'])}")
            parts += [_SGR[f] for f in ("bold", "italic", "blink", "underline", "reverse", "hidden")
                      if attrs.get(f)]
            code = self.cache[style] = "\x1b[0;" + ";".join(parts) + "m" if parts else "\x1b[0m"
        return code


def enabled(environ=os.environ) -> bool:
    """Would prompt_toolkit draw 256-colour escapes here (so the first frame matches it)?"""
    term = environ.get("TERM", "")
    return (environ.get("UNONET_FIRST_FRAME", "1") != "0" and term not in ("", "dumb", "linux", "eterm-color")
            and "NO_COLOR" not in environ and "PROMPT_TOOLKIT_COLOR_DEPTH" not in environ
            and sys.platform != "win32")


class FirstFrame:
    """The terminal from the first frame until prompt_toolkit owns it."""

    def __init__(self, fd: int, out, saved, size) -> None:
        self.fd, self.out, self.saved = fd, out, saved
        self.columns, self.rows = size
        self.drawn = False  # on the alternate screen
        self.taken = False  # prompt_toolkit drew (it leaves the alternate screen itself)

    @classmethod
    def open(cls) -> FirstFrame | None:
        """Raw mode (prompt_toolkit's) on the terminal, or None where no first frame is drawn."""
        if not enabled():
            return None
        import termios

        try:
            fd = sys.stdin.fileno()
            saved = termios.tcgetattr(fd)
            size = os.get_terminal_size(sys.stdout.fileno())
        except (OSError, ValueError, termios.error):
            return None
        raw = list(saved)
        raw[3] &= ~(termios.ECHO | termios.ICANON | termios.IEXTEN | termios.ISIG)
        raw[0] &= ~(termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR)
        raw[6] = list(raw[6])
        raw[6][termios.VMIN] = 1
        termios.tcsetattr(fd, termios.TCSANOW, raw)
        return cls(fd, sys.stdout, saved, (size.columns, size.lines))

    def draw(self, lines, rules) -> bool:
        """``lines`` (rows of styled fragments, `screen.table_screen`) on the alternate screen;
        False (nothing drawn) if ``rules`` use a style word this module does not write."""
        try:
            styles = Styles(rules)
        except ValueError:
            return False
        out = ["\x1b[?1049h\x1b[?25l"]  # the alternate screen (as prompt_toolkit's), no cursor
        for row, line in enumerate(lines[:self.rows]):
            out.append(f"\x1b[{row + 1};1H")
            out += [styles.sgr(style) + text for style, text in line]
        out.append("\x1b[0m")
        self.drawn = True
        self._write("".join(out))
        return True

    def _write(self, text: str) -> None:
        # as prompt_toolkit writes: bytes in the terminal's encoding, what it cannot show replaced
        self.out.flush()
        self.out.buffer.write(text.encode(self.out.encoding or "utf-8", "replace"))
        self.out.buffer.flush()

    def handed_over(self, *_args) -> None:
        """prompt_toolkit has drawn its first frame: the screen is its own."""
        self.taken = True

    def close(self) -> None:
        """The terminal as it was: the normal screen back if prompt_toolkit never drew (it
        leaves it itself otherwise), and the mode from before the first frame."""
        import termios

        try:
            if self.drawn and not self.taken:
                self._write("\x1b[0m\x1b[?25h\x1b[?1049l")
        finally:
            termios.tcsetattr(self.fd, termios.TCSANOW, self.saved)
