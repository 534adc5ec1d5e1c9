// A call's cancellation makes its AbortSignal only on demand, and a signal
// read after the cancellation is already aborted.
import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { CallContext, Cancellation } from "../dist/context.js";

const host = { progress() {}, log() {} };

describe("Cancellation", () => {
  it("aborts a signal read before the cancellation", () => {
    const c = new Cancellation();
    const extra = new CallContext(1n, c, host, {});
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
    const c = new Cancellation();
    const extra = new CallContext(1n, c, host, { revision: "2025-06-18" });
    c.abort();
    assert.equal(extra.signal.aborted, true);
    assert.equal(extra.revision, "2025-06-18");
  });
});
