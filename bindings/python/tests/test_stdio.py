"""End to end over stdio: ``python -m polymcp.everything`` in a subprocess,
literal JSON lines in, answers checked line by line."""

import base64
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from polymcp import _native

from .wire import INIT, INITIALIZED, Peer

SRC = Path(__file__).resolve().parent.parent / "src"
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="


class Child:
    def __init__(self, *args: str) -> None:
        _native.load_library()  # the child finds the same library the same way
        env = {**os.environ, "PYTHONPATH": str(SRC)}
        self.proc = subprocess.Popen([sys.executable, *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        self.peer = Peer()
        self.lines: list[bytes] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line)
            self.peer.receive(line)

    def send(self, *lines: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"".join(line + b"\n" for line in lines))
        self.proc.stdin.flush()

    def result(self, id: Any) -> Any:
        answer = self.peer.answer(id)
        assert "result" in answer, answer
        return answer["result"]

    def stop(self) -> tuple[int, bytes]:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        code = self.proc.wait(30)
        self._reader.join(30)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()


@pytest.fixture()
def everything() -> Iterator[Child]:
    child = Child("-m", "polymcp.everything")
    child.send(INIT, INITIALIZED)
    child.peer.answer("init")
    yield child
    if child.proc.poll() is None:
        child.proc.kill()
        child.proc.wait(30)


def test_initialize_names_the_fixture(everything: Child) -> None:
    init = everything.peer.answer("init")["result"]
    assert init["serverInfo"] == {"name": "polymcp-everything", "title": "polymcp everything",
                                  "version": "0.1.0"}
    assert set(init["capabilities"]) >= {"tools", "resources", "prompts", "completions", "logging"}


def test_catalogue_matches_the_go_fixture(everything: Child) -> None:
    everything.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
                    b'{"jsonrpc":"2.0","id":2,"method":"resources/list"}',
                    b'{"jsonrpc":"2.0","id":3,"method":"resources/templates/list"}',
                    b'{"jsonrpc":"2.0","id":4,"method":"prompts/list"}')
    tools = {t["name"]: t for t in everything.result(1)["tools"]}
    assert list(tools) == [  # in the Go fixture's order
        "echo", "sleep", "test_simple_text", "test_image_content", "test_audio_content",
        "test_embedded_resource", "test_multiple_content_types", "test_error_handling",
        "test_tool_with_logging", "test_logging_tool", "test_tool_with_progress",
        "test_reconnection", "test_trigger_tool_change", "test_trigger_prompt_change",
        "json_schema_2020_12_tool", "test_custom_header",
        # the interactive tools, last
        "test_sampling", "test_elicitation", "test_elicitation_sep1034_defaults",
        "test_elicitation_sep1330_enums", "test_input_required_result_elicitation",
        "test_input_required_result_sampling", "test_input_required_result_list_roots",
        "test_input_required_result_request_state", "test_input_required_result_tampered_state",
        "test_input_required_result_multiple_inputs", "test_input_required_result_multi_round",
        "test_input_required_result_capabilities", "test_missing_capability",
        "test_streaming_elicitation",
        # the tasks extension's tools, last
        "greet", "slow_compute", "failing_job", "protocol_error_job", "confirm_delete",
        "multi_input", "test_tool_with_task"]
    assert tools["echo"] == {"name": "echo", "description": "Returns its text argument as one text item",
                             "inputSchema": {"type": "object", "properties": {"text": {
                                 "type": "string", "description": "the text to return"}},
                                 "required": ["text"], "additionalProperties": False}}
    assert tools["sleep"]["description"] == (
        'Waits ms milliseconds, reporting progress when asked, then returns "slept"')
    assert tools["test_simple_text"]["inputSchema"] == {"type": "object", "properties": {}}
    assert tools["json_schema_2020_12_tool"]["inputSchema"]["$defs"]["address"]["$anchor"] == "addressDef"
    assert [r["uri"] for r in everything.result(2)["resources"]] == [
        "test://static-text", "test://static-binary", "test://watched-resource"]
    assert everything.result(3)["resourceTemplates"] == [{
        "uriTemplate": "test://template/{id}/data", "name": "template", "title": "Resource Template",
        "description": "A resource template with parameter substitution",
        "mimeType": "application/json"}]
    prompts = {p["name"]: p for p in everything.result(4)["prompts"]}
    assert sorted(prompts) == ["test_input_required_result_prompt", "test_prompt_with_arguments",
                               "test_prompt_with_embedded_resource", "test_prompt_with_image",
                               "test_simple_prompt"]
    assert prompts["test_prompt_with_arguments"]["arguments"] == [
        {"name": "arg1", "description": "First test argument", "required": True},
        {"name": "arg2", "description": "Second test argument", "required": True}]


