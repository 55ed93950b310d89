/* select.c - runtime selection (the "runtime selection" part of ktune.h):
 * per call, the configuration to use for a problem, from the database's
 * index (api/select_index.h), the nearest tuned shape, the model, or the
 * spec's default.
 *
 * Concurrency.  Lookups take no lock on a hit: they read the current index
 * through an atomic pointer inside a two-phase reader count (as userspace
 * RCU does): a reader counts itself in the current phase's counter (one of
 * STRIPES cache lines, picked by its stack address, so that threads rarely
 * share a line) and checks the phase did not flip meanwhile.  A refresh
 * (serialised by refresh_lock) swaps in the new index, flips the phase and
 * waits until the old phase's counters drain; only readers that may hold
 * the old index are in them, and they hold it for one lookup.  Then the
 * old index is freed: memory stays at one index, however often the
 * database changes.  Misses go to a bounded answer cache (a read-write
 * lock) and, on a cache miss, to the model (one mutex: the constrained
 * search binds its space to each problem).
 */
#include "api/select_index.h"
#include "backend/backend.h"
#include "core/util.h"
#include "ml/predict.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define STRIPES 16

/* One index with the generation it was published as (cached answers name
 * the generation they were computed against). */
typedef struct view {
    kt_sel_index *index;
    uint64_t generation;
} view;

typedef struct stripe {
    _Alignas(64) atomic_long n; /* readers counted here */
} stripe;

/* A nearest or model answer, with its problem values, in one allocation. */
typedef struct answer {
    uint64_t generation;
    ktune_source source;
    double time_ms, distance;
    int64_t *key;           /* np problem values */
    double *values;         /* nq tuning values */
    size_t nq;
    char *config, *from;
} answer;

/* The bounded answer cache: open addressing over 2 x max slots; emptied
 * when it holds max answers (simple, and a steady set of shapes refills
 * it at once). */
typedef struct cache {
    pthread_rwlock_t lock;
    answer **slots;
    size_t mask, n, max;
} cache;

/* The model and what predicting with it needs. */
typedef struct model_part {
    kt_model *m;
    kt_model_info info;
    kt_constraint *cons;    /* with a spec: predictions are valid */
    pthread_mutex_t lock;
    size_t width;
    uint16_t *tokens;       /* width x (nout + 1) */
    uint16_t *cfg;          /* spec->nparams */
    size_t *field;          /* per problem parameter: the model's input
                               field, or SIZE_MAX */
    int64_t **codes;        /* per problem parameter: the code of each word
                               of that field's vocabulary (to give a text
                               value back to the model) */
} model_part;

struct ktune_selector {
    ktune_selector_opts opts;
    kt_db *db;              /* the selector's own read connection; used
                               under refresh_lock only */
    const kt_spec *spec;    /* NULL: selected by kernel name; the caller's
                               (ktune_selector_open_spec) or own_spec */
    kt_spec *own_spec;      /* loaded from the path ktune_selector_open got */
    char *kernel, *device;
    char **pnames;          /* np problem parameter names */
    size_t np;
    char *default_key;      /* spec: the default configuration */
    double *default_values;
    model_part *model;
    cache cache;
    _Atomic(view *) current;
    atomic_uint phase;
    stripe readers[2][STRIPES];
    pthread_mutex_t refresh_lock;
    int64_t data_version;   /* under refresh_lock */
    uint64_t generation;    /* under refresh_lock */
    atomic_llong next_check_ns;
};

const char *ktune_source_name(ktune_source s)
{
    static const char *const NAMES[] = {[KTUNE_FROM_DATABASE] = "database",
                                        [KTUNE_FROM_NEAREST] = "nearest",
                                        [KTUNE_FROM_MODEL] = "model",
                                        [KTUNE_FROM_DEFAULT] = "default"};
    return s >= KTUNE_FROM_DATABASE && s <= KTUNE_FROM_DEFAULT ? NAMES[s] : "unknown";
}

