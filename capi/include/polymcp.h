/*
 * polymcp.h — the C ABI of polymcp, an MCP (Model Context Protocol) server
 * written in Go. This header is the manual: every function says who owns
 * each pointer and from which threads it may be called.
 *
 * A server in five steps:
 *
 *     polymcp_server_callbacks cb = {sizeof cb, state, on_call, on_cancel, NULL, on_closed};
 *     polymcp_server_t s;
 *     polymcp_server_new("{\"name\":\"demo\"}", 15, &cb, &s);
 *     polymcp_server_add_tool(s, tool_json, tool_len, TAG_ECHO);
 *     polymcp_server_serve_stdio(s, NULL, 0);                  // returns at once
 *     while (polymcp_server_wait(s, 100) == POLYMCP_E_TIMEOUT) {}  // stdin ended
 *     polymcp_server_close(s);  ...wait again...  polymcp_server_free(s);
 *
 * on_call(user, call, kind, tag, params, len) gets each tools/call (and
 * resources/read, prompts/get, completion/complete) of whatever you
 * registered; answer it exactly once, inline or later from any thread, with
 * polymcp_call_complete or polymcp_call_fail.
 *
 * Conventions (they hold for every function below):
 *  - Return value: POLYMCP_OK (0) or a negative POLYMCP_E_* code; then
 *    polymcp_last_error() says why, on the calling thread.
 *  - Strings are UTF-8 with explicit lengths and need no NUL terminator.
 *    Inputs are borrowed: the library copies what it keeps before the
 *    function returns, so the caller may free or reuse them at once.
 *    A NULL pointer with length 0 is an empty input.
 *  - Outputs (char **) are allocated by the library, NUL-terminated after
 *    their length for convenience, and owned by the caller, who releases
 *    them with polymcp_free().
 *  - Handles are 64-bit numbers, never pointers; 0 is never valid and no
 *    number is ever reused. A handle that is stale, freed or of the wrong
 *    type gives POLYMCP_E_BADHANDLE (a double free is an error, never a
 *    crash).
 *  - Any function may be called from any thread, concurrently. None blocks
 *    on host callbacks except polymcp_server_wait, which is bounded by its
 *    timeout. Callbacks run on the library's threads, several at once.
 *  - In a child process after fork(), every function returns
 *    POLYMCP_E_FORKED without entering the Go runtime (which does not
 *    survive fork); only polymcp_last_error and polymcp_free still work.
 *  - The library installs no signal handlers of its own beyond what the Go
 *    runtime needs, and reads no environment variables for configuration
 *    (use polymcp_configure); the Go runtime itself still honours GOGC,
 *    GOMEMLIMIT and GOMAXPROCS. Its stdio transport writes to a dup() of the
 *    output descriptor, so a client that hangs up is an error, not SIGPIPE.
 *  - One process can hold only one Go c-shared library: loading
 *    libpolymcp.so next to another library built with Go's
 *    -buildmode=c-shared (or into a Go program) is unsupported by Go.
 *
 * Versioning: SONAME libpolymcp.so.1. Functions, enum values and callback
 * fields are only ever added, with a minor bump; bindings should refuse a
 * different POLYMCP_ABI_MAJOR or an older minor from polymcp_abi_version().
 */
#ifndef POLYMCP_H
#define POLYMCP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define POLYMCP_ABI_MAJOR 1
#define POLYMCP_ABI_MINOR 8

typedef uint64_t polymcp_server_t;  /* 0 = invalid, never reused */
typedef uint64_t polymcp_call_t;    /* one pending call; see polymcp_call_complete */
typedef uint64_t polymcp_session_t; /* one host-owned connection */
typedef uint64_t polymcp_http_t;    /* one host-owned HTTP request in progress */
typedef uint64_t polymcp_client_t;  /* one connection to an MCP server (ABI 1.8) */
typedef uint64_t polymcp_question_t; /* one request of a server to a client (ABI 1.8) */

/* Result codes. */
enum {
  POLYMCP_OK = 0,
  POLYMCP_E_INVALID = -1,      /* bad argument, bad JSON, unknown option, misuse */
  POLYMCP_E_BADHANDLE = -2,    /* handle never issued, of the wrong type, or freed */
  POLYMCP_E_UNKNOWN_CALL = -3, /* the call was already completed, failed or cancelled */
  POLYMCP_E_CLOSED = -4,       /* the server (or session) is closing or closed */
  POLYMCP_E_FORKED = -5,       /* called in a child process after fork() */
  POLYMCP_E_TIMEOUT = -6,      /* polymcp_server_wait: still running */
  POLYMCP_E_IO = -7,           /* a descriptor or socket cannot be used */
  POLYMCP_E_INPUT_REQUIRED = -8, /* polymcp_call_input, 2026-07-28: the call is over, see there */
  POLYMCP_E_CAPABILITY = -9,   /* polymcp_call_input: the client did not declare the capability */
  POLYMCP_E_CANCELLED = -10,   /* polymcp_call_input: the call ended while waiting */
  POLYMCP_E_LIMIT = -11,       /* polymcp_call_start_task: the server's task limits are reached */
  POLYMCP_E_RPC = -12,         /* client: the server answered with a JSON-RPC error (ABI 1.8) */
  POLYMCP_E_OUTPUT = -13,      /* client: a tool's result does not match its outputSchema (ABI 1.8) */
  POLYMCP_E_INTERNAL = -99     /* a bug in polymcp (a recovered panic); please report */
};

/* What an on_call is for, and what result object completes it. */
enum {
  POLYMCP_KIND_TOOL = 1,      /* tools/call: a CallToolResult {"content":[...], ...} */
  POLYMCP_KIND_RESOURCE = 2,  /* resources/read: a ReadResourceResult {"contents":[...]} */
  POLYMCP_KIND_PROMPT = 3,    /* prompts/get: a GetPromptResult {"messages":[...]} */
  POLYMCP_KIND_COMPLETION = 4 /* completion/complete: a CompleteResult {"completion":{"values":[...]}} */
};

