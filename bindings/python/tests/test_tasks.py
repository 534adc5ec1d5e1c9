"""The 2026-07-28 tasks extension (io.modelcontextprotocol/tasks): tools
registered with ``task=``, ``Context.start_task``, tasks/get, tasks/update
and tasks/cancel, through the core, with literal JSON on the wire
(host-owned sessions in this process, the everything fixture over stdio,
and HTTP)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

import polymcp
from polymcp import _native, everything

from .httpwire import SERVER_INFO, modern_headers, request
from .test_stdio import Child
from .wire import INIT, INITIALIZED, WAIT, Peer, until_cancelled

MODERN = "2026-07-28"
TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = ("completed", "failed", "cancelled")


class AnyTaskId:
    """Equal to any non-empty string: a task id the core made up."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and other != ""

    def __repr__(self) -> str:
        return "<task id>"


class Timestamp:
    """Equal to an ISO-8601 date-time string."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", other) is not None

    def __repr__(self) -> str:
        return "<timestamp>"


def meta(caps: dict[str, Any] | None = None, tasks: bool = True) -> dict[str, Any]:
    """A 2026-07-28 request's _meta; tasks declares the extension."""
    capabilities = dict(caps or {})
    if tasks:
        capabilities["extensions"] = {TASKS: {}}
    return {"io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": capabilities}


def tools_call(id: Any, name: str, arguments: dict[str, Any] | None = None,
               caps: dict[str, Any] | None = None, tasks: bool = True,
               meta_extra: dict[str, Any] | None = None, **extra: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": name, "arguments": arguments or {}, "_meta": {**meta(caps, tasks), **(meta_extra or {})},
        **extra}}).encode()


def tasks_request(id: Any, method: str, task_id: str, caps: dict[str, Any] | None = None,
                  **extra: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": method, "params": {
        "taskId": task_id, **extra, "_meta": meta(caps)}}).encode()


def info(name: str) -> dict[str, Any]:
    """The _meta every 2026-07-28 result of server ``name`` carries."""
    return {"io.modelcontextprotocol/serverInfo": {"name": name, "version": "0.0.0"}}


def handle(name: str, ttl_ms: int = 3600000, poll_ms: int = 1000) -> dict[str, Any]:
    """The CreateTaskResult of a new task (status working)."""
    return {"resultType": "task", "_meta": info(name), "taskId": AnyTaskId(), "status": "working",
            "createdAt": Timestamp(), "lastUpdatedAt": Timestamp(), "ttlMs": ttl_ms,
            "pollIntervalMs": poll_ms}


class Client:
    """A host-owned session with the JSON-RPC plumbing the tests share."""

    def __init__(self, server: polymcp.Server) -> None:
        self.peer = Peer()
        self.session = server.session(self.peer.receive)
        self.session.dispatch(INIT)
        self.peer.answer("init")
        self.session.dispatch(INITIALIZED)
        self._ids = iter(range(1000, 1 << 30))

    def send(self, message: bytes) -> None:
        self.session.dispatch(message)

    def answer(self, id: Any) -> dict[str, Any]:
        return self.peer.answer(id)

    def result(self, id: Any) -> Any:
        answer = self.peer.answer(id)
        assert "result" in answer, answer
        return answer["result"]

    def tasks(self, method: str, task_id: str, caps: dict[str, Any] | None = None,
              **extra: Any) -> dict[str, Any]:
        id = next(self._ids)
        self.send(tasks_request(id, method, task_id, caps, **extra))
        return self.answer(id)

    def wait_status(self, task_id: str, *statuses: str, caps: dict[str, Any] | None = None) -> Any:
        """Polls tasks/get until the task has one of statuses (default: a terminal one)."""
        wanted = statuses or TERMINAL
        deadline = time.monotonic() + WAIT
        while True:
            got = self.tasks("tasks/get", task_id, caps)["result"]
            if got["status"] in wanted or time.monotonic() > deadline:
                return got
            time.sleep(0.02)


@pytest.fixture(scope="module")
def lib() -> _native.Library:
    return _native.load_library()


