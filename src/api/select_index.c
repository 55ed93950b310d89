/* select_index.c - the read-only index of runtime selection (select_index.h).
 *
 * A hit should cost two cache misses: the hash slot, which holds the
 * offset of its row's record, and the record, which holds everything the
 * answer copies (time, problem values, tuning values and configuration
 * key, adjacent).  Slots are 8 bytes, so that the table of an index of
 * 100,000 problems (2 MiB) stays in the caches beside the records.  The
 * nearest scan reads one contiguous array of the problems' log2 values
 * instead.
 */
#include "api/select_index.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define WHOLE_MAX 9007199254740992.0 /* 2^53, as problem values allow */

typedef struct slot {
    uint32_t rec8;          /* the row's record: its offset into recs / 8, + 1;
                               0: empty */
    uint32_t tag;           /* the hash's high half: most misses compare no key */
} slot;

#define RECS_MAX ((uint64_t)(UINT32_MAX - 1) * 8) /* what rec8 can address */

/* A row's record in recs, 8-byte aligned: this header, then int64_t
 * key[np], double values[nq], and the configuration key (NUL ended). */
typedef struct record {
    double time_ms;
    uint32_t config_len;
    uint32_t row;           /* the row it is the record of */
} record;

struct kt_sel_index {
    size_t np, nq;          /* problem parameters, tuning parameters */
    size_t n, cap;          /* rows */
    double *logs;           /* n x np: log2(1 + |v|); NAN for a code */
    uint64_t *rec_off;      /* n: each row's record */
    size_t *prob_off;       /* n: each row's problem key, in strs */
    char *recs, *strs;      /* records; problem keys (for a nearest answer) */
    size_t rlen, rcap, slen, scap;
    bool has_text;          /* some row has a text value (a code) */
    char **params;          /* nq tuning parameter names */
    slot *slots;
    size_t mask;            /* slots - 1, a power of two minus one */
};

static const record *rec_at(const kt_sel_index *x, uint64_t off)
{
    return (const record *)(x->recs + off);
}

static const record *slot_rec(const kt_sel_index *x, const slot *s)
{
    return rec_at(x, (uint64_t)(s->rec8 - 1) * 8);
}

static const int64_t *rec_key(const record *r) { return (const int64_t *)(r + 1); }

static const double *rec_values(const kt_sel_index *x, const record *r)
{
    return (const double *)(rec_key(r) + x->np);
}

static const char *rec_config(const kt_sel_index *x, const record *r)
{
    return (const char *)(rec_values(x, r) + x->nq);
}

/* The answer from a record, without its problem key: a hit knows its
 * problem, and reading prob_off would be one more cache miss. */
static void row_view(const kt_sel_index *x, const record *rec, kt_sel_row *row)
{
    *row = (kt_sel_row){.config = rec_config(x, rec), .config_len = rec->config_len,
                        .values = rec_values(x, rec), .time_ms = rec->time_ms};
}

/* --------------------------------------------------------------- values */

bool kt_sel_is_code(int64_t v) { return v < -(INT64_C(1) << 62); }

int64_t kt_sel_value(const char *text, size_t len)
{
    char num[64], *end;
    if (len > 0 && len < sizeof num) {
        memcpy(num, text, len);
        num[len] = '\0';
        double v = strtod(num, &end);
        if (*end == '\0' && v == floor(v) && fabs(v) <= WHOLE_MAX)
            return (int64_t)v;
    }
    uint64_t h = kt_hash(KT_HASH_INIT, text, len) & ((UINT64_C(1) << 62) - 1);
    return INT64_MIN + (int64_t)h;
}

static int find_name(const char *const *names, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strncmp(names[i], s, len) == 0 && names[i][len] == '\0')
            return (int)i;
    return -1;
}

int kt_sel_parse(const char *const *names, size_t n, const char *key,
                 int64_t *values, kt_diag *diag)
{
    uint64_t seen = 0; /* problems have far fewer than 64 parameters */
    if (n > 64)
        return kt_fail(diag, KT_ERANGE, "more than 64 problem parameters");
    for (const char *s = key; *s;) {
        size_t len = strcspn(s, ",");
        const char *eq = memchr(s, '=', len);
        int i = eq ? find_name(names, n, s, (size_t)(eq - s)) : -1;
        if (!eq || eq == s + len - 1)
            return kt_fail(diag, KT_EINVAL, "problem item '%.*s' is not NAME=VALUE",
                           (int)len, s);
        if (i < 0)
            return kt_fail(diag, KT_EINVAL, "'%.*s' is not a problem parameter of "
                           "this kernel", (int)(eq - s), s);
        if (seen >> i & 1)
            return kt_fail(diag, KT_EINVAL, "problem parameter '%s' is given twice",
                           names[i]);
        seen |= UINT64_C(1) << i;
        values[i] = kt_sel_value(eq + 1, len - (size_t)(eq - s) - 1);
        s += len + (s[len] == ',');
    }
    for (size_t i = 0; i < n; i++)
        if (!(seen >> i & 1))
            return kt_fail(diag, KT_EINVAL, "problem parameter '%s' is missing",
                           names[i]);
    return KT_OK;
}

