/*
 * The C test program of libpolymcp: it drives the library only through
 * polymcp.h, as a host would. `abi_test` runs every test, `abi_test NAME`
 * one, `abi_test --list` names them, `abi_test --version` prints
 * polymcp_version(). capi/capitest runs each test from go test; make
 * test-capi and make check-memory (valgrind) run the whole program.
 *
 * Every wait is bounded (FAIL_AFTER_MS) as a failure bound only.
 */
#define _GNU_SOURCE /* memmem, dladdr */
#include <dlfcn.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "polymcp.h"

#define FAIL_AFTER_MS 20000
#define S(lit) lit, sizeof(lit) - 1

static const char *current;

static void fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  const char *msg;
  size_t len;
  int code = polymcp_last_error(&msg, &len);
  fprintf(stderr, "FAIL %s (%s:%d): ", current, file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " [last error %d: %.*s]\n", code, (int)len, msg);
  exit(1);
}

#define CHECK(cond, ...) \
  do {                   \
    if (!(cond)) fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)
#define EXPECT_RC(want, call)                                                         \
  do {                                                                                \
    int rc_ = (call);                                                                 \
    CHECK(rc_ == (want), "%s returned %d, want %d (%s)", #call, rc_, (want), #want); \
  } while (0)
#define OK(call) EXPECT_RC(POLYMCP_OK, call)

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* ---- a recording host ---- */

enum { MAX_EVENTS = 30000 };

struct host {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  polymcp_server_t server;
  int calls, cancels, closed, after_closed;
  int answer_inline;          /* complete inside on_call */
  int poll_cancel;            /* inside on_call, wait for polymcp_call_cancelled */
  int saw_cancelled;          /* on_call saw polymcp_call_cancelled return 1 */
  int queue_calls;            /* push calls to the work queue */
  polymcp_call_t queue[MAX_EVENTS];
  int qhead, qtail, qdone;
  int barrier;                /* on_call waits until this many are inside */
  int inside, max_inside;
  int wait_rc;                /* polymcp_server_wait from inside a callback */
  int pump_rc;                /* polymcp_server_stdio_pump from inside a callback */
  pthread_t call_thread;      /* the thread of the last on_call */
  char last_params[512];
  int replies;                /* session messages with "result" */
  char last_reply[1024];
};

static void host_init(struct host *h) {
  memset(h, 0, sizeof *h);
  pthread_mutex_init(&h->mu, NULL);
  pthread_cond_init(&h->cv, NULL);
  h->wait_rc = 1;
  h->pump_rc = 1;
}

static void host_destroy(struct host *h) {
  pthread_mutex_destroy(&h->mu);
  pthread_cond_destroy(&h->cv);
}

static const char RESULT[] = "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}";

/* Waits on h->cv until cond holds; fails after FAIL_AFTER_MS. mu held. */
#define WAIT_UNTIL(h, cond)                                                          \
  do {                                                                               \
    struct timespec until_;                                                          \
    clock_gettime(CLOCK_REALTIME, &until_);                                          \
    until_.tv_sec += FAIL_AFTER_MS / 1000;                                           \
    while (!(cond))                                                                  \
      if (pthread_cond_timedwait(&(h)->cv, &(h)->mu, &until_) != 0 && !(cond))       \
        fail(__FILE__, __LINE__, "timed out waiting for %s", #cond);                 \
  } while (0)

static void on_call(void *user, polymcp_call_t call, uint32_t kind, uint64_t tag, const char *params,
                    size_t len) {
  struct host *h = user;
  (void)tag;
  CHECK(kind == POLYMCP_KIND_TOOL, "kind %u", kind);
  pthread_mutex_lock(&h->mu);
  if (h->closed) h->after_closed++;
  h->calls++;
  snprintf(h->last_params, sizeof h->last_params, "%.*s", (int)len, params);
  if (h->wait_rc == 1) h->wait_rc = polymcp_server_wait(h->server, 0);
  if (h->pump_rc == 1) h->pump_rc = polymcp_server_stdio_pump(h->server);
  h->call_thread = pthread_self();
  h->inside++;
  if (h->inside > h->max_inside) h->max_inside = h->inside;
  pthread_cond_broadcast(&h->cv);
  if (h->barrier > 0) WAIT_UNTIL(h, h->max_inside >= h->barrier);
  h->inside--;
  if (h->queue_calls) {
    h->queue[h->qtail++ % MAX_EVENTS] = call;
    pthread_cond_broadcast(&h->cv);
  }
  pthread_mutex_unlock(&h->mu);
  if (h->answer_inline) OK(polymcp_call_complete(call, S(RESULT)));
  if (h->poll_cancel) {
    int rc;
    for (int i = 0; (rc = polymcp_call_cancelled(call)) == 0 && i < FAIL_AFTER_MS; i++) sleep_ms(1);
    CHECK(rc == 1, "polymcp_call_cancelled inside on_call returned %d", rc);
    pthread_mutex_lock(&h->mu);
    h->saw_cancelled++;
    pthread_cond_broadcast(&h->cv);
    pthread_mutex_unlock(&h->mu);
  }
}

static void on_cancel(void *user, polymcp_call_t call) {
  struct host *h = user;
  (void)call;
  pthread_mutex_lock(&h->mu);
  if (h->closed) h->after_closed++;
  h->cancels++;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

static void on_closed(void *user) {
  struct host *h = user;
  pthread_mutex_lock(&h->mu);
  if (h->closed) h->after_closed++;
  h->closed++;
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

static void on_send(void *user, const char *msg, size_t len) {
  struct host *h = user;
  pthread_mutex_lock(&h->mu);
  if (h->closed) h->after_closed++;
  if (memmem(msg, len, "\"result\"", 8) != NULL) h->replies++;
  snprintf(h->last_reply, sizeof h->last_reply, "%.*s", (int)len, msg);
  pthread_cond_broadcast(&h->cv);
  pthread_mutex_unlock(&h->mu);
}

static const char ECHO[] =
    "{\"name\":\"echo\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}}}}";
static const char INIT[] =
    "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-06-18\","
    "\"capabilities\":{},\"clientInfo\":{\"name\":\"abi_test\",\"version\":\"1\"}}}";
static const char INITIALIZED[] = "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}";

static polymcp_server_callbacks callbacks(struct host *h) {
  polymcp_server_callbacks cb = {sizeof cb, h, on_call, on_cancel, NULL, on_closed};
  return cb;
}

static polymcp_server_t new_server(struct host *h, const char *options) {
  polymcp_server_callbacks cb = callbacks(h);
  OK(polymcp_server_new(options, options ? strlen(options) : 0, &cb, &h->server));
  OK(polymcp_server_add_tool(h->server, S(ECHO), 1));
  return h->server;
}

static polymcp_session_t open_session(struct host *h) {
  polymcp_session_t ss;
  OK(polymcp_session_open(h->server, NULL, 0, on_send, h, &ss));
  OK(polymcp_session_dispatch(ss, S(INIT)));
  OK(polymcp_session_dispatch(ss, S(INITIALIZED)));
  return ss;
}

static void send_call(polymcp_session_t ss, int id) {
  char msg[256];
  int n = snprintf(msg, sizeof msg,
                   "{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\","
                   "\"arguments\":{\"text\":\"x\"}}}",
                   id);
  OK(polymcp_session_dispatch(ss, msg, (size_t)n));
}

/* Closes and frees the server, then checks the end of its life. */
static void finish(struct host *h) {
  OK(polymcp_server_close(h->server));
  int rc;
  for (int i = 0; (rc = polymcp_server_wait(h->server, 100)) == POLYMCP_E_TIMEOUT && i < FAIL_AFTER_MS / 100; i++) {
  }
  OK(rc);
  pthread_mutex_lock(&h->mu);
  CHECK(h->closed == 1, "on_closed came %d times", h->closed);
  pthread_mutex_unlock(&h->mu);
  OK(polymcp_server_free(h->server));
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_free(h->server));
  sleep_ms(20); /* anything late would show in after_closed */
  pthread_mutex_lock(&h->mu);
  CHECK(h->after_closed == 0, "%d callbacks after on_closed", h->after_closed);
  pthread_mutex_unlock(&h->mu);
}

/* The live handle counts are back to zero (other servers aside). */
static void check_no_handles(void) {
  char *json;
  size_t len;
  OK(polymcp_stats(&json, &len));
  CHECK(json[len] == 0, "stats not NUL-terminated");
  CHECK(strstr(json, "\"servers\":0") && strstr(json, "\"calls\":0") && strstr(json, "\"sessions\":0") &&
            strstr(json, "\"http\":0"),
        "handles left: %s", json);
  polymcp_free(json);
}

/* ---- tests ---- */

static void test_version(void) {
  CHECK(polymcp_abi_version() == ((POLYMCP_ABI_MAJOR << 16) | POLYMCP_ABI_MINOR), "abi %#x", polymcp_abi_version());
  CHECK(strlen(polymcp_version()) > 0, "empty version");
}

/* The library gives back its relocation table's pages once the loader
 * has applied it (capi/relocs.c): the mapping at its base address, which
 * starts with the 1.3 MiB table, keeps almost nothing resident. */
/* Two pipes a stdio transport serves: it reads in[0] and writes out[1]. */
struct pipes {
  int in[2], out[2];
};

/* Serves h's server over new pipes, pumped (the host reads) or not. */
static void serve_pipes(struct host *h, struct pipes *p, int pump) {
  CHECK(pipe(p->in) == 0 && pipe(p->out) == 0, "pipe");
  char opts[80];
  int n = snprintf(opts, sizeof opts, "{\"in_fd\":%d,\"out_fd\":%d%s}", p->in[0], p->out[1],
                   pump ? ",\"pump\":true" : "");
  OK(polymcp_server_serve_stdio(h->server, opts, (size_t)n));
}

/* Closes the pipes once the transport has ended (the test closed in[1] to
 * end its input): ours, the library used duplicates. */
static void close_pipes(struct pipes *p) {
  close(p->in[0]), close(p->out[0]), close(p->out[1]);
}

/* Writes initialize and an echo call (id 1) to the transport's input. */
static void send_echo_call(struct pipes *p) {
  static const char call[] =
      "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{}}}\n";
  CHECK(write(p->in[1], INIT, sizeof INIT - 1) > 0 && write(p->in[1], "\n", 1) == 1, "write");
  CHECK(write(p->in[1], call, sizeof call - 1) > 0, "write");
}

/* Whether out holds the answer to send_echo_call's call yet. */
static int has_echo_answer(const char *out, size_t len) { return memmem(out, len, "\"id\":1,", 7) != NULL; }

/* Checks the answer to send_echo_call's call (out is NUL-terminated). */
static void check_echo_answer(const char *out) {
  CHECK(strstr(out, "{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}}\n"),
        "output %s", out);
}

/* The resident and the whole size, in KiB, of the library's read-only
 * mappings (its code and read-only data). */
static long readonly_rss(long *size_kb) {
  FILE *f = fopen("/proc/self/smaps", "r");
  CHECK(f != NULL, "no /proc/self/smaps");
  char line[512], perms[8] = "", path[256];
  long rss_kb = 0, kb;
  int ours = 0;
  *size_kb = 0;
  while (fgets(line, sizeof line, f) != NULL) {
    unsigned long lo, hi;
    path[0] = 0;
    if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi, perms, path) >= 3) {
      ours = strstr(path, "libpolymcp") != NULL && perms[1] != 'w';
    } else if (ours && sscanf(line, "Size: %ld kB", &kb) == 1) {
      *size_kb += kb;
    } else if (ours && sscanf(line, "Rss: %ld kB", &kb) == 1) {
      rss_kb += kb;
    }
  }
  fclose(f);
  return rss_kb;
}

/* When the process first serves, and again a second later, the library
 * hands back the pages of its code and read-only data. How much stays
 * resident depends on the kernel and on timing: the process refaults
 * pages, 64 KiB at a time, as it goes on running (on 6.18 here an idle
 * server keeps 52-67% of the mappings after both; 46% on the kernel this was
 * first measured on). So the test checks that an idle server, 1.5 s after
 * it started serving, holds at least an eighth of the mappings fewer than
 * before it served (17-35% fewer here). Once per process: the test runs
 * in a process of its own. */
static void test_readonly_released(void) {
  struct host h;
  host_init(&h);
  new_server(&h, NULL);
  long size_kb;
  long before = readonly_rss(&size_kb);
  struct pipes p;
  serve_pipes(&h, &p, 0);
  sleep_ms(1500);
  long after = readonly_rss(&size_kb);
  CHECK(size_kb > 1024, "the library's read-only mappings: %ld KiB", size_kb);
  CHECK((before - after) * 8 > size_kb, "%ld, then %ld of %ld KiB of read-only mappings resident", before, after,
        size_kb);
  close(p.in[1]);
  OK(polymcp_server_wait(h.server, FAIL_AFTER_MS));
  close_pipes(&p);
  finish(&h);
  host_destroy(&h);
}

static void test_relocations_released(void) {
  Dl_info info;
  CHECK(dladdr((void *)polymcp_version, &info) != 0 && info.dli_fbase != NULL, "dladdr");
  char want[32], line[512];
  snprintf(want, sizeof want, "%lx-", (unsigned long)info.dli_fbase);
  FILE *f = fopen("/proc/self/smaps", "r");
  CHECK(f != NULL, "no /proc/self/smaps");
  long rss_kb = -1;
  int in = 0;
  while (fgets(line, sizeof line, f) != NULL && rss_kb < 0) {
    if (strncmp(line, want, strlen(want)) == 0) in = 1;
    else if (in && sscanf(line, "Rss: %ld kB", &rss_kb) == 1) break;
  }
  fclose(f);
  CHECK(rss_kb >= 0, "no mapping at %s in smaps", want);
  CHECK(rss_kb <= 256, "%ld KiB of the relocation table's mapping resident", rss_kb);
}

static void test_last_error(void) {
  const char *msg;
  size_t len;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_configure(S("{\"nope\":1}")));
  CHECK(polymcp_last_error(&msg, &len) == POLYMCP_E_INVALID, "code");
  CHECK(len > 0 && msg[len] == 0 && strstr(msg, "nope"), "message %s", msg);
  CHECK(polymcp_last_error(NULL, NULL) == POLYMCP_E_INVALID, "code without outputs");
  OK(polymcp_configure(S("{\"log_level\":\"warn\"}")));
  CHECK(polymcp_last_error(NULL, NULL) == POLYMCP_E_INVALID, "success must not clear the last error");
}

