"""End to end through libpolymcp: host-owned sessions in this process."""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import polymcp
from polymcp import _native

from .wire import INIT, INITIALIZED, WAIT, Peer, until_cancelled


@pytest.fixture(scope="module")
def lib() -> _native.Library:
    return _native.load_library()  # fails with the places it looked


def call(id: Any, name: str, arguments: dict[str, Any] | None = None,
         meta: dict[str, Any] | None = None) -> bytes:
    params: dict[str, Any] = {"name": name, "arguments": arguments or {}}
    if meta:
        params["_meta"] = meta
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                       "params": params}).encode()


def connect(server: polymcp.Server) -> tuple[Peer, Any]:
    peer = Peer()
    session = server.session(peer.receive)
    session.dispatch(INIT)
    peer.answer("init")
    session.dispatch(INITIALIZED)
    return peer, session


def stats(lib: _native.Library) -> dict[str, int]:
    return dict(json.loads(lib.stats()))


def test_library_loads_by_path(lib: _native.Library) -> None:
    assert lib.abi[0] == _native.ABI_MAJOR
    assert lib.path.name == "libpolymcp.so"
    assert lib.version


def test_sync_and_async_tools_over_a_session(lib: _native.Library) -> None:
    server = polymcp.Server("e2e")

    @server.tool()
    def echo(text: str) -> str:
        return text

    @server.tool()
    async def shout(text: str) -> str:
        await asyncio.sleep(0)
        return text.upper()

    @server.tool()
    def broken() -> str:
        raise RuntimeError("it broke")

    try:
        peer, session = connect(server)
        session.dispatch(call(1, "echo", {"text": "hi"}))
        session.dispatch(call(2, "shout", {"text": "hi"}))
        session.dispatch(call(3, "broken"))
        session.dispatch(call(4, "nope"))
        session.dispatch(call(5, "echo", {"text": 5}))
        assert peer.answer(1) == {"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": "hi"}]}}
        assert peer.answer(2)["result"] == {"content": [{"type": "text", "text": "HI"}]}
        assert peer.answer(3)["result"] == {"content": [{"type": "text", "text": "it broke"}],
                                            "isError": True}
        assert peer.answer(4)["error"]["code"] == -32602
        assert peer.answer(5)["result"]["isError"] is True  # the core's schema check
        session.close()
    finally:
        server.close()


def test_thousand_concurrent_async_calls(lib: _native.Library) -> None:
    server = polymcp.Server("many", max_concurrency=1000)
    # Every handler runs on the binding's one event loop, where this event
    # binds on first use. Waiting on it, not polling: 1,000 coroutines
    # polling kept the loop so busy on a slow machine that the last calls
    # could not start before the others' 30 s deadline.
    release = asyncio.Event()
    started = 0

    @server.tool()
    async def hold(i: int) -> str:
        nonlocal started
        started += 1
        if started == 1000:
            release.set()
        await release.wait()  # all 1000 are in flight before any answers
        return str(i)

    try:
        peer, session = connect(server)
        for i in range(1000):
            session.dispatch(call(i, "hold", {"i": i}))
        for i in range(1000):
            answer = peer.answer(i)
            assert answer.get("result") == {"content": [{"type": "text", "text": str(i)}]}, answer
        assert started == 1000
    finally:
        server.close()


def test_cancellation_cancels_the_task_and_sends_no_answer(lib: _native.Library) -> None:
    server = polymcp.Server("cancel")
    started, cancelled = threading.Event(), threading.Event()

    @server.tool()
    async def forever() -> str:
        started.set()
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "never"

    try:
        peer, session = connect(server)
        session.dispatch(call(7, "forever"))
        assert started.wait(WAIT)
        t0 = time.monotonic()
        session.dispatch(b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
                         b'"params":{"requestId":7,"reason":"test"}}')
        assert cancelled.wait(WAIT)
        took = time.monotonic() - t0
        session.dispatch(call(8, "forever"))  # the session still works afterwards
        assert started.wait(WAIT)
        assert 7 not in peer.answers
        print(f"cancel reached the task in {took * 1000:.1f} ms")
    finally:
        server.close()
    assert 7 not in peer.answers


def test_a_sync_handler_inside_on_call_sees_cancellation(lib: _native.Library) -> None:
    """A def handler runs inside the core's callback, where on_cancel cannot
    reach it: ctx.cancelled asks the core, so a polling loop stops, and the
    cancelled call gets no answer."""
    server = polymcp.Server("cancel-sync")
    started, stopped = threading.Event(), threading.Event()

    @server.tool()
    def poll(ctx: polymcp.Context) -> str:
        started.set()
        if until_cancelled(ctx):
            stopped.set()
        return "after the cancel"

    try:
        peer, session = connect(server)
        # The session may run a sync handler on the dispatching thread.
        worker = threading.Thread(target=session.dispatch, args=(call(9, "poll"),))
        worker.start()
        assert started.wait(WAIT)
        session.dispatch(b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}')
        assert stopped.wait(WAIT)
        worker.join(WAIT)
        time.sleep(0.05)  # an answer would have come by now
    finally:
        server.close()
    assert 9 not in peer.answers


