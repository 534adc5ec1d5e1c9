// A line-level client for tests: spawns a server script, writes literal
// JSON lines to its stdin and reads its stdout line by line.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

export const EVERYTHING = fileURLToPath(new URL("../examples/everything.mjs", import.meta.url));
export const PROBE = fileURLToPath(new URL("./fixtures/probe.mjs", import.meta.url));

// Only a failure bound: a loaded 2-core machine may be slow, never this slow.
const TIMEOUT_MS = 30_000;

export class StdioClient {
  #lines = [];
  #waiters = [];
  stderr = "";

  /** Runs a .mjs script with this node, anything else as a program. */
  constructor(program, args = []) {
    const [cmd, argv] = program.endsWith(".mjs") ? [process.execPath, [program, ...args]] : [program, args];
    this.child = spawn(cmd, argv, { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stderr.setEncoding("utf8").on("data", (d) => (this.stderr += d));
    createInterface({ input: this.child.stdout }).on("line", (line) => {
      this.#lines.push(line);
      this.#wake();
    });
    this.exited = once(this.child, "exit").then(([code, signal]) => ({ code, signal }));
  }

  send(...lines) {
    this.child.stdin.write(lines.map((l) => l + "\n").join(""));
  }

  /** The next line matching pred (lines before it that do not match stay queued). */
  next(pred = () => true, what = "a line") {
    return new Promise((resolve, reject) => {
      const waiter = { pred, resolve, reject };
      waiter.timer = setTimeout(() => {
        this.#waiters.splice(this.#waiters.indexOf(waiter), 1);
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`));
      }, TIMEOUT_MS);
      this.#waiters.push(waiter);
      this.#wake();
    });
  }

  /** The answer to the request with this id, parsed. */
  answer(id) {
    return this.next((l) => JSON.parse(l).id === id, `the answer to id ${id}`).then(JSON.parse);
  }

  /** Every line not taken yet. */
  get pending() {
    return this.#lines;
  }

  #wake() {
    for (const w of [...this.#waiters]) {
      const i = this.#lines.findIndex(w.pred);
      if (i >= 0) {
        const [line] = this.#lines.splice(i, 1);
        this.#waiters.splice(this.#waiters.indexOf(w), 1);
        clearTimeout(w.timer);
        w.resolve(line);
      }
    }
  }

  /** Closes stdin and waits for the exit. */
  async end() {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), TIMEOUT_MS);
    const result = await this.exited;
    clearTimeout(timer);
    return result;
  }
}

export const INIT =
  '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}';
export const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
