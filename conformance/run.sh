#!/usr/bin/env bash
# run.sh — grade `polymcp everything --http` with the official MCP
# conformance runner, pinned by package-lock.json in this folder.
#
# usage: conformance/run.sh NAME [RUNNER_ARGS...]
#   NAME         label of the run (results go to build/conformance/NAME)
#   RUNNER_ARGS  passed to `conformance server`, e.g. --requirements 2026-07-28
#
# POLYMCP_SERVER overrides the fixture command (default: build/polymcp
# everything); it is run with `--http 127.0.0.1:0` appended and must print
# its URL (http://127.0.0.1:PORT/mcp) on stderr, as every polymcp fixture
# does (Go, C, Python, Node). Every fixture is graded against the same
# baseline, expected-failures.yml.
#
# The server is started on 127.0.0.1 port 0 and stopped afterwards. Failures
# listed in expected-failures.yml are tolerated; any other failure, and any
# listed scenario that starts passing, fails the run (the runner's rule).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
name="${1:?usage: run.sh NAME [RUNNER_ARGS...]}"; shift
server_cmd="${POLYMCP_SERVER:-$root/build/polymcp everything}"
out="$root/build/conformance/$name"

# shellcheck source=common.sh
source "$here/common.sh"

rm -rf "$out" && mkdir -p "$out"
# shellcheck disable=SC2086 # the command is a word list on purpose
$server_cmd --http 127.0.0.1:0 2>"$out/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true' EXIT
url=""
for _ in $(seq 1 100); do
  url="$(grep -o 'http://127\.0\.0\.1:[0-9]*/mcp' "$out/server.log" | head -n1 || true)"
  [[ -n "$url" ]] && break
  kill -0 "$server" 2>/dev/null || { cat "$out/server.log" >&2; exit 1; }
  sleep 0.1
done
[[ -n "$url" ]] || { echo "run.sh: the server printed no URL" >&2; cat "$out/server.log" >&2; exit 1; }

echo "conformance $name: $url $*" >&2
set +e
"$node" "$runner" server --url "$url" -o "$out" \
  --expected-failures "$here/expected-failures.yml" "$@" >"$out/runner.txt" 2>&1
rc=$?
set -e
summary "$out/runner.txt"
exit "$rc"