/* ----------------------------------------------------------- hash table */

static uint64_t hash_values(const int64_t *v, size_t n)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ n;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint64_t)v[i];
        h *= 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return h;
}

/* The slot holding values, or the empty slot where they would go. */
static slot *probe(const kt_sel_index *x, const int64_t *v, uint64_t h)
{
    uint32_t tag = (uint32_t)(h >> 32);
    for (size_t i = h & x->mask;; i = (i + 1) & x->mask) {
        slot *s = &x->slots[i];
        if (s->rec8 == 0 ||
            (s->tag == tag && memcmp(rec_key(slot_rec(x, s)), v, x->np * sizeof *v) == 0))
            return s;
    }
}

static int grow_slots(kt_sel_index *x)
{
    size_t n = x->mask ? 2 * (x->mask + 1) : 64;
    slot *old = x->slots;
    size_t old_n = x->mask ? x->mask + 1 : 0;
    if (!(x->slots = calloc(n, sizeof *x->slots))) {
        x->slots = old;
        return KT_ENOMEM;
    }
    x->mask = n - 1;
    for (size_t i = 0; i < old_n; i++)
        if (old[i].rec8) {
            const int64_t *v = rec_key(slot_rec(x, &old[i]));
            *probe(x, v, hash_values(v, x->np)) = old[i];
        }
    free(old);
    return KT_OK;
}

bool kt_sel_index_find(const kt_sel_index *x, const int64_t *values, kt_sel_row *row)
{
    if (x->n == 0)
        return false;
    const slot *s = probe(x, values, hash_values(values, x->np));
    if (s->rec8 == 0)
        return false;
    row_view(x, slot_rec(x, s), row);
    return true;
}

/* -------------------------------------------------------------- nearest */

/* Squared distance of row r from the query (q its values, ql their logs),
 * or INFINITY once it passes best or a text parameter differs. */
static double row_distance_numeric(const kt_sel_index *x, size_t r, const double *ql,
                                   double best)
{
    const double *l = x->logs + r * x->np;
    double d = 0;
    for (size_t i = 0; i < x->np && d < best; i++)
        d += (l[i] - ql[i]) * (l[i] - ql[i]);
    return d;
}

/* The same where text values may be present. */
static double row_distance(const kt_sel_index *x, size_t r, const int64_t *q,
                           const double *ql, double best)
{
    const double *l = x->logs + r * x->np;
    double d = 0;
    for (size_t i = 0; i < x->np && d < best; i++) {
        if (isnan(l[i]) || isnan(ql[i])) {
            if (rec_key(rec_at(x, x->rec_off[r]))[i] != q[i])
                return INFINITY;
            continue;
        }
        double e = l[i] - ql[i];
        d += e * e;
    }
    return d;
}

static double value_log(int64_t v)
{
    return kt_sel_is_code(v) ? NAN : log2(1.0 + fabs((double)v));
}

bool kt_sel_index_nearest(const kt_sel_index *x, const int64_t *values,
                          kt_sel_row *row, double *distance)
{
    double ql[64], best = INFINITY;
    size_t at = 0;
    bool text = x->has_text;
    if (x->np > KT_ARRAY_LEN(ql))
        return false;
    for (size_t i = 0; i < x->np; i++) {
        ql[i] = value_log(values[i]);
        text |= isnan(ql[i]);
    }
    for (size_t r = 0; r < x->n; r++) {
        double d = text ? row_distance(x, r, values, ql, best)
                        : row_distance_numeric(x, r, ql, best);
        if (d < best) {
            best = d;
            at = r;
        }
    }
    if (!isfinite(best))
        return false;
    *distance = sqrt(best);
    row_view(x, rec_at(x, x->rec_off[at]), row);
    row->problem = x->strs + x->prob_off[at];
    return true;
}

/* ---------------------------------------------------------------- build */

size_t kt_sel_index_size(const kt_sel_index *x) { return x->n; }
size_t kt_sel_index_nparams(const kt_sel_index *x) { return x->nq; }

const char *kt_sel_index_param(const kt_sel_index *x, size_t i)
{
    return x->params && i < x->nq ? x->params[i] : NULL;
}

