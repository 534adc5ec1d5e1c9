"""The everything server, written with the public API the way a user would.

Every tool, resource, template and prompt of the conformance runner's
server scenarios, with the same names and texts as polymcp's Go fixture
(examples/everything), plus ``echo`` and ``sleep`` for tests and
benchmarks.

    python -m polymcp.everything                 # stdio
    python -m polymcp.everything --http 127.0.0.1:8000
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import itertools
import json
import sys
from typing import Annotated, Any

import polymcp
from polymcp import Audio, Context, EmbeddedResource, Image, Message, ResourceContents

NAME = "polymcp-everything"
VERSION = "0.1.0"

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
WAV = base64.b64decode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")

#: Progress updates sleep sends when asked.
PROGRESS_STEPS = 10
#: Dynamic tools and prompts kept at most: past it each trigger replaces the oldest.
MAX_DYNAMIC = 16

SCHEMA_2020_12: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
    "$defs": {"address": {"$anchor": "address", "type": "object", "properties": {
        "street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "kind": {"type": "string"},
                   "id": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
    "allOf": [{"required": ["name"]}],
    "if": {"properties": {"kind": {"const": "business"}}, "required": ["kind"]},
    "then": {"required": ["address"]}, "else": {},
    "additionalProperties": False,
}

LOG_LINES = ("Tool execution started", "Tool processing data", "Tool execution completed")


def build() -> polymcp.Server:
    """A fresh everything server."""
    server = polymcp.Server(NAME, version=VERSION, title="polymcp everything")
    _tools(server)
    _notifying_tools(server)
    _catalogue_tools(server)
    _schema_tool(server)
    _resources(server)
    _prompts(server)
    return server


def _tools(server: polymcp.Server) -> None:
    # strict: unknown arguments are refused, as by the Go fixture.
    @server.tool(strict=True)
    def echo(text: Annotated[str, "the text to return"]) -> str:
        """Returns its text argument as one text item"""
        return text

    @server.tool(strict=True)
    async def sleep(ms: Annotated[int, "how long to sleep, in milliseconds"], ctx: Context) -> str:
        """Waits ms milliseconds, reporting progress when asked, then returns "slept\""""
        if ms < 0:
            raise polymcp.ToolError("ms must not be negative")
        total = float(ms)
        for i in range(1, PROGRESS_STEPS + 1):
            await asyncio.sleep(ms / 1000 / PROGRESS_STEPS)
            await ctx.report_progress(total * i / PROGRESS_STEPS, total)
        return "slept"

    @server.tool()
    def test_simple_text() -> str:
        """Tests simple text content response"""
        return "This is a simple text response for testing."

    @server.tool()
    def test_image_content() -> Image:
        """Tests image content response"""
        return Image(PNG, mime_type="image/png")

    @server.tool()
    def test_audio_content() -> Audio:
        """Tests audio content response"""
        return Audio(WAV, mime_type="audio/wav")

    @server.tool()
    def test_embedded_resource() -> EmbeddedResource:
        """Tests embedded resource content response"""
        return EmbeddedResource(ResourceContents(
            "test://embedded-resource", text="This is an embedded resource content.",
            mime_type="text/plain"))

    @server.tool()
    def test_multiple_content_types() -> list[str | Image | EmbeddedResource]:
        """Tests response with multiple content types (text, image, resource)"""
        return ["Multiple content types test:", Image(PNG, mime_type="image/png"),
                EmbeddedResource(ResourceContents(
                    "test://mixed-content-resource", text='{"test":"data","value":123}',
                    mime_type="application/json"))]

    @server.tool()
    def test_error_handling() -> str:
        """Tests error response handling"""
        raise polymcp.ToolError("This tool intentionally returns an error for testing")


async def _steps(send: Any, n: int, done: str) -> str:
    """Sends n notifications 50 ms apart, then returns done."""
    for i in range(n):
        if i:
            await asyncio.sleep(0.05)
        await send(i)
    return done


def _notifying_tools(server: polymcp.Server) -> None:
    def log_step(ctx: Context) -> Any:
        return lambda i: ctx.info(LOG_LINES[i], logger=NAME)

    @server.tool()
    async def test_tool_with_logging(ctx: Context) -> str:
        """Tests tool that emits log messages during execution"""
        return await _steps(log_step(ctx), len(LOG_LINES), "Tool with logging executed successfully")

    @server.tool()
    async def test_logging_tool(ctx: Context) -> str:
        """Sends log messages at the level the request's _meta asks for"""
        return await _steps(log_step(ctx), len(LOG_LINES), "Logging tool completed")

    @server.tool()
    async def test_tool_with_progress(ctx: Context) -> str:
        """Tests tool that reports progress notifications"""
        def step(i: int) -> Any:
            return ctx.report_progress(i * 50, 100, f"Completed step {i * 50} of 100")
        return await _steps(step, 3, "Progress tool completed")

    @server.tool()
    async def test_reconnection() -> str:
        """Tests SSE stream disconnection and client reconnection (SEP-1699)"""
        await asyncio.sleep(0.1)
        return ("Reconnection test completed successfully. If you received this, the client "
                "properly reconnected after stream closure.")