# ---- registration ----------------------------------------------------------

def test_task_settings_are_kept_and_checked() -> None:
    server = polymcp.Server("t")

    @server.tool()
    def plain() -> str:
        return ""

    @server.tool(task="optional")
    async def optional() -> str:
        return ""

    @server.tool(task="required", task_start="handler")
    async def required(ctx: polymcp.Context) -> str:
        return ""

    tasks = {e.key: e.task for e in server.registry.entries.values()}  # type: ignore[attr-defined]
    assert tasks == {"plain": None, "optional": {"support": "optional", "start": "call"},
                     "required": {"support": "required", "start": "handler"}}
    with pytest.raises(ValueError, match="task must be 'optional', 'required' or None"):
        server.tool(task="always")(lambda: "")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="task_start must be 'call' or 'handler'"):
        server.tool(task="optional", task_start="later")(lambda: "")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="task_start='handler' needs task="):
        server.tool(task_start="handler")(lambda: "")


def test_task_tools_are_listed_and_the_extension_is_advertised(lib: _native.Library) -> None:
    server = polymcp.Server("tasks")

    @server.tool()
    def plain() -> str:
        return ""

    try:
        client = Client(server)
        client.send(b'{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":'
                    b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                    b'"io.modelcontextprotocol/clientCapabilities":{}}}}')
        assert "extensions" not in client.result(1)["capabilities"]

        @server.tool(task="optional", description="Works as a task")
        async def work(seconds: float) -> str:
            return ""

        client.peer.wait_for(lambda p: "notifications/tools/list_changed" in p.methods())
        client.send(b'{"jsonrpc":"2.0","id":2,"method":"server/discover","params":{"_meta":'
                    b'{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                    b'"io.modelcontextprotocol/clientCapabilities":{}}}}')
        assert client.result(2)["capabilities"]["extensions"] == {TASKS: {}}
        client.send(b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}')
        assert client.answer(3) == {"jsonrpc": "2.0", "id": 3, "result": {"tools": [
            {"name": "plain", "inputSchema": {"type": "object", "properties": {}}},
            {"name": "work", "description": "Works as a task", "inputSchema": {
                "type": "object", "properties": {"seconds": {"type": "number"}},
                "required": ["seconds"]}}]}}
    finally:
        server.close()


def test_task_options_reach_the_core(lib: _native.Library) -> None:
    server = polymcp.Server("tasks", task_ttl_ms=60000, max_tasks=10, max_running_tasks=5,
                            task_poll_interval_ms=250)
    assert server.options() == {"name": "tasks", "version": "0.0.0", "task_ttl_ms": 60000,
                                "max_tasks": 10, "max_running_tasks": 5,
                                "task_poll_interval_ms": 250}

    @server.tool(task="optional")
    async def quick() -> str:
        return "done"

    try:
        client = Client(server)
        client.send(tools_call(1, "quick"))
        assert client.result(1) == handle("tasks", ttl_ms=60000, poll_ms=250)
    finally:
        server.close()
    with pytest.raises(polymcp.NativeError, match="must not be negative"):
        polymcp.Server("bad", task_ttl_ms=-1).serve()


# ---- task lifecycle --------------------------------------------------------

