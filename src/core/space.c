/* space.c - constraint-pruned enumeration, sampling and neighbourhoods.
 *
 * Every operation runs one depth-first search (space_dfs): parameters are
 * bound in spec order, and at depth d only the conditions whose last
 * parameter is d are evaluated.  Fixing some parameters (satisfiability
 * checks) just narrows their choice to one value.
 */
#include "core/space.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

struct kt_space {
    const kt_spec *spec;
    const kt_problem *prob;
    size_t nparams;
    size_t *ncond_at;      /* per depth: how many conditions are checked there */
    kt_expr ***cond_at;    /* per depth: those conditions */
    bool unsat_constant;   /* a condition over problem values alone is false */
    double *slots;         /* scratch: expression slots */
    uint16_t *cursor;      /* scratch: the DFS position */
    uint16_t *built;       /* materialised valid configurations, or NULL */
    uint64_t nbuilt;
    const kt_expr *domain_cond; /* the first condition that raised a domain
                                   error, for kt_space_domain_error */
    double *domain_slots;       /* the slots it raised it on */
};

/* A condition holds when it evaluates to nonzero; a domain error (division
 * by zero) makes the configuration invalid rather than failing the search,
 * and the first one is kept for kt_space_domain_error. */
static bool cond_holds(kt_space *s, const kt_expr *e)
{
    double v;
    int rc = kt_expr_eval(e, s->slots, &v);
    if (rc == KT_EDOMAIN && !s->domain_cond &&
        (s->domain_slots = malloc(s->spec->nnames * sizeof *s->domain_slots))) {
        memcpy(s->domain_slots, s->slots, s->spec->nnames * sizeof *s->slots);
        s->domain_cond = e;
    }
    return rc == KT_OK && v != 0;
}

static int schedule_conditions(kt_space *s)
{
    const kt_spec *spec = s->spec;
    size_t n = s->nparams;
    s->ncond_at = calloc(n, sizeof *s->ncond_at);
    s->cond_at = calloc(n, sizeof *s->cond_at);
    if (!s->ncond_at || !s->cond_at)
        return KT_ENOMEM;
    for (size_t c = 0; c < spec->nconds; c++) {
        const kt_expr *e = spec->conds[c];
        int last = -1;
        for (size_t i = 0; i < kt_expr_nslots(e); i++)
            if (kt_expr_slots(e)[i] < n)
                last = (int)kt_expr_slots(e)[i];
        if (last < 0) {
            s->unsat_constant |= !cond_holds(s, e);
            continue;
        }
        kt_expr **grown = realloc(s->cond_at[last],
                                  (s->ncond_at[last] + 1) * sizeof *grown);
        if (!grown)
            return KT_ENOMEM;
        grown[s->ncond_at[last]++] = spec->conds[c];
        s->cond_at[last] = grown;
    }
    return KT_OK;
}

