/* online.c - online tuning (online.h): candidates built and verified by a
 * background thread, served and timed in the caller's thread, chosen by a
 * policy from a table.
 *
 * Threads: the caller's thread runs kernels and owns each candidate's
 * samples; the background thread owns the backend's compiler, the worker
 * and the database.  They share the problem list and each candidate's
 * state under one mutex, held only for bookkeeping, never across a kernel
 * call, a compilation or a database write.
 */
#include "tune/online.h"

#include "core/space.h"
#include "core/util.h"
#include "ml/predict.h"
#include "tune/tuner.h"
#include "tune/warm.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SAMPLES 64 /* the last calls a candidate's median is taken over */
/* Candidates whose medians lie within this share of halving's cut are
 * measured again before it is made: two or four calls decide a close race
 * by noise. */
#define CLOSE 0.05
/* Refinement: at most this many steps to a neighbour, each listing up to
 * two neighbours per parameter of the centre. */
#define REFINE_STEPS 4

typedef enum cand_state {
    CAND_QUEUED,  /* listed, not built yet */
    CAND_READY,   /* loaded in-process: may serve */
    CAND_DEAD     /* failed to build, load or verify */
} cand_state;

typedef struct cand {
    uint16_t *cfg;
    char *key;
    cand_state state;         /* under the mutex */
    bool verified;            /* the worker passed it, or the database had */
    void *kernel;             /* set by the background thread before READY */
    /* the caller's thread */
    bool dropped;             /* the policy took it out of the race */
    uint64_t calls;           /* calls served, cold and contended included */
    double samples[SAMPLES];
    size_t n;                 /* quiet warm calls (samples holds the last) */
    unsigned bonus;           /* calls asked beyond the round's quota */
    double med;               /* median of samples; NAN before the first */
    /* the stored row */
    bool want_record, recorded;
    kt_result rec;
} cand;

typedef struct oproblem {
    kt_problem prob;
    kt_space *space;
    cand *c;                  /* nc candidates of cap; the listing's are
                                 fixed, refinement appends (under the
                                 mutex once listed) */
    size_t nc, cap;
    bool listed;              /* under the mutex */
    int list_rc;              /* listing failed: the code and message */
    char list_msg[512];
    size_t next_build;        /* next candidate to build (under the mutex) */
    size_t built;             /* candidates built or failed (under the mutex) */
    int64_t db_problem;
    kt_worker *worker;
    /* the caller's thread */
    size_t best;              /* SIZE_MAX before the first call */
    uint64_t calls, explored;
    double time_ms, extra_ms;
    unsigned round;           /* successive halving */
    bool rechecked;           /* this round's close ones were re-measured */
    size_t center;            /* refining around it (SIZE_MAX: not yet) */
    size_t center2;           /* and this one (SIZE_MAX: none) */
    unsigned refines;         /* refinement steps made */
    bool refine_wanted;       /* under the mutex: the background thread is
                                 to list center's neighbours */
    bool converged;
} oproblem;

/* A policy: which candidate explores, and what a call's time changes.  A
 * policy sees the candidates' states, samples and medians (updated before
 * observe is called) and may drop candidates (drop_cand). */
typedef struct kt_online_policy {
    const char *name;
    /* A READY live candidate to run now, or SIZE_MAX: serve the best. */
    size_t (*explore)(oproblem *p);
    /* After a call of candidate i. */
    void (*observe)(oproblem *p, size_t i);
} kt_online_policy;

struct kt_online {
    const kt_spec *spec;
    kt_online_opts opts;
    const kt_online_policy *policy;
    const kt_backend *be;
    void *be_ctx;
    kt_db *db;
    int64_t db_device, db_kernel;
    char device[128];
    kt_rng rng;
    pthread_t thread;
    bool thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* the background thread has work / did work */
    bool stop;
    bool busy;                /* the background thread builds */
    uint64_t busy_epoch;      /* builds started: a call saw none if unchanged */
    bool quiet_wanted;        /* the last call would have explored */
    bool held;                /* kt_online_hold: no job until the next call */
    bool working;             /* the background thread runs a job */
    oproblem **p;
    size_t np, cap;
};

kt_online_opts kt_online_defaults(void)
{
    kt_online_opts o = {0};
    o.measure = kt_measure_defaults();
    /* Verification runs the candidate once; its timing is not used. */
    o.measure.min_reps = 1;
    o.measure.max_reps = 1;
    o.measure.min_time_s = 0;
    o.measure.energy_window_s = 0;
    o.explore_share = 0.1;
    o.explore_overhead = 0.1;
    o.drop_factor = 2.0;
    o.candidates = 16;
    o.warm = KT_WARM_DEFAULT;
    o.model_k = 8;
    /* Compilers at once, beside the application: half the cores (the
     * caller's samples taken meanwhile are not used anyway), up to 8. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o.backend.jobs = cpus >= 16 ? 8 : cpus >= 2 ? (int)(cpus / 2) : 1;
    o.seed = 1;
    return o;
}

/* ---------------------------------------------------------- statistics */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The sorted last samples of c into buf; their count. */
static size_t sorted_samples(const cand *c, double *buf)
{
    size_t m = c->n < SAMPLES ? c->n : SAMPLES;
    memcpy(buf, c->samples, m * sizeof *buf);
    qsort(buf, m, sizeof *buf, cmp_double);
    return m;
}

static void add_sample(cand *c, double ms)
{
    c->samples[c->n % SAMPLES] = ms;
    c->n++;
    double buf[SAMPLES];
    size_t m = sorted_samples(c, buf);
    c->med = m % 2 ? buf[m / 2] : 0.5 * (buf[m / 2 - 1] + buf[m / 2]);
}

/* The row a candidate's calls make in the database. */
static void make_record(cand *c)
{
    double buf[SAMPLES];
    size_t m = sorted_samples(c, buf);
    kt_result *r = &c->rec;
    *r = (kt_result){.status = KT_STATUS_OK, .energy_j = NAN, .power_w = NAN};
    r->time_ms = c->med;
    r->min_ms = buf[0];
    r->spread = c->med > 0 ? (buf[(3 * m) / 4] - buf[m / 4]) / c->med : 0;
    r->reps = (int)(c->n > INT32_MAX ? INT32_MAX : c->n);
    snprintf(r->detail, sizeof r->detail, "online: median of the last %zu of %zu "
             "production calls", m, c->n);
    c->want_record = true;
}

static bool live(const cand *c)
{
    return c->state != CAND_DEAD && !c->dropped;
}

static bool servable(const cand *c)
{
    return c->state == CAND_READY && !c->dropped;
}

/* Take candidate i out of the race; its calls so far are stored. */
static void drop_cand(oproblem *p, size_t i)
{
    cand *c = &p->c[i];
    c->dropped = true;
    if (c->n > 0 && !c->recorded)
        make_record(c);
}

/* The servable candidate with the lowest median; one never run when none
 * has run yet; SIZE_MAX when none is servable. */
static size_t find_best(const oproblem *p)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < p->nc; i++) {
        const cand *c = &p->c[i];
        if (!servable(c))
            continue;
        if (best == SIZE_MAX)
            best = i;
        else if (c->n > 0 && (p->c[best].n == 0 || c->med < p->c[best].med))
            best = i;
    }
    return best;
}

