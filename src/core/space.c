/* space.c - constraint-pruned enumeration, sampling and neighbourhoods.
 *
 * Every operation runs depth-first searches (space_dfs): parameters are
 * bound in spec order, and at parameter d only the conditions whose last
 * parameter is d are evaluated.  Fixing some parameters (satisfiability
 * checks) just narrows their choice to one value.  Counting and
 * satisfiability search each group of linked parameters alone (space.h);
 * enumeration searches all parameters together, to keep its order.
 *
 * A restricted space (kt_space_restrict, a recording's) has no search to
 * do: each operation answers from the sorted list of valid configurations
 * it was given.
 */
#include "core/space.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POLL_MASK 0xFFFFu   /* poll cancel, bound and progress every 65536 nodes */
#define SAMPLE_TRIES 1000000 /* rejections allowed in one group when sampling */

struct ktune_space {
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
    bool sampled;          /* built holds a random sample, not every one */
    size_t *order;         /* every parameter, in spec order (the whole tree) */
    size_t ngroups;        /* groups of parameters linked by conditions */
    size_t *gparams;       /* group g is gparams[gstart[g]..gstart[g+1]) */
    size_t *gstart;        /* ngroups + 1 entries */
    size_t *gsearch;       /* groups with conditions, smallest Cartesian first */
    size_t nsearch;
    kt_space_ctl ctl;
    kt_diag err;           /* the last failure's message */
    const kt_expr *domain_cond; /* the first condition that raised a domain
                                   error, for kt_space_domain_error */
    double *domain_slots;       /* the slots it raised it on */
    const uint16_t *allowed;    /* kt_space_restrict: the valid configurations,
                                   sorted (nallowed * nparams); NULL: the
                                   conditions decide */
    uint64_t nallowed;
};

/* One depth-first search: its tree, its constraints and its counters. */
typedef struct dfs {
    const size_t *ord;      /* parameters bound in this order (spec order) */
    size_t n;
    const uint16_t *fixed_cfg; /* fixed[p]: parameter p only takes fixed_cfg[p] */
    const bool *fixed;
    kt_space_visit visit;   /* called on each complete assignment of ord */
    void *user;
    kt_space_stats *st;
    size_t group;           /* for progress: 1-based group number, or 0 */
} dfs;

static void unbuild(kt_space *s);
static bool list_find(const kt_space *s, const uint16_t *list, uint64_t n,
                         const uint16_t *cfg, uint64_t *idx);

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

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* The Cartesian size of n parameters (saturating). */
static uint64_t cartesian_of(const kt_space *s, const size_t *params, size_t n)
{
    uint64_t size = 1;
    for (size_t i = 0; i < n; i++)
        size = mul_sat(size, s->spec->params[params[i]].nvalues);
    return size;
}

static size_t uf_root(size_t *parent, size_t p)
{
    while (parent[p] != p)
        p = parent[p] = parent[parent[p]];
    return p;
}

/* Link the parameters each condition reads (union-find), then lay the
 * groups out in order of their first parameter, members in spec order. */
static void find_groups(kt_space *s, size_t *parent, size_t *gid)
{
    size_t n = s->nparams;
    for (size_t p = 0; p < n; p++)
        parent[p] = p;
    for (size_t c = 0; c < s->spec->nconds; c++) {
        const kt_expr *e = s->spec->conds[c];
        size_t first = n;
        for (size_t i = 0; i < kt_expr_nslots(e) && kt_expr_slots(e)[i] < n; i++) {
            size_t r = uf_root(parent, kt_expr_slots(e)[i]);
            if (first == n)
                first = r;
            else if (r != uf_root(parent, first))
                parent[r] = uf_root(parent, first);
        }
    }
    /* group ids by first parameter; a root need not be its group's first */
    for (size_t p = 0; p < n; p++)
        gid[p] = n;
    for (size_t p = 0; p < n; p++) {
        size_t r = uf_root(parent, p);
        if (gid[r] == n)
            gid[r] = s->ngroups++;
    }
    size_t fill = 0;
    for (size_t g = 0; g < s->ngroups; g++) {
        s->gstart[g] = fill;
        for (size_t p = 0; p < n; p++)
            if (gid[uf_root(parent, p)] == g)
                s->gparams[fill++] = p;
    }
    s->gstart[s->ngroups] = fill;
}

