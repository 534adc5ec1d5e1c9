/* The functions of polymcp.h. Each checks what C can check cheaply — a
 * forked child, a wait from inside a callback — before entering Go, then
 * calls its pmcpgo_* export (exports.go). The per-thread last error and the
 * callback trampolines live here too, because Go has no thread-local
 * storage and cannot call C function pointers. */
#include <pthread.h>
#include <string.h>

#include "shim.h"
#include "_cgo_export.h"

#define PMCP_VERSION "0.1.0"

/* Set in the child by pthread_atfork: the Go runtime's other threads did
 * not survive fork, so entering Go there could hang forever. */
static volatile int forked;

static void on_fork_child(void) { forked = 1; }

/* This thread's last failure, and how deep in host callbacks it is. The
 * message is also registered under err_key, whose destructor frees it when
 * the thread exits. */
static __thread int err_code;
static __thread char *err_msg;
static __thread size_t err_len;
static __thread int callback_depth;
static pthread_key_t err_key;

__attribute__((constructor)) static void pmcp_init(void) {
  pthread_atfork(NULL, NULL, on_fork_child);
  pthread_key_create(&err_key, free);
}

int pmcp_set_error(int code, const char *msg, size_t len) {
  char *copy = pmcp_dup(msg, len);
  if (copy != NULL) {
    free(err_msg);
    err_msg = copy;
    err_len = len;
    pthread_setspecific(err_key, copy);
  }
  err_code = code;
  return code;
}

char *pmcp_dup(const char *b, size_t len) {
  char *p = malloc(len + 1);
  if (p != NULL) {
    if (len > 0) memcpy(p, b, len);
    p[len] = 0;
  }
  return p;
}

#define SET_ERROR(code, lit) pmcp_set_error((code), (lit), sizeof(lit) - 1)
#define GUARD()                                                                              \
  do {                                                                                       \
    if (forked) return SET_ERROR(POLYMCP_E_FORKED, "polymcp cannot be used after fork()"); \
  } while (0)

/* Calls into the host, counting the thread's callback depth (which
 * polymcp_server_wait checks). */
#define HOST_CALL(call) \
  do {                  \
    callback_depth++;   \
    call;               \
    callback_depth--;   \
  } while (0)

/* A malloc'd copy of the first size bytes of a host's callbacks struct
 * (fields of newer headers are ignored), its struct_size — the first field
 * of every one — set to size; NULL, with the error recorded, when out of
 * memory. */
static void *copy_callbacks(const void *cb, size_t size) {
  uint32_t *c = malloc(size);
  if (c == NULL) {
    SET_ERROR(POLYMCP_E_INTERNAL, "out of memory");
    return NULL;
  }
  memcpy(c, cb, size);
  *c = (uint32_t)size;
  return c;
}

polymcp_server_callbacks *pmcp_copy_callbacks(const polymcp_server_callbacks *cb) {
  if (cb == NULL) {
    SET_ERROR(POLYMCP_E_INVALID, "callbacks are required");
    return NULL;
  }
  if (cb->struct_size < sizeof(polymcp_server_callbacks)) {
    SET_ERROR(POLYMCP_E_INVALID, "callbacks.struct_size is smaller than polymcp_server_callbacks 1.0");
    return NULL;
  }
  if (cb->on_call == NULL) {
    SET_ERROR(POLYMCP_E_INVALID, "callbacks.on_call is required");
    return NULL;
  }
  return copy_callbacks(cb, sizeof *cb);
}

void pmcp_on_call(const polymcp_server_callbacks *cb, uint64_t call, uint32_t kind, uint64_t tag,
                  const char *params, size_t len) {
  HOST_CALL(cb->on_call(cb->user, call, kind, tag, params, len));
}

void pmcp_on_cancel(const polymcp_server_callbacks *cb, uint64_t call) {
  if (cb->on_cancel == NULL) return;
  HOST_CALL(cb->on_cancel(cb->user, call));
}