/* on_log levels (they are Go's log/slog levels). */
enum {
  POLYMCP_LOG_DEBUG = -4,
  POLYMCP_LOG_INFO = 0,
  POLYMCP_LOG_WARN = 4,
  POLYMCP_LOG_ERROR = 8
};

/* ---- Process ----------------------------------------------------------- */

/* (POLYMCP_ABI_MAJOR << 16) | POLYMCP_ABI_MINOR of the loaded library. Any thread. */
uint32_t polymcp_abi_version(void);

/* The release, e.g. "0.1.0". Static storage: never free it. Any thread. */
const char *polymcp_version(void);

/*
 * Process-wide settings, as one JSON object (json is borrowed):
 *   "max_procs": n     Go's GOMAXPROCS (threads running Go code at once);
 *                      0 or absent leaves it unchanged.
 *   "log_level": s     threshold of every server's on_log: "debug", "info",
 *                      "warn" (default) or "error".
 *   "gc_percent": n    the Go collector's GOGC: positive, or -1 for off.
 *                      By default (unless the GOGC environment variable,
 *                      which the Go runtime reads itself, is set) it
 *                      follows the live heap: Go's 100 up to 1.3 MiB live,
 *                      rising to 200 at 2.7 MiB and while collections come
 *                      less than 5 ms apart, so small calls keep a 4 MiB
 *                      heap and large ones the headroom that saves them CPU,
 *                      a headroom kept within 8 MiB past 4 MiB live (back
 *                      to 100 at 8 MiB). Setting it ends that. Since ABI 1.2.
 *   "memory_limit_bytes": n   the Go runtime's soft memory limit (GOMEMLIMIT),
 *                      positive; with "gc_percent":-1 the collector runs
 *                      only near it. Since ABI 1.2.
 * Unknown members are POLYMCP_E_INVALID, and nothing is applied then.
 * Any thread; settings apply to servers created before and after.
 */
int polymcp_configure(const char *json, size_t len);

/*
 * The last failure on the calling thread: returns its code and, when msg and
 * len are not NULL, points *msg at its message (UTF-8, NUL-terminated,
 * *len bytes before the NUL). The message is borrowed: it is valid until
 * the next failing call on this thread. Successful calls do not clear it, so
 * read it only right after a function returned an error. POLYMCP_OK with an
 * empty message when this thread never failed. Any thread, also after fork.
 */
int polymcp_last_error(const char **msg, size_t *len);

/* Releases a buffer the library handed out (char ** outputs). NULL is a
 * no-op. Any thread, also after fork. */
void polymcp_free(void *p);

/*
 * Live handle counts, for leak checks: {"servers":n,"calls":n,"sessions":n,
 * "http":n,"goroutines":n}. *json is owned by the caller (polymcp_free). Any thread.
 */
int polymcp_stats(char **json, size_t *len);

/* ---- Servers ----------------------------------------------------------- */

/*
 * The host's callbacks. The library copies the struct; user is passed back
 * untouched. Fields the host's header version does not know are left out by
 * struct_size, which must be at least the size of this 1.0 layout.
 *
 * Every callback runs on a library thread, possibly several at once on
 * different threads, and must return quickly: the thread is one of the
 * server's bounded workers (max_concurrency). The one exception: over stdio
 * served with "pump", on_call also comes on the host's thread, inside
 * polymcp_server_stdio_pump. A callback may call any polymcp_* function
 * except polymcp_server_wait and polymcp_server_stdio_pump
 * (POLYMCP_E_INVALID: waiting there would deadlock).
 */
typedef struct polymcp_server_callbacks {
  uint32_t struct_size; /* sizeof(polymcp_server_callbacks) */
  void *user;

  /*
   * Required. A call to answer: kind is POLYMCP_KIND_*, tag is the tag the
   * tool/resource/template/prompt/completer was registered with, and
   * params (borrowed: valid only until on_call returns; not NUL-terminated)
   * is a JSON object:
   *   tool:       {"name","arguments":{...},"revision","_meta"?}
   *   resource:   {"uri","variables"?:{name:value},"revision","_meta"?}
   *   prompt:     {"name","arguments":{name:value},"revision","_meta"?}
   *   completion: {"ref","argument":{"name","value"},"context"?,"revision","_meta"?}
   * "arguments" of a tool were already validated against its inputSchema.
   * Answer exactly once with polymcp_call_complete or polymcp_call_fail,
   * inside on_call (fastest: nothing else is woken) or later from any
   * thread, unless on_cancel comes first.
   */
  void (*on_call)(void *user, polymcp_call_t call, uint32_t kind, uint64_t tag,
                  const char *params_json, size_t len);

  /*
   * Optional. The call will not be answered after all: the client cancelled
   * it, its deadline (request_timeout_ms) passed, its connection went away
   * or the server is closing. Stop the work; completing it now returns
   * POLYMCP_E_UNKNOWN_CALL. on_cancel never comes for a call already
   * completed or failed, and comes at most once. It comes only after
   * on_call has returned: a host that does long work inside on_call never
   * hears of the cancellation (do long work elsewhere and answer later).
   */
  void (*on_cancel)(void *user, polymcp_call_t call);

  /* Optional. A diagnostic of the server (POLYMCP_LOG_*; msg borrowed, one
   * line "message key=value ..."), at or above polymcp_configure's level. */
  void (*on_log)(void *user, int level, const char *msg, size_t len);

  /* Optional. The server finished closing. Always the last callback of the
   * server: after it nothing is called again and the host may free user. */
  void (*on_closed)(void *user);
} polymcp_server_callbacks;

