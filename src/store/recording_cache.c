/* recording_cache.c - a recording file's rows kept by its content
 * (recording_cache.h).
 *
 * An entry, native byte order (it never leaves the machine):
 *   "KTRCACHE", u32 version, u32 0x01020304 (another byte order misses),
 *   u64 key hash, u64 key size, u64 payload bytes, u64 payload hash;
 *   payload: the names (kind, kernel, device, problem, lists), u64 rows,
 *   then per row its key, status, signal, reps, detail and the doubles of
 *   RESULT_DOUBLES.  A string is u32 length, its bytes and a NUL, so that
 *   the names are read in place.
 */
#include "store/recording_cache.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "KTRCACHE"
#define VERSION 2u /* 2: T4 rows carry their energy and power */
#define ORDER 0x01020304u
#define HEAD_BYTES 48

/* kt_result's doubles, in the order an entry holds them. */
static const size_t RESULT_DOUBLES[] = {
    offsetof(kt_result, time_ms),      offsetof(kt_result, min_ms),
    offsetof(kt_result, spread),       offsetof(kt_result, compile_ms),
    offsetof(kt_result, energy_j),     offsetof(kt_result, power_w),
    offsetof(kt_result, sm_clock_mhz), offsetof(kt_result, max_error),
};
#define NDOUBLES (sizeof RESULT_DOUBLES / sizeof *RESULT_DOUBLES)

/* ----------------------------------------------------------------- hash */

/* A 64-bit hash of len bytes, eight at a time in four lanes (FNV-1a's byte
 * at a time takes 15-20 ms on 16 MB, this 2-3 ms); for telling contents
 * apart, not for security. */
static uint64_t content_hash(const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t lane[4] = {KT_HASH_INIT, 0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
                        0x94d049bb133111ebULL};
    size_t i = 0;
    for (; i + 32 <= len; i += 32)
        for (int k = 0; k < 4; k++) {
            uint64_t w;
            memcpy(&w, p + i + 8 * k, 8);
            lane[k] = (lane[k] ^ w) * 0x9e3779b97f4a7c15ULL;
            lane[k] ^= lane[k] >> 29;
        }
    uint64_t h = kt_hash(KT_HASH_INIT, p + i, len - i);
    for (int k = 0; k < 4; k++)
        h = kt_hash(h, &lane[k], sizeof lane[k]);
    return kt_hash(h, &len, sizeof len);
}

int kt_rcache_key_of(const char *path, kt_rcache_key *key, kt_diag *diag)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return kt_fail(diag, KT_EIO, "cannot open '%s': %s", path, strerror(e));
    }
    size_t len = (size_t)st.st_size;
    void *map = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0) : NULL;
    close(fd);
    if (len && map == MAP_FAILED)
        return kt_fail(diag, KT_EIO, "cannot read '%s': %s", path, strerror(errno));
    *key = (kt_rcache_key){.hash = content_hash(map, len), .size = len};
    if (len)
        munmap(map, len);
    return KT_OK;
}

static char *entry_path(const char *dir, kt_rcache_key key)
{
    return kt_asprintf("%s/%016llx.ktrec", dir, (unsigned long long)key.hash);
}

/* ---------------------------------------------------------------- write */

/* A growing entry. */
typedef struct out {
    char *data;
    size_t len, cap;
    bool oom;
} out;

static void put(out *o, const void *bytes, size_t n)
{
    if (o->oom)
        return;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 1 << 16;
        while (cap < o->len + n)
            cap *= 2;
        char *grown = realloc(o->data, cap);
        if (!grown) {
            o->oom = true;
            return;
        }
        o->data = grown;
        o->cap = cap;
    }
    memcpy(o->data + o->len, bytes, n);
    o->len += n;
}

static void put_u32(out *o, uint32_t v) { put(o, &v, sizeof v); }
static void put_u64(out *o, uint64_t v) { put(o, &v, sizeof v); }

static void put_str(out *o, const char *s)
{
    size_t n = strlen(s);
    put_u32(o, (uint32_t)n);
    put(o, s, n + 1);
}

static void put_row(out *o, const char *config, const kt_result *r)
{
    put_str(o, config);
    put_u32(o, (uint32_t)r->status);
    put_u32(o, (uint32_t)r->signal);
    put_u32(o, (uint32_t)r->reps);
    char detail[sizeof r->detail];
    kt_strlcpy(detail, sizeof detail, r->detail);
    put_str(o, detail);
    for (size_t i = 0; i < NDOUBLES; i++)
        put(o, (const char *)r + RESULT_DOUBLES[i], sizeof(double));
}

/* The whole entry: head, then payload. */
static void put_entry(out *o, kt_rcache_key key, const kt_rcache_names *names,
                      const kt_replay *replay)
{
    put(o, MAGIC, 8);
    put_u32(o, VERSION);
    put_u32(o, ORDER);
    put_u64(o, key.hash);
    put_u64(o, key.size);
    put_u64(o, 0); /* the payload's length and hash, filled in below */
    put_u64(o, 0);
    const char *texts[] = {names->kind, names->kernel, names->device, names->problem,
                           names->lists};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        put_str(o, texts[i]);
    size_t n = kt_replay_size(replay);
    put_u64(o, n);
    for (size_t i = 0; i < n; i++) {
        kt_result r;
        const char *config = kt_replay_row(replay, i, &r);
        put_row(o, config, &r);
    }
    if (o->oom)
        return;
    uint64_t len = o->len - HEAD_BYTES, hash = content_hash(o->data + HEAD_BYTES, len);
    memcpy(o->data + HEAD_BYTES - 16, &len, 8);
    memcpy(o->data + HEAD_BYTES - 8, &hash, 8);
}

