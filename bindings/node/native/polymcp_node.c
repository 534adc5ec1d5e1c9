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
 */
#define NAPI_VERSION 8
#include <node_api.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "polymcp.h"

/* ---- the library, resolved with dlsym ------------------------------------ */

#define POLYMCP_FUNCS(X)                                                       \
  X(polymcp_abi_version) X(polymcp_version) X(polymcp_last_error)              \
  X(polymcp_free) X(polymcp_stats) X(polymcp_server_new)                       \
  X(polymcp_server_add_tool) X(polymcp_server_add_resource)                    \
  X(polymcp_server_add_resource_template) X(polymcp_server_add_prompt)         \
  X(polymcp_server_set_completer) X(polymcp_server_remove)                     \
  X(polymcp_server_notify) X(polymcp_server_serve_stdio)                       \
  X(polymcp_server_wait) X(polymcp_server_close) X(polymcp_server_free)        \
  X(polymcp_call_complete) X(polymcp_call_fail) X(polymcp_call_progress)       \
  X(polymcp_call_log) X(polymcp_call_info)

static struct {
  void *dl;
#define FIELD(name) __typeof__(name) *name;
  POLYMCP_FUNCS(FIELD)
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
  default: return "POLYMCP_E_INTERNAL";
  }
}

/* Throws an Error with code POLYMCP_E_*, status rc and the library's message. */
static napi_value throw_status(napi_env env, int rc, const char *what) {
  const char *detail = NULL;
  size_t detail_len = 0;
  if (lib.polymcp_last_error == NULL || lib.polymcp_last_error(&detail, &detail_len) != POLYMCP_OK) {
    detail = NULL;
  }
  char msg[1024];
  snprintf(msg, sizeof msg, "%s: %.*s", what, detail ? (int)detail_len : 17,
           detail ? detail : "no error message");
  napi_value code, text, err, status;
  if (napi_create_string_utf8(env, status_name(rc), NAPI_AUTO_LENGTH, &code) != napi_ok ||
      napi_create_string_utf8(env, msg, NAPI_AUTO_LENGTH, &text) != napi_ok ||
      napi_create_error(env, code, text, &err) != napi_ok ||
      napi_create_int32(env, rc, &status) != napi_ok ||
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

static bool jstr_get(napi_env env, napi_value v, jstr *s) {
  size_t len = 0;
  if (napi_get_value_string_utf8(env, v, NULL, 0, &len) != napi_ok) {
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

/* Reads exactly n arguments (missing ones are undefined). */
static bool get_args(napi_env env, napi_callback_info info, size_t n, napi_value *argv) {
  size_t argc = n;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    throw_napi(env, "napi_get_cb_info");
    return false;
  }
  return true;
}

/* ---- servers and their events -------------------------------------------- */

enum { EV_CALL = 1, EV_CANCEL = 2, EV_LOG = 3, EV_CLOSED = 4, EV_IDLE = 5 };

typedef struct event {
  uint32_t type;
  uint32_t kind; /* call kind, or log level (as uint32 of an int) */
  uint64_t call;
  uint64_t tag;
  size_t len;
  char data[]; /* NUL-terminated copy of the borrowed payload */
} event;

/* One per server. Freed once both the JS external and the threadsafe
 * function are gone; both finalizers run on the JS thread. */
typedef struct server_ctx {
  napi_threadsafe_function tsfn;
  polymcp_server_t handle;
  int holders;  /* the external and the tsfn */
  bool refed;   /* the tsfn keeps the event loop alive */
  bool closed;  /* the tsfn was finalized: no more events */
} server_ctx;

static event *event_new(uint32_t type, uint64_t call, uint32_t kind, uint64_t tag, const char *data, size_t len) {
  event *ev = malloc(sizeof(event) + len + 1);
  if (ev == NULL) {
    return NULL;
  }
  ev->type = type;
  ev->kind = kind;
  ev->call = call;
  ev->tag = tag;
  ev->len = len;
  if (len > 0) {
    memcpy(ev->data, data, len);
  }
  ev->data[len] = '\0';
  return ev;
}

static const char shutting_down[] = "polymcp: the Node host is shutting down";

/* Answers a call JS will never see, so it still gets exactly one answer. */
static void fail_unseen(uint64_t call) {
  lib.polymcp_call_fail(call, -32603, shutting_down, sizeof shutting_down - 1);
}

/* Go threads: queue an event for the JS thread. */
static void post(server_ctx *ctx, uint32_t type, uint64_t call, uint32_t kind, uint64_t tag, const char *data, size_t len) {
  event *ev = event_new(type, call, kind, tag, data, len);
  if (ev != NULL && napi_call_threadsafe_function(ctx->tsfn, ev, napi_tsfn_nonblocking) == napi_ok) {
    return;
  }
  if (type == EV_CALL) {
    fail_unseen(call);
  }
  free(ev);
}

static void on_call(void *user, polymcp_call_t call, uint32_t kind, uint64_t tag, const char *params, size_t len) {
  post(user, EV_CALL, call, kind, tag, params, len);
}

static void on_cancel(void *user, polymcp_call_t call) {
  post(user, EV_CANCEL, call, 0, 0, NULL, 0);
}

static void on_log(void *user, int level, const char *msg, size_t len) {
  post(user, EV_LOG, 0, (uint32_t)level, 0, msg, len);
}

static void on_closed(void *user) {
  server_ctx *ctx = user;
  post(ctx, EV_CLOSED, 0, 0, 0, NULL, 0);
  napi_release_threadsafe_function(ctx->tsfn, napi_tsfn_release);
}

static void ctx_release(server_ctx *ctx) {
  if (--ctx->holders == 0) {
    free(ctx);
  }
}

/* JS thread: deliver one event to the server's event function. */
static void call_js(napi_env env, napi_value fn, void *context, void *data) {
  server_ctx *ctx = context;
  event *ev = data;
  if (env == NULL || fn == NULL) {
    if (ev->type == EV_CALL) {
      fail_unseen(ev->call);
    }
    free(ev);
    return;
  }
  if (ev->type == EV_CLOSED && ctx->refed) {
    napi_unref_threadsafe_function(env, ctx->tsfn);
    ctx->refed = false;
  }
  napi_value argv[5], undefined;
  bool ok = napi_get_undefined(env, &undefined) == napi_ok &&
            napi_create_uint32(env, ev->type, &argv[0]) == napi_ok &&
            napi_create_bigint_uint64(env, ev->call, &argv[1]) == napi_ok &&
            (ev->type == EV_LOG ? napi_create_int32(env, (int32_t)ev->kind, &argv[2])
                                : napi_create_uint32(env, ev->kind, &argv[2])) == napi_ok &&
            napi_create_double(env, (double)ev->tag, &argv[3]) == napi_ok;
  if (ok) {
    argv[4] = undefined;
    if (ev->len > 0) {
      ok = napi_create_string_utf8(env, ev->data, ev->len, &argv[4]) == napi_ok;
    }
  }
  if (ok) {
    /* A throwing event function surfaces as an uncaught exception. */
    napi_call_function(env, undefined, fn, 5, argv, NULL);
  } else if (ev->type == EV_CALL) {
    fail_unseen(ev->call);
  }
  free(ev);
}

static void tsfn_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  server_ctx *ctx = data;
  ctx->closed = true;
  ctx->tsfn = NULL;
  ctx_release(ctx);
}

static void external_finalize(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  ctx_release(data);
}

/* The server behind a JS external; throws when it is not one or is closed. */
static server_ctx *get_server(napi_env env, napi_value v) {
  void *p = NULL;
  napi_valuetype t;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_get_value_external(env, v, &p) != napi_ok) {
    napi_throw_type_error(env, "POLYMCP_E_INVALID", "expected a polymcp server");
    return NULL;
  }
  return p;
}

static void keep_alive(napi_env env, server_ctx *ctx) {
  if (!ctx->closed && !ctx->refed && napi_ref_threadsafe_function(env, ctx->tsfn) == napi_ok) {
    ctx->refed = true;
  }
}

/* ---- exported functions --------------------------------------------------- */

static napi_value js_load(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  jstr path;
  if (!get_args(env, info, 1, argv) || !jstr_get(env, argv[0], &path)) {
    return NULL;
  }
  if (lib.dl == NULL) {
    void *dl = dlopen(path.p, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
      napi_throw_error(env, "POLYMCP_E_LOAD", dlerror());
      jstr_free(&path);
      return NULL;
    }
#define RESOLVE(name)                                                          \
  lib.name = (__typeof__(name) *)dlsym(dl, #name);                             \
  if (lib.name == NULL) {                                                      \
    char msg[512];                                                             \
    snprintf(msg, sizeof msg, "%s: missing symbol " #name, path.p);            \
    memset(&lib, 0, sizeof lib);                                               \
    dlclose(dl);                                                               \
    jstr_free(&path);                                                          \
    napi_throw_error(env, "POLYMCP_E_LOAD", msg);                              \
    return NULL;                                                               \
  }
    POLYMCP_FUNCS(RESOLVE)
#undef RESOLVE
    lib.dl = dl;
  }
  jstr_free(&path);
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

/* serverNew(optionsJson, onEvent) -> external */
static napi_value js_server_new(napi_env env, napi_callback_info info) {
  napi_value argv[2], name, external;
  jstr opts;
  if (!get_args(env, info, 2, argv) || !jstr_get(env, argv[0], &opts)) {
    return NULL;
  }
  server_ctx *ctx = calloc(1, sizeof *ctx);
  if (ctx == NULL) {
    jstr_free(&opts);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "out of memory");
    return NULL;
  }
  ctx->holders = 1; /* the tsfn's; the external's is added below */
  if (napi_create_string_utf8(env, "polymcp", NAPI_AUTO_LENGTH, &name) != napi_ok ||
      napi_create_threadsafe_function(env, argv[1], NULL, name, 0, 1, ctx, tsfn_finalize, ctx, call_js,
                                      &ctx->tsfn) != napi_ok) {
    jstr_free(&opts);
    free(ctx);
    return throw_napi(env, "napi_create_threadsafe_function");
  }
  napi_unref_threadsafe_function(env, ctx->tsfn);
  polymcp_server_callbacks cb = {
      .struct_size = sizeof cb, .user = ctx, .on_call = on_call,
      .on_cancel = on_cancel, .on_log = on_log, .on_closed = on_closed,
  };
  int rc = lib.polymcp_server_new(opts.p, opts.len, &cb, &ctx->handle);
  jstr_free(&opts);
  if (rc != POLYMCP_OK) {
    napi_value err = throw_status(env, rc, "polymcp_server_new");
    napi_release_threadsafe_function(ctx->tsfn, napi_tsfn_abort);
    return err;
  }
  ctx->holders++;
  if (napi_create_external(env, ctx, external_finalize, NULL, &external) != napi_ok) {
    ctx->holders--;
    return throw_napi(env, "napi_create_external");
  }
  return external;
}

/* add(server, json, tag) for tools, resources and prompts. */
typedef int (*add_fn)(polymcp_server_t, const char *, size_t, uint64_t);

static napi_value server_add(napi_env env, napi_callback_info info, add_fn add, const char *what) {
  napi_value argv[3];
  jstr json;
  uint64_t tag;
  if (!get_args(env, info, 3, argv)) {
    return NULL;
  }
  server_ctx *ctx = get_server(env, argv[0]);
  if (ctx == NULL || !get_u64(env, argv[2], &tag) || !jstr_get(env, argv[1], &json)) {
    return NULL;
  }
  int rc = add(ctx->handle, json.p, json.len, tag);
  jstr_free(&json);
  return rc == POLYMCP_OK ? make_undefined(env) : throw_status(env, rc, what);
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

static napi_value js_set_completer(napi_env env, napi_callback_info info) {
  return server_add(env, info, lib.polymcp_server_set_completer, "polymcp_server_set_completer");
}

static napi_value js_server_remove(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  uint64_t tag;
  if (!get_args(env, info, 2, argv)) {
    return NULL;
  }
  server_ctx *ctx = get_server(env, argv[0]);
  if (ctx == NULL || !get_u64(env, argv[1], &tag)) {
    return NULL;
  }
  int rc = lib.polymcp_server_remove(ctx->handle, tag);
  return rc == POLYMCP_OK ? make_undefined(env) : throw_status(env, rc, "polymcp_server_remove");
}

static napi_value js_server_notify(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  jstr method, params;
  if (!get_args(env, info, 3, argv)) {
    return NULL;
  }
  server_ctx *ctx = get_server(env, argv[0]);
  if (ctx == NULL || !jstr_get(env, argv[1], &method)) {
    return NULL;
  }
  if (!jstr_get(env, argv[2], &params)) {
    jstr_free(&method);
    return NULL;
  }
  int rc = lib.polymcp_server_notify(ctx->handle, method.p, method.len, params.p, params.len);
  jstr_free(&method);
  jstr_free(&params);
  return rc == POLYMCP_OK ? make_undefined(env) : throw_status(env, rc, "polymcp_server_notify");
}

/* The stdio transport ends with its input, which no callback reports:
 * a thread waits for the server to go idle and tells JS (EV_IDLE). It holds
 * its own count on the threadsafe function, so the event can always be
 * queued, also when on_closed came first. */
typedef struct watcher {
  polymcp_server_t handle;
  napi_threadsafe_function tsfn;
} watcher;

static void *watch_idle(void *arg) {
  watcher *w = arg;
  while (lib.polymcp_server_wait(w->handle, -1) == POLYMCP_E_TIMEOUT) {
  }
  event *ev = event_new(EV_IDLE, 0, 0, 0, NULL, 0);
  if (ev != NULL && napi_call_threadsafe_function(w->tsfn, ev, napi_tsfn_nonblocking) != napi_ok) {
    free(ev);
  }
  napi_release_threadsafe_function(w->tsfn, napi_tsfn_release);
  free(w);
  return NULL;
}

static bool start_watcher(napi_env env, server_ctx *ctx) {
  watcher *w = malloc(sizeof *w);
  if (w == NULL || napi_acquire_threadsafe_function(ctx->tsfn) != napi_ok) {
    free(w);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "polymcp addon: cannot watch the stdio transport");
    return false;
  }
  *w = (watcher){.handle = ctx->handle, .tsfn = ctx->tsfn};
  pthread_t t;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, watch_idle, w);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    napi_release_threadsafe_function(ctx->tsfn, napi_tsfn_release);
    free(w);
    napi_throw_error(env, "POLYMCP_E_INTERNAL", "polymcp addon: pthread_create failed");
    return false;
  }
  return true;
}

/* serveStdio(server, optionsJson) */
static napi_value js_serve_stdio(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  jstr opts;
  if (!get_args(env, info, 2, argv)) {
    return NULL;
  }
  server_ctx *ctx = get_server(env, argv[0]);
  if (ctx == NULL || !jstr_get(env, argv[1], &opts)) {
    return NULL;
  }
  if (ctx->closed) {
    jstr_free(&opts);
    napi_throw_error(env, "POLYMCP_E_CLOSED", "polymcp: the server is closed");
    return NULL;
  }
  int rc = lib.polymcp_server_serve_stdio(ctx->handle, opts.p, opts.len);
  jstr_free(&opts);
  if (rc != POLYMCP_OK) {
    return throw_status(env, rc, "polymcp_server_serve_stdio");
  }
  keep_alive(env, ctx);
  return start_watcher(env, ctx) ? make_undefined(env) : NULL;
}

/* Closing keeps the loop alive until on_closed, so `await close()` settles. */
static napi_value js_server_close(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) {
    return NULL;
  }
  server_ctx *ctx = get_server(env, argv[0]);
  if (ctx == NULL) {
    return NULL;
  }
  int rc = lib.polymcp_server_close(ctx->handle);
  if (rc != POLYMCP_OK) {
    return throw_status(env, rc, "polymcp_server_close");
  }
  keep_alive(env, ctx);
  return make_undefined(env);
}