/*
 * Creates a server. options_json (borrowed; NULL/0 = all defaults) is an
 * object with optional members:
 *   "name", "version", "title"   serverInfo (default "polymcp-server", "0.0.0")
 *   "instructions"               shown to the client at initialize
 *   "revisions": [...]           revisions served (default: all, 2024-11-05..2026-07-28)
 *   "max_concurrency": n         calls running at once (default 32); a call waiting
 *                                for the host's answer counts as running
 *   "max_queue": n               calls waiting for a slot (default 256; -1: none);
 *                                beyond it: JSON-RPC -32603, data.reason "overloaded"
 *   "request_timeout_ms": n      per-call deadline (default 30000; -1: none); past it
 *                                the host gets on_cancel and the client -32603 "timeout"
 *   "page_size": n               items per list page (default 100)
 *   "task_ttl_ms": n             how long a task (polymcp_server_add_task_tool) is kept
 *                                from its creation and may run (default 3600000); a
 *                                task still running then fails with -32603 "timeout"
 *   "max_tasks": n               tasks kept at once (default 1000), and
 *   "max_running_tasks": n       tasks running at once (default max_concurrency/2);
 *                                past either a required task is -32603 "overloaded"
 *                                and an optional one runs as an ordinary call
 *   "task_poll_interval_ms": n   the pollIntervalMs suggested to clients (default 1000)
 *                                (the task options since ABI 1.4)
 *   "http": {...}                options of host-owned HTTP (polymcp_server_http),
 *                                as for polymcp_server_serve_http but without "addr"
 * Unknown members are POLYMCP_E_INVALID. cb is copied (borrowed), on_call is
 * required. On success *out is the new handle. Any thread.
 */
int polymcp_server_new(const char *options_json, size_t len, const polymcp_server_callbacks *cb,
                       polymcp_server_t *out);

/*
 * Registers a tool, resource, resource template or prompt by its JSON
 * definition exactly as tools/list, resources/list, resources/templates/list
 * or prompts/list show it (borrowed), under the host's tag, which on_call
 * passes back. Each tag names one registration: reusing a tag of another
 * item is POLYMCP_E_INVALID; registering an item with the name (or URI) of
 * an existing one replaces it, and the old tag is dropped. A tool's
 * inputSchema and outputSchema, when given, must have root "type":"object";
 * an invalid definition is POLYMCP_E_INVALID. list_changed notifications go
 * out by themselves. Any thread; POLYMCP_E_CLOSED once closing.
 */
int polymcp_server_add_tool(polymcp_server_t s, const char *tool_json, size_t len, uint64_t tag);
int polymcp_server_add_resource(polymcp_server_t s, const char *resource_json, size_t len, uint64_t tag);
int polymcp_server_add_resource_template(polymcp_server_t s, const char *template_json, size_t len,
                                         uint64_t tag);
int polymcp_server_add_prompt(polymcp_server_t s, const char *prompt_json, size_t len, uint64_t tag);

/*
 * Registers a tool whose calls may become tasks (the 2026-07-28 tasks
 * extension, io.modelcontextprotocol/tasks): as polymcp_server_add_tool,
 * plus task_json (borrowed):
 *   {"support":"optional"|"required"|"forbidden", "start"?:"call"|"handler"}
 * "optional": a call whose request declares the extension is answered at
 * once with a task handle, and complete/fail give the task's outcome, which
 * the client polls with tasks/get; other requests get an ordinary call.
 * "required": the same, but a 2026-07-28 request without the extension gets
 * -32021 and on_call never runs. The revisions before 2026-07-28 have no
 * tasks: there every call is ordinary. "start":"call" (the default) makes
 * the task before on_call; "handler" leaves it to the host, which calls
 * polymcp_call_start_task after settling any input_required rounds. The
 * server advertises the extension once such a tool is registered. Unknown
 * members or values are POLYMCP_E_INVALID. Any thread. Since ABI 1.4.
 */
int polymcp_server_add_task_tool(polymcp_server_t s, const char *tool_json, size_t len, const char *task_json,
                                 size_t task_len, uint64_t tag);

/*
 * Serves argument completion for a registered prompt or resource template,
 * named by a completion/complete reference (borrowed):
 * {"type":"ref/prompt","name":"..."} or {"type":"ref/resource","uri":"<uriTemplate>"}.
 * Calls arrive as POLYMCP_KIND_COMPLETION with tag. Any thread.
 */
int polymcp_server_set_completer(polymcp_server_t s, const char *ref_json, size_t len, uint64_t tag);

/* Removes what was registered under tag (POLYMCP_E_INVALID if nothing);
 * list_changed follows. Calls already running are not affected. */
int polymcp_server_remove(polymcp_server_t s, uint64_t tag);

/*
 * Sends a server notification (method and params borrowed). Supported:
 * "notifications/resources/updated" with {"uri":"..."}, delivered to the
 * clients subscribed to that URI. list_changed is sent by add and remove
 * themselves; asking for it here is POLYMCP_E_INVALID. Any thread.
 */
int polymcp_server_notify(polymcp_server_t s, const char *method, size_t mlen, const char *params_json,
                          size_t plen);

/*
 * Serves one client over stdio in the background and returns at once.
 * opts_json (borrowed; NULL/0 = defaults): "in_fd" (0), "out_fd" (1),
 * "max_line_bytes" (2000000; a longer line is answered -32600 and dropped),
 * "write_timeout_ms" (5000; a client that stops reading for that long ends
 * the transport), "pump" (false; since ABI 1.6: the host does the reading,
 * see polymcp_server_stdio_pump), "stdout_to_stderr" (false; since ABI 1.7:
 * with out_fd 1, fd 1 points where fd 2 does while the server serves and
 * the protocol goes to a duplicate of the real stdout, so that what the
 * host's own code prints to stdout lands on stderr instead of between the
 * protocol lines; servers share that, and the last one to stop puts fd 1
 * back). The library reads and writes duplicates of the
 * descriptors (so EPIPE never raises SIGPIPE) and leaves the originals
 * open. The transport ends at end of input, on a write failure, or on
 * close; polymcp_server_wait reports that. POLYMCP_E_IO for a descriptor
 * that is not open. Nothing but protocol messages is written to out_fd.
 */
