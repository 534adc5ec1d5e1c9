/*
 * echo_client: an MCP client in C over libpolymcp (polymcp.h, ABI 1.8).
 *
 *   echo_client -- CMD ARGS...   start CMD as a stdio server
 *   echo_client --http URL       a Streamable HTTP (or HTTP+SSE) server
 *
 * It connects (the library negotiates the revision), prints the revision
 * and the tools the server lists, calls echo {"text": "hello from C"} and
 * prints the answer, answers the server's sampling questions with a fixed
 * reply, and closes. Each request is answered through on_response on a
 * library thread; main waits for its tag. Exit 0 when every step worked.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "polymcp.h"

#define S(lit) lit, sizeof(lit) - 1

/* What the callbacks share with main. */
struct state {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  uint64_t tag;  /* the tag answered last */
  int rc;        /* its rc */
  char *json;    /* its result or error object (malloc'd) */
  int closed;    /* on_closed came */
  int questions; /* sampling questions answered */
};

static void on_response(void *user, uint64_t tag, int rc, const char *json, size_t len) {
  struct state *s = user;
  pthread_mutex_lock(&s->mu);
  free(s->json);
  s->json = malloc(len + 1);
  memcpy(s->json, json, len); /* json is borrowed for this call only */
  s->json[len] = 0;
  s->tag = tag;
  s->rc = rc;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* A sampling question: answer it at once (a real host would ask its model,
 * from any thread, and answer later). */
static void on_question(void *user, polymcp_question_t q, const char *method, size_t mlen, const char *params,
                        size_t plen) {
  struct state *s = user;
  (void)params;
  (void)plen;
  if (mlen == strlen("sampling/createMessage") && memcmp(method, "sampling/createMessage", mlen) == 0) {
    static const char reply[] =
        "{\"role\":\"assistant\",\"content\":{\"type\":\"text\",\"text\":\"a reply from C\"},\"model\":\"c-model\"}";
    polymcp_client_answer(q, S(reply));
    pthread_mutex_lock(&s->mu);
    s->questions++;
    pthread_mutex_unlock(&s->mu);
    return;
  }
  polymcp_client_answer_error(q, -32601, S("echo_client answers sampling only"));
}

static void on_closed(void *user, int rc, const char *msg, size_t len) {
  struct state *s = user;
  if (rc != POLYMCP_OK) fprintf(stderr, "echo_client: connection ended: %.*s\n", (int)len, msg);
  pthread_mutex_lock(&s->mu);
  s->closed = 1;
  pthread_cond_broadcast(&s->cv);
  pthread_mutex_unlock(&s->mu);
}

/* Waits for the answer of tag (30 s at most); returns its rc. */
static int wait_for(struct state *s, uint64_t tag) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += 30;
  pthread_mutex_lock(&s->mu);
  while (s->tag != tag) {
    if (pthread_cond_timedwait(&s->cv, &s->mu, &until) != 0) {
      pthread_mutex_unlock(&s->mu);
      fprintf(stderr, "echo_client: no answer to request %llu\n", (unsigned long long)tag);
      return POLYMCP_E_TIMEOUT;
    }
  }
  int rc = s->rc;
  pthread_mutex_unlock(&s->mu);
  return rc;
}

/* Sends one request and waits for it; prints the error on failure. */
static int request(struct state *s, polymcp_client_t c, uint64_t tag, const char *method, const char *params) {
  int rc = polymcp_client_request(c, method, strlen(method), params, params ? strlen(params) : 0, NULL, 0, tag);
  if (rc == POLYMCP_OK) rc = wait_for(s, tag);
  if (rc != POLYMCP_OK) fprintf(stderr, "echo_client: %s failed (%d): %s\n", method, rc, s->json ? s->json : "");
  return rc;
}

/* Builds the options JSON: {"command":[...]} or {"url":...}, and sampling. */
static char *options(int argc, char **argv) {
  size_t n = 64;
  for (int i = 1; i < argc; i++) n += 3 * strlen(argv[i]) + 4;
  char *o = malloc(n);
  if (argc == 3 && strcmp(argv[1], "--http") == 0) {
    snprintf(o, n, "{\"url\":\"%s\",\"sampling\":true}", argv[2]);
    return o;
  }
  if (argc < 3 || strcmp(argv[1], "--") != 0) {
    free(o);
    return NULL;
  }
  strcpy(o, "{\"sampling\":true,\"command\":[");
  for (int i = 2; i < argc; i++) {
    strcat(o, i > 2 ? ",\"" : "\"");
    for (const char *p = argv[i]; *p; p++) { /* JSON string escapes */
      if (*p == '"' || *p == '\\') strncat(o, "\\", 2);
      strncat(o, p, 1);
    }
    strcat(o, "\"");
  }
  strcat(o, "]}");
  return o;
}

int main(int argc, char **argv) {
  char *opts = options(argc, argv);
  if (opts == NULL) {
    fprintf(stderr, "usage: echo_client -- CMD ARGS... | echo_client --http URL\n");
    return 2;
  }
  struct state s = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
  polymcp_client_callbacks cb = {.struct_size = sizeof cb, .user = &s, .on_response = on_response,
                                 .on_question = on_question, .on_closed = on_closed};
  polymcp_client_t c = 0;
  int rc = polymcp_client_connect(opts, strlen(opts), &cb, 1, &c);
  free(opts);
  if (rc != POLYMCP_OK) {
    const char *msg;
    size_t len;
    polymcp_last_error(&msg, &len);
    fprintf(stderr, "echo_client: %.*s\n", (int)len, msg);
    return 1;
  }
  int failed = wait_for(&s, 1) != POLYMCP_OK;
  if (failed) fprintf(stderr, "echo_client: connect failed: %s\n", s.json);
  else printf("connected: %s\n", s.json);
  if (!failed) failed = request(&s, c, 2, "tools/list", NULL) != POLYMCP_OK;
  if (!failed) printf("tools: %.120s%s\n", s.json, strlen(s.json) > 120 ? "..." : "");
  if (!failed) failed = request(&s, c, 3, "tools/call", "{\"name\":\"echo\",\"arguments\":{\"text\":\"hello from C\"}}");
  if (!failed) printf("echo: %s\n", s.json);
  if (!failed && strstr(argv[argc - 1], "everything") != NULL) {
    /* The everything example's sampling tool asks this client's model. */
    failed = request(&s, c, 4, "tools/call", "{\"name\":\"test_sampling\",\"arguments\":{\"prompt\":\"hi\"}}");
    if (!failed) printf("sampling: %s (questions answered: %d)\n", s.json, s.questions);
  }

  polymcp_client_close(c);
  pthread_mutex_lock(&s.mu);
  while (!s.closed) pthread_cond_wait(&s.cv, &s.mu);
  pthread_mutex_unlock(&s.mu);
  polymcp_client_free(c);
  free(s.json);
  return failed ? 1 : 0;
}
