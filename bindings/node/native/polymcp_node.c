/*
 * polymcp_node.c — the N-API addon under the polymcp Node package.
 *
 * A thin, synchronous mirror of polymcp.h. libpolymcp is dlopen'ed from the
 * path JS gives (the package ships it next to this addon), so a missing or
 * mismatched library is a clear JS error rather than a failed link.
 *
 * Go calls the server callbacks on its own threads, several at once. Each
 * callback copies its borrowed data into an event and queues it on the
 * server's napi_threadsafe_function (nonblocking, unbounded queue: a Go thread
 * never waits for JS). The JS thread then calls the server's event function
 * with (type, call, kind, tag, payload). on_closed is the last callback: it
 * queues its event and releases the threadsafe function, whose finalizer runs
 * after every queued event was delivered.
 *
 * A call that cannot reach JS (the environment is going away) is failed here,
 * so the core still gets exactly one answer for it.
 *
 * Over stdio the JS thread does the reading itself (the core's "pump"): a
 * libuv poll on the input descriptor calls polymcp_server_stdio_pump, and
 * the callbacks Go makes inside it, on this thread, call the event function
 * at once instead of queueing. A burst of calls then costs no thread
 * wake-up on either side, as in a single-threaded server.
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "polymcp.h"

/* ---- the library, resolved with dlsym ------------------------------------ */

#define POLYMCP_FUNCS(X)                                                       \
  X(polymcp_abi_version) X(polymcp_version) X(polymcp_last_error)              \
  X(polymcp_configure)                                                         \
  X(polymcp_free) X(polymcp_stats) X(polymcp_server_new)                       \
  X(polymcp_server_add_tool) X(polymcp_server_add_resource)                    \
  X(polymcp_server_add_resource_template) X(polymcp_server_add_prompt)         \
  X(polymcp_server_set_completer) X(polymcp_server_remove)                     \
  X(polymcp_server_notify) X(polymcp_server_serve_stdio)                       \
  X(polymcp_server_wait) X(polymcp_server_close) X(polymcp_server_free)        \
  X(polymcp_call_complete) X(polymcp_call_fail) X(polymcp_call_progress)       \
  X(polymcp_call_log) X(polymcp_call_info) X(polymcp_server_serve_http)     \
  X(polymcp_server_http) X(polymcp_http_cancel) X(polymcp_call_input)         \
  X(polymcp_call_input_state) X(polymcp_call_set_input_state)                 \
  X(polymcp_call_fail_data) X(polymcp_call_complete_text)                     \
  X(polymcp_server_add_task_tool) X(polymcp_call_start_task)                   \
  X(polymcp_server_batch) X(polymcp_server_stdio_pump)

/* The client half (ABI 1.8): resolved when the library has it, so that an
 * older library still serves; clientSupported() tells JS. */
#define POLYMCP_CLIENT_FUNCS(X)                                                \
  X(polymcp_client_connect) X(polymcp_client_request) X(polymcp_client_cancel) \
  X(polymcp_client_answer) X(polymcp_client_answer_error)                      \
  X(polymcp_client_close) X(polymcp_client_free)

static struct {
  void *dl;
  bool client; /* every POLYMCP_CLIENT_FUNCS symbol resolved */
#define FIELD(name) __typeof__(name) *name;
  POLYMCP_FUNCS(FIELD)
  POLYMCP_CLIENT_FUNCS(FIELD)
#undef FIELD
} lib;

/* ---- helpers -------------------------------------------------------------- */

#define CHECK(env, call)                                                       \
  do {                                                                         \
    if ((call) != napi_ok) {                                                   \
      return throw_napi(env, #call);                                           \
    }                                                                          \
  } while (0)

static napi_value throw_napi(napi_env env, const char *what) {
  const napi_extended_error_info *info = NULL;
  bool pending = false;
  napi_is_exception_pending(env, &pending);
  if (!pending) {
    napi_get_last_error_info(env, &info);
    char msg[256];
    snprintf(msg, sizeof msg, "polymcp addon: %s failed: %s", what,
             info && info->error_message ? info->error_message : "unknown");
    napi_throw_error(env, "POLYMCP_E_ADDON", msg);
  }
  return NULL;
}

static const char *status_name(int rc) {
  switch (rc) {
  case POLYMCP_E_INVALID: return "POLYMCP_E_INVALID";
  case POLYMCP_E_BADHANDLE: return "POLYMCP_E_BADHANDLE";
  case POLYMCP_E_UNKNOWN_CALL: return "POLYMCP_E_UNKNOWN_CALL";
  case POLYMCP_E_CLOSED: return "POLYMCP_E_CLOSED";
  case POLYMCP_E_FORKED: return "POLYMCP_E_FORKED";
  case POLYMCP_E_TIMEOUT: return "POLYMCP_E_TIMEOUT";
  case POLYMCP_E_IO: return "POLYMCP_E_IO";
  case POLYMCP_E_INPUT_REQUIRED: return "POLYMCP_E_INPUT_REQUIRED";
  case POLYMCP_E_CAPABILITY: return "POLYMCP_E_CAPABILITY";
  case POLYMCP_E_CANCELLED: return "POLYMCP_E_CANCELLED";
  case POLYMCP_E_LIMIT: return "POLYMCP_E_LIMIT";
  case POLYMCP_E_RPC: return "POLYMCP_E_RPC";
  case POLYMCP_E_OUTPUT: return "POLYMCP_E_OUTPUT";
  default: return "POLYMCP_E_INTERNAL";
  }
}

/* The binding's NativeError class, given to load(); errors of the library
 * are made with it, so that JS can tell them apart with instanceof. */
static napi_ref native_error_class;

/* Throws a NativeError (a plain Error before load) with code POLYMCP_E_*,
 * status rc and the library's message. */
static napi_value throw_status(napi_env env, int rc, const char *what) {
  const char *detail = NULL;
  size_t detail_len = 0;
  /* polymcp_last_error returns the failure's code, not a status. */
  if (lib.polymcp_last_error == NULL || lib.polymcp_last_error(&detail, &detail_len) == POLYMCP_OK ||
      detail_len == 0) {
    detail = NULL;
  }
  char msg[1024];
  snprintf(msg, sizeof msg, "%s: %.*s", what, detail ? (int)detail_len : 17,
           detail ? detail : "no error message");
  napi_value code, text, err, status, cls;
  if (napi_create_string_utf8(env, status_name(rc), NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text) != napi_ok ||
      napi_create_int32(env, rc, &status) != napi_ok) {
    return throw_napi(env, "creating an error");
  }
  if (native_error_class != NULL && napi_get_reference_value(env, native_error_class, &cls) == napi_ok &&
      cls != NULL) {
    napi_value argv[2] = {status, text};
    if (napi_new_instance(env, cls, 2, argv, &err) != napi_ok ||
        napi_set_named_property(env, err, "code", code) != napi_ok) {
      return throw_napi(env, "creating a NativeError");
    }
  } else if (napi_create_error(env, code, text, &err) != napi_ok ||
             napi_set_named_property(env, err, "status", status) != napi_ok) {
    return throw_napi(env, "creating an error");
  }
  napi_throw(env, err);
  return NULL;
}

/* A UTF-8 copy of a JS string: on the stack when small. */
typedef struct {
  char *p;
  size_t len;
  char buf[2048];
} jstr;

/*
 * Strings up to this many UTF-16 units are copied in one pass into room for
 * the most UTF-8 they can need (3 bytes a unit); longer ones are measured
 * first, so a huge string does not take three times its size. Measuring is
 * a pass of its own over the string: at 64 KiB it was 4% of a call's CPU.
 */
#define JSTR_ONE_PASS_UNITS ((size_t)1 << 20)

static bool jstr_get(napi_env env, napi_value v, jstr *s) {
  size_t units = 0, len = 0;
  /* Without a buffer this reads the string's length, not its contents. */
  if (napi_get_value_string_utf16(env, v, NULL, 0, &units) != napi_ok) {
    napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a string");
    return false;
  }
  if (units <= JSTR_ONE_PASS_UNITS) {
    len = 3 * units;
  } else if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
    napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a string");
    return false;
  }
  s->p = len < sizeof s->buf ? s->buf : malloc(len + 1);
  if (s->p == NULL) {
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "out of memory");
    return false;
  }
  napi_get_value_string_utf8(env, v, s->p, len + 1, &s->len);
  return true;
}

static void jstr_free(jstr *s) {
  if (s->p != s->buf) {
    free(s->p);
  }
}

static bool get_u64(napi_env env, napi_value v, uint64_t *out) {
  bool lossless = true;
  if (napi_get_value_bigint_uint64(env, v, out, &lossless) == napi_ok && lossless) {
    return true;
  }
  int64_t i = 0;
  if (napi_get_value_int64(env, v, &i) == napi_ok && i >= 0) {
    *out = (uint64_t)i;
    return true;
  }
  napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a non-negative integer or bigint");
  return false;
}

static napi_value make_int(napi_env env, int32_t v) {
  napi_value out = NULL;
  napi_create_int32(env, v, &out);
  return out;
}

static napi_value make_undefined(napi_env env) {
  napi_value out = NULL;
  napi_get_undefined(env, &out);
  return out;
}

/* ---- libuv, for the stdio pump ------------------------------------------- */

/*
 * node-api-headers ships no uv.h, so the few calls of libuv 1.x's stable
 * API the pump needs are declared here. Node exports libuv's symbols to
 * addons, and napi_get_uv_event_loop hands out its loop. A uv_poll_t is
 * allocated at uv_handle_size(UV_POLL) bytes; its first field is libuv's
 * public `void *data`.
 */
