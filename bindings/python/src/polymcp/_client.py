"""``polymcp.Client``: an asyncio MCP client over libpolymcp's client half
(ABI 1.8, ``polymcp_client_*``).

The Go client does the protocol: negotiation, transports, paging, input
rounds, tasks, output-schema checks, timeouts and cancellation. This file
turns its callbacks, which arrive on Go threads (_client_bridge.py), into
futures and handler calls on the event loop the client was entered on
(``call_soon_threadsafe`` is the only thing a callback does besides
copying its bytes).

    async with polymcp.Client(["python", "server.py"]) as client:
        tools = await client.list_tools()
        result = await client.call_tool("echo", {"text": "hi"})

An HTTP server that asks for OAuth 2.1 (a 401) is authorized by the Go
client too when ``auth="oauth"`` or ``auth=polymcp.OAuth(...)`` is given:
discovery, registration, PKCE, the code exchange, refresh and step-up are
its; _client_oauth.py only shows the user the authorization URL (the
library's ``oauth/authorize`` question).

Also here: _client_types.py (the handlers' types), _client_results.py
(CallToolResult, errors, the answers to the server's questions) and
_subscription.py (``Client.listen``).
"""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ._client_bridge import _Request, _Target
from ._client_oauth import Auth, OAuth, authorize
from ._client_results import (CallToolResult, _elicitation_result, _error, _error_of, _is_wrapper,
                              _object, _roots_result, _sampling_result)
from ._client_types import (JSON, ElicitationHandler, LoggingLevel, LogHandler, MessageHandler,
                            OAuthAuthorizeHandler, ProgressHandler, Roots, SamplingHandler)
from ._errors import (ClientClosed, ClientError, McpError, NativeError, ToolCallError,
                      error_message)
from ._jsonable import to_jsonable
from ._native import E_CLOSED, E_INVALID, E_UNKNOWN_CALL, OK, Library, library
from ._subscription import Subscription

if TYPE_CHECKING:
    from ._serve import NativeServer
    from ._server import Server

__all__ = [
    "CallToolResult",
    "Client",
    "ElicitationHandler",
    "LogHandler",
    "MessageHandler",
    "OAuth",
    "OAuthAuthorizeHandler",
    "ProgressHandler",
    "Roots",
    "SamplingHandler",
    "Subscription",
]

log = logging.getLogger("polymcp.client")

#: How long close() waits for the library's on_closed.
CLOSE_WAIT_S = 10.0

_LOG_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "notice": logging.INFO,
               "warning": logging.WARNING, "error": logging.ERROR, "critical": logging.CRITICAL,
               "alert": logging.CRITICAL, "emergency": logging.CRITICAL}