int polymcp_server_serve_stdio(polymcp_server_t s, const char *opts_json, size_t len);

/*
 * Reads the input of the stdio transport started with "pump": true, on
 * the calling thread. Such a transport starts no reading thread: the host
 * polls in_fd in its own event loop and calls this when it is readable
 * (calling when it is not costs one read). The lines that are ready, up to
 * a burst of 8, are handled: on_call comes on this thread, inside this
 * call, for the calls that can run at once (the others as usual, on library
 * threads), and the answers given meanwhile are written before it returns,
 * or at the end of an open polymcp_server_batch. A host whose handlers run
 * on that thread (an event loop) so answers a burst of calls with no thread
 * woken: the wake-up of a library reading thread and the hand-off to the
 * host's cost more than the rest of a small call. Handlers that take long
 * on this thread delay the input behind them; nothing takes the reading
 * over. Returns:
 *   POLYMCP_OK         all that was ready was handled: call again when in_fd
 *                      is next readable;
 *   POLYMCP_PUMP_MORE  a burst was handled and more input may be ready: let
 *                      the answers given so far go (end a batch held around
 *                      this call), then call again at once. A pipelining
 *                      client then reads answers while the rest is handled;
 *   POLYMCP_E_CLOSED   the transport has ended (end of input, a write
 *                      failure, close): stop polling;
 *   POLYMCP_E_INVALID  the server serves no stdio with "pump", or the call
 *                      came from inside a callback.
 * One call at a time runs; others wait. Any thread. Since ABI 1.6.
 */
#define POLYMCP_PUMP_MORE 1
int polymcp_server_stdio_pump(polymcp_server_t s);

/*
 * Serves Streamable HTTP (every revision, at "path") and the 2024-11-05
 * HTTP+SSE transport (/sse, /message) in the background and returns at
 * once. opts_json (borrowed; NULL/0 = defaults), every member optional:
 *   "addr"                     host:port to bind (default "127.0.0.1:0": loopback,
 *                              a free port; an empty host also means loopback)
 *   "path"                     endpoint (default "/mcp"); "disable_sse": true turns
 *                              HTTP+SSE off
 *   "allowed_origin_hosts", "allowed_hosts": [...]  Origin (403) and Host (421)
 *                              values accepted besides loopback; "disable_host_check"
 *   "disable_cors": true       (since ABI 1.7) no CORS answers (preflight,
 *                              Access-Control-*) to browser pages of the allowed
 *                              origins, which get them by default since 1.7
 *   "max_body_bytes" (2000000, 413), "max_connections" (1024, 503),
 *   "max_sessions" (1024, 503), "session_idle_timeout_ms" (600000),
 *   "read_timeout_ms" (30000), "write_timeout_ms" (30000),
 *   "keep_alive_ms" (15000; -1 none), "stream_after_ms" (1000; -1: only
 *                              notifications turn a reply into SSE)
 * On success *bound_url (owned by the caller: polymcp_free) is the endpoint
 * with the real port, e.g. "http://127.0.0.1:41234/mcp"; bound_url may be
 * NULL. POLYMCP_E_IO when the address cannot be bound. The listener is a
 * running transport for polymcp_server_wait until the server closes.
 */
int polymcp_server_serve_http(polymcp_server_t s, const char *opts_json, size_t len, char **bound_url,
                              size_t *url_len);

/*
 * Waits until the server is idle: no transport started by serve_* runs any
 * more (stdio: the input ended) and no close is in progress (after close,
 * that means on_closed has returned). POLYMCP_OK when idle (at once for a
 * server that serves nothing), POLYMCP_E_TIMEOUT after timeout_ms
 * (negative: no limit; 0: just poll). Hosts that must stay responsive
 * (Python's Ctrl-C) wait in slices of ~100 ms. Any thread but a callback
 * (POLYMCP_E_INVALID there).
 */
int polymcp_server_wait(polymcp_server_t s, int32_t timeout_ms);

/*
 * Starts closing and returns at once: transports stop, sessions close,
 * every call still pending gets on_cancel, then on_closed comes last.
 * Idempotent. Any thread, callbacks included.
 */
int polymcp_server_close(polymcp_server_t s);

/*
 * Releases the handle: later use of s is POLYMCP_E_BADHANDLE, and so is a
 * second free. A server not yet closed is closed first, as by
 * polymcp_server_close, and its callbacks go on until on_closed. Calls
 * already delivered can still be completed. Any thread, callbacks included.
 */
int polymcp_server_free(polymcp_server_t s);

/* ---- Host-owned connections -------------------------------------------- */

/*
 * Receives every message of a session: one JSON-RPC message (a JSON text,
 * no line ending; borrowed until the callback returns). Called on library
 * threads, several at once, and possibly on the thread inside
 * polymcp_session_dispatch. Frame the messages as the transport needs
 * (stdio: add '\n').
 */
typedef void (*polymcp_send_fn)(void *user, const char *msg, size_t len);

/*
 * Opens a connection whose bytes the host moves itself (its own stdio, a
 * socket, a WebSocket): it speaks the same protocol, with the same single
 * dispatcher, as the library's own transports. opts_json (borrowed;
 * NULL/0 = defaults): "revision" fixes the revision of every message (as
 * HTTP's MCP-Protocol-Version does; default negotiated by initialize or
 * _meta), "batches" (default true) accepts JSON-RPC batches where the
 * revision allows. send and user are kept until the session closes. Any thread.
 */
