/* util.c - diagnostics, strings, files, hashing and time helpers. */
#include "core/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether byte c continues a UTF-8 character (10xxxxxx). */
static bool utf8_continues(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

/* Store text in diag.  A text longer than the buffer keeps its head (the
 * file:line:col and the subject) and its tail (the reason), cut in the
 * middle at character boundaries: the subject quoted in the middle, such
 * as a long expression, is what can best be spared. */
static void diag_store(kt_diag *diag, const char *text)
{
    static const char cut[] = " [...] ";
    size_t len = strlen(text), cap = sizeof diag->msg - 1;
    if (len <= cap) {
        memcpy(diag->msg, text, len + 1);
        return;
    }
    size_t keep = cap - (sizeof cut - 1), head = keep / 2, from = len - (keep - head);
    while (head > 0 && utf8_continues(text[head]))
        head--;
    while (from < len && utf8_continues(text[from]))
        from++;
    memcpy(diag->msg, text, head);
    memcpy(diag->msg + head, cut, sizeof cut - 1);
    memcpy(diag->msg + head + sizeof cut - 1, text + from, len - from + 1);
}

void kt_vwarn(ktune_warn_fn warn, void *user, const char *where, const char *fmt,
              va_list ap)
{
    if (!warn)
        return;
    char what[400], msg[512];
    vsnprintf(what, sizeof what, fmt, ap);
    snprintf(msg, sizeof msg, "%s: warning: %s", where, what);
    warn(user, msg);
}

void kt_warn(ktune_warn_fn warn, void *user, const char *where, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kt_vwarn(warn, user, where, fmt, ap);
    va_end(ap);
}

int kt_fail(kt_diag *diag, int code, const char *fmt, ...)
{
    if (!diag)
        return code;
    va_list ap;
    va_start(ap, fmt);
    char *text = kt_vasprintf(fmt, ap);
    va_end(ap);
    if (text) {
        diag_store(diag, text);
    } else { /* out of memory: the head at least */
        va_start(ap, fmt);
        vsnprintf(diag->msg, sizeof diag->msg, fmt, ap);
        va_end(ap);
    }
    free(text);
    return code;
}

void kt_diag_prefix(kt_diag *diag, const char *prefix)
{
    if (!diag)
        return;
    char *text = kt_asprintf("%s: %s", prefix, diag->msg);
    if (text)
        diag_store(diag, text);
    free(text);
}

void kt_strlcpy(char *dst, size_t n, const char *src)
{
    size_t len = strnlen(src, n - 1);
    memcpy(dst, src, len);
    dst[len] = '\0';
}

char *kt_strdup(const char *s)
{
    return s ? kt_strndup(s, strlen(s)) : NULL;
}

char *kt_strndup(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *kt_vasprintf(const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return NULL;
    char *p = malloc((size_t)n + 1);
    if (p)
        vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *kt_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = kt_vasprintf(fmt, ap);
    va_end(ap);
    return p;
}

static bool buf_reserve(kt_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    if (b->len + extra + 1 <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void kt_buf_append(kt_buf *b, const char *s)
{
    size_t n = strlen(s);
    if (!buf_reserve(b, n))
        return;
    memcpy(b->data + b->len, s, n + 1);
    b->len += n;
}

void kt_buf_appendf(kt_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = kt_vasprintf(fmt, ap);
    va_end(ap);
    if (!p) {
        b->oom = true;
        return;
    }
    kt_buf_append(b, p);
    free(p);
}

char *kt_buf_take(kt_buf *b)
{
    char *p = b->oom ? NULL : b->data;
    if (b->oom)
        free(b->data);
    if (p == NULL && !b->oom)
        p = kt_strdup("");
    *b = (kt_buf){0};
    return p;
}

int kt_read_file(const char *path, char **out, size_t *len, kt_diag *diag)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return kt_fail(diag, KT_EIO, "cannot open '%s': %s", path,
                       strerror(errno));
    kt_buf b = {0};
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (!buf_reserve(&b, n))
            break;
        memcpy(b.data + b.len, chunk, n);
        b.len += n;
        b.data[b.len] = '\0';
    }
    bool err = ferror(f) != 0;
    fclose(f);
    size_t total = b.len;
    char *data = kt_buf_take(&b);
    if (!data)
        return kt_fail(diag, KT_ENOMEM, "out of memory reading '%s'", path);
    if (err) {
        free(data);
        return kt_fail(diag, KT_EIO, "cannot read '%s'", path);
    }
    *out = data;
    if (len)
        *len = total;
    return KT_OK;
}

/* Move exactly n bytes through fd: sent (a socket, no SIGPIPE) or read. */
static bool transfer_all(int fd, char *p, size_t n, bool sending)
{
    while (n > 0) {
        ssize_t k = sending ? send(fd, p, n, MSG_NOSIGNAL) : read(fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        p += k;
        n -= (size_t)k;
    }
    return true;
}

bool kt_read_all(int fd, void *buf, size_t n) { return transfer_all(fd, buf, n, false); }

bool kt_send_all(int fd, const void *buf, size_t n)
{
    return transfer_all(fd, (char *)buf, n, true);
}

uint64_t kt_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t kt_hash_str(uint64_t h, const char *s)
{
    /* Include the terminator so ("ab","c") and ("a","bc") differ. */
    return kt_hash(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

double kt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int kt_mkdir_p(const char *path, kt_diag *diag)
{
    char *p = kt_strdup(path);
    if (!p)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (char *s = p + 1;; s++) {
        bool end = *s == '\0';
        if (*s == '/' || end) {
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                int e = errno;
                free(p);
                return kt_fail(diag, KT_EIO, "cannot create directory '%s': %s",
                               path, strerror(e));
            }
            if (end)
                break;
            *s = '/';
        }
    }
    free(p);
    return KT_OK;
}

/* ------------------------------------------------------------------ keys */

void kt_key_fields_free(char **names, char **values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(names ? names[i] : NULL);
        free(values ? values[i] : NULL);
    }
    free(names);
    free(values);
}

int kt_key_fields(const char *key, char ***names, char ***values, size_t *n)
{
    size_t cap = 1;
    for (const char *c = key; *c; c++)
        cap += *c == ',';
    char **nm = calloc(cap, sizeof *nm), **vl = calloc(cap, sizeof *vl);
    size_t k = 0;
    int rc = nm && vl ? KT_OK : KT_ENOMEM;
    for (const char *s = key; rc == KT_OK && *s;) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        if (!eq) {
            rc = KT_EINVAL;
            break;
        }
        nm[k] = kt_strndup(s, (size_t)(eq - s));
        vl[k] = kt_strndup(eq + 1, len - (size_t)(eq - s) - 1);
        rc = nm[k] && vl[k++] ? KT_OK : KT_ENOMEM;
        s += len + (s[len] == ',');
    }
    if (rc != KT_OK) { /* the caller gets nothing to free */
        kt_key_fields_free(nm, vl, k);
        nm = vl = NULL;
        k = 0;
    }
    *names = nm;
    *values = vl;
    *n = k;
    return rc;
}


/* The first of places that ok accepts in the folder of the file at path. */
static bool find_near(const char *path, const char *const *places, size_t n,
                      bool (*ok)(const char *), char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    for (size_t i = 0; slash && i < n; i++) {
        snprintf(out, size, "%.*s/%s", (int)(slash - path), path, places[i]);
        if (ok(out))
            return true;
    }
    return false;
}

bool kt_find_near_self(const char *const *places, size_t n, bool (*ok)(const char *path),
                       char *out, size_t size)
{
    char self[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    self[len > 0 ? len : 0] = '\0';
    Dl_info lib = {0};
    bool in_lib = dladdr((void *)kt_find_near_self, &lib) && lib.dli_fname &&
                  lib.dli_fname[0] == '/';
    return find_near(self, places, n, ok, out, size) ||
           (in_lib && find_near(lib.dli_fname, places, n, ok, out, size));
}
