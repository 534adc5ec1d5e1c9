#!/usr/bin/env bash
# polymcp's Python and Node bindings against their languages' official SDKs.
#
#   bench/lang/run.sh python|node|all [bench.py flags...]
#   bench/lang/run.sh profile python|node   where polymcp's time goes (profile.py)
#
# Sets up what it needs itself: libpolymcp (make build-capi) when missing,
# the Node addon (make -C bindings/node build, incremental), a venv with the
# pinned Python peers in bench/lang/.venv, `npm ci` in bench/servers/node,
# and the bench driver in bench/bin/mcpbench. Reports go to
# bench/results/<UTC date>-python.{md,json} and -node.{md,json}.
# Defaults: C=1,16,64, 16 B and 64 KiB, 1 s warmup + 3 s window, 1 round,
# 5 cold starts. Flags after the language go to bench.py
# (`python3 bench/lang/bench.py -h`), e.g. --rounds 2 or --transports stdio.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bench="$(dirname "$here")"
root="$(dirname "$bench")"
lang="${1:-all}"
shift || true
PYTHON="${PYTHON:-python3}"
NODE="${NODE:-node}"
NPM="${NPM:-npm}"
GO="${GO:-go}"

profile=false
if [ "$lang" = profile ]; then
	profile=true
	lang="${1:-}"
	shift || true
fi
case "$lang" in
python | node | all) ;;
*)
	echo "usage: $0 python|node|all [bench.py flags] | $0 profile python|node" >&2
	exit 2
	;;
esac

log() { echo "bench/lang: $*" >&2; }

need_capi() {
	if [ ! -f "$root/build/libpolymcp.so" ]; then
		log "building libpolymcp (make build-capi)"
		make -C "$root" build-capi >&2
	fi
}

driver() {
	# The driver as it is in this tree; if the tree's driver does not build
	# (someone is mid-edit), the committed one.
	if (cd "$bench" && "$GO" build -o bin/mcpbench ./cmd/mcpbench) 2>/dev/null; then
		return
	fi
	log "bench/cmd/mcpbench does not build in the work tree; building the committed one"
	local tmp
	tmp="$(mktemp -d)"
	(cd "$root" && git archive HEAD bench | tar -x -C "$tmp")
	(cd "$tmp/bench" && "$GO" build -o "$bench/bin/mcpbench" ./cmd/mcpbench)
	rm -rf "$tmp"
}

venv() {
	local v="$here/.venv" req="$bench/servers/python/requirements.txt"
	local stamp="$here/.venv/.requirements.sha256" sum
	sum="$(sha256sum "$req" | cut -d' ' -f1)"
	if [ -x "$v/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$sum" ]; then
		return
	fi
	log "creating $v with the pinned Python peers"
	rm -rf "$v"
	"$PYTHON" -m venv "$v"
	"$v/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2
	echo "$sum" >"$stamp"
}

node_deps() {
	local d="$bench/servers/node"
	if [ ! -f "$d/node_modules/.package-lock.json" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
		log "npm ci in bench/servers/node"
		(cd "$d" && "$NPM" ci --no-audit --no-fund --loglevel=error >&2)
	fi
	# Incremental: rebuilds the addon, or recopies libpolymcp.so, only when they changed.
	make -s -C "$root/bindings/node" build >&2
}

need_capi
driver
cd "$bench"
if $profile; then
	# The bottleneck configuration (C=16) at both payloads, both handler
	# kinds; profile.py appends to today's <lang>.profile.md, started afresh.
	for l in python node; do
		if [ "$lang" = "$l" ] || [ "$lang" = all ]; then rm -f "$bench/results/$(date -u +%F)-$l.profile.md"; fi
	done
	# profile_lang LANG RUNTIME_FLAG RUNTIME HANDLERS [ARGS]: every handler kind at both payloads.
	profile_lang() {
		local l=$1 flag=$2 runtime=$3 h p
		shift 3
		for h in $1; do
			for p in 16 65536; do
				"$PYTHON" "$here/profile.py" "$l" "$flag" "$runtime" --handler "$h" --payload "$p" "${@:2}"
			done
		done
	}
	if [ "$lang" = python ] || [ "$lang" = all ]; then
		venv
		profile_lang python --python "$here/.venv/bin/python" "sync async" "$@"
	fi
	if [ "$lang" = node ] || [ "$lang" = all ]; then
		node_deps
		profile_lang node --node "$NODE" "async sync" "$@"
	fi
	exit 0
fi
if [ "$lang" = python ] || [ "$lang" = all ]; then
	venv
	"$here/.venv/bin/python" "$here/bench.py" python --python "$here/.venv/bin/python" "$@"
fi
if [ "$lang" = node ] || [ "$lang" = all ]; then
	node_deps
	"$PYTHON" "$here/bench.py" node --node "$NODE" "$@"
fi