int polymcp_session_open(polymcp_server_t s, const char *opts_json, size_t len, polymcp_send_fn send,
                         void *user, polymcp_session_t *out);

/*
 * Hands one incoming message (one JSON text; borrowed) to the session and
 * returns without waiting for handlers. Answers and notifications reach
 * send, maybe before this returns. Malformed messages are answered on the
 * wire like any protocol error. Messages may be dispatched from several
 * threads at once. POLYMCP_E_CLOSED after the session or server closed.
 */
int polymcp_session_dispatch(polymcp_session_t ss, const char *msg, size_t len);

/*
 * Ends the session: its pending calls get on_cancel, and once this returns
 * send is never called again for it, so the host may free user. A second
 * close is POLYMCP_E_BADHANDLE. Closing the server closes its sessions.
 */
int polymcp_session_close(polymcp_session_t ss);

/*
 * The response of one host-owned HTTP request. Every pointer is borrowed
 * for the callback's duration. on_start comes once, first: the status and
 * the headers as JSON {"Name":["value",...]}; then on_write with body bytes
 * (for an SSE stream, whole events) and on_flush where the bytes so far
 * should reach the client; on_end is the last callback of the exchange,
 * with POLYMCP_OK, POLYMCP_E_CLOSED (cancelled, or the server closed) or
 * POLYMCP_E_IO. They run on library threads, or on the thread inside
 * polymcp_server_http for a request answered at once.
 */
typedef struct polymcp_http_callbacks {
  uint32_t struct_size; /* sizeof(polymcp_http_callbacks) */
  void *user;
  void (*on_start)(void *user, int status, const char *headers_json, size_t len); /* required */
  void (*on_write)(void *user, const char *chunk, size_t len);                   /* required */
  void (*on_flush)(void *user);                                                  /* optional */
  void (*on_end)(void *user, int rc);                                            /* required */
} polymcp_http_callbacks;

/*
 * Runs one HTTP request that the host's own HTTP server received (a Python
 * ASGI app, a Node http server) through the same checks and dispatcher as
 * polymcp_server_serve_http, and returns without waiting for handlers.
 * request_json (borrowed): {"method":"POST","path":"/mcp","query":"",
 * "headers":{"Name":"v" or ["v",...]},"host":"example:8000","local_addr":
 * "127.0.0.1:8000"}; "host" is the Host header (or :authority), and an
 * empty "local_addr" counts as loopback, which keeps the Host check on.
 * body (borrowed) is the whole request body. cb is copied; its user must
 * stay valid until on_end. On success *out names the exchange for
 * polymcp_http_cancel (out may be NULL). Options come from the server's
 * "http" option. Any thread.
 */
int polymcp_server_http(polymcp_server_t s, const char *request_json, size_t len, const char *body,
                        size_t body_len, const polymcp_http_callbacks *cb, polymcp_http_t *out);

/*
 * The client of exchange h went away: a 2026-07-28 call is cancelled (its
 * host gets on_cancel), a legacy answer is kept for Last-Event-ID
 * resumption; on_end follows. POLYMCP_E_UNKNOWN_CALL once the exchange
 * ended. Any thread, callbacks included.
 */
int polymcp_http_cancel(polymcp_http_t h);

/* ---- Calls --------------------------------------------------------------
 * A call handle is valid from on_call until it is completed, failed or
 * cancelled (on_cancel); afterwards every function below returns
 * POLYMCP_E_UNKNOWN_CALL for it. All of them may be called from any thread,
 * inside on_call included, concurrently with each other.
 *
 * On the library's stdio transport a call answered after on_call returned
 * is written out by the thread that answers it (no library thread waits
 * for the answer, so none has to be woken): polymcp_call_complete and
 * polymcp_call_fail then encode the answer there and may block while the
 * output queue is full (a client that stopped reading), at most the
 * transport's write_timeout. On_cancel for such a call comes from a
 * library thread as ever.
 */

/*
 * Answers the call with result_json (borrowed), the method's result object
 * (see POLYMCP_KIND_*), e.g. {"content":[{"type":"text","text":"hi"}]} for
 * a tool. The library adapts it to the client's revision. Exactly once:
 * a second answer, or one after on_cancel, is POLYMCP_E_UNKNOWN_CALL.
 * JSON that is not an object of the right shape is POLYMCP_E_INVALID and
 * leaves the call pending, so it can still be answered.
 */
int polymcp_call_complete(polymcp_call_t c, const char *result_json, size_t len);

/*
 * Answers a tool call with one text item, as polymcp_call_complete with
 * {"content":[{"type":"text","text":...}]} would, where text (borrowed,
 * len bytes) is the item's text as it is, not JSON: nothing to escape on
 * your side, nothing to decode on the library's, which makes it the
 * cheapest answer for the commonest result. Since ABI 1.3. Text that is not
 * UTF-8, or a call that is not a tool's (kind POLYMCP_KIND_TOOL), is
 * POLYMCP_E_INVALID and leaves the call pending. A tool with an
 * outputSchema needs structuredContent, so its call answered this way
 * gets the isError result the library sends for a missing one.
 */
int polymcp_call_complete_text(polymcp_call_t c, const char *text, size_t len);

/*
 * Answers the call with a failure (msg borrowed, UTF-8). code 0 is a
 * handler failure: for a tool, a result with "isError":true and msg as its
 * text (the model sees it); otherwise JSON-RPC -32603 with msg. A
 * resources/read failing with -32002 means "not found" and is answered the
 * way the client's revision wants. Any other code is sent as that JSON-RPC
 * error. Exactly once, like polymcp_call_complete.
 */
int polymcp_call_fail(polymcp_call_t c, int32_t code, const char *msg, size_t len);