typedef struct uv_poll_s uv_poll_t;
typedef struct uv_handle_s uv_handle_t;
typedef void (*uv_poll_cb)(uv_poll_t *handle, int status, int events);
typedef void (*uv_close_cb)(uv_handle_t *handle);
extern size_t uv_handle_size(int type);
extern int uv_poll_init(struct uv_loop_s *loop, uv_poll_t *handle, int fd);
extern int uv_poll_start(uv_poll_t *handle, int events, uv_poll_cb cb);
extern int uv_poll_stop(uv_poll_t *handle);
extern void uv_close(uv_handle_t *handle, uv_close_cb close_cb);
enum { PMCP_UV_POLL = 8, PMCP_UV_READABLE = 1 }; /* UV_POLL, UV_READABLE */

/* ---- servers and their events -------------------------------------------- */

enum {
  EV_CALL = 1,
  EV_CANCEL = 2,
  EV_LOG = 3,
  EV_CLOSED = 4,
  EV_IDLE = 5,
  EV_HTTP_DATA = 6, /* an HTTP exchange's head (once) and body bytes so far */
  EV_HTTP_END = 7,  /* the end of an HTTP exchange, with what was not sent yet */
  EV_INPUT = 8      /* polymcp_call_input returned: kind is its status, tag the ask's id */
};

typedef struct event {
  uint32_t type;
  int32_t kind;  /* call kind, log level, HTTP status (0: no head) or end code */
  uint64_t call;
  double tag;    /* registration tag, or the HTTP exchange's id */
  char *body;    /* HTTP body bytes (malloc'd, owned), or NULL */
  size_t body_len;
  size_t len;
  size_t cap;    /* the block's size when it is a pooled one (big_alloc), else 0 */
  char data[];   /* NUL-terminated copy of the borrowed payload */
} event;

/*
 * Big events (a large call's params) live in blocks of their own, mapped
 * once and recycled, rather than in malloc's: they are allocated on the Go
 * thread that posts them and freed on the JS thread, and glibc gives each
 * allocating thread an arena of its own, which kept the freed blocks (2-4 MiB
 * of the Node server's peak RSS with 16 calls of 64 KiB in flight over HTTP).
 * Blocks come in powers of two from BIG_MIN; the pool keeps up to POOL_MAX
 * bytes of free ones, and unmaps the rest.
 */
#define BIG_MIN ((size_t)32 << 10)
#define BIG_CLASSES 12 /* 32 KiB .. 64 MiB */
#define POOL_MAX ((size_t)4 << 20)

typedef struct free_block {
  struct free_block *next;
} free_block;

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static free_block *pool[BIG_CLASSES];
static size_t pool_bytes;

/* The class of a block of at least n bytes, or -1 past the largest. */
static int big_class(size_t n, size_t *cap) {
  size_t c = BIG_MIN;
  for (int i = 0; i < BIG_CLASSES; i++, c <<= 1) {
    if (n <= c) {
      *cap = c;
      return i;
    }
  }
  return -1;
}

/* A block of at least n bytes (n >= BIG_MIN) and its size, or NULL. */
static void *big_alloc(size_t n, size_t *cap) {
  int i = big_class(n, cap);
  if (i < 0) {
    return NULL;
  }
  pthread_mutex_lock(&pool_mu);
  free_block *b = pool[i];
  if (b != NULL) {
    pool[i] = b->next;
    pool_bytes -= *cap;
  }
  pthread_mutex_unlock(&pool_mu);
  if (b != NULL) {
    return b;
  }
  void *p = mmap(NULL, *cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  return p == MAP_FAILED ? NULL : p;
}

static void big_free(void *p, size_t cap) {
  size_t c;
  int i = big_class(cap, &c);
  pthread_mutex_lock(&pool_mu);
  if (i >= 0 && pool_bytes + cap <= POOL_MAX) {
    free_block *b = p;
    b->next = pool[i];
    pool[i] = b;
    pool_bytes += cap;
    p = NULL;
  }
  pthread_mutex_unlock(&pool_mu);
  if (p != NULL) {
    munmap(p, cap);
  }
}

/*
 * One per server, shared by the JS thread and Go's threads.
 *
 * mu guards tsfn, which becomes NULL when the threadsafe function is
 * finalized: Go threads post only under mu and only to a live tsfn. That
 * matters at environment teardown, when Node deletes a threadsafe function
 * whatever threads still hold it.
 *
 * refs counts the owners of the struct: the JS external, the tsfn's
 * finalizer, the Go side (until on_closed returns; the server is closed
 * exactly once) and each idle watcher. The last one frees it.
 */
typedef struct server_ctx {
  pthread_mutex_t mu;
  napi_threadsafe_function tsfn;
  int refs;
  polymcp_server_t handle;
  pthread_t js_thread;
  /* Written by the JS thread, read by Go threads waiting to write HTTP. */
  _Atomic bool closing;
  _Atomic bool gone; /* the tsfn was finalized: nothing reaches JS any more */
  /* Events posted and not yet delivered: the JS thread is in a batch of
   * them (polymcp_server_batch) until it has delivered the last one. */
  _Atomic int queued;
  /* JS thread only. */
  napi_env env;
  napi_ref on_event;  /* the event function, for events delivered at once */
  uv_poll_t *poll;    /* the stdio pump's watch on the input, or NULL */
  napi_ref pump_resource;
  napi_async_context pump_async;
  bool pumping;       /* inside polymcp_server_stdio_pump */
  bool refed;        /* the tsfn keeps the event loop alive */
  bool serving;      /* serve_* or close was called: stay alive until finalized */
  bool batching;     /* a polymcp_server_batch is open */
  uint32_t exchanges; /* host-owned HTTP exchanges not ended yet */
} server_ctx;

static event *event_new(uint32_t type, uint64_t call, int32_t kind, double tag, const char *data, size_t len) {
  size_t need = sizeof(event) + len + 1, cap = 0;
  event *ev = need >= BIG_MIN ? big_alloc(need, &cap) : NULL;
  if (ev == NULL) {
    cap = 0;
    ev = malloc(need);
  }
  if (ev == NULL) {
    return NULL;
  }
  ev->cap = cap;
  ev->type = type;
  ev->kind = kind;
  ev->call = call;
  ev->tag = tag;
  ev->body = NULL;
  ev->body_len = 0;
  ev->len = len;
  if (len > 0) {
    memcpy(ev->data, data, len);
  }
  ev->data[len] = '\0';
  return ev;
}

static void event_free(event *ev) {
  if (ev != NULL) {
    free(ev->body);
    if (ev->cap != 0) {
      big_free(ev, ev->cap);
    } else {
      free(ev);
    }
  }
}

static const char shutting_down[] = "polymcp: the Node host is shutting down";

/* Answers a call JS will never see, so it still gets exactly one answer. */
static void fail_unseen(uint64_t call) {
  lib.polymcp_call_fail(call, -32603, shutting_down, sizeof shutting_down - 1);
}

static void ctx_release(server_ctx *ctx) {
  pthread_mutex_lock(&ctx->mu);
  bool last = --ctx->refs == 0;
  pthread_mutex_unlock(&ctx->mu);
  if (last) {
    pthread_mutex_destroy(&ctx->mu);
    free(ctx);
  }
}

static void ctx_retain(server_ctx *ctx) {
  pthread_mutex_lock(&ctx->mu);
  ctx->refs++;
  pthread_mutex_unlock(&ctx->mu);
}

/* Any thread: queues ev for the JS thread; false (ev untouched) if JS is gone. */
static bool post_event(server_ctx *ctx, event *ev) {
  pthread_mutex_lock(&ctx->mu);
  /* Counted before it can be delivered, so the count never goes below. */
  atomic_fetch_add(&ctx->queued, 1);
  bool ok = ctx->tsfn != NULL && napi_call_threadsafe_function(ctx->tsfn, ev, napi_tsfn_nonblocking) == napi_ok;
  if (!ok) {
    atomic_fetch_sub(&ctx->queued, 1);
  }
  pthread_mutex_unlock(&ctx->mu);
  return ok;
}

/*
 * JS thread: the answers JS gives while delivering a run of events, up to
 * the last one queued, leave in one write (polymcp_server_batch over stdio):
 * the core's writer is not woken for each run, nor its first answer written
 * alone. The batch ends when no event is left to deliver.
 */
static void batch_begin(server_ctx *ctx) {
  if (!ctx->batching && ctx->handle != 0 && lib.polymcp_server_batch(ctx->handle, 1) == POLYMCP_OK) {
    ctx->batching = true;
  }
}

static void batch_delivered(server_ctx *ctx) {
  if (atomic_fetch_sub(&ctx->queued, 1) == 1 && ctx->batching) {
    ctx->batching = false;
    lib.polymcp_server_batch(ctx->handle, 0);
  }
}

/* Any thread: gives up one hold on the tsfn (acquired, or the initial one). */
static void release_tsfn(server_ctx *ctx) {
  pthread_mutex_lock(&ctx->mu);
  if (ctx->tsfn != NULL) {
    napi_release_threadsafe_function(ctx->tsfn, napi_tsfn_release);
  }
  pthread_mutex_unlock(&ctx->mu);
}

static bool deliver(napi_env env, napi_value fn, uint32_t type, uint64_t call, int32_t kind, double tag,
                    const char *data, size_t len, const char *body, size_t body_len);

/* Go threads: queue an event for the JS thread. Inside the stdio pump, on
 * the JS thread, a call is delivered at once. Other events still queue:
 * a cancel or log there comes from JS's own call into the library (a
 * handler closing the server), and JS must not be re-entered from it. */
static void post(server_ctx *ctx, uint32_t type, uint64_t call, int32_t kind, double tag, const char *data, size_t len) {
  /* The thread is compared first: pumping is the JS thread's own field. */
  if (type == EV_CALL && pthread_equal(pthread_self(), ctx->js_thread) && ctx->pumping) {
    napi_value fn;
    if (napi_get_reference_value(ctx->env, ctx->on_event, &fn) != napi_ok ||
        !deliver(ctx->env, fn, type, call, kind, tag, data, len, NULL, 0)) {
      fail_unseen(call);
    }
    return;
  }
  event *ev = event_new(type, call, kind, tag, data, len);
  if (ev != NULL && post_event(ctx, ev)) {
    return;
  }
  if (type == EV_CALL) {
    fail_unseen(call);
  }
  event_free(ev);
}

static void on_call(void *user, polymcp_call_t call, uint32_t kind, uint64_t tag, const char *params, size_t len) {
  post(user, EV_CALL, call, (int32_t)kind, (double)tag, params, len);
}

static void on_cancel(void *user, polymcp_call_t call) {
  post(user, EV_CANCEL, call, 0, 0, NULL, 0);
}

static void on_log(void *user, int level, const char *msg, size_t len) {
  post(user, EV_LOG, 0, level, 0, msg, len);
}

/* The last callback of the server: after it Go never touches ctx again. */
static void on_closed(void *user) {
  server_ctx *ctx = user;
  post(ctx, EV_CLOSED, 0, 0, 0, NULL, 0);
  release_tsfn(ctx);
  ctx_release(ctx);
}

/*
 * JS thread: the tsfn keeps the loop alive while a transport serves or a
 * close is in progress (until the tsfn is finalized, which is after
 * on_closed and every watcher released it), and while host-owned HTTP
 * exchanges are open. Otherwise an idle server does not hold the process.
 */
static void update_ref(napi_env env, server_ctx *ctx) {
  if (ctx->tsfn == NULL) {
    return;
  }
  bool want = ctx->serving || ctx->exchanges > 0;
  if (want && !ctx->refed && napi_ref_threadsafe_function(env, ctx->tsfn) == napi_ok) {
    ctx->refed = true;
  } else if (!want && ctx->refed && napi_unref_threadsafe_function(env, ctx->tsfn) == napi_ok) {
    ctx->refed = false;
  }
}

/* JS thread: calls the event function with one event; false when the
 * arguments could not be made (nothing was called). */
static bool deliver(napi_env env, napi_value fn, uint32_t type, uint64_t call, int32_t kind, double tag,
                    const char *data, size_t len, const char *body, size_t body_len) {
  napi_value argv[6], undefined;
  bool ok = napi_get_undefined(env, &undefined) == napi_ok &&
            napi_create_uint32(env, type, &argv[0]) == napi_ok &&
            napi_create_bigint_uint64(env, call, &argv[1]) == napi_ok &&
            napi_create_int32(env, kind, &argv[2]) == napi_ok &&
            napi_create_double(env, tag, &argv[3]) == napi_ok;
  if (ok) {
    argv[4] = undefined;
    argv[5] = undefined;
    if (len > 0) {
      ok = napi_create_string_utf8(env, data, len, &argv[4]) == napi_ok;
    }
    if (ok && body_len > 0) {
      ok = napi_create_buffer_copy(env, body_len, body, NULL, &argv[5]) == napi_ok;
    }
  }
  if (ok && napi_call_function(env, undefined, fn, 6, argv, NULL) == napi_pending_exception) {
    /* A throwing event function surfaces as an uncaught exception, as
     * from the threadsafe function. */
    napi_value err;
    if (napi_get_and_clear_last_exception(env, &err) == napi_ok) {
      napi_fatal_exception(env, err);
    }
  }
  return ok;
}

static void stop_pump(server_ctx *ctx);

/* JS thread: deliver one event to the server's event function. */
static void call_js(napi_env env, napi_value fn, void *context, void *data) {
  server_ctx *ctx = context;
  event *ev = data;
  if (env == NULL || fn == NULL) {
    if (ev->type == EV_CALL) {
      fail_unseen(ev->call);
    }
    event_free(ev);
    batch_delivered(ctx);
    return;
  }
  batch_begin(ctx);
  if (ev->type == EV_HTTP_END && ctx->exchanges > 0) {
    ctx->exchanges--;
    update_ref(env, ctx);
  }
  if (ev->type == EV_IDLE || ev->type == EV_CLOSED) {
    stop_pump(ctx); /* stdio ended, or the server closed: stop watching */
  }
  if (!deliver(env, fn, ev->type, ev->call, ev->kind, ev->tag, ev->data, ev->len, ev->body, ev->body_len) &&
      ev->type == EV_CALL) {
    fail_unseen(ev->call);
  }
  event_free(ev);
  batch_delivered(ctx);
}

/* JS thread, also at environment teardown (whatever threads hold the tsfn). */
static void tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)hint;
  server_ctx *ctx = data;
  stop_pump(ctx);
  if (ctx->on_event != NULL) {
    napi_delete_reference(env, ctx->on_event);
    ctx->on_event = NULL;
  }
  pthread_mutex_lock(&ctx->mu);
  ctx->tsfn = NULL;
  pthread_mutex_unlock(&ctx->mu);
  ctx->gone = true;
  ctx->refed = false;
  ctx_release(ctx);
}

