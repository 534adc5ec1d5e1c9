"""Registered handlers: each entry knows its wire definition and how to
answer one call.

``Entry.run`` returns the result as a dict, or — for ``async def``
handlers — a coroutine producing it, so the serving layer can run sync
handlers inline on the calling thread and only async ones on the loop.
Tool failures become ``isError`` results here; every other failure
propagates (McpError with its code, anything else as an internal error).
"""

from __future__ import annotations

import enum
import inspect
import re
from collections.abc import Callable, Coroutine, Generator
from typing import Any, ClassVar, Literal, Union

from ._context import Context
from ._convert import (
    completion_result,
    output_plan,
    prompt_result,
    resource_result,
    tool_error_result,
)
from ._errors import INVALID_PARAMS, McpError, error_message
from ._signature import Signature, text_converter

__all__ = [
    "CompletionEntry",
    "Entry",
    "Kind",
    "Outcome",
    "PromptEntry",
    "ResourceEntry",
    "TaskStart",
    "TaskSupport",
    "ToolEntry",
    "is_async",
    "template_variables",
]

Outcome = Union[dict[str, Any], Coroutine[Any, Any, dict[str, Any]]]
Handler = Callable[..., Any]

#: Whether a tool's calls may become tasks (the 2026-07-28 tasks extension):
#: "optional" when the request declares the extension, "required" always
#: (a 2026-07-28 request without it gets -32021).
TaskSupport = Literal["optional", "required"]
#: When such a call becomes a task: before the handler runs ("call"), or
#: when the handler calls ``Context.start_task()`` ("handler").
TaskStart = Literal["call", "handler"]


class Kind(enum.IntEnum):
    """What a call asks for (the kind argument of the native on_call)."""

    TOOL = 1
    RESOURCE = 2
    PROMPT = 3
    COMPLETE = 4


def _invoke(fn: Handler, is_async: bool, kwargs: dict[str, Any],
            finish: Callable[[Any], dict[str, Any]],
            contain: Callable[[Exception], dict[str, Any]] | None) -> Outcome:
    """Calls fn; a coroutine (or other awaitable) result is awaited in a
    coroutine returned to the caller. ``contain`` turns an exception into a
    result; McpError always propagates. An ``async def`` fn is only called
    inside the returned coroutine, so closing that coroutine unstarted (a
    call cancelled before it ran) leaves no coroutine un-awaited."""
    if is_async:
        return _finish_async(_Later(fn, kwargs), finish, contain)
    try:
        value = fn(**kwargs)
        if inspect.isawaitable(value):
            return _finish_async(value, finish, contain)
        return finish(value)
    except McpError:
        raise
    except Exception as err:
        if contain is None:
            raise
        return contain(err)


class _Later:
    """Calls an async function when first awaited."""

    __slots__ = ("fn", "kwargs")

    def __init__(self, fn: Handler, kwargs: dict[str, Any]) -> None:
        self.fn = fn
        self.kwargs = kwargs

    def __await__(self) -> Generator[Any, None, Any]:
        return self.fn(**self.kwargs).__await__()  # type: ignore[no-any-return]


def is_async(fn: Handler) -> bool:
    """Whether calling fn returns a coroutine (async def, or an object whose
    __call__ is async def)."""
    return inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(
        getattr(fn, "__call__", None))


async def _finish_async(awaitable: Any, finish: Callable[[Any], dict[str, Any]],
                        contain: Callable[[Exception], dict[str, Any]] | None) -> dict[str, Any]:
    try:
        return finish(await awaitable)
    except McpError:
        raise
    except Exception as err:
        if contain is None:
            raise
        return contain(err)


def _contain_tool_error(err: Exception) -> dict[str, Any]:
    return tool_error_result(error_message(err))


def _omit_empty(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and v != ""}


def _doc(fn: Handler, description: str | None) -> str | None:
    return description if description is not None else inspect.getdoc(fn)


class Entry:
    """One registered handler; ``tag`` is its id in the native catalogue."""

    kind: ClassVar[Kind]
    tag: int = 0
    is_async: bool = False
    key: str = ""  # name or URI: what replaces an earlier entry of the same kind

    def definition(self) -> dict[str, Any]:
        raise NotImplementedError

    def run(self, params: dict[str, Any], ctx: Context) -> Outcome:
        raise NotImplementedError


class ToolEntry(Entry):
    kind = Kind.TOOL

    def __init__(self, fn: Handler, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, annotations: dict[str, Any] | None = None,
                 meta: dict[str, Any] | None = None,
                 input_schema: dict[str, Any] | None = None, strict: bool = False,
                 task: TaskSupport | None = None, task_start: TaskStart = "call") -> None:
        self.fn = fn
        self.is_async = is_async(fn)
        self.key = name or fn.__name__
        #: The task_json of polymcp_server_add_task_tool, or None: an ordinary tool.
        self.task = _task_settings(self.key, task, task_start)
        self.signature = Signature(fn)
        self.plan = output_plan(self.signature.returns, self.signature.has_return)
        schema = input_schema or self.signature.input_schema()
        if strict:
            if input_schema is not None or self.signature.extra:
                raise TypeError(f"tool {self.key!r}: strict=True takes neither input_schema "
                                "nor **kwargs (they decide the arguments themselves)")
            schema = {**schema, "additionalProperties": False}
        self._def = _omit_empty({
            "name": self.key, "title": title, "description": _doc(fn, description),
            "inputSchema": schema,
            "outputSchema": self.plan.schema,
            "annotations": annotations or None, "_meta": meta or None,
        })

    def definition(self) -> dict[str, Any]:
        return self._def

    def run(self, params: dict[str, Any], ctx: Context) -> Outcome:
        args = params.get("arguments") or {}
        if not isinstance(args, dict):
            return tool_error_result("invalid arguments: expected an object")
        try:
            kwargs = self.signature.bind(args, ctx)
        except (TypeError, ValueError) as err:
            return tool_error_result(f"invalid arguments: {err}")
        return _invoke(self.fn, self.is_async, kwargs, self.plan.result, _contain_tool_error)


