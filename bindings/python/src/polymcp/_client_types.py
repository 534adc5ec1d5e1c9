"""The types of ``polymcp.Client``'s handlers (the server's questions and
notifications) and options."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any, Literal, Union

__all__ = [
    "JSON",
    "ElicitationHandler",
    "LogHandler",
    "LoggingLevel",
    "MessageHandler",
    "OAuthAuthorizeHandler",
    "ProgressHandler",
    "RootItem",
    "Roots",
    "SamplingHandler",
]

JSON = dict[str, Any]

#: ``sampling/createMessage``: gets the request's params, returns a
#: CreateMessageResult dict, or a str (a text answer), sync or async.
SamplingHandler = Callable[[JSON], Union[str, JSON, Awaitable[Union[str, JSON]]]]
#: ``elicitation/create``: gets the request's params (``message``,
#: ``requestedSchema``, ...), returns an ElicitResult dict (with
#: ``action``), or the content to accept, or None to decline; sync or async.
ElicitationHandler = Callable[[JSON], Union[JSON, None, Awaitable[Union[JSON, None]]]]
#: ``roots/list``: a list of roots (URIs, paths or Root dicts), or a
#: function returning one, sync or async.
RootItem = Union[str, Path, JSON]
Roots = Union[Sequence[RootItem], Callable[[], Union[Sequence[RootItem],
                                                     Awaitable[Sequence[RootItem]]]]]
#: ``notifications/message``: gets its params (``level``, ``logger``, ``data``).
LogHandler = Callable[[JSON], Union[None, Awaitable[None]]]
#: Every notification of the server: (method, params).
MessageHandler = Callable[[str, JSON], Union[None, Awaitable[None]]]
#: A request's notifications/progress: (progress, total, message).
ProgressHandler = Callable[[float, Union[float, None], Union[str, None]],
                           Union[None, Awaitable[None]]]

#: ``OAuth.on_authorize``: gets the authorization URL to show the user (in
#: place of opening the system browser), sync or async. With a
#: ``redirect_url`` it returns the URL the browser came back to (the
#: redirect with ``code`` and ``state``); without one the browser comes back
#: to the library's own loopback listener and what it returns is ignored.
#: Raising refuses the authorization: the connection fails.
OAuthAuthorizeHandler = Callable[[str], Union[str, None, Awaitable[Union[str, None]]]]

LoggingLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert",
                       "emergency"]