/* ----------------------------------------------------------- policies */

/* Successive halving: round r asks 2^(r+1) calls of every live candidate,
 * then keeps the faster half, until one is left.  Chosen over a bandit
 * because production timings of one kernel are nearly noise-free relative
 * to the differences between configurations, so a fixed doubling schedule
 * spends exploration where it decides something and ends: a converged
 * problem explores no more, where a UCB bandit keeps paying for its
 * confidence bounds forever. */
static unsigned halving_quota(const oproblem *p)
{
    return 2u << (p->round < 20 ? p->round : 20);
}

/* The quiet samples c needs before this round ends. */
static size_t halving_need(const oproblem *p, const cand *c)
{
    return halving_quota(p) + c->bonus;
}

static size_t halving_explore(oproblem *p)
{
    if (p->converged)
        return SIZE_MAX;
    size_t pick = SIZE_MAX;
    for (size_t i = 0; i < p->nc; i++) {
        const cand *c = &p->c[i];
        if (servable(c) && c->n < halving_need(p, c) &&
            (pick == SIZE_MAX || c->n < p->c[pick].n))
            pick = i;
    }
    return pick;
}

static int cmp_med(const void *a, const void *b)
{
    const cand *x = *(const cand *const *)a, *y = *(const cand *const *)b;
    return (x->med > y->med) - (x->med < y->med);
}

/* Once a round, before its cut between order[keep - 1] and order[keep]
 * (sorted by median) is made: the candidates on either side within CLOSE
 * of the other side are asked as many calls again as the round's quota.
 * Whether any was. */
static bool halving_recheck(oproblem *p, cand **order, size_t n, size_t keep)
{
    if (p->rechecked || keep == 0 || keep >= n)
        return false;
    p->rechecked = true;
    double last_kept = order[keep - 1]->med, first_dropped = order[keep]->med;
    bool any = false;
    for (size_t k = 0; k < n; k++) {
        bool close = k < keep ? order[k]->med * (1 + CLOSE) >= first_dropped
                              : order[k]->med <= last_kept * (1 + CLOSE);
        if (close) {
            order[k]->bonus += halving_quota(p);
            any = true;
        }
    }
    return any;
}

/* One candidate, w, is left: the neighbours of a good configuration (one
 * parameter one value away) often hold a faster one, and a few random
 * candidates rarely hold the best, so the background thread lists w's
 * neighbours and they race against it (one round: the fastest stays).
 * The first time, the runner-up r (SIZE_MAX: none) stays in the race with
 * its neighbours too: a second start finds the best more often.
 * Converged when w was the centre already (no neighbour beat it) or after
 * REFINE_STEPS steps. */
static void halving_refine(oproblem *p, size_t w, size_t r)
{
    if (w == SIZE_MAX || w == p->center || p->refines >= REFINE_STEPS) {
        p->converged = true;
        if (w != SIZE_MAX && !p->c[w].recorded)
            make_record(&p->c[w]); /* the winner's row */
        return;
    }
    p->center2 = p->center == SIZE_MAX ? r : SIZE_MAX;
    p->center = w;
    p->refines++;
    p->round = 0;
    p->refine_wanted = true;
}

/* The round ends when every live candidate has its quota (one still being
 * built holds the round open); close ones are measured again first. */
static void halving_observe(oproblem *p, size_t i)
{
    (void)i;
    if (p->converged || p->refine_wanted)
        return;
    size_t nlive = 0;
    for (size_t k = 0; k < p->nc; k++) {
        const cand *c = &p->c[k];
        if (live(c) && (c->state != CAND_READY || c->n < halving_need(p, c)))
            return;
        nlive += live(c);
    }
    cand **order = malloc((nlive ? nlive : 1) * sizeof *order);
    if (!order)
        return; /* tried again after the next call */
    size_t n = 0;
    for (size_t k = 0; k < p->nc; k++)
        if (live(&p->c[k]))
            order[n++] = &p->c[k];
    qsort(order, n, sizeof *order, cmp_med);
    /* A refinement's race is one round: the fastest stays. */
    size_t keep = p->center != SIZE_MAX ? 1 : (n + 1) / 2;
    if (halving_recheck(p, order, n, keep)) {
        free(order);
        return;
    }
    /* Halving's runner-up stays for the first refinement. */
    size_t second = keep == 1 && n > 1 && p->center == SIZE_MAX
                        ? (size_t)(order[1] - p->c) : SIZE_MAX;
    for (size_t k = keep + (second != SIZE_MAX); k < n; k++)
        drop_cand(p, (size_t)(order[k] - p->c));
    for (size_t k = 0; k < p->nc; k++)
        p->c[k].bonus = 0;
    p->round++;
    p->rechecked = false;
    if (keep <= 1)
        halving_refine(p, n > 0 ? (size_t)(order[0] - p->c) : SIZE_MAX, second);
    free(order);
}