/* Room for len more bytes at the end of *buf (used, cap: its sizes). */
static int reserve(char **buf, size_t used, size_t *cap, size_t len)
{
    if (used + len <= *cap)
        return KT_OK;
    size_t c = *cap ? 2 * *cap : 4096;
    while (c < used + len)
        c *= 2;
    char *p = realloc(*buf, c);
    if (!p)
        return KT_ENOMEM;
    *buf = p;
    *cap = c;
    return KT_OK;
}

#define GROW(p, n) \
    ((tmp = realloc((p), (n) * sizeof *(p))) ? ((p) = tmp, 0) : 1)

static int grow_rows(kt_sel_index *x)
{
    size_t cap = x->cap ? 2 * x->cap : 256;
    void *tmp;
    if (GROW(x->logs, cap * (x->np ? x->np : 1)) || GROW(x->rec_off, cap) ||
        GROW(x->prob_off, cap))
        return KT_ENOMEM;
    x->cap = cap;
    return KT_OK;
}

/* What the build's row callback needs. */
typedef struct builder {
    kt_sel_index *x;
    const kt_sel_source *src;
    int64_t *key;           /* np: the row's problem values */
    double *vals;           /* the row's tuning values (nq once known) */
    uint16_t *cfg;          /* spec: value indices */
    int err;
    kt_diag *diag;
} builder;

/* Without a spec: the first row's configuration names the parameters. */
static int adopt_params(builder *b, char **names, size_t n)
{
    kt_sel_index *x = b->x;
    if (!(x->params = calloc(n ? n : 1, sizeof *x->params)) ||
        !(b->vals = calloc(n ? n : 1, sizeof *b->vals)))
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(x->params[i] = kt_strdup(names[i])))
            return KT_ENOMEM;
    x->nq = n;
    return KT_OK;
}

/* The tuning values of a configuration key; 1 when the row is skipped
 * (a key this index cannot read), else 0 or a negative error. */
static int config_values(builder *b, const char *config)
{
    kt_sel_index *x = b->x;
    const kt_spec *spec = b->src->spec;
    if (spec) {
        kt_diag ignored;
        if (kt_spec_config_parse(spec, config, b->cfg, &ignored) != KT_OK)
            return 1;
        for (size_t p = 0; p < spec->nparams; p++)
            b->vals[p] = spec->params[p].values[b->cfg[p]];
        return 0;
    }
    char **names, **values;
    size_t n;
    if (kt_key_fields(config, &names, &values, &n) != KT_OK)
        return 1;
    int rc = x->params ? 0 : adopt_params(b, names, n);
    if (rc == 0 && n != x->nq)
        rc = 1;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        char *end;
        b->vals[i] = strtod(values[i], &end);
        if (*end || end == values[i])
            b->vals[i] = NAN;
        if (strcmp(names[i], x->params[i]) != 0)
            rc = 1;
    }
    kt_key_fields_free(names, values, n);
    return rc;
}

/* Fill row r from the builder's parsed row: a new record (a faster row of
 * the same problem leaves the old one unused). */
static int set_row(builder *b, size_t r, const kt_db_row *row)
{
    kt_sel_index *x = b->x;
    size_t clen = strlen(row->config), plen = strlen(row->problem);
    if (clen >= KTUNE_CHOICE_KEY_MAX)
        return kt_fail(b->diag, KT_ERANGE, "configuration key of %zu bytes in problem "
                       "%s: at most %d", clen, row->problem, KTUNE_CHOICE_KEY_MAX - 1);
    size_t size = sizeof(record) + x->np * sizeof(int64_t) + x->nq * sizeof(double) +
                  (clen + 8) / 8 * 8;
    if (x->rlen + size > RECS_MAX)
        return kt_fail(b->diag, KT_ERANGE, "too many problems to index");
    if (reserve(&x->recs, x->rlen, &x->rcap, size) ||
        reserve(&x->strs, x->slen, &x->scap, plen + 1))
        return kt_fail(b->diag, KT_ENOMEM, "out of memory");
    record *rec = (record *)(x->recs + x->rlen);
    *rec = (record){.time_ms = row->result.time_ms, .config_len = (uint32_t)clen,
                    .row = (uint32_t)r};
    memcpy((int64_t *)(rec + 1), b->key, x->np * sizeof *b->key);
    memcpy((double *)((int64_t *)(rec + 1) + x->np), b->vals, x->nq * sizeof *b->vals);
    memcpy((char *)rec_config(x, rec), row->config, clen + 1);
    x->rec_off[r] = x->rlen;
    x->rlen += size;
    memcpy(x->strs + x->slen, row->problem, plen + 1);
    x->prob_off[r] = x->slen;
    x->slen += plen + 1;
    for (size_t i = 0; i < x->np; i++) {
        x->logs[r * x->np + i] = value_log(b->key[i]);
        x->has_text |= kt_sel_is_code(b->key[i]);
    }
    return KT_OK;
}