/*
 * Like polymcp_call_fail, with data_json (borrowed, any JSON value) as the
 * JSON-RPC error's "data" member, e.g. code -32602 with
 * {"field":"path","reason":"outside the root"}. NULL or data_len 0 is
 * polymcp_call_fail. Data needs a JSON-RPC error, so with code 0 on a tool
 * (a result, not an error: complete it with "isError":true instead, which
 * can carry structuredContent) and with -32002 on a resource (the
 * revision shapes a not-found) it is POLYMCP_E_INVALID, as is JSON that
 * does not parse; the call then stays pending. Since ABI 1.2.
 */
int polymcp_call_fail_data(polymcp_call_t c, int32_t code, const char *msg, size_t len,
                           const char *data_json, size_t data_len);

/*
 * Reports progress on a pending call: {"progress":n,"total"?:n,"message"?:s}
 * (borrowed). progress must increase. Without a progressToken from the
 * client nothing is sent and the result is POLYMCP_OK. At most 1000
 * updates per call; messages up to 4096 bytes.
 */
int polymcp_call_progress(polymcp_call_t c, const char *progress_json, size_t len);

/*
 * Sends a log message tied to the call: {"level":"info","logger"?:s,"data":any}
 * (borrowed), if the client's logging level lets it through.
 */
int polymcp_call_log(polymcp_call_t c, const char *log_json, size_t len);

/*
 * Describes the call's request beyond what on_call gives: {"method",
 * "revision","_meta"?,"clientInfo"?,"clientCapabilities"?}. *json is owned
 * by the caller (polymcp_free).
 */
int polymcp_call_info(polymcp_call_t c, char **json, size_t *len);

/*
 * Asks the client for input while a tool, resource or prompt call is
 * pending. requests_json (borrowed) is an object naming each request:
 *   {"name":{"method":"elicitation/create","params":{...}},
 *    "model":{"method":"sampling/createMessage","params":{...}},
 *    "roots":{"method":"roots/list"}}
 * On POLYMCP_OK, *answers_json (owned by the caller: polymcp_free) holds the
 * client's result objects under the same keys.
 *
 * How the answers come depends on the request's revision:
 *  - up to 2025-11-25 each request goes to the client now and the function
 *    BLOCKS the calling thread until every answer arrived (call it from a
 *    worker thread, or from on_call itself); if the call ends meanwhile it
 *    returns POLYMCP_E_CANCELLED and on_cancel follows as usual;
 *  - on 2026-07-28 it returns at once (unless the call is a task, see
 *    polymcp_call_start_task, when it blocks until tasks/update): the answers the client's retry
 *    carried, or POLYMCP_E_INPUT_REQUIRED, after which the call is over (the
 *    core answers input_required with every request asked so far; complete
 *    and fail then return POLYMCP_E_UNKNOWN_CALL) and the host stops. The
 *    retry arrives as a new on_call, which asks again and gets the answers;
 *    state kept with polymcp_call_set_input_state comes back with it.
 * POLYMCP_E_CAPABILITY: the client did not declare what a request needs
 * (sampling, elicitation, roots); on 2026-07-28 the call is then answered
 * with -32021 and is over, before it the host decides (an error result,
 * say). Any thread.
 */
int polymcp_call_input(polymcp_call_t c, const char *requests_json, size_t len, char **answers_json,
                       size_t *answers_len);

/*
 * Turns a pending tools/call of a task tool (polymcp_server_add_task_tool)
 * into a task: the client gets its task handle now, and the call stays
 * pending (its deadline now the server's task TTL) until complete or fail,
 * whose outcome the client reads with tasks/get. tasks/cancel cancels it
 * (on_cancel). Progress messages become the task's statusMessage and log
 * messages are dropped; polymcp_call_input then BLOCKS until the client
 * answers with tasks/update, as on the legacy revisions. POLYMCP_E_INVALID
 * when the call cannot become a task: not a task tool, not 2026-07-28, or
 * the request did not declare the extension; POLYMCP_E_LIMIT when the
 * server's task limits (max_tasks, max_running_tasks) are reached. Either
 * way the call goes on as an ordinary one (the Go core answers a required
 * task at its limits with -32603 "overloaded": a host may fail the call so
 * too). POLYMCP_E_UNKNOWN_CALL when the call is over. A call that is a task
 * already is POLYMCP_OK. Any thread. Since ABI 1.4.
 */
int polymcp_call_start_task(polymcp_call_t c);

/*
 * Whether the call has ended on the core's side while the host still holds
 * it: 1 once the client cancelled it, its deadline passed, or its session
 * or the server closed; 0 while it is live. on_cancel reports the same
 * thing, but only after on_call has returned: a handler that runs inside
 * on_call polls this instead, and stops (its complete or fail is then
 * POLYMCP_E_UNKNOWN_CALL or dropped; nothing reaches the client).
 * POLYMCP_E_UNKNOWN_CALL once the call is over (answered, or cancelled and
 * on_cancel sent). Any thread, cheap. Since ABI 1.5.
 */
int polymcp_call_cancelled(polymcp_call_t c);

/*
 * Begins (begin != 0) or ends (begin == 0) a batch of the host's answers.
 * Over stdio, what the server sends while a batch is open is queued, and
 * the end of the last open batch writes it all at once from the calling
 * thread, with a write that never waits for a full pipe (the core's writer
 * takes the rest). A host that answers on one thread, a batch of calls at a
 * time (an event loop), brackets each batch so: its answers leave in one
 * write, and the core's writer is not woken for each. Batches nest; each
 * end must follow a begin; a batch that outgrows the output queue is
 * written as it goes. No effect on HTTP. Any thread. Since ABI 1.5.
 */
int polymcp_server_batch(polymcp_server_t s, int begin);

/* The state kept by polymcp_call_set_input_state in an earlier round of this
 * request (2026-07-28) or earlier in this call; *state is owned by the
 * caller (polymcp_free), empty (len 0) when none. Any thread. */
int polymcp_call_input_state(polymcp_call_t c, char **state, size_t *len);