static napi_value js_server_free(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!get_args(env, info, 1, argv)) {
    return NULL;
  }
  server_ctx *ctx = get_server(env, argv[0]);
  if (ctx == NULL) {
    return NULL;
  }
  int rc = lib.polymcp_server_free(ctx->handle);
  return rc == POLYMCP_OK ? make_undefined(env) : throw_status(env, rc, "polymcp_server_free");
}

/* callComplete(call, json) and callProgress(call, json) -> status */
static napi_value call_with_json(napi_env env, napi_callback_info info,
                                 int (*fn)(polymcp_call_t, const char *, size_t)) {
  napi_value argv[2];
  uint64_t call;
  jstr json;
  if (!get_args(env, info, 2, argv) || !get_u64(env, argv[0], &call) || !jstr_get(env, argv[1], &json)) {
    return NULL;
  }
  int rc = fn(call, json.p, json.len);
  jstr_free(&json);
  return make_int(env, rc);
}

static napi_value js_call_complete(napi_env env, napi_callback_info info) {
  return call_with_json(env, info, lib.polymcp_call_complete);
}

static napi_value js_call_progress(napi_env env, napi_callback_info info) {
  return call_with_json(env, info, lib.polymcp_call_progress);
}

static napi_value js_call_log(napi_env env, napi_callback_info info) {
  return call_with_json(env, info, lib.polymcp_call_log);
}

