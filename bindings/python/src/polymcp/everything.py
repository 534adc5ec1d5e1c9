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
import math
import sys
from decimal import Decimal
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
    "$defs": {"address": {"$anchor": "addressDef", "type": "object", "properties": {
        "street": {"type": "string"}, "city": {"type": "string"}}}},
    "properties": {"name": {"type": "string"}, "address": {"$ref": "#/$defs/address"},
                   "contactMethod": {"type": "string", "enum": ["phone", "email"]},
                   "phone": {"type": "string"}, "email": {"type": "string"}},
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]}, "else": {"required": ["email"]},
    "additionalProperties": False,
}

# The region argument also travels as the Mcp-Param-Region header; the HTTP
# transport refuses a request whose header and body disagree (-32020).
CUSTOM_HEADER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"region": {"type": "string", "description": "a region name",
                              "x-mcp-header": "Region"}},
    "required": ["region"],
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
    _interactive(server)  # as in the Go fixture: the older catalogue keeps its order
    _task_tools(server)  # last, as in the Go fixture
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

    @server.tool(input_schema=CUSTOM_HEADER_SCHEMA, description=(
        "Returns its region argument, which HTTP clients also send as the Mcp-Param-Region header"
        " (x-mcp-header)"))
    def test_custom_header(region: str) -> str:
        return "Region: " + region


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

# ---- the interactive tools: they ask the client for input -------------------
#
# The same handler serves every revision: up to 2025-11-25 the questions are
# server-to-client requests during the call; on 2026-07-28 the call ends as
# input_required and the handler runs again on the client's retry, which
# carries the answers.

ASK_NAME = "What is your name?"
ASK_COLOR = "What is your favorite color?"
ASK_CONFIRM = "Please confirm to continue"
ASK_CONTEXT = "What context should the prompt use?"
CAPITAL_QUESTION = "What is the capital of France?"
GREETING_REQUEST = "Generate a greeting"
#: What the request-state tools keep between rounds; seeing it again proves
#: the state came back.
CONFIRM_STATE = "awaiting-confirmation"

ELICITATION_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {
        "username": {"type": "string", "description": "User's response"},
        "email": {"type": "string", "description": "User's email address"}},
    "required": ["username", "email"]}

DEFAULTS_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "name": {"type": "string", "description": "User name", "default": "John Doe"},
    "age": {"type": "integer", "description": "User age", "default": 30},
    "score": {"type": "number", "description": "User score", "default": 95.5},
    "status": {"type": "string", "description": "User status",
               "enum": ["active", "inactive", "pending"], "default": "active"},
    "verified": {"type": "boolean", "description": "Verification status", "default": True}},
    "required": []}

ENUMS_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "untitledSingle": {"type": "string", "description": "Select one option",
                       "enum": ["option1", "option2", "option3"]},
    "titledSingle": {"type": "string", "description": "Select one option with titles", "oneOf": [
        {"const": "value1", "title": "First Option"}, {"const": "value2", "title": "Second Option"},
        {"const": "value3", "title": "Third Option"}]},
    "legacyEnum": {"type": "string", "description": "Select one option (legacy)",
                   "enum": ["opt1", "opt2", "opt3"],
                   "enumNames": ["Option One", "Option Two", "Option Three"]},
    "untitledMulti": {"type": "array", "description": "Select multiple options", "minItems": 1,
                      "maxItems": 3, "items": {"type": "string", "enum": ["option1", "option2", "option3"]}},
    "titledMulti": {"type": "array", "description": "Select multiple options with titles",
                    "minItems": 1, "maxItems": 3, "items": {"anyOf": [
                        {"const": "value1", "title": "First Choice"},
                        {"const": "value2", "title": "Second Choice"},
                        {"const": "value3", "title": "Third Choice"}]}}},
    "required": []}


def string_form(prop: str) -> dict[str, Any]:
    """An elicitation schema of one required string property."""
    return {"type": "object", "properties": {prop: {"type": "string"}}, "required": [prop]}


def user_text(text: str) -> list[dict[str, Any]]:
    """Sampling messages: one user message of text."""
    return [{"role": "user", "content": {"type": "text", "text": text}}]


def sampled_text(result: dict[str, Any]) -> str:
    """The text of a sampling answer (one content item, or the text items of several)."""
    content = result.get("content")
    if isinstance(content, dict):
        text = content.get("text")
        return text if isinstance(text, str) else ""
    if isinstance(content, list):
        return "".join(c["text"] for c in content if isinstance(c, dict)
                       and c.get("type") == "text" and isinstance(c.get("text"), str))
    return ""


