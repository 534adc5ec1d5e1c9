#!/usr/bin/env bash
# run-client.sh — grade polymcp's client (conformance/client, built by
# `make build` as build/conformance-client) with the official MCP
# conformance runner, pinned by package-lock.json in this folder.
#
# usage: conformance/run-client.sh NAME [RUNNER_ARGS...]
#   NAME         label of the run (results go to build/conformance/client-NAME)
#   RUNNER_ARGS  passed to `conformance client`, e.g. --requirements 2026-07-28
#
# POLYMCP_CLIENT overrides the client command (default: build/conformance-
# client). For each scenario the runner starts a mock server on localhost
# and runs `<command> <server-url>`, cutting the command at spaces (so no
# path in it may hold one). This script builds nothing.
#
# Failures listed under `client:` in expected-failures.yml, the baseline
# run.sh uses too, are tolerated; any other failure, and any listed
# scenario that starts passing, fails the run (the runner's rule).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
name="${1:?usage: run-client.sh NAME [RUNNER_ARGS...]}"; shift
client_cmd="${POLYMCP_CLIENT:-$root/build/conformance-client}"
out="$root/build/conformance/client-$name"

# shellcheck source=common.sh
source "$here/common.sh"
command -v "${client_cmd%% *}" >/dev/null || { echo "run-client.sh: no client ${client_cmd%% *} (make build)" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out"
echo "conformance client-$name: $client_cmd $*" >&2
set +e
"$node" "$runner" client --command "$client_cmd" -o "$out" \
  --expected-failures "$here/expected-failures.yml" "$@" >"$out/runner.txt" 2>&1
rc=$?
set -e
summary "$out/runner.txt"
exit "$rc"