def test_progress_and_logs_reach_the_client(lib: _native.Library) -> None:
    server = polymcp.Server("progress")

    @server.tool()
    async def work(ctx: polymcp.Context) -> str:
        for i in range(1, 4):
            await ctx.report_progress(i, 3, f"step {i}")
        await ctx.info("done", logger="work")
        return "ok"

    try:
        peer, session = connect(server)
        session.dispatch(b'{"jsonrpc":"2.0","id":"lvl","method":"logging/setLevel",'
                         b'"params":{"level":"debug"}}')
        peer.answer("lvl")
        session.dispatch(call(1, "work", meta={"progressToken": "tok"}))
        assert peer.answer(1)["result"] == {"content": [{"type": "text", "text": "ok"}]}
        progress = [n["params"] for n in peer.notifications
                    if n["method"] == "notifications/progress"]
        assert progress == [{"progressToken": "tok", "progress": i, "total": 3,
                             "message": f"step {i}"} for i in range(1, 4)]
        logs = [n["params"] for n in peer.notifications if n["method"] == "notifications/message"]
        assert logs == [{"level": "info", "logger": "work", "data": "done"}]
    finally:
        server.close()


def test_catalogue_changes_reach_a_running_server(lib: _native.Library) -> None:
    server = polymcp.Server("dynamic")
    server.add_tool(lambda: "one", name="first")
    try:
        peer, session = connect(server)
        server.add_tool(lambda: "two", name="second")
        peer.wait_for(lambda p: "notifications/tools/list_changed" in p.methods())
        session.dispatch(call(1, "second"))
        assert peer.answer(1)["result"]["content"][0]["text"] == "two"
        assert server.remove_tool("second")
        session.dispatch(call(2, "second"))
        assert peer.answer(2)["error"]["code"] == -32602
    finally:
        server.close()


def test_configure_sets_the_native_runtime(lib: _native.Library) -> None:
    polymcp.configure(gc_percent=300, log_level="warn")
    polymcp.configure(gc_percent=200)  # the library's default again
    with pytest.raises(polymcp.NativeError, match="gc_percent"):
        polymcp.configure(gc_percent=0)
    with pytest.raises(polymcp.NativeError, match="log_level"):
        polymcp.configure(log_level="loud")


def test_mcp_error_data_reaches_the_client(lib: _native.Library) -> None:
    server = polymcp.Server("data")

    @server.tool()
    def guarded(path: str) -> str:
        raise polymcp.McpError(-32602, "outside the root", data={"path": path, "roots": ["/srv"]})

    @server.tool()
    def failing() -> str:
        raise polymcp.McpError(0, "a tool failure is a result", data={"ignored": True})

    @server.resource("test://gone")
    def gone() -> str:
        raise polymcp.McpError(-32002, "gone", data={"mine": 1})

    try:
        peer, session = connect(server)
        session.dispatch(call(1, "guarded", {"path": "/etc"}))
        assert peer.answer(1) == {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32602, "message": "outside the root", "data": {"path": "/etc", "roots": ["/srv"]}}}
        # No JSON-RPC error to carry the data: the answer goes without it.
        session.dispatch(call(2, "failing"))
        assert peer.answer(2)["result"] == {
            "content": [{"type": "text", "text": "a tool failure is a result"}], "isError": True}
        session.dispatch(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "resources/read",
                                     "params": {"uri": "test://gone"}}).encode())
        assert peer.answer(3)["error"] == {"code": -32002, "message": "resource not found: test://gone",
                                           "data": {"uri": "test://gone"}}
    finally:
        server.close()


def test_start_stop_hundred_times_leaks_nothing(lib: _native.Library) -> None:
    def cycle() -> None:
        server = polymcp.Server("leak")

        @server.tool()
        async def echo(text: str) -> str:
            return text

        peer, session = connect(server)
        session.dispatch(call(1, "echo", {"text": "x"}))
        peer.answer(1)
        session.close()
        server.close()

    cycle()  # warm up: the shared loop, Go's worker threads
    threads_before, before = threading.active_count(), stats(lib)
    for _ in range(100):
        cycle()
    after = stats(lib)
    assert (after["servers"], after["calls"], after["sessions"]) == (
        before["servers"], before["calls"], before["sessions"]) == (0, 0, 0)
    assert threading.active_count() == threads_before
    assert after["goroutines"] <= before["goroutines"] + 10
    assert len(_native._targets) == 0 and len(_native._senders) == 0