void ktune_selector_opts_init(ktune_selector_opts *o)
{
    if (!o)
        return;
    *o = (ktune_selector_opts){.size = sizeof *o, .refresh_ms = 100, .max_distance = 1.0,
                               .cache_size = 4096, .beam_width = 4,
                               .cache_dir = ".ktune-cache"};
}

/* -------------------------------------------------------------- readers */

static size_t my_stripe(void)
{
    char here;
    uint64_t a = (uintptr_t)&here >> 12; /* thread stacks lie pages apart */
    return (size_t)((a * 0x9e3779b97f4a7c15u) >> 60) % STRIPES;
}

static unsigned reader_enter(ktune_selector *s, size_t st)
{
    for (;;) {
        unsigned p = atomic_load(&s->phase);
        atomic_fetch_add(&s->readers[p][st].n, 1);
        if (atomic_load(&s->phase) == p)
            return p;
        atomic_fetch_sub(&s->readers[p][st].n, 1); /* flipped: count anew */
    }
}

static void reader_leave(ktune_selector *s, unsigned p, size_t st)
{
    atomic_fetch_sub(&s->readers[p][st].n, 1);
}

/* Swap in v and free the old view once no reader can hold it (under
 * refresh_lock).  A reader counted in the new phase saw the flip, which
 * follows the swap, so it loads v. */
static void publish(ktune_selector *s, view *v)
{
    view *old = atomic_exchange(&s->current, v);
    unsigned p = atomic_load(&s->phase);
    atomic_store(&s->phase, p ^ 1);
    for (;;) {
        long n = 0;
        for (size_t i = 0; i < STRIPES; i++)
            n += atomic_load(&s->readers[p][i].n);
        if (n == 0)
            break;
        sched_yield();
    }
    if (old)
        kt_sel_index_free(old->index);
    free(old);
}

/* ---------------------------------------------------------------- cache */

static uint64_t key_hash(const int64_t *v, size_t n)
{
    return kt_hash(KT_HASH_INIT, v, n * sizeof *v);
}

static void cache_clear(cache *c)
{
    for (size_t i = 0; c->slots && i <= c->mask; i++) {
        free(c->slots[i]);
        c->slots[i] = NULL;
    }
    c->n = 0;
}

/* The slot of key, or the empty one where it would go (under the lock). */
static answer **cache_slot(const cache *c, const int64_t *key, size_t np)
{
    for (size_t i = key_hash(key, np) & c->mask;; i = (i + 1) & c->mask) {
        answer *a = c->slots[i];
        if (!a || memcmp(a->key, key, np * sizeof *key) == 0)
            return &c->slots[i];
    }
}

static void fill(ktune_choice *out, ktune_source source, const char *config,
                 size_t config_len, const double *values, size_t nq, double time_ms,
                 double distance, const char *from)
{
    out->source = source;
    memcpy(out->config, config, config_len + 1);
    out->nparams = nq < KTUNE_CHOICE_MAX_PARAMS ? nq : KTUNE_CHOICE_MAX_PARAMS;
    memcpy(out->values, values, out->nparams * sizeof *values);
    out->time_ms = time_ms;
    out->distance = distance;
    kt_strlcpy(out->from, sizeof out->from, from ? from : "");
}

static void fill_answer(ktune_choice *out, const answer *a)
{
    fill(out, a->source, a->config, strlen(a->config), a->values, a->nq, a->time_ms,
         a->distance, a->from);
}

static bool cache_get(ktune_selector *s, const int64_t *key, uint64_t generation,
                      ktune_choice *out)
{
    cache *c = &s->cache;
    if (!c->slots)
        return false;
    pthread_rwlock_rdlock(&c->lock);
    answer *a = *cache_slot(c, key, s->np);
    bool hit = a && a->generation == generation;
    if (hit)
        fill_answer(out, a);
    pthread_rwlock_unlock(&c->lock);
    return hit;
}

/* Keep a copy of the answer in out for key (nothing when out of memory:
 * the cache only saves time). */