/* Each thread has its own last error. */
static void *other_thread_error(void *arg) {
  (void)arg;
  const char *msg;
  size_t len;
  CHECK(polymcp_last_error(&msg, &len) == POLYMCP_OK && len == 0, "fresh thread has an error: %s", msg);
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_close(0));
  return NULL;
}

static void test_last_error_per_thread(void) {
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_configure(S("[")));
  pthread_t t;
  pthread_create(&t, NULL, other_thread_error, NULL);
  pthread_join(t, NULL);
  CHECK(polymcp_last_error(NULL, NULL) == POLYMCP_E_INVALID, "another thread's error leaked here");
}

static void test_bad_arguments(void) {
  struct host h;
  host_init(&h);
  polymcp_server_callbacks cb = callbacks(&h);
  polymcp_server_t s = 42;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(NULL, 0, NULL, &s));
  CHECK(s == 0, "out not cleared on failure");
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(NULL, 5, &cb, &s));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(NULL, 0, &cb, NULL));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(S("{\"max_queue\":\"x\"}"), &cb, &s));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(S("not json"), &cb, &s));
  cb.struct_size = 8;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(NULL, 0, &cb, &s));
  cb = callbacks(&h);
  cb.on_call = NULL;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_new(NULL, 0, &cb, &s));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_stats(NULL, NULL));

  new_server(&h, NULL);
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_tool(h.server, S("{\"name\":"), 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_tool(h.server, NULL, 3, 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_tool(h.server, S("{\"name\":\"x y\"}"), 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_tool(h.server, S("{\"name\":\"other\"}"), 1)); /* tag in use */
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_resource(h.server, S("{\"uri\":\"\",\"name\":\"r\"}"), 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_resource_template(h.server, S("{\"uriTemplate\":\"a{\"}"), 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_add_prompt(h.server, S("{}"), 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_set_completer(h.server, S("{\"type\":\"ref/x\"}"), 2));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_remove(h.server, 99));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_notify(h.server, S("notifications/tools/list_changed"), NULL, 0));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_notify(h.server, NULL, 1, NULL, 0));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_serve_stdio(h.server, S("{\"in_fd\":\"zero\"}")));
  EXPECT_RC(POLYMCP_E_IO, polymcp_server_serve_stdio(h.server, S("{\"in_fd\":12345}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_session_open(h.server, NULL, 0, NULL, NULL, &s));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_info(1, NULL, NULL));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_input(1, NULL, 1, NULL, NULL));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_input_state(1, NULL, NULL));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_set_input_state(1, NULL, 5));
  OK(polymcp_server_notify(h.server, S("notifications/resources/updated"), S("{\"uri\":\"file:///a\"}")));
  OK(polymcp_server_add_resource(h.server, S("{\"uri\":\"file:///a\",\"name\":\"a\"}"), 2));
  OK(polymcp_server_remove(h.server, 2));
  finish(&h);
  host_destroy(&h);
}

static void test_bad_handles(void) {
  struct host h;
  host_init(&h);
  new_server(&h, NULL);
  polymcp_session_t ss = open_session(&h);
  polymcp_server_t never = h.server + 1000;
  char *out;
  size_t len;
  polymcp_server_t handles[] = {0, never, ss};
  for (size_t i = 0; i < sizeof handles / sizeof *handles; i++) {
    polymcp_server_t b = handles[i];
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_add_tool(b, S(ECHO), 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_add_resource(b, S("{}"), 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_add_resource_template(b, S("{}"), 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_add_prompt(b, S("{}"), 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_set_completer(b, S("{}"), 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_remove(b, 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_notify(b, S("x"), NULL, 0));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_serve_stdio(b, NULL, 0));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_wait(b, 0));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_batch(b, 1));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_stdio_pump(b));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_close(b));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_free(b));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_session_open(b, NULL, 0, on_send, &h, &ss));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_complete(b, S(RESULT)));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_complete_text(b, S("x")));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_fail(b, 0, S("x")));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_fail_data(b, -32602, S("x"), S("{}")));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_progress(b, S("{\"progress\":1}")));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_log(b, S("{\"level\":\"info\",\"data\":1}")));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_info(b, &out, &len));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_input(b, S("{\"r\":{\"method\":\"roots/list\"}}"), &out, &len));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_input_state(b, &out, &len));
    EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_call_set_input_state(b, S("x")));
  }
  ss = open_session(&h);
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_session_dispatch(h.server, S(INIT)));
  OK(polymcp_session_close(ss));
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_session_close(ss));
  EXPECT_RC(POLYMCP_E_CLOSED, polymcp_session_dispatch(ss, S(INIT)));
  finish(&h);
  host_destroy(&h);
}

