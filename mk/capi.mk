# The C ABI: build/libpolymcp.so (SONAME libpolymcp.so.1, only polymcp_*
# exported), build/polymcp.h, build/polymcp.pc, the C example and the C
# test program. Included by the top-level Makefile, which defines GO,
# GOFLAGS and BUILD.

CC            ?= cc
CAPI_LIB      := $(BUILD)/libpolymcp.so
CAPI_SONAME   := libpolymcp.so.1
CAPI_HDR      := $(BUILD)/polymcp.h
CAPI_PC       := $(BUILD)/polymcp.pc
CAPI_EXAMPLE  := $(BUILD)/examples/c/echo_server
CAPI_CLIENT   := $(BUILD)/examples/c/echo_client
CAPI_CLIENT_ASAN := $(BUILD)/capi/echo_client_asan
CAPI_TESTPROG := $(BUILD)/capi/abi_test
CAPI_VERSION  := 0.1.0
CAPI_ABSBUILD  = $(abspath $(BUILD))
CAPI_CFLAGS   ?= -std=c99 -D_POSIX_C_SOURCE=200809L -O2 -g -Wall -Wextra -Werror
CAPI_LDLIBS    = -L$(BUILD) -lpolymcp -lpthread -Wl,-rpath,$(CAPI_ABSBUILD)
# check-memory runs the C test program built with AddressSanitizer, whose
# leak checker sees the C heap (the library's outputs, the last-error
# buffers) but not Go's. valgrind is no use here: Go's stack copying looks
# like thousands of invalid accesses to it.
CAPI_ASAN      := $(BUILD)/capi/abi_test_asan
CAPI_ASANFLAGS ?= -std=c99 -D_POSIX_C_SOURCE=200809L -O1 -g -fno-omit-frame-pointer \
		-fsanitize=address,undefined -fno-sanitize-recover=undefined -Wall -Wextra -Werror

.PHONY: build-capi test-capi check-memory

build-capi: $(CAPI_LIB) $(CAPI_HDR) $(CAPI_PC) $(CAPI_EXAMPLE) $(CAPI_CLIENT) ## build libpolymcp.so, polymcp.h, polymcp.pc and the C examples (a server and a client)

# go build decides itself whether anything changed.
$(CAPI_LIB): FORCE
	@mkdir -p $(BUILD)
	$(GO) build $(GOFLAGS) -trimpath -buildmode=c-shared \
		-ldflags="-extldflags '-Wl,-soname,$(CAPI_SONAME) -Wl,--version-script=$(abspath capi/polymcp.map)'" \
		-o $@ ./capi
	@rm -f $(BUILD)/libpolymcp.h # cgo's generated header; polymcp.h is the real one
	ln -sf libpolymcp.so $(BUILD)/$(CAPI_SONAME)

$(CAPI_HDR): capi/include/polymcp.h
	@mkdir -p $(BUILD)
	cp $< $@

$(CAPI_PC): capi/polymcp.pc.in
	@mkdir -p $(BUILD)
	sed -e 's|@PREFIX@|$(CAPI_ABSBUILD)|' -e 's|@VERSION@|$(CAPI_VERSION)|' $< > $@

$(CAPI_EXAMPLE): examples/c/echo_server.c $(CAPI_HDR) $(CAPI_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CAPI_CFLAGS) -I$(BUILD) -o $@ $< $(CAPI_LDLIBS)

$(CAPI_CLIENT): examples/c/echo_client.c $(CAPI_HDR) $(CAPI_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CAPI_CFLAGS) -I$(BUILD) -o $@ $< $(CAPI_LDLIBS)

$(CAPI_CLIENT_ASAN): examples/c/echo_client.c $(CAPI_HDR) $(CAPI_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CAPI_ASANFLAGS) -I$(BUILD) -o $@ $< $(CAPI_LDLIBS)

$(CAPI_TESTPROG): capi/capitest/testdata/abi_test.c $(CAPI_HDR) $(CAPI_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CAPI_CFLAGS) -I$(BUILD) -o $@ $< $(CAPI_LDLIBS)

$(CAPI_ASAN): capi/capitest/testdata/abi_test.c $(CAPI_HDR) $(CAPI_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CAPI_ASANFLAGS) -I$(BUILD) -o $@ $< $(CAPI_LDLIBS)

test-capi: build-capi $(BIN) $(CAPI_TESTPROG) check-memory ## C ABI: the C test program (plain and ASan), the cgo tests, the example's stdio rules, the C client against the Go and the C server
	$(CAPI_TESTPROG)
	$(CAPI_CLIENT) -- $(BIN) everything > $(BUILD)/capi/client-go.out
	grep -q 'LLM response: a reply from C' $(BUILD)/capi/client-go.out
	$(CAPI_CLIENT) -- $(CAPI_EXAMPLE) > $(BUILD)/capi/client-c.out
	grep -q '"text":"hello from C"' $(BUILD)/capi/client-c.out
	$(GO) test -race -count=1 ./capi/internal/...
	POLYMCP_CAPI_BUILD=$(CAPI_ABSBUILD) $(GO) test -count=1 ./capi/capitest/...

check-memory: $(CAPI_ASAN) $(CAPI_CLIENT_ASAN) $(BIN) ## the C test program and the C client under AddressSanitizer (leaks, bad accesses)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 $(CAPI_ASAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 $(CAPI_CLIENT_ASAN) -- $(BIN) everything >/dev/null