/* Keeps state (borrowed bytes, at most a few KiB) for the request's next
 * round: on 2026-07-28 it travels signed in requestState (signed, not
 * encrypted: the client can read it). Any thread. */
int polymcp_call_set_input_state(polymcp_call_t c, const char *state, size_t len);

/* ---- Client (ABI 1.8) --------------------------------------------------- */

/*
 * A client connects to one MCP server — a command it starts (stdio), a URL
 * (Streamable HTTP, falling back to the 2024-11-05 HTTP+SSE transport when
 * the server refuses a POST with 400, 404 or 405), or a polymcp_server_t of
 * this process (in memory) — and negotiates the revision: 2026-07-28 when the
 * server speaks it (server/discover), else initialize. It is the Go client
 * (docs/client.md) behind handles: every request runs on a goroutine of its
 * own and is answered through on_response, so no function here blocks.
 *
 * Callbacks arrive on Go threads, several at once, and must return quickly
 * (post to the host's own loop). Every json they pass is borrowed for the
 * callback's duration. on_closed is always the last; after it the host may
 * free what it registered, then calls polymcp_client_free.
 */
typedef struct polymcp_client_callbacks {
  uint32_t struct_size; /* sizeof(polymcp_client_callbacks) */
  void *user;           /* passed back untouched */
  /* Required. The end of polymcp_client_connect or of one
   * polymcp_client_request, exactly once per tag. rc POLYMCP_OK: json is the
   * result object (for connect: {"protocolVersion", "serverInfo",
   * "capabilities", "instructions"}). Otherwise rc is negative and json an
   * error object {"message": "...", "code": <JSON-RPC code>, "data": ...}
   * ("code" only with POLYMCP_E_RPC; "data" there and with POLYMCP_E_OUTPUT):
   *   POLYMCP_E_RPC       the server's JSON-RPC error;
   *   POLYMCP_E_OUTPUT    a tool result that does not match its outputSchema
   *                       (data: the result as received);
   *   POLYMCP_E_TIMEOUT   the request's timeout passed (the server is told:
   *                       notifications/cancelled, or a closed stream);
   *   POLYMCP_E_CANCELLED polymcp_client_cancel (the server is told too);
   *   POLYMCP_E_CLOSED    the connection ended or the client is closing;
   *   POLYMCP_E_IO        the transport failed (a refused connection, an HTTP
   *                       status without an answer, a process that would not
   *                       start, an OAuth authorization that failed or that
   *                       the host refused);
   *   POLYMCP_E_INVALID   the request could not be sent (params that are not a
   *                       JSON object, a method the revision lacks, no
   *                       revision both sides speak). */
  void (*on_response)(void *user, uint64_t tag, int rc, const char *json, size_t len);
  /* Optional. A notification of the server, in the order it was sent:
   * "notifications/message" (params: a LoggingMessageNotification's),
   * "notifications/tools/list_changed", ".../prompts/list_changed",
   * ".../resources/list_changed" (params {}), and
   * "notifications/resources/updated" ({"uri": ...}). */
  void (*on_notification)(void *user, const char *method, size_t mlen, const char *params, size_t plen);
  /* Optional. A notifications/progress for the request of tag, made with
   * {"progress": true}: params {"progress", "total"?, "message"?}. All of a
   * request's progress comes before its on_response. */
  void (*on_progress)(void *user, uint64_t tag, const char *params, size_t plen);
  /* Optional, required by the "sampling", "elicitation" and "roots" options
   * and by "oauth" (its "oauth/authorize" question, see
   * polymcp_client_connect). A question of the server: method
   * "sampling/createMessage", "elicitation/create" or "roots/list", params
   * its params object. Answer
   * it exactly once, from any thread, with polymcp_client_answer or
   * polymcp_client_answer_error. On 2026-07-28 the questions are a tool
   * call's input_required rounds, answered the same way. */
  void (*on_question)(void *user, polymcp_question_t q, const char *method, size_t mlen, const char *params,
                      size_t plen);
  /* Optional. The answer to q is no longer wanted: the server cancelled it,
   * the request it belongs to ended, or the client is closing. Answering it
   * now gives POLYMCP_E_UNKNOWN_CALL. */
  void (*on_question_cancel)(void *user, polymcp_question_t q);
  /* Optional. Always the last callback, once: after polymcp_client_close
   * (rc POLYMCP_OK), or when the connection ended by itself or never came up
   * (rc negative, msg why; the connect's on_response came first). */
  void (*on_closed)(void *user, int rc, const char *msg, size_t len);
} polymcp_client_callbacks;

