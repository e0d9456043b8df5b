"""`printable`: what a bot sent, safe for a terminal."""

from arena.printable import printable


def test_controls_and_invisible_characters_become_escapes_and_the_rest_stays():
    assert printable("v1\x1b[2J") == "v1\\x1b[2J"                      # C0: ESC
    assert printable("a\x7fb\x9b31m") == "a\\x7fb\\x9b31m"                # DEL and C1 (CSI)
    assert printable("x\u202eevil\u200b") == "x\\u202eevil\\u200b"       # bidi override, zero-width space
    assert printable("line\nbreak\ttab\u2028") == "line\\x0abreak\\x09tab\\u2028"
    assert printable("Müller ♠ 10♥ [bold]") == "Müller ♠ 10♥ [bold]"    # ordinary text untouched
    assert printable(None) == "" and printable(42) == "42"