/* No exploration: the best known (the database's, else the default) serves. */
static size_t none_explore(oproblem *p)
{
    (void)p;
    return SIZE_MAX;
}

static void none_observe(oproblem *p, size_t i)
{
    (void)i;
    p->converged = true;
}

static const kt_online_policy POLICIES[] = {
    {"halving", halving_explore, halving_observe},
    {"none", none_explore, none_observe},
};

static const kt_online_policy *policy_find(const char *name)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(POLICIES); i++)
        if (strcmp(POLICIES[i].name, name) == 0)
            return &POLICIES[i];
    return NULL;
}

/* ------------------------------------------- listing (background thread) */

/* Add cfg as a candidate of p unless invalid, listed already, the list
 * full, or stored as a failure; one stored as a success is verified. */
static int add_cand(kt_online *on, oproblem *p, const uint16_t *cfg, kt_diag *diag)
{
    const kt_spec *spec = on->spec;
    size_t limit = p->center != SIZE_MAX ? p->cap : on->opts.candidates;
    if (p->nc >= limit || !kt_space_is_valid(p->space, cfg))
        return KT_OK;
    char *key = kt_spec_config_key(spec, cfg);
    if (!key)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    bool found = false;
    kt_result stored;
    int rc = KT_OK;
    for (size_t i = 0; i < p->nc && !found; i++)
        found = strcmp(p->c[i].key, key) == 0;
    if (found) {
        free(key);
        return KT_OK;
    }
    if (on->db)
        rc = kt_db_lookup(on->db, on->db_device, p->db_problem, key, &stored, &found,
                          diag);
    cand *c = &p->c[p->nc];
    c->cfg = rc == KT_OK ? malloc(spec->nparams * sizeof *cfg) : NULL;
    if (rc != KT_OK || !c->cfg || (found && stored.status != KT_STATUS_OK)) {
        free(c->cfg);
        c->cfg = NULL;
        free(key);
        return rc != KT_OK || found ? rc : kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    memcpy(c->cfg, cfg, spec->nparams * sizeof *cfg);
    c->key = key;
    c->verified = found;
    c->med = NAN;
    p->nc++;
    return KT_OK;
}

typedef struct best_row {
    kt_online *on;
    oproblem *p;
    uint16_t *cfg;
    bool found;
} best_row;

static int take_best_row(void *user, const kt_db_row *row)
{
    best_row *b = user;
    if (strcmp(row->source_hash, b->on->spec->source_hash) == 0 &&
        kt_spec_config_parse(b->on->spec, row->config, b->cfg, NULL) == KT_OK)
        b->found = true;
    return b->found;
}

/* The database's fastest configuration for this problem, then the
 * caller's seeds (its own prior: a configuration it trusts serves first),
 * then the default. */
static int list_known(kt_online *on, oproblem *p, uint16_t *cfg, kt_diag *diag)
{
    int rc = KT_OK;
    if (on->db) {
        kt_db_filter f = {.kernel = on->spec->name, .problem = p->prob.key,
                          .device = on->device, .ok_only = true};
        best_row b = {on, p, cfg, false};
        rc = kt_db_best(on->db, &f, take_best_row, &b, diag);
        if (rc == KT_OK && b.found)
            rc = add_cand(on, p, cfg, diag);
    }
    for (size_t i = 0; rc == KT_OK && i < on->opts.nseeds; i++)
        rc = add_cand(on, p, on->opts.seeds + i * on->spec->nparams, diag);
    kt_space_default(p->space, cfg);
    return rc == KT_OK ? add_cand(on, p, cfg, diag) : rc;
}

/* The model's most likely configurations for the problem. */
static int list_model(kt_online *on, oproblem *p, kt_diag *diag)
{
    size_t k = on->opts.model_k, found = 0;
    if (!on->opts.model || k == 0)
        return KT_OK;
    size_t np = on->spec->nparams ? on->spec->nparams : 1;
    uint16_t *cfgs = malloc(k * np * sizeof *cfgs);
    int rc = cfgs ? kt_predict_configs(on->opts.model, on->spec->path, p->prob.key, k,
                                       cfgs, &found, diag)
                  : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < found; i++)
        rc = add_cand(on, p, cfgs + i * on->spec->nparams, diag);
    free(cfgs);
    return rc;
}

/* The nearest problems' winners, as the tuner's warm start takes them. */
static int list_warm(kt_online *on, oproblem *p, kt_diag *diag)
{
    if (!on->db || on->opts.warm == 0)
        return KT_OK;
    kt_winners w = {0};
    size_t n = 0;
    uint16_t *cfgs = malloc(on->opts.warm * on->spec->nparams * sizeof *cfgs);
    int rc = cfgs ? kt_winners_load(on->db, on->spec->name, on->spec->source_hash,
                                    on->device, p->prob.key, &w, diag)
                  : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = kt_warm_starts(on->spec, &p->prob, p->space, &w, on->opts.warm, cfgs, &n,
                            diag);
    for (size_t i = 0; rc == KT_OK && i < n; i++)
        rc = add_cand(on, p, cfgs + i * on->spec->nparams, diag);
    kt_winners_clear(&w);
    free(cfgs);
    return rc;
}

