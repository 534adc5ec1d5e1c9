// A NativeBinding written in JS, standing in for the addon in tests of the
// JS layer: it records what the server registers and answers, and plays the
// core's side of calls through the same event callback the addon uses.
import assert from "node:assert/strict";

import { CallKind, EventType, setNativeForTesting } from "../dist/native.js";

export { CallKind, EventType };

export class FakeNative {
  servers = [];

  load() {
    return (1 << 16) | 4;
  }
  version() {
    return "0.0.0-fake";
  }
  serverNew(optionsJson, onEvent) {
    const server = new FakeServer(JSON.parse(optionsJson), onEvent);
    this.servers.push(server);
    return server;
  }
  serverAddTool(s, json, tag) {
    s.add("tool", json, tag);
  }
  serverAddTaskTool(s, json, taskJson, tag) {
    s.add("tool", json, tag, JSON.parse(taskJson));
  }
  serverAddResource(s, json, tag) {
    s.add("resource", json, tag);
  }
  serverAddResourceTemplate(s, json, tag) {
    s.add("template", json, tag);
  }
  serverAddPrompt(s, json, tag) {
    s.add("prompt", json, tag);
  }
  serverSetCompleter(s, json, tag) {
    s.add("completer", json, tag);
  }
  serverRemove(s, tag) {
    assert.ok(s.catalogue.delete(tag), `remove of unknown tag ${tag}`);
  }
  serverNotify() {}
  serveStdio(s, optionsJson) {
    assert.deepEqual(JSON.parse(optionsJson), { stdout_to_stderr: true });
    s.serving = "stdio";
  }
  serveHttp(s, optionsJson) {
    s.serving = JSON.parse(optionsJson);
    return "http://127.0.0.1:1/mcp";
  }
  serverClose(s) {
    s.close();
  }
  serverFree(s) {
    s.freed = true;
  }
  callComplete(call, json) {
    return this.#answer(call, { result: JSON.parse(json) });
  }
  // The calls answered with callCompleteText, in order.
  texts = [];
  callCompleteText(call, text) {
    this.texts.push(call);
    return this.#answer(call, { result: { content: [{ type: "text", text }] } });
  }
  callFail(call, code, message) {
    return this.#answer(call, { error: { code, message } });
  }
  callFailData(call, code, message, json) {
    return this.#answer(call, { error: { code, message, data: JSON.parse(json) } });
  }
  callProgress(call, json) {
    const c = this.#find(call);
    if (!c || c.answer) {
      return -3;
    }
    c.progress.push(JSON.parse(json));
    return 0;
  }
  callLog(call, json) {
    return this.callProgress(call, json);
  }
  callInfo(call) {
    const c = this.#find(call);
    return c && !c.answer ? JSON.stringify({ method: "tools/call", revision: "2025-06-18" }) : undefined;
  }
  // Questions are recorded, never answered: tests answer with answerInput.
  inputs = [];
  callInput(s, call, id, json) {
    this.inputs.push({ server: s, call, id, requests: JSON.parse(json) });
  }
  answerInput(input, status, payload) {
    setImmediate(() => input.server.onEvent(EventType.Input, 0n, status, input.id, payload));
  }
  callInputState() {
    return "";
  }
  callSetInputState() {
    return 0;
  }
  // Like the core: a call of a task tool whose params say the request
  // declared the extension (here: params.taskable) becomes a task; any
  // other is POLYMCP_E_INVALID. The calls that became tasks, in order.
  tasks = [];
  callStartTask(call) {
    const c = this.#find(call);
    if (!c || c.answer) {
      return -3;
    }
    if (!c.taskable) {
      return -1;
    }
    this.tasks.push(call);
    return 0;
  }
  stats() {
    return JSON.stringify({ servers: this.servers.filter((s) => !s.freed).length, calls: 0, sessions: 0, goroutines: 0 });
  }

  #find(call) {
    for (const s of this.servers) {
      const c = s.calls.get(call);
      if (c) {
        return c;
      }
    }
    return undefined;
  }

  #answer(call, answer) {
    const c = this.#find(call);
    assert.ok(c, `answer for unknown call ${call}`);
    assert.equal(c.answer, undefined, `call ${call} answered twice`);
    c.answer = answer;
    c.resolve(answer);
    return c.cancelled ? -3 : 0;
  }

  install() {
    const previous = setNativeForTesting(this);
    return () => setNativeForTesting(previous);
  }
}

// Call handles are unique in the process, as the core's are.
let nextCall = 1n;

class FakeServer {
  catalogue = new Map();
  calls = new Map();
  serving = undefined;
  freed = false;

  constructor(options, onEvent) {
    this.options = options;
    this.onEvent = onEvent;
  }

  add(kind, json, tag, task) {
    assert.ok(!this.catalogue.has(tag), `tag ${tag} reused`);
    this.catalogue.set(tag, { kind, ...JSON.parse(json), ...(task && { task }) });
  }

  tagOf(kind, key) {
    for (const [tag, item] of this.catalogue) {
      const ref = item.kind === "completer" ? `${item.type}:${item.name ?? item.uri}` : undefined;
      if (item.kind === kind && (item.name === key || item.uri === key || item.uriTemplate === key || ref === key)) {
        return tag;
      }
    }
    throw new Error(`no ${kind} ${key}`);
  }

  // Starts a call the way the addon delivers one: later, on the JS thread
  // (or, with now, inside this function, to see what the event callback itself did).
  call(kind, tag, params, now = false) {
    const id = nextCall++;
    const c = { progress: [], answer: undefined, cancelled: false, taskable: this.catalogue.get(tag)?.task !== undefined && params?.taskable === true };
    c.done = new Promise((resolve) => (c.resolve = resolve));
    this.calls.set(id, c);
    const deliver = () => this.onEvent(EventType.Call, id, kind, tag, params === undefined ? undefined : JSON.stringify(params));
    if (now) {
      deliver();
    } else {
      setImmediate(deliver);
    }
    return { id, ...c, done: c.done, state: c };
  }

  cancel(id) {
    this.calls.get(id).cancelled = true;
    setImmediate(() => this.onEvent(EventType.Cancel, id, 0, 0, undefined));
  }

  log(level, message) {
    setImmediate(() => this.onEvent(EventType.Log, 0n, level, 0, message));
  }

  close() {
    setImmediate(() => {
      for (const [id, c] of this.calls) {
        if (!c.answer) {
          this.onEvent(EventType.Cancel, id, 0, 0, undefined);
        }
      }
      this.onEvent(EventType.Closed, 0n, 0, 0, undefined);
    });
  }
}
