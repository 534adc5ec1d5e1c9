"""The bridge between the core's callbacks and handlers, driven by a fake
of the native call functions from several threads (as Go would)."""

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

import polymcp
from polymcp._bridge import Bridge
from polymcp._handlers import Kind
from polymcp._loop import LoopThread

from .wire import until_cancelled

WAIT = 10.0  # a failure bound only, never a timing assertion


class FakeCalls:
    """Records every answer; ``answered(call)`` waits for one."""

    def __init__(self) -> None:
        self.answers: dict[int, tuple[str, Any]] = {}
        self.sent: list[tuple[int, str, Any]] = []
        self.threads: dict[int, int] = {}
        self.texts: list[int] = []  # the calls answered by complete_text
        self._cond = threading.Condition()

    def _answer(self, call: int, what: tuple[str, Any]) -> int:
        with self._cond:
            if call in self.answers:
                return -3  # POLYMCP_E_UNKNOWN_CALL: answered twice
            self.answers[call] = what
            self.threads[call] = threading.get_ident()
            self._cond.notify_all()
        return 0

    def complete(self, call: int, result: bytes) -> int:
        return self._answer(call, ("result", json.loads(result)))

    def complete_text(self, call: int, text: bytes) -> int:
        self.texts.append(call)
        return self._answer(call, ("result", {"content": [{"type": "text", "text": text.decode()}]}))

    def fail(self, call: int, code: int, message: bytes, data: bytes | None = None) -> int:
        if data is not None:
            return self._answer(call, ("error", (code, message.decode(), json.loads(data))))
        return self._answer(call, ("error", (code, message.decode())))

    def progress(self, call: int, payload: bytes) -> int:
        self.sent.append((call, "progress", json.loads(payload)))
        return 0

    def log(self, call: int, payload: bytes) -> int:
        self.sent.append((call, "log", json.loads(payload)))
        return 0

    def info(self, call: int) -> bytes | None:
        return b'{"method":"tools/call","clientInfo":{"name":"fake"}}'

    def cancelled(self, call: int) -> bool:
        return False  # the core's view; on_cancel sets the flag here

    #: what polymcp_call_input answers: (status, body), or None for an ABI without it
    input_answer: tuple[int, bytes] | None = None

    def has_input(self) -> bool:
        return self.input_answer is not None

    def input(self, call: int, requests: bytes) -> tuple[int, bytes]:
        self.sent.append((call, "input", json.loads(requests)))
        assert self.input_answer is not None
        return self.input_answer

    def wait(self, *calls: int) -> None:
        with self._cond:
            assert self._cond.wait_for(lambda: all(c in self.answers for c in calls), WAIT)


@pytest.fixture()
def loop() -> Any:
    thread = LoopThread("test-loop")
    yield thread.loop
    thread.stop()


def make(loop: asyncio.AbstractEventLoop) -> tuple[polymcp.Server, FakeCalls, Bridge]:
    server = polymcp.Server("t")
    calls = FakeCalls()
    return server, calls, Bridge(server.registry, calls, lambda: loop)


def tool_tag(server: polymcp.Server, name: str) -> int:
    return next(t for t, e in server.registry.entries.items() if e.key == name)


def params(name: str, **arguments: Any) -> bytes:
    return json.dumps({"name": name, "arguments": arguments, "revision": "2025-06-18",
                       "_meta": {"progressToken": 1}}).encode()


def test_sync_handler_answers_inline_on_the_calling_thread(loop: Any) -> None:
    server, calls, bridge = make(loop)
    server.add_tool(lambda text: text, name="echo")
    bridge.on_call(1, Kind.TOOL, tool_tag(server, "echo"), params("echo", text="hi"))
    assert calls.answers[1] == ("result", {"content": [{"type": "text", "text": "hi"}]})
    assert calls.threads[1] == threading.get_ident()
    assert bridge.in_flight == 0