static bool group_has_conditions(const kt_space *s, size_t g)
{
    for (size_t i = s->gstart[g]; i < s->gstart[g + 1]; i++)
        if (s->ncond_at[s->gparams[i]] > 0)
            return true;
    return false;
}

static uint64_t group_cartesian(const kt_space *s, size_t g)
{
    return cartesian_of(s, s->gparams + s->gstart[g], s->gstart[g + 1] - s->gstart[g]);
}

/* The groups that need a search, smallest first: an empty small group
 * ends a count before a large one is searched. */
static void order_searches(kt_space *s)
{
    for (size_t g = 0; g < s->ngroups; g++) {
        if (!group_has_conditions(s, g))
            continue;
        size_t i = s->nsearch++;
        for (; i > 0 && group_cartesian(s, s->gsearch[i - 1]) > group_cartesian(s, g); i--)
            s->gsearch[i] = s->gsearch[i - 1];
        s->gsearch[i] = g;
    }
}

static int plan_groups(kt_space *s)
{
    size_t n = s->nparams;
    size_t *parent = malloc((2 * n + 1) * sizeof *parent); /* and group ids */
    s->order = malloc((n ? n : 1) * sizeof *s->order);
    s->gparams = malloc((n ? n : 1) * sizeof *s->gparams);
    s->gstart = malloc((n + 1) * sizeof *s->gstart);
    s->gsearch = malloc((n ? n : 1) * sizeof *s->gsearch);
    int rc = parent && s->order && s->gparams && s->gstart && s->gsearch ? KT_OK
                                                                        : KT_ENOMEM;
    if (rc == KT_OK) {
        for (size_t p = 0; p < n; p++)
            s->order[p] = p;
        find_groups(s, parent, parent + n);
        order_searches(s);
    }
    free(parent);
    return rc;
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
    s->cursor = calloc(s->nparams ? s->nparams : 1, sizeof *s->cursor);
    if (!s->slots || !s->cursor) {
        kt_space_free(s);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    /* Slots hold the problem first: conditions over problem values alone
     * are decided once, while scheduling. */
    kt_spec_slots(spec, NULL, prob, s->slots);
    if (schedule_conditions(s) != KT_OK || plan_groups(s) != KT_OK) {
        kt_space_free(s);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    kt_space_set_ctl(s, NULL);
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
    free(s->order);
    free(s->gparams);
    free(s->gstart);
    free(s->gsearch);
    free(s->domain_slots);
    free(s);
}

void kt_space_set_ctl(kt_space *s, const kt_space_ctl *ctl)
{
    s->ctl = ctl ? *ctl : (kt_space_ctl){0};
    if (s->ctl.max_evals == 0)
        s->ctl.max_evals = KT_SPACE_MAX_EVALS;
}

/* The recorded list decides validity; every parameter is one group, since
 * nothing says which of them vary independently. */
void kt_space_restrict(kt_space *s, const uint16_t *cfgs, uint64_t n)
{
    unbuild(s);
    s->allowed = cfgs;
    s->nallowed = n;
    s->unsat_constant = false;
    s->ngroups = s->nparams ? 1 : 0;
    s->nsearch = 0;
    s->gstart[0] = 0;
    s->gstart[s->ngroups] = s->nparams;
    for (size_t p = 0; p < s->nparams; p++)
        s->gparams[p] = p;
}

const char *kt_space_errmsg(const kt_space *s) { return s->err.msg; }

size_t kt_space_nparams(const kt_space *s) { return s->nparams; }
const kt_spec *kt_space_spec(const kt_space *s) { return s->spec; }
size_t kt_space_ngroups(const kt_space *s) { return s->ngroups; }

const size_t *kt_space_group(const kt_space *s, size_t g, size_t *n)
{
    *n = g < s->ngroups ? s->gstart[g + 1] - s->gstart[g] : 0;
    return g < s->ngroups ? s->gparams + s->gstart[g] : NULL;
}

void kt_space_slots(const kt_space *s, const uint16_t *cfg, double *slots)
{
    /* the scratch slots keep the problem's values past the parameters */
    memcpy(slots, s->slots, s->spec->nnames * sizeof *slots);
    kt_spec_slots(s->spec, cfg, NULL, slots);
}

uint64_t kt_space_cartesian(const kt_space *s)
{
    return cartesian_of(s, s->order, s->nparams);
}

/* ----------------------------------------------------------------- DFS */

/* Bind parameter d to value v and check the conditions due at d. */
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

/* "P0, P1, ..., P19 (20 parameters, 1e+20 combinations)" */
static void describe_tree(const kt_space *s, const dfs *w, char *buf, size_t len)
{
    size_t at = 0;
    for (size_t k = 0; k < w->n && k < 4 && at < len; k++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", k ? ", " : "",
                               s->spec->params[w->ord[k]].name);
    double combos = 1;
    for (size_t k = 0; k < w->n; k++)
        combos *= s->spec->params[w->ord[k]].nvalues;
    if (at < len)
        snprintf(buf + at, len - at, "%s (%zu parameters, %.3g combinations)",
                 w->n > 4 ? ", ..." : "", w->n, combos);
}

/* Every POLL_MASK + 1 nodes: the cancel flag, the bound, progress. */
static int dfs_poll(kt_space *s, const dfs *w)
{
    const kt_space_ctl *c = &s->ctl;
    char tree[160];
    if (c->cancel && *c->cancel) {
        describe_tree(s, w, tree, sizeof tree);
        return kt_fail(&s->err, KT_ECANCELED, "stopped on request after %llu "
                       "condition evaluations, searching %s",
                       (unsigned long long)w->st->evals, tree);
    }
    if (w->st->evals > c->max_evals) {
        describe_tree(s, w, tree, sizeof tree);
        return kt_fail(&s->err, KT_ERANGE, "stopped at the bound of %llu condition "
                       "evaluations, searching %s, with %llu valid found in it so "
                       "far; hint: give conditions that each read fewer parameters "
                       "or fewer values to search",
                       (unsigned long long)c->max_evals, tree,
                       (unsigned long long)w->st->valid);
    }
    if (c->progress) {
        kt_space_progress p = {.st = *w->st, .max_evals = c->max_evals,
                               .group = w->group, .ngroups = w->group ? s->nsearch : 0,
                               .group_params = w->n};
        double scale = 1;
        for (size_t k = 0; k < w->n; k++) {
            scale /= s->spec->params[w->ord[k]].nvalues;
            p.fraction += s->cursor[w->ord[k]] * scale;
        }
        c->progress(c->user, &p);
    }
    return KT_OK;
}

static uint16_t dfs_first(const dfs *w, size_t p)
{
    return w->fixed && w->fixed[p] ? w->fixed_cfg[p] : 0;
}

static bool dfs_exhausted(const kt_space *s, const dfs *w, size_t p, uint16_t v)
{
    return w->fixed && w->fixed[p] ? v != w->fixed_cfg[p]
                                   : v >= s->spec->params[p].nvalues;
}

/* Depth-first search over the valid assignments of w->ord.  Returns 1 if
 * visit stopped it, 0 at the end, or a negative error (cancel, bound). */
static int space_dfs(kt_space *s, const dfs *w)
{
    uint16_t *cur = s->cursor;
    if (s->unsat_constant || w->n == 0)
        return 0;
    size_t k = 0;
    cur[w->ord[0]] = dfs_first(w, w->ord[0]);
    for (;;) {
        size_t p = w->ord[k];
        if (dfs_exhausted(s, w, p, cur[p])) {
            if (k == 0)
                return 0;
            cur[w->ord[--k]]++;
            continue;
        }
        bool ok = bind_ok(s, p, cur[p], w->st);
        int rc = (w->st->nodes & POLL_MASK) == 0 ? dfs_poll(s, w) : KT_OK;
        if (rc != KT_OK)
            return rc;
        if (!ok) {
            cur[p]++;
            continue;
        }
        if (k + 1 == w->n) {
            w->st->valid++;
            if (w->visit(w->user, cur))
                return 1;
            cur[p]++;
            continue;
        }
        k++;
        cur[w->ord[k]] = dfs_first(w, w->ord[k]);
    }
}

static int visit_stop(void *user, const uint16_t *cfg)
{
    (void)user;
    (void)cfg;
    return 1;
}

static int visit_none(void *user, const uint16_t *cfg)
{
    (void)user;
    (void)cfg;
    return 0;
}

/* Does every group have a valid assignment (with the fixed values)?
 * Searching each group alone stops at its first valid assignment. */
static int groups_satisfiable(kt_space *s, const uint16_t *cfg, const bool *bound,
                              bool *out, kt_space_stats *st)
{
    *out = !s->unsat_constant;
    for (size_t i = 0; i < s->nsearch && *out; i++) {
        size_t g = s->gsearch[i];
        dfs w = {.ord = s->gparams + s->gstart[g], .n = s->gstart[g + 1] - s->gstart[g],
                 .fixed_cfg = cfg, .fixed = bound, .visit = visit_stop, .st = st,
                 .group = i + 1};
        int rc = space_dfs(s, &w);
        if (rc < 0)
            return rc;
        *out = rc == 1;
    }
    return KT_OK;
}

int kt_space_enumerate(kt_space *s, kt_space_visit visit, void *user,
                       kt_space_stats *stats)
{
    kt_space_stats local = {0};
    kt_space_stats *st = stats ? stats : &local;
    s->err.msg[0] = '\0';
    if (s->allowed) {
        for (uint64_t i = 0; i < s->nallowed; i++, st->valid++)
            if (visit(user, s->allowed + i * s->nparams))
                break;
        return KT_OK;
    }
    /* An empty group empties the space: find out before searching the
     * whole tree, where it might only show deep down. */
    bool any;
    int rc = groups_satisfiable(s, NULL, NULL, &any, st);
    st->valid = 0;
    if (rc != KT_OK || !any)
        return rc;
    dfs w = {.ord = s->order, .n = s->nparams, .visit = visit, .user = user, .st = st};
    rc = space_dfs(s, &w);
    return rc < 0 ? rc : KT_OK;
}

/* Count each group's valid assignments into (*counts)[0..ngroups), with
 * one more factor, 0 when a problem-only condition fails; st->valid gets
 * their product (saturating).  *counts is the caller's to free. */
static int count_groups(kt_space *s, uint64_t **counts, kt_space_stats *st)
{
    uint64_t *c = *counts = malloc((s->ngroups + 1) * sizeof *c);
    if (!c)
        return KT_ENOMEM;
    s->err.msg[0] = '\0';
    for (size_t g = 0; g < s->ngroups; g++)
        c[g] = s->allowed ? s->nallowed : group_cartesian(s, g);
    c[s->ngroups] = s->unsat_constant ? 0 : 1;
    for (size_t i = 0; i < s->nsearch && !s->unsat_constant; i++) {
        size_t g = s->gsearch[i];
        kt_space_stats gst = {.nodes = st->nodes, .evals = st->evals};
        dfs w = {.ord = s->gparams + s->gstart[g], .n = s->gstart[g + 1] - s->gstart[g],
                 .visit = visit_none, .st = &gst, .group = i + 1};
        int rc = space_dfs(s, &w);
        st->nodes = gst.nodes;
        st->evals = gst.evals;
        if (rc < 0)
            return rc;
        c[g] = gst.valid;
        if (gst.valid == 0)
            break; /* the space is empty: the other groups do not matter */
    }
    st->valid = 1;
    for (size_t g = 0; g <= s->ngroups; g++)
        st->valid = mul_sat(st->valid, c[g]);
    return KT_OK;
}

/* Multiply the n-limb number a (base 2^32) by f into b (n + 2 limbs). */
static void limbs_mul(const uint32_t *a, size_t n, uint64_t f, uint32_t *b)
{
    memset(b, 0, (n + 2) * sizeof *b);
    for (size_t half = 0; half < 2; half++) {
        uint64_t m = (uint32_t)(f >> (32 * half)), carry = 0;
        for (size_t j = 0; j < n || carry; j++) { /* at most 2^64 - 1: fits */
            uint64_t t = (uint64_t)b[j + half] + carry + (j < n ? a[j] * m : 0);
            b[j + half] = (uint32_t)t;
            carry = t >> 32;
        }
    }
}

/* The product of n counts in decimal, exact at any size. */
static char *product_text(const uint64_t *f, size_t n)
{
    size_t cap = 2 * n + 3, len = 1;
    uint32_t *a = calloc(cap, sizeof *a), *b = calloc(cap, sizeof *b);
    size_t size = 10 * cap + 10; /* 32 bits < 10 digits per limb */
    char *text = malloc(size);
    if (a && b && text) {
        a[0] = 1;
        for (size_t i = 0; i < n; i++) {
            limbs_mul(a, len, f[i], b);
            memcpy(a, b, cap * sizeof *a);
            for (len = cap; len > 1 && a[len - 1] == 0; len--)
                ;
        }
        size_t at = size - 1; /* 9 digits at a time, from the right */
        text[at] = '\0';
        do {
            uint64_t rem = 0;
            for (size_t j = len; j-- > 0;) {
                uint64_t t = rem << 32 | a[j];
                a[j] = (uint32_t)(t / 1000000000u);
                rem = t % 1000000000u;
            }
            for (; len > 1 && a[len - 1] == 0; len--)
                ;
            for (int k = 0; k < 9; k++, rem /= 10)
                text[--at] = (char)('0' + rem % 10);
        } while (len > 1 || a[0] != 0);
        while (text[at] == '0' && text[at + 1] != '\0')
            at++;
        memmove(text, text + at, size - at);
    } else {
        free(text);
        text = NULL;
    }
    free(a);
    free(b);
    return text;
}

int kt_space_count(kt_space *s, uint64_t *count, kt_space_stats *stats)
{
    kt_space_stats local = {0};
    kt_space_stats *st = stats ? stats : &local;
    uint64_t *counts = NULL;
    int rc = count_groups(s, &counts, st);
    *count = rc == KT_OK ? st->valid : 0;
    free(counts);
    return rc;
}

int kt_space_count_text(kt_space *s, char **text, kt_space_stats *stats)
{
    kt_space_stats local = {0};
    uint64_t *counts = NULL;
    int rc = count_groups(s, &counts, stats ? stats : &local);
    *text = NULL;
    if (rc == KT_OK && !(*text = product_text(counts, s->ngroups + 1)))
        rc = KT_ENOMEM;
    free(counts);
    return rc;
}

int kt_space_satisfiable(kt_space *s, const uint16_t *cfg, const bool *bound,
                         bool *out)
{
    kt_space_stats st = {0};
    for (size_t d = 0; d < s->nparams; d++)
        if (bound[d] && cfg[d] >= s->spec->params[d].nvalues)
            return KT_ERANGE;
    s->err.msg[0] = '\0';
    if (s->allowed) {
        *out = false;
        for (uint64_t i = 0; i < s->nallowed && !*out; i++) {
            const uint16_t *a = s->allowed + i * s->nparams;
            *out = true;
            for (size_t d = 0; d < s->nparams && *out; d++)
                *out = !bound[d] || a[d] == cfg[d];
        }
        return KT_OK;
    }
    return groups_satisfiable(s, cfg, bound, out, &st);
}

bool kt_space_is_valid(kt_space *s, const uint16_t *cfg)
{
    uint64_t idx;
    if (s->allowed)
        return list_find(s, s->allowed, s->nallowed, cfg, &idx);
    if (s->unsat_constant)
        return false;
    kt_space_stats st = {0};
    for (size_t d = 0; d < s->nparams; d++)
        if (cfg[d] >= s->spec->params[d].nvalues || !bind_ok(s, d, cfg[d], &st))
            return false;
    return true;
}

/* ------------------------------------------------------ materialisation */

static void unbuild(kt_space *s)
{
    free(s->built);
    s->built = NULL;
    s->nbuilt = 0;
    s->sampled = false;
}

static int visit_build(void *user, const uint16_t *cfg)
{
    kt_space *s = user;
    memcpy(s->built + s->nbuilt++ * s->nparams, cfg, s->nparams * sizeof *cfg);
    return 0;
}

static int build_fail(kt_space *s, int rc, kt_diag *diag)
{
    unbuild(s);
    if (rc == KT_ENOMEM)
        return kt_fail(diag, rc, "out of memory listing the space");
    return kt_fail(diag, rc, "%s", s->err.msg);
}

int kt_space_build(kt_space *s, uint64_t limit, kt_diag *diag)
{
    unbuild(s);
    /* Count first: a space too large to list is refused at once, with its
     * size, instead of after listing the first limit configurations. */
    uint64_t count;
    int rc = kt_space_count(s, &count, NULL);
    if (rc == KT_ERANGE || rc == KT_ECANCELED)
        kt_diag_prefix(&s->err, "counting the space");
    if (rc == KT_OK && count > limit) {
        char *text = NULL;
        kt_space_count_text(s, &text, NULL);
        kt_fail(&s->err, KT_ERANGE, "the space has %s valid configurations, more "
                "than %llu (the most listed in memory); hint: add conditions or "
                "narrow the parameters' values, or tune with --strategy random, "
                "which samples it", text ? text : "too many",
                (unsigned long long)limit);
        free(text);
        rc = KT_ERANGE;
    }
    size_t row = s->nparams * sizeof *s->built + 1;
    if (rc == KT_OK && (count > SIZE_MAX / row ||
                        !(s->built = malloc((count ? count : 1) * row))))
        rc = KT_ENOMEM;
    if (rc == KT_OK)
        rc = kt_space_enumerate(s, visit_build, s, NULL);
    if (rc == KT_OK && s->nbuilt == 0 && kt_space_domain_error(s, &s->err) != KT_OK)
        rc = KT_EDOMAIN; /* empty because a condition cannot be evaluated */
    return rc == KT_OK ? KT_OK : build_fail(s, rc, diag);
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
bool kt_space_is_sample(const kt_space *s) { return s->sampled; }
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

/* Binary search of cfg in the sorted list of n configurations. */
static bool list_find(const kt_space *s, const uint16_t *list, uint64_t n,
                         const uint16_t *cfg, uint64_t *idx)
{
    uint64_t lo = 0, hi = n;
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        int c = cfg_cmp(list + mid * s->nparams, cfg, s->nparams);
        if (c == 0) {
            *idx = mid;
            return true;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return false;
}

int kt_space_index_of(const kt_space *s, const uint16_t *cfg, uint64_t *idx)
{
    /* the list is sorted: the DFS emits lexicographic order */
    return list_find(s, s->built, s->nbuilt, cfg, idx) ? KT_OK : KT_ENOTFOUND;
}

/* ------------------------------------------------- sampling, neighbours */

/* Draw group g's parameters until its conditions hold; a uniform draw
 * among the group's valid assignments. */
static bool group_sample(kt_space *s, size_t g, kt_rng *rng, uint16_t *cfg,
                         kt_space_stats *st)
{
    const size_t *ps = s->gparams + s->gstart[g];
    size_t n = s->gstart[g + 1] - s->gstart[g];
    for (int attempt = 0; attempt < SAMPLE_TRIES; attempt++) {
        bool ok = true;
        for (size_t k = 0; k < n; k++)
            cfg[ps[k]] = (uint16_t)kt_rng_below(rng, s->spec->params[ps[k]].nvalues);
        for (size_t k = 0; k < n && ok; k++)
            ok = bind_ok(s, ps[k], cfg[ps[k]], st);
        if (ok)
            return true;
    }
    return false;
}

/* A uniform draw among the valid configurations without the built list:
 * the valid set is the product of the groups' valid sets, so drawing each
 * group alone is uniform, with far fewer rejections.  Returns the number
 * of the group that found no valid assignment, or -1 on success. */
static long sample_groups(kt_space *s, kt_rng *rng, uint16_t *cfg, kt_space_stats *st)
{
    if (s->allowed) {
        if (s->nallowed == 0)
            return 0;
        memcpy(cfg, s->allowed + kt_rng_below(rng, s->nallowed) * s->nparams,
               s->nparams * sizeof *cfg);
        return -1;
    }
    for (size_t g = 0; g < s->ngroups; g++)
        if (s->unsat_constant || !group_sample(s, g, rng, cfg, st))
            return (long)g;
    return -1;
}

int kt_space_sample(kt_space *s, kt_rng *rng, uint16_t *cfg)
{
    if (s->built) {
        if (s->nbuilt == 0)
            return KT_EEMPTY;
        memcpy(cfg, kt_space_at(s, kt_rng_below(rng, s->nbuilt)),
               s->nparams * sizeof *cfg);
        return KT_OK;
    }
    kt_space_stats st = {0};
    return sample_groups(s, rng, cfg, &st) < 0 ? KT_OK : KT_EEMPTY;
}

static int cfg_order(const void *a, const void *b, void *np)
{
    return cfg_cmp(a, b, *(const size_t *)np);
}

/* Sort built[0..n) and drop repeats; returns how many stay. */
static uint64_t sort_unique(kt_space *s, uint64_t n)
{
    size_t np = s->nparams, row = np * sizeof *s->built;
    qsort_r(s->built, n, row, cfg_order, &np);
    uint64_t kept = 0;
    for (uint64_t i = 0; i < n; i++)
        if (kept == 0 || cfg_cmp(s->built + (kept - 1) * np, s->built + i * np, np))
            memmove(s->built + kept++ * np, s->built + i * np, row);
    return kept;
}

/* The message when group g has no valid assignment the draws could find. */
static int sample_fail(kt_space *s, long g, kt_diag *diag)
{
    char tree[160];
    dfs w = {.ord = s->gparams + s->gstart[g], .n = s->gstart[g + 1] - s->gstart[g]};
    describe_tree(s, &w, tree, sizeof tree);
    unbuild(s);
    return kt_fail(diag, KT_EEMPTY, "sampling the space: %d random draws of %s "
                   "found no valid assignment", SAMPLE_TRIES, tree);
}

int kt_space_build_sample(kt_space *s, uint64_t n, kt_rng *rng, kt_diag *diag)
{
    unbuild(s);
    size_t np = s->nparams;
    if (n == 0 || n > SIZE_MAX / (np * sizeof *s->built + 1) ||
        !(s->built = malloc(n * np * sizeof *s->built)))
        return kt_fail(diag, KT_ENOMEM, "out of memory sampling the space");
    uint64_t have = 0;
    kt_space_default(s, s->built);
    if (kt_space_is_valid(s, s->built))
        have = 1; /* the default configuration: the tuner's baseline */
    /* Draw what is missing, then drop repeats: the distinct draws of an
     * i.i.d. uniform sequence form a uniform random subset.  Few repeats
     * occur when the space is much larger than n; 4n + 1000 draws in all,
     * or rare valid configurations reaching the bound on evaluations, end
     * the drawing with the sample drawn so far. */
    kt_space_stats st = {0};
    bool stop = false;
    for (uint64_t draws = 0; have < n && !stop && draws < 4 * n + 1000;) {
        uint64_t i = have;
        for (; i < n && !(stop = st.evals > s->ctl.max_evals); i++, draws++) {
            long g = sample_groups(s, rng, s->built + i * np, &st);
            if (g >= 0)
                return sample_fail(s, g, diag);
            if (s->ctl.cancel && *s->ctl.cancel) {
                unbuild(s);
                return kt_fail(diag, KT_ECANCELED, "sampling the space: stopped "
                               "on request");
            }
        }
        have = sort_unique(s, i);
    }
    s->nbuilt = have;
    s->sampled = true;
    return KT_OK;
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
