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
# The interactive features (elicitation, sampling, roots, input_required)
# wait on an input API in the C ABI: bindings/node/test/pending lists the
# wire transcripts they fail, conformance/expected-failures-bindings.yml the
# conformance scenarios, and both checks
# fail when a listed one passes, so the lists only ever shrink.
NODE_PENDING := bindings/node/test/pending

test-node: build-node $(BIN) ## Node binding: node --test (API, stdio, HTTP, SDK interop, the tarball), the stdio wire transcripts and the conformance runs against the Node fixture
	POLYMCP_TARBALL=$(NODE_TARBALL) $(MAKE) -C bindings/node test
	$(GO) test -json -count=1 ./examples/everything -run 'TestWire/.*/.*/stdio' -fixture '$(NODE_FIXTURE)' \
		| node $(NODE_PENDING)/wire_verdict.mjs
	POLYMCP_SERVER='$(NODE_FIXTURE)' POLYMCP_EXPECTED=$(CURDIR)/conformance/expected-failures-bindings.yml \
		conformance/run.sh node-r2025-11-25 --requirements 2025-11-25
	POLYMCP_SERVER='$(NODE_FIXTURE)' POLYMCP_EXPECTED=$(CURDIR)/conformance/expected-failures-bindings.yml \
		conformance/run.sh node-r2026-07-28 --requirements 2026-07-28