static int list_cands(kt_online *on, oproblem *p, kt_diag *diag)
{
    const kt_spec *spec = on->spec;
    uint16_t *cfg = malloc((spec->nparams ? spec->nparams : 1) * sizeof *cfg);
    p->cap = on->opts.candidates + (REFINE_STEPS + 1) * 2 * spec->nparams;
    p->c = calloc(p->cap, sizeof *p->c);
    if (!cfg || !p->c) {
        free(cfg);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    int rc = kt_space_new(spec, &p->prob, &p->space, diag);
    if (rc == KT_OK && on->db)
        rc = kt_db_problem(on->db, on->db_kernel, p->prob.key, &p->db_problem, diag);
    if (rc == KT_OK)
        rc = list_known(on, p, cfg, diag);
    if (rc == KT_OK)
        rc = list_model(on, p, diag);
    if (rc == KT_OK)
        rc = list_warm(on, p, diag);
    /* Random valid ones fill the list; a space with fewer gives up. */
    for (size_t t = 0; rc == KT_OK && t < 8 * on->opts.candidates; t++)
        if (kt_space_sample(p->space, &on->rng, cfg) == KT_OK)
            rc = add_cand(on, p, cfg, diag);
    free(cfg);
    if (rc == KT_OK && p->nc == 0)
        rc = kt_fail(diag, KT_EEMPTY, "%s: problem %s has no valid configuration",
                     spec->path, p->prob.key);
    return rc;
}

/* The neighbours of candidate centre (each parameter one value either
 * way), valid and not listed yet, appended. */
static void add_neighbours(kt_online *on, oproblem *p, size_t centre)
{
    const kt_spec *spec = on->spec;
    uint16_t *cfg = malloc((spec->nparams ? spec->nparams : 1) * sizeof *cfg);
    kt_diag d;
    int rc = cfg ? KT_OK : KT_ENOMEM;
    for (size_t k = 0; rc == KT_OK && k < spec->nparams; k++)
        for (int step = -1; rc == KT_OK && step <= 1; step += 2) {
            memcpy(cfg, p->c[centre].cfg, spec->nparams * sizeof *cfg);
            long v = (long)cfg[k] + step;
            if (v < 0 || v >= (long)spec->params[k].nvalues)
                continue;
            cfg[k] = (uint16_t)v;
            rc = add_cand(on, p, cfg, &d);
        }
    free(cfg);
}

/* The centres' neighbours.  Under the mutex: the caller reads the list
 * meanwhile; the few database lookups are short.  Whatever was listed
 * races; nothing listed: the centre wins. */
static void list_neighbours(kt_online *on, oproblem *p)
{
    add_neighbours(on, p, p->center);
    if (p->center2 != SIZE_MAX)
        add_neighbours(on, p, p->center2);
    p->refine_wanted = false;
}

/* -------------------------------------- building (background thread) */

/* Start the worker that verifies p's candidates against the reference. */
static int start_worker(kt_online *on, oproblem *p, kt_diag *diag)
{
    const kt_spec *spec = on->spec;
    uint16_t *def = malloc((spec->nparams ? spec->nparams : 1) * sizeof *def);
    if (!def)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_space_default(p->space, def);
    const uint16_t *ref = spec->ref_name ? NULL : def;
    kt_build b = {0};
    int rc = on->be->compile(on->be_ctx, &ref, 1, &b, diag);
    if (rc == KT_OK && b.status != KT_STATUS_OK)
        rc = kt_fail(diag, KT_ECOMPILE, "the reference does not compile: %s", b.detail);
    if (rc == KT_OK)
        rc = kt_worker_new(on->be, &on->opts.backend, spec, &p->prob, b.artifact, def,
                           &on->opts.measure, &p->worker, diag);
    kt_builds_clear(&b, 1);
    free(def);
    return rc;
}

/* Run c once in the isolated worker: *res says whether it is correct.  An
 * error: no worker could run (not the candidate's fault). */
static int verify(kt_online *on, oproblem *p, cand *c, const char *artifact,
                  kt_result *res, kt_diag *diag)
{
    int rc = p->worker ? KT_OK : start_worker(on, p, diag);
    return rc == KT_OK ? kt_worker_eval(p->worker, artifact, c->cfg, res, diag) : rc;
}

static int load(kt_online *on, oproblem *p, cand *c, const char *artifact,
                kt_diag *diag)
{
    double *slots = malloc((on->spec->nnames ? on->spec->nnames : 1) * sizeof *slots);
    if (!slots)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_space_slots(p->space, c->cfg, slots);
    void *k = NULL;
    int rc = on->be->load(on->be_ctx, artifact, slots, false, &k, diag);
    free(slots);
    pthread_mutex_lock(&on->mu);
    c->kernel = k;
    if (rc == KT_OK)
        c->state = CAND_READY;
    pthread_cond_broadcast(&on->cv);
    pthread_mutex_unlock(&on->mu);
    return rc;
}

static void mark_dead(kt_online *on, oproblem *p, cand *c, const kt_result *why)
{
    pthread_mutex_lock(&on->mu);
    c->state = CAND_DEAD;
    pthread_mutex_unlock(&on->mu);
    kt_diag d;
    /* A failure of the configuration itself is stored, as tune stores it;
     * a failure of the machinery (why == NULL) is not. */
    if (why && on->db)
        kt_db_record(on->db, on->db_device, on->db_kernel, p->db_problem, c->key, why,
                     &d);
}

/* Candidate i, compiled into b (or not: rc): verify it unless trusted,
 * load it.  The first candidate serves as soon as it is loaded, before its
 * verification: nothing else could serve yet. */
static void finish_cand(kt_online *on, oproblem *p, size_t i, int rc, const kt_build *b)
{
    cand *c = &p->c[i];
    kt_result res = {.status = KT_STATUS_OK};
    kt_diag d = {{0}};
    bool check = !c->verified && on->opts.verify == KT_ONLINE_VERIFY_WORKER;
    if (rc == KT_OK && b->status != KT_STATUS_OK) {
        res.status = b->status;
        kt_strlcpy(res.detail, sizeof res.detail, b->detail);
    }
    if (rc == KT_OK && res.status == KT_STATUS_OK && (i == 0 || !check))
        rc = load(on, p, c, b->artifact, &d);
    if (rc == KT_OK && res.status == KT_STATUS_OK && check)
        rc = verify(on, p, c, b->artifact, &res, &d);
    if (rc == KT_OK && res.status == KT_STATUS_OK && check && i != 0)
        rc = load(on, p, c, b->artifact, &d);
    if (rc != KT_OK || res.status != KT_STATUS_OK)
        mark_dead(on, p, c, rc == KT_OK ? &res : NULL);
}

/* Candidates i .. i+n-1, compiled together (the backend runs up to
 * backend.jobs compilers at once). */
static void build_cands(kt_online *on, oproblem *p, size_t i, size_t n)
{
    const uint16_t **cfgs = calloc(n, sizeof *cfgs);
    kt_build *b = calloc(n, sizeof *b);
    kt_diag d = {{0}};
    int rc = cfgs && b ? KT_OK : KT_ENOMEM;
    for (size_t k = 0; rc == KT_OK && k < n; k++)
        cfgs[k] = p->c[i + k].cfg;
    if (rc == KT_OK)
        rc = on->be->compile(on->be_ctx, cfgs, n, b, &d);
    for (size_t k = 0; k < n; k++)
        finish_cand(on, p, i + k, rc, &b[k]);
    if (b)
        kt_builds_clear(b, n);
    free(b);
    free(cfgs);
}

/* --------------------------------------------- the background thread */

typedef enum job_kind { JOB_NONE, JOB_LIST, JOB_REFINE, JOB_RECORD, JOB_BUILD } job_kind;

typedef struct job {
    job_kind kind;
    oproblem *p;
    size_t i, n;              /* candidates i .. i+n-1 */
    kt_result rec;
} job;

/* The next thing to do, under the mutex: list a new problem or a centre's
 * neighbours, store a row, else build the next candidate of the problem
 * with fewest built. */
static job next_job(kt_online *on)
{
    job j = {.kind = JOB_NONE};
    for (size_t k = 0; k < on->np; k++)
        if (!on->p[k]->listed)
            return (job){.kind = JOB_LIST, .p = on->p[k]};
    for (size_t k = 0; k < on->np; k++)
        if (on->p[k]->refine_wanted)
            return (job){.kind = JOB_REFINE, .p = on->p[k]};
    for (size_t k = 0; k < on->np; k++) {
        oproblem *p = on->p[k];
        for (size_t i = 0; i < p->nc; i++)
            if (p->c[i].want_record && !p->c[i].recorded) {
                p->c[i].recorded = true;
                return (job){.kind = JOB_RECORD, .p = p, .i = i, .rec = p->c[i].rec};
            }
        if (p->next_build < p->nc && (!j.p || p->next_build < j.p->next_build))
            j = (job){.kind = JOB_BUILD, .p = p, .i = p->next_build};
    }
    if (j.kind == JOB_BUILD) {
        /* The first with a full batch: compiled side by side, they cost the
         * first call (which waits for the first) about what it alone would,
         * and the others need not wait for its verification. */
        int jobs = on->opts.backend.jobs;
        size_t batch = jobs < 1 ? 1 : (size_t)jobs;
        j.n = batch < j.p->nc - j.i ? batch : j.p->nc - j.i;
        j.p->next_build += j.n;
    }
    return j;
}

static void do_job(kt_online *on, job *j)
{
    kt_diag d = {{0}};
    oproblem *p = j->p;
    if (j->kind == JOB_LIST) {
        int rc = list_cands(on, p, &d);
        pthread_mutex_lock(&on->mu);
        p->list_rc = rc;
        kt_strlcpy(p->list_msg, sizeof p->list_msg, d.msg);
        p->listed = true;
        pthread_mutex_unlock(&on->mu);
    } else if (j->kind == JOB_RECORD && on->db) {
        kt_db_record(on->db, on->db_device, on->db_kernel, p->db_problem,
                     p->c[j->i].key, &j->rec, &d);
    } else if (j->kind == JOB_REFINE) {
        pthread_mutex_lock(&on->mu);
        list_neighbours(on, p);
        pthread_mutex_unlock(&on->mu);
    } else if (j->kind == JOB_BUILD) {
        build_cands(on, p, j->i, j->n);
        pthread_mutex_lock(&on->mu);
        bool last = p->converged && j->i + j->n == p->nc;
        pthread_mutex_unlock(&on->mu);
        if (last) { /* nothing more to verify: its buffers can go */
            kt_worker_free(p->worker);
            p->worker = NULL;
        }
    }
}

/* Under the mutex: while the caller wants to explore, wait (at most
 * KT_ONLINE_PAUSE_S, so that an application that stops calling does not
 * hold the compiler): what it times then runs on a machine no compiler or
 * worker of ours shares. */
static void pause_for_caller(kt_online *on)
{
    if (!on->quiet_wanted)
        return;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    double s = until.tv_sec + until.tv_nsec * 1e-9 + KT_ONLINE_PAUSE_S;
    until.tv_sec = (time_t)s;
    until.tv_nsec = (long)((s - (double)until.tv_sec) * 1e9);
    while (on->quiet_wanted && !on->stop)
        if (pthread_cond_timedwait(&on->cv, &on->mu, &until) == ETIMEDOUT)
            break;
}

static void *bg_main(void *arg)
{
    kt_online *on = arg;
    pthread_mutex_lock(&on->mu);
    while (!on->stop) {
        pause_for_caller(on);
        while (on->held && !on->stop)
            pthread_cond_wait(&on->cv, &on->mu);
        job j = on->stop ? (job){.kind = JOB_NONE} : next_job(on);
        if (j.kind == JOB_NONE) {
            if (!on->stop)
                pthread_cond_wait(&on->cv, &on->mu);
            continue;
        }
        /* Compiling and verifying compete with the caller's calls; listing
         * and storing a row are short and mostly wait for the disk. */
        on->busy = j.kind == JOB_BUILD;
        on->busy_epoch += j.kind == JOB_BUILD;
        on->working = true;
        pthread_mutex_unlock(&on->mu);
        do_job(on, &j);
        pthread_mutex_lock(&on->mu);
        on->busy = false;
        on->working = false;
        if (j.kind == JOB_BUILD)
            j.p->built += j.n;
        pthread_cond_broadcast(&on->cv);
    }
    pthread_mutex_unlock(&on->mu);
    return NULL;
}

/* ------------------------------------------------- the caller's side */

/* Copies of the option strings, which the worker reads long after open. */
static int own_opts(kt_online *on, const kt_online_opts *opts, kt_diag *diag)
{
    on->opts = *opts;
    kt_backend_opts *b = &on->opts.backend;
    b->cache_dir = opts->backend.cache_dir ? kt_strdup(opts->backend.cache_dir) : NULL;
    b->compiler = opts->backend.compiler ? kt_strdup(opts->backend.compiler) : NULL;
    b->arch = opts->backend.arch ? kt_strdup(opts->backend.arch) : NULL;
    on->opts.measure.worker_path =
        opts->measure.worker_path ? kt_strdup(opts->measure.worker_path) : NULL;
    size_t nseed = opts->nseeds * on->spec->nparams;
    uint16_t *seeds = nseed ? malloc(nseed * sizeof *seeds) : NULL;
    if (seeds)
        memcpy(seeds, opts->seeds, nseed * sizeof *seeds);
    on->opts.seeds = seeds;
    on->opts.db_path = NULL;
    if ((opts->backend.cache_dir && !b->cache_dir) ||
        (opts->backend.compiler && !b->compiler) || (opts->backend.arch && !b->arch) ||
        (opts->measure.worker_path && !on->opts.measure.worker_path) || (nseed && !seeds))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    return KT_OK;
}

static int check_opts(const kt_online_opts *o, kt_diag *diag)
{
    if (!(o->explore_share >= 0 && o->explore_share <= 1))
        return kt_fail(diag, KT_EINVAL, "explore_share must be within [0, 1], not %g",
                       o->explore_share);
    if (!(o->drop_factor > 1))
        return kt_fail(diag, KT_EINVAL, "drop_factor must exceed 1, not %g",
                       o->drop_factor);
    if (o->candidates == 0)
        return kt_fail(diag, KT_EINVAL, "candidates must be at least 1");
    if (o->nseeds && !o->seeds)
        return kt_fail(diag, KT_EINVAL, "nseeds is %zu but seeds is NULL", o->nseeds);
    if (!policy_find(o->policy ? o->policy : KT_ONLINE_POLICY_DEFAULT))
        return kt_fail(diag, KT_ENOTFOUND, "unknown online policy '%s' (known: halving, "
                       "none)", o->policy);
    return KT_OK;
}

/* The backend that runs spec's kernels in the application (one with a
 * production call), opened unless the caller gave one. */
static int open_backend(kt_online *on, const kt_online_opts *opts, kt_diag *diag)
{
    const kt_spec *spec = on->spec;
    on->be = opts->backend_impl;
    on->be_ctx = opts->backend_ctx;
    if (!on->be && !(on->be = kt_backend_for(spec->language)))
        return kt_fail(diag, KT_EBACKEND, "%s: no backend here runs this kernel's "
                       "language", spec->path);
    if (!on->be->call)
        return kt_fail(diag, KT_EBACKEND, "%s: online tuning runs kernels in the "
                       "application, which the %s backend cannot do (C and CUDA "
                       "kernels can)", spec->path, on->be->name);
    return opts->backend_impl ? KT_OK
                              : on->be->open(spec, &on->opts.backend, &on->be_ctx, diag);
}

static int open_store(kt_online *on, const char *path, kt_diag *diag)
{
    kt_device_info dev;
    int rc = on->be->device(on->be_ctx, &dev, diag);
    if (rc == KT_OK)
        kt_strlcpy(on->device, sizeof on->device, dev.name);
    if (rc != KT_OK || !path)
        return rc;
    rc = kt_db_open(path, &on->db, diag);
    if (rc == KT_OK)
        rc = kt_db_device(on->db, &dev, &on->db_device, diag);
    if (rc == KT_OK)
        rc = kt_db_kernel(on->db, on->spec->name, on->spec->source_hash, &on->db_kernel,
                          diag);
    return rc;
}

int kt_online_open(const kt_spec *spec, const kt_online_opts *opts, kt_online **out,
                   kt_diag *diag)
{
    if (!spec || !opts || !out)
        return kt_fail(diag, KT_EINVAL, "kt_online_open: NULL argument");
    *out = NULL;
    int rc = check_opts(opts, diag);
    kt_online *on = rc == KT_OK ? calloc(1, sizeof *on) : NULL;
    if (rc == KT_OK && !on)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc != KT_OK)
        return rc;
    on->spec = spec;
    pthread_mutex_init(&on->mu, NULL);
    pthread_cond_init(&on->cv, NULL);
    rc = own_opts(on, opts, diag);
    on->policy = policy_find(opts->policy ? opts->policy : KT_ONLINE_POLICY_DEFAULT);
    kt_rng_seed(&on->rng, opts->seed);
    if (rc == KT_OK)
        rc = open_backend(on, opts, diag);
    if (rc == KT_OK)
        rc = open_store(on, opts->db_path, diag);
    if (rc == KT_OK && pthread_create(&on->thread, NULL, bg_main, on) != 0)
        rc = kt_fail(diag, KT_ENOMEM, "cannot start the online tuning thread");
    on->thread_started = rc == KT_OK;
    if (rc != KT_OK) {
        kt_online_close(on);
        return rc;
    }
    *out = on;
    return KT_OK;
}

