"""What simlab reads from an HTTP target, and where it follows it: bounded both ways.

An endpoint that claims (or streams) gigabytes would otherwise be read whole
before the output caps cut it; one that redirects would be sent the
conversation again at a host the suite never named. So each answer is read in
chunks up to ``EndpointRules.max_body_bytes`` (a ``Content-Length`` above it is
refused before a byte of the body is read), and a redirect is followed only to
the endpoint's own host or one the suite lists in ``redirect_hosts``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urljoin, urlsplit

from simlab.spec import OutputLimits

if TYPE_CHECKING:
    import aiohttp

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
MAX_REDIRECTS = 5
REDIRECT_SETTING = "target.redirect_hosts"
"""The suite setting that lets an HTTP target redirect to another host."""


@dataclass(frozen=True, slots=True)
class EndpointRules:
    """How much of an endpoint's answer is read, and which hosts it may send simlab to.

    Attributes:
        max_body_bytes: The most bytes of one answer read (``body_limit``).
        redirect_hosts: Hosts other than the endpoint's own a redirect may lead to.
    """

    max_body_bytes: int = field(default_factory=lambda: body_limit(OutputLimits()))
    redirect_hosts: Sequence[str] = ()


def body_limit(limits: OutputLimits) -> int:
    """The most bytes of an HTTP target's answer simlab reads: 16 bytes per character
    of the suite's output limits together, and at least 4 MiB.

    Everything the session keeps of one reply is within those limits; 16 leaves room
    for UTF-8 (up to 4 bytes a character), JSON escapes and the completion's envelope,
    and for several tool calls in one reply. More is refused, not read and then cut.
    """
    chars = limits.reply_chars + limits.meta_chars + limits.tool_args_chars
    chars += limits.tool_result_chars
    return max(4 << 20, 16 * chars)


class BodyTooLarge(Exception):
    """The answer is (or says it is) larger than the limit."""


class RedirectRefused(Exception):
    """A redirect leads somewhere the suite did not name."""


async def read_body(resp: aiohttp.ClientResponse, limit: int) -> bytes:
    """The response's body, read in chunks and at most ``limit`` bytes of it.

    Raises:
        BodyTooLarge: ``Content-Length`` says more than ``limit``, or more came.
    """
    declared = resp.content_length
    if declared is not None and declared > limit:
        raise BodyTooLarge(
            f"the answer says it is {declared:,} bytes (Content-Length), over the "
            f"{limit:,} simlab reads (16 bytes per character of the suite's limits)"
        )
    chunks: list[bytes] = []
    size = 0
    async for chunk in resp.content.iter_chunked(64 << 10):
        size += len(chunk)
        if size > limit:
            raise BodyTooLarge(
                f"the answer is over the {limit:,} bytes simlab reads (16 bytes per "
                "character of the suite's limits); the rest was not read"
            )
        chunks.append(chunk)
    return b"".join(chunks)


def next_hop(endpoint: str, current: str, location: str | None, rules: EndpointRules) -> str:
    """Where a redirect from ``current`` to ``location`` goes, if it may be followed.

    Raises:
        RedirectRefused: No ``Location``, or it names a host that is neither the
            endpoint's nor in ``rules.redirect_hosts`` (the message names the setting).
    """
    if not location:
        raise RedirectRefused("a redirect with no Location header")
    target = urljoin(current, location)
    parts = urlsplit(target)
    if parts.scheme not in ("http", "https"):
        raise RedirectRefused(f"a redirect to {parts.scheme or 'no'} scheme: {target[:200]}")
    if not same_host(endpoint, target) and parts.hostname not in rules.redirect_hosts:
        raise RedirectRefused(
            f"a redirect to another host, {parts.hostname}, refused: the conversation is "
            f"only sent to hosts the suite names; list it in {REDIRECT_SETTING} to follow it"
        )
    return target


def same_host(a: str, b: str) -> bool:
    """Whether two URLs name the same host and port (a scheme's default port included)."""
    pa, pb = urlsplit(a), urlsplit(b)
    return (pa.hostname, _port(pa.scheme, pa.port)) == (pb.hostname, _port(pb.scheme, pb.port))


def _port(scheme: str, port: int | None) -> int | None:
    if port is not None:
        return port
    return {"http": 80, "https": 443}.get(scheme)