static void external_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ctx_release(data);
}

/* The pointer behind a JS external; throws "expected <what>" when v is not one. */
static void *get_external(napi_env env, napi_value v, const char *what) {
  void *p = NULL;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_get_value_external(env, v, &p) != napi_ok) {
    char msg[64];
    snprintf(msg, sizeof msg, "expected %s", what);
    napi_throw_type_error(env, "POLYMCP_E_INVALID", msg);
    return NULL;
  }
  return p;
}

static server_ctx *get_server(napi_env env, napi_value v) {
  return get_external(env, v, "a polymcp server");
}

/* JS thread: a transport serves now, or a close began. */
static void keep_alive(napi_env env, server_ctx *ctx) {
  ctx->serving = true;
  update_ref(env, ctx);
}

/* ---- host-owned HTTP ------------------------------------------------------ */

/*
 * One exchange of polymcp_server_http. Go's callbacks gather the response
 * here and hand it to JS in pieces: on_flush (and a large enough body)
 * posts what has gathered as one EV_HTTP_DATA, on_end posts EV_HTTP_END.
 *
 * Backpressure: pending counts body bytes posted to JS that the socket has
 * not taken yet (JS acknowledges them with httpAck once res.write returned
 * true or 'drain' came). A Go writer waits while pending is over
 * HTTP_HIGH_WATER, in slices, so a client that stops reading slows the
 * stream that feeds it instead of filling memory. It stops waiting when the
 * client went away (httpCancel), the server is closing, JS is gone, or
 * after HTTP_STALL_MS without progress, when the exchange is cancelled.
 * Nothing ever waits on the JS thread (an exchange answered inside
 * polymcp_server_http).
 *
 * refs: the Go side (until on_end returns) and the JS external.
 */
#define HTTP_HIGH_WATER (1u << 20)
#define HTTP_POST_AT (64u << 10)
#define HTTP_STALL_MS 30000

typedef struct http_ex {
  server_ctx *ctx;
  double id;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int refs;
  polymcp_http_t handle; /* set once polymcp_server_http returned */
  bool gone;             /* the client went away: drop writes, never wait */
  size_t pending;
  int status;            /* of a head not posted yet; 0 when none */
  char *head;
  size_t head_len;
  char *buf;             /* body bytes not posted yet */
  size_t len, cap;
} http_ex;

static void ex_release(http_ex *ex) {
  pthread_mutex_lock(&ex->mu);
  bool last = --ex->refs == 0;
  pthread_mutex_unlock(&ex->mu);
  if (last) {
    pthread_cond_destroy(&ex->cv);
    pthread_mutex_destroy(&ex->mu);
    free(ex->head);
    free(ex->buf);
    ctx_release(ex->ctx);
    free(ex);
  }
}

/* With ex->mu held: posts the gathered head and body as one EV_HTTP_DATA. */
static void ex_post_locked(http_ex *ex) {
  if (ex->status == 0 && ex->len == 0) {
    return;
  }
  event *ev = event_new(EV_HTTP_DATA, 0, ex->status, ex->id, ex->head, ex->head_len);
  if (ev == NULL) {
    ex->gone = true;
    return;
  }
  ev->body = ex->buf;
  ev->body_len = ex->len;
  if (!post_event(ex->ctx, ev)) {
    ev->body = NULL;
    event_free(ev);
    ex->gone = true;
    return;
  }
  ex->pending += ex->len;
  ex->buf = NULL;
  ex->len = ex->cap = 0;
  free(ex->head);
  ex->head = NULL;
  ex->head_len = 0;
  ex->status = 0;
}

static void on_http_start(void *user, int status, const char *headers, size_t len) {
  http_ex *ex = user;
  pthread_mutex_lock(&ex->mu);
  free(ex->head);
  ex->head = malloc(len + 1);
  if (ex->head != NULL) {
    memcpy(ex->head, headers, len);
    ex->head[len] = '\0';
    ex->head_len = len;
    ex->status = status;
  } else {
    ex->gone = true;
  }
  pthread_mutex_unlock(&ex->mu);
}

static bool ex_stop_waiting(http_ex *ex) {
  return ex->gone || ex->ctx->closing || ex->ctx->gone;
}

