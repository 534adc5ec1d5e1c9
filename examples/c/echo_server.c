/*
 * A complete MCP server in C on libpolymcp, served over stdio:
 *
 *   echo  {text: string}  answers with the text, inline in on_call;
 *   sleep {ms: integer}   answers "slept" from a worker thread after ms
 *                         milliseconds, or stops early when on_cancel says
 *                         the client gave up.
 *
 * Build: make build-capi (see mk/capi.mk), then
 *   build/examples/c/echo_server                       # MCP on stdin/stdout
 *   build/examples/c/echo_server --http 127.0.0.1:8000 # MCP at http://127.0.0.1:8000/mcp,
 *                                                      # until stdin ends
 *   build/examples/c/echo_server --pump                # stdio, read by this thread's own
 *                                                      # poll loop (polymcp_server_stdio_pump)
 *
 * Everything the library hands us is borrowed for the callback's duration;
 * everything we hand it is copied before the function returns.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polymcp.h"

enum { TAG_ECHO = 1, TAG_SLEEP = 2 };

static const char ECHO_TOOL[] =
    "{\"name\":\"echo\",\"description\":\"Returns its text argument as one text item\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},"
    "\"required\":[\"text\"]}}";
static const char SLEEP_TOOL[] =
    "{\"name\":\"sleep\",\"description\":\"Waits ms milliseconds, then returns \\\"slept\\\"\","
    "\"inputSchema\":{\"type\":\"object\",\"properties\":{\"ms\":{\"type\":\"integer\",\"minimum\":0}},"
    "\"required\":[\"ms\"]}}";
static const char SLEPT[] = "{\"content\":[{\"type\":\"text\",\"text\":\"slept\"}]}";

/* ---- A minimal JSON scanner: enough to find a member in the params ---- */

static const char *skip_ws(const char *p, const char *end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  return p;
}

/* Returns the end of the string whose opening quote is at p: memchr finds
 * each quote, and a quote is escaped when an odd run of backslashes
 * precedes it. (Byte by byte, this loop was a quarter of the example's CPU
 * on 64 KiB texts.) */
static const char *skip_string(const char *p, const char *end) {
  const char *start = ++p;
  for (;;) {
    const char *q = memchr(p, '"', (size_t)(end - p));
    if (q == NULL) return end;
    size_t run = 0;
    while (q - run > start && q[-1 - (ptrdiff_t)run] == '\\') run++;
    if (run % 2 == 0) return q + 1;
    p = q + 1;
  }
}

/* Returns the end of the JSON value at p (the library sends valid JSON). */
static const char *skip_value(const char *p, const char *end) {
  int depth = 0;
  do {
    if (p >= end) return end;
    if (*p == '"') {
      p = skip_string(p, end);
    } else if (*p == '{' || *p == '[') {
      depth++, p++;
    } else if (*p == '}' || *p == ']') {
      depth--, p++;
    } else if (depth > 0) {
      p++;
    } else {
      while (p < end && *p != ',' && *p != '}' && *p != ']' && *p != ' ') p++;
    }
  } while (depth > 0);
  return p;
}

/* Finds member name of the object [obj, end) and sets *val..*vend to its
 * value. Returns 0 when there is no such member. */
static int member(const char *obj, const char *end, const char *name, const char **val, const char **vend) {
  size_t n = strlen(name);
  const char *p = skip_ws(obj, end);
  if (p >= end || *p != '{') return 0;
  for (p = skip_ws(p + 1, end); p < end && *p == '"'; p = skip_ws(p, end)) {
    const char *key = p + 1, *key_end = skip_value(p, end) - 1;
    p = skip_ws(key_end + 1, end);
    if (p >= end || *p != ':') return 0;
    const char *v = skip_ws(p + 1, end), *v_end = skip_value(v, end);
    if ((size_t)(key_end - key) == n && memcmp(key, name, n) == 0) {
      *val = v, *vend = v_end;
      return 1;
    }
    p = skip_ws(v_end, end);
    if (p < end && *p == ',') p++;
    p = skip_ws(p, end);
  }
  return 0;
}

/* ---- sleep: pending calls and their worker threads ---- */