def test_one_text_item_goes_as_text(loop: Any) -> None:
    """A str return is sent with complete_text, the text as it is; any other
    result as its JSON, and so is a text the library refuses (E_INVALID)."""
    server, calls, bridge = make(loop)
    server.add_tool(lambda text: text, name="echo")
    server.add_tool(lambda: {"n": 1}, name="structured")
    bridge.on_call(1, Kind.TOOL, tool_tag(server, "echo"), params("echo", text='tab\t "q" é\x00'))
    bridge.on_call(2, Kind.TOOL, tool_tag(server, "structured"), params("structured"))
    calls.complete_text = lambda call, text: -1  # type: ignore[method-assign]  # an ABI 1.2 library
    bridge.on_call(3, Kind.TOOL, tool_tag(server, "echo"), params("echo", text="old"))
    assert calls.texts == [1]
    assert calls.answers[1] == ("result", {"content": [{"type": "text", "text": 'tab\t "q" é\x00'}]})
    assert calls.answers[2][1]["structuredContent"] == {"n": 1}
    assert calls.answers[3] == ("result", {"content": [{"type": "text", "text": "old"}]})


def test_async_handler_runs_on_the_loop(loop: Any) -> None:
    server, calls, bridge = make(loop)
    seen: list[asyncio.AbstractEventLoop] = []

    @server.tool()
    async def later(n: int) -> int:
        seen.append(asyncio.get_running_loop())
        await asyncio.sleep(0)
        return n + 1

    bridge.on_call(5, Kind.TOOL, tool_tag(server, "later"), params("later", n=1))
    calls.wait(5)
    assert calls.answers[5] == ("result", {"content": [{"type": "text", "text": "2"}],
                                           "structuredContent": {"result": 2}})
    assert seen == [loop]


def test_failures_are_answered(loop: Any) -> None:
    server, calls, bridge = make(loop)
    server.add_tool(lambda: 1 / 0, name="boom")

    @server.resource("test://r")
    def r() -> str:
        raise polymcp.McpError(-32002, "gone")

    @server.prompt()
    async def p() -> str:
        raise RuntimeError("prompt broke")

    tags = {e.key: t for t, e in server.registry.entries.items()}
    bridge.on_call(1, Kind.TOOL, tags["boom"], params("boom"))
    bridge.on_call(2, Kind.RESOURCE, tags["test://r"], b'{"uri":"test://r"}')
    bridge.on_call(3, Kind.PROMPT, tags["p"], b'{"name":"p"}')
    bridge.on_call(4, Kind.TOOL, 999, params("removed"))
    bridge.on_call(5, Kind.TOOL, tags["boom"], b"{not json")
    bridge.on_call(6, Kind.PROMPT, tags["boom"], params("boom"))  # kind and tag disagree
    calls.wait(1, 2, 3, 4, 5, 6)
    assert calls.answers[1] == ("result", {"content": [{"type": "text", "text": "division by zero"}],
                                           "isError": True})
    assert calls.answers[2] == ("error", (-32002, "gone"))
    assert calls.answers[3] == ("error", (0, "prompt broke"))
    assert calls.answers[4] == ("error", (-32602, "'removed' is no longer registered"))
    assert calls.answers[5][0] == "error" and calls.answers[5][1][0] == 0
    assert calls.answers[6] == ("error", (-32602, "'boom' is no longer registered"))


def test_unencodable_results_are_failures(loop: Any) -> None:
    server, calls, bridge = make(loop)
    server.add_tool(lambda: {"x": float("nan")}, name="nan")
    server.resource("test://nan")(lambda: {"x": float("inf")})
    tags = {e.key: t for t, e in server.registry.entries.items()}
    bridge.on_call(1, Kind.TOOL, tags["nan"], params("nan"))
    bridge.on_call(2, Kind.RESOURCE, tags["test://nan"], b'{"uri":"test://nan"}')
    assert calls.answers[1] == ("result", {"content": [{"type": "text", "text": (
        "Out of range float values are not JSON compliant")}], "isError": True})
    assert calls.answers[2] == ("error", (0, "Out of range float values are not JSON compliant"))


def test_thousand_concurrent_async_calls(loop: Any) -> None:
    server, calls, bridge = make(loop)
    gate = asyncio.Event()
    running = 0

    @server.tool()
    async def wait_gate(i: int) -> str:
        nonlocal running
        running += 1
        if running == 1000:
            gate.set()
        await gate.wait()  # every call is in flight at once before any answers
        return str(i)

    tag = tool_tag(server, "wait_gate")
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda i: bridge.on_call(i, Kind.TOOL, tag, params("wait_gate", i=i)),
                      range(1, 1001)))
    calls.wait(*range(1, 1001))
    assert all(calls.answers[i] == ("result", {"content": [{"type": "text", "text": str(i)}]})
               for i in range(1, 1001))
    assert bridge.in_flight == 0