def _task_settings(name: str, task: Any, start: Any) -> dict[str, str] | None:
    if task is None:
        if start != "call":
            raise TypeError(f"tool {name!r}: task_start={start!r} needs task='optional' "
                            "or task='required'")
        return None
    if task not in ("optional", "required"):
        raise ValueError(f"tool {name!r}: task must be 'optional', 'required' or None, "
                         f"not {task!r}")
    if start not in ("call", "handler"):
        raise ValueError(f"tool {name!r}: task_start must be 'call' or 'handler', not {start!r}")
    return {"support": task, "start": start}


_VARIABLE = re.compile(r"\{[+#./;?&]?([^}]*)\}")


def template_variables(template: str) -> list[str]:
    """The variable names of an RFC 6570 template, in order."""
    names: list[str] = []
    for group in _VARIABLE.findall(template):
        for spec in group.split(","):
            name = spec.split(":", 1)[0].rstrip("*").strip()
            if name and name not in names:
                names.append(name)
    return names


class ResourceEntry(Entry):
    """A resource (fixed URI) or a resource template (URI with ``{vars}``)."""

    kind = Kind.RESOURCE

    def __init__(self, fn: Handler, uri: str, *, name: str | None = None,
                 title: str | None = None, description: str | None = None,
                 mime_type: str | None = None, meta: dict[str, Any] | None = None) -> None:
        self.fn = fn
        self.is_async = is_async(fn)
        self.key = uri
        self.mime_type = mime_type
        self.variables = template_variables(uri)
        self.is_template = bool(self.variables)
        self.signature = Signature(fn, text_converter)
        self._check_params(uri)
        self._def = _omit_empty({
            "uriTemplate" if self.is_template else "uri": uri, "name": name or fn.__name__,
            "title": title, "description": _doc(fn, description), "mimeType": mime_type,
            "_meta": meta or None,
        })

    def _check_params(self, uri: str) -> None:
        declared = {p.name for p in self.signature.params}
        unknown = declared - set(self.variables)
        if unknown:
            raise TypeError(f"resource {uri!r}: parameter {sorted(unknown)[0]!r} is not a "
                            f"variable of the URI template")
        missing = [v for v in self.variables if v not in declared and not self.signature.extra]
        if missing:
            raise TypeError(f"resource {uri!r}: variable {missing[0]!r} has no parameter")

    def definition(self) -> dict[str, Any]:
        return self._def

    def run(self, params: dict[str, Any], ctx: Context) -> Outcome:
        uri = str(params.get("uri", ""))
        variables = params.get("variables") or {}
        try:
            kwargs = self.signature.bind(variables, ctx)
        except (TypeError, ValueError) as err:
            raise McpError(INVALID_PARAMS, f"resource {uri!r}: {err}") from None
        return _invoke(self.fn, self.is_async, kwargs,
                       lambda v: resource_result(v, uri, self.mime_type), None)


class PromptEntry(Entry):
    kind = Kind.PROMPT

    def __init__(self, fn: Handler, *, name: str | None = None, title: str | None = None,
                 description: str | None = None, meta: dict[str, Any] | None = None) -> None:
        self.fn = fn
        self.is_async = is_async(fn)
        self.key = name or fn.__name__
        self.signature = Signature(fn, text_converter)
        arguments = [_omit_empty({"name": p.name, "description": p.description,
                                  "required": True if p.required else None})
                     for p in self.signature.params]
        self._def = _omit_empty({
            "name": self.key, "title": title, "description": _doc(fn, description),
            "arguments": arguments or None, "_meta": meta or None,
        })

    def definition(self) -> dict[str, Any]:
        return self._def

    def run(self, params: dict[str, Any], ctx: Context) -> Outcome:
        args = params.get("arguments") or {}
        try:
            kwargs = self.signature.bind(args if isinstance(args, dict) else {}, ctx)
        except (TypeError, ValueError) as err:
            raise McpError(INVALID_PARAMS, f"prompt {self.key!r}: {err}") from None
        return _invoke(self.fn, self.is_async, kwargs, prompt_result, None)


class CompletionEntry(Entry):
    """Completes the arguments of one prompt or resource template. The
    handler is called as ``fn(argument, value)``, or with a third parameter
    receiving the other arguments already given (a dict), plus a Context if
    it declares one."""

    kind = Kind.COMPLETE

    def __init__(self, fn: Handler, ref: dict[str, str]) -> None:
        self.fn = fn
        self.is_async = is_async(fn)
        self.ref = ref
        self.key = ref.get("name") or ref.get("uri", "")
        self.signature = Signature(fn)
        self.names = [p.name for p in self.signature.params]
        if not 2 <= len(self.names) <= 3:
            raise TypeError(f"completion handler {fn.__qualname__} takes (argument, value) or "
                            f"(argument, value, arguments), plus an optional Context")

    def definition(self) -> dict[str, Any]:
        return {"ref": self.ref}

    def run(self, params: dict[str, Any], ctx: Context) -> Outcome:
        argument = params.get("argument") or {}
        context = params.get("context") or {}
        values = [str(argument.get("name", "")), str(argument.get("value", "")),
                  dict(context.get("arguments") or {})]
        kwargs: dict[str, Any] = dict(zip(self.names, values))
        if self.signature.context is not None:
            kwargs[self.signature.context] = ctx
        return _invoke(self.fn, self.is_async, kwargs, completion_result, None)