/* stats() -> JSON of live handle counts, for leak checks. */
static napi_value js_stats(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value out;
  char *json = NULL;
  size_t len = 0;
  int rc = lib.polymcp_stats(&json, &len);
  if (rc != POLYMCP_OK) {
    return throw_status(env, rc, "polymcp_stats");
  }
  napi_status st = napi_create_string_utf8(env, json, len, &out);
  lib.polymcp_free(json);
  CHECK(env, st);
  return out;
}

static napi_value js_call_fail(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  uint64_t call;
  int32_t code;
  jstr msg;
  if (!get_args(env, info, 3, argv) || !get_u64(env, argv[0], &call)) {
    return NULL;
  }
  CHECK(env, napi_get_value_int32(env, argv[1], &code));
  if (!jstr_get(env, argv[2], &msg)) {
    return NULL;
  }
  int rc = lib.polymcp_call_fail(call, code, msg.p, msg.len);
  jstr_free(&msg);
  return make_int(env, rc);
}

/* callInfo(call) -> JSON string, or undefined when the call is gone. */
static napi_value js_call_info(napi_env env, napi_callback_info info) {
  napi_value argv[1], out;
  uint64_t call;
  if (!get_args(env, info, 1, argv) || !get_u64(env, argv[0], &call)) {
    return NULL;
  }
  char *json = NULL;
  size_t len = 0;
  if (lib.polymcp_call_info(call, &json, &len) != POLYMCP_OK) {
    return make_undefined(env);
  }
  napi_status st = napi_create_string_utf8(env, json, len, &out);
  lib.polymcp_free(json);
  CHECK(env, st);
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
NEEDS_LIB(js_set_completer)
NEEDS_LIB(js_server_remove)
NEEDS_LIB(js_server_notify)
NEEDS_LIB(js_serve_stdio)
NEEDS_LIB(js_server_close)
NEEDS_LIB(js_server_free)
NEEDS_LIB(js_call_complete)
NEEDS_LIB(js_call_fail)
NEEDS_LIB(js_call_progress)
NEEDS_LIB(js_call_log)
NEEDS_LIB(js_stats)
NEEDS_LIB(js_call_info)

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
      EXPORT("serverSetCompleter", js_set_completer)
      EXPORT("serverRemove", js_server_remove)
      EXPORT("serverNotify", js_server_notify)
      EXPORT("serveStdio", js_serve_stdio)
      EXPORT("serverClose", js_server_close)
      EXPORT("serverFree", js_server_free)
      EXPORT("callComplete", js_call_complete)
      EXPORT("callFail", js_call_fail)
      EXPORT("callProgress", js_call_progress)
      EXPORT("callLog", js_call_log)
      EXPORT("stats", js_stats)
      EXPORT("callInfo", js_call_info)
#undef EXPORT
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) {
    return NULL;
  }
  return exports;
}
