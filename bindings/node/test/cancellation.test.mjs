// A call's cancellation makes its AbortSignal only on demand, and a signal
// read after the cancellation is already aborted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { CallContext } from "../dist/context.js";

const host = { progress() {}, log() {} };

describe("a call's cancellation", () => {
  it("aborts a signal read before the cancellation", () => {
    const c = new CallContext(1n, host, {});
    const extra = c;
    const signal = extra.signal;
    let fired = 0;
    signal.addEventListener("abort", () => fired++);
    assert.equal(signal.aborted, false);
    c.abort();
    c.abort();
    assert.equal(signal.aborted, true);
    assert.equal(fired, 1, "abort fires once");
    assert.equal(extra.signal, signal, "the same signal every time");
  });

  it("hands out an aborted signal when read after the cancellation", () => {
    const c = new CallContext(1n, host, { revision: "2025-06-18" });
    const extra = c;
    c.abort();
    assert.equal(extra.signal.aborted, true);
    assert.equal(extra.revision, "2025-06-18");
  });
});