def _digits(value: float) -> tuple[str, str, int]:
    """The sign, shortest decimal digits and decimal exponent of value (not 0)."""
    sign, digits, exp = Decimal(repr(value)).as_tuple()
    assert isinstance(exp, int)
    text = "".join(map(str, digits))
    stripped = text.rstrip("0")
    return "-" if sign else "", stripped, len(text) + exp - 1


def _scientific(sign: str, digits: str, exp10: int) -> str:
    mantissa = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{sign}{mantissa}e{'-' if exp10 < 0 else '+'}{abs(exp10):02d}"


def _fixed(sign: str, digits: str, exp10: int) -> str:
    if exp10 < 0:
        return f"{sign}0.{'0' * (-exp10 - 1)}{digits}"
    whole, frac = digits[:exp10 + 1].ljust(exp10 + 1, "0"), digits[exp10 + 1:]
    return f"{sign}{whole}{'.' + frac if frac else ''}"


def go_number(value: float) -> str:
    """A number as Go's fmt prints a float64 (%v): shortest digits, with an
    exponent below 1e-4 and from 1e6 on."""
    f = float(value)
    if f != f or f in (float("inf"), float("-inf")):
        return "NaN" if f != f else ("+Inf" if f > 0 else "-Inf")
    if f == 0:
        return "0"
    sign, digits, exp10 = _digits(f)
    return (_scientific if exp10 < -4 or exp10 >= 6 else _fixed)(sign, digits, exp10)


def _go_json_number(value: float) -> str:
    """A number as Go's encoding/json writes a float64: an exponent below
    1e-6 and from 1e21 on (e-7, not e-07)."""
    f = float(value)
    if f == 0:
        return "0"
    sign, digits, exp10 = _digits(f)
    if exp10 < -6 or exp10 >= 21:
        return _scientific(sign, digits, exp10).replace("e-0", "e-")
    return _fixed(sign, digits, exp10)


def go_sprint(value: Any) -> str:
    """A decoded JSON value as Go's fmt.Sprint shows it."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if isinstance(value, (int, float)):
        return go_number(value)
    if isinstance(value, list):
        return "[" + " ".join(go_sprint(v) for v in value) + "]"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_sprint(value[k])}" for k in sorted(value)) + "]"
    return str(value)


def go_json(value: Any) -> str:
    """A decoded JSON value as Go's encoding/json writes it: keys sorted,
    numbers as float64, <, > and & escaped."""
    if isinstance(value, dict):
        return "{" + ",".join(f"{go_json(str(k))}:{go_json(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, list):
        return "[" + ",".join(go_json(v) for v in value) + "]"
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return _go_json_number(value)
    text = json.dumps(str(value), ensure_ascii=False)
    for char, escaped in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"),
                          ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        text = text.replace(char, escaped)
    return text


def field(result: dict[str, Any], name: str) -> str:
    """An accepted elicitation's property as text; "(decline)" and the like otherwise."""
    action = result.get("action")
    if action != "accept":
        return f"({'' if action is None else action})"  # a missing action reads as Go's ""
    content = result.get("content") or {}
    return go_sprint(content[name]) if name in content else ""


def outcome(result: dict[str, Any]) -> str:
    """An elicitation's action and content."""
    content = result.get("content")
    return f"action={result.get('action')}, content={go_json(content) if content is not None else '{}'}"


def root_list(roots: list[dict[str, Any]]) -> str:
    if not roots:
        return "(none)"
    return ", ".join(str(r.get("uri", "")) + (f" ({r['name']})" if r.get("name") else "")
                     for r in roots)


def _interactive(server: polymcp.Server) -> None:
    _legacy_interactive(server)
    _input_required_tools(server)
    _diagnostic_input_tools(server)

    @server.prompt(title="Prompt Asking For Input",
                   description="A prompt that asks the user for context before it renders")
    async def test_input_required_result_prompt(ctx: Context) -> str:
        answer = await ctx.elicit(ASK_CONTEXT, string_form("context"), key="user_context")
        return "Use this context: " + field(answer, "context")


def _legacy_interactive(server: polymcp.Server) -> None:
    @server.tool(strict=True)
    async def test_sampling(prompt: Annotated[str, "the prompt to send to the client's model"],
                            ctx: Context) -> str:
        """Tests server-initiated sampling (LLM completion request)"""
        answer = await ctx.sample(user_text(prompt), 100, key="sampling")
        return "LLM response: " + sampled_text(answer)

    @server.tool(strict=True)
    async def test_elicitation(message: Annotated[str, "the message to show the user"],
                               ctx: Context) -> str:
        """Tests server-initiated elicitation (user input request)"""
        answer = await ctx.elicit(message, ELICITATION_SCHEMA, key="elicitation")
        return "User response: " + outcome(answer)

    @server.tool()
    async def test_elicitation_sep1034_defaults(ctx: Context) -> str:
        """Tests elicitation with default values per SEP-1034"""
        answer = await ctx.elicit("Please review and update the form fields with defaults",
                                  DEFAULTS_SCHEMA, key="defaults")
        return "Elicitation completed: " + outcome(answer)

    @server.tool()
    async def test_elicitation_sep1330_enums(ctx: Context) -> str:
        """Tests elicitation with enum schema improvements per SEP-1330"""
        answer = await ctx.elicit("Please select options from the enum fields", ENUMS_SCHEMA,
                                  key="enums")
        return "Elicitation completed: " + outcome(answer)