static void cache_put(ktune_selector *s, const int64_t *key, uint64_t generation,
                      const ktune_choice *out)
{
    cache *c = &s->cache;
    if (!c->slots)
        return;
    size_t clen = strlen(out->config) + 1, flen = strlen(out->from) + 1;
    size_t kb = s->np * sizeof *key, vb = out->nparams * sizeof(double);
    answer *a = malloc(sizeof *a + kb + vb + clen + flen);
    if (!a)
        return;
    *a = (answer){.generation = generation, .source = out->source,
                  .time_ms = out->time_ms, .distance = out->distance,
                  .key = (int64_t *)(a + 1), .nq = out->nparams};
    a->values = (double *)((char *)a->key + kb);
    a->config = (char *)a->values + vb;
    a->from = a->config + clen;
    memcpy(a->key, key, kb);
    memcpy(a->values, out->values, vb);
    memcpy(a->config, out->config, clen);
    memcpy(a->from, out->from, flen);
    pthread_rwlock_wrlock(&c->lock);
    if (c->n >= c->max)
        cache_clear(c);
    answer **slot = cache_slot(c, key, s->np);
    if (!*slot)
        c->n++;
    free(*slot);
    *slot = a;
    pthread_rwlock_unlock(&c->lock);
}

/* ---------------------------------------------------------------- model */

static void model_free(model_part *mp, size_t np)
{
    if (!mp)
        return;
    for (size_t i = 0; mp->codes && i < np; i++)
        free(mp->codes[i]);
    free(mp->codes);
    free(mp->field);
    free(mp->tokens);
    free(mp->cfg);
    kt_constraint_free(mp->cons);
    kt_model_free(mp->m);
    pthread_mutex_destroy(&mp->lock);
    free(mp);
}

/* Map each problem parameter to the model's input field of its name, and
 * that field's words to their codes. */
static int model_map_fields(ktune_selector *s, model_part *mp)
{
    if (!(mp->field = calloc(s->np + 1, sizeof *mp->field)) ||
        !(mp->codes = calloc(s->np + 1, sizeof *mp->codes)))
        return KT_ENOMEM;
    for (size_t i = 0; i < s->np; i++) {
        mp->field[i] = SIZE_MAX;
        for (size_t f = 0; f < mp->info.nin; f++)
            if (strcmp(mp->info.in_names[f], s->pnames[i]) == 0)
                mp->field[i] = f;
        if (mp->field[i] == SIZE_MAX)
            continue;
        const kt_vocab *v = &mp->info.in_vocab[mp->field[i]];
        if (!(mp->codes[i] = calloc(v->n + 1, sizeof *mp->codes[i])))
            return KT_ENOMEM;
        for (size_t w = 0; w < v->n; w++)
            mp->codes[i][w] = v->words[w] ? kt_sel_value(v->words[w], strlen(v->words[w]))
                                          : 0;
    }
    return KT_OK;
}

static int model_load(ktune_selector *s, const char *path, kt_diag *diag)
{
    model_part *mp = calloc(1, sizeof *mp);
    if (!mp)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    pthread_mutex_init(&mp->lock, NULL);
    s->model = mp;
    int rc = kt_model_load(path, &mp->m, diag);
    if (rc != KT_OK)
        return rc;
    kt_model_describe(mp->m, &mp->info);
    if (strcmp(mp->info.kernel, s->kernel) != 0)
        return kt_fail(diag, KT_EINVAL, "%s: the model was trained for kernel '%s', "
                       "not '%s'", path, mp->info.kernel, s->kernel);
    return KT_OK;
}

/* What predicting needs, once the problem parameters are known. */
static int model_prepare(ktune_selector *s, const char *path, kt_diag *diag)
{
    model_part *mp = s->model;
    int rc = KT_OK;
    mp->width = s->opts.beam_width ? s->opts.beam_width : 1;
    if (!(mp->tokens = malloc(mp->width * (mp->info.nout + 1) * sizeof *mp->tokens)) ||
        (s->spec && !(mp->cfg = calloc(s->spec->nparams + 1, sizeof *mp->cfg))) ||
        model_map_fields(s, mp) != KT_OK)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    /* the selector's spec again: its warnings came when it was loaded */
    if (s->spec &&
        (rc = kt_constraint_new(s->spec->path, NULL, NULL, &mp->info, &mp->cons, diag)))
        kt_diag_prefix(diag, path);
    return rc;
}

