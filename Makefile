# polymcp — one MCP implementation, written once in Go, for every language.
# `make help` lists the targets. Every target works on a fresh clone; tools
# that are missing (Go modules, the conformance runner) are fetched on use.

GO        ?= go
BUILD     := build
BIN       := $(BUILD)/polymcp
GOFLAGS   ?=
# Fuzz budgets are counts, not durations: a duration races Go 1.26's fuzz
# coordinator at its deadline and fails with a bare "context deadline
# exceeded" on a loaded machine (go.dev/issue/75804, fixed in Go 1.27).
FUZZTIME  ?= 30000x
# Packages whose tests run with the race detector: the concurrent core.
RACE_PKGS := ./core/... ./transport/... ./mcp/... ./client/...

.DEFAULT_GOAL := help
.PHONY: help build test test-go test-race test-fuzz test-python test-node test-bench conformance bench demo clean

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# The language fragments (mk/*.mk) append their package builds to BUILD_PARTS.
BUILD_PARTS :=

build: $(BIN) $(BUILD)/conformance-client build-capi build-parts ## build build/polymcp, the conformance client, libpolymcp.so, polymcp.h, the C example and the language packages of mk/*.mk

$(BIN): FORCE
	$(GO) build $(GOFLAGS) -trimpath -o $@ ./cmd/polymcp

# polymcp's client as the conformance runner drives it (conformance/run-client.sh).
$(BUILD)/conformance-client: FORCE
	$(GO) build $(GOFLAGS) -trimpath -o $@ ./conformance/client

FORCE:

demo: build ## the main job: serve the everything example (Go, then the Python and Node bindings' own) and call it with polymcp's client; then the C, Python and Node clients each call another language's server
	$(BIN) demo
	PYTHONPATH=$(PY_SRC) $(BIN) demo --server '$(PY_FIXTURE)'
	$(BIN) demo --server '$(NODE_FIXTURE)'
	@echo "== the C client calls the Node server =="
	$(CAPI_CLIENT) -- $(NODE_FIXTURE)
	@echo "== the Python client calls the Node server =="
	PYTHONPATH=$(PY_SRC) python3 bindings/python/examples/client.py -- $(NODE_FIXTURE)
	@echo "== the Node client calls the Python server =="
	PYTHONPATH=$(PY_SRC) node bindings/node/examples/client.mjs -- $(PY_FIXTURE)

test: test-go test-race test-fuzz test-capi test-python test-node test-bench conformance ## run every test (Go, race, fuzz, C ABI, Python, Node, the benchmark tools, conformance)

test-go: build ## gofmt, go vet (here, and for the other systems the Go packages build on) and go test for the whole module
	@unformatted="$$(gofmt -l $$(git ls-files '*.go' | grep -v '^bench/'))"; \
		if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	for os in darwin freebsd windows; do GOOS=$$os GOARCH=amd64 $(GO) vet ./... || exit 1; done
	$(GO) test -count=1 ./...

test-race: ## the core, the transports, the Go API and the client under the race detector
	$(GO) test -race -count=1 $(RACE_PKGS)

test-fuzz: ## run every fuzz target of the main module briefly (FUZZTIME, default 30000x executions each)
	@set -e; grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' core transport client capi mcp cmd examples | \
	while IFS=: read -r file fn; do \
		pkg=./$$(dirname $$file); fn=$${fn#func }; \
		echo "fuzz $$pkg $$fn"; \
		$(GO) test -run='^$$' -fuzz="^$$fn$$" -fuzztime=$(FUZZTIME) $$pkg; \
	done

test-bench: build ## the benchmark module's own tests (the driver's load and HTTP client, the floor) and a short run of bench/lang's Node overhead tool, so the tools behind the numbers do not rot unseen
	@unformatted="$$(cd bench && gofmt -l $$(git ls-files '*.go'))"; \
		if [ -n "$$unformatted" ]; then echo "gofmt needed in bench/:"; echo "$$unformatted"; exit 1; fi
	cd bench && $(GO) vet ./... && $(GO) test -count=1 ./...
	node bench/lang/node_js_overhead.mjs --calls 20000 >/dev/null

conformance: build ## the official conformance runner against polymcp everything --http, and against polymcp's client
	conformance/run.sh r2025-11-25 --requirements 2025-11-25
	conformance/run.sh r2026-07-28 --requirements 2026-07-28
	conformance/run.sh suite-all --suite all
	conformance/run-client.sh r2025-11-25 --requirements 2025-11-25
	conformance/run-client.sh r2026-07-28 --requirements 2026-07-28
	conformance/run-client.sh suite-core --suite core
	conformance/run-client.sh suite-draft --suite draft
	conformance/run-client.sh json-schema-2026 --spec-version 2026-07-28 --scenario json-schema-2020-12-preservation

bench: build ## benchmarks against the peer SDKs (Go stdio, HTTP, C ABI; Python; Node; the clients of Go, Python and Node); reports go to bench/results/
	cd bench && $(GO) run ./cmd/mcpbench suite -transport all -polymcp "../$(BIN) everything" -capi "../$(BUILD)/examples/c/echo_server"
	cd bench && for p in 16 65536; do $(GO) run ./cmd/clientbench -payload $$p -server "../$(BIN) everything"; echo; done \
		> results/$$(date -u +%F)-clients.md
	bench/lang/run.sh all
	$(MAKE) python-venv
	$(PY_VENV)/bin/python bench/lang/python_clients.py
	node bench/lang/node_clients.mjs

include mk/capi.mk
include mk/python.mk
include mk/node.mk

# Defined after the fragments so that it sees all of BUILD_PARTS.
.PHONY: build-parts
build-parts: $(BUILD_PARTS)

clean: ## remove build outputs
	rm -rf $(BUILD) bench/bin