def _catalogue_tools(server: polymcp.Server) -> None:
    tools, prompts = itertools.count(1), itertools.count(1)

    @server.tool()
    def test_trigger_tool_change() -> str:
        """Adds a tool, which sends notifications/tools/list_changed"""
        n = next(tools)
        server.remove_tool(f"test_dynamic_tool_{n - MAX_DYNAMIC}")
        name = f"test_dynamic_tool_{n}"
        server.add_tool(lambda: "dynamic tool " + name, name=name,
                        description="A tool added at run time")
        return "Added tool " + name

    @server.tool()
    def test_trigger_prompt_change() -> str:
        """Adds a prompt, which sends notifications/prompts/list_changed"""
        n = next(prompts)
        server.remove_prompt(f"test_dynamic_prompt_{n - MAX_DYNAMIC}")
        name = f"test_dynamic_prompt_{n}"
        server.prompt(name, description="A prompt added at run time")(
            lambda: "dynamic prompt " + name)
        return "Added prompt " + name


def _schema_tool(server: polymcp.Server) -> None:
    @server.tool(input_schema=SCHEMA_2020_12, description=(
        "Takes input described by a JSON Schema 2020-12 document that must come back unchanged"))
    def json_schema_2020_12_tool(**arguments: Any) -> str:
        return "Received: " + json.dumps(arguments, separators=(",", ":"), ensure_ascii=False)


def _resources(server: polymcp.Server) -> None:
    @server.resource("test://static-text", name="static-text", title="Static Text Resource",
                     description="A static text resource for testing", mime_type="text/plain")
    def static_text() -> str:
        return "This is the content of the static text resource."

    @server.resource("test://static-binary", name="static-binary", title="Static Binary Resource",
                     description="A static binary resource (image) for testing",
                     mime_type="image/png")
    def static_binary() -> bytes:
        return PNG

    @server.resource("test://watched-resource", name="watched-resource", title="Watched Resource",
                     description="A resource clients can subscribe to", mime_type="text/plain")
    def watched() -> str:
        return "Watched resource content"

    @server.resource("test://template/{id}/data", name="template", title="Resource Template",
                     description="A resource template with parameter substitution",
                     mime_type="application/json")
    def template(id: str) -> dict[str, Any]:
        return {"id": id, "templateTest": True, "data": f"Data for ID: {id}"}


def _prompts(server: polymcp.Server) -> None:
    @server.prompt(title="Simple Test Prompt", description="A simple prompt without arguments")
    def test_simple_prompt() -> str:
        return "This is a simple prompt for testing."

    @server.prompt(title="Prompt With Arguments", description="A prompt with required arguments")
    def test_prompt_with_arguments(arg1: Annotated[str, "First test argument"],
                                   arg2: Annotated[str, "Second test argument"]) -> str:
        return f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"

    @server.completion(prompt="test_prompt_with_arguments")
    def complete_arguments(argument: str, value: str) -> list[str]:
        return [v for v in ("paris", "park", "party", "hello", "world") if v.startswith(value)]

    @server.prompt(title="Prompt With Embedded Resource",
                   description="A prompt that includes an embedded resource")
    def test_prompt_with_embedded_resource(
            resourceUri: Annotated[str, "URI of the resource to embed"]) -> list[Message]:
        return [Message(EmbeddedResource(ResourceContents(
                    resourceUri, text="Embedded resource content for testing.",
                    mime_type="text/plain"))),
                Message("Please process the embedded resource above.")]

    @server.prompt(title="Prompt With Image", description="A prompt that includes image content")
    def test_prompt_with_image() -> list[Message]:
        return [Message(Image(PNG, mime_type="image/png")),
                Message("Please analyze the image above.")]




def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m polymcp.everything",
                                     description="Serve polymcp's everything example.")
    parser.add_argument("--http", metavar="HOST:PORT",
                        help="serve Streamable HTTP on HOST:PORT instead of stdio")
    args = parser.parse_args(argv)
    server = build()
    if args.http is None:
        server.run()
        return 0
    host, sep, port = args.http.rpartition(":")
    if not sep or not port.isdigit():
        parser.error(f"--http wants HOST:PORT, got {args.http!r}")
    try:
        server.run(transport="http", host=host or "127.0.0.1", port=int(port))
    except polymcp.NativeError as err:
        print(err, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