static void on_http_write(void *user, const char *chunk, size_t len) {
  http_ex *ex = user;
  pthread_mutex_lock(&ex->mu);
  if (ex->gone) {
    pthread_mutex_unlock(&ex->mu);
    return;
  }
  if (ex->len + len > ex->cap) {
    size_t cap = ex->cap ? ex->cap : 4096;
    while (cap < ex->len + len) {
      cap *= 2;
    }
    char *buf = realloc(ex->buf, cap);
    if (buf == NULL) {
      ex->gone = true;
      pthread_mutex_unlock(&ex->mu);
      return;
    }
    ex->buf = buf;
    ex->cap = cap;
  }
  memcpy(ex->buf + ex->len, chunk, len);
  ex->len += len;
  if (ex->len >= HTTP_POST_AT) {
    ex_post_locked(ex);
  }
  if (pthread_equal(pthread_self(), ex->ctx->js_thread)) {
    pthread_mutex_unlock(&ex->mu);
    return;
  }
  int waited_ms = 0;
  while (ex->pending > HTTP_HIGH_WATER && !ex_stop_waiting(ex)) {
    if (waited_ms >= HTTP_STALL_MS) {
      ex->gone = true;
      polymcp_http_t h = ex->handle;
      pthread_mutex_unlock(&ex->mu);
      if (h != 0) {
        lib.polymcp_http_cancel(h);
      }
      return;
    }
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100 * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    size_t before = ex->pending;
    pthread_cond_timedwait(&ex->cv, &ex->mu, &until);
    waited_ms = ex->pending < before ? 0 : waited_ms + 100;
  }
  pthread_mutex_unlock(&ex->mu);
}

static void on_http_flush(void *user) {
  http_ex *ex = user;
  pthread_mutex_lock(&ex->mu);
  if (!ex->gone) {
    ex_post_locked(ex);
  }
  pthread_mutex_unlock(&ex->mu);
}

static void on_http_end(void *user, int rc) {
  http_ex *ex = user;
  pthread_mutex_lock(&ex->mu);
  if (!ex->gone) {
    ex_post_locked(ex);
  }
  /* Always: JS closes the response and counts the exchange out. */
  event *ev = event_new(EV_HTTP_END, 0, rc, ex->id, NULL, 0);
  if (ev != NULL && !post_event(ex->ctx, ev)) {
    event_free(ev);
  }
  pthread_mutex_unlock(&ex->mu);
  ex_release(ex);
}

static void ex_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ex_release(data);
}

static http_ex *get_exchange(napi_env env, napi_value v) {
  return get_external(env, v, "a polymcp HTTP exchange");
}

/* ---- exported functions --------------------------------------------------- */

/*
 * The arguments of an exported function, read by a spec of one letter per
 * argument, in order:
 *   s  a server (JS external)                 -> a.server
 *   x  an HTTP exchange (JS external)         -> a.exchange
 *   c  a client (JS external)                 -> a.client
 *   u  a non-negative integer or bigint       -> a.u[0], a.u[1]  (call handle, tag)
 *   d  a number                               -> a.d[0], a.d[1]
 *   j  a string, copied as UTF-8              -> a.str[0], a.str[1]
 *   b  a Buffer (borrowed)                    -> a.buf, a.buf_len
 *   v  any value, kept as is                  -> a.argv[i]
 * read_args returns false with a JS exception pending and nothing to free;
 * after success, args_free releases the strings.
 */
#define MAX_ARGS 5
typedef struct client_ctx client_ctx;
static client_ctx *get_client(napi_env env, napi_value v);
typedef struct {
  napi_value argv[MAX_ARGS];
  server_ctx *server;
  http_ex *exchange;
  client_ctx *client;
  uint64_t u[2];
  double d[2];
  jstr str[3];
  int nstr;
  void *buf;
  size_t buf_len;
} args;

static void args_free(args *a) {
  for (int i = 0; i < a->nstr; i++) {
    jstr_free(&a->str[i]);
  }
  a->nstr = 0;
}

static bool read_args(napi_env env, napi_callback_info info, const char *spec, args *a) {
  size_t n = strlen(spec), argc = n;
  int nu = 0, nd = 0;
  a->nstr = 0;
  if (n > MAX_ARGS || napi_get_cb_info(env, info, &argc, a->argv, NULL, NULL) != napi_ok) {
    throw_napi(env, "napi_get_cb_info");
    return false;
  }
  for (size_t i = 0; i < n; i++) {
    napi_value v = a->argv[i];
    bool ok = true, is_buffer = false;
    switch (spec[i]) {
    case 's':
      ok = (a->server = get_server(env, v)) != NULL;
      break;
    case 'x':
      ok = (a->exchange = get_exchange(env, v)) != NULL;
      break;
    case 'c':
      ok = (a->client = get_client(env, v)) != NULL;
      break;
    case 'u':
      ok = get_u64(env, v, &a->u[nu++]);
      break;
    case 'd':
      ok = napi_get_value_double(env, v, &a->d[nd++]) == napi_ok;
      if (!ok) {
        napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a number");
      }
      break;
    case 'j':
      ok = jstr_get(env, v, &a->str[a->nstr]);
      a->nstr += ok;
      break;
    case 'b':
      ok = napi_is_buffer(env, v, &is_buffer) == napi_ok && is_buffer &&
           napi_get_buffer_info(env, v, &a->buf, &a->buf_len) == napi_ok;
      if (!ok) {
        napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a Buffer");
      }
      break;
    default: /* 'v' */
      break;
    }
    if (!ok) {
      args_free(a);
      return false;
    }
  }
  return true;
}

/* undefined on POLYMCP_OK, else the library's error thrown. */
static napi_value status_or_throw(napi_env env, int rc, const char *what) {
  return rc == POLYMCP_OK ? make_undefined(env) : throw_status(env, rc, what);
}

/* A JS string of a buffer the library handed out, which it releases. */
static napi_value lib_string(napi_env env, char *p, size_t len) {
  napi_value out;
  napi_status st = napi_create_string_utf8(env, p ? p : "", len, &out);
  lib.polymcp_free(p);
  CHECK(env, st);
  return out;
}

static napi_value js_load(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "jv", &a)) {
    return NULL;
  }
  napi_valuetype type;
  if (native_error_class == NULL && napi_typeof(env, a.argv[1], &type) == napi_ok && type == napi_function &&
      napi_create_reference(env, a.argv[1], 1, &native_error_class) != napi_ok) {
    args_free(&a);
    return throw_napi(env, "napi_create_reference");
  }
  const char *path = a.str[0].p;
  if (lib.dl == NULL) {
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
      napi_throw_error(env, "POLYMCP_E_LOAD", dlerror());
      args_free(&a);
      return NULL;
    }