/* The problem as the model reads it: whole numbers as they are, text
 * values when the model's vocabulary has them (an unknown one it could
 * only read as unknown, which leaving it out says). */
static char *model_problem_key(const ktune_selector *s, const int64_t *v)
{
    const model_part *mp = s->model;
    kt_buf b = {0};
    kt_buf_append(&b, "");
    for (size_t i = 0; i < s->np; i++) {
        if (!kt_sel_is_code(v[i])) {
            kt_buf_appendf(&b, "%s%s=%lld", b.len ? "," : "", s->pnames[i],
                           (long long)v[i]);
            continue;
        }
        size_t f = mp->field[i];
        for (size_t w = 0; f != SIZE_MAX && w < mp->info.in_vocab[f].n; w++)
            if (mp->codes[i][w] == v[i]) {
                kt_buf_appendf(&b, "%s%s=%s", b.len ? "," : "", s->pnames[i],
                               mp->info.in_vocab[f].words[w]);
                break;
            }
    }
    return kt_buf_take(&b);
}

/* The best predicted tokens into out, as a configuration (under mp->lock). */
static int model_choice(ktune_selector *s, const uint16_t *tokens, ktune_choice *out,
                        kt_diag *diag)
{
    model_part *mp = s->model;
    double values[KTUNE_CHOICE_MAX_PARAMS];
    size_t nq = mp->info.nout;
    char *key = NULL;
    if (s->spec) {
        kt_constraint_values(mp->cons, tokens, mp->cfg);
        key = kt_spec_config_key(s->spec, mp->cfg);
        for (size_t p = 0; p < nq && p < KTUNE_CHOICE_MAX_PARAMS; p++)
            values[p] = s->spec->params[p].values[mp->cfg[p]];
    } else {
        kt_buf b = {0};
        kt_buf_append(&b, "");
        for (size_t p = 0; p < nq; p++) {
            const char *w = mp->info.out_vocab[p].words[tokens[p]];
            kt_buf_appendf(&b, "%s%s=%s", p ? "," : "", mp->info.out_names[p], w);
            char *end;
            if (p < KTUNE_CHOICE_MAX_PARAMS)
                values[p] = strtod(w, &end);
            if (p < KTUNE_CHOICE_MAX_PARAMS && (*end || end == w))
                values[p] = NAN;
        }
        key = kt_buf_take(&b);
    }
    if (!key)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t len = strlen(key);
    int rc = len < KTUNE_CHOICE_KEY_MAX
                 ? KT_OK
                 : kt_fail(diag, KT_ERANGE, "the model's configuration key is longer "
                           "than %d bytes", KTUNE_CHOICE_KEY_MAX - 1);
    if (rc == KT_OK)
        fill(out, KTUNE_FROM_MODEL, key, len, values, nq, NAN, NAN, NULL);
    free(key);
    return rc;
}

/* The model's most likely (valid) configuration for v; KT_ENOTFOUND when
 * the constrained search finds none. */
static int model_predict(ktune_selector *s, const int64_t *v, ktune_choice *out,
                         kt_diag *diag)
{
    model_part *mp = s->model;
    char *key = model_problem_key(s, v);
    if (!key)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t found = 0;
    pthread_mutex_lock(&mp->lock);
    int rc = kt_predict(mp->m, mp->cons, key, mp->width, mp->tokens, NULL, &found, diag);
    if (rc == KT_OK && found == 0)
        rc = kt_fail(diag, KT_ENOTFOUND, "the model has no valid configuration for "
                     "problem %s", key);
    if (rc == KT_OK)
        rc = model_choice(s, mp->tokens, out, diag);
    pthread_mutex_unlock(&mp->lock);
    free(key);
    return rc;
}

/* --------------------------------------------------------------- lookup */

