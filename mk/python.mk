# The Python binding (bindings/python, package polymcp). Included by the
# top-level Makefile, which defines GO, BUILD and the C ABI targets.
#
#   build-python  the wheel, build/polymcp-<version>-py3-none-<platform>.whl,
#                 with libpolymcp.so inside (installs with no Go)
#   test-python   mypy --strict of the package; pytest (unit, HTTP, ASGI,
#                 interop with the official SDK, the wheel in a fresh venv),
#                 the stdio wire transcripts and
#                 the conformance requirement runs, all against
#                 `python3 -m polymcp.everything`
#
# The tests run in build/python-venv, made from
# bindings/python/tests/requirements-interop.txt (the official `mcp` SDK,
# which brings starlette, uvicorn, httpx and anyio, pytest and mypy) and remade
# only when that file changes. The package itself comes from
# bindings/python/src on PYTHONPATH: always the checkout's code, nothing to
# reinstall.

PYTHON      ?= python3
PY_DIR      := bindings/python
PY_SRC       = $(abspath $(PY_DIR)/src)
PY_VENV     := $(BUILD)/python-venv
PY_REQS     := $(PY_DIR)/tests/requirements-interop.txt
PY_STAMP    := $(PY_VENV)/.requirements
PY_FIXTURE  := python3 -m polymcp.everything
# The fixture serves the Go fixture's whole catalogue, the interactive tools
# included, so it is held to the same rules: every stdio wire transcript,
# and the conformance runs against the one baseline
# (conformance/expected-failures.yml) with the Go fixture's counts.

.PHONY: build-python test-python python-venv

BUILD_PARTS += build-python

build-python: $(CAPI_LIB) ## the Python wheel in build/ (libpolymcp.so inside; installs without Go)
	@rm -f $(BUILD)/polymcp-*.whl
	cd $(PY_DIR) && $(PYTHON) -c 'import sys; sys.path.insert(0, "_build"); import polymcp_build as b; \
		print("$(BUILD)/" + b.build_wheel(sys.argv[1], {"libpolymcp": sys.argv[2]}))' \
		$(abspath $(BUILD)) $(abspath $(CAPI_LIB))

python-venv: $(PY_STAMP) ## the test venv of the Python binding (build/python-venv)

$(PY_STAMP): $(PY_REQS)
	$(PYTHON) -m venv $(PY_VENV)
	$(PY_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r $(PY_REQS)
	cp $(PY_REQS) $@

test-python: build-capi build-python build-node $(PY_STAMP) ## Python binding: pytest (unit, HTTP, ASGI, SDK interop, wheel, the client), stdio transcripts, polymcp's client against the Python SDK's server, the client example against the Node fixture, conformance
	$(PY_VENV)/bin/python -m mypy --strict --no-incremental $(PY_DIR)/src/polymcp
	POLYMCP_REQUIRE_INTEROP=1 POLYMCP_WHEEL="$$(ls $(abspath $(BUILD))/polymcp-*.whl)" \
		$(PY_VENV)/bin/python -m pytest $(PY_DIR)/tests -q -p no:cacheprovider
	PYTHONPATH=$(PY_SRC) $(GO) test -count=1 ./examples/everything \
		-run 'TestWire/.*/.*/stdio' -fixture '$(PY_FIXTURE)'
	POLYMCP_PY_SDK_SERVER='$(abspath $(PY_VENV))/bin/python $(CURDIR)/$(PY_DIR)/tests/sdk_server.py' \
		$(GO) test -count=1 ./client -run 'TestInteropOfficialSDKs/py-sdk'
	PYTHONPATH=$(PY_SRC) $(PY_VENV)/bin/python $(PY_DIR)/examples/client.py -- $(NODE_FIXTURE) \
		> $(BUILD)/python-client.out
	grep -q 'LLM response: a reply from Python' $(BUILD)/python-client.out
	PYTHONPATH=$(PY_SRC) POLYMCP_SERVER='$(PY_FIXTURE)' \
		conformance/run.sh py-r2025-11-25 --requirements 2025-11-25
	PYTHONPATH=$(PY_SRC) POLYMCP_SERVER='$(PY_FIXTURE)' \
		conformance/run.sh py-r2026-07-28 --requirements 2026-07-28
	PYTHONPATH=$(PY_SRC) POLYMCP_SERVER='$(PY_FIXTURE)' \
		conformance/run.sh py-suite-all --suite all