def test_cancel_cancels_the_task_and_sends_nothing(loop: Any) -> None:
    server, calls, bridge = make(loop)
    started = threading.Event()
    cancelled = threading.Event()

    @server.tool()
    async def forever(ctx: polymcp.Context) -> str:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            assert ctx.cancelled
            cancelled.set()
            raise
        return "never"

    bridge.on_call(9, Kind.TOOL, tool_tag(server, "forever"), params("forever"))
    assert started.wait(WAIT)
    t0 = time.monotonic()
    bridge.on_cancel(9)
    assert cancelled.wait(WAIT)
    elapsed = time.monotonic() - t0
    assert elapsed < WAIT
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(WAIT)  # done callbacks ran
    assert 9 not in calls.answers
    assert bridge.in_flight == 0


def test_cancel_before_the_task_starts_never_runs_it(loop: Any) -> None:
    server, calls, bridge = make(loop)
    ran: list[int] = []
    block = threading.Event()
    loop.call_soon_threadsafe(block.wait, WAIT)  # hold the loop so the task cannot start

    @server.tool()
    async def never(i: int) -> str:
        ran.append(i)
        return "x"

    bridge.on_call(3, Kind.TOOL, tool_tag(server, "never"), params("never", i=3))
    bridge.on_cancel(3)
    block.set()
    asyncio.run_coroutine_threadsafe(asyncio.sleep(0), loop).result(WAIT)
    assert ran == [] and 3 not in calls.answers and bridge.in_flight == 0


def test_cancel_sets_the_flag_of_a_sync_handler(loop: Any) -> None:
    server, calls, bridge = make(loop)
    started = threading.Event()

    @server.tool()
    def poll(ctx: polymcp.Context) -> str:
        started.set()
        return "stopped" if until_cancelled(ctx, WAIT) else "timed out"

    worker = threading.Thread(target=bridge.on_call,
                              args=(4, Kind.TOOL, tool_tag(server, "poll"), params("poll")))
    worker.start()
    assert started.wait(WAIT)
    bridge.on_cancel(4)
    worker.join(WAIT)
    # The core refuses an answer after on_cancel; the fake records it.
    assert calls.answers[4] == ("result", {"content": [{"type": "text", "text": "stopped"}]})


def test_handler_that_cancels_itself_still_gets_an_answer(loop: Any) -> None:
    server, calls, bridge = make(loop)

    @server.tool()
    async def quits() -> str:
        raise asyncio.CancelledError

    bridge.on_call(2, Kind.TOOL, tool_tag(server, "quits"), params("quits"))
    calls.wait(2)
    assert calls.answers[2] == ("error", (0, "the handler was cancelled"))


def test_progress_log_and_info_reach_the_call(loop: Any) -> None:
    server, calls, bridge = make(loop)

    @server.tool()
    async def steps(ctx: polymcp.Context) -> str:
        await ctx.report_progress(50, 100, "half")
        ctx.report_progress(100)
        await ctx.warning({"k": [1]}, logger="steps")
        return f"{ctx.client_info['name']} {ctx.revision} {ctx.meta['progressToken']}"

    bridge.on_call(7, Kind.TOOL, tool_tag(server, "steps"), params("steps"))
    calls.wait(7)
    assert calls.sent == [(7, "progress", {"progress": 50.0, "total": 100.0, "message": "half"}),
                          (7, "progress", {"progress": 100.0}),
                          (7, "log", {"level": "warning", "data": {"k": [1]}, "logger": "steps"})]
    assert calls.answers[7] == ("result", {"content": [{"type": "text", "text": "fake 2025-06-18 1"}]})


def test_elicit_is_refused_with_a_defined_error(loop: Any) -> None:
    server, calls, bridge = make(loop)

    @server.tool()
    async def ask(ctx: polymcp.Context) -> str:
        answer = await ctx.elicit("name?", {"type": "object", "properties": {}})
        return str(answer)

    bridge.on_call(1, Kind.TOOL, tool_tag(server, "ask"), params("ask"))
    calls.wait(1)
    assert calls.answers[1] == ("error", (-32603, "elicitation/create is not supported by this "
                                                  "server yet"))