def test_a_task_tool_answers_a_task_and_tasks_get_inlines_the_result(lib: _native.Library) -> None:
    server = polymcp.Server("tasks")
    release = threading.Event()

    @server.tool(task="optional")
    async def compute(n: int) -> str:
        await asyncio.to_thread(release.wait, WAIT)
        return f"n={n}"

    try:
        client = Client(server)
        client.send(tools_call(1, "compute", {"n": 7}))
        created = client.result(1)
        assert created == handle("tasks")
        task_id = created["taskId"]
        working = client.tasks("tasks/get", task_id)
        assert working == {"jsonrpc": "2.0", "id": working["id"], "result": {
            "resultType": "complete", "_meta": info("tasks"), "taskId": task_id, "status": "working",
            "createdAt": created["createdAt"], "lastUpdatedAt": Timestamp(), "ttlMs": 3600000,
            "pollIntervalMs": 1000}}
        release.set()
        assert client.wait_status(task_id) == {
            "resultType": "complete", "_meta": info("tasks"), "taskId": task_id, "status": "completed",
            "createdAt": created["createdAt"], "lastUpdatedAt": Timestamp(), "ttlMs": 3600000,
            "pollIntervalMs": 1000, "result": {"resultType": "complete", "_meta": info("tasks"),
                                               "content": [{"type": "text", "text": "n=7"}]}}

        # Without the extension, or before 2026-07-28: an ordinary call.
        client.send(tools_call(2, "compute", {"n": 8}, tasks=False))
        assert client.answer(2) == {"jsonrpc": "2.0", "id": 2, "result": {
            "resultType": "complete", "_meta": info("tasks"), "content": [{"type": "text", "text": "n=8"}]}}
        client.send(b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"compute",'
                    b'"arguments":{"n":9}}}')
        assert client.answer(3) == {"jsonrpc": "2.0", "id": 3, "result": {
            "content": [{"type": "text", "text": "n=9"}]}}
    finally:
        server.close()


def test_tasks_cancel_cancels_the_handler(lib: _native.Library) -> None:
    """tasks/cancel reaches an async handler as CancelledError and a sync one
    as ctx.cancelled, as any cancellation does; the task ends cancelled."""
    server = polymcp.Server("tasks")
    started, cancelled = threading.Event(), threading.Event()
    sync_started, sync_cancelled = threading.Event(), threading.Event()

    @server.tool(task="optional")
    async def forever() -> str:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    @server.tool(task="optional")
    def spin(ctx: polymcp.Context) -> str:
        sync_started.set()
        if until_cancelled(ctx, poll=0.005):
            sync_cancelled.set()
        return "stopped"

    try:
        client = Client(server)
        for id, name, running, seen in ((1, "forever", started, cancelled),
                                        (2, "spin", sync_started, sync_cancelled)):
            client.send(tools_call(id, name))
            task_id = client.result(id)["taskId"]
            assert running.wait(WAIT)
            ack = client.tasks("tasks/cancel", task_id)
            assert ack == {"jsonrpc": "2.0", "id": ack["id"], "result": {
                "resultType": "complete", "_meta": info("tasks")}}
            assert seen.wait(WAIT), name
            assert client.wait_status(task_id) == {
                "resultType": "complete", "_meta": info("tasks"), "taskId": task_id,
                "status": "cancelled", "statusMessage": "cancelled by the client",
                "createdAt": Timestamp(), "lastUpdatedAt": Timestamp(), "ttlMs": 3600000,
                "pollIntervalMs": 1000}
    finally:
        server.close()


def test_progress_inside_a_task_is_its_status_message(lib: _native.Library) -> None:
    server = polymcp.Server("tasks")
    reported, release = threading.Event(), threading.Event()

    @server.tool(task="optional")
    async def work(ctx: polymcp.Context) -> str:
        await ctx.report_progress(1, 2, "half way")
        await ctx.info("dropped inside a task")
        reported.set()
        await asyncio.to_thread(release.wait, WAIT)
        return "done"

    try:
        client = Client(server)
        client.send(tools_call(1, "work", meta_extra={"progressToken": "p"}))
        task_id = client.result(1)["taskId"]
        assert reported.wait(WAIT)
        assert client.tasks("tasks/get", task_id)["result"] == {
            "resultType": "complete", "_meta": info("tasks"), "taskId": task_id, "status": "working",
            "statusMessage": "half way", "createdAt": Timestamp(), "lastUpdatedAt": Timestamp(),
            "ttlMs": 3600000, "pollIntervalMs": 1000}
        release.set()
        assert client.wait_status(task_id)["status"] == "completed"
        assert client.peer.notifications == []  # neither progress nor log went out
    finally:
        release.set()
        server.close()


