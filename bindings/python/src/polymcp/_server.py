"""``polymcp.Server``: the catalogue a user builds with decorators, and the
entry points that serve it through the native library."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

from ._handlers import CompletionEntry, Kind, PromptEntry, ResourceEntry, ToolEntry
from ._registry import Registry

__all__ = ["Server"]

F = TypeVar("F", bound=Callable[..., Any])

_LIMITS = ("max_concurrency", "max_queue", "request_timeout_ms", "page_size")


class Server:
    """An MCP server. Register handlers with :meth:`tool`, :meth:`resource`,
    :meth:`prompt` and :meth:`completion`, then serve it with :meth:`run`,
    :meth:`start_http` or :meth:`asgi_app`.

    Limits left as None keep the core's defaults: max_concurrency (32 calls
    at once), max_queue (256 waiting), request_timeout_ms (30000) and
    page_size (100 items per list page)."""

    def __init__(self, name: str = "polymcp-server", version: str = "0.0.0", *,
                 instructions: str | None = None, title: str | None = None,
                 max_concurrency: int | None = None, max_queue: int | None = None,
                 request_timeout_ms: int | None = None, page_size: int | None = None) -> None:
        self.name = name
        self.version = version
        self.instructions = instructions
        self.title = title
        self.limits = {k: v for k, v in zip(_LIMITS, (max_concurrency, max_queue,
                                                      request_timeout_ms, page_size))
                       if v is not None}
        self.registry = Registry()

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
             meta: dict[str, Any] | None = None) -> Callable[[F], F]: ...

    def tool(self, name: str | F | None = None, *, title: str | None = None,
             description: str | None = None, annotations: dict[str, Any] | None = None,
             meta: dict[str, Any] | None = None) -> F | Callable[[F], F]:
        """Registers a tool: its name is the function's (or ``name``), its
        description the docstring, its inputSchema inferred from the
        parameters' hints and its outputSchema from the return hint."""
        if callable(name):
            self.add_tool(name)
            return name

        def register(fn: F) -> F:
            self.add_tool(fn, name=name, title=title, description=description,
                          annotations=annotations, meta=meta)
            return fn

        return register

    def add_tool(self, fn: Callable[..., Any], *, name: str | None = None,
                 title: str | None = None, description: str | None = None,
                 annotations: dict[str, Any] | None = None,
                 meta: dict[str, Any] | None = None) -> ToolEntry:
        entry = ToolEntry(fn, name=name, title=title, description=description,
                          annotations=annotations, meta=meta)
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

    def __repr__(self) -> str:
        return f"Server({self.name!r}, version={self.version!r})"