/* Waits until the host has queued at least n calls; returns the next one. */
static polymcp_call_t next_call(struct host *h) {
  pthread_mutex_lock(&h->mu);
  WAIT_UNTIL(h, h->qhead < h->qtail);
  polymcp_call_t c = h->queue[h->qhead++ % MAX_EVENTS];
  pthread_mutex_unlock(&h->mu);
  return c;
}

static void wait_replies(struct host *h, int n) {
  pthread_mutex_lock(&h->mu);
  WAIT_UNTIL(h, h->replies >= n);
  pthread_mutex_unlock(&h->mu);
}

static void test_call_errors(void) {
  struct host h;
  host_init(&h);
  h.queue_calls = 1;
  new_server(&h, NULL);
  polymcp_session_t ss = open_session(&h);
  send_call(ss, 1);
  polymcp_call_t c = next_call(&h);
  CHECK(strstr(h.last_params, "\"arguments\":{\"text\":\"x\"}") && strstr(h.last_params, "\"revision\":\"2025-06-18\""),
        "params %s", h.last_params);
  CHECK(h.wait_rc == POLYMCP_E_INVALID, "wait inside a callback returned %d", h.wait_rc);

  char *info;
  size_t len;
  OK(polymcp_call_info(c, &info, &len));
  CHECK(info[len] == 0 && strstr(info, "\"method\":\"tools/call\""), "info %s", info);
  polymcp_free(info);
  OK(polymcp_call_progress(c, S("{\"progress\":1}"))); /* no token: nothing sent */
  EXPECT_RC(0, polymcp_call_cancelled(c));
  /* Input state round-trips; input the client did not declare is refused
   * (2025-06-18: the call goes on, the host decides). */
  OK(polymcp_call_input_state(c, &info, &len));
  CHECK(len == 0 && info[0] == 0, "no state yet, got %zu bytes", len);
  polymcp_free(info);
  OK(polymcp_call_set_input_state(c, S("st")));
  OK(polymcp_call_input_state(c, &info, &len));
  CHECK(len == 2 && memcmp(info, "st", 2) == 0, "state %.*s", (int)len, info);
  polymcp_free(info);
  EXPECT_RC(POLYMCP_E_CAPABILITY, polymcp_call_input(c, S("{\"r\":{\"method\":\"roots/list\"}}"), &info, &len));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_input(c, S("{\"r\":{}}"), &info, &len));
  OK(polymcp_call_log(c, S("{\"level\":\"info\",\"data\":\"x\"}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_progress(c, S("{\"progress\":")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_log(c, S("{\"level\":\"loud\",\"data\":1}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_complete(c, S("{\"content\":")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_complete(c, NULL, 0));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_complete_text(c, S("not UTF-8: \xff")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_fail(c, 0, S("\xff\xfe")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_fail_data(c, -32602, S("bad"), S("{\"a\":")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_fail_data(c, -32602, S("bad"), NULL, 3));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_call_fail_data(c, 0, S("a tool failure is a result"), S("{}")));
  OK(polymcp_call_complete(c, S(RESULT))); /* the bad attempts left it pending */
  wait_replies(&h, 2);
  CHECK(strstr(h.last_reply, "\"id\":1,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]}"), "reply %s",
        h.last_reply);
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_complete(c, S(RESULT)));
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_fail(c, 0, S("again")));
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_progress(c, S("{\"progress\":2}")));
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_info(c, &info, &len));
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_input(c, S("{\"r\":{\"method\":\"roots/list\"}}"), &info, &len));

  /* Complete after the client cancelled. */
  send_call(ss, 2);
  c = next_call(&h);
  OK(polymcp_session_dispatch(ss, S("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2}}")));
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, h.cancels == 1);
  pthread_mutex_unlock(&h.mu);
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_complete(c, S(RESULT)));
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_cancelled(c));

  /* A tool failure and a protocol error. */
  send_call(ss, 3);
  OK(polymcp_call_fail(next_call(&h), 0, S("it broke")));
  wait_replies(&h, 3);
  CHECK(strstr(h.last_reply, "\"isError\":true") && strstr(h.last_reply, "it broke"), "reply %s", h.last_reply);
  send_call(ss, 4);
  OK(polymcp_call_fail(next_call(&h), -32602, S("bad")));
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, strstr(h.last_reply, "\"id\":4,\"error\":{\"code\":-32602,\"message\":\"bad\"}") != NULL);
  pthread_mutex_unlock(&h.mu);
  send_call(ss, 5);
  OK(polymcp_call_fail_data(next_call(&h), -32602, S("outside the root"), S("{\"field\":\"path\"}")));
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, strstr(h.last_reply, "\"id\":5,\"error\":{\"code\":-32602,\"message\":\"outside the root\","
                                      "\"data\":{\"field\":\"path\"}}") != NULL);
  pthread_mutex_unlock(&h.mu);
  /* A text result: the text as it is, NUL and quotes included. */
  send_call(ss, 6);
  static const char text[] = "say \"hi\"\n\0end";
  OK(polymcp_call_complete_text(next_call(&h), text, sizeof text - 1));
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, strstr(h.last_reply, "\"id\":6,\"result\":{\"content\":[{\"type\":\"text\","
                                      "\"text\":\"say \\\"hi\\\"\\n\\u0000end\"}]}") != NULL);
  pthread_mutex_unlock(&h.mu);
  finish(&h);
  host_destroy(&h);
  check_no_handles();
}