class Client:
    """An MCP client: ``async with Client(target) as client: ...``.

    ``target`` is a server command (a list such as ``["python",
    "server.py"]``, or a ``.py`` file run with this interpreter) spoken to
    over stdio; an ``http://`` or ``https://`` URL (Streamable HTTP, or the
    2024-11-05 HTTP+SSE transport when the server refuses it); or a
    :class:`polymcp.Server` of this process, connected in memory.

    The revision is negotiated (2026-07-28 when the server speaks it, else
    ``initialize``) unless ``revision`` pins one. ``timeout`` (seconds)
    bounds each request (default 60 s). ``sampling_handler``,
    ``elicitation_handler`` and ``roots`` answer the server's questions and
    declare the capability only when given; ``log_handler`` gets
    ``notifications/message``, ``message_handler`` every notification
    (list_changed, resources/updated, messages); ``progress_handler`` is the
    default for requests that do not pass their own. ``tasks=True``
    declares the 2026-07-28 tasks extension: a tools/call answered with a
    task is followed to its end. Handlers may be ``def`` or ``async def``;
    they run on the event loop the client was entered on.

    ``capabilities`` (a ClientCapabilities mapping) is declared as it is
    over what the handlers imply: sub-capabilities such as
    ``{"elicitation": {"form": {}, "url": {}}}`` (URL-mode elicitation),
    ``{"sampling": {"tools": {}}}`` or ``{"roots": {"listChanged": False}}``,
    plus ``"experimental"`` and ``"extensions"`` members. Declaring
    ``sampling``, ``elicitation`` or ``roots`` there without its handler
    raises ValueError.

    ``auth`` (a URL only): ``"oauth"`` or a :class:`polymcp.OAuth` for a
    server that asks for OAuth 2.1 (the user is shown the authorization URL
    in the system browser, or ``OAuth.on_authorize`` is); any other str is
    a bearer token, sent as ``Authorization: Bearer <token>`` (as a
    ``headers`` entry would be).
    """

    def __init__(self, target: str | Path | Sequence[str] | Server | NativeServer | Mapping[str, Any],
                 *, headers: Mapping[str, str] | None = None,
                 auth: Auth | None = None,
                 env: Mapping[str, str] | None = None, cwd: str | Path | None = None,
                 client_info: Mapping[str, str] | None = None,
                 revision: str | None = None, timeout: float | None = None,
                 reset_timeout_on_progress: bool = False,
                 probe_timeout: float | None = None,
                 sampling_handler: SamplingHandler | None = None,
                 elicitation_handler: ElicitationHandler | None = None,
                 roots: Roots | None = None,
                 log_handler: LogHandler | None = None,
                 message_handler: MessageHandler | None = None,
                 progress_handler: ProgressHandler | None = None,
                 capabilities: Mapping[str, Any] | None = None,
                 tasks: bool = False, skip_output_validation: bool = False,
                 max_pages: int | None = None, max_input_rounds: int | None = None,
                 max_questions: int | None = None) -> None:
        self._lib: Library | None = None
        self._server: Server | NativeServer | None = None
        self._owned_native: NativeServer | None = None
        self._target_options = self._target(target)
        opts: JSON = {}
        if headers:
            opts["headers"] = dict(headers)
        self.oauth = self._auth(auth, opts)
        if env:
            opts["env"] = dict(env)
        if cwd is not None:
            opts["cwd"] = str(cwd)
        if client_info:
            opts["client_info"] = dict(client_info)
        if revision:
            opts["revision"] = revision
        if timeout is not None:
            opts["timeout_ms"] = _ms(timeout)
        if reset_timeout_on_progress:
            opts["reset_timeout_on_progress"] = True
        if probe_timeout is not None:
            opts["probe_timeout_ms"] = _ms(probe_timeout)
        for name, value in (("max_pages", max_pages), ("max_input_rounds", max_input_rounds),
                            ("max_questions", max_questions)):
            if value is not None:
                opts[name] = value
        if tasks:
            opts["tasks"] = True
        if skip_output_validation:
            opts["skip_output_validation"] = True
        if sampling_handler is not None:
            opts["sampling"] = True
        if elicitation_handler is not None:
            opts["elicitation"] = True
        if roots is not None:
            opts["roots"] = True
        if capabilities is not None:
            opts["capabilities"] = _capabilities(capabilities, sampling=sampling_handler,
                                                 elicitation=elicitation_handler, roots=roots)
        self._options = opts
        self.sampling_handler = sampling_handler
        self.elicitation_handler = elicitation_handler
        self.roots = roots
        self.log_handler = log_handler
        self.message_handler = message_handler
        self.progress_handler = progress_handler

        self._loop: asyncio.AbstractEventLoop | None = None
        self._handle = 0
        self._key = 0
        self._depth = 0
        self._state: Literal["new", "connecting", "open", "closing", "closed"] = "new"
        self._tags = itertools.count(1)
        self._pending: dict[int, _Request] = {}
        self._questions: dict[int, asyncio.Task[None] | None] = {}
        self._tasks: set[asyncio.Task[Any]] = set()
        self._closed: asyncio.Future[None] | None = None
        self._close_reason = ""
        self._entered_lock: asyncio.Lock | None = None
        self._output_wrapped: dict[str, bool] = {}
        self._subscriptions: set[Subscription] = set()
        self.protocol_version: str | None = None
        self.server_info: JSON = {}
        self.capabilities: JSON = {}
        self.instructions: str | None = None
        self.initialize_result: JSON = {}

    def _auth(self, auth: Auth | None, opts: JSON) -> OAuth | None:
        """Puts auth into opts: the "oauth" option, or a bearer token's header."""
        if auth is None:
            return None
        if "url" not in self._target_options:
            raise ValueError("polymcp.Client: auth is for an http(s) URL")
        if isinstance(auth, OAuth):
            oauth = auth
        elif auth == "oauth":
            oauth = OAuth()
        elif isinstance(auth, str) and auth.strip():
            token = auth.strip()
            if token.lower().startswith("bearer "):
                token = token[7:].strip()
            headers = opts.setdefault("headers", {})
            if not any(k.lower() == "authorization" for k in headers):
                headers["Authorization"] = f"Bearer {token}"
            return None
        else:
            raise TypeError(f"polymcp.Client: auth is \"oauth\", a polymcp.OAuth or a bearer "
                            f"token, not {auth!r}")
        opts["oauth"] = oauth.options()
        return oauth

    def _target(self, target: Any) -> JSON:
        from ._serve import NativeServer
        from ._server import Server

        if isinstance(target, Mapping):
            return dict(target)  # the options' target members, as given
        if isinstance(target, (Server, NativeServer)):
            self._server = target
            return {}  # the handle is known once connecting
        if isinstance(target, Path) or isinstance(target, str) and not _is_url(target):
            path = Path(target)
            if path.suffix == ".py":
                return {"command": [sys.executable, str(path)]}
            raise ValueError(f"polymcp.Client: {str(target)!r} is neither an http(s) URL nor a "
                             ".py file; give a command as a list, e.g. [\"python\", \"server.py\"]")
        if isinstance(target, str):
            return {"url": target}
        if isinstance(target, Sequence) and target and all(isinstance(a, str) for a in target):
            return {"command": list(target)}
        raise TypeError(f"polymcp.Client: cannot connect to {target!r}: give a command list, "
                        "an http(s) URL, a .py file or a polymcp.Server")

    # ---- connecting ------------------------------------------------------------

    async def __aenter__(self) -> Client:
        if self._depth == 0:
            await self.connect()
        self._depth += 1
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._depth -= 1
        if self._depth == 0:
            await self.close()

    def is_connected(self) -> bool:
        return self._state == "open"

    async def connect(self) -> None:
        """Connects and negotiates (``async with`` does this)."""
        if self._state in ("connecting", "open"):
            raise RuntimeError("polymcp.Client is already connected")
        if self._state == "closing":
            raise RuntimeError("polymcp.Client is still closing")
        lib = self._lib = self._lib or library()
        if not lib.has_client():
            raise NativeError(E_INVALID, f"polymcp.Client needs libpolymcp ABI 1.8 or later; "
                                         f"{lib.path} has ABI {lib.abi[0]}.{lib.abi[1]}")
        loop = self._loop = asyncio.get_running_loop()
        options = {**self._target_options, **self._options}
        if self._server is not None:
            options["server"] = self._native_handle()
        self._pending.clear()
        self._questions.clear()
        self._closed = loop.create_future()
        self._close_reason = ""
        tag = next(self._tags)
        future: asyncio.Future[JSON] = loop.create_future()
        self._pending[tag] = _Request(future, None)
        self._state = "connecting"
        try:
            self._handle, self._key = lib.client_connect(
                json.dumps(options).encode(), _Target(self, loop), tag)
        except BaseException:
            self._pending.pop(tag, None)
            self._state = "closed"
            self._release_native()
            raise
        try:
            result = await future
        except BaseException:
            await self.close()
            raise
        self._state = "open"
        self.initialize_result = result
        self.protocol_version = result.get("protocolVersion")
        self.server_info = result.get("serverInfo") or {}
        self.capabilities = result.get("capabilities") or {}
        self.instructions = result.get("instructions") or None

    def _native_handle(self) -> int:
        from ._serve import NativeServer

        server = self._server
        if isinstance(server, NativeServer):
            return server.handle
        assert server is not None
        with server._lock:
            live = [n for n in server._natives if not n.closed]
        if live:
            return live[0].handle
        native = self._owned_native = server.serve()
        return native.handle

    def _release_native(self) -> NativeServer | None:
        native, self._owned_native = self._owned_native, None
        if native is not None:
            native.close(timeout=0)  # frees it; on_closed comes on a library thread
        return native

    async def close(self) -> None:
        """Closes the connection: requests in flight end with ClientClosed,
        a started server gets EOF on its stdin, an HTTP session is deleted.
        Returns once the library is done with the connection."""
        lib, closed, handle = self._lib, self._closed, self._handle
        if lib is not None and handle:
            self._state = "closing"
            lib.client_close(handle)
            if closed is not None and not closed.done():
                try:
                    await asyncio.wait_for(asyncio.shield(closed), CLOSE_WAIT_S)
                except asyncio.TimeoutError:
                    log.warning("polymcp.Client: no on_closed %s s after close", CLOSE_WAIT_S)
                    return  # the handle stays: freeing it before on_closed is refused
            lib.client_free(handle)
            self._handle = 0
        if self._state != "new":
            self._state = "closed"
        for task in list(self._tasks):
            task.cancel()
        native = self._release_native()
        if native is not None:
            for _ in range(int(CLOSE_WAIT_S / 0.005)):
                if native.closed:
                    break
                await asyncio.sleep(0.005)

    # ---- callbacks, on the loop --------------------------------------------------

    def _on_response(self, tag: int, rc: int, data: bytes) -> None:
        request = self._pending.pop(tag, None)
        if request is None or request.future.done():
            return  # cancelled by the caller: its E_CANCELLED is expected
        if rc == OK:
            try:
                value = json.loads(data) if data else {}
            except ValueError as err:
                request.future.set_exception(ClientError(E_INVALID, f"undecodable result: {err}"))
                return
            request.future.set_result(value if isinstance(value, dict) else {"result": value})
        else:
            request.future.set_exception(_error(rc, data))

    def _on_progress(self, tag: int, data: bytes) -> None:
        request = self._pending.get(tag)
        if request is None or request.progress is None:
            return
        params = _object(data)
        total = params.get("total")
        message = params.get("message")
        self._run(request.progress, float(params.get("progress", 0)),
                  float(total) if isinstance(total, (int, float)) else None,
                  message if isinstance(message, str) else None)

    def _on_notification(self, method: str, data: bytes) -> None:
        params = _object(data)
        if method == _SUBSCRIPTION_ENDED:
            for sub in list(self._subscriptions):
                if sub._tag and sub._tag == params.get("tag"):
                    sub._ended_by_server(params)
            return
        if method == "notifications/message":
            if self.log_handler is not None:
                self._run(self.log_handler, params)
            else:
                _log_server_message(params)
        if self.message_handler is not None:
            self._run(self.message_handler, method, params)
        for sub in self._subscriptions:
            sub._offer(method, params)

    def _on_question(self, question: int, method: str, data: bytes) -> None:
        params = _object(data)
        self._questions[question] = None
        if method == "oauth/authorize" and self.oauth is not None:
            # Not cancelled with the question: in the loopback mode the
            # question ends as soon as the browser came back, which may be
            # before the handler (the browser) returns. close() cancels it.
            self._keep(asyncio.ensure_future(authorize(self, question, self.oauth, params)))
            return
        try:
            if method == "sampling/createMessage" and self.sampling_handler is not None:
                outcome: Any = self.sampling_handler(params)
                finish: Callable[[Any], JSON] = _sampling_result
            elif method == "elicitation/create" and self.elicitation_handler is not None:
                outcome, finish = self.elicitation_handler(params), _elicitation_result
            elif method == "roots/list" and self.roots is not None:
                outcome = self.roots() if callable(self.roots) else self.roots
                finish = _roots_result
            else:
                self._fail_question(question, McpError(-32601, f"no handler for {method}"))
                return
        except BaseException as err:  # noqa: BLE001 - answered as an error
            self._fail_question(question, err)
            return
        if not inspect.isawaitable(outcome):
            self._answer(question, outcome, finish)
            return

        async def wait(awaitable: Awaitable[Any]) -> None:
            try:
                value = await awaitable
            except asyncio.CancelledError:
                if question in self._questions:  # cancelled by the handler itself
                    self._fail_question(question, McpError(-32603, "the handler was cancelled"))
                raise
            except BaseException as err:  # noqa: BLE001 - answered as an error
                self._fail_question(question, err)
                return
            self._answer(question, value, finish)

        task = asyncio.ensure_future(wait(outcome))
        self._questions[question] = task
        self._keep(task)

    def _answer(self, question: int, value: Any, finish: Callable[[Any], JSON]) -> None:
        if self._questions.pop(question, 0) == 0:
            return  # no longer wanted
        assert self._lib is not None
        try:
            body = json.dumps(finish(value)).encode()
        except (TypeError, ValueError) as err:
            self._questions[question] = None
            self._fail_question(question, err)
            return
        status, message = self._lib.client_answer(question, body)
        if status not in (OK, E_UNKNOWN_CALL):
            log.warning("polymcp.Client: answer refused (%s): %s", status, message)
            self._lib.client_answer_error(question, -32603, message.encode())

    def _fail_question(self, question: int, err: BaseException) -> None:
        self._questions.pop(question, None)
        assert self._lib is not None
        if isinstance(err, McpError):
            code, message = err.code, err.message
        else:
            code, message = -32603, error_message(err)
        self._lib.client_answer_error(question, code, message.encode())

    def _on_question_cancel(self, question: int) -> None:
        task = self._questions.pop(question, None)
        if task is not None:
            task.cancel()

    def _on_closed(self, target: _Target, rc: int, message: str) -> None:
        self._close_reason = message
        if self._state in ("connecting", "open"):
            self._state = "closed"  # ended by itself; close() still frees the handle
        for request in self._pending.values():  # the library ended them all; to be sure
            if not request.future.done():
                request.future.set_exception(ClientClosed(E_CLOSED, message or "closed"))
        self._pending.clear()
        for task in [t for t in self._questions.values() if t is not None]:
            task.cancel()
        self._questions.clear()
        for sub in list(self._subscriptions):
            sub._end()
        if self._closed is not None and not self._closed.done():
            self._closed.set_result(None)

    def _run(self, fn: Callable[..., Any], *args: Any) -> None:
        """Calls a user callback on the loop; a coroutine becomes a task.
        An exception is logged, never raised into the library."""
        try:
            outcome = fn(*args)
        except Exception:  # noqa: BLE001
            log.exception("polymcp.Client: %r failed", fn)
            return
        if inspect.isawaitable(outcome):
            self._keep(asyncio.ensure_future(_logged(outcome, fn)))

    def _keep(self, task: asyncio.Task[Any]) -> None:
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # ---- requests ----------------------------------------------------------------

    async def request(self, method: str, params: Mapping[str, Any] | None = None, *,
                      timeout: float | None = None,
                      progress_handler: ProgressHandler | None = None,
                      meta: Mapping[str, Any] | None = None) -> JSON:
        """Sends any request and returns its result object (a dict with the
        protocol's keys). Raises McpError for the server's JSON-RPC error,
        RequestTimeout (a TimeoutError) after ``timeout`` seconds (default:
        the client's), ClientClosed when the connection ends. Cancelling the
        awaiting task cancels the request on the server too."""
        _, result = await self._request(method, params, timeout, progress_handler, meta)
        return result

    async def _request(self, method: str, params: Mapping[str, Any] | None,
                       timeout: float | None, progress_handler: ProgressHandler | None,
                       meta: Mapping[str, Any] | None) -> tuple[int, JSON]:
        """request(), also returning the request's tag."""
        lib, loop = self._lib, self._loop
        if self._state != "open" or lib is None or loop is None:
            raise ClientClosed(E_CLOSED, f"polymcp.Client is not connected ({self._state}"
                               + (f": {self._close_reason}" if self._close_reason else "") + ")")
        progress = progress_handler or self.progress_handler
        opts: JSON = {}
        if timeout is not None:
            opts["timeout_ms"] = _ms(timeout)
        if progress is not None:
            opts["progress"] = True
        if meta:
            opts["meta"] = dict(meta)
        body = _dumps(params) if params is not None else b""
        tag = next(self._tags)
        future: asyncio.Future[JSON] = loop.create_future()
        self._pending[tag] = _Request(future, progress)
        status, message = lib.client_request(self._handle, method.encode(), body,
                                             json.dumps(opts).encode() if opts else b"", tag)
        if status != OK:
            self._pending.pop(tag, None)
            raise _error_of(status, {"message": message})
        try:
            return tag, await future
        except asyncio.CancelledError:
            if not future.done() or future.cancelled():
                # The library answers E_CANCELLED later; _on_response drops it.
                lib.client_cancel(self._handle, tag)
            raise

    async def ping(self) -> bool:
        """Pings the server (server/discover on 2026-07-28); True when it answered."""
        # 2026-07-28 has no ping: server/discover is the liveness check there
        # (what the Go client's Ping sends; polymcp_client_request sends
        # methods as named).
        modern = (self.protocol_version or "") >= "2026-07-28"
        await self.request("server/discover" if modern else "ping")
        return True

    async def list_tools(self, **kw: Any) -> list[JSON]:
        """Every tool (all pages), as the protocol's Tool dicts."""
        tools: list[JSON] = (await self.request("tools/list", None, **kw)).get("tools", [])
        for tool in tools:
            self._output_wrapped[str(tool.get("name"))] = _is_wrapper(tool.get("outputSchema"))
        return tools

    async def call_tool(self, name: str, arguments: Mapping[str, Any] | None = None, *,
                        timeout: float | None = None,
                        progress_handler: ProgressHandler | None = None,
                        meta: Mapping[str, Any] | None = None,
                        raise_on_error: bool = True) -> CallToolResult:
        """Calls a tool. A result with ``isError`` raises ToolCallError (a
        polymcp.ToolError) unless ``raise_on_error=False``; a result that
        does not match the tool's listed outputSchema raises
        OutputValidationError."""
        raw = await self.request("tools/call", {"name": name, "arguments": dict(arguments or {})},
                                 timeout=timeout, progress_handler=progress_handler, meta=meta)
        result = CallToolResult.from_json(raw, self._output_wrapped.get(name, False))
        if result.is_error and raise_on_error:
            raise ToolCallError(result.text or f"tool {name!r} failed", result)
        return result

    async def list_resources(self, **kw: Any) -> list[JSON]:
        return list((await self.request("resources/list", None, **kw)).get("resources", []))

    async def list_resource_templates(self, **kw: Any) -> list[JSON]:
        result = await self.request("resources/templates/list", None, **kw)
        return list(result.get("resourceTemplates", []))

    async def read_resource(self, uri: str, **kw: Any) -> list[JSON]:
        """The resource's contents: dicts with ``uri``, ``mimeType`` and
        ``text`` or ``blob`` (base64)."""
        return list((await self.request("resources/read", {"uri": str(uri)}, **kw))
                    .get("contents", []))

    async def subscribe_resource(self, uri: str, **kw: Any) -> None:
        """Asks for notifications/resources/updated of uri (legacy revisions;
        they reach message_handler). On 2026-07-28, which has no
        resources/subscribe, use ``async with client.listen(
        resource_subscriptions=[uri])``, which works on every revision."""
        self._legacy_only("resources/subscribe", uri)
        await self.request("resources/subscribe", {"uri": str(uri)}, **kw)

    async def unsubscribe_resource(self, uri: str, **kw: Any) -> None:
        self._legacy_only("resources/unsubscribe", uri)
        await self.request("resources/unsubscribe", {"uri": str(uri)}, **kw)

    def _modern(self) -> bool:
        return (self.protocol_version or "") >= "2026-07-28"

    def _legacy_only(self, method: str, uri: str) -> None:
        if self._state == "open" and self._modern():
            raise ClientError(E_INVALID, f"{method} is not in MCP {self.protocol_version}: "
                                         f"subscribe with `async with client.listen("
                                         f"resource_subscriptions=[{str(uri)!r}]) as sub:` "
                                         "(subscriptions/listen; it works on every revision)")

    def listen(self, *, tools_list_changed: bool = False, prompts_list_changed: bool = False,
               resources_list_changed: bool = False,
               resource_subscriptions: Sequence[str] = (),
               timeout: float | None = None, max_queued: int = 1000) -> Subscription:
        """A subscription to the server's change notifications:

            async with client.listen(tools_list_changed=True,
                                     resource_subscriptions=["file:///x"]) as sub:
                sub.honoured              # what the server agreed to send
                async for method, params in sub: ...

        On 2026-07-28 this is ``subscriptions/listen``: entering sends it and
        returns once the server acknowledged it (``timeout`` bounds that
        only); leaving the block cancels it. On the legacy revisions, where
        list_changed notifications come unasked, it sends
        ``resources/subscribe`` for each URI (``resources/unsubscribe`` when
        leaving) and honours what the server's capabilities declare. Either
        way the notifications reach ``message_handler`` as always, and the
        subscription's own iterator gets those it was honoured for (at most
        ``max_queued`` unread; older ones are dropped). ``await
        client.listen(...)`` opens one without a block; ``await
        sub.close()`` ends it."""
        if isinstance(resource_subscriptions, str):
            raise TypeError("resource_subscriptions is a list of URIs, not a str")
        wanted: JSON = {}
        for key, on in (("toolsListChanged", tools_list_changed),
                        ("promptsListChanged", prompts_list_changed),
                        ("resourcesListChanged", resources_list_changed)):
            if on:
                wanted[key] = True
        uris = [str(u) for u in resource_subscriptions]
        if uris:
            wanted["resourceSubscriptions"] = uris
        return Subscription(self, wanted, timeout, max_queued)

    async def list_prompts(self, **kw: Any) -> list[JSON]:
        return list((await self.request("prompts/list", None, **kw)).get("prompts", []))

    async def get_prompt(self, name: str, arguments: Mapping[str, Any] | None = None,
                         **kw: Any) -> JSON:
        """The GetPromptResult dict (``messages``, ``description``).
        Argument values that are not str are sent as JSON text."""
        args = {k: v if isinstance(v, str) else json.dumps(to_jsonable(v))
                for k, v in (arguments or {}).items()}
        return await self.request("prompts/get", {"name": name, "arguments": args}, **kw)

    async def complete(self, ref: Mapping[str, Any], argument: Mapping[str, str],
                       context_arguments: Mapping[str, str] | None = None,
                       **kw: Any) -> JSON:
        """completion/complete: ``ref`` is {"type": "ref/prompt", "name": ...}
        or {"type": "ref/resource", "uri": ...}, ``argument`` {"name",
        "value"}. Returns the ``completion`` dict (``values``, ``total``,
        ``hasMore``)."""
        params: JSON = {"ref": dict(ref), "argument": dict(argument)}
        if context_arguments:
            params["context"] = {"arguments": dict(context_arguments)}
        result = await self.request("completion/complete", params, **kw)
        completion = result.get("completion")
        return completion if isinstance(completion, dict) else {"values": []}

    async def set_logging_level(self, level: LoggingLevel, **kw: Any) -> None:
        await self.request("logging/setLevel", {"level": level}, **kw)

    async def send_roots_list_changed(self) -> None:
        """notifications/roots/list_changed (legacy revisions)."""
        await self.request("notifications/roots/list_changed")

    def __repr__(self) -> str:
        target = self._target_options.get("url") or self._target_options.get("command") or \
            self._server
        return f"Client({target!r}, {self._state})"