async def _confirm(ctx: Context) -> str:
    """The request-state tools: keep a state, ask for a confirmation, and
    say whether the state came back."""
    kept = ctx.input_state
    ctx.set_input_state(CONFIRM_STATE)
    answer = await ctx.elicit(ASK_CONFIRM, {"type": "object", "properties": {"ok": {"type": "boolean"}},
                                            "required": ["ok"]}, key="confirm")
    # On 2026-07-28 this is the retry: the state must have come back in
    # requestState. Earlier revisions answer within one run.
    ok = kept == CONFIRM_STATE.encode() or (
        ctx.revision < "2026-07-28" and ctx.input_state == CONFIRM_STATE.encode())
    return f"{'state-ok' if ok else 'state-missing'}: confirmed={field(answer, 'ok')}"


def _input_required_tools(server: polymcp.Server) -> None:
    @server.tool()
    async def test_input_required_result_elicitation(ctx: Context) -> str:
        """Asks for the user's name (elicitation), then greets them"""
        answer = await ctx.elicit(ASK_NAME, string_form("name"), key="user_name")
        return f"Hello, {field(answer, 'name')}!"

    @server.tool()
    async def test_input_required_result_sampling(ctx: Context) -> str:
        """Asks the client's model a question (sampling), then returns its answer"""
        answer = await ctx.sample(user_text(CAPITAL_QUESTION), 100, key="capital_question")
        return "Sampled answer: " + sampled_text(answer)

    @server.tool()
    async def test_input_required_result_list_roots(ctx: Context) -> str:
        """Asks the client for its roots, then lists them"""
        return "Client roots: " + root_list(await ctx.roots(key="client_roots"))

    server.add_tool(_confirm, name="test_input_required_result_request_state",
                    description="Asks for a confirmation and keeps state between the rounds (requestState)")
    server.add_tool(_confirm, name="test_input_required_result_tampered_state",
                    description="Like the request-state tool; a requestState changed by the client is refused")

    @server.tool()
    async def test_input_required_result_multiple_inputs(ctx: Context) -> str:
        """Asks for a name, a greeting and the roots in one round"""
        got = await ctx.ask({
            "user_name": ("elicitation/create", {"message": ASK_NAME, "requestedSchema": string_form("name")}),
            "greeting": ("sampling/createMessage", {"messages": user_text(GREETING_REQUEST), "maxTokens": 50}),
            "client_roots": ("roots/list", {}),
        })
        roots = got["client_roots"].get("roots")
        return (f"Name: {field(got['user_name'], 'name')}; greeting: {sampled_text(got['greeting'])}; "
                f"roots: {root_list(roots if isinstance(roots, list) else [])}")

    @server.tool()
    async def test_input_required_result_multi_round(ctx: Context) -> str:
        """Asks for a name, then for a favorite color, over two rounds"""
        name = await ctx.elicit(ASK_NAME, string_form("name"), key="user_name")
        color = await ctx.elicit(ASK_COLOR, string_form("color"), key="favorite_color")
        return f"{field(name, 'name')} likes {field(color, 'color')}"

    @server.tool()
    async def test_input_required_result_capabilities(ctx: Context) -> str:
        """Asks only for the input kinds the client declared (elicitation, sampling, roots)"""
        want: dict[str, tuple[str, dict[str, Any]]] = {}
        if ctx.declared("elicitation/create"):
            want["user_name"] = ("elicitation/create",
                                 {"message": ASK_NAME, "requestedSchema": string_form("name")})
        if ctx.declared("sampling/createMessage"):
            want["capital_question"] = ("sampling/createMessage",
                                        {"messages": user_text(CAPITAL_QUESTION), "maxTokens": 100})
        if ctx.declared("roots/list"):
            want["client_roots"] = ("roots/list", {})
        if not want:
            return "The client declared no input capability"
        got = await ctx.ask(want)
        return "Received input for: " + ", ".join(sorted(got))