/* A handler that runs inside on_call learns of a cancel by polling
 * polymcp_call_cancelled (on_cancel only follows its return), and nothing
 * is answered. The call is dispatched from a thread of its own, since the
 * session may run on_call on the dispatching thread. */
struct dispatch_arg {
  polymcp_session_t ss;
  int id;
};

static void *dispatch_call(void *p) {
  struct dispatch_arg *a = p;
  send_call(a->ss, a->id);
  return NULL;
}

static void test_cancelled_inside_on_call(void) {
  struct host h;
  host_init(&h);
  h.poll_cancel = 1;
  new_server(&h, NULL);
  polymcp_session_t ss = open_session(&h);
  struct dispatch_arg a = {ss, 7};
  pthread_t t;
  CHECK(pthread_create(&t, NULL, dispatch_call, &a) == 0, "pthread_create");
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, h.calls == 1);
  pthread_mutex_unlock(&h.mu);
  OK(polymcp_session_dispatch(ss, S("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}")));
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, h.saw_cancelled == 1 && h.cancels == 1);
  pthread_mutex_unlock(&h.mu);
  pthread_join(t, NULL);
  sleep_ms(20); /* an answer would show in replies */
  pthread_mutex_lock(&h.mu);
  CHECK(h.replies == 1, "%d results: the cancelled call was answered (%s)", h.replies, h.last_reply);
  pthread_mutex_unlock(&h.mu);
  finish(&h);
  host_destroy(&h);
  check_no_handles();
}