CALLS: list[tuple[bytes, Any]] = [
    (b'{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\\u00e9"}}}',
     {"content": [{"type": "text", "text": "hé"}]}),
    (b'{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}',
     {"content": [{"type": "text", "text": "This is a simple text response for testing."}]}),
    (b'{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"test_image_content"}}',
     {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}),
    (b'{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"test_error_handling","arguments":{}}}',
     {"content": [{"type": "text", "text": "This tool intentionally returns an error for testing"}],
      "isError": True}),
    (b'{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"test_embedded_resource","arguments":{}}}',
     {"content": [{"type": "resource", "resource": {"uri": "test://embedded-resource",
                                                    "mimeType": "text/plain",
                                                    "text": "This is an embedded resource content."}}]}),
    (b'{"jsonrpc":"2.0","id":15,"method":"resources/read","params":{"uri":"test://template/42/data"}}',
     {"contents": [{"uri": "test://template/42/data", "mimeType": "application/json",
                    "text": '{"id":"42","templateTest":true,"data":"Data for ID: 42"}'}]}),
    (b'{"jsonrpc":"2.0","id":16,"method":"resources/read","params":{"uri":"test://static-binary"}}',
     {"contents": [{"uri": "test://static-binary", "mimeType": "image/png", "blob": PNG}]}),
    (b'{"jsonrpc":"2.0","id":17,"method":"prompts/get","params":{"name":"test_prompt_with_arguments","arguments":{"arg1":"a","arg2":"b"}}}',
     {"messages": [{"role": "user", "content": {"type": "text",
                                                "text": "Prompt with arguments: arg1='a', arg2='b'"}}]}),
    (b'{"jsonrpc":"2.0","id":18,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"test_prompt_with_arguments"},"argument":{"name":"arg1","value":"par"}}}',
     {"completion": {"values": ["paris", "park", "party"]}}),
    (b'{"jsonrpc":"2.0","id":19,"method":"tools/call","params":{"name":"json_schema_2020_12_tool","arguments":{"name":"n","email":"n@example.com"}}}',
     {"content": [{"type": "text", "text": 'Received: {"name":"n","email":"n@example.com"}'}]}),
]


def test_calls_answer_like_the_go_fixture(everything: Child) -> None:
    everything.send(*(line for line, _ in CALLS))
    for line, expected in CALLS:
        assert everything.result(json.loads(line)["id"]) == expected
    assert base64.b64decode(PNG).startswith(b"\x89PNG")


def test_sleep_reports_progress_and_unknown_tools_are_errors(everything: Child) -> None:
    everything.send(b'{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"sleep",'
                    b'"arguments":{"ms":40},"_meta":{"progressToken":"p"}}}',
                    b'{"jsonrpc":"2.0","id":"u","method":"tools/call","params":{"name":"missing"}}')
    assert everything.result("s") == {"content": [{"type": "text", "text": "slept"}]}
    progress = [n["params"]["progress"] for n in everything.peer.notifications
                if n.get("method") == "notifications/progress"]
    assert progress == [4.0 * i for i in range(1, 11)]
    assert everything.peer.answer("u")["error"]["code"] == -32602


def test_sleep_is_cancelled_without_an_answer(everything: Child) -> None:
    everything.send(b'{"jsonrpc":"2.0","id":"long","method":"tools/call","params":{"name":"sleep",'
                    b'"arguments":{"ms":60000}}}',
                    b'{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"long"}}',
                    b'{"jsonrpc":"2.0","id":"after","method":"ping"}')
    assert everything.result("after") == {}
    code, _ = everything.stop()
    assert code == 0
    assert "long" not in everything.peer.answers


def test_trigger_tool_change_notifies(everything: Child) -> None:
    everything.send(b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"test_trigger_tool_change"}}')
    assert everything.result(1) == {"content": [{"type": "text", "text": "Added tool test_dynamic_tool_1"}]}
    everything.peer.wait_for(lambda p: "notifications/tools/list_changed" in p.methods())
    everything.send(b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"test_dynamic_tool_1"}}')
    assert everything.result(2) == {"content": [{"type": "text", "text": "dynamic tool test_dynamic_tool_1"}]}


def test_every_stdout_line_is_protocol_and_exit_is_clean(everything: Child) -> None:
    everything.send(b'{"jsonrpc":"2.0","id":1,"method":"ping"}')
    everything.result(1)
    code, stderr = everything.stop()
    assert code == 0, stderr
    assert all(json.loads(line)["jsonrpc"] == "2.0" for line in everything.lines)


def test_stray_prints_go_to_stderr_not_the_protocol() -> None:
    script = ("import polymcp\n"
              "s = polymcp.Server('printer')\n"
              "@s.tool()\n"
              "def noisy() -> str:\n"
              "    print('debug output')\n"
              "    return 'ok'\n"
              "s.run()\n")
    child = Child("-c", script)
    child.send(INIT, INITIALIZED,
               b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"noisy"}}')
    assert child.result(1) == {"content": [{"type": "text", "text": "ok"}]}
    code, stderr = child.stop()
    assert code == 0
    assert b"debug output" in stderr
    assert all(line.startswith(b"{") for line in child.lines)