def test_a_required_task_tool_without_the_extension_is_32021(lib: _native.Library) -> None:
    server = polymcp.Server("tasks")
    ran: list[bool] = []

    @server.tool(task="required")
    async def job() -> str:
        ran.append(True)
        return "ran"

    try:
        client = Client(server)
        client.send(tools_call(1, "job", tasks=False))
        assert client.answer(1) == {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32021, "message": "the client did not declare the capability tools/call job needs",
            "data": {"requiredCapabilities": {"extensions": {TASKS: {}}}}}}
        # Before 2026-07-28 there are no tasks: the call is ordinary.
        client.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"job"}}')
        assert client.answer(2) == {"jsonrpc": "2.0", "id": 2, "result": {
            "content": [{"type": "text", "text": "ran"}]}}
        assert ran == [True]
    finally:
        server.close()


def test_start_task_after_an_elicit_round(lib: _native.Library) -> None:
    """task_start="handler": the question is answered by an input_required
    round, then the handler makes the call a task."""
    server = polymcp.Server("tasks")
    started: list[bool] = []
    form = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}

    @server.tool(task="required", task_start="handler")
    async def greet_later(ctx: polymcp.Context) -> str:
        answer = await ctx.elicit("What is your name?", form, key="user_name")
        started.append(ctx.start_task())
        started.append(ctx.start_task())  # a task already: still True
        await asyncio.sleep(0.05)
        return f"Hello, {answer['content']['name']}!"

    caps = {"elicitation": {}}
    try:
        client = Client(server)
        client.send(tools_call(1, "greet_later", caps=caps))
        first = client.result(1)
        assert first == {"resultType": "input_required", "_meta": info("tasks"), "inputRequests": {
            "user_name": {"method": "elicitation/create", "params": {
                "message": "What is your name?", "requestedSchema": form}}},
            "requestState": first["requestState"]}
        assert started == []
        client.send(tools_call(2, "greet_later", caps=caps, requestState=first["requestState"],
                               inputResponses={"user_name": {"action": "accept",
                                                             "content": {"name": "Ada"}}}))
        created = client.result(2)
        assert created == handle("tasks")
        done = client.wait_status(created["taskId"], caps=caps)
        assert done["status"] == "completed"
        assert done["result"] == {"resultType": "complete", "_meta": info("tasks"),
                                  "content": [{"type": "text", "text": "Hello, Ada!"}]}
        assert started == [True, True]
    finally:
        server.close()


def test_start_task_is_false_where_no_task_can_be(lib: _native.Library) -> None:
    server = polymcp.Server("tasks")
    seen: list[tuple[str, bool]] = []

    @server.tool(task="optional", task_start="handler")
    def maybe(ctx: polymcp.Context) -> str:
        became = ctx.start_task()
        seen.append((ctx.revision, became))
        return "task" if became else "call"

    @server.tool()
    def never(ctx: polymcp.Context) -> str:
        return "task" if ctx.start_task() else "call"

    try:
        client = Client(server)
        client.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"maybe"}}')
        assert client.result(1) == {"content": [{"type": "text", "text": "call"}]}
        client.send(tools_call(2, "maybe", tasks=False))
        assert client.result(2)["content"] == [{"type": "text", "text": "call"}]
        client.send(tools_call(3, "never"))
        assert client.result(3)["content"] == [{"type": "text", "text": "call"}]
        client.send(tools_call(4, "maybe"))
        created = client.result(4)
        assert created == handle("tasks")
        assert client.wait_status(created["taskId"])["result"]["content"] == [
            {"type": "text", "text": "task"}]
        assert seen == [("2025-06-18", False), (MODERN, False), (MODERN, True)]
    finally:
        server.close()


def test_start_task_raises_once_the_call_is_over(lib: _native.Library) -> None:
    server = polymcp.Server("tasks")
    started, checked = threading.Event(), threading.Event()
    errors: list[BaseException] = []

    @server.tool(task="optional", task_start="handler")
    async def late(ctx: polymcp.Context) -> str:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            try:
                ctx.start_task()
            except polymcp.NativeError as err:
                errors.append(err)
            checked.set()
            raise
        return "never"

    try:
        client = Client(server)
        client.send(tools_call(1, "late", tasks=False))
        assert started.wait(WAIT)
        client.send(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,'
                    b'"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",'
                    b'"io.modelcontextprotocol/clientCapabilities":{}}}}')
        assert checked.wait(WAIT)
        assert len(errors) == 1
        assert isinstance(errors[0], polymcp.NativeError)
        assert errors[0].status == _native.E_UNKNOWN_CALL
    finally:
        server.close()