/* Add a row, or replace the stored row of the same problem when this one
 * is faster (one problem measured on two devices of the same name, or by
 * two versions of the kernel). */
static int add_row(builder *b, const kt_db_row *row)
{
    kt_sel_index *x = b->x;
    if ((x->n + 1) * 2 > x->mask + 1 && grow_slots(x) != KT_OK)
        return kt_fail(b->diag, KT_ENOMEM, "out of memory");
    uint64_t h = hash_values(b->key, x->np);
    slot *s = probe(x, b->key, h);
    if (s->rec8) {
        const record *old = slot_rec(x, s);
        if (!(row->result.time_ms < old->time_ms))
            return KT_OK;
        size_t r = old->row;
        int rc = set_row(b, r, row);
        s->rec8 = (uint32_t)(x->rec_off[r] / 8 + 1);
        return rc;
    }
    if (x->n == x->cap && grow_rows(x) != KT_OK)
        return kt_fail(b->diag, KT_ENOMEM, "out of memory");
    if (x->n >= UINT32_MAX - 1)
        return kt_fail(b->diag, KT_ERANGE, "too many problems to index");
    int rc = set_row(b, x->n, row);
    if (rc == KT_OK)
        *s = (slot){.rec8 = (uint32_t)(x->rec_off[x->n++] / 8 + 1),
                    .tag = (uint32_t)(h >> 32)};
    return rc;
}

static int visit(void *user, const kt_db_row *row)
{
    builder *b = user;
    const kt_sel_source *src = b->src;
    kt_diag ignored;
    if ((src->source_hash && strcmp(row->source_hash, src->source_hash) != 0) ||
        kt_sel_parse(src->problem_names, src->nproblem, row->problem, b->key,
                     &ignored) != KT_OK)
        return 0;
    int rc = config_values(b, row->config);
    if (rc < 0)
        b->err = kt_fail(b->diag, rc, "out of memory");
    else if (rc == 0)
        b->err = add_row(b, row);
    return b->err != KT_OK;
}

/* With a spec, its parameters are the index's, before any row. */
static int take_spec_params(builder *b)
{
    const kt_spec *spec = b->src->spec;
    kt_sel_index *x = b->x;
    size_t n = spec->nparams;
    if (!(x->params = calloc(n ? n : 1, sizeof *x->params)) ||
        !(b->vals = calloc(n ? n : 1, sizeof *b->vals)) ||
        !(b->cfg = calloc(n ? n : 1, sizeof *b->cfg)))
        return KT_ENOMEM;
    for (size_t i = 0; i < n; i++)
        if (!(x->params[i] = kt_strdup(spec->params[i].name)))
            return KT_ENOMEM;
    x->nq = n;
    return KT_OK;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* A copy of p (n bytes) in memory the kernel may back with 2 MiB pages
 * (p itself when that fails, or when it is small): a lookup in a large
 * index costs two cache misses, and without it two TLB misses more. */
static void *huge_copy(void *p, size_t n)
{
    void *q = NULL;
    if (!p || n < HUGE_PAGE || posix_memalign(&q, HUGE_PAGE, n))
        return p;
    madvise(q, (n + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE, MADV_HUGEPAGE);
    memcpy(q, p, n);
    free(p);
    return q;
}

int kt_sel_index_build(kt_db *db, const kt_sel_source *src, kt_sel_index **out,
                       kt_diag *diag)
{
    *out = NULL;
    kt_sel_index *x = calloc(1, sizeof *x);
    builder b = {.x = x, .src = src, .diag = diag};
    if (x)
        x->np = src->nproblem;
    int rc = x && (b.key = calloc(src->nproblem + 1, sizeof *b.key)) &&
                     (!src->spec || take_spec_params(&b) == KT_OK)
                 ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_db_filter f = {.kernel = src->kernel, .device = src->device, .ok_only = true};
    if (rc == KT_OK && db)
        rc = kt_db_best_unsorted(db, &f, visit, &b, diag);
    if (rc == KT_OK)
        rc = b.err;
    free(b.key);
    free(b.vals);
    free(b.cfg);
    if (rc != KT_OK) {
        kt_sel_index_free(x);
        return rc;
    }
    x->slots = huge_copy(x->slots, x->mask ? (x->mask + 1) * sizeof *x->slots : 0);
    x->recs = huge_copy(x->recs, x->rlen);
    x->logs = huge_copy(x->logs, x->n * x->np * sizeof *x->logs);
    *out = x;
    return KT_OK;
}

void kt_sel_index_free(kt_sel_index *x)
{
    if (!x)
        return;
    for (size_t i = 0; x->params && i < x->nq; i++)
        free(x->params[i]);
    free(x->params);
    free(x->logs);
    free(x->rec_off);
    free(x->prob_off);
    free(x->recs);
    free(x->strs);
    free(x->slots);
    free(x);
}
