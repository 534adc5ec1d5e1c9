# The Node binding (bindings/node, package polymcp); its own Makefile does
# the package work. Included by the top-level Makefile, which defines GO,
# BUILD, BIN and the C ABI targets.

NODE_PKG_VERSION := $(shell node -p 'require("./bindings/node/package.json").version' 2>/dev/null)
NODE_TARBALL     := $(abspath $(BUILD))/polymcp-$(NODE_PKG_VERSION).tgz
# The Node fixture, for the stdio rule suite and the conformance runner.
NODE_FIXTURE     := node $(CURDIR)/bindings/node/examples/everything.mjs

BUILD_PARTS += build-node

.PHONY: build-node test-node

build-node: build-capi ## Node package: the addon, dist/ and build/polymcp-<version>.tgz (npm pack)
	$(MAKE) -C bindings/node pack

# build/polymcp is the Go fixture the Node tests compare catalogues with.
# The Node fixture serves the Go fixture's whole catalogue, the interactive
# tools included, so every stdio wire transcript must pass against it and
# the conformance runs are graded by the one baseline,
# conformance/expected-failures.yml.

test-node: build-node $(BIN) ## Node binding: node --test (API, stdio, HTTP, SDK interop, the tarball), the stdio wire transcripts, polymcp's client against the TS SDK's server, the client example against the Python fixture, and the conformance runs against the Node fixture
	POLYMCP_TARBALL=$(NODE_TARBALL) $(MAKE) -C bindings/node test
	$(GO) test -count=1 ./examples/everything -run 'TestWire/.*/.*/stdio' -fixture '$(NODE_FIXTURE)'
	POLYMCP_TS_SDK_SERVER='node $(CURDIR)/bindings/node/test/fixtures/sdk_server.mjs' \
		$(GO) test -count=1 ./client -run 'TestInteropOfficialSDKs/ts-sdk'
	PYTHONPATH=$(PY_SRC) node bindings/node/examples/client.mjs -- $(PY_FIXTURE) > $(BUILD)/node-client.out
	grep -q 'LLM response: a reply from Node' $(BUILD)/node-client.out
	POLYMCP_SERVER='$(NODE_FIXTURE)' \
		conformance/run.sh node-r2025-11-25 --requirements 2025-11-25
	POLYMCP_SERVER='$(NODE_FIXTURE)' \
		conformance/run.sh node-r2026-07-28 --requirements 2026-07-28
	POLYMCP_SERVER='$(NODE_FIXTURE)' \
		conformance/run.sh node-suite-all --suite all
