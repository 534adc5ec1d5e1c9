"""``polymcp.OAuth``: OAuth 2.1 for ``polymcp.Client``, done by the Go
client (discovery, registration, PKCE, the code exchange, refresh and
step-up are its). This file holds the options and answers the library's
``oauth/authorize`` question: it shows the user the authorization URL."""

from __future__ import annotations

import asyncio
import inspect
import os
import sys
import webbrowser
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Union

from ._client_types import JSON, OAuthAuthorizeHandler

if TYPE_CHECKING:
    from ._client import Client

__all__ = ["Auth", "OAuth", "authorize"]


@dataclass(frozen=True, kw_only=True)
class OAuth:
    """OAuth 2.1 for an HTTP server that asks for it (answers 401), done by
    the Go client: ``polymcp.Client(url, auth=polymcp.OAuth(...))``;
    ``auth="oauth"`` is ``OAuth()``. A server that asks for nothing is
    connected to as without it.

    The client registers as, in this order: ``client_id`` (and
    ``client_secret`` for a confidential client), registered in advance
    with the authorization server ``issuer`` (any when None); else the
    Client ID Metadata Document at ``client_metadata_url``, when the
    authorization server supports those; else by dynamic registration, as
    ``client_name`` (default "polymcp").

    ``grant="authorization_code"`` (the default) asks the user: the
    authorization URL is opened with ``webbrowser.open`` (and printed to
    stderr), or given to ``on_authorize(url)`` when set. Without
    ``redirect_url`` the browser comes back to a loopback listener of the
    library's own (http://127.0.0.1:<port>/callback). With one (a redirect
    URI of the application's, registered with the authorization server)
    ``on_authorize`` is required and returns the URL the browser came back
    to. ``grant="client_credentials"`` (machine clients) needs
    ``client_id`` and asks nobody.

    ``token_store`` is a file (created with mode 0600) where the client
    registration and tokens are kept, by server URL: the next connection
    to the server, in this process or another, sends the stored token,
    refreshes it when the server refuses it, and asks the user again only
    when that fails. Without it they last as long as the client.
    """

    client_id: str | None = None
    client_secret: str | None = None
    issuer: str | None = None
    client_metadata_url: str | None = None
    client_name: str | None = None
    redirect_url: str | None = None
    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    token_store: str | os.PathLike[str] | None = None
    on_authorize: OAuthAuthorizeHandler | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if self.grant not in ("authorization_code", "client_credentials"):
            raise ValueError(f"polymcp.OAuth: grant {self.grant!r} is not \"authorization_code\" "
                             "or \"client_credentials\"")
        if self.grant == "client_credentials" and not self.client_id:
            raise ValueError("polymcp.OAuth: the client_credentials grant needs client_id")
        if (self.client_secret or self.issuer) and not self.client_id:
            raise ValueError("polymcp.OAuth: client_secret and issuer go with client_id")
        if self.redirect_url and self.grant == "authorization_code" and self.on_authorize is None:
            raise ValueError("polymcp.OAuth: with a redirect_url, on_authorize(url) must return "
                             "the URL the browser came back to (without one, the library's "
                             "loopback listener catches it)")
        if self.token_store is not None and not os.fspath(self.token_store):
            raise ValueError("polymcp.OAuth: token_store is the path of a file")
        if self.on_authorize is not None and not callable(self.on_authorize):
            raise TypeError("polymcp.OAuth: on_authorize is a function of the URL")

    def options(self) -> JSON:
        """The library's "oauth" option."""
        opts: JSON = {}
        for name in ("client_id", "client_secret", "issuer", "client_metadata_url",
                     "client_name", "redirect_url"):
            value = getattr(self, name)
            if value:
                opts[name] = str(value)
        if self.grant != "authorization_code":
            opts["grant"] = self.grant
        if self.token_store is not None:
            opts["token_store"] = os.fspath(self.token_store)
        return opts

    def __repr__(self) -> str:
        shown = {k: v for k, v in self.options().items() if k != "client_secret"}
        if self.client_secret:
            shown["client_secret"] = "***"
        if self.on_authorize is not None:
            shown["on_authorize"] = getattr(self.on_authorize, "__qualname__", "...")
        return "OAuth(" + ", ".join(f"{k}={v!r}" for k, v in shown.items()) + ")"


#: What ``Client(auth=...)`` takes.
Auth = Union[OAuth, Literal["oauth"], str]


async def authorize(client: Client, question: int, oauth: OAuth, params: JSON) -> None:
    """Answers oauth/authorize: shows the user the URL (on_authorize, or
    the system browser) and, with a redirect_url, hands back where the
    browser came back to. An exception refuses."""
    url = str(params.get("url") or "")
    try:
        if not url:
            raise ValueError("oauth/authorize without a url")
        if oauth.on_authorize is None:
            print(f"polymcp.Client: authorize this client in your browser: {url}",
                  file=sys.stderr, flush=True)
            await asyncio.to_thread(webbrowser.open, url)
            value: Any = None
        else:
            value = oauth.on_authorize(url)
            if inspect.isawaitable(value):
                value = await value
    except asyncio.CancelledError:
        raise
    except BaseException as err:  # noqa: BLE001 - answered as the refusal
        client._fail_question(question, err)
        return
    if not oauth.redirect_url:
        client._answer(question, None, lambda _: {})
    elif isinstance(value, str) and value:
        client._answer(question, value, lambda v: {"redirectUrl": v})
    else:
        client._fail_question(question, TypeError(
            f"OAuth.on_authorize returns the URL the browser came back to (the redirect to "
            f"{oauth.redirect_url} with code and state), not {value!r}"))
