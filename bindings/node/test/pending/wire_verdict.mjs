// Judges `go test -json` output of the stdio wire transcripts replayed
// against the Node fixture (mk/node.mk pipes it here): every transcript
// must pass except those listed in interactive.json, which must still fail
// or be skipped by the Go test itself (it skips the transcripts that ask the
// client for input when -fixture is set); a listed one that passes must be
// removed from the list. Exits 1 otherwise.
//
//   go test -json ./examples/everything -run 'TestWire/.*/.*/stdio' -fixture '...' | node wire_verdict.mjs
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const pending = new Set(JSON.parse(readFileSync(new URL("./interactive.json", import.meta.url), "utf8")).wire);
const verdicts = new Map();
const output = new Map();

for await (const line of createInterface({ input: process.stdin })) {
  let ev;
  try {
    ev = JSON.parse(line);
  } catch {
    process.stdout.write(line + "\n"); // build errors and the like
    continue;
  }
  if (!/^TestWire\/[^/]+\/[^/]+\/stdio$/.test(ev.Test ?? "")) {
    if (ev.Action === "fail" && ev.Test === undefined) {
      verdicts.set("(package)", "fail");
    }
    continue;
  }
  if (ev.Action === "output") {
    output.set(ev.Test, (output.get(ev.Test) ?? "") + ev.Output);
  } else if (ev.Action === "pass" || ev.Action === "fail" || ev.Action === "skip") {
    verdicts.set(ev.Test, ev.Action);
  }
}
verdicts.delete("(package)");

const problems = [];
let passed = 0;
let pendingFailed = 0;
let pendingSkipped = 0;
for (const [test, verdict] of [...verdicts].sort()) {
  if (pending.has(test)) {
    if (verdict === "fail") {
      pendingFailed++;
    } else if (verdict === "skip") {
      pendingSkipped++;
    } else {
      problems.push(`${test}: ${verdict}, but it is listed as pending in interactive.json (remove it from the list)`);
    }
  } else if (verdict === "pass") {
    passed++;
  } else {
    problems.push(`${test}: ${verdict}\n${output.get(test) ?? ""}`);
  }
}
for (const test of pending) {
  if (!verdicts.has(test)) {
    problems.push(`${test}: listed as pending in interactive.json but did not run`);
  }
}
console.log(
  `stdio wire transcripts against the Node fixture: ${verdicts.size} run, ${passed} passed, ` +
    `${pendingFailed} failed and ${pendingSkipped} skipped by the Go test, as listed pending (interactive features), ` +
    `${problems.length} problems`,
);
if (verdicts.size === 0) {
  problems.push("no transcript ran");
}
for (const p of problems) {
  console.log(p);
}
process.exit(problems.length === 0 ? 0 : 1);