/*
 * Starts connecting and returns at once with the client's handle in *out;
 * the outcome arrives as on_response(tag, ...). Requests made meanwhile wait
 * for it. options_json (borrowed; every member optional except one target):
 *   "command": ["prog", "arg", ...]  start a stdio server (its stderr is
 *                                    inherited; closing ends its stdin, then
 *                                    kills it after 2 s)
 *   "env": {"NAME": "value"}         added to the environment the process
 *                                    had when the library loaded (Go reads
 *                                    it once: pass later changes here)
 *   "cwd": "dir"                     its working directory
 *   "url": "http://host/mcp"         a Streamable HTTP (or HTTP+SSE) server
 *   "headers": {"Name": "value"}     sent with every HTTP request
 *   "oauth": {...}                   OAuth 2.1 when the HTTP server asks for
 *                                    it (401): discovery, registration
 *                                    (pre-registered "client_id" and
 *                                    "client_secret" for "issuer", else the
 *                                    "client_metadata_url" document, else
 *                                    dynamic registration as "client_name"),
 *                                    PKCE, refresh and step-up. "grant":
 *                                    "authorization_code" (default) asks the
 *                                    host the question "oauth/authorize"
 *                                    {"url", "redirectUrl"}: show the user
 *                                    url. Without a "redirect_url" option the
 *                                    browser comes back to a loopback
 *                                    listener of the client's own and the
 *                                    host answers {} at once; with one, the
 *                                    host answers {"redirectUrl": where the
 *                                    browser came back to}. An error answer
 *                                    refuses. "client_credentials" needs
 *                                    client_id and asks nothing.
 *                                    "token_store": "path" keeps the
 *                                    registration and tokens in that file
 *                                    (mode 0600) for the next connect to
 *                                    the server, which sends the stored
 *                                    token, refreshes it when refused and
 *                                    asks again only when that fails.
 *   "server": <polymcp_server_t>     a server of this process, in memory
 *   "client_info": {"name", "version", "title"?}  default polymcp-client
 *   "revision": "2025-11-25"         pin a revision; default: negotiate
 *   "timeout_ms": 60000              each request's timeout (default 60 s)
 *   "reset_timeout_on_progress": false
 *   "probe_timeout_ms": 5000         the server/discover probe's
 *   "max_pages": 1000, "max_input_rounds": 16, "max_questions": 64
 *   "tasks": false                   declare the tasks extension; a tools/call
 *                                    answered with a task is followed to its end
 *   "skip_output_validation": false
 *   "sampling", "elicitation", "roots": false  declare the capability; the
 *                                    server's questions come to on_question
 *   "capabilities": {...}            declared as they are, over what the
 *                                    three above imply: sub-capabilities
 *                                    ("elicitation": {"form": {}, "url": {}},
 *                                    "sampling": {"tools": {}}, "roots":
 *                                    {"listChanged": false}), "experimental"
 *                                    and "extensions" members; declaring
 *                                    sampling, elicitation or roots here
 *                                    turns its questions on too
 * POLYMCP_E_INVALID for options that are not this (an unknown member, no
 * target or two, a capability without on_question). Any thread.
 */
int polymcp_client_connect(const char *options_json, size_t len, const polymcp_client_callbacks *cb,
                           uint64_t tag, polymcp_client_t *out);

/*
 * Sends one request; its end comes to on_response(tag, ...). tag is the
 * host's and must not be the tag of another request of this client still
 * pending (POLYMCP_E_INVALID). method and params_json (a JSON object, or
 * empty for none) are the protocol's; the client adds the revision's _meta.
 * A few methods do more than send:
 *   "tools/call"     output schema check, input rounds, tasks (see options);
 *   "tools/list", "resources/list", "resources/templates/list",
 *   "prompts/list"   without a "cursor": every page, as one result;
 *   "ping"           server/discover on 2026-07-28, which has no ping;
 *   "logging/setLevel"  on 2026-07-28 the level goes into every later
 *                    request's _meta instead;
 *   "resources/subscribe", "resources/unsubscribe"  the legacy revisions
 *                    only (2026-07-28 has subscriptions/listen);
 *   "notifications/roots/list_changed"  sent as the notification (legacy
 *                    revisions);
 *   "subscriptions/listen"  (2026-07-28) opens a subscription, params
 *                    {"notifications": {"toolsListChanged": true, ...,
 *                    "resourceSubscriptions": [uri, ...]}}. on_response comes
 *                    with the server's acknowledgement, {"notifications":
 *                    what it agreed to send}, and the notifications then
 *                    reach on_notification. The tag stays taken while the
 *                    subscription lasts: polymcp_client_cancel(tag) ends it
 *                    (POLYMCP_OK, no further on_response), as does closing
 *                    the client. When the server ends it (or its stream
 *                    breaks) while the client stays, on_notification gets
 *                    "polymcp/subscription_ended" {"tag": tag}, with
 *                    "code" and "error" (what on_response would carry)
 *                    when it was not a graceful end, and the tag is free
 *                    again. Methods beginning with
 *                    "polymcp/" are the library's own, never a server's.
 * These answer {} when done. A "_meta" in params_json is merged into the
 * one the client writes.
 * opts_json (borrowed, may be empty): {"timeout_ms": n, "progress": true
 * (on_progress gets its notifications), "meta": {...} (added to
 * params._meta)}; the typed calls above other than tools/call take
 * timeout_ms only. POLYMCP_E_CLOSED once the client is closing. Any thread.
 */
int polymcp_client_request(polymcp_client_t c, const char *method, size_t mlen, const char *params_json,
                           size_t plen, const char *opts_json, size_t olen, uint64_t tag);

/* Cancels the pending request of tag: the server is told, and on_response
 * follows with POLYMCP_E_CANCELLED (unless its answer won the race).
 * POLYMCP_E_UNKNOWN_CALL when no request of tag is pending. Any thread. */
int polymcp_client_cancel(polymcp_client_t c, uint64_t tag);

/* Answers a question with its result object (a CreateMessageResult,
 * ElicitResult or ListRootsResult; borrowed), or fails it with a JSON-RPC
 * error. POLYMCP_E_UNKNOWN_CALL when the question was answered or is no
 * longer wanted; POLYMCP_E_INVALID for a result that is not JSON of the
 * method's result (the question then stays open). Any thread. */
int polymcp_client_answer(polymcp_question_t q, const char *result_json, size_t len);
int polymcp_client_answer_error(polymcp_question_t q, int32_t code, const char *msg, size_t len);

/* Closes the client: the connection ends (a started server gets EOF on its
 * stdin, an HTTP session is deleted), pending requests end with
 * POLYMCP_E_CLOSED, open questions get on_question_cancel, then on_closed.
 * Returns at once; a second close is POLYMCP_OK. Any thread. */
int polymcp_client_close(polymcp_client_t c);

/* Frees the handle: POLYMCP_E_INVALID before on_closed; after it the handle
 * is POLYMCP_E_BADHANDLE. Any thread. */
int polymcp_client_free(polymcp_client_t c);

#ifdef __cplusplus
}
#endif

#endif /* POLYMCP_H */