struct sleeper {
  polymcp_call_t call;
  int cancelled;
  struct sleeper *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static struct sleeper *sleepers; /* guarded by mu */

struct sleep_job {
  struct sleeper *s;
  long ms;
};

static void *sleep_worker(void *arg) {
  struct sleep_job job = *(struct sleep_job *)arg;
  free(arg);
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += job.ms / 1000;
  until.tv_nsec += (job.ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;

  pthread_mutex_lock(&mu);
  while (!job.s->cancelled && pthread_cond_timedwait(&changed, &mu, &until) != ETIMEDOUT) {
  }
  for (struct sleeper **pp = &sleepers; *pp; pp = &(*pp)->next)
    if (*pp == job.s) {
      *pp = job.s->next;
      break;
    }
  int cancelled = job.s->cancelled;
  pthread_mutex_unlock(&mu);
  /* A cancelled call must not be answered; a sleep that ran out while the
   * cancel was on its way gets POLYMCP_E_UNKNOWN_CALL, which is harmless. */
  if (!cancelled) polymcp_call_complete(job.s->call, SLEPT, sizeof SLEPT - 1);
  free(job.s);
  return NULL;
}

static void start_sleep(polymcp_call_t call, const char *args, const char *end) {
  const char *v, *vend;
  long ms = member(args, end, "ms", &v, &vend) ? strtol(v, NULL, 10) : 0;
  struct sleeper *s = calloc(1, sizeof *s);
  struct sleep_job *job = malloc(sizeof *job);
  pthread_t t;
  pthread_attr_t attr;
  if (s == NULL || job == NULL) goto fail;
  s->call = call;
  job->s = s, job->ms = ms;
  pthread_mutex_lock(&mu);
  s->next = sleepers, sleepers = s;
  pthread_mutex_unlock(&mu);
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&t, &attr, sleep_worker, job);
  pthread_attr_destroy(&attr);
  if (rc == 0) return;
  pthread_mutex_lock(&mu);
  sleepers = s->next;
  pthread_mutex_unlock(&mu);
fail:
  free(s), free(job);
  polymcp_call_fail(call, 0, "cannot start a thread", 21);
}

/* ---- callbacks ---- */

static void on_call(void *user, polymcp_call_t call, uint32_t kind, uint64_t tag, const char *params,
                    size_t len) {
  (void)user, (void)kind;
  const char *end = params + len, *args, *args_end, *text, *text_end;
  if (!member(params, end, "arguments", &args, &args_end)) args = args_end = end;
  if (tag == TAG_SLEEP) {
    start_sleep(call, args, args_end);
    return;
  }
  /* echo: the text arrives as a JSON string literal, already validated
   * by the inputSchema. Without escapes, what is between its quotes is the
   * text itself: polymcp_call_complete_text takes it as it is, the
   * cheapest answer. With escapes, the literal is copied into the result's
   * JSON as it is, and the library decodes it. */
  if (!member(args, args_end, "text", &text, &text_end)) {
    polymcp_call_fail(call, 0, "text is required", 16);
    return;
  }
  if (memchr(text, '\\', (size_t)(text_end - text)) == NULL) {
    polymcp_call_complete_text(call, text + 1, (size_t)(text_end - text) - 2);
    return;
  }
  static const char head[] = "{\"content\":[{\"type\":\"text\",\"text\":", tail[] = "}]}";
  size_t n = sizeof head - 1 + (size_t)(text_end - text) + sizeof tail - 1;
  char stack[4096], *buf = n <= sizeof stack ? stack : malloc(n);
  if (buf == NULL) {
    polymcp_call_fail(call, 0, "out of memory", 13);
    return;
  }
  memcpy(buf, head, sizeof head - 1);
  memcpy(buf + sizeof head - 1, text, (size_t)(text_end - text));
  memcpy(buf + n - (sizeof tail - 1), tail, sizeof tail - 1);
  polymcp_call_complete(call, buf, n); /* copies buf before returning */
  if (buf != stack) free(buf);
}

static void on_cancel(void *user, polymcp_call_t call) {
  (void)user;
  pthread_mutex_lock(&mu);
  for (struct sleeper *s = sleepers; s; s = s->next)
    if (s->call == call) s->cancelled = 1;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&mu);
}

static void on_log(void *user, int level, const char *msg, size_t len) {
  (void)user;
  fprintf(stderr, "polymcp[%d]: %.*s\n", level, (int)len, msg); /* never stdout: it carries the protocol */
}

