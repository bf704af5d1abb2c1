"""What an error message may quote of a user's input: enough to recognise it, never all of it.

Messages name the value they refuse, and a server sends them to whoever sent the value; quoting a
1 MB string, a 400-digit number or an Accept header whole would send it all back (and printing a
value nested a few hundred levels deep whole can exhaust the recursion limit).
"""
from __future__ import annotations

import reprlib

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 80
_REPR.maxlong = 40
_REPR.maxother = 80
for _name in ("maxlist", "maxtuple", "maxdict", "maxset", "maxfrozenset", "maxdeque", "maxarray"):
    setattr(_REPR, _name, 6)


def shown(value) -> str:
    """``repr(value)`` cut short (``'abc...xyz'``); a cut string or number says how long it was."""
    try:
        text = _REPR.repr(value)
    except ValueError:  # an int past sys.get_int_max_str_digits() has no decimal repr at all
        return f"<a whole number of about {int(value.bit_length() * 0.30103)} digits>"
    if isinstance(value, str) and len(value) > _REPR.maxstring:
        text += f" ({len(value)} characters)"
    elif isinstance(value, int) and not isinstance(value, bool) and len(text) < len(str(value)):
        text += f" ({len(str(value).lstrip('-'))} digits)"
    return text


def clipped(text: str, limit: int = 200) -> str:
    """``text`` itself, unquoted, cut to about ``limit`` characters (for headers and lists)."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"
