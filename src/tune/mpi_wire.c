/* mpi_wire.c - the messages of a distributed run as bytes (mpi_wire.h):
 * a header (magic, version, kind), then the kind's fields in a fixed
 * order, strings as a 16-bit length and their bytes. */
#include "tune/mpi_wire.h"
#include "core/util.h"

#include <string.h>

#define MAGIC 0x504d746bu /* "ktMP" */

/* A bounded cursor over a buffer: a write or read past the end sets bad. */
typedef struct cursor {
    unsigned char *w;       /* writing */
    const unsigned char *r; /* reading */
    size_t at, cap;
    bool bad;
} cursor;

static void put(cursor *c, const void *p, size_t n)
{
    if (c->bad || n > c->cap - c->at) {
        c->bad = true;
        return;
    }
    memcpy(c->w + c->at, p, n);
    c->at += n;
}

static void get(cursor *c, void *p, size_t n)
{
    if (c->bad || n > c->cap - c->at) {
        c->bad = true;
        memset(p, 0, n);
        return;
    }
    memcpy(p, c->r + c->at, n);
    c->at += n;
}

static void put_text(cursor *c, const char *s, size_t max)
{
    uint16_t n = (uint16_t)strnlen(s, max - 1);
    put(c, &n, sizeof n);
    put(c, s, n);
}

static void get_text(cursor *c, char *s, size_t max)
{
    uint16_t n = 0;
    get(c, &n, sizeof n);
    c->bad = c->bad || n >= max;
    get(c, s, c->bad ? 0 : n);
    c->bad = c->bad || memchr(s, '\0', n) != NULL; /* a text ends at its length */
    s[c->bad ? 0 : n] = '\0';
}

/* The result's numbers, in one order for both directions. */
#define RESULT_DOUBLES(r) \
    { &(r)->time_ms, &(r)->min_ms, &(r)->spread, &(r)->compile_ms, &(r)->energy_j, \
      &(r)->power_w, &(r)->sm_clock_mhz, &(r)->max_error }

static void put_result(cursor *c, const kt_result *r)
{
    int32_t ints[3] = {(int32_t)r->status, r->signal, r->reps};
    const double *d[] = RESULT_DOUBLES(r);
    put(c, ints, sizeof ints);
    for (size_t i = 0; i < KT_ARRAY_LEN(d); i++)
        put(c, d[i], sizeof *d[i]);
    put_text(c, r->detail, sizeof r->detail);
}

static void get_result(cursor *c, kt_result *r)
{
    int32_t ints[3];
    double *d[] = RESULT_DOUBLES(r);
    get(c, ints, sizeof ints);
    for (size_t i = 0; i < KT_ARRAY_LEN(d); i++)
        get(c, d[i], sizeof *d[i]);
    get_text(c, r->detail, sizeof r->detail);
    c->bad = c->bad || ints[0] < 0 || ints[0] >= KT_STATUS_COUNT;
    r->status = c->bad ? KT_STATUS_RUNTIME_ERROR : (kt_status)ints[0];
    r->signal = ints[1];
    r->reps = ints[2];
}

int kt_mpi_encode(const kt_mpi_msg *m, unsigned char *buf, size_t cap, size_t *len)
{
    cursor c = {.w = buf, .cap = cap < KT_MPI_MSG_MAX ? cap : KT_MPI_MSG_MAX};
    uint32_t magic = MAGIC;
    uint16_t head[2] = {KT_MPI_PROTOCOL, (uint16_t)m->kind};
    put(&c, &magic, sizeof magic);
    put(&c, head, sizeof head);
    if (m->kind == KT_MPI_WORK || m->kind == KT_MPI_RESULT)
        put(&c, &m->ticket, sizeof m->ticket);
    if (m->kind == KT_MPI_WORK) {
        uint32_t n = (uint32_t)m->nparams;
        put(&c, &n, sizeof n);
        put(&c, m->cfg, m->nparams * sizeof *m->cfg);
    } else if (m->kind == KT_MPI_RESULT) {
        put_result(&c, &m->result);
    } else if (m->kind == KT_MPI_HELLO || m->kind == KT_MPI_FAIL ||
               m->kind == KT_MPI_STOP) {
        int32_t code = m->code;
        put(&c, &code, sizeof code);
        if (m->kind != KT_MPI_STOP)
            put_text(&c, m->text, sizeof m->text);
    }
    *len = c.bad ? 0 : c.at;
    return c.bad ? KT_ERANGE : KT_OK;
}

/* A WORK message's configuration into cfg (nparams entries). */
static void get_cfg(cursor *c, uint16_t *cfg, size_t nparams, kt_mpi_msg *m)
{
    uint32_t n = 0;
    get(c, &n, sizeof n);
    c->bad = c->bad || n != nparams;
    get(c, cfg, c->bad ? 0 : nparams * sizeof *cfg);
    m->cfg = cfg;
    m->nparams = nparams;
}

int kt_mpi_decode(const unsigned char *buf, size_t len, uint16_t *cfg, size_t nparams,
                  kt_mpi_msg *m, kt_diag *diag)
{
    cursor c = {.r = buf, .cap = len};
    uint32_t magic = 0;
    uint16_t head[2] = {0};
    *m = (kt_mpi_msg){0};
    get(&c, &magic, sizeof magic);
    get(&c, head, sizeof head);
    if (c.bad || magic != MAGIC || head[0] != KT_MPI_PROTOCOL)
        return kt_fail(diag, KT_EFORMAT, "a message of %zu bytes that is not ktune's "
                       "protocol %d (another build of ktune on another rank?)", len,
                       KT_MPI_PROTOCOL);
    m->kind = (kt_mpi_kind)head[1];
    if (m->kind == KT_MPI_WORK || m->kind == KT_MPI_RESULT)
        get(&c, &m->ticket, sizeof m->ticket);
    if (m->kind == KT_MPI_WORK) {
        get_cfg(&c, cfg, nparams, m);
    } else if (m->kind == KT_MPI_RESULT) {
        get_result(&c, &m->result);
    } else if (m->kind == KT_MPI_HELLO || m->kind == KT_MPI_FAIL ||
               m->kind == KT_MPI_STOP) {
        int32_t code = 0;
        get(&c, &code, sizeof code);
        m->code = code;
        if (m->kind != KT_MPI_STOP)
            get_text(&c, m->text, sizeof m->text);
    } else if (m->kind != KT_MPI_BEAT) {
        c.bad = true;
    }
    if (c.bad || c.at != len)
        return kt_fail(diag, KT_EFORMAT, "a malformed message of kind %u (%zu bytes)",
                       (unsigned)head[1], len);
    return KT_OK;
}