#define RESOLVE(name)                                                          \
  lib.name = (__typeof__(name) *)dlsym(dl, #name);                             \
  if (lib.name == NULL) {                                                      \
    char msg[512];                                                             \
    snprintf(msg, sizeof msg, "%s: missing symbol " #name, path);              \
    memset(&lib, 0, sizeof lib);                                               \
    dlclose(dl);                                                               \
    args_free(&a);                                                             \
    napi_throw_error(env, "POLYMCP_E_LOAD", msg);                              \
    return NULL;                                                               \
  }
    POLYMCP_FUNCS(RESOLVE)
#undef RESOLVE
    lib.client = true;
#define RESOLVE_OPTIONAL(name)                                                 \
  lib.name = (__typeof__(name) *)dlsym(dl, #name);                             \
  lib.client = lib.client && lib.name != NULL;
    POLYMCP_CLIENT_FUNCS(RESOLVE_OPTIONAL)
#undef RESOLVE_OPTIONAL
    lib.dl = dl;
  }
  args_free(&a);
  napi_value out;
  CHECK(env, napi_create_uint32(env, lib.polymcp_abi_version(), &out));
  return out;
}

static napi_value js_version(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  CHECK(env, napi_create_string_utf8(env, lib.polymcp_version(), NAPI_AUTO_LENGTH, &out));
  return out;
}

/* configure(settingsJson) -> undefined, or the library's error thrown */
static napi_value js_configure(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "j", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_configure(a.str[0].p, a.str[0].len);
  args_free(&a);
  return status_or_throw(env, rc, "polymcp_configure");
}

/* serverNew(optionsJson, onEvent) -> external */
static napi_value js_server_new(napi_env env, napi_callback_info info) {
  napi_value name, external;
  args a;
  if (!read_args(env, info, "jv", &a)) {
    return NULL;
  }
  server_ctx *ctx = calloc(1, sizeof *ctx);
  if (ctx == NULL || pthread_mutex_init(&ctx->mu, NULL) != 0) {
    free(ctx);
    args_free(&a);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "out of memory");
    return NULL;
  }
  ctx->js_thread = pthread_self();
  ctx->env = env;
  ctx->refs = 1; /* the tsfn finalizer's; the external's and Go's come below */
  if (napi_create_reference(env, a.argv[1], 1, &ctx->on_event) != napi_ok) {
    args_free(&a);
    pthread_mutex_destroy(&ctx->mu);
    free(ctx);
    return throw_napi(env, "napi_create_reference");
  }
  if (napi_create_string_utf8(env, "polymcp", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_threadsafe_function(env, a.argv[1], NULL, name, 0, 1, ctx, tsfn_finalize, ctx, call_js,
                                      &ctx->tsfn) != napi_ok) {
    args_free(&a);
    napi_delete_reference(env, ctx->on_event);
    pthread_mutex_destroy(&ctx->mu);
    free(ctx);
    return throw_napi(env, "napi_create_threadsafe_function");
  }
  napi_unref_threadsafe_function(env, ctx->tsfn);
  polymcp_server_callbacks cb = {
      .struct_size = sizeof cb, .user = ctx, .on_call = on_call,
      .on_cancel = on_cancel, .on_log = on_log, .on_closed = on_closed,
  };
  ctx->refs++; /* Go's, given back by on_closed */
  int rc = lib.polymcp_server_new(a.str[0].p, a.str[0].len, &cb, &ctx->handle);
  args_free(&a);
  if (rc != POLYMCP_OK) {
    napi_value err = throw_status(env, rc, "polymcp_server_new");
    ctx->refs--; /* no server: on_closed never comes */
    napi_release_threadsafe_function(ctx->tsfn, napi_tsfn_abort);
    return err;
  }
  ctx->refs++;
  if (napi_create_external(env, ctx, external_finalize, NULL, &external) != napi_ok) {
    ctx->refs--;
    lib.polymcp_server_free(ctx->handle);
    return throw_napi(env, "napi_create_external");
  }
  return external;
}

/* add(server, json, tag) for tools, resources, prompts and completers. */
typedef int (*add_fn)(polymcp_server_t, const char *, size_t, uint64_t);

static napi_value server_add(napi_env env, napi_callback_info info, add_fn add, const char *what) {
  args a;
  if (!read_args(env, info, "sju", &a)) {
    return NULL;
  }
  int rc = add(a.server->handle, a.str[0].p, a.str[0].len, a.u[0]);
  args_free(&a);
  return status_or_throw(env, rc, what);
}

static napi_value js_add_tool(napi_env env, napi_callback_info info) {
  return server_add(env, info, lib.polymcp_server_add_tool, "polymcp_server_add_tool");
}

static napi_value js_add_resource(napi_env env, napi_callback_info info) {
  return server_add(env, info, lib.polymcp_server_add_resource, "polymcp_server_add_resource");
}

static napi_value js_add_resource_template(napi_env env, napi_callback_info info) {
  return server_add(env, info, lib.polymcp_server_add_resource_template, "polymcp_server_add_resource_template");
}

static napi_value js_add_prompt(napi_env env, napi_callback_info info) {
  return server_add(env, info, lib.polymcp_server_add_prompt, "polymcp_server_add_prompt");
}

/* serverAddTaskTool(server, toolJson, taskJson, tag): a tool whose calls may
 * become tasks (ABI 1.4). */
static napi_value js_add_task_tool(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "sjju", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_server_add_task_tool(a.server->handle, a.str[0].p, a.str[0].len, a.str[1].p, a.str[1].len,
                                            a.u[0]);
  args_free(&a);
  return status_or_throw(env, rc, "polymcp_server_add_task_tool");
}

static napi_value js_set_completer(napi_env env, napi_callback_info info) {
  return server_add(env, info, lib.polymcp_server_set_completer, "polymcp_server_set_completer");
}

static napi_value js_server_remove(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "su", &a)) {
    return NULL;
  }
  return status_or_throw(env, lib.polymcp_server_remove(a.server->handle, a.u[0]), "polymcp_server_remove");
}

static napi_value js_server_notify(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "sjj", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_server_notify(a.server->handle, a.str[0].p, a.str[0].len, a.str[1].p, a.str[1].len);
  args_free(&a);
  return status_or_throw(env, rc, "polymcp_server_notify");
}

/* The stdio transport ends with its input, which no callback reports:
 * a thread waits for the server to go idle and tells JS (EV_IDLE). It holds
 * its own count on the threadsafe function, so the event can always be
 * queued, also when on_closed came first, and its own hold on ctx. */
static void *watch_idle(void *arg) {
  server_ctx *ctx = arg;
  while (lib.polymcp_server_wait(ctx->handle, -1) == POLYMCP_E_TIMEOUT) {
  }
  post(ctx, EV_IDLE, 0, 0, 0, NULL, 0);
  release_tsfn(ctx);
  ctx_release(ctx);
  return NULL;
}

/* JS thread: runs fn(arg) on a detached thread that holds the tsfn and ctx
 * (fn gives both back); false with a JS exception when it cannot. */
static bool start_thread(napi_env env, server_ctx *ctx, void *(*fn)(void *), void *arg) {
  if (napi_acquire_threadsafe_function(ctx->tsfn) != napi_ok) {
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "polymcp addon: cannot hold the threadsafe function");
    return false;
  }
  ctx_retain(ctx);
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, fn, arg);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    napi_release_threadsafe_function(ctx->tsfn, napi_tsfn_release);
    ctx_release(ctx);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "polymcp addon: pthread_create failed");
    return false;
  }
  return true;
}

/* JS thread: one pump of the stdio input, inside a callback scope whose
 * end runs the microtasks (async handlers' answers) and inside a batch, so
 * that every answer of the burst leaves in one write. */
static int pump_once(server_ctx *ctx);

static void pump_stdio(server_ctx *ctx) {
  int rc;
  do {
    rc = pump_once(ctx);
  } while (rc == POLYMCP_PUMP_MORE && ctx->poll != NULL);
  if (rc != POLYMCP_OK && rc != POLYMCP_PUMP_MORE) {
    stop_pump(ctx); /* the transport ended */
  }
}

static int pump_once(server_ctx *ctx) {
  napi_env env = ctx->env;
  napi_handle_scope hs;
  if (napi_open_handle_scope(env, &hs) != napi_ok) {
    return POLYMCP_OK;
  }
  napi_value resource;
  napi_callback_scope cs;
  bool scoped = napi_get_reference_value(env, ctx->pump_resource, &resource) == napi_ok &&
                napi_open_callback_scope(env, resource, ctx->pump_async, &cs) == napi_ok;
  lib.polymcp_server_batch(ctx->handle, 1);
  ctx->pumping = true;
  int rc = lib.polymcp_server_stdio_pump(ctx->handle);
  ctx->pumping = false;
  if (scoped) {
    napi_close_callback_scope(env, cs);
  }
  lib.polymcp_server_batch(ctx->handle, 0);
  napi_close_handle_scope(env, hs);
  return rc;
}

static void on_readable(uv_poll_t *poll, int status, int events) {
  (void)status; /* an error is the pump's to find and report */
  (void)events;
  pump_stdio(*(server_ctx **)poll);
}

static void poll_free(uv_handle_t *poll) { free(poll); }

static void poll_closed(uv_handle_t *poll) {
  server_ctx *ctx = *(server_ctx **)poll;
  free(poll);
  ctx_release(ctx);
}

/* One watch at a time in the process: libuv cannot watch a descriptor
 * with two handles, and a second server serving the same stdin (which makes
 * little sense) leaves the reading to its core. */
static atomic_bool pump_claimed;

/* JS thread: ends the pump's watch (idempotent). */
static void stop_pump(server_ctx *ctx) {
  if (ctx->poll == NULL) {
    return;
  }
  atomic_store(&pump_claimed, false);
  uv_poll_stop(ctx->poll);
  uv_close((uv_handle_t *)ctx->poll, poll_closed);
  ctx->poll = NULL;
  napi_async_destroy(ctx->env, ctx->pump_async);
  napi_delete_reference(ctx->env, ctx->pump_resource);
}

/* JS thread: watches fd for the pump; false (nothing started) when libuv
 * cannot poll it (a regular file, /dev/null): then the core reads. */
static bool start_pump(napi_env env, server_ctx *ctx, int fd) {
  struct uv_loop_s *loop;
  napi_value resource, name;
  bool unclaimed = false;
  if (!atomic_compare_exchange_strong(&pump_claimed, &unclaimed, true)) {
    return false;
  }
  uv_poll_t *poll = NULL;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok || (poll = calloc(1, uv_handle_size(PMCP_UV_POLL))) == NULL ||
      uv_poll_init(loop, poll, fd) != 0) {
    free(poll);
    atomic_store(&pump_claimed, false);
    return false;
  }
  *(server_ctx **)poll = ctx;
  if (napi_create_object(env, &resource) != napi_ok ||
      napi_create_string_utf8(env, "polymcp:stdio", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_reference(env, resource, 1, &ctx->pump_resource) != napi_ok) {
    goto close_poll;
  }
  if (napi_async_init(env, resource, name, &ctx->pump_async) != napi_ok) {
    napi_delete_reference(env, ctx->pump_resource);
    goto close_poll;
  }
  ctx_retain(ctx); /* the poll's, given back by poll_closed */
  ctx->poll = poll;
  uv_poll_start(poll, PMCP_UV_READABLE, on_readable);
  return true;

close_poll:
  uv_close((uv_handle_t *)poll, poll_free);
  atomic_store(&pump_claimed, false);
  return false;
}

/* serveStdio(server, optionsJson, pumpOptionsJson, inFd): with inFd >= 0
 * the JS thread reads inFd (serving with pumpOptionsJson, the options and
 * "pump": true) when libuv can poll it, else the core does (optionsJson). */
static napi_value js_serve_stdio(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "sjjd", &a)) {
    return NULL;
  }
  server_ctx *ctx = a.server;
  if (ctx->gone) {
    args_free(&a);
    napi_throw_error(env, "POLYMCP_E_CLOSED", "polymcp: the server is closed");
    return NULL;
  }
  bool pumped = ctx->poll == NULL && a.d[0] >= 0 && start_pump(env, ctx, (int)a.d[0]);
  jstr *opts = pumped ? &a.str[1] : &a.str[0];
  int rc = lib.polymcp_server_serve_stdio(ctx->handle, opts->p, opts->len);
  args_free(&a);
  if (rc != POLYMCP_OK) {
    if (pumped) {
      stop_pump(ctx);
    }
    return throw_status(env, rc, "polymcp_server_serve_stdio");
  }
  keep_alive(env, ctx);
  return start_thread(env, ctx, watch_idle, ctx) ? make_undefined(env) : NULL;
}

