# The Node binding (bindings/node, package polymcp); its own Makefile does
# the work. Included by the top-level Makefile.

.PHONY: test-node

test-node: build-capi ## Node binding: the addon, tsc, node --test
	$(MAKE) -C bindings/node test