# ---- helpers ---------------------------------------------------------------------

def _ms(seconds: float) -> int:
    return max(1, int(round(seconds * 1000)))


#: The library's notification that a subscription the client did not end
#: has ended (the server ended it, or its stream broke).
_SUBSCRIPTION_ENDED = "polymcp/subscription_ended"


def _is_url(text: str) -> bool:
    return text.startswith(("http://", "https://"))


def _dumps(params: Mapping[str, Any]) -> bytes:
    """params as JSON: plain dicts, lists and scalars go straight to
    json.dumps; anything else (dataclasses, Enums, pydantic models, dates,
    bytes, tuples as keys...) through to_jsonable, as before."""
    try:
        return _encode(params if type(params) is dict else dict(params)).encode()
    except (TypeError, ValueError):
        return json.dumps(to_jsonable(dict(params))).encode()


#: What the C encoder does not know raises, and that value goes through
#: to_jsonable. What it knows encodes as to_jsonable would have made it (a
#: str or int Enum member as its value, a tuple as a list), except dict keys
#: that are not str: json spells True and None "true" and "null".
def _plain_check(value: Any) -> Any:
    raise TypeError(f"{type(value).__name__} is not plain JSON")


_encode = json.JSONEncoder(default=_plain_check, allow_nan=False).encode