@pytest.mark.parametrize("answer, revision, want", [
    # The client answered (2025-06-18: a server-to-client request; 2026-07-28: the retry's inputResponses).
    ((0, b'{"q0":{"action":"accept","content":{"name":"Ada"}}}'), "2025-06-18",
     ("result", {"content": [{"type": "text", "text": "{'action': 'accept', 'content': {'name': 'Ada'}}"}]})),
    # 2026-07-28, first round: the core answered input_required; the binding sends nothing.
    ((-8, b"polymcp_call_input: the client has yet to answer"), "2026-07-28", None),
    # Undeclared capability: on 2026-07-28 the core answered -32021; before, an error result.
    ((-9, b"polymcp_call_input: no elicitation"), "2026-07-28", None),
    ((-9, b"polymcp_call_input: no elicitation"), "2025-06-18",
     ("result", {"content": [{"type": "text", "text": "polymcp_call_input: no elicitation"}], "isError": True})),
])
def test_elicit_through_the_core(loop: Any, answer: tuple[int, bytes], revision: str, want: Any) -> None:
    server, calls, bridge = make(loop)
    calls.input_answer = answer

    @server.tool()
    async def ask(ctx: polymcp.Context) -> str:
        return str(await ctx.elicit("name?", {"type": "object", "properties": {"name": {"type": "string"}}}))

    p = json.loads(params("ask"))
    p["revision"] = revision
    bridge.on_call(1, Kind.TOOL, tool_tag(server, "ask"), json.dumps(p).encode())
    if want is None:
        deadline = time.monotonic() + 2
        while bridge.in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        assert bridge.in_flight == 0 and 1 not in calls.answers, "the core answered: nothing more is sent"
    else:
        calls.wait(1)
        assert calls.answers[1] == want
    assert calls.sent == [(1, "input", {"q0": {"method": "elicitation/create", "params": {
        "message": "name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}}})]


def test_bad_progress_values_fail_in_the_handler(loop: Any) -> None:
    server, calls, bridge = make(loop)

    @server.tool()
    def bad(ctx: polymcp.Context) -> str:
        ctx.report_progress(float("inf"))
        return "unreachable"

    bridge.on_call(1, Kind.TOOL, tool_tag(server, "bad"), params("bad"))
    assert calls.answers[1] == ("result", {"content": [{"type": "text", "text": (
        "progress must be a finite number, got inf")}], "isError": True})


def test_a_sync_task_handler_runs_on_its_own_thread_and_hears_of_cancellation(loop: Any) -> None:
    """A def handler of a task tool leaves the core's callback thread at
    once (on_call returns), so that on_cancel — tasks/cancel — reaches it as
    ctx.cancelled; a def handler of an ordinary tool still answers inline."""
    server, calls, bridge = make(loop)
    started = threading.Event()
    threads: list[int] = []

    @server.tool(task="optional")
    def spin(ctx: polymcp.Context) -> str:
        threads.append(threading.get_ident())
        started.set()
        return "cancelled" if until_cancelled(ctx, WAIT, 0.002) else "timed out"

    @server.tool(task="required")
    def quick() -> str:
        return "quick"

    bridge.on_call(1, Kind.TOOL, tool_tag(server, "spin"), params("spin"))
    assert started.wait(WAIT)
    assert threads[0] != threading.get_ident() and 1 not in calls.answers
    bridge.on_cancel(1)
    calls.wait(1)  # answered after the cancellation (the core refuses it then)
    assert calls.answers[1] == ("result", {"content": [{"type": "text", "text": "cancelled"}]})
    bridge.on_call(2, Kind.TOOL, tool_tag(server, "quick"), params("quick"))
    calls.wait(2)
    assert calls.answers[2] == ("result", {"content": [{"type": "text", "text": "quick"}]})
    assert calls.threads[2] != threading.get_ident()


def test_start_task_reports_what_the_core_says(loop: Any) -> None:
    server, calls, bridge = make(loop)
    seen: list[Any] = []
    statuses = iter([(0, ""), (-1, "cannot become a task"), (-3, "call 0x1 was already completed")])
    calls.start_task = lambda call: next(statuses)  # type: ignore[attr-defined]

    @server.tool(task="optional", task_start="handler")
    def promote(ctx: polymcp.Context) -> str:
        seen.append(ctx.start_task())
        seen.append(ctx.start_task())
        try:
            ctx.start_task()
        except polymcp.NativeError as err:
            seen.append((err.status, str(err)))
        return "ok"

    bridge.on_call(1, Kind.TOOL, tool_tag(server, "promote"), params("promote"))
    calls.wait(1)
    assert seen == [True, False, (-3, "call 0x1 was already completed")]
