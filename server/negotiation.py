"""Choosing a response format from ``?format=`` (a name) or the ``Accept`` header (media types)."""
from __future__ import annotations

from flask import request

from factforge.sparql.messages import shown

from .errors import ApiError


def choose(offers: list[tuple[str, str]], default: str, *, param: str = "format") -> str:
    """The name of the offered format the client asked for; 406 when it asked for none we have.

    ``offers`` pairs a media type with a format name; a name may have several media types
    (aliases such as ``application/json`` for SPARQL JSON results). ``?format=`` wins over
    ``Accept``; an absent or wildcard ``Accept`` gets ``default``.
    """
    names = list(dict.fromkeys(name for _media, name in offers))
    asked = request.args.get(param)
    if asked is not None:
        by_media = {media: name for media, name in offers}
        if asked in names or asked in by_media:
            return asked if asked in names else by_media[asked]
        raise ApiError(406, f"{param}: {shown(asked)} is not one of {', '.join(names)}", param)
    accept = request.accept_mimetypes
    if not accept:
        return default
    preferred = [m for m, n in offers if n == default] + [m for m, n in offers if n != default]
    best = accept.best_match(preferred)
    if best is None:
        raise ApiError(406, f"Accept: cannot give {shown(request.headers.get('Accept'))}; "
                            f"available: {', '.join(dict.fromkeys(m for m, _n in offers))}", "Accept")
    return next(name for media, name in offers if media == best)