int kt_space_new(const kt_spec *spec, const kt_problem *prob, kt_space **out,
                 kt_diag *diag)
{
    *out = NULL;
    kt_space *s = calloc(1, sizeof *s);
    if (!s)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    s->spec = spec;
    s->prob = prob;
    s->nparams = spec->nparams;
    s->slots = calloc(spec->nnames ? spec->nnames : 1, sizeof *s->slots);
    s->cursor = calloc(s->nparams, sizeof *s->cursor);
    if (!s->slots || !s->cursor) {
        kt_space_free(s);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    /* Slots hold the problem first: conditions over problem values alone
     * are decided once, while scheduling. */
    kt_spec_slots(spec, NULL, prob, s->slots);
    if (schedule_conditions(s) != KT_OK) {
        kt_space_free(s);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    *out = s;
    return KT_OK;
}

void kt_space_free(kt_space *s)
{
    if (!s)
        return;
    for (size_t d = 0; s->cond_at && d < s->nparams; d++)
        free(s->cond_at[d]);
    free(s->cond_at);
    free(s->ncond_at);
    free(s->slots);
    free(s->cursor);
    free(s->built);
    free(s->domain_slots);
    free(s);
}

size_t kt_space_nparams(const kt_space *s) { return s->nparams; }
const kt_spec *kt_space_spec(const kt_space *s) { return s->spec; }

void kt_space_slots(const kt_space *s, const uint16_t *cfg, double *slots)
{
    /* the scratch slots keep the problem's values past the parameters */
    memcpy(slots, s->slots, s->spec->nnames * sizeof *slots);
    kt_spec_slots(s->spec, cfg, NULL, slots);
}

uint64_t kt_space_cartesian(const kt_space *s)
{
    uint64_t n = 1;
    for (size_t i = 0; i < s->nparams; i++) {
        uint64_t k = s->spec->params[i].nvalues;
        if (n > UINT64_MAX / k)
            return UINT64_MAX;
        n *= k;
    }
    return n;
}

/* ----------------------------------------------------------------- DFS */

/* Bind parameter d to value v and check the conditions due at depth d. */
static bool bind_ok(kt_space *s, size_t d, uint16_t v, kt_space_stats *st)
{
    s->slots[d] = s->spec->params[d].values[v];
    st->nodes++;
    for (size_t c = 0; c < s->ncond_at[d]; c++) {
        st->evals++;
        if (!cond_holds(s, s->cond_at[d][c]))
            return false;
    }
    return true;
}

/* Depth-first search over the valid configurations.  Parameters with
 * fixed[d] set only take fixed_cfg[d].  Returns 1 if visit stopped it. */
static int space_dfs(kt_space *s, const uint16_t *fixed_cfg, const bool *fixed,
                     kt_space_visit visit, void *user, kt_space_stats *st)
{
    size_t n = s->nparams;
    uint16_t *cur = s->cursor;
    if (s->unsat_constant)
        return 0;
    size_t d = 0;
    cur[0] = fixed && fixed[0] ? fixed_cfg[0] : 0;
    for (;;) {
        bool exhausted = fixed && fixed[d] ? cur[d] != fixed_cfg[d]
                                           : cur[d] >= s->spec->params[d].nvalues;
        if (exhausted) {
            if (d == 0)
                return 0;
            d--;
            cur[d]++;
            continue;
        }
        if (!bind_ok(s, d, cur[d], st)) {
            cur[d]++;
            continue;
        }
        if (d + 1 == n) {
            st->valid++;
            if (visit(user, cur))
                return 1;
            cur[d]++;
            continue;
        }
        d++;
        cur[d] = fixed && fixed[d] ? fixed_cfg[d] : 0;
    }
}

int kt_space_enumerate(kt_space *s, kt_space_visit visit, void *user,
                       kt_space_stats *stats)
{
    kt_space_stats local = {0};
    space_dfs(s, NULL, NULL, visit, user, stats ? stats : &local);
    return KT_OK;
}

static int visit_count(void *user, const uint16_t *cfg)
{
    (void)cfg;
    ++*(uint64_t *)user;
    return 0;
}

int kt_space_count(kt_space *s, uint64_t *count, kt_space_stats *stats)
{
    *count = 0;
    return kt_space_enumerate(s, visit_count, count, stats);
}

static int visit_stop(void *user, const uint16_t *cfg)
{
    (void)user;
    (void)cfg;
    return 1;
}

int kt_space_satisfiable(kt_space *s, const uint16_t *cfg, const bool *bound,
                         bool *out)
{
    kt_space_stats st = {0};
    for (size_t d = 0; d < s->nparams; d++)
        if (bound[d] && cfg[d] >= s->spec->params[d].nvalues)
            return KT_ERANGE;
    *out = space_dfs(s, cfg, bound, visit_stop, NULL, &st) == 1;
    return KT_OK;
}

bool kt_space_is_valid(kt_space *s, const uint16_t *cfg)
{
    if (s->unsat_constant)
        return false;
    kt_space_stats st = {0};
    for (size_t d = 0; d < s->nparams; d++)
        if (cfg[d] >= s->spec->params[d].nvalues || !bind_ok(s, d, cfg[d], &st))
            return false;
    return true;
}

/* ------------------------------------------------------ materialisation */

typedef struct build_ctx {
    kt_space *s;
    uint64_t limit, cap;
    bool oom, over;
} build_ctx;

static int visit_build(void *user, const uint16_t *cfg)
{
    build_ctx *b = user;
    kt_space *s = b->s;
    if (s->nbuilt == b->limit) {
        b->over = true;
        return 1;
    }
    if (s->nbuilt == b->cap) {
        uint64_t cap = b->cap ? b->cap * 2 : 1024;
        uint16_t *p = realloc(s->built, cap * s->nparams * sizeof *p);
        if (!p) {
            b->oom = true;
            return 1;
        }
        s->built = p;
        b->cap = cap;
    }
    memcpy(s->built + s->nbuilt * s->nparams, cfg, s->nparams * sizeof *cfg);
    s->nbuilt++;
    return 0;
}

int kt_space_build(kt_space *s, uint64_t limit, kt_diag *diag)
{
    free(s->built);
    s->built = NULL;
    s->nbuilt = 0;
    build_ctx b = {s, limit, 0, false, false};
    kt_space_enumerate(s, visit_build, &b, NULL);
    if (b.oom || b.over) {
        free(s->built);
        s->built = NULL;
        s->nbuilt = 0;
        return b.oom ? kt_fail(diag, KT_ENOMEM, "out of memory listing the space")
                     : kt_fail(diag, KT_ERANGE, "the space has more than %llu valid "
                               "configurations", (unsigned long long)limit);
    }
    if (s->nbuilt == 0 && kt_space_domain_error(s, diag) != KT_OK)
        return KT_EDOMAIN; /* empty because a condition cannot be evaluated */
    if (!s->built) /* an empty space is built too: remember that */
        s->built = malloc(sizeof *s->built);
    return s->built ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
}

int kt_space_domain_error(const kt_space *s, kt_diag *diag)
{
    const kt_expr *e = s->domain_cond;
    if (!e)
        return KT_OK;
    kt_buf b = {0};
    for (size_t i = 0; i < kt_expr_nslots(e); i++) {
        size_t slot = kt_expr_slots(e)[i];
        kt_buf_appendf(&b, "%s%s=%.17g", i ? "," : "", s->spec->names[slot],
                       s->domain_slots[slot]);
    }
    char *at = kt_buf_take(&b);
    int rc = kt_fail(diag, KT_EDOMAIN, "%s: the condition \"%s\" cannot be evaluated "
                     "for %s (division by zero or another domain error)",
                     s->spec->path, kt_expr_source(e), at ? at : "?");
    free(at);
    return rc;
}

bool kt_space_is_built(const kt_space *s) { return s->built != NULL; }
uint64_t kt_space_size(const kt_space *s) { return s->nbuilt; }

const uint16_t *kt_space_at(const kt_space *s, uint64_t i)
{
    return i < s->nbuilt ? s->built + i * s->nparams : NULL;
}

static int cfg_cmp(const uint16_t *a, const uint16_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

int kt_space_index_of(const kt_space *s, const uint16_t *cfg, uint64_t *idx)
{
    uint64_t lo = 0, hi = s->nbuilt;
    while (lo < hi) { /* the list is sorted: the DFS emits lexicographic order */
        uint64_t mid = lo + (hi - lo) / 2;
        int c = cfg_cmp(kt_space_at(s, mid), cfg, s->nparams);
        if (c == 0) {
            *idx = mid;
            return KT_OK;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return KT_ENOTFOUND;
}

/* ------------------------------------------------- sampling, neighbours */

int kt_space_sample(kt_space *s, kt_rng *rng, uint16_t *cfg)
{
    if (s->built) {
        if (s->nbuilt == 0)
            return KT_EEMPTY;
        memcpy(cfg, kt_space_at(s, kt_rng_below(rng, s->nbuilt)),
               s->nparams * sizeof *cfg);
        return KT_OK;
    }
    for (int attempt = 0; attempt < 1000000; attempt++) {
        for (size_t d = 0; d < s->nparams; d++)
            cfg[d] = (uint16_t)kt_rng_below(rng, s->spec->params[d].nvalues);
        if (kt_space_is_valid(s, cfg))
            return KT_OK;
    }
    return KT_EEMPTY;
}

int kt_space_neighbours(kt_space *s, const uint16_t *cfg, kt_neighbourhood kind,
                        uint16_t *out, size_t cap, size_t *n)
{
    size_t np = s->nparams;
    uint16_t *cand = malloc(np * sizeof *cand);
    if (!cand)
        return KT_ENOMEM;
    *n = 0;
    for (size_t d = 0; d < np && *n < cap; d++) {
        size_t nv = s->spec->params[d].nvalues;
        for (size_t v = 0; v < nv && *n < cap; v++) {
            bool adjacent = v + 1 == cfg[d] || v == (size_t)cfg[d] + 1;
            if (v == cfg[d] || (kind == KT_NBR_ADJACENT && !adjacent))
                continue;
            memcpy(cand, cfg, np * sizeof *cand);
            cand[d] = (uint16_t)v;
            if (kt_space_is_valid(s, cand))
                memcpy(out + (*n)++ * np, cand, np * sizeof *cand);
        }
    }
    free(cand);
    return KT_OK;
}

void kt_space_default(const kt_space *s, uint16_t *cfg)
{
    for (size_t d = 0; d < s->nparams; d++)
        cfg[d] = (uint16_t)s->spec->params[d].default_index;
}