# ---- input inside a task ---------------------------------------------------

def test_an_elicit_inside_a_task_waits_for_tasks_update(lib: _native.Library) -> None:
    """Inside a task a question waits for tasks/update (status input_required
    meanwhile) on a thread of its own: the event loop keeps serving other
    calls."""
    server = polymcp.Server("tasks")
    form = {"type": "object", "properties": {"color": {"type": "string"}}, "required": ["color"]}

    @server.tool(task="optional")
    async def paint(ctx: polymcp.Context) -> str:
        answer = await ctx.elicit("Which color?", form, key="color")
        return f"painted {answer['content']['color']}"

    @server.tool()
    async def ping_loop() -> str:
        await asyncio.sleep(0)
        return "the loop runs"

    caps = {"elicitation": {}}
    try:
        client = Client(server)
        client.send(tools_call(1, "paint", caps=caps))
        task_id = client.result(1)["taskId"]
        waiting = client.wait_status(task_id, "input_required", caps=caps)
        assert waiting == {
            "resultType": "complete", "_meta": info("tasks"), "taskId": task_id,
            "status": "input_required", "createdAt": Timestamp(), "lastUpdatedAt": Timestamp(),
            "ttlMs": 3600000, "pollIntervalMs": 1000, "inputRequests": {"color": {
                "method": "elicitation/create", "params": {"message": "Which color?",
                                                           "requestedSchema": form}}}}
        # The handler waits for the answer, yet async handlers still run.
        client.send(tools_call(2, "ping_loop", caps=caps))
        assert client.result(2)["content"] == [{"type": "text", "text": "the loop runs"}]
        assert client.tasks("tasks/get", task_id, caps)["result"]["status"] == "input_required"

        ack = client.tasks("tasks/update", task_id, caps, inputResponses={
            "color": {"action": "accept", "content": {"color": "teal"}}})
        assert ack["result"] == {"resultType": "complete", "_meta": info("tasks")}
        done = client.wait_status(task_id, caps=caps)
        assert (done["status"], done["result"]["content"]) == (
            "completed", [{"type": "text", "text": "painted teal"}])
    finally:
        server.close()


def test_tasks_waiting_for_input_leave_the_default_executor_free(lib: _native.Library) -> None:
    """More tasks wait for tasks/update than asyncio's default executor has
    threads, yet asyncio.to_thread (and a legacy question, which uses it)
    still runs at once: task questions wait on threads of their own."""
    n = min(32, (os.cpu_count() or 1) + 4) + 2  # ThreadPoolExecutor's default size, and more
    server = polymcp.Server("tasks", max_concurrency=4 * n, max_running_tasks=2 * n)
    form = {"type": "object", "properties": {"ok": {"type": "boolean"}}}

    @server.tool(task="optional")
    async def confirm(ctx: polymcp.Context) -> str:
        answer = await ctx.elicit("OK?", form, key="ok")
        return str(answer["content"]["ok"])

    @server.tool()
    async def offload() -> str:
        return await asyncio.to_thread(lambda: "off the loop")

    caps = {"elicitation": {}}
    try:
        client = Client(server)
        for i in range(n):
            client.send(tools_call(i, "confirm", caps=caps))
        ids = [client.result(i)["taskId"] for i in range(n)]
        for task_id in ids:
            assert client.wait_status(task_id, "input_required", caps=caps)["status"] == "input_required"
        client.send(tools_call("off", "offload", tasks=False))
        assert client.result("off")["content"] == [{"type": "text", "text": "off the loop"}]
        for task_id in ids:
            client.tasks("tasks/update", task_id, caps, inputResponses={
                "ok": {"action": "accept", "content": {"ok": True}}})
        for task_id in ids:
            assert client.wait_status(task_id, caps=caps)["result"]["content"] == [
                {"type": "text", "text": "True"}]
    finally:
        server.close()