/* on_call runs on several threads at once: BARRIER calls wait inside it
 * for each other, which only works if they run concurrently. */
static void test_concurrent_callbacks(void) {
  enum { BARRIER = 6 };
  struct host h;
  host_init(&h);
  h.barrier = BARRIER;
  h.answer_inline = 1;
  new_server(&h, "{\"max_concurrency\":16}");
  polymcp_session_t ss = open_session(&h);
  for (int i = 1; i <= BARRIER; i++) send_call(ss, i);
  wait_replies(&h, BARRIER + 1);
  CHECK(h.max_inside >= BARRIER, "max %d at once", h.max_inside);
  finish(&h);
  host_destroy(&h);
}

/* 10,000 calls answered by 8 host threads. */
enum { MANY = 10000, WORKERS = 8 };

static void *worker(void *arg) {
  struct host *h = arg;
  for (;;) {
    pthread_mutex_lock(&h->mu);
    WAIT_UNTIL(h, h->qhead < h->qtail || h->qdone);
    if (h->qhead == h->qtail) {
      pthread_mutex_unlock(&h->mu);
      return NULL;
    }
    polymcp_call_t c = h->queue[h->qhead++ % MAX_EVENTS];
    pthread_mutex_unlock(&h->mu);
    OK(polymcp_call_complete(c, S(RESULT)));
  }
}