def test_the_library_is_looked_up_in_the_package_then_the_checkout() -> None:
    package, checkout = _native._candidates()
    root = Path(__file__).resolve().parents[3]
    assert package == root / "bindings/python/src/polymcp/libpolymcp.so"
    assert checkout == root / "build/libpolymcp.so"


def test_interpreter_exit_closes_servers_and_waits_for_on_closed(lib: _native.Library) -> None:
    # atexit runs handlers last-registered first: this check, registered
    # before polymcp is imported, runs after polymcp's close_all.
    script = ("import atexit\n"
              "atexit.register(lambda: print('closed' if native.closed else 'open'))\n"
              "import asyncio, polymcp, sys\n"
              "from polymcp import _serve\n"
              "s = polymcp.Server('exit')\n"
              "@s.tool()\n"
              "async def slow() -> str:\n"
              "    await asyncio.sleep(3600)\n"
              "    return 'never'\n"
              "sess = s.session(lambda raw: None)\n"
              f"sess.dispatch({INIT!r})\n"
              "sess.dispatch(b'{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\","
              "\"params\":{\"name\":\"slow\"}}')\n"
              "native = next(iter(_serve._live))\n")
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parent.parent / "src")}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == b"closed"


def test_a_strict_tool_gets_unknown_arguments_refused_by_the_core() -> None:
    server = polymcp.Server("strict")
    seen: list[str] = []

    @server.tool(strict=True)
    def echo(text: str) -> str:
        seen.append(text)
        return text

    peer, session = connect(server)
    try:
        session.dispatch(call(1, "echo", {"text": "x", "extra": 1}))
        assert peer.answer(1) == {"jsonrpc": "2.0", "id": 1, "result": {"content": [{
            "type": "text", "text": 'unexpected argument "extra" (additionalProperties)'}],
            "isError": True}}
        assert seen == []  # refused before the handler
    finally:
        session.close()
        server.close()


def test_context_asks_the_client_through_the_core(lib: _native.Library) -> None:
    """ctx.roots() over polymcp_call_input: a real roots/list request up to
    2025-11-25, input_required and a retry on 2026-07-28."""
    server = polymcp.Server("ask")

    @server.tool()
    async def where(ctx: polymcp.Context) -> str:
        roots = await ctx.roots(key="client_roots")
        return ",".join(r["uri"] for r in roots)

    try:
        peer = Peer()
        session = server.session(peer.receive)
        session.dispatch(json.dumps({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
            "clientInfo": {"name": "t", "version": "1"}}}).encode())
        peer.answer("init")
        session.dispatch(INITIALIZED)
        session.dispatch(call(1, "where"))
        peer.wait_for(lambda p: "roots/list" in p.methods())
        asked = next(n for n in peer.notifications if n.get("method") == "roots/list")
        assert asked == {"jsonrpc": "2.0", "id": "polymcp:1", "method": "roots/list", "params": {}}
        session.dispatch(json.dumps({"jsonrpc": "2.0", "id": "polymcp:1",
                                     "result": {"roots": [{"uri": "file:///w"}]}}).encode())
        assert peer.answer(1)["result"] == {"content": [{"type": "text", "text": "file:///w"}]}

        meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"roots": {}}}
        session.dispatch(call(2, "where", meta=meta))
        first = peer.answer(2)["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {"client_roots": {"method": "roots/list", "params": {}}}
        session.dispatch(json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "where", "arguments": {}, "_meta": meta, "requestState": first["requestState"],
            "inputResponses": {"client_roots": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}}}}).encode())
        assert peer.answer(3)["result"]["content"] == [{"type": "text", "text": "file:///a,file:///b"}]

        # Several questions in one round go out in one input_required.
        @server.tool()
        async def both(ctx: polymcp.Context) -> str:
            got = await ctx.ask({"user_name": ("elicitation/create", {
                "message": "What is your name?", "requestedSchema": {"type": "object", "properties": {
                    "name": {"type": "string"}}, "required": ["name"]}}),
                "client_roots": ("roots/list", {})})
            return f"{got['user_name']['content']['name']} {len(got['client_roots']['roots'])}"

        meta2 = {**meta, "io.modelcontextprotocol/clientCapabilities": {"roots": {}, "elicitation": {}}}
        session.dispatch(call(4, "both", meta=meta2))
        round1 = peer.answer(4)["result"]
        assert sorted(round1["inputRequests"]) == ["client_roots", "user_name"]
        session.dispatch(json.dumps({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {
            "name": "both", "arguments": {}, "_meta": meta2, "requestState": round1["requestState"],
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}},
                               "client_roots": {"roots": [{"uri": "file:///a"}]}}}}).encode())
        assert peer.answer(5)["result"]["content"] == [{"type": "text", "text": "Ada 1"}]
    finally:
        server.close()


MODERN = "2026-07-28"