/* serveHttp(server, optionsJson) -> the bound URL */
static napi_value js_serve_http(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "sj", &a)) {
    return NULL;
  }
  char *url = NULL;
  size_t url_len = 0;
  int rc = lib.polymcp_server_serve_http(a.server->handle, a.str[0].p, a.str[0].len, &url, &url_len);
  args_free(&a);
  if (rc != POLYMCP_OK) {
    return throw_status(env, rc, "polymcp_server_serve_http");
  }
  keep_alive(env, a.server);
  return lib_string(env, url, url_len);
}

/*
 * serverHttp(server, id, requestJson, body) -> exchange external. The
 * answer arrives as EV_HTTP_DATA/EV_HTTP_END events carrying id (a number
 * JS chose), maybe queued before this returns.
 */
static napi_value js_server_http(napi_env env, napi_callback_info info) {
  napi_value external;
  args a;
  if (!read_args(env, info, "sdjb", &a)) {
    return NULL;
  }
  server_ctx *ctx = a.server;
  http_ex *ex = calloc(1, sizeof *ex);
  if (ex == NULL || pthread_mutex_init(&ex->mu, NULL) != 0) {
    free(ex);
    args_free(&a);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "out of memory");
    return NULL;
  }
  pthread_cond_init(&ex->cv, NULL);
  ex->ctx = ctx;
  ex->id = a.d[0];
  ex->refs = 2; /* Go's until on_end, and the external's */
  ctx_retain(ctx);
  if (napi_create_external(env, ex, ex_finalize, NULL, &external) != napi_ok) {
    args_free(&a);
    ex->refs = 1;
    ex_release(ex);
    return throw_napi(env, "napi_create_external");
  }
  polymcp_http_callbacks cb = {
      .struct_size = sizeof cb, .user = ex, .on_start = on_http_start,
      .on_write = on_http_write, .on_flush = on_http_flush, .on_end = on_http_end,
  };
  /* Counted before the call: its END may be queued before it returns. */
  ctx->exchanges++;
  polymcp_http_t handle = 0;
  int rc = lib.polymcp_server_http(ctx->handle, a.str[0].p, a.str[0].len, a.buf, a.buf_len, &cb, &handle);
  args_free(&a);
  if (rc != POLYMCP_OK) {
    ctx->exchanges--;
    ex_release(ex); /* Go's: no callback will come; the external's goes with GC */
    return throw_status(env, rc, "polymcp_server_http");
  }
  pthread_mutex_lock(&ex->mu);
  ex->handle = handle;
  pthread_mutex_unlock(&ex->mu);
  update_ref(env, ctx);
  return external;
}

/* httpAck(exchange, bytes): the socket took that many body bytes. */
static napi_value js_http_ack(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "xd", &a)) {
    return NULL;
  }
  http_ex *ex = a.exchange;
  pthread_mutex_lock(&ex->mu);
  size_t took = a.d[0] > 0 ? (size_t)a.d[0] : 0;
  ex->pending = took < ex->pending ? ex->pending - took : 0;
  pthread_cond_broadcast(&ex->cv);
  pthread_mutex_unlock(&ex->mu);
  return make_undefined(env);
}

/* httpCancel(exchange): the client went away; EV_HTTP_END follows. */
static napi_value js_http_cancel(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "x", &a)) {
    return NULL;
  }
  http_ex *ex = a.exchange;
  pthread_mutex_lock(&ex->mu);
  ex->gone = true;
  polymcp_http_t h = ex->handle;
  pthread_cond_broadcast(&ex->cv);
  pthread_mutex_unlock(&ex->mu);
  int rc = h == 0 ? POLYMCP_E_UNKNOWN_CALL : lib.polymcp_http_cancel(h);
  return make_int(env, rc);
}

/* Closing keeps the loop alive until the tsfn is finalized (after
 * on_closed), so `await close()` settles and no Go thread is left holding
 * the tsfn when the process exits. */
static napi_value js_server_close(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "s", &a)) {
    return NULL;
  }
  a.server->closing = true;
  int rc = lib.polymcp_server_close(a.server->handle);
  if (rc != POLYMCP_OK) {
    return throw_status(env, rc, "polymcp_server_close");
  }
  keep_alive(env, a.server);
  return make_undefined(env);
}

static napi_value js_server_free(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "s", &a)) {
    return NULL;
  }
  return status_or_throw(env, lib.polymcp_server_free(a.server->handle), "polymcp_server_free");
}

/* fn(call, string) -> status: callComplete, callCompleteText, callProgress, callLog,
 * callSetInputState */
static napi_value call_with_string(napi_env env, napi_callback_info info,
                                   int (*fn)(polymcp_call_t, const char *, size_t)) {
  args a;
  if (!read_args(env, info, "uj", &a)) {
    return NULL;
  }
  int rc = fn(a.u[0], a.str[0].p, a.str[0].len);
  args_free(&a);
  return make_int(env, rc);
}

static napi_value js_call_complete(napi_env env, napi_callback_info info) {
  return call_with_string(env, info, lib.polymcp_call_complete);
}

static napi_value js_call_complete_text(napi_env env, napi_callback_info info) {
  return call_with_string(env, info, lib.polymcp_call_complete_text);
}

static napi_value js_call_progress(napi_env env, napi_callback_info info) {
  return call_with_string(env, info, lib.polymcp_call_progress);
}

static napi_value js_call_log(napi_env env, napi_callback_info info) {
  return call_with_string(env, info, lib.polymcp_call_log);
}

static napi_value js_call_set_input_state(napi_env env, napi_callback_info info) {
  return call_with_string(env, info, lib.polymcp_call_set_input_state);
}

/* callFail(call, code, message) -> status */
static napi_value js_call_fail(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "udj", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_call_fail(a.u[0], (int32_t)a.d[0], a.str[0].p, a.str[0].len);
  args_free(&a);
  return make_int(env, rc);
}

/* callFailData(call, code, message, dataJson) -> status */
static napi_value js_call_fail_data(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "udjj", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_call_fail_data(a.u[0], (int32_t)a.d[0], a.str[0].p, a.str[0].len, a.str[1].p,
                                      a.str[1].len);
  args_free(&a);
  return make_int(env, rc);
}

/* callStartTask(call) -> status: polymcp_call_start_task (ABI 1.4). It never
 * waits for the client, so it runs on the JS thread; a task's later
 * polymcp_call_input blocks, but callInput always runs on a thread of its own. */
static napi_value js_call_start_task(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "u", &a)) {
    return NULL;
  }
  return make_int(env, lib.polymcp_call_start_task(a.u[0]));
}

/* stats() -> JSON of live handle counts, for leak checks. */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  (void)info;
  char *json = NULL;
  size_t len = 0;
  int rc = lib.polymcp_stats(&json, &len);
  return rc == POLYMCP_OK ? lib_string(env, json, len) : throw_status(env, rc, "polymcp_stats");
}

/* fn(call) -> the library's string, or undefined once the call is gone:
 * callInfo (JSON) and callInputState ("" when none was kept). */
static napi_value call_string(napi_env env, napi_callback_info info, int (*fn)(polymcp_call_t, char **, size_t *)) {
  args a;
  if (!read_args(env, info, "u", &a)) {
    return NULL;
  }
  char *out = NULL;
  size_t len = 0;
  return fn(a.u[0], &out, &len) == POLYMCP_OK ? lib_string(env, out, len) : make_undefined(env);
}

static napi_value js_call_info(napi_env env, napi_callback_info info) {
  return call_string(env, info, lib.polymcp_call_info);
}

static napi_value js_call_input_state(napi_env env, napi_callback_info info) {
  return call_string(env, info, lib.polymcp_call_input_state);
}

/* ---- input from the client ----------------------------------------------- */

/*
 * callInput(server, call, id, requestsJson) asks the client through
 * polymcp_call_input on a thread of its own: on the legacy revisions it
 * blocks until the client answered, and so it does in a call that is a task
 * (2026-07-28 tasks extension) until the client's tasks/update, whatever
 * the revision; that must not hold the JS thread, nor
 * libuv's pool (four threads: a few questions waiting on a slow user would
 * starve file I/O and every further question). The thread posts EV_INPUT
 * with the status as kind, id as tag and the answers (or, on failure, the
 * library's message) as payload. Like the idle watcher it holds the tsfn
 * and ctx until it posted.
 */
typedef struct input_job {
  server_ctx *ctx;
  uint64_t call;
  double id;
  size_t len;
  char json[];
} input_job;

static void *run_input(void *arg) {
  input_job *job = arg;
  char *answers = NULL;
  size_t len = 0;
  int rc = lib.polymcp_call_input(job->call, job->json, job->len, &answers, &len);
  if (rc == POLYMCP_OK) {
    post(job->ctx, EV_INPUT, job->call, rc, job->id, answers, len);
    lib.polymcp_free(answers);
  } else {
    const char *msg = NULL;
    size_t msg_len = 0;
    lib.polymcp_last_error(&msg, &msg_len);
    post(job->ctx, EV_INPUT, job->call, rc, job->id, msg, msg ? msg_len : 0);
  }
  release_tsfn(job->ctx);
  ctx_release(job->ctx);
  free(job);
  return NULL;
}