static void test_many_calls(void) {
  struct host h;
  host_init(&h);
  h.queue_calls = 1;
  new_server(&h, "{\"max_concurrency\":64,\"max_queue\":20000}");
  polymcp_session_t ss = open_session(&h);
  pthread_t t[WORKERS];
  for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, worker, &h);
  for (int i = 1; i <= MANY; i++) send_call(ss, i);
  wait_replies(&h, MANY + 1);
  pthread_mutex_lock(&h.mu);
  h.qdone = 1;
  pthread_cond_broadcast(&h.cv);
  pthread_mutex_unlock(&h.mu);
  for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
  CHECK(h.calls == MANY && h.replies == MANY + 1, "%d calls, %d replies", h.calls, h.replies);
  finish(&h);
  host_destroy(&h);
  check_no_handles();
}

/* Close with calls in flight: each gets on_cancel, on_closed comes last. */
static void test_close_in_flight(void) {
  enum { N = 24 };
  struct host h;
  host_init(&h);
  h.queue_calls = 1;
  new_server(&h, NULL);
  polymcp_session_t ss = open_session(&h);
  for (int i = 1; i <= N; i++) send_call(ss, i);
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, h.calls == N);
  pthread_mutex_unlock(&h.mu);
  OK(polymcp_server_close(h.server));
  OK(polymcp_server_wait(h.server, FAIL_AFTER_MS));
  pthread_mutex_lock(&h.mu);
  CHECK(h.cancels == N && h.closed == 1, "%d cancels, closed %d", h.cancels, h.closed);
  pthread_mutex_unlock(&h.mu);
  for (int i = 0; i < N; i++) EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_complete(h.queue[i], S(RESULT)));
  EXPECT_RC(POLYMCP_E_CLOSED, polymcp_session_dispatch(ss, S(INIT)));
  EXPECT_RC(POLYMCP_E_CLOSED, polymcp_server_add_tool(h.server, S(ECHO), 5));
  finish(&h);
  host_destroy(&h);
  check_no_handles();
}

/* Free without close: the server closes itself, callbacks go on until
 * on_closed. */
static void test_free_open_server(void) {
  struct host h;
  host_init(&h);
  h.queue_calls = 1;
  new_server(&h, NULL);
  polymcp_session_t ss = open_session(&h);
  send_call(ss, 1);
  polymcp_call_t c = next_call(&h);
  OK(polymcp_server_free(h.server));
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_free(h.server));
  pthread_mutex_lock(&h.mu);
  WAIT_UNTIL(&h, h.closed == 1);
  CHECK(h.cancels == 1, "cancels %d", h.cancels);
  pthread_mutex_unlock(&h.mu);
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_call_complete(c, S(RESULT)));
  host_destroy(&h);
  check_no_handles();
}

/* stdio over pipes given as descriptors. */
static void test_stdio_pipes(void) {
  struct host h;
  host_init(&h);
  h.answer_inline = 1;
  new_server(&h, NULL);
  struct pipes p;
  serve_pipes(&h, &p, 0);
  send_echo_call(&p);
  /* Batches nest; the answers leave by the last end at the latest. */
  OK(polymcp_server_batch(h.server, 1));
  OK(polymcp_server_batch(h.server, 1));
  OK(polymcp_server_batch(h.server, 0));
  OK(polymcp_server_batch(h.server, 0));
  char buf[4096];
  size_t got = 0;
  while (!has_echo_answer(buf, got)) {
    ssize_t r = read(p.out[0], buf + got, sizeof buf - got - 1);
    CHECK(r > 0, "read %zd", r);
    got += (size_t)r;
  }
  buf[got] = 0;
  check_echo_answer(buf);
  EXPECT_RC(POLYMCP_E_TIMEOUT, polymcp_server_wait(h.server, 0));
  close(p.in[1]); /* end of input ends the transport */
  OK(polymcp_server_wait(h.server, FAIL_AFTER_MS));
  close_pipes(&p);
  finish(&h);
  host_destroy(&h);
}