# ---- the everything fixture -------------------------------------------------

@pytest.fixture()
def fixture() -> Iterator[Child]:
    child = Child("-m", "polymcp.everything")
    yield child
    if child.proc.poll() is None:
        child.proc.kill()
        child.proc.wait(30)


FIXTURE_INFO = {"io.modelcontextprotocol/serverInfo": SERVER_INFO}


def fixture_status(child: Child, task_id: str, *statuses: str, id: str = "get") -> Any:
    wanted = statuses or TERMINAL
    deadline = time.monotonic() + WAIT
    for n in range(1_000_000):
        child.send(tasks_request(f"{id}{n}", "tasks/get", task_id, {"elicitation": {}}))
        got = child.result(f"{id}{n}")
        if got["status"] in wanted or time.monotonic() > deadline:
            return got
        time.sleep(0.02)
    raise AssertionError("unreachable")


def outcome(result: dict[str, Any]) -> dict[str, Any]:
    return {"resultType": "complete", "_meta": FIXTURE_INFO, **result}


def test_fixture_tasks_end_as_the_go_fixture_says(fixture: Child) -> None:
    fixture.send(
        tools_call(1, "slow_compute", {"seconds": 0.1, "label": "wire"}),
        tools_call(2, "failing_job"),
        tools_call(3, "protocol_error_job"),
        tools_call(4, "slow_compute", {"seconds": 1.5e-7}),
        tools_call(5, "greet", {"name": "tasks"}))
    ids = {i: fixture.result(i)["taskId"] for i in (1, 2, 3, 4)}
    assert fixture.result(1) == {**handle("polymcp-everything"), "_meta": FIXTURE_INFO}
    assert fixture.result(5) == outcome({"content": [{"type": "text", "text": "Hello, tasks!"}]})
    done = {i: fixture_status(fixture, t, id=f"g{i}-") for i, t in ids.items()}
    assert done[1]["result"] == outcome({"content": [{"type": "text", "text": "Computed wire in 0.1s"}]})
    assert (done[2]["status"], done[2]["result"]) == ("completed", outcome({"content": [
        {"type": "text", "text": "failing_job failed, as it always does"}], "isError": True}))
    assert done[3] == {
        "resultType": "complete", "_meta": FIXTURE_INFO, "taskId": ids[3], "status": "failed",
        "statusMessage": "internal error: the handler failed", "createdAt": Timestamp(),
        "lastUpdatedAt": Timestamp(), "ttlMs": 3600000, "pollIntervalMs": 1000,
        "error": {"code": -32603, "message": "internal error: the handler failed",
                  "data": {"reason": "panic"}}}
    assert done[4]["result"]["content"] == [{"type": "text", "text": "Computed job in 0.00000015s"}]

    fixture.send(tools_call(6, "slow_compute", {"seconds": 3601}, tasks=False))
    assert fixture.result(6) == outcome({"content": [
        {"type": "text", "text": "seconds must be between 0 and 3600"}], "isError": True})


