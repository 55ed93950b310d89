/* util.h - small helpers every layer uses: diagnostics, strings, files,
 * content hashing, and a monotonic clock. */
#ifndef KT_UTIL_H
#define KT_UTIL_H

#include "core/base.h"

#include <stdarg.h>

#define KT_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Write a formatted message into diag (if not NULL) and return code, so a
 * failure is reported in one line: `return kt_fail(d, KT_EIO, "...", ...)`.
 * A message too long for diag loses its middle, not its end: the head
 * (file:line:col, subject) and the tail (the reason) are kept. */
int kt_fail(kt_diag *diag, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Send "where: warning: <message>" (one line) to warn with user; nothing
 * when warn is NULL.  The library's warnings all take this form. */
void kt_warn(ktune_warn_fn warn, void *user, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void kt_vwarn(ktune_warn_fn warn, void *user, const char *where, const char *fmt,
              va_list ap);

/* The first of n relative paths (places) that ok accepts, looked for in
 * the folder of the running program's file, then in that of the file
 * holding this code (libktune.so: a program linked with it lives
 * anywhere), into out (size bytes); false when none is. */
bool kt_find_near_self(const char *const *places, size_t n, bool (*ok)(const char *path),
                       char *out, size_t size);

/* Prefix diag's message with "prefix: " (for adding context on the way up). */
void kt_diag_prefix(kt_diag *diag, const char *prefix);

/* Copy src into dst (size n > 0), truncating; always NUL-terminated. */
void kt_strlcpy(char *dst, size_t n, const char *src);

/* Heap copies; NULL on allocation failure. */
char *kt_strdup(const char *s);
char *kt_strndup(const char *s, size_t n);
char *kt_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *kt_vasprintf(const char *fmt, va_list ap);

/* A growable string. */
typedef struct kt_buf {
    char *data;
    size_t len, cap;
    bool oom;   /* set once an append failed; data stays consistent */
} kt_buf;

void kt_buf_append(kt_buf *b, const char *s);
void kt_buf_appendf(kt_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Take ownership of the string (NULL if an append failed); b is reset. */
char *kt_buf_take(kt_buf *b);

/* Split a key "A=1,B=x" (problems, configurations, filters) into names and
 * values, both arrays of n heap strings.  KT_EINVAL when an item lacks '=';
 * on failure the caller gets nothing to free. */
int kt_key_fields(const char *key, char ***names, char ***values, size_t *n);
void kt_key_fields_free(char **names, char **values, size_t n);

/* Read exactly n bytes from fd, retrying after signals; false on end of
 * file or error. */
bool kt_read_all(int fd, void *buf, size_t n);
/* Send exactly n bytes on socket fd, retrying after signals; false when the
 * peer is gone.  Never raises SIGPIPE: a dead peer is an ordinary outcome. */
bool kt_send_all(int fd, const void *buf, size_t n);

/* Read a whole file, NUL-terminated.  KT_EIO with the path and strerror. */
int kt_read_file(const char *path, char **out, size_t *len, kt_diag *diag);

/* 64-bit FNV-1a, chained through h (start with KT_HASH_INIT).  Used for
 * content-addressed caches and source identity, not for security. */
#define KT_HASH_INIT 0xcbf29ce484222325ULL
uint64_t kt_hash(uint64_t h, const void *data, size_t len);
uint64_t kt_hash_str(uint64_t h, const char *s);

/* Seconds on a monotonic clock. */
double kt_now(void);

/* Create a directory and its parents (like mkdir -p). */
int kt_mkdir_p(const char *path, kt_diag *diag);

#endif /* KT_UTIL_H */
