/* Internal glue between polymcp.h's C functions (abi.c) and the Go
 * exports (pmcpgo_*). Nothing here is exported from the library: the
 * version script keeps only polymcp_*. */
#ifndef PMCP_SHIM_H
#define PMCP_SHIM_H

#include <stdint.h>
#include <stdlib.h>
#include "include/polymcp.h"

/* Records this thread's last failure; copies msg. Returns code. */
int pmcp_set_error(int code, const char *msg, size_t len);

/* A malloc'd copy of b with a NUL after len bytes; NULL if out of memory. */
char *pmcp_dup(const char *b, size_t len);
/* relocs.c: hands back the pages of the library's read-only segments. */
void pmcp_release_readonly(void);

/* Copies a host's callbacks struct; NULL (with the error recorded) if it
 * is unusable. */
polymcp_server_callbacks *pmcp_copy_callbacks(const polymcp_server_callbacks *cb);

/* Calls into the host, counting the callback depth of the thread. */
void pmcp_on_call(const polymcp_server_callbacks *cb, uint64_t call, uint32_t kind, uint64_t tag,
                  const char *params, size_t len);
void pmcp_on_cancel(const polymcp_server_callbacks *cb, uint64_t call);
void pmcp_on_log(const polymcp_server_callbacks *cb, int level, const char *msg, size_t len);
void pmcp_on_closed(const polymcp_server_callbacks *cb);
void pmcp_send(polymcp_send_fn fn, void *user, const char *msg, size_t len);

/* Copies an HTTP exchange's callbacks; NULL (error recorded) if unusable. */
polymcp_http_callbacks *pmcp_copy_http_callbacks(const polymcp_http_callbacks *cb);
void pmcp_http_start(const polymcp_http_callbacks *cb, int status, const char *headers, size_t len);
void pmcp_http_write(const polymcp_http_callbacks *cb, const char *chunk, size_t len);
void pmcp_http_flush(const polymcp_http_callbacks *cb);
void pmcp_http_end(polymcp_http_callbacks *cb, int rc); /* frees cb */

/* The client half (ABI 1.8). */
polymcp_client_callbacks *pmcp_copy_client_callbacks(const polymcp_client_callbacks *cb);
void pmcp_client_response(const polymcp_client_callbacks *cb, uint64_t tag, int rc, const char *json, size_t len);
void pmcp_client_notification(const polymcp_client_callbacks *cb, const char *method, size_t mlen,
                              const char *params, size_t plen);
void pmcp_client_progress(const polymcp_client_callbacks *cb, uint64_t tag, const char *params, size_t len);
void pmcp_client_question(const polymcp_client_callbacks *cb, uint64_t q, const char *method, size_t mlen,
                          const char *params, size_t plen);
void pmcp_client_question_cancel(const polymcp_client_callbacks *cb, uint64_t q);
void pmcp_client_closed(const polymcp_client_callbacks *cb, int rc, const char *msg, size_t len);

#endif