static napi_value js_call_input(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "sudj", &a)) {
    return NULL;
  }
  server_ctx *ctx = a.server;
  jstr *json = &a.str[0];
  input_job *job = ctx->gone ? NULL : malloc(sizeof *job + json->len + 1);
  if (job == NULL) {
    args_free(&a);
    napi_throw_error(env, ctx->gone ? "POLYMCP_E_CLOSED" : "POLYMCP_E_INTERNAL",
                     ctx->gone ? "polymcp: the server is closed" : "out of memory");
    return NULL;
  }
  job->ctx = ctx;
  job->call = a.u[0];
  job->id = a.d[0];
  job->len = json->len;
  memcpy(job->json, json->p, json->len);
  job->json[json->len] = '\0';
  args_free(&a);
  if (!start_thread(env, ctx, run_input, job)) {
    free(job);
    return NULL;
  }
  return make_undefined(env);
}

/* ---- clients (ABI 1.8) ---------------------------------------------------- */

/*
 * A client's callbacks come on Go threads, like a server's: each copies its
 * borrowed data into a client event and queues it on the client's own
 * threadsafe function; the JS thread calls the client's event function with
 * (type, id, rc, a, b): id is the request's tag (a number), or the
 * question's handle (a bigint) for questions; a and b the strings of the
 * callback (the JSON, or method and params). on_closed is the last
 * callback: it queues its event and releases the threadsafe function, so a
 * closed client holds nothing in the event loop.
 *
 * A question JS will never see (the environment is going away) is refused
 * here, so the core still gets exactly one answer for it.
 *
 * The tsfn keeps the event loop alive while JS says so (clientRef: requests
 * are pending, or a close is in progress), never while the client sits idle.
 */
enum {
  CEV_RESPONSE = 1,       /* on_response: id tag, rc, a the JSON */
  CEV_NOTIFICATION = 2,   /* on_notification: a method, b params */
  CEV_PROGRESS = 3,       /* on_progress: id tag, a params */
  CEV_QUESTION = 4,       /* on_question: id the question, a method, b params */
  CEV_QUESTION_CANCEL = 5, /* on_question_cancel: id the question */
  CEV_CLOSED = 6          /* on_closed: rc, a the message */
};

typedef struct cevent {
  uint32_t type;
  int32_t rc;
  uint64_t id;
  size_t alen, blen;
  char *b;      /* into data, after a's NUL */
  char data[];  /* a, NUL, b, NUL */
} cevent;

typedef struct client_ctx {
  pthread_mutex_t mu;
  napi_threadsafe_function tsfn; /* NULL once finalized */
  int refs;                      /* the external, the tsfn finalizer, Go until on_closed */
  polymcp_client_t handle;
  bool refed;                    /* JS thread: the tsfn holds the loop */
} client_ctx;

static const char client_gone[] = "polymcp: the Node host is shutting down";

static void client_release(client_ctx *c) {
  pthread_mutex_lock(&c->mu);
  bool last = --c->refs == 0;
  pthread_mutex_unlock(&c->mu);
  if (last) {
    pthread_mutex_destroy(&c->mu);
    free(c);
  }
}

static void client_unseen(cevent *ev) {
  if (ev->type == CEV_QUESTION) {
    lib.polymcp_client_answer_error(ev->id, -32603, client_gone, sizeof client_gone - 1);
  }
}

static void client_post(client_ctx *c, uint32_t type, uint64_t id, int32_t rc, const char *a, size_t alen,
                        const char *b, size_t blen) {
  cevent *ev = malloc(sizeof(cevent) + alen + blen + 2);
  if (ev == NULL) {
    if (type == CEV_QUESTION) {
      lib.polymcp_client_answer_error(id, -32603, "out of memory", 13);
    }
    return;
  }
  ev->type = type;
  ev->rc = rc;
  ev->id = id;
  ev->alen = alen;
  ev->blen = blen;
  if (alen > 0) {
    memcpy(ev->data, a, alen);
  }
  ev->data[alen] = '\0';
  ev->b = ev->data + alen + 1;
  if (blen > 0) {
    memcpy(ev->b, b, blen);
  }
  ev->b[blen] = '\0';
  pthread_mutex_lock(&c->mu);
  bool ok = c->tsfn != NULL && napi_call_threadsafe_function(c->tsfn, ev, napi_tsfn_nonblocking) == napi_ok;
  pthread_mutex_unlock(&c->mu);
  if (!ok) {
    client_unseen(ev);
    free(ev);
  }
}

static void c_on_response(void *user, uint64_t tag, int rc, const char *json, size_t len) {
  client_post(user, CEV_RESPONSE, tag, rc, json, len, NULL, 0);
}

static void c_on_notification(void *user, const char *method, size_t mlen, const char *params, size_t plen) {
  client_post(user, CEV_NOTIFICATION, 0, 0, method, mlen, params, plen);
}

static void c_on_progress(void *user, uint64_t tag, const char *params, size_t plen) {
  client_post(user, CEV_PROGRESS, tag, 0, params, plen, NULL, 0);
}

static void c_on_question(void *user, polymcp_question_t q, const char *method, size_t mlen, const char *params,
                          size_t plen) {
  client_post(user, CEV_QUESTION, q, 0, method, mlen, params, plen);
}

static void c_on_question_cancel(void *user, polymcp_question_t q) {
  client_post(user, CEV_QUESTION_CANCEL, q, 0, NULL, 0, NULL, 0);
}

/* The last callback: after it Go never touches the ctx again. */
static void c_on_closed(void *user, int rc, const char *msg, size_t len) {
  client_ctx *c = user;
  client_post(c, CEV_CLOSED, 0, rc, msg, len, NULL, 0);
  pthread_mutex_lock(&c->mu);
  if (c->tsfn != NULL) {
    napi_release_threadsafe_function(c->tsfn, napi_tsfn_release);
  }
  pthread_mutex_unlock(&c->mu);
  client_release(c);
}

/* JS thread: one client event to the client's event function. */
static void client_call_js(napi_env env, napi_value fn, void *context, void *data) {
  (void)context;
  cevent *ev = data;
  if (env == NULL || fn == NULL) {
    client_unseen(ev);
    free(ev);
    return;
  }
  napi_value argv[5], undefined;
  bool ok = napi_get_undefined(env, &undefined) == napi_ok && napi_create_uint32(env, ev->type, &argv[0]) == napi_ok &&
            (ev->type == CEV_QUESTION || ev->type == CEV_QUESTION_CANCEL
                 ? napi_create_bigint_uint64(env, ev->id, &argv[1])
                 : napi_create_double(env, (double)ev->id, &argv[1])) == napi_ok &&
            napi_create_int32(env, ev->rc, &argv[2]) == napi_ok &&
            napi_create_string_utf8(env, ev->data, ev->alen, &argv[3]) == napi_ok &&
            napi_create_string_utf8(env, ev->b, ev->blen, &argv[4]) == napi_ok;
  if (!ok) {
    client_unseen(ev);
  } else if (napi_call_function(env, undefined, fn, 5, argv, NULL) == napi_pending_exception) {
    napi_value err;
    if (napi_get_and_clear_last_exception(env, &err) == napi_ok) {
      napi_fatal_exception(env, err);
    }
  }
  free(ev);
}

static void client_tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  client_ctx *c = data;
  pthread_mutex_lock(&c->mu);
  c->tsfn = NULL;
  c->refed = false;
  pthread_mutex_unlock(&c->mu);
  client_release(c);
}

static void client_external_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  client_release(data);
}

static client_ctx *get_client(napi_env env, napi_value v) {
  return get_external(env, v, "a polymcp client");
}

/* JS thread: the tsfn holds the loop, or not (no-op once finalized). */
static void client_set_ref(napi_env env, client_ctx *c, bool want) {
  if (c->tsfn == NULL || want == c->refed) {
    return;
  }
  if ((want ? napi_ref_threadsafe_function(env, c->tsfn) : napi_unref_threadsafe_function(env, c->tsfn)) == napi_ok) {
    c->refed = want;
  }
}

/*
 * clientConnect(optionsJson, server | undefined, onEvent) -> external. The
 * connect's outcome comes as a Response event of tag 0. A server (a
 * polymcp server external of this process) becomes the "server" member of
 * the options. The client holds the loop until JS says otherwise.
 */