def modern_call(id: Any, name: str, caps: dict[str, Any], **extra: Any) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
        "name": name, "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": caps}, **extra}}).encode()


def test_input_state_comes_back_on_the_retry(lib: _native.Library) -> None:
    """ctx.set_input_state keeps bytes for the next round (2026-07-28: signed
    in requestState); ctx.input_state reads them back, and a changed
    requestState is refused by the core."""
    server = polymcp.Server("state")
    seen: list[bytes] = []

    @server.tool()
    async def confirm(ctx: polymcp.Context) -> str:
        seen.append(ctx.input_state)
        ctx.set_input_state("round-1 \u00e9")
        answer = await ctx.elicit("OK?", {"type": "object", "properties": {"ok": {"type": "boolean"}}},
                                  key="confirm")
        return f"{ctx.input_state.decode()} {answer['content']['ok']}"

    try:
        peer, session = connect(server)
        session.dispatch(modern_call(1, "confirm", {"elicitation": {}}))
        first = peer.answer(1)["result"]
        assert first["resultType"] == "input_required"
        assert first["inputRequests"] == {"confirm": {"method": "elicitation/create", "params": {
            "message": "OK?", "requestedSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}}}}}
        assert seen == [b""]
        session.dispatch(modern_call(2, "confirm", {"elicitation": {}}, requestState=first["requestState"],
                                     inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}}))
        assert peer.answer(2)["result"]["content"] == [{"type": "text", "text": "round-1 \u00e9 True"}]
        assert seen == [b"", "round-1 \u00e9".encode()]

        session.dispatch(modern_call(3, "confirm", {"elicitation": {}}, requestState=first["requestState"][:-4] + "AAAA",
                                     inputResponses={"confirm": {"action": "accept", "content": {"ok": True}}}))
        assert peer.answer(3) == {"jsonrpc": "2.0", "id": 3, "error": {
            "code": -32602, "message": "params.requestState is invalid: integrity check failed"}}
    finally:
        server.close()


def test_declared_sees_the_clients_capabilities(lib: _native.Library) -> None:
    """ctx.declared(method): from _meta's clientCapabilities on 2026-07-28,
    from initialize before."""
    server = polymcp.Server("caps")

    @server.tool()
    def kinds(ctx: polymcp.Context) -> str:
        return ",".join(m for m in ("elicitation/create", "sampling/createMessage", "roots/list", "ping")
                        if ctx.declared(m)) or "none"

    try:
        peer, session = connect(server)  # INIT declares no capabilities
        session.dispatch(call(1, "kinds"))
        assert peer.answer(1)["result"] == {"content": [{"type": "text", "text": "none"}]}
        session.dispatch(modern_call(2, "kinds", {"sampling": {}, "roots": {"listChanged": True}}))
        assert peer.answer(2)["result"]["content"] == [{"type": "text", "text": "sampling/createMessage,roots/list"}]
        session.dispatch(modern_call(3, "kinds", {"elicitation": {}, "sampling": True}))
        assert peer.answer(3)["result"]["content"] == [{"type": "text", "text": "elicitation/create"}]
    finally:
        server.close()


def test_a_malformed_answer_is_invalid_params(lib: _native.Library) -> None:
    """An elicitation answer without a valid action is -32602 from ctx.elicit."""
    server = polymcp.Server("bad")

    @server.prompt()
    async def ask(ctx: polymcp.Context) -> str:
        answer = await ctx.elicit("Name?", {"type": "object", "properties": {}}, key="name")
        return str(answer)

    try:
        peer, session = connect(server)
        session.dispatch(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "prompts/get", "params": {
            "name": "ask", "inputResponses": {"name": {"action": "maybe"}}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}}}}).encode())
        assert peer.answer(1) == {"jsonrpc": "2.0", "id": 1, "error": {"code": -32602, "message": (
            "name: the answer to elicitation/create has no valid action (accept, decline or cancel)")}}
    finally:
        server.close()


@pytest.mark.parametrize("piece", [
    "plain ascii ",
    'quotes " and \\ backslashes \\" ',
    "lines\nand\r\ntabs\t ",
    "caf\u00e9 \u2028 \U0001f600 ",
    "a control \x01 character and \x1f ",  # left raw by the fast body: the core refuses it, json.dumps follows
])
def test_long_text_results_reach_the_client_exactly(lib: _native.Library, piece: str) -> None:
    """A str return of 2 KiB or more is encoded without json.dumps; the
    client gets exactly the text, whatever it holds."""
    server = polymcp.Server("long")
    text = piece * (4096 // len(piece) + 1)

    @server.tool()
    def long() -> str:
        return text

    try:
        peer, session = connect(server)
        session.dispatch(call(1, "long"))
        assert peer.answer(1) == {"jsonrpc": "2.0", "id": 1, "result": {
            "content": [{"type": "text", "text": text}]}}
    finally:
        server.close()