void pmcp_on_log(const polymcp_server_callbacks *cb, int level, const char *msg, size_t len) {
  if (cb->on_log == NULL) return;
  HOST_CALL(cb->on_log(cb->user, level, msg, len));
}

void pmcp_on_closed(const polymcp_server_callbacks *cb) {
  if (cb->on_closed == NULL) return;
  HOST_CALL(cb->on_closed(cb->user));
}

void pmcp_send(polymcp_send_fn fn, void *user, const char *msg, size_t len) {
  HOST_CALL(fn(user, msg, len));
}

polymcp_http_callbacks *pmcp_copy_http_callbacks(const polymcp_http_callbacks *cb) {
  if (cb == NULL || cb->struct_size < sizeof(polymcp_http_callbacks) || cb->on_start == NULL ||
      cb->on_write == NULL || cb->on_end == NULL) {
    SET_ERROR(POLYMCP_E_INVALID, "http callbacks: struct_size, on_start, on_write and on_end are required");
    return NULL;
  }
  return copy_callbacks(cb, sizeof *cb);
}

void pmcp_http_start(const polymcp_http_callbacks *cb, int status, const char *headers, size_t len) {
  HOST_CALL(cb->on_start(cb->user, status, headers, len));
}

void pmcp_http_write(const polymcp_http_callbacks *cb, const char *chunk, size_t len) {
  HOST_CALL(cb->on_write(cb->user, chunk, len));
}

void pmcp_http_flush(const polymcp_http_callbacks *cb) {
  if (cb->on_flush == NULL) return;
  HOST_CALL(cb->on_flush(cb->user));
}

void pmcp_http_end(polymcp_http_callbacks *cb, int rc) {
  HOST_CALL(cb->on_end(cb->user, rc));
  free(cb);
}

polymcp_client_callbacks *pmcp_copy_client_callbacks(const polymcp_client_callbacks *cb) {
  if (cb == NULL || cb->struct_size < sizeof(polymcp_client_callbacks) || cb->on_response == NULL) {
    SET_ERROR(POLYMCP_E_INVALID, "client callbacks: struct_size and on_response are required");
    return NULL;
  }
  return copy_callbacks(cb, sizeof *cb);
}

void pmcp_client_response(const polymcp_client_callbacks *cb, uint64_t tag, int rc, const char *json, size_t len) {
  HOST_CALL(cb->on_response(cb->user, tag, rc, json, len));
}

void pmcp_client_notification(const polymcp_client_callbacks *cb, const char *method, size_t mlen,
                              const char *params, size_t plen) {
  if (cb->on_notification == NULL) return;
  HOST_CALL(cb->on_notification(cb->user, method, mlen, params, plen));
}

void pmcp_client_progress(const polymcp_client_callbacks *cb, uint64_t tag, const char *params, size_t len) {
  if (cb->on_progress == NULL) return;
  HOST_CALL(cb->on_progress(cb->user, tag, params, len));
}

void pmcp_client_question(const polymcp_client_callbacks *cb, uint64_t q, const char *method, size_t mlen,
                          const char *params, size_t plen) {
  HOST_CALL(cb->on_question(cb->user, q, method, mlen, params, plen)); /* required when questions come */
}

void pmcp_client_question_cancel(const polymcp_client_callbacks *cb, uint64_t q) {
  if (cb->on_question_cancel == NULL) return;
  HOST_CALL(cb->on_question_cancel(cb->user, q));
}

void pmcp_client_closed(const polymcp_client_callbacks *cb, int rc, const char *msg, size_t len) {
  if (cb->on_closed == NULL) return;
  HOST_CALL(cb->on_closed(cb->user, rc, msg, len));
}

/* ---- polymcp.h ---- */

/* The ABI this file implements. A bump in polymcp.h must change this line
 * too, which also rebuilds the library: Go's build cache does not see
 * headers outside the package directory. */
