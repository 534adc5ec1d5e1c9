"""``polymcp.Subscription``: an open ``Client.listen`` (subscriptions/listen
on 2026-07-28; resources/subscribe and the server's list_changed
capabilities on the legacy revisions)."""

from __future__ import annotations

import asyncio
import collections
import logging
from collections.abc import Generator
from typing import TYPE_CHECKING, Any, Literal

from ._client_results import _error_of
from ._client_types import JSON
from ._errors import ClientClosed, ClientError, McpError
from ._native import E_CLOSED

if TYPE_CHECKING:
    from ._client import Client

__all__ = ["Subscription"]

log = logging.getLogger("polymcp.client")


#: What a subscription's filter key covers: the notification's method.
_LIST_CHANGED = {"notifications/tools/list_changed": "toolsListChanged",
                 "notifications/prompts/list_changed": "promptsListChanged",
                 "notifications/resources/list_changed": "resourcesListChanged"}
#: The legacy revisions: the capability that makes a server send it unasked.
_LEGACY_CAPABILITY = {"toolsListChanged": "tools", "promptsListChanged": "prompts",
                      "resourcesListChanged": "resources"}


class Subscription:
    """An open ``Client.listen``: ``async with`` it, or ``await`` it and
    ``close()`` it. ``honoured`` is what the server agreed to send, with the
    protocol's keys (``toolsListChanged``, ``promptsListChanged``,
    ``resourcesListChanged``, ``resourceSubscriptions``); iterating gives
    the (method, params) of the notifications it covers, until it ends."""

    def __init__(self, client: Client, wanted: JSON, timeout: float | None,
                 max_queued: int) -> None:
        self.client = client
        self.requested = wanted
        self.honoured: JSON = {}
        self._timeout = timeout
        self._queue: collections.deque[tuple[str, JSON]] = collections.deque(maxlen=max(1, max_queued))
        self._ready = asyncio.Event()
        self._tag = 0
        self._legacy_uris: list[str] = []
        self._state: Literal["new", "opening", "open", "closed"] = "new"
        #: Why the server's end of the subscription was not graceful (a
        #: broken stream, say); None otherwise.
        self.error: Exception | None = None

    @property
    def active(self) -> bool:
        return self._state == "open"

    async def open(self) -> Subscription:
        if self._state != "new":
            raise RuntimeError(f"this subscription is already {self._state}")
        client = self.client
        self._state = "opening"
        try:
            if client._modern():
                self._tag, ack = await client._request(
                    "subscriptions/listen", {"notifications": self.requested}, self._timeout,
                    None, None)
                honoured = ack.get("notifications")
                self.honoured = honoured if isinstance(honoured, dict) else {}
            else:
                await self._open_legacy()
        except BaseException:
            self._state = "closed"
            raise
        if client._state != "open":  # the connection ended meanwhile
            self._state = "closed"
            raise ClientClosed(E_CLOSED, f"polymcp.Client is not connected ({client._state})")
        self._state = "open"
        client._subscriptions.add(self)
        return self

    async def _open_legacy(self) -> None:
        caps = self.client.capabilities
        honoured: JSON = {}
        for key, cap in _LEGACY_CAPABILITY.items():
            entry = caps.get(cap)
            if self.requested.get(key) and isinstance(entry, dict) and entry.get("listChanged"):
                honoured[key] = True
        uris = list(self.requested.get("resourceSubscriptions", []))
        resources = caps.get("resources")
        if uris and isinstance(resources, dict) and resources.get("subscribe"):
            try:
                for uri in uris:
                    await self.client.request("resources/subscribe", {"uri": uri},
                                              timeout=self._timeout)
                    self._legacy_uris.append(uri)
            except BaseException:
                await self._unsubscribe_legacy()
                raise
            honoured["resourceSubscriptions"] = uris
        self.honoured = honoured

    async def _unsubscribe_legacy(self) -> None:
        uris, self._legacy_uris = self._legacy_uris, []
        for uri in uris:
            if not self.client.is_connected():
                return
            try:
                await self.client.request("resources/unsubscribe", {"uri": uri},
                                          timeout=self._timeout)
            except (ClientError, McpError) as err:
                log.debug("polymcp.Client: resources/unsubscribe %s: %s", uri, err)

    async def close(self) -> None:
        """Ends the subscription (polymcp_client_cancel of its request on
        2026-07-28, resources/unsubscribe before). Idempotent."""
        if self._state != "open":
            self._state = "closed"
            return
        self._end()
        client = self.client
        if self._tag:
            tag, self._tag = self._tag, 0
            if client._lib is not None and client._handle and client._state == "open":
                client._lib.client_cancel(client._handle, tag)  # E_UNKNOWN_CALL: already over
        else:
            await self._unsubscribe_legacy()

    def _end(self) -> None:
        self._state = "closed"
        self.client._subscriptions.discard(self)
        self._ready.set()

    def _ended_by_server(self, params: JSON) -> None:
        """The server ended it, or its stream broke (the library's
        polymcp/subscription_ended): iteration stops once the queue is
        drained, and ``error`` says why when the end was not graceful."""
        self._tag = 0  # the library let go of it
        code, error = params.get("code"), params.get("error")
        if isinstance(code, int) and code != 0:
            self.error = _error_of(code, error if isinstance(error, dict) else {})
        self._end()

    def covers(self, method: str, params: JSON) -> bool:
        """Whether the notification is one this subscription was honoured for."""
        key = _LIST_CHANGED.get(method)
        if key is not None:
            return bool(self.honoured.get(key))
        if method == "notifications/resources/updated":
            uris = self.honoured.get("resourceSubscriptions")
            return isinstance(uris, list) and params.get("uri") in uris
        return False

    def _offer(self, method: str, params: JSON) -> None:
        if self._state == "open" and self.covers(method, params):
            self._queue.append((method, params))
            self._ready.set()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> tuple[str, JSON]:
        while not self._queue:
            if self._state == "closed":
                raise StopAsyncIteration
            self._ready.clear()
            await self._ready.wait()
        return self._queue.popleft()

    def __await__(self) -> Generator[Any, None, Subscription]:
        return self.open().__await__()

    async def __aenter__(self) -> Subscription:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"Subscription({self.honoured or self.requested!r}, {self._state})"
