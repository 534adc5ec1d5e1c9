# The Python binding (bindings/python, package polymcp). Included by the
# top-level Makefile, which defines GO, BUILD and the C ABI targets.

.PHONY: test-python

test-python: build-capi ## Python binding: pytest (unit and end to end)
	python3 -m pytest bindings/python/tests -q