static void fill_row(ktune_choice *out, ktune_source source, const kt_sel_row *r,
                     size_t nq, double distance, const char *from)
{
    fill(out, source, r->config, r->config_len, r->values, nq, r->time_ms, distance,
         from);
}

/* After an exact miss (as a reader of v): the nearest shape, the model or
 * the default, in the order of ktune.h. */
static int select_miss(ktune_selector *s, const view *vw, const int64_t *values,
                       ktune_choice *out, kt_diag *diag)
{
    if (cache_get(s, values, vw->generation, out))
        return KT_OK;
    const kt_sel_index *x = vw->index;
    kt_sel_row row;
    double d = NAN;
    bool near = kt_sel_index_nearest(x, values, &row, &d);
    int rc = KT_OK;
    if (near && (d <= s->opts.max_distance || !s->model))
        fill_row(out, KTUNE_FROM_NEAREST, &row, kt_sel_index_nparams(x), d, row.problem);
    else if (s->model)
        rc = model_predict(s, values, out, diag);
    else if (s->default_key)
        fill(out, KTUNE_FROM_DEFAULT, s->default_key, strlen(s->default_key),
             s->default_values, s->spec->nparams, NAN, NAN, NULL);
    else
        return kt_fail(diag, KT_ENOTFOUND, "kernel '%s': no tuned problem, no model "
                       "and no default configuration to answer from", s->kernel);
    if (rc == KT_OK)
        cache_put(s, values, vw->generation, out);
    return rc;
}

static int refresh_locked(ktune_selector *s, bool *changed, kt_diag *diag);

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The automatic refresh: by the one lookup that finds it due. */
static void maybe_refresh(ktune_selector *s)
{
    int64_t now = now_ns();
    if (now < atomic_load_explicit(&s->next_check_ns, memory_order_relaxed) ||
        pthread_mutex_trylock(&s->refresh_lock) != 0)
        return;
    if (now >= atomic_load(&s->next_check_ns)) {
        kt_diag ignored; /* the old index answers; refresh reports why */
        refresh_locked(s, NULL, &ignored);
        atomic_store(&s->next_check_ns, now_ns() + (int64_t)s->opts.refresh_ms * 1000000);
    }
    pthread_mutex_unlock(&s->refresh_lock);
}

int ktune_select_values(ktune_selector *s, const int64_t *values, size_t n,
                        ktune_choice *out, ktune_diag *diag)
{
    if (!s || !values || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_select_values: NULL %s",
                       !s ? "selector" : !values ? "values" : "choice");
    if (n != s->np)
        return kt_fail(diag, KT_EINVAL, "kernel '%s' has %zu problem parameters, not "
                       "%zu", s->kernel, s->np, n);
    if (s->opts.refresh_ms)
        maybe_refresh(s);
    size_t st = my_stripe();
    unsigned phase = reader_enter(s, st);
    const view *vw = atomic_load(&s->current);
    kt_sel_row row;
    int rc = KT_OK;
    if (kt_sel_index_find(vw->index, values, &row))
        fill_row(out, KTUNE_FROM_DATABASE, &row, kt_sel_index_nparams(vw->index), 0, NULL);
    else
        rc = select_miss(s, vw, values, out, diag);
    reader_leave(s, phase, st);
    return rc;
}

int ktune_selector_problem(const ktune_selector *s, const char *problem,
                           int64_t *values, size_t n, ktune_diag *diag)
{
    if (!s || !problem || !values)
        return kt_fail(diag, KT_EINVAL, "ktune_selector_problem: NULL %s",
                       !s ? "selector" : !problem ? "problem" : "values");
    if (n < s->np)
        return kt_fail(diag, KT_EINVAL, "kernel '%s' has %zu problem parameters: "
                       "room for %zu given", s->kernel, s->np, n);
    int rc = kt_sel_parse((const char *const *)s->pnames, s->np, problem, values, diag);
    if (rc != KT_OK)
        kt_diag_prefix(diag, problem);
    return rc;
}

