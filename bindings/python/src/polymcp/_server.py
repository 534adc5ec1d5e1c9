"""``polymcp.Server``: the catalogue a user builds with decorators, and the
entry points that serve it through the native library."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from ._handlers import (CompletionEntry, Kind, PromptEntry, ResourceEntry, TaskStart,
                        TaskSupport, ToolEntry)
from ._registry import Registry

if TYPE_CHECKING:
    from ._asgi import ASGIApp
    from ._serve import LoopSource, NativeServer, Session

__all__ = ["Server"]

F = TypeVar("F", bound=Callable[..., Any])

_LIMITS = ("max_concurrency", "max_queue", "request_timeout_ms", "page_size", "task_ttl_ms",
           "max_tasks", "max_running_tasks", "task_poll_interval_ms")


class Server:
    """An MCP server. Register handlers with :meth:`tool`, :meth:`resource`,
    :meth:`prompt` and :meth:`completion`, then serve it with :meth:`run`,
    :meth:`start_http` or :meth:`asgi_app`.

    Limits left as None keep the core's defaults: max_concurrency (32 calls
    at once), max_queue (256 waiting), request_timeout_ms (30000) and
    page_size (100 items per list page).

    The task limits apply to tools registered with ``task=`` (the 2026-07-28
    tasks extension): task_ttl_ms (3600000) is how long a task is kept from
    its creation and may run (a task still running then fails with -32603
    "timeout"); max_tasks (1000) tasks are kept at once and
    max_running_tasks (max_concurrency/2) run at once, past either a
    required task is -32603 "overloaded" and an optional one runs as an
    ordinary call; task_poll_interval_ms (1000) is the pollIntervalMs
    suggested to clients."""

    def __init__(self, name: str = "polymcp-server", version: str = "0.0.0", *,
                 instructions: str | None = None, title: str | None = None,
                 max_concurrency: int | None = None, max_queue: int | None = None,
                 request_timeout_ms: int | None = None, page_size: int | None = None,
                 task_ttl_ms: int | None = None, max_tasks: int | None = None,
                 max_running_tasks: int | None = None,
                 task_poll_interval_ms: int | None = None) -> None:
        self.name = name
        self.version = version
        self.instructions = instructions
        self.title = title
        self.limits = {k: v for k, v in zip(_LIMITS, (max_concurrency, max_queue,
                                                      request_timeout_ms, page_size, task_ttl_ms,
                                                      max_tasks, max_running_tasks,
                                                      task_poll_interval_ms))
                       if v is not None}
        self.registry = Registry()
        self._natives: list[NativeServer] = []
        self._lock = threading.Lock()

    def options(self) -> dict[str, Any]:
        """The options object of polymcp_server_new."""
        out: dict[str, Any] = {"name": self.name, "version": self.version, **self.limits}
        if self.instructions:
            out["instructions"] = self.instructions
        if self.title:
            out["title"] = self.title
        return out

    # ---- registration -----------------------------------------------------

    @overload
    def tool(self, name: F) -> F: ...

    @overload
    def tool(self, name: str | None = None, *, title: str | None = None,
             description: str | None = None, annotations: dict[str, Any] | None = None,
             meta: dict[str, Any] | None = None,
             input_schema: dict[str, Any] | None = None,
             strict: bool = False, task: TaskSupport | None = None,
             task_start: TaskStart = "call") -> Callable[[F], F]: ...

    def tool(self, name: str | F | None = None, *, title: str | None = None,
             description: str | None = None, annotations: dict[str, Any] | None = None,
             meta: dict[str, Any] | None = None,
             input_schema: dict[str, Any] | None = None,
             strict: bool = False, task: TaskSupport | None = None,
             task_start: TaskStart = "call") -> F | Callable[[F], F]:
        """Registers a tool: its name is the function's (or ``name``), its
        description the docstring, its inputSchema inferred from the
        parameters' hints (or ``input_schema``, sent as given: the
        arguments then reach the handler's parameters or ``**kwargs`` by
        name) and its outputSchema from the return hint. ``strict=True``
        refuses arguments the function does not declare: the inputSchema
        says ``additionalProperties: false`` and the core answers an unknown
        argument with an isError result before the handler runs.

        ``task`` lets calls become tasks (the 2026-07-28 tasks extension,
        ``io.modelcontextprotocol/tasks``): the client gets a task handle at
        once and polls ``tasks/get`` for the handler's outcome, answers its
        questions with ``tasks/update`` and stops it with ``tasks/cancel``
        (which cancels the handler as any cancellation does). With
        ``"optional"`` a call becomes a task when its request declares the
        extension and is an ordinary call otherwise; with ``"required"`` a
        2026-07-28 request without it gets -32021 and the handler never
        runs. The revisions before 2026-07-28 have no tasks: there every
        call is ordinary. ``task_start="call"`` (the default) makes the task
        before the handler runs; ``"handler"`` leaves it to the handler,
        which asks its questions first (answered by input_required rounds)
        and then calls :meth:`Context.start_task`. ``None`` (the default):
        never a task."""
        if callable(name):
            self.add_tool(name)
            return name

        def register(fn: F) -> F:
            self.add_tool(fn, name=name, title=title, description=description,
                          annotations=annotations, meta=meta, input_schema=input_schema,
                          strict=strict, task=task, task_start=task_start)
            return fn

        return register

    def add_tool(self, fn: Callable[..., Any], *, name: str | None = None,
                 title: str | None = None, description: str | None = None,
                 annotations: dict[str, Any] | None = None,
                 meta: dict[str, Any] | None = None,
                 input_schema: dict[str, Any] | None = None,
                 strict: bool = False, task: TaskSupport | None = None,
                 task_start: TaskStart = "call") -> ToolEntry:
        """Registers fn as a tool, as :meth:`tool` does, and returns its entry."""
        entry = ToolEntry(fn, name=name, title=title, description=description,
                          annotations=annotations, meta=meta, input_schema=input_schema,
                          strict=strict, task=task, task_start=task_start)
        self.registry.add(entry)
        return entry

    def resource(self, uri: str, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, mime_type: str | None = None,
                 meta: dict[str, Any] | None = None) -> Callable[[F], F]:
        """Registers a resource, or a resource template when ``uri`` has
        ``{variables}``: each variable is passed as the parameter of that name."""

        def register(fn: F) -> F:
            self.registry.add(ResourceEntry(fn, uri, name=name, title=title,
                                            description=description, mime_type=mime_type,
                                            meta=meta))
            return fn

        return register

    @overload
    def prompt(self, name: F) -> F: ...

    @overload
    def prompt(self, name: str | None = None, *, title: str | None = None,
               description: str | None = None,
               meta: dict[str, Any] | None = None) -> Callable[[F], F]: ...

    def prompt(self, name: str | F | None = None, *, title: str | None = None,
               description: str | None = None,
               meta: dict[str, Any] | None = None) -> F | Callable[[F], F]:
        """Registers a prompt; its arguments are the function's parameters
        (required unless they have a default)."""
        if callable(name):
            self.registry.add(PromptEntry(name))
            return name

        def register(fn: F) -> F:
            self.registry.add(PromptEntry(fn, name=name, title=title, description=description,
                                          meta=meta))
            return fn

        return register

    def completion(self, *, prompt: str | None = None,
                   resource: str | None = None) -> Callable[[F], F]:
        """Registers argument completion for a prompt (by name) or a resource
        template (by its URI template). The handler gets (argument, value)
        and optionally the arguments already given; it returns a list of
        str or a Completion."""
        if (prompt is None) == (resource is None):
            raise TypeError("completion() needs exactly one of prompt= or resource=")
        ref = {"type": "ref/prompt", "name": prompt} if prompt is not None else {
            "type": "ref/resource", "uri": str(resource)}

        def register(fn: F) -> F:
            self.registry.add(CompletionEntry(fn, ref))
            return fn

        return register

    def remove_tool(self, name: str) -> bool:
        return self.registry.remove(Kind.TOOL, name)

    def remove_resource(self, uri: str) -> bool:
        return self.registry.remove(Kind.RESOURCE, uri, "{" in uri)

    def remove_prompt(self, name: str) -> bool:
        return self.registry.remove(Kind.PROMPT, name)

    # ---- serving ----------------------------------------------------------

    def serve(self, loop: LoopSource | None = None, *,
              http: dict[str, Any] | None = None) -> NativeServer:
        """A native server for this catalogue, not serving any transport yet.
        Async handlers run on ``loop`` (a loop, or a function returning one
        at the first async call; default: a loop the binding owns). ``http``
        holds the options of host-owned HTTP (see :meth:`asgi_app`)."""
        from ._serve import NativeServer

        native = NativeServer(self, loop, http=http)
        with self._lock:
            self._natives = [n for n in self._natives if not n.closed] + [native]
        return native

    def run(self, transport: Literal["stdio", "http", "streamable-http", "sse"] = "stdio", *,
            host: str = "127.0.0.1", port: int = 8000, **options: Any) -> None:
        """Serves until stdin ends (stdio), Ctrl-C or SIGTERM, then closes
        cleanly (calls in flight are cancelled, on_closed is awaited).

        ``"http"`` serves Streamable HTTP at ``/mcp`` (every revision) and
        the 2024-11-05 HTTP+SSE transport at ``/sse`` and ``/message``;
        FastMCP's names for either, ``"streamable-http"`` and ``"sse"``,
        serve the same.

        While serving stdio, the process's own fd 1 points at stderr, so a
        stray print() cannot corrupt the protocol stream (the library
        writes to its duplicate of the original stdout)."""
        if transport not in ("stdio", "http", "streamable-http", "sse"):
            raise ValueError(f"unknown transport {transport!r}: use 'stdio' or 'http' "
                             "('streamable-http' and 'sse' serve HTTP too)")
        native = self.serve()
        try:
            with _terminate_as_interrupt():
                if transport == "stdio":
                    with _stdout_to_stderr() as out_fd:
                        native.serve_stdio(out_fd=out_fd, **options)
                        native.wait_forever()
                else:
                    url = native.serve_http(addr=f"{host}:{port}", **options)
                    # The same line as `polymcp everything --http`.
                    print(f"polymcp: serving {url}", file=sys.stderr, flush=True)
                    native.wait_forever()
        except KeyboardInterrupt:
            pass
        finally:
            native.close()

    def start_http(self, host: str = "127.0.0.1", port: int = 0, **options: Any) -> str:
        """Starts serving HTTP in the background and returns the URL (port 0
        picks a free port). :meth:`close` stops it."""
        native = self.serve()
        try:
            return native.serve_http(addr=f"{host}:{port}", **options)
        except BaseException:
            native.close()
            raise

    def asgi_app(self, path: str = "/", **http_options: Any) -> ASGIApp:
        """An ASGI 3 application serving this Server over Streamable HTTP
        (every revision) and the 2024-11-05 HTTP+SSE transport, for uvicorn,
        Starlette, FastAPI or any asyncio ASGI server.

        ``path`` is the MCP endpoint relative to where the app is mounted
        (the part of the request path after the ASGI ``root_path``):
        ``Mount("/mcp", app=server.asgi_app())`` serves ``/mcp/`` (Starlette
        redirects ``/mcp`` there with a 307, which MCP clients follow), and
        ``uvicorn`` running the app alone serves ``/``; pass ``path="/mcp"``
        for ``/mcp``. The 2024-11-05 endpoints are ``sse`` and ``message``
        beside it (``/mcp/sse`` when mounted at ``/mcp``), unless
        ``disable_sse=True``.

        ``http_options`` are those of :meth:`start_http` except ``addr``
        (``max_body_bytes``, ``allowed_hosts``, ``allowed_origin_hosts``,
        ``stream_after_ms``, ...). Async handlers run on the event loop that
        serves the app. Lifespan shutdown (or :meth:`close`) closes the
        native server; the next request opens a new one."""
        from ._asgi import ASGIApp

        return ASGIApp(self, path=path, http_options=http_options)

    def session(self, send: Callable[[bytes], None], **options: Any) -> Session:
        """An in-process connection: feed it JSON-RPC messages with
        ``dispatch``; ``send`` receives every message the server writes, on
        library threads. For embedding and tests."""
        with self._lock:
            live = [n for n in self._natives if not n.closed]
        native = live[0] if live else self.serve()
        return native.session(send, **options)

    def notify_resource_updated(self, uri: str) -> None:
        """Tells subscribed clients that the resource at uri changed."""
        with self._lock:
            natives = [n for n in self._natives if not n.closed]
        for native in natives:
            native.notify("notifications/resources/updated", {"uri": uri})

    def close(self, timeout: float = 5.0) -> None:
        """Stops every transport serving this Server and waits for them to close."""
        with self._lock:
            natives, self._natives = self._natives, []
        for native in natives:
            native.close(timeout)

    def __repr__(self) -> str:
        return f"Server({self.name!r}, version={self.version!r})"


class _terminate_as_interrupt:
    """While serving from the main thread, SIGTERM stops like Ctrl-C (when
    nobody else installed a handler for it)."""

    def __enter__(self) -> None:
        self._saved: Any = None
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            self._saved = signal.signal(signal.SIGTERM, _interrupt)

    def __exit__(self, *exc: object) -> None:
        if self._saved is not None:
            signal.signal(signal.SIGTERM, self._saved)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


class _stdout_to_stderr:
    """Points fd 1 at stderr for the duration and yields a duplicate of the
    real stdout for the protocol; restores fd 1 after. The duplicate is made
    here, before the library starts, so no stray write can race it."""

    def __enter__(self) -> int:
        sys.stdout.flush()
        self._saved = os.dup(1)
        os.dup2(2, 1)
        return self._saved

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush()
        os.dup2(self._saved, 1)
        os.close(self._saved)