/* data written to path through a temporary file renamed into place. */
static int write_atomic(const char *dir, const char *path, const out *o, kt_diag *diag)
{
    char *tmp = kt_asprintf("%s.%ld.tmp", path, (long)getpid());
    if (!tmp)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_mkdir_p(dir, diag);
    FILE *f = rc == KT_OK ? fopen(tmp, "wb") : NULL;
    bool ok = f && fwrite(o->data, 1, o->len, f) == o->len;
    ok = f && fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0;
    if (rc == KT_OK && !ok) {
        rc = kt_fail(diag, KT_EIO, "cannot write '%s': %s", path, strerror(errno));
        unlink(tmp);
    }
    free(tmp);
    return rc;
}

int kt_rcache_save(const char *dir, kt_rcache_key key, const kt_rcache_names *names,
                   const kt_replay *replay, kt_diag *diag)
{
    out o = {0};
    put_entry(&o, key, names, replay);
    char *path = o.oom ? NULL : entry_path(dir, key);
    int rc = path ? write_atomic(dir, path, &o, diag)
                  : kt_fail(diag, KT_ENOMEM, "out of memory");
    free(path);
    free(o.data);
    return rc;
}

/* ----------------------------------------------------------------- read */

/* A bounds-checked reader of an entry: once bad, every read gives zeros. */
typedef struct cursor {
    const char *p, *end;
    bool bad;
} cursor;

static const char *get(cursor *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        return NULL;
    }
    const char *at = c->p;
    c->p += n;
    return at;
}

/* n bytes into dst (zeros once the entry is bad). */
static void get_to(cursor *c, void *dst, size_t n)
{
    const char *at = get(c, n);
    if (at)
        memcpy(dst, at, n);
    else
        memset(dst, 0, n);
}

static uint32_t get_u32(cursor *c)
{
    uint32_t v;
    get_to(c, &v, sizeof v);
    return v;
}

static uint64_t get_u64(cursor *c)
{
    uint64_t v;
    get_to(c, &v, sizeof v);
    return v;
}

/* A string in place (NUL-ended, no NUL inside), its length into *len. */
static const char *get_str(cursor *c, size_t *len)
{
    *len = get_u32(c);
    const char *s = get(c, *len + 1);
    if (s && strlen(s) != *len)
        c->bad = true;
    return c->bad ? "" : s;
}

/* One row; false when the entry is bad. */
static bool get_row(cursor *c, const char **config, kt_result *r)
{
    size_t len;
    *r = (kt_result){0};
    *config = get_str(c, &len);
    uint32_t status = get_u32(c);
    r->status = (kt_status)status;
    r->signal = (int)get_u32(c);
    r->reps = (int)get_u32(c);
    const char *detail = get_str(c, &len);
    if (status >= KT_STATUS_COUNT || len >= sizeof r->detail)
        c->bad = true;
    else
        memcpy(r->detail, detail, len + 1);
    for (size_t i = 0; i < NDOUBLES; i++)
        get_to(c, (char *)r + RESULT_DOUBLES[i], sizeof(double));
    return !c->bad;
}

/* Does the entry's head promise what key asks, and does its payload hash
 * as the head says?  The cursor is left at the payload. */
static bool head_ok(cursor *c, kt_rcache_key key)
{
    const char *magic = get(c, 8);
    bool ok = magic && memcmp(magic, MAGIC, 8) == 0 && get_u32(c) == VERSION &&
              get_u32(c) == ORDER && get_u64(c) == key.hash && get_u64(c) == key.size;
    uint64_t len = get_u64(c), hash = get_u64(c);
    return ok && !c->bad && len == (uint64_t)(c->end - c->p) &&
           content_hash(c->p, (size_t)len) == hash;
}

/* The names at the cursor; false when the entry is bad. */
static bool get_names(cursor *c, kt_rcache_names *names)
{
    size_t len;
    const char **texts[] = {&names->kind, &names->kernel, &names->device, &names->problem,
                            &names->lists};
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        *texts[i] = get_str(c, &len);
    return !c->bad;
}

int kt_rcache_load(const char *dir, kt_rcache_key key, kt_rcache_names *names, char **blob,
                   kt_rcache_row_fn fn, void *user, kt_diag *diag)
{
    kt_diag ignored = {{0}};
    char *path = entry_path(dir, key);
    size_t len = 0;
    *blob = NULL;
    *names = (kt_rcache_names){0};
    if (!path)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_read_file(path, blob, &len, &ignored);
    free(path);
    cursor c = {.p = *blob, .end = *blob + len};
    if (rc != KT_OK || !head_ok(&c, key) || !get_names(&c, names))
        return KT_ENOTFOUND;
    uint64_t n = get_u64(&c);
    /* the hash checked the whole entry: a bad row past this point would be
     * a writer's bug, still refused before it is used */
    for (uint64_t i = 0; rc == KT_OK && i < n; i++) {
        const char *config;
        kt_result r;
        if (!get_row(&c, &config, &r))
            return KT_ENOTFOUND;
        char *own = kt_strdup(config);
        rc = own ? fn(user, own, &r) : kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    return rc == KT_OK && c.p != c.end ? KT_ENOTFOUND : rc;
}