#: The handler each capability that asks the client questions needs.
_HANDLED_CAPABILITIES = (("sampling", "sampling_handler"), ("elicitation", "elicitation_handler"),
                         ("roots", "roots"))


def _capabilities(capabilities: Mapping[str, Any], **handlers: object) -> JSON:
    """The "capabilities" connect option: ``capabilities`` as JSON, once each
    capability it declares that asks questions (sampling, elicitation,
    roots) has its handler."""
    if not isinstance(capabilities, Mapping):
        raise TypeError(f"polymcp.Client: capabilities must be a mapping, "
                        f"not {type(capabilities).__name__}")
    for name, keyword in _HANDLED_CAPABILITIES:
        if name in capabilities and handlers[name] is None:
            raise ValueError(f"polymcp.Client: capabilities declares {name!r}, "
                             f"which needs {keyword}=")
    out = to_jsonable(dict(capabilities))
    assert isinstance(out, dict)
    return out



def _log_server_message(params: JSON) -> None:
    level = _LOG_LEVELS.get(str(params.get("level")), logging.INFO)
    logger = params.get("logger")
    log.log(level, "%s%s", f"[{logger}] " if logger else "", params.get("data"))


async def _logged(awaitable: Awaitable[Any], fn: Callable[..., Any]) -> None:
    try:
        await awaitable
    except asyncio.CancelledError:
        raise
    except Exception:  # noqa: BLE001
        log.exception("polymcp.Client: %r failed", fn)