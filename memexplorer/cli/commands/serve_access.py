"""Who may use a served app: the holder of the printed URL's token, from a page of
the served site itself.

The token keeps out anyone who can reach the port but was not given the URL;
the Origin check keeps out web pages of other sites open in the operator's own
browser (a browser lets any page open a websocket to 127.0.0.1 and tells the
server only the page's Origin). Pure functions, so the rules are tested alone.
"""

from __future__ import annotations

import ipaddress
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

#: Names a loopback server is reached by in a browser, besides its own address.
_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """True for localhost and loopback addresses (127.0.0.0/8, ::1); a name other
    than localhost may resolve anywhere, so it counts as public."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """The host as written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def origin_of(url: str) -> str:
    """``scheme://host[:port]`` of a URL, lower-cased, default ports left out."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    netloc = parts.netloc.lower().rsplit("@", 1)[-1]
    default = {"http": ":80", "https": ":443"}.get(scheme)
    if default and netloc.endswith(default):
        netloc = netloc.removesuffix(default)
    return f"{scheme}://{netloc}"


@dataclass(frozen=True)
class Access:
    """The token and the origins a served app accepts."""

    token: str
    origins: frozenset[str]

    @classmethod
    def for_server(cls, host: str, port: int, public_url: str | None) -> Access:
        """A fresh token; the origins of the URL browsers use (``public_url``, else
        ``http://HOST:PORT``) and, on loopback, of the other loopback names."""
        origins = {origin_of(public_url or f"http://{url_host(host)}:{port}")}
        if is_loopback(host):
            origins |= {f"http://{name}:{port}" for name in _LOOPBACK_NAMES}
        return cls(secrets.token_urlsafe(32), frozenset(origins))

    def token_ok(self, given: str | None) -> bool:
        return given is not None and secrets.compare_digest(given.encode(), self.token.encode())

    def origin_ok(self, origin: str | None, *, required: bool) -> bool:
        """A browser sends Origin with every websocket; a page opened from the
        address bar comes without one, which only the page may."""
        if origin is None:
            return not required
        return origin_of(origin) in self.origins

    def refusal(
        self, headers: Mapping[str, str], token: str | None, *, websocket: bool
    ) -> str | None:
        """Why a request is refused, or None when it may go on."""
        if not self.origin_ok(headers.get("Origin"), required=websocket):
            return "refused: the request does not come from this server's own page (Origin)"
        if not self.token_ok(token):
            return "refused: open the URL memexplorer serve printed, with its token"
        return None