int ktune_select(ktune_selector *s, const char *problem, ktune_choice *out,
                 ktune_diag *diag)
{
    int64_t stack[32], *v = stack;
    if (s && s->np > KT_ARRAY_LEN(stack) && !(v = malloc(s->np * sizeof *v)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = ktune_selector_problem(s, problem, v, s ? s->np : 0, diag);
    if (rc == KT_OK)
        rc = ktune_select_values(s, v, s->np, out, diag);
    if (v != stack)
        free(v);
    return rc;
}

size_t ktune_selector_nproblem(const ktune_selector *s) { return s ? s->np : 0; }

const char *ktune_selector_problem_name(const ktune_selector *s, size_t i)
{
    return s && i < s->np ? s->pnames[i] : NULL;
}

size_t ktune_selector_size(ktune_selector *s)
{
    if (!s)
        return 0;
    size_t st = my_stripe();
    unsigned phase = reader_enter(s, st);
    size_t n = kt_sel_index_size(atomic_load(&s->current)->index);
    reader_leave(s, phase, st);
    return n;
}

/* -------------------------------------------------------------- refresh */

static int build(ktune_selector *s, view **out, kt_diag *diag)
{
    kt_sel_source src = {.kernel = s->kernel, .device = s->device, .spec = s->spec,
                         .source_hash = s->spec ? s->spec->source_hash : NULL,
                         .problem_names = (const char *const *)s->pnames,
                         .nproblem = s->np};
    view *v = calloc(1, sizeof *v);
    if (!v)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_sel_index_build(s->db, &src, &v->index, diag);
    if (rc != KT_OK) {
        free(v);
        return rc;
    }
    v->generation = ++s->generation;
    *out = v;
    return KT_OK;
}

static int refresh_locked(ktune_selector *s, bool *changed, kt_diag *diag)
{
    int64_t version = 0;
    int rc = s->db ? kt_db_data_version(s->db, &version, diag) : KT_OK;
    bool stale = s->db && version != s->data_version;
    view *v = NULL;
    if (rc == KT_OK && stale && (rc = build(s, &v, diag)) == KT_OK) {
        publish(s, v);
        s->data_version = version;
    }
    if (changed)
        *changed = rc == KT_OK && stale;
    return rc;
}

int ktune_selector_refresh(ktune_selector *s, bool *changed, ktune_diag *diag)
{
    if (changed)
        *changed = false;
    if (!s)
        return kt_fail(diag, KT_EINVAL, "ktune_selector_refresh: NULL selector");
    pthread_mutex_lock(&s->refresh_lock);
    int rc = refresh_locked(s, changed, diag);
    pthread_mutex_unlock(&s->refresh_lock);
    return rc;
}

/* ----------------------------------------------------------------- open */

static bool is_spec_path(const char *kernel)
{
    size_t n = strlen(kernel);
    return n > 5 && strcmp(kernel + n - 5, ".json") == 0;
}

/* A spec names the problem parameters and the default configuration. */
static int use_spec(ktune_selector *s, const kt_spec *spec, kt_diag *diag)
{
    s->spec = spec;
    uint16_t *def = calloc(spec->nparams + 1, sizeof *def);
    int rc;
    s->np = spec->nproblem;
    s->pnames = calloc(s->np + 1, sizeof *s->pnames);
    s->default_values = calloc(spec->nparams + 1, sizeof *s->default_values);
    s->kernel = kt_strdup(spec->name);
    rc = def && s->pnames && s->default_values && s->kernel ? KT_OK : KT_ENOMEM;
    for (size_t i = 0; rc == KT_OK && i < s->np; i++)
        if (!(s->pnames[i] = kt_strdup(spec->problem[i].name)))
            rc = KT_ENOMEM;
    for (size_t p = 0; rc == KT_OK && p < spec->nparams; p++) {
        def[p] = (uint16_t)spec->params[p].default_index;
        s->default_values[p] = spec->params[p].values[def[p]];
    }
    if (rc == KT_OK && !(s->default_key = kt_spec_config_key(spec, def)))
        rc = KT_ENOMEM;
    free(def);
    if (rc == KT_OK && strlen(s->default_key) >= KTUNE_CHOICE_KEY_MAX)
        return kt_fail(diag, KT_ERANGE, "%s: the default configuration's key is longer "
                       "than %d bytes", spec->path, KTUNE_CHOICE_KEY_MAX - 1);
    return rc == KT_OK ? KT_OK : kt_fail(diag, rc, "out of memory");
}

/* Without a spec, a stored row's problem key names the problem
 * parameters (rows of a kernel name the same ones), else the model's
 * input fields do. */
static int first_problem(void *user, const kt_db_row *row)
{
    *(char **)user = kt_strdup(row->problem);
    return 1;
}

static int problem_names_from(ktune_selector *s, kt_diag *diag)
{
    char *problem = NULL, **names = NULL, **values = NULL;
    size_t n = 0;
    kt_db_filter f = {.kernel = s->kernel, .device = s->device, .ok_only = true};
    int rc = s->db ? kt_db_best(s->db, &f, first_problem, &problem, diag) : KT_OK;
    if (rc == KT_OK && problem && kt_key_fields(problem, &names, &values, &n) != KT_OK)
        rc = kt_fail(diag, KT_EINVAL, "stored problem key '%s' is not NAME=VALUE,...",
                     problem);
    bool stored = problem != NULL;
    free(problem);
    if (rc == KT_OK && !stored && !s->model)
        rc = kt_fail(diag, KT_EINVAL, "kernel '%s' has no stored row on device '%s', "
                     "and there is no spec or model to name its problem parameters",
                     s->kernel, s->device);
    size_t count = stored ? n : s->model ? s->model->info.nin : 0;
    if (rc == KT_OK && !(s->pnames = calloc(count + 1, sizeof *s->pnames)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < count; i++, s->np++)
        if (!(s->pnames[i] = kt_strdup(stored ? names[i] : s->model->info.in_names[i])))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (names)
        kt_key_fields_free(names, values, n);
    return rc;
}

/* This machine's fingerprint, as the backend of the spec's language
 * computes it for `ktune tune`. */
static int own_device(ktune_selector *s, kt_diag *diag)
{
    const kt_backend *be = s->spec ? kt_backend_for(s->spec->language) : NULL;
    if (!s->spec)
        return kt_fail(diag, KT_EINVAL, "kernel '%s' given by name: name its device "
                       "too (only a spec says which backend measures this machine)",
                       s->kernel);
    if (!be)
        return kt_fail(diag, KT_EBACKEND, "%s: no backend here runs this kernel's "
                       "language", s->spec->path);
    kt_backend_opts bo = {.cache_dir = s->opts.cache_dir, .jobs = 1,
                          .platform = s->opts.platform};
    void *ctx = NULL;
    kt_device_info dev;
    int rc = be->open(s->spec, &bo, &ctx, diag);
    if (rc == KT_OK)
        rc = be->device(ctx, &dev, diag);
    if (ctx)
        be->close(ctx);
    if (rc == KT_OK && !(s->device = kt_strdup(dev.fingerprint)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    return rc;
}

/* The spec the kernel names (a path ending in .json: loaded, owned) or the
 * caller's; none for a kernel given by name. */
static int open_spec(ktune_selector *s, const char *kernel, const kt_spec *spec,
                     kt_diag *diag)
{
    int rc = KT_OK;
    if (!spec && is_spec_path(kernel)) {
        rc = kt_spec_load(kernel, s->opts.warn, s->opts.warn_user, &s->own_spec, diag);
        spec = s->own_spec;
    }
    if (rc == KT_OK && spec)
        rc = use_spec(s, spec, diag);
    else if (rc == KT_OK && !(s->kernel = kt_strdup(kernel)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    return rc;
}

static int open_parts(ktune_selector *s, const char *db_path, const char *kernel,
                      const kt_spec *spec, const char *device, const char *model,
                      kt_diag *diag)
{
    int rc = db_path ? kt_db_open_mode(db_path, KT_DB_EXISTING, &s->db, diag) : KT_OK;
    if (rc == KT_OK)
        rc = open_spec(s, kernel, spec, diag);
    if (rc == KT_OK && device && !(s->device = kt_strdup(device)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    else if (rc == KT_OK && !device)
        rc = own_device(s, diag);
    if (rc == KT_OK && model)
        rc = model_load(s, model, diag);
    if (rc == KT_OK && !s->spec)
        rc = problem_names_from(s, diag);
    if (rc == KT_OK && model)
        rc = model_prepare(s, model, diag);
    if (rc == KT_OK && s->opts.cache_size) {
        s->cache.max = s->opts.cache_size;
        size_t slots = 2;
        while (slots < 2 * s->cache.max)
            slots *= 2;
        if (!(s->cache.slots = calloc(slots, sizeof *s->cache.slots)))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
        s->cache.mask = slots - 1;
    }
    view *v = NULL;
    if (rc == KT_OK && s->db)
        rc = kt_db_data_version(s->db, &s->data_version, diag);
    if (rc == KT_OK && (rc = build(s, &v, diag)) == KT_OK)
        atomic_store(&s->current, v);
    return rc;
}

/* ktune_selector_open and _open_spec: the kernel by spec, else by
 * kernel (a spec's path or a stored name). */
static int open_selector(const char *fn, const char *db_path, const char *kernel,
                         const kt_spec *spec, const char *device, const char *model,
                         const ktune_selector_opts *opts, ktune_selector **out,
                         ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!(kernel || spec) || !out)
        return kt_fail(diag, KT_EINVAL, "%s: NULL %s", fn,
                       !out ? "out" : strstr(fn, "_spec") ? "spec" : "kernel");
    if (opts && opts->size != sizeof *opts)
        return kt_fail(diag, KT_EINVAL, "%s: opts of %zu bytes, not %zu (initialise "
                       "them with ktune_selector_opts_init)", fn, opts->size,
                       sizeof *opts);
    ktune_selector *s = calloc(1, sizeof *s);
    if (!s)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    if (opts)
        s->opts = *opts;
    else
        ktune_selector_opts_init(&s->opts);
    pthread_mutex_init(&s->refresh_lock, NULL);
    pthread_rwlock_init(&s->cache.lock, NULL);
    atomic_store(&s->next_check_ns, now_ns() + (int64_t)s->opts.refresh_ms * 1000000);
    int rc = open_parts(s, db_path, kernel, spec, device, model, diag);
    if (rc != KT_OK) {
        ktune_selector_close(s);
        return rc;
    }
    *out = s;
    return KT_OK;
}

int ktune_selector_open(const char *db_path, const char *kernel, const char *device,
                        const char *model, const ktune_selector_opts *opts,
                        ktune_selector **out, ktune_diag *diag)
{
    return open_selector("ktune_selector_open", db_path, kernel, NULL, device, model, opts,
                         out, diag);
}

int ktune_selector_open_spec(const char *db_path, const ktune_spec *spec,
                             const char *device, const char *model,
                             const ktune_selector_opts *opts, ktune_selector **out,
                             ktune_diag *diag)
{
    return open_selector("ktune_selector_open_spec", db_path, NULL, spec, device, model,
                         opts, out, diag);
}

void ktune_selector_close(ktune_selector *s)
{
    if (!s)
        return;
    view *v = atomic_load(&s->current);
    if (v)
        kt_sel_index_free(v->index);
    free(v);
    cache_clear(&s->cache);
    free(s->cache.slots);
    pthread_rwlock_destroy(&s->cache.lock);
    model_free(s->model, s->np);
    for (size_t i = 0; s->pnames && i < s->np; i++)
        free(s->pnames[i]);
    free(s->pnames);
    free(s->default_key);
    free(s->default_values);
    free(s->kernel);
    free(s->device);
    kt_spec_free(s->own_spec);
    kt_db_close(s->db);
    pthread_mutex_destroy(&s->refresh_lock);
    free(s);
}