/* With "pump", the host's own loop polls the input and pumps: on_call
 * comes on the pumping thread, and the answer it gives there is in the
 * output pipe when the pump returns. */
static void test_stdio_pump(void) {
  struct host h;
  host_init(&h);
  h.answer_inline = 1;
  new_server(&h, NULL);
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_stdio_pump(h.server)); /* no stdio with pump */
  struct pipes p;
  serve_pipes(&h, &p, 1);
  OK(polymcp_server_stdio_pump(h.server)); /* nothing to read yet */
  send_echo_call(&p);
  char buf[4096];
  size_t got = 0;
  struct pollfd pin = {.fd = p.in[0], .events = POLLIN};
  while (!has_echo_answer(buf, got)) {
    CHECK(poll(&pin, 1, FAIL_AFTER_MS) == 1, "input never readable");
    OK(polymcp_server_stdio_pump(h.server));
    struct pollfd pout = {.fd = p.out[0], .events = POLLIN};
    while (poll(&pout, 1, 0) == 1) { /* what the pump wrote: no waiting */
      ssize_t r = read(p.out[0], buf + got, sizeof buf - got - 1);
      CHECK(r > 0, "read %zd", r);
      got += (size_t)r;
    }
  }
  buf[got] = 0;
  check_echo_answer(buf);
  CHECK(pthread_equal(h.call_thread, pthread_self()), "on_call came on another thread");
  EXPECT_RC(POLYMCP_E_INVALID, h.pump_rc); /* from inside on_call */
  close(p.in[1]); /* end of input ends the transport */
  CHECK(poll(&pin, 1, FAIL_AFTER_MS) == 1, "end of input never readable");
  EXPECT_RC(POLYMCP_E_CLOSED, polymcp_server_stdio_pump(h.server));
  OK(polymcp_server_wait(h.server, FAIL_AFTER_MS));
  close_pipes(&p);
  finish(&h);
  host_destroy(&h);
}

/* A child after fork() gets POLYMCP_E_FORKED without entering Go. */
static void test_fork(void) {
  struct host h;
  host_init(&h);
  new_server(&h, NULL);
  pid_t pid = fork();
  CHECK(pid >= 0, "fork");
  if (pid == 0) {
    polymcp_server_t s;
    polymcp_server_callbacks cb = callbacks(&h);
    const char *msg;
    int ok = polymcp_server_new(NULL, 0, &cb, &s) == POLYMCP_E_FORKED &&
             polymcp_server_close(h.server) == POLYMCP_E_FORKED && polymcp_call_complete(1, S("{}")) == POLYMCP_E_FORKED &&
             polymcp_last_error(&msg, NULL) == POLYMCP_E_FORKED && strstr(msg, "fork") != NULL;
    _exit(ok ? 0 : 3);
  }
  int status;
  CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
  finish(&h);
  host_destroy(&h);
}


/* serve_http binds and reports the real URL; a taken port is POLYMCP_E_IO. */
static void test_serve_http(void) {
  struct host h;
  host_init(&h);
  new_server(&h, NULL);
  char *url;
  size_t len;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_serve_http(h.server, S("{\"path\":\"no-slash\"}"), &url, &len));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_serve_http(h.server, S("{\"adr\":\"x\"}"), &url, &len));
  OK(polymcp_server_serve_http(h.server, NULL, 0, &url, &len));
  CHECK(url[len] == 0 && strncmp(url, "http://127.0.0.1:", 17) == 0 && strcmp(url + len - 4, "/mcp") == 0, "url %s", url);
  char opts[128];
  int n = snprintf(opts, sizeof opts, "{\"addr\":\"%.*s\"}", (int)(len - 4 - 7), url + 7);
  polymcp_free(url);
  EXPECT_RC(POLYMCP_E_IO, polymcp_server_serve_http(h.server, opts, (size_t)n, NULL, NULL));
  EXPECT_RC(POLYMCP_E_TIMEOUT, polymcp_server_wait(h.server, 0));
  finish(&h);
  host_destroy(&h);
}

/* Host-owned HTTP: a whole request in, status, headers and body out. */
struct exchange {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int status, ended, end_rc, flushes;
  char headers[512], body[2048];
  size_t body_len;
};

static void ex_start(void *user, int status, const char *headers, size_t len) {
  struct exchange *e = user;
  pthread_mutex_lock(&e->mu);
  e->status = status;
  snprintf(e->headers, sizeof e->headers, "%.*s", (int)len, headers);
  pthread_mutex_unlock(&e->mu);
}

static void ex_write(void *user, const char *chunk, size_t len) {
  struct exchange *e = user;
  pthread_mutex_lock(&e->mu);
  if (e->body_len + len < sizeof e->body) memcpy(e->body + e->body_len, chunk, len), e->body_len += len;
  pthread_mutex_unlock(&e->mu);
}

static void ex_flush(void *user) {
  struct exchange *e = user;
  pthread_mutex_lock(&e->mu);
  e->flushes++;
  pthread_mutex_unlock(&e->mu);
}

static void ex_end(void *user, int rc) {
  struct exchange *e = user;
  pthread_mutex_lock(&e->mu);
  e->ended++, e->end_rc = rc;
  pthread_cond_broadcast(&e->cv);
  pthread_mutex_unlock(&e->mu);
}