def _diagnostic_input_tools(server: polymcp.Server) -> None:
    @server.tool()
    async def test_missing_capability(ctx: Context) -> str:
        """Needs sampling: a client that did not declare it gets -32021 (2026-07-28) or an error result"""
        answer = await ctx.sample(user_text("Say hello"), 20, key="sampling")
        return "LLM response: " + sampled_text(answer)

    @server.tool()
    async def test_streaming_elicitation(ctx: Context) -> str:
        """Logs a message, then asks for the user's name; the answer stream never carries a request"""
        ctx.info("asking for the user's name", logger=NAME)
        answer = await ctx.elicit(ASK_NAME, string_form("name"), key="user_name")
        return f"Hello, {field(answer, 'name')}!"


# ---- the tasks extension (2026-07-28, io.modelcontextprotocol/tasks) -------
#
# A call whose request declares the extension is answered with a task
# handle, and the client polls tasks/get for the outcome. Everywhere else
# (older revisions, requests without the extension) the same handlers run
# as ordinary calls. examples/everything/tasks.go is the reference.

#: slow_compute's inputSchema, as the Go fixture derives it from its struct
#: (a default for label would show in a schema inferred from the signature).
COMPUTE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "seconds": {"type": "number", "description": "how long to work, in seconds (0: at once)"},
        "label": {"type": "string", "description": "a name for the job, echoed in the result"}},
    "required": ["seconds"],
    "additionalProperties": False,
}
CONFIRM_DELETE_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}


def panic_error() -> polymcp.McpError:
    """What the Go core answers for a handler that panics; protocol_error_job
    raises it, so that its task fails the same way (JSON-RPC -32603 with
    data.reason "panic": status "failed" in tasks/get, not an isError result)."""
    return polymcp.McpError(-32603, "internal error: the handler failed", {"reason": "panic"})


def go_fixed(value: float) -> str:
    """A number as Go's strconv.FormatFloat(value, 'f', -1, 64) writes it:
    the shortest digits that read back the same, never an exponent."""
    f = float(value)
    if f == 0:
        return "-0" if math.copysign(1.0, f) < 0 else "0"
    return _fixed(*_digits(f))


def _task_tools(server: polymcp.Server) -> None:
    @server.tool(strict=True)
    def greet(name: Annotated[str, "who to greet"]) -> str:
        """Greets by name at once (never a task)"""
        return f"Hello, {name}!"

    @server.tool(input_schema=COMPUTE_SCHEMA, task="optional")
    async def slow_compute(seconds: float, label: str = "") -> str:
        """Works for the given seconds, as a task when the client takes tasks"""
        if not 0 <= seconds <= 3600:
            raise polymcp.ToolError("seconds must be between 0 and 3600")
        await asyncio.sleep(seconds)  # tasks/cancel cancels it here
        return f"Computed {label or 'job'} in {go_fixed(seconds)}s"

    @server.tool(task="required")
    async def failing_job() -> str:
        """A task that ends, after about a second, with a tool error"""
        await asyncio.sleep(1)
        raise polymcp.ToolError("failing_job failed, as it always does")

    @server.tool(task="optional")
    def protocol_error_job() -> str:
        """A task whose handler panics: it fails with a JSON-RPC error"""
        raise panic_error()

    @server.tool(strict=True, task="optional")
    async def confirm_delete(
            filename: Annotated[str, "the file to delete once the user confirms"],
            ctx: Context) -> str:
        """Asks the user to confirm (elicitation), then deletes the file"""
        answer = await ctx.elicit(f"Delete {filename}?", CONFIRM_DELETE_SCHEMA, key="confirm")
        content = answer.get("content")
        if answer["action"] == "accept" and isinstance(content, dict) and content.get("confirm") is True:
            return f"Deleted {filename}"
        return f"Kept {filename}"

    @server.tool(task="optional")
    async def multi_input(ctx: Context) -> str:
        """Asks two questions at once (elicitation), then joins the answers"""
        got = await ctx.ask({
            "first": ("elicitation/create", {"message": "What should the first item be called?",
                                             "requestedSchema": string_form("name")}),
            "second": ("elicitation/create", {"message": "What should the second item be called?",
                                              "requestedSchema": string_form("name")}),
        })
        return f"Got {field(got['first'], 'name')} and {field(got['second'], 'name')}"

    @server.tool(task="required", task_start="handler")
    async def test_tool_with_task(ctx: Context) -> str:
        """Asks the user's name first, then goes on as a task that greets them"""
        # The question is settled first (input_required on 2026-07-28), as
        # the extension asks; only then does the call become a task.
        answer = await ctx.elicit(ASK_NAME, string_form("name"), key="user_name")
        ctx.start_task()  # False (an older revision, task limits reached): an ordinary call
        await asyncio.sleep(0.2)
        return f"Hello, {field(answer, 'name')}! (greeted by a task)"


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