static napi_value js_client_connect(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "jvv", &a)) {
    return NULL;
  }
  napi_valuetype t;
  char *opts = a.str[0].p;
  size_t opts_len = a.str[0].len;
  char *spliced = NULL;
  if (napi_typeof(env, a.argv[1], &t) == napi_ok && t != napi_undefined && t != napi_null) {
    server_ctx *server = get_server(env, a.argv[1]);
    if (server == NULL) {
      args_free(&a);
      return NULL;
    }
    if (server->gone || server->closing) {
      args_free(&a);
      napi_throw_error(env, "POLYMCP_E_CLOSED", "polymcp: the server is closed");
      return NULL;
    }
    /* {"server":N, ...the rest} */
    size_t i = 0;
    while (i < opts_len && opts[i] != '{') {
      i++;
    }
    spliced = malloc(opts_len + 48);
    if (i == opts_len || spliced == NULL) {
      free(spliced);
      args_free(&a);
      napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a JSON object of options");
      return NULL;
    }
    size_t j = i + 1;
    while (j < opts_len && (opts[j] == ' ' || opts[j] == '\n' || opts[j] == '\t' || opts[j] == '\r')) {
      j++;
    }
    bool empty = j < opts_len && opts[j] == '}';
    int n = snprintf(spliced, 48, "{\"server\":%llu%s", (unsigned long long)server->handle, empty ? "" : ",");
    memcpy(spliced + n, opts + i + 1, opts_len - i - 1);
    opts = spliced;
    opts_len = (size_t)n + opts_len - i - 1;
  }
  client_ctx *c = calloc(1, sizeof *c);
  napi_value name, external;
  if (c == NULL || pthread_mutex_init(&c->mu, NULL) != 0) {
    free(c);
    free(spliced);
    args_free(&a);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "out of memory");
    return NULL;
  }
  c->refs = 1; /* the tsfn finalizer's */
  if (napi_create_string_utf8(env, "polymcp:client", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_threadsafe_function(env, a.argv[2], NULL, name, 0, 1, c, client_tsfn_finalize, c, client_call_js,
                                      &c->tsfn) != napi_ok) {
    free(spliced);
    args_free(&a);
    pthread_mutex_destroy(&c->mu);
    free(c);
    return throw_napi(env, "napi_create_threadsafe_function");
  }
  c->refed = true;
  polymcp_client_callbacks cb = {
      .struct_size = sizeof cb, .user = c, .on_response = c_on_response,
      .on_notification = c_on_notification, .on_progress = c_on_progress,
      .on_question = c_on_question, .on_question_cancel = c_on_question_cancel,
      .on_closed = c_on_closed,
  };
  c->refs++; /* Go's, given back by on_closed */
  int rc = lib.polymcp_client_connect(opts, opts_len, &cb, 0, &c->handle);
  free(spliced);
  args_free(&a);
  if (rc != POLYMCP_OK) {
    napi_value err = throw_status(env, rc, "polymcp_client_connect");
    c->refs--; /* no client: no callback comes */
    napi_release_threadsafe_function(c->tsfn, napi_tsfn_abort);
    return err;
  }
  pthread_mutex_lock(&c->mu);
  c->refs++;
  pthread_mutex_unlock(&c->mu);
  if (napi_create_external(env, c, client_external_finalize, NULL, &external) != napi_ok) {
    client_release(c);
    lib.polymcp_client_close(c->handle);
    return throw_napi(env, "napi_create_external");
  }
  return external;
}

/* clientRequest(client, method, paramsJson, optsJson, tag): undefined, or
 * the library's refusal thrown (the request's end is a Response event). */
static napi_value js_client_request(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "cjjju", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_client_request(a.client->handle, a.str[0].p, a.str[0].len, a.str[1].p, a.str[1].len,
                                      a.str[2].p, a.str[2].len, a.u[0]);
  args_free(&a);
  return status_or_throw(env, rc, "polymcp_client_request");
}

/* clientCancel(client, tag) -> status */
static napi_value js_client_cancel(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "cu", &a)) {
    return NULL;
  }
  return make_int(env, lib.polymcp_client_cancel(a.client->handle, a.u[0]));
}

/* clientAnswer(question, resultJson) -> status */
static napi_value js_client_answer(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "uj", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_client_answer(a.u[0], a.str[0].p, a.str[0].len);
  args_free(&a);
  return make_int(env, rc);
}

/* clientAnswerError(question, code, message) -> status */
static napi_value js_client_answer_error(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "udj", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_client_answer_error(a.u[0], (int32_t)a.d[0], a.str[0].p, a.str[0].len);
  args_free(&a);
  return make_int(env, rc);
}

/* clientClose(client) -> status. The client holds the loop until on_closed. */
static napi_value js_client_close(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "c", &a)) {
    return NULL;
  }
  int rc = lib.polymcp_client_close(a.client->handle);
  if (rc == POLYMCP_OK) {
    client_set_ref(env, a.client, true);
  }
  return make_int(env, rc);
}

/* clientFree(client) -> status */
static napi_value js_client_free(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "c", &a)) {
    return NULL;
  }
  return make_int(env, lib.polymcp_client_free(a.client->handle));
}

/* clientRef(client, hold): whether the client keeps the event loop alive. */
static napi_value js_client_ref(napi_env env, napi_callback_info info) {
  args a;
  if (!read_args(env, info, "cv", &a)) {
    return NULL;
  }
  bool hold = false;
  napi_get_value_bool(env, a.argv[1], &hold);
  client_set_ref(env, a.client, hold);
  return make_undefined(env);
}

/* clientSupported() -> whether the loaded library has the client (ABI 1.8). */
static napi_value js_client_supported(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  CHECK(env, napi_get_boolean(env, lib.client, &out));
  return out;
}

/* ---- module --------------------------------------------------------------- */

/* Every function but load needs the library. */
#define NEEDS_LIB(fn)                                                          \
  static napi_value guarded_##fn(napi_env env, napi_callback_info info) {      \
    if (lib.dl == NULL) {                                                      \
      napi_throw_error(env, "POLYMCP_E_LOAD", "polymcp: load() the library first"); \
      return NULL;                                                             \
    }                                                                          \
    return fn(env, info);                                                      \
  }

NEEDS_LIB(js_version)
NEEDS_LIB(js_server_new)
NEEDS_LIB(js_add_tool)
NEEDS_LIB(js_add_resource)
NEEDS_LIB(js_add_resource_template)
NEEDS_LIB(js_add_prompt)
NEEDS_LIB(js_add_task_tool)
NEEDS_LIB(js_set_completer)
NEEDS_LIB(js_server_remove)
NEEDS_LIB(js_server_notify)
NEEDS_LIB(js_serve_stdio)
NEEDS_LIB(js_serve_http)
NEEDS_LIB(js_server_http)
NEEDS_LIB(js_http_ack)
NEEDS_LIB(js_http_cancel)
NEEDS_LIB(js_server_close)
NEEDS_LIB(js_server_free)
NEEDS_LIB(js_call_complete)
NEEDS_LIB(js_call_complete_text)
NEEDS_LIB(js_call_fail)
NEEDS_LIB(js_call_fail_data)
NEEDS_LIB(js_call_progress)
NEEDS_LIB(js_call_log)
NEEDS_LIB(js_stats)
NEEDS_LIB(js_configure)
NEEDS_LIB(js_call_info)
NEEDS_LIB(js_call_input)
NEEDS_LIB(js_call_input_state)
NEEDS_LIB(js_call_set_input_state)
NEEDS_LIB(js_call_start_task)
NEEDS_LIB(js_client_supported)

/* The client functions also need a library that has them (ABI 1.8). */
#define NEEDS_CLIENT(fn)                                                       \
  static napi_value guarded_##fn(napi_env env, napi_callback_info info) {      \
    if (!lib.client) {                                                         \
      napi_throw_error(env, "POLYMCP_E_LOAD",                                  \
                       lib.dl == NULL ? "polymcp: load() the library first"    \
                                      : "polymcp: this libpolymcp has no client (ABI 1.8 needed)"); \
      return NULL;                                                             \
    }                                                                          \
    return fn(env, info);                                                      \
  }

NEEDS_CLIENT(js_client_connect)
NEEDS_CLIENT(js_client_request)
NEEDS_CLIENT(js_client_cancel)
NEEDS_CLIENT(js_client_answer)
NEEDS_CLIENT(js_client_answer_error)
NEEDS_CLIENT(js_client_close)
NEEDS_CLIENT(js_client_free)
NEEDS_CLIENT(js_client_ref)

NAPI_MODULE_INIT() {
  const napi_property_descriptor props[] = {
      {"load", NULL, js_load, NULL, NULL, NULL, napi_enumerable, NULL},
#define EXPORT(name, fn) {name, NULL, guarded_##fn, NULL, NULL, NULL, napi_enumerable, NULL},
      EXPORT("version", js_version)
      EXPORT("serverNew", js_server_new)
      EXPORT("serverAddTool", js_add_tool)
      EXPORT("serverAddResource", js_add_resource)
      EXPORT("serverAddResourceTemplate", js_add_resource_template)
      EXPORT("serverAddPrompt", js_add_prompt)
      EXPORT("serverAddTaskTool", js_add_task_tool)
      EXPORT("serverSetCompleter", js_set_completer)
      EXPORT("serverRemove", js_server_remove)
      EXPORT("serverNotify", js_server_notify)
      EXPORT("serveStdio", js_serve_stdio)
      EXPORT("serveHttp", js_serve_http)
      EXPORT("serverHttp", js_server_http)
      EXPORT("httpAck", js_http_ack)
      EXPORT("httpCancel", js_http_cancel)
      EXPORT("serverClose", js_server_close)
      EXPORT("serverFree", js_server_free)
      EXPORT("callComplete", js_call_complete)
      EXPORT("callCompleteText", js_call_complete_text)
      EXPORT("callFail", js_call_fail)
      EXPORT("callFailData", js_call_fail_data)
      EXPORT("callProgress", js_call_progress)
      EXPORT("callLog", js_call_log)
      EXPORT("stats", js_stats)
      EXPORT("configure", js_configure)
      EXPORT("callInfo", js_call_info)
      EXPORT("callInput", js_call_input)
      EXPORT("callInputState", js_call_input_state)
      EXPORT("callSetInputState", js_call_set_input_state)
      EXPORT("callStartTask", js_call_start_task)
      EXPORT("clientSupported", js_client_supported)
      EXPORT("clientConnect", js_client_connect)
      EXPORT("clientRequest", js_client_request)
      EXPORT("clientCancel", js_client_cancel)
      EXPORT("clientAnswer", js_client_answer)
      EXPORT("clientAnswerError", js_client_answer_error)
      EXPORT("clientClose", js_client_close)
      EXPORT("clientFree", js_client_free)
      EXPORT("clientRef", js_client_ref)
#undef EXPORT
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) {
    return NULL;
  }
  return exports;
}