def test_fixture_questions_inside_tasks(fixture: Child) -> None:
    caps = {"elicitation": {}}
    fixture.send(tools_call(1, "confirm_delete", {"filename": "a.txt"}, caps),
                 tools_call(2, "multi_input", caps=caps))
    delete, multi = fixture.result(1)["taskId"], fixture.result(2)["taskId"]
    asked = fixture_status(fixture, delete, "input_required", id="d")
    assert asked["inputRequests"] == {"confirm": {"method": "elicitation/create", "params": {
        "message": "Delete a.txt?", "requestedSchema": {
            "type": "object", "properties": {"confirm": {"type": "boolean"}}, "required": ["confirm"]}}}}
    fixture.send(tasks_request(3, "tasks/update", delete, caps, inputResponses={
        "confirm": {"action": "accept", "content": {"confirm": True}}}))
    assert fixture.result(3) == {"resultType": "complete", "_meta": FIXTURE_INFO}
    assert fixture_status(fixture, delete, id="d2-")["result"] == outcome(
        {"content": [{"type": "text", "text": "Deleted a.txt"}]})

    def name_form(message: str) -> dict[str, Any]:
        return {"method": "elicitation/create", "params": {"message": message, "requestedSchema": {
            "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}

    both = fixture_status(fixture, multi, "input_required", id="m")
    assert both["inputRequests"] == {"first": name_form("What should the first item be called?"),
                                     "second": name_form("What should the second item be called?")}
    fixture.send(tasks_request(4, "tasks/update", multi, caps, inputResponses={
        "first": {"action": "accept", "content": {"name": "apples"}}, "unknown": {"action": "accept"}}))
    fixture.result(4)
    deadline = time.monotonic() + WAIT
    while True:  # the partial answer is taken: only the second question is left
        left = fixture_status(fixture, multi, "input_required", id=f"m{time.monotonic()}-")
        if list(left.get("inputRequests", {})) == ["second"] or time.monotonic() > deadline:
            break
    assert left["inputRequests"] == {"second": name_form("What should the second item be called?")}
    fixture.send(tasks_request(5, "tasks/update", multi, caps, inputResponses={
        "second": {"action": "decline"}}))
    fixture.result(5)
    assert fixture_status(fixture, multi, id="m2-")["result"] == outcome(
        {"content": [{"type": "text", "text": "Got apples and (decline)"}]})


def test_fixture_test_tool_with_task_starts_its_task_after_the_question(fixture: Child) -> None:
    caps = {"elicitation": {}}
    fixture.send(tools_call(1, "test_tool_with_task", caps=caps))
    first = fixture.result(1)
    assert first["resultType"] == "input_required"
    assert list(first["inputRequests"]) == ["user_name"]
    fixture.send(tools_call(2, "test_tool_with_task", caps=caps, requestState=first["requestState"],
                            inputResponses={"user_name": {"action": "accept", "content": {"name": "Zed"}}}))
    created = fixture.result(2)
    assert created == {**handle("polymcp-everything"), "_meta": FIXTURE_INFO}
    assert fixture_status(fixture, created["taskId"])["result"] == outcome(
        {"content": [{"type": "text", "text": "Hello, Zed! (greeted by a task)"}]})
    fixture.send(tools_call(3, "test_tool_with_task", caps=caps, tasks=False))
    assert fixture.peer.answer(3)["error"]["code"] == -32021


def test_fixture_tasks_over_http() -> None:
    """The task handle and tasks/get over Streamable HTTP (Mcp-Name is the taskId)."""
    server = everything.build()
    url = server.start_http()
    try:
        body = tools_call(1, "slow_compute", {"seconds": 0, "label": "http"})
        reply = request(url, body=body, headers=modern_headers("tools/call", "slow_compute"))
        assert reply.status == 200
        created = reply.json()["result"]
        assert created == {**handle("polymcp-everything"), "_meta": FIXTURE_INFO}
        deadline = time.monotonic() + WAIT
        while True:
            reply = request(url, body=tasks_request(2, "tasks/get", created["taskId"]),
                            headers=modern_headers("tasks/get", created["taskId"]))
            assert reply.status == 200, reply
            got = reply.json()["result"]
            if got["status"] in TERMINAL or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        assert got["result"] == outcome({"content": [{"type": "text", "text": "Computed http in 0s"}]})
    finally:
        server.close()


@pytest.mark.parametrize(("value", "text"), [
    (0, "0"), (0.0, "0"), (-0.0, "-0"), (1, "1"), (1.5, "1.5"), (3600, "3600"), (0.1, "0.1"),
    (1.5e-7, "0.00000015"), (123456789.25, "123456789.25"), (1e21, "1000000000000000000000"),
])
def test_go_fixed_formats_like_strconv(value: float, text: str) -> None:
    assert everything.go_fixed(value) == text