#if POLYMCP_ABI_MAJOR != 1 || POLYMCP_ABI_MINOR != 8
#error "abi.c implements libpolymcp ABI 1.8: update it together with polymcp.h"
#endif

uint32_t polymcp_abi_version(void) { return (POLYMCP_ABI_MAJOR << 16) | POLYMCP_ABI_MINOR; }

const char *polymcp_version(void) { return PMCP_VERSION; }

int polymcp_last_error(const char **msg, size_t *len) {
  if (msg != NULL) *msg = err_msg != NULL ? err_msg : "";
  if (len != NULL) *len = err_msg != NULL ? err_len : 0;
  return err_code;
}

void polymcp_free(void *p) { free(p); }

/* An input pointer may be NULL only with length 0. */
#define INPUT(p, n)                                                                               \
  do {                                                                                            \
    if ((p) == NULL && (n) != 0) return SET_ERROR(POLYMCP_E_INVALID, #p " is NULL but its length is not 0"); \
  } while (0)
#define OUTPUT(p)                                                                   \
  do {                                                                              \
    if ((p) == NULL) return SET_ERROR(POLYMCP_E_INVALID, #p " must not be NULL"); \
  } while (0)

int polymcp_configure(const char *json, size_t len) {
  GUARD();
  INPUT(json, len);
  return pmcpgo_configure((char *)json, len);
}

int polymcp_stats(char **json, size_t *len) {
  GUARD();
  OUTPUT(json);
  OUTPUT(len);
  return pmcpgo_stats(json, len);
}

int polymcp_server_new(const char *options_json, size_t len, const polymcp_server_callbacks *cb,
                       polymcp_server_t *out) {
  GUARD();
  INPUT(options_json, len);
  OUTPUT(out);
  *out = 0;
  polymcp_server_callbacks *copy = pmcp_copy_callbacks(cb);
  if (copy == NULL) return err_code;
  int rc = pmcpgo_server_new((char *)options_json, len, copy, out);
  if (rc != POLYMCP_OK) free(copy);
  return rc;
}

#define ADD(fn, go)                                                            \
  int fn(polymcp_server_t s, const char *json, size_t len, uint64_t tag) {     \
    GUARD();                                                                   \
    INPUT(json, len);                                                          \
    return go(s, (char *)json, len, tag);                                      \
  }
ADD(polymcp_server_add_tool, pmcpgo_server_add_tool)
ADD(polymcp_server_add_resource, pmcpgo_server_add_resource)
ADD(polymcp_server_add_resource_template, pmcpgo_server_add_resource_template)
ADD(polymcp_server_add_prompt, pmcpgo_server_add_prompt)
ADD(polymcp_server_set_completer, pmcpgo_server_set_completer)

int polymcp_server_add_task_tool(polymcp_server_t s, const char *tool_json, size_t len, const char *task_json,
                                 size_t task_len, uint64_t tag) {
  GUARD();
  INPUT(tool_json, len);
  INPUT(task_json, task_len);
  return pmcpgo_server_add_task_tool(s, (char *)tool_json, len, (char *)task_json, task_len, tag);
}

int polymcp_server_remove(polymcp_server_t s, uint64_t tag) {
  GUARD();
  return pmcpgo_server_remove(s, tag);
}

int polymcp_server_notify(polymcp_server_t s, const char *method, size_t mlen, const char *params_json,
                          size_t plen) {
  GUARD();
  INPUT(method, mlen);
  INPUT(params_json, plen);
  return pmcpgo_server_notify(s, (char *)method, mlen, (char *)params_json, plen);
}

int polymcp_server_serve_stdio(polymcp_server_t s, const char *opts_json, size_t len) {
  GUARD();
  INPUT(opts_json, len);
  return pmcpgo_server_serve_stdio(s, (char *)opts_json, len);
}

int polymcp_server_serve_http(polymcp_server_t s, const char *opts_json, size_t len, char **bound_url,
                              size_t *url_len) {
  GUARD();
  INPUT(opts_json, len);
  char *url = NULL;
  size_t n = 0;
  int rc = pmcpgo_server_serve_http(s, (char *)opts_json, len, &url, &n);
  if (rc == POLYMCP_OK) {
    if (bound_url != NULL) *bound_url = url;
    else free(url);
    if (url_len != NULL) *url_len = n;
  }
  return rc;
}

int polymcp_server_http(polymcp_server_t s, const char *request_json, size_t len, const char *body,
                        size_t body_len, const polymcp_http_callbacks *cb, polymcp_http_t *out) {
  GUARD();
  INPUT(request_json, len);
  INPUT(body, body_len);
  polymcp_http_t h = 0;
  polymcp_http_callbacks *copy = pmcp_copy_http_callbacks(cb);
  if (copy == NULL) return err_code;
  /* On success the copy belongs to the exchange (freed by pmcp_http_end). */
  int rc = pmcpgo_server_http(s, (char *)request_json, len, (char *)body, body_len, copy, &h);
  if (rc != POLYMCP_OK) free(copy);
  if (out != NULL) *out = rc == POLYMCP_OK ? h : 0;
  return rc;
}

int polymcp_http_cancel(polymcp_http_t h) {
  GUARD();
  return pmcpgo_http_cancel(h);
}

int polymcp_server_wait(polymcp_server_t s, int32_t timeout_ms) {
  GUARD();
  if (callback_depth > 0)
    return SET_ERROR(POLYMCP_E_INVALID, "polymcp_server_wait cannot be called from a callback: it would deadlock");
  return pmcpgo_server_wait(s, timeout_ms);
}

int polymcp_server_close(polymcp_server_t s) {
  GUARD();
  return pmcpgo_server_close(s);
}

int polymcp_server_free(polymcp_server_t s) {
  GUARD();
  return pmcpgo_server_free(s);
}

int polymcp_session_open(polymcp_server_t s, const char *opts_json, size_t len, polymcp_send_fn send,
                         void *user, polymcp_session_t *out) {
  GUARD();
  INPUT(opts_json, len);
  OUTPUT(out);
  *out = 0;
  if (send == NULL) return SET_ERROR(POLYMCP_E_INVALID, "send must not be NULL");
  return pmcpgo_session_open(s, (char *)opts_json, len, send, user, out);
}

int polymcp_session_dispatch(polymcp_session_t ss, const char *msg, size_t len) {
  GUARD();
  INPUT(msg, len);
  return pmcpgo_session_dispatch(ss, (char *)msg, len);
}

int polymcp_session_close(polymcp_session_t ss) {
  GUARD();
  return pmcpgo_session_close(ss);
}

int polymcp_call_complete(polymcp_call_t c, const char *result_json, size_t len) {
  GUARD();
  INPUT(result_json, len);
  return pmcpgo_call_complete(c, (char *)result_json, len);
}

int polymcp_call_complete_text(polymcp_call_t c, const char *text, size_t len) {
  GUARD();
  INPUT(text, len);
  return pmcpgo_call_complete_text(c, (char *)text, len);
}

int polymcp_call_fail(polymcp_call_t c, int32_t code, const char *msg, size_t len) {
  GUARD();
  INPUT(msg, len);
  return pmcpgo_call_fail_data(c, code, (char *)msg, len, NULL, 0);
}

int polymcp_call_fail_data(polymcp_call_t c, int32_t code, const char *msg, size_t len,
                           const char *data_json, size_t data_len) {
  GUARD();
  INPUT(msg, len);
  INPUT(data_json, data_len);
  return pmcpgo_call_fail_data(c, code, (char *)msg, len, (char *)data_json, data_len);
}

int polymcp_call_progress(polymcp_call_t c, const char *progress_json, size_t len) {
  GUARD();
  INPUT(progress_json, len);
  return pmcpgo_call_progress(c, (char *)progress_json, len);
}

int polymcp_call_log(polymcp_call_t c, const char *log_json, size_t len) {
  GUARD();
  INPUT(log_json, len);
  return pmcpgo_call_log(c, (char *)log_json, len);
}

int polymcp_call_info(polymcp_call_t c, char **json, size_t *len) {
  GUARD();
  OUTPUT(json);
  OUTPUT(len);
  return pmcpgo_call_info(c, json, len);
}

int polymcp_call_input(polymcp_call_t c, const char *requests_json, size_t len, char **answers_json,
                       size_t *answers_len) {
  GUARD();
  INPUT(requests_json, len);
  OUTPUT(answers_json);
  OUTPUT(answers_len);
  return pmcpgo_call_input(c, (char *)requests_json, len, answers_json, answers_len);
}

int polymcp_call_input_state(polymcp_call_t c, char **state, size_t *len) {
  GUARD();
  OUTPUT(state);
  OUTPUT(len);
  return pmcpgo_call_input_state(c, state, len);
}

int polymcp_call_start_task(polymcp_call_t c) {
  GUARD();
  return pmcpgo_call_start_task(c);
}

int polymcp_server_batch(polymcp_server_t s, int begin) {
  GUARD();
  return pmcpgo_server_batch(s, begin);
}

int polymcp_server_stdio_pump(polymcp_server_t s) {
  GUARD();
  if (callback_depth > 0)
    return SET_ERROR(POLYMCP_E_INVALID, "polymcp_server_stdio_pump cannot be called from a callback: it would deadlock");
  return pmcpgo_server_stdio_pump(s);
}

int polymcp_call_cancelled(polymcp_call_t c) {
  GUARD();
  return pmcpgo_call_cancelled(c);
}

int polymcp_call_set_input_state(polymcp_call_t c, const char *state, size_t len) {
  GUARD();
  INPUT(state, len);
  return pmcpgo_call_set_input_state(c, (char *)state, len);
}

int polymcp_client_connect(const char *options_json, size_t len, const polymcp_client_callbacks *cb, uint64_t tag,
                           polymcp_client_t *out) {
  GUARD();
  INPUT(options_json, len);
  OUTPUT(out);
  *out = 0;
  polymcp_client_callbacks *copy = pmcp_copy_client_callbacks(cb);
  if (copy == NULL) return err_code;
  /* On success the copy belongs to the client (freed after on_closed). */
  int rc = pmcpgo_client_connect((char *)options_json, len, copy, tag, out);
  if (rc != POLYMCP_OK) free(copy);
  return rc;
}

int polymcp_client_request(polymcp_client_t c, const char *method, size_t mlen, const char *params_json,
                           size_t plen, const char *opts_json, size_t olen, uint64_t tag) {
  GUARD();
  INPUT(method, mlen);
  INPUT(params_json, plen);
  INPUT(opts_json, olen);
  return pmcpgo_client_request(c, (char *)method, mlen, (char *)params_json, plen, (char *)opts_json, olen, tag);
}

int polymcp_client_cancel(polymcp_client_t c, uint64_t tag) {
  GUARD();
  return pmcpgo_client_cancel(c, tag);
}

int polymcp_client_answer(polymcp_question_t q, const char *result_json, size_t len) {
  GUARD();
  INPUT(result_json, len);
  return pmcpgo_client_answer(q, (char *)result_json, len);
}

int polymcp_client_answer_error(polymcp_question_t q, int32_t code, const char *msg, size_t len) {
  GUARD();
  INPUT(msg, len);
  return pmcpgo_client_answer_error(q, code, (char *)msg, len);
}

int polymcp_client_close(polymcp_client_t c) {
  GUARD();
  return pmcpgo_client_close(c);
}

int polymcp_client_free(polymcp_client_t c) {
  GUARD();
  return pmcpgo_client_free(c);
}
