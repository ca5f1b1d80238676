"""One rule for player names (unonet/names.py): checked alike everywhere, measured in cells."""

import pytest

from unonet import names
from unonet.names import BadName, check_name, fit, pad, width


@pytest.mark.parametrize("text,want", [("Tess", "Tess"), ("  Tess  ", "Tess"), ("王小明", "王小明"),
                                        ("José", "José"), ("x" * 32, "x" * 32), ("Zoë 🎲", "Zoë 🎲")])
def test_a_good_name_is_kept_trimmed(text, want):
    assert check_name(text) == want


@pytest.mark.parametrize("text", ["", "   ", "a\nb", "a\rb", "tab\there", "\x1b[31mred", "bell\x07",
                                  "del\x7f", "c1\x85", "line\u2028sep", "rtl\u202eevil", "iso\u2066x",
                                  "\u0301", "\u200b\u200d", "x" * 33, None, 7])
def test_a_bad_name_is_refused_with_a_reason(text):
    with pytest.raises(BadName) as e:
        check_name(text)
    assert "\n" not in str(e.value)


def test_the_protocol_bans_exactly_the_control_characters_of_the_name_rule():
    from unonet.protocol import _messages, _schema

    assert _schema._CONTROL is names.CONTROL_RE and _messages._CONTROL_RE is names.CONTROL_RE
    assert _messages.NAME.max_len == names.MAX_NAME and _messages.NAME.min_len == 1
    for cp in range(0x3000):
        ch = chr(cp)
        try:
            _messages.NAME.check(f"a{ch}b", "name", None)
            wire_ok = True
        except Exception:
            wire_ok = False
        assert wire_ok == (names.CONTROL_RE.search(ch) is None), hex(cp)


@pytest.mark.parametrize("text,cells", [("Tess", 4), ("王小明", 6), ("José", 4), ("Jose\u0301", 4),
                                         ("ｆｕｌｌ", 8), ("a\u200bb", 2), ("", 0)])
def test_width_counts_terminal_cells(text, cells):
    assert width(text) == cells


def test_fit_cuts_by_cells_with_an_ellipsis_and_pad_fills_the_column():
    assert fit("Maximilian Gross", 13) == "Maximilian G\u2026"
    assert fit("Tess", 13) == "Tess" and fit("Tess", 4) == "Tess" and fit("Tess", 3) == "Te\u2026"
    assert fit("王小明王小明王小明", 7) == "王小明\u2026" and width(fit("王小明王小明王小明", 7)) == 7
    assert fit("王小明王小明王小明", 8) == "王小明\u2026"   # a wide char never half-fits
    assert fit("Jose\u0301 Maria", 5) == "Jose\u0301\u2026"  # the accent stays on its letter
    assert fit("a\nb\x1b[2J", 20) == "a\ufffdb\ufffd[2J"     # an unchecked name prints safely
    assert fit("anything", 0) == ""
    for text in ("王小明", "Tess", "Maximilian Gross", "Jose\u0301"):
        for cells in range(1, 15):
            assert width(pad(text, cells)) == cells


@pytest.mark.parametrize("a,b", [("Pat", "pat"), ("Pat", "ＰＡＴ"), ("Pat", "Pa\u200bt"), ("Pat", "P\u00adat"),
                                  ("Jo Ann", "jo  ann"), ("ﬁona", "Fiona"), ("Zoë", "Zoe\u0308"),
                                  # look-alikes from other scripts: Cyrillic А, о, Ј, Greek Ν, Ο, Α
                                  ("Ana", "\u0410na"), ("Jo0", "\u0408\u043e0"), ("NOA", "\u039d\u039f\u0391"),
                                  ("Pam", "Р\u0430m")])
def test_names_that_read_alike_read_as_one(a, b):
    assert names.reads_as(a) == names.reads_as(b)


@pytest.mark.parametrize("a,b", [("Pat", "Pat-2"), ("Pat", "Pam"), ("Zoë", "Zoe"), ("王", "玉"),
                                  # Greek small nu is drawn as v, not n; Cyrillic Д is no Latin letter
                                  ("noa", "\u03bdoa"), ("Дan", "Dan")])
def test_names_that_read_apart_stay_apart(a, b):
    assert names.reads_as(a) != names.reads_as(b)