static void on_closed(void *user) { (void)user; }

static int check(int rc, const char *what) {
  if (rc != POLYMCP_OK) {
    const char *msg;
    size_t len;
    polymcp_last_error(&msg, &len);
    fprintf(stderr, "echo_server: %s: %d %.*s\n", what, rc, (int)len, msg);
    exit(1);
  }
  return rc;
}

static void wait_idle(polymcp_server_t s) {
  int rc;
  while ((rc = polymcp_server_wait(s, 1000)) == POLYMCP_E_TIMEOUT) {
  }
  check(rc, "wait");
}

/* Serves HTTP on addr until stdin ends (so a supervisor can stop us by
 * closing it); the URL, with the real port, goes to stderr. */
static void serve_http(polymcp_server_t s, const char *addr) {
  char opts[512], *url;
  size_t n;
  int len = snprintf(opts, sizeof opts, "{\"addr\":\"%s\"}", addr);
  if (len < 0 || (size_t)len >= sizeof opts || strpbrk(addr, "\"\\") != NULL) {
    fprintf(stderr, "echo_server: bad address %s\n", addr);
    exit(2);
  }
  check(polymcp_server_serve_http(s, opts, (size_t)len, &url, &n), "serve_http");
  fprintf(stderr, "echo_server: serving %.*s\n", (int)n, url);
  polymcp_free(url);
  while (getchar() != EOF) {
  }
}

/* Serves stdio from this thread's own event loop: it polls stdin and pumps
 * what is ready (on_call comes here, inside polymcp_server_stdio_pump), so no
 * library thread reads, until the transport ends with the input. */
static void serve_stdio_pumped(polymcp_server_t s) {
  static const char opts[] = "{\"pump\":true}";
  check(polymcp_server_serve_stdio(s, opts, sizeof opts - 1), "serve_stdio");
  struct pollfd in = {.fd = 0, .events = POLLIN};
  for (;;) {
    int rc = polymcp_server_stdio_pump(s);
    if (rc == POLYMCP_PUMP_MORE) continue; /* our answers went out; read on */
    if (rc == POLYMCP_E_CLOSED) return;
    check(rc, "stdio_pump");
    if (poll(&in, 1, -1) < 0 && errno != EINTR) {
      perror("echo_server: poll");
      exit(1);
    }
  }
}

int main(int argc, char **argv) {
  if (polymcp_abi_version() >> 16 != POLYMCP_ABI_MAJOR) {
    fprintf(stderr, "echo_server: libpolymcp ABI %u.%u, built for %d.%d\n", polymcp_abi_version() >> 16,
            polymcp_abi_version() & 0xffff, POLYMCP_ABI_MAJOR, POLYMCP_ABI_MINOR);
    return 1;
  }
  bool pump = argc == 2 && strcmp(argv[1], "--pump") == 0;
  if (argc != 1 && !pump && !(argc == 3 && strcmp(argv[1], "--http") == 0)) {
    fprintf(stderr, "usage: echo_server [--http HOST:PORT | --pump]\n");
    return 2;
  }
  static const char options[] = "{\"name\":\"polymcp-c-example\",\"version\":\"1.0.0\"}";
  polymcp_server_callbacks cb = {sizeof cb, NULL, on_call, on_cancel, on_log, on_closed};
  polymcp_server_t s;
  check(polymcp_server_new(options, sizeof options - 1, &cb, &s), "server_new");
  check(polymcp_server_add_tool(s, ECHO_TOOL, sizeof ECHO_TOOL - 1, TAG_ECHO), "add echo");
  check(polymcp_server_add_tool(s, SLEEP_TOOL, sizeof SLEEP_TOOL - 1, TAG_SLEEP), "add sleep");
  if (argc == 3) {
    serve_http(s, argv[2]);
  } else if (pump) {
    serve_stdio_pumped(s);
  } else {
    check(polymcp_server_serve_stdio(s, NULL, 0), "serve_stdio");
    wait_idle(s); /* until stdin ends */
  }
  check(polymcp_server_close(s), "close");
  wait_idle(s); /* until on_closed has run: no callback comes after it */
  check(polymcp_server_free(s), "free");
  return 0;
}