static oproblem *problem_find(kt_online *on, const char *key)
{
    for (size_t k = 0; k < on->np; k++)
        if (strcmp(on->p[k]->prob.key, key) == 0)
            return on->p[k];
    return NULL;
}

/* prob's state, added (and handed to the background thread) at its first
 * call.  Under the mutex. */
static int problem_get(kt_online *on, const kt_problem *prob, oproblem **out,
                       kt_diag *diag)
{
    if ((*out = problem_find(on, prob->key)))
        return KT_OK;
    if (on->np == on->cap) {
        size_t cap = on->cap ? 2 * on->cap : 8;
        oproblem **p = realloc(on->p, cap * sizeof *p);
        if (!p)
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        on->p = p;
        on->cap = cap;
    }
    oproblem *p = calloc(1, sizeof *p);
    double *values = p ? malloc((prob->n ? prob->n : 1) * sizeof *values) : NULL;
    char *key = values ? kt_strdup(prob->key) : NULL;
    if (!key) {
        free(values);
        free(p);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    memcpy(values, prob->values, prob->n * sizeof *values);
    p->prob = (kt_problem){.n = prob->n, .values = values, .key = key};
    p->best = SIZE_MAX;
    p->center = p->center2 = SIZE_MAX;
    on->p[on->np++] = p;
    pthread_cond_broadcast(&on->cv);
    *out = p;
    return KT_OK;
}

static bool any_queued(const oproblem *p)
{
    for (size_t i = 0; i < p->nc; i++)
        if (p->c[i].state == CAND_QUEUED)
            return true;
    return false;
}

/* The caller waits or calls: the background thread must not wait for it. */
static void release_pause(kt_online *on)
{
    on->quiet_wanted = false;
    on->held = false;
    pthread_cond_broadcast(&on->cv);
}

/* Wait (under the mutex) until some candidate of p can serve. */
static int wait_servable(kt_online *on, oproblem *p, kt_diag *diag)
{
    if (!p->listed || find_best(p) == SIZE_MAX)
        release_pause(on);
    while (!p->listed || (p->list_rc == KT_OK && find_best(p) == SIZE_MAX &&
                          any_queued(p)))
        pthread_cond_wait(&on->cv, &on->mu);
    if (p->list_rc != KT_OK)
        return kt_fail(diag, p->list_rc, "%s", p->list_msg);
    if (find_best(p) == SIZE_MAX)
        return kt_fail(diag, KT_EEMPTY, "%s: no candidate configuration of problem %s "
                       "builds and passes verification", on->spec->path, p->prob.key);
    return KT_OK;
}

/* Both bounds allow one more exploring call. */
static bool may_explore(const kt_online *on, const oproblem *p)
{
    if ((double)(p->explored + 1) > on->opts.explore_share * (double)(p->calls + 1))
        return false;
    return on->opts.explore_overhead <= 0 ||
           p->extra_ms <= on->opts.explore_overhead * p->time_ms;
}

/* Candidates slower than drop_factor times the best are dropped once both
 * have two calls: one slow call may be an interruption, two rarely are.
 * One call over twice that is enough: waiting for a second would spend
 * the time bound on it, and hold up all other exploration meanwhile. */
static void drop_slow(kt_online *on, oproblem *p)
{
    size_t b = find_best(p);
    if (b == SIZE_MAX || p->c[b].n < 2)
        return;
    for (size_t i = 0; i < p->nc; i++) {
        cand *c = &p->c[i];
        double limit = on->opts.drop_factor * p->c[b].med * (c->n == 1 ? 2 : 1);
        if (i != b && servable(c) && c->n >= 1 && c->med > limit)
            drop_cand(p, i);
    }
}

/* Under the mutex: what the call of candidate i, taking ms, teaches.  Its
 * time counts in the stream's; in i's statistics only when quiet (no
 * background job ran meanwhile) and warm (not i's first call here), and
 * the cold call's time not in the exploration's time bound either. */
static void account(kt_online *on, oproblem *p, size_t i, size_t best, double ms,
                    bool quiet)
{
    cand *c = &p->c[i];
    bool cold = c->calls++ == 0;
    p->calls++;
    p->time_ms += ms;
    if (i != best) {
        p->explored++;
        if (!cold && p->c[best].n > 0 && ms > p->c[best].med)
            p->extra_ms += ms - p->c[best].med;
    }
    if (quiet && !cold) {
        add_sample(c, ms);
        drop_slow(on, p);
        on->policy->observe(p, i);
        if (p->refine_wanted)
            pthread_cond_broadcast(&on->cv);
    }
    p->best = find_best(p);
}

/* Under the mutex: the candidate to run now.  A call that would explore
 * while the background thread works serves the best known instead (its
 * time would say little) and asks the thread to pause after its job. */
static size_t choose(kt_online *on, oproblem *p, size_t best)
{
    size_t e = may_explore(on, p) ? on->policy->explore(p) : SIZE_MAX;
    bool want = e != SIZE_MAX;
    if (on->quiet_wanted && !want)
        pthread_cond_broadcast(&on->cv);
    on->quiet_wanted = want;
    return want && !on->busy ? e : best;
}

int kt_online_run(kt_online *on, const kt_problem *prob, void **args,
                  kt_online_call *call, kt_diag *diag)
{
    if (!on || !prob || !args)
        return kt_fail(diag, KT_EINVAL, "kt_online_run: NULL argument");
    if (prob->n != on->spec->nproblem)
        return kt_fail(diag, KT_EINVAL, "kt_online_run: a problem of another spec");
    oproblem *p;
    pthread_mutex_lock(&on->mu);
    if (on->held) { /* the hold lasts until this call */
        on->held = false;
        pthread_cond_broadcast(&on->cv);
    }
    int rc = problem_get(on, prob, &p, diag);
    if (rc == KT_OK)
        rc = wait_servable(on, p, diag);
    size_t best = rc == KT_OK ? find_best(p) : SIZE_MAX;
    size_t pick = rc == KT_OK ? choose(on, p, best) : SIZE_MAX;
    void *kernel = rc == KT_OK ? p->c[pick].kernel : NULL;
    bool quiet = !on->busy;
    uint64_t epoch = on->busy_epoch;
    pthread_mutex_unlock(&on->mu);
    if (rc != KT_OK)
        return rc;
    double ms = 0;
    rc = on->be->call(on->be_ctx, kernel, args, on->opts.stream, &ms, diag);
    if (rc != KT_OK)
        return rc;
    pthread_mutex_lock(&on->mu);
    account(on, p, pick, best, ms, quiet && !on->busy && on->busy_epoch == epoch);
    if (call)
        *call = (kt_online_call){p->c[pick].key, ms, pick != best};
    pthread_mutex_unlock(&on->mu);
    return KT_OK;
}

int kt_online_info_get(kt_online *on, const kt_problem *prob, kt_online_info *out,
                       kt_diag *diag)
{
    if (!on || !prob || !out)
        return kt_fail(diag, KT_EINVAL, "kt_online_info_get: NULL argument");
    pthread_mutex_lock(&on->mu);
    oproblem *p = problem_find(on, prob->key);
    if (p && p->listed) {
        *out = (kt_online_info){.calls = p->calls, .explored = p->explored,
                                .time_ms = p->time_ms, .extra_ms = p->extra_ms,
                                .candidates = p->nc, .converged = p->converged,
                                .best_ms = NAN};
        for (size_t i = 0; i < p->nc; i++) {
            out->live += live(&p->c[i]);
            out->failed += p->c[i].state == CAND_DEAD;
        }
        if (p->best != SIZE_MAX) {
            out->best = p->c[p->best].key;
            out->best_ms = p->c[p->best].med;
        }
    }
    pthread_mutex_unlock(&on->mu);
    return p ? KT_OK
             : kt_fail(diag, KT_ENOTFOUND, "problem %s has had no call yet", prob->key);
}

bool kt_online_hold(kt_online *on, bool wait)
{
    if (!on)
        return true;
    pthread_mutex_lock(&on->mu);
    on->held = true;
    while (wait && on->working)
        pthread_cond_wait(&on->cv, &on->mu);
    bool idle = !on->working;
    pthread_mutex_unlock(&on->mu);
    return idle;
}

void kt_online_wait(kt_online *on)
{
    if (!on)
        return;
    pthread_mutex_lock(&on->mu);
    release_pause(on);
    for (;;) {
        bool done = true;
        for (size_t k = 0; k < on->np && done; k++)
            done = on->p[k]->listed && !on->p[k]->refine_wanted &&
                   on->p[k]->built == on->p[k]->nc;
        if (done)
            break;
        pthread_cond_wait(&on->cv, &on->mu);
    }
    pthread_mutex_unlock(&on->mu);
}

static void problem_free(kt_online *on, oproblem *p)
{
    kt_diag d;
    for (size_t i = 0; i < p->nc; i++) {
        cand *c = &p->c[i];
        /* What was measured and not yet stored is stored now. */
        if (on->db && !c->recorded && (c->want_record || (live(c) && c->n > 0))) {
            if (!c->want_record)
                make_record(c);
            kt_db_record(on->db, on->db_device, on->db_kernel, p->db_problem, c->key,
                         &c->rec, &d);
        }
        if (c->kernel)
            on->be->unload(on->be_ctx, c->kernel);
        free(c->cfg);
        free(c->key);
    }
    free(p->c);
    kt_worker_free(p->worker);
    kt_space_free(p->space);
    kt_problem_clear(&p->prob);
    free(p);
}

void kt_online_close(kt_online *on)
{
    if (!on)
        return;
    if (on->thread_started) {
        pthread_mutex_lock(&on->mu);
        on->stop = true;
        pthread_cond_broadcast(&on->cv);
        pthread_mutex_unlock(&on->mu);
        pthread_join(on->thread, NULL);
    }
    for (size_t k = 0; k < on->np; k++)
        problem_free(on, on->p[k]);
    free(on->p);
    kt_db_close(on->db);
    if (on->be_ctx && !on->opts.backend_impl)
        on->be->close(on->be_ctx);
    free((char *)on->opts.backend.cache_dir);
    free((char *)on->opts.backend.compiler);
    free((char *)on->opts.backend.arch);
    free((char *)on->opts.measure.worker_path);
    free((uint16_t *)on->opts.seeds);
    pthread_mutex_destroy(&on->mu);
    pthread_cond_destroy(&on->cv);
    free(on);
}