static void wait_end(struct exchange *e) {
  pthread_mutex_lock(&e->mu);
  WAIT_UNTIL(e, e->ended == 1);
  pthread_mutex_unlock(&e->mu);
}

static const char HTTP_REQUEST[] =
    "{\"method\":\"POST\",\"path\":\"/mcp\",\"host\":\"localhost:8000\",\"headers\":{"
    "\"content-type\":\"application/json\",\"accept\":[\"application/json, text/event-stream\"],"
    "\"mcp-protocol-version\":\"2026-07-28\",\"mcp-method\":\"tools/call\",\"mcp-name\":\"echo\"}}";
static const char HTTP_BODY[] =
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"arguments\":{},"
    "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
    "\"io.modelcontextprotocol/clientCapabilities\":{}}}}";

static void test_host_http(void) {
  struct host h;
  host_init(&h);
  h.answer_inline = 1;
  new_server(&h, NULL);
  struct exchange e;
  memset(&e, 0, sizeof e);
  pthread_mutex_init(&e.mu, NULL);
  pthread_cond_init(&e.cv, NULL);
  polymcp_http_callbacks cb = {sizeof cb, &e, ex_start, ex_write, ex_flush, ex_end};
  polymcp_http_t x;
  OK(polymcp_server_http(h.server, S(HTTP_REQUEST), S(HTTP_BODY), &cb, &x));
  wait_end(&e);
  CHECK(e.status == 200 && e.end_rc == POLYMCP_OK && e.flushes > 0, "status %d rc %d", e.status, e.end_rc);
  CHECK(strstr(e.headers, "\"Content-Type\":[\"application/json\"]"), "headers %s", e.headers);
  CHECK(memmem(e.body, e.body_len, "\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]", 39), "body %.*s",
        (int)e.body_len, e.body);
  EXPECT_RC(POLYMCP_E_UNKNOWN_CALL, polymcp_http_cancel(x));
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_http_cancel(0));

  cb.on_end = NULL;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_http(h.server, S(HTTP_REQUEST), S(HTTP_BODY), &cb, &x));
  cb.on_end = ex_end;
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_server_http(h.server, S("{\"method\":"), NULL, 0, &cb, &x));
  EXPECT_RC(POLYMCP_E_BADHANDLE, polymcp_server_http(0, S(HTTP_REQUEST), S(HTTP_BODY), &cb, &x));

  /* No Host: the DNS-rebinding check answers 421 without running anything. */
  memset(&e.status, 0, sizeof e - offsetof(struct exchange, status));
  OK(polymcp_server_http(h.server, S("{\"method\":\"POST\",\"path\":\"/mcp\"}"), S(HTTP_BODY), &cb, NULL));
  wait_end(&e);
  CHECK(e.status == 421, "status %d", e.status);
  finish(&h);
  pthread_mutex_destroy(&e.mu);
  pthread_cond_destroy(&e.cv);
  host_destroy(&h);
  check_no_handles();
}

static void test_configure(void) {
  OK(polymcp_configure(NULL, 0));
  OK(polymcp_configure(S("{\"max_procs\":0,\"log_level\":\"error\"}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_configure(S("{\"log_level\":\"loud\"}")));
  OK(polymcp_configure(S("{\"gc_percent\":300,\"memory_limit_bytes\":1073741824}")));
  OK(polymcp_configure(S("{\"gc_percent\":200}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_configure(S("{\"gc_percent\":0}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_configure(S("{\"memory_limit_bytes\":-5}")));
  EXPECT_RC(POLYMCP_E_INVALID, polymcp_configure(NULL, 1));
  OK(polymcp_configure(S("{\"log_level\":\"warn\"}")));
}

static const struct {
  const char *name;
  void (*fn)(void);
} tests[] = {
    {"readonly_released", test_readonly_released},
    {"version", test_version},
    {"last_error", test_last_error},
    {"last_error_per_thread", test_last_error_per_thread},
    {"configure", test_configure},
    {"bad_arguments", test_bad_arguments},
    {"bad_handles", test_bad_handles},
    {"call_errors", test_call_errors},
    {"cancelled_inside_on_call", test_cancelled_inside_on_call},
    {"concurrent_callbacks", test_concurrent_callbacks},
    {"many_calls", test_many_calls},
    {"close_in_flight", test_close_in_flight},
    {"free_open_server", test_free_open_server},
    {"stdio_pipes", test_stdio_pipes},
    {"stdio_pump", test_stdio_pump},
    {"fork", test_fork},
    {"serve_http", test_serve_http},
    {"host_http", test_host_http},
    {"relocations_released", test_relocations_released},
};

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0); /* progress survives a sanitizer's exit */
  size_t n = sizeof tests / sizeof *tests;
  if (argc > 1 && strcmp(argv[1], "--list") == 0) {
    for (size_t i = 0; i < n; i++) puts(tests[i].name);
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "--version") == 0) {
    puts(polymcp_version());
    return 0;
  }
  int ran = 0;
  for (size_t i = 0; i < n; i++) {
    if (argc > 1 && strcmp(argv[1], tests[i].name) != 0) continue;
    current = tests[i].name;
    tests[i].fn();
    printf("ok %s\n", current);
    ran++;
  }
  if (ran == 0) {
    fprintf(stderr, "abi_test: no test named %s\n", argv[1]);
    return 2;
  }
  return 0;
}
