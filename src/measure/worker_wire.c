/* worker_wire.c - the worker's setup message as bytes, and the layout of
 * the shared reference region; both ends of worker_proto.h use them. */
#include "core/util.h"
#include "measure/measure.h"
#include "measure/worker_proto.h"

#include <stdlib.h>
#include <string.h>

/* The setup's fixed head: both ends must be the same build. */
typedef struct wire_head {
    uint32_t protocol;
    uint32_t result_bytes;   /* sizeof(kt_result) */
    uint32_t opts_bytes;     /* sizeof(kt_measure_opts) */
    uint32_t nparams;
    uint64_t shared_bytes;
    uint64_t memory_limit;
} wire_head;

/* ------------------------------------------------------------- writing */

typedef struct writer {
    char *p;
    size_t len, cap;
    bool oom;
} writer;

static void put(writer *w, const void *data, size_t n)
{
    if (w->oom)
        return;
    if (w->len + n > w->cap) {
        size_t cap = (w->len + n) * 2 + 64;
        char *p = realloc(w->p, cap);
        if (!p) {
            w->oom = true;
            return;
        }
        w->p = p;
        w->cap = cap;
    }
    memcpy(w->p + w->len, data, n);
    w->len += n;
}

/* A string as u32 length + bytes; NULL as length UINT32_MAX. */
static void put_str(writer *w, const char *s)
{
    uint32_t n = s ? (uint32_t)strlen(s) : UINT32_MAX;
    put(w, &n, sizeof n);
    if (s)
        put(w, s, n);
}

int worker_setup_encode(const worker_setup *s, char **out, size_t *len)
{
    writer w = {0};
    wire_head h = {.protocol = WORKER_PROTOCOL, .result_bytes = sizeof(kt_result),
                   .opts_bytes = sizeof(kt_measure_opts), .nparams = (uint32_t)s->nparams,
                   .shared_bytes = s->shared_bytes, .memory_limit = s->memory_limit};
    kt_measure_opts o = s->opts;
    o.worker_path = NULL; /* a pointer means nothing in another process */
    put(&w, &h, sizeof h);
    put(&w, &o, sizeof o);
    const char *strs[] = {s->spec_path, s->source_hash, s->problem, s->backend,
                          s->cache_dir, s->compiler, s->arch, s->platform, s->ref_artifact};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        put_str(&w, strs[i]);
    put(&w, &s->device, sizeof s->device);
    put(&w, s->ref_cfg, s->nparams * sizeof *s->ref_cfg);
    if (w.oom) {
        free(w.p);
        return KT_ENOMEM;
    }
    *out = w.p;
    *len = w.len;
    return KT_OK;
}

/* ------------------------------------------------------------- reading */

typedef struct reader {
    const char *p;
    size_t left;
    bool bad;
} reader;

static void get(reader *r, void *data, size_t n)
{
    if (r->bad || n > r->left) {
        r->bad = true;
        memset(data, 0, n);
        return;
    }
    memcpy(data, r->p, n);
    r->p += n;
    r->left -= n;
}

static char *get_str(reader *r)
{
    uint32_t n = 0;
    get(r, &n, sizeof n);
    if (r->bad || n == UINT32_MAX)
        return NULL;
    if (n > r->left) {
        r->bad = true;
        return NULL;
    }
    char *s = kt_strndup(r->p, n);
    r->p += n;
    r->left -= n;
    r->bad |= !s;
    return s;
}

int worker_setup_decode(const char *buf, size_t len, worker_setup *s, kt_diag *diag)
{
    *s = (worker_setup){0};
    reader r = {.p = buf, .left = len};
    wire_head h;
    get(&r, &h, sizeof h);
    if (r.bad || h.protocol != WORKER_PROTOCOL || h.result_bytes != sizeof(kt_result) ||
        h.opts_bytes != sizeof(kt_measure_opts))
        return kt_fail(diag, KT_EFORMAT, "the worker program is from another build of "
                       "ktune (protocol %u); install matching ktune and ktune-worker",
                       h.protocol);
    get(&r, &s->opts, sizeof s->opts);
    s->nparams = h.nparams;
    s->shared_bytes = h.shared_bytes;
    s->memory_limit = h.memory_limit;
    char **strs[] = {&s->spec_path, &s->source_hash, &s->problem, &s->backend,
                     &s->cache_dir, &s->compiler, &s->arch, &s->platform, &s->ref_artifact};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        *strs[i] = get_str(&r);
    get(&r, &s->device, sizeof s->device);
    s->ref_cfg = calloc(s->nparams + 1, sizeof *s->ref_cfg);
    if (s->ref_cfg)
        get(&r, s->ref_cfg, s->nparams * sizeof *s->ref_cfg);
    if (r.bad || !s->ref_cfg || !s->spec_path || !s->problem || !s->backend ||
        !s->ref_artifact) {
        worker_setup_clear(s);
        return kt_fail(diag, KT_EFORMAT, "the worker's setup message is malformed");
    }
    return KT_OK;
}

void worker_setup_clear(worker_setup *s)
{
    char *strs[] = {s->spec_path, s->source_hash, s->problem, s->backend,
                    s->cache_dir, s->compiler, s->arch, s->platform, s->ref_artifact};
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        free(strs[i]);
    free(s->ref_cfg);
    *s = (worker_setup){0};
}

/* ---------------------------------------------------------- the region */

bool worker_is_output(const kt_arg *a) { return !a->scalar && a->access != KT_READ; }

size_t worker_ref_offsets(const kt_spec *spec, const kt_args *args, size_t *offsets)
{
    size_t total = sizeof(shared_head);
    for (size_t i = 0; i < spec->nargs; i++) {
        offsets[i] = 0;
        if (!worker_is_output(&spec->args[i]))
            continue;
        offsets[i] = total;
        total += (args->bytes[i] + 63) & ~(size_t)63;
    }
    return total;
}
