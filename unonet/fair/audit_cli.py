"""`unonet audit FILE`: exit 0 clean, 1 first bad line, 2 unreadable file."""

from __future__ import annotations

import json
import os
import stat
import sys

from ..fingerprint import InvalidJoinCodeError, normalize_join_code
from ._audit import audit
from ._errors import TranscriptFormatError


def run_audit_cli(path: str, as_json: bool = False, host: str | None = None, continues: str | None = None) -> int:
    """Audit the transcript at `path` and print one line (or one JSON object).

    `host` is the expected host's fingerprint: its join code, short or whole fingerprint
    (Crockford base32; case and dashes ignored): a file signed by another key fails (exit 1)
    at its first `round-start`; text that is no fingerprint at all is exit 2."""
    if host is not None:
        try:
            normalize_join_code(host)
        except InvalidJoinCodeError as exc:
            msg = f"unonet audit: --host: {exc}"
            print(json.dumps({"ok": False, "error": msg}) if as_json else msg, file=sys.stdout if as_json else sys.stderr)
            return 2
    try:
        lines = read_transcript(path)
        report = _audit(lines, host)
        if continues is not None and report.ok:
            path = continues
            report = _handover(report, read_transcript(continues), lines)
    except (OSError, UnicodeDecodeError, TranscriptFormatError, RecursionError) as exc:
        msg = f"unonet audit: cannot read {path}: {_describe(exc)}"
        if as_json:
            print(json.dumps({"ok": False, "error": msg}))
        else:
            print(msg, file=sys.stderr)
        return 2
    if as_json:
        print(json.dumps(report.to_json(), sort_keys=True))
    else:
        print(report.summary)
    return 0 if report.ok else 1


MAX_TRANSCRIPT = 256 << 20   # bytes: a match to 500 is a few MB; anything far bigger is no transcript of ours
MAX_LINE = 1 << 20           # bytes in one line: the longest event (768 commitments in hex) is ~50 KB


def read_transcript(path: str) -> list[str]:
    """The lines of the transcript file at ``path``, bounded: a regular file only (a
    device or a FIFO -- ``/dev/zero``, a pipe nobody writes -- would grow without end or
    block forever), at most ``MAX_TRANSCRIPT`` bytes and ``MAX_LINE`` a line.  Raises
    ``TranscriptFormatError`` (or ``OSError``) with the reason."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # (opening a FIFO must not wait for a writer)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a device, pipe or socket"
            raise TranscriptFormatError(f"it is {kind}, not a transcript file")
        data = f.read(MAX_TRANSCRIPT + 1)
    if len(data) > MAX_TRANSCRIPT:
        raise TranscriptFormatError(f"it is over {MAX_TRANSCRIPT >> 20} MB: no transcript is that long")
    lines = data.decode("utf-8").split("\n")
    for i, line in enumerate(lines, 1):
        if len(line) > MAX_LINE:
            raise TranscriptFormatError(f"line {i} is over {MAX_LINE >> 20} MB: no transcript event is that long")
    return lines


def _audit(lines, host=None):
    """The fair checks, plus the rules-engine replay of each round's game record.

    The replay lives above this layer (`unonet.table`, which bridges the engine and the
    fair layer); it is imported here, in the command-line glue, not in the pure core."""
    try:
        from ..table import audit_transcript
    except ImportError:  # pragma: no cover - a trimmed install without the bridge
        return audit(lines, host=host)
    return audit_transcript(lines, host=host)


def _handover(report, old, new):
    """``--continues OLD``: the hand-over check (unonet.table._handover), as the report's
    verdict: a lie about the old match fails the new transcript at its line 1."""
    import dataclasses

    from ..table._handover_audit import audit_handover
    from ._errors import FairPlayViolation

    try:
        note = audit_handover(old, new)
    except FairPlayViolation as exc:
        return dataclasses.replace(report, ok=False, line=1, reason=exc.reason)
    return dataclasses.replace(report, flags=report.flags + (f"line 1: {note}",))


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    if isinstance(exc, UnicodeDecodeError):
        return f"not UTF-8 text (byte {exc.start})"
    return str(exc)
