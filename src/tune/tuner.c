/* tuner.c - drive one tuning run (see tuner.h for the flow). */
#include "tune/tuner.h"
#include "core/util.h"
#include "tune/model_start.h"
#include "tune/transfer.h"
#include "tune/warm.h"
#include "search/history.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define SPACE_LIMIT (1u << 22) /* configurations listed in memory at most */
#define SPACE_SAMPLE (1u << 16) /* drawn instead from a larger space (random) */

/* Everything one run holds. */
typedef struct run {
    const kt_spec *spec;
    const kt_tune_opts *opts;
    kt_tune_report *rep;
    kt_diag *diag;
    kt_problem prob;
    kt_space *space;
    const kt_backend *be;
    void *be_ctx;
    kt_db *db;
    int64_t device, kernel, problem;
    const kt_strategy *strategy;
    void *strategy_state;
    const uint16_t *starts; /* opts' start configurations, or a model's */
    size_t nstart;
    bool start_only;
    uint16_t *predicted;   /* a model's (tune/model_start.h), owned */
    kt_archive *map;       /* opts->map: every evaluation is offered to it */
    kt_exec exec;          /* opened at the first real measurement */
    kt_exec_env exec_env;  /* what it was told */
    uint16_t *reference;   /* what the workers check results against, chosen
                              in the whole space (a shard's may lack it) */
    bool reference_warn;   /* the default breaks the conditions: say so */
    uint16_t *share;       /* opts->nshards > 1: this run's configurations */
    uint8_t *seen;         /* per built index: evaluated in this run */
    uint64_t limit;        /* configurations the budget allows */
    bool queue;            /* evaluations go into the first batch (search) */
    uint16_t *first;       /* that batch, nparams values each */
    size_t nfirst, first_cap;
    double start, deadline;
    double best_ms;        /* the best's time */
    double best_cost;      /* and its cost by the objective */
    bool energy_seen;      /* a correct result carried its energy */
} run;

kt_tune_opts kt_tune_defaults(void)
{
    return (kt_tune_opts){.strategy = KT_STRATEGY_DEFAULT, .seed = 1,
                          .db_path = "ktune.db",
                          .backend = {.cache_dir = ".ktune-cache", .jobs = 2},
                          .warm = KT_WARM_DEFAULT, .top = 10,
                          .measure = kt_measure_defaults()};
}

/* The window of a run that tunes or maps by energy (tuner.h says why). */
#define ENERGY_RUN_WINDOW_S 1.0

double kt_tune_energy_window(double asked, kt_objective o, bool map_reads_energy)
{
    if (asked >= 0)
        return asked;
    return kt_objective_needs_energy(o) || map_reads_energy
               ? ENERGY_RUN_WINDOW_S : kt_measure_defaults().energy_window_s;
}

/* ---------------------------------------------------------------- setup */

static void apply_budget(run *r)
{
    kt_budget b = r->opts->budget.kind != KT_BUDGET_NONE ? r->opts->budget
                                                         : r->spec->budget;
    uint64_t size = r->rep->space_size;
    r->limit = size;
    r->deadline = INFINITY;
    if (b.kind == KT_BUDGET_COUNT && b.value < (double)size)
        r->limit = (uint64_t)b.value;
    else if (b.kind == KT_BUDGET_FRACTION)
        r->limit = (uint64_t)ceil(fmin(b.value, 1.0) * (double)size);
    else if (b.kind == KT_BUDGET_SECONDS)
        r->deadline = r->start + b.value;
    if (r->opts->time_limit_s > 0)
        r->deadline = fmin(r->deadline, r->start + r->opts->time_limit_s);
}

static int open_store(run *r)
{
    kt_device_info dev;
    int rc = r->be->device(r->be_ctx, &dev, r->diag);
    if (rc == KT_OK) {
        kt_strlcpy(r->rep->device, sizeof r->rep->device, dev.name);
        rc = kt_db_open(r->opts->db_path, &r->db, r->diag);
    }
    if (rc == KT_OK)
        rc = kt_db_device(r->db, &dev, &r->device, r->diag);
    if (rc == KT_OK)
        rc = kt_db_kernel(r->db, r->spec->name, r->spec->source_hash, &r->kernel,
                          r->diag);
    if (rc == KT_OK)
        rc = kt_db_problem(r->db, r->kernel, r->prob.key, &r->problem, r->diag);
    return rc;
}

/* A real run: the backend for the kernel's language, and the database. */
static int open_backend(run *r)
{
    const kt_spec *spec = r->spec;
    if (spec->language == KT_LANG_NONE)
        return kt_fail(r->diag, KT_EINVAL, "%s: the spec describes a space only "
                       "(\"Language\": \"None\"); there is no kernel to run", spec->path);
    if (!(r->be = kt_backend_for(spec->language)))
        return kt_fail(r->diag, KT_EBACKEND, "%s: no backend here runs this kernel's "
                       "language", spec->path);
    int rc = r->be->open(spec, &r->opts->backend, &r->be_ctx, r->diag);
    return rc == KT_OK ? open_store(r) : rc;
}

/* A replayed run: no backend, no database, and no clock to budget by. */
static int start_replay(run *r)
{
    kt_budget b = r->opts->budget.kind != KT_BUDGET_NONE ? r->opts->budget
                                                         : r->spec->budget;
    if (b.kind == KT_BUDGET_SECONDS || r->opts->time_limit_s > 0)
        return kt_fail(r->diag, KT_EINVAL, "a replay has no clock: give its budget "
                       "as a count or a share of the space, not in seconds");
    kt_strlcpy(r->rep->device, sizeof r->rep->device,
               kt_replay_device(r->opts->replay));
    return KT_OK;
}

/* List the valid configurations (Ctrl-C stops a long count).  A space too
 * large to list, or past the bound on condition evaluations, is refused at
 * once, unless the strategy only draws uniformly (random): it gets a
 * uniform random sample of SPACE_SAMPLE configurations instead. */
static int build_space(run *r)
{
    kt_space_set_ctl(r->space, &(kt_space_ctl){.cancel = r->opts->cancel});
    int rc = kt_space_build(r->space, SPACE_LIMIT, r->diag);
    if (rc == KT_ERANGE && r->strategy->uniform) {
        kt_rng rng;
        kt_rng_seed(&rng, r->opts->seed);
        rc = kt_space_build_sample(r->space, SPACE_SAMPLE, &rng, r->diag);
    }
    if (rc == KT_ERANGE || rc == KT_ECANCELED || rc == KT_EEMPTY)
        kt_diag_prefix(r->diag, r->spec->path);
    r->rep->space_sampled = kt_space_is_sample(r->space); /* before a shard */
    return rc;
}

/* A recording read with no spec (store/recording.h) is its own space:
 * only what it recorded is valid. */
static void restrict_to_recording(run *r)
{
    uint64_t n = 0;
    const uint16_t *cfgs = r->opts->replay ? kt_replay_space(r->opts->replay, &n) : NULL;
    if (cfgs)
        kt_space_restrict(r->space, cfgs, n);
}

/* The strategy by name, where a strategy of tune/model_start.h starts
 * from the model's predictions and the default strategy searches on. */
static int choose_strategy(run *r)
{
    const kt_tune_opts *o = r->opts;
    const char *name = o->strategy ? o->strategy : KT_STRATEGY_DEFAULT;
    const kt_model_strategy *ms = kt_model_strategy_find(name);
    r->starts = o->start;
    r->nstart = o->nstart;
    r->start_only = o->start_only;
    if (!ms && !(r->strategy = kt_strategy_find(name)))
        return kt_fail(r->diag, KT_EINVAL, "unknown strategy '%s' (see 'ktune tune "
                       "--help')", name);
    if (!ms != !o->model)
        return ms ? kt_fail(r->diag, KT_EINVAL, "strategy '%s' needs a trained model",
                            name)
                  : kt_fail(r->diag, KT_EINVAL, "a model is only for the strategies "
                            "that start from its predictions (predict, "
                            "predict+search), not '%s'", name);
    if (!ms)
        return KT_OK;
    r->strategy = kt_strategy_find(KT_STRATEGY_DEFAULT);
    r->start_only = !ms->searches;
    int rc = kt_model_start(r->spec, o->model, r->prob.key, o->top ? o->top : 10,
                            &r->predicted, &r->nstart, r->diag);
    r->starts = r->predicted;
    return rc;
}

/* Whether the run will read no energy at all: it measures (no replay)
 * with an energy window of 0. */
static bool reads_no_energy(const run *r)
{
    return !r->opts->replay && !(r->opts->measure.energy_window_s > 0);
}

/* An objective the run can meet: one that needs energy is refused when no
 * energy will be read at all (the rows it meets are checked in record). */
static int check_objective(const run *r)
{
    kt_objective o = r->opts->objective;
    if (!kt_objective_name(o))
        return kt_fail(r->diag, KT_EINVAL, "objective %d is not one of time, energy, "
                       "edp, pareto", (int)o);
    if (kt_objective_needs_energy(o) && reads_no_energy(r))
        return kt_fail(r->diag, KT_EINVAL, "objective '%s' needs energy readings, and "
                       "an energy window of 0 takes none", kt_objective_name(o));
    return KT_OK;
}

/* A map along measured energy or power needs energy readings: refused
 * when none will be taken, as an objective that needs them is. */
static int check_map_energy(const run *r)
{
    const kt_behaviour_dim *d = kt_spec_energy_dim(r->spec);
    if (!d || !reads_no_energy(r))
        return KT_OK;
    return kt_fail(r->diag, KT_EINVAL, "%s: behaviour dimension '%s' is the measured "
                   "%s, and an energy window of 0 takes no energy readings",
                   r->spec->path, d->name, kt_measured_name(d->measured));
}

/* The reference of a run (tuner.h, kt_tune_reference), chosen in the
 * whole space, before a shard narrows it, so that every shard (and every
 * MPI rank) checks against the same one. */
static int choose_reference(run *r)
{
    if (!(r->reference = malloc(r->spec->nparams * sizeof *r->reference + 1)))
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    r->reference_warn = kt_tune_reference(r->space, r->reference);
    return KT_OK;
}

bool kt_tune_reference(kt_space *space, uint16_t *ref)
{
    const kt_spec *spec = kt_space_spec(space);
    kt_space_default(space, ref);
    if (spec->ref_name || kt_space_is_valid(space, ref) || kt_space_size(space) == 0)
        return false;
    memcpy(ref, kt_space_at(space, 0), spec->nparams * sizeof *ref);
    return true;
}

/* This run's share of the space (opts->shard of nshards): every nshards-th
 * configuration of the built list from the shard-th, so that neighbours in
 * the list (similar configurations, similar costs) spread over the shares.
 * The space is then that list, and the budget counts in it. */
static int take_share(run *r)
{
    uint64_t n = r->opts->nshards, k = r->opts->shard;
    uint64_t size = kt_space_size(r->space);
    size_t np = r->spec->nparams;
    if (n <= 1)
        return KT_OK;
    if (k >= n)
        return kt_fail(r->diag, KT_EINVAL, "shard %llu of %llu: the shard must be "
                       "below the number of shards", (unsigned long long)k,
                       (unsigned long long)n);
    uint64_t m = size > k ? (size - k + n - 1) / n : 0;
    if (m == 0)
        return kt_fail(r->diag, KT_EEMPTY, "%s: share %llu of %llu is empty: the "
                       "space of problem %s has %llu configurations", r->spec->path,
                       (unsigned long long)k + 1, (unsigned long long)n, r->prob.key,
                       (unsigned long long)size);
    if (!(r->share = malloc(m * np * sizeof *r->share + 1)))
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    for (uint64_t i = 0; i < m; i++)
        memcpy(r->share + i * np, kt_space_at(r->space, k + i * n), np * sizeof *r->share);
    kt_space_restrict(r->space, r->share, m);
    return kt_space_build(r->space, m, r->diag);
}

static int setup(run *r)
{
    const kt_spec *spec = r->spec;
    int rc = check_objective(r);
    if (rc == KT_OK && r->opts->transfer &&
        (rc = kt_transfer_check(r->opts->transfer, spec, r->diag)) != KT_OK)
        kt_diag_prefix(r->diag, spec->path);
    if (rc == KT_OK)
        rc = kt_problem_parse(spec, r->opts->problem, &r->prob, r->diag);
    if (rc == KT_OK)
        rc = choose_strategy(r);
    if (rc == KT_OK)
        rc = kt_space_new(spec, &r->prob, &r->space, r->diag);
    if (rc == KT_OK)
        restrict_to_recording(r);
    if (rc == KT_OK)
        rc = build_space(r);
    if (rc == KT_OK)
        rc = choose_reference(r);
    if (rc == KT_OK)
        rc = take_share(r);
    if (rc != KT_OK)
        return rc;
    r->rep->space_size = kt_space_size(r->space);
    if (!(r->rep->problem = kt_strdup(r->prob.key)) ||
        !(r->seen = calloc(r->rep->space_size + 1, 1)))
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    if (r->rep->space_size == 0)
        return kt_fail(r->diag, KT_EEMPTY, "%s: no configuration satisfies the "
                       "conditions for problem %s", spec->path, r->prob.key);
    double *slots = calloc(spec->nnames ? spec->nnames : 1, sizeof *slots);
    if (!slots)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    kt_spec_slots(spec, NULL, &r->prob, slots);
    if (!spec->flops || kt_expr_eval(spec->flops, slots, &r->rep->flops) != KT_OK)
        r->rep->flops = NAN;
    free(slots);
    if ((rc = r->opts->replay ? start_replay(r) : open_backend(r)) != KT_OK)
        return rc;
    apply_budget(r);
    bool map = r->opts->map || r->strategy->implies_map;
    if (map && ((rc = check_map_energy(r)) != KT_OK ||
                (rc = kt_archive_new(r->space, &r->map, r->diag)) != KT_OK))
        return rc;
    kt_strategy_opts so = {.seed = r->opts->seed, .budget = r->limit,
                           .objective = r->opts->objective};
    kt_diag why = {{0}};
    rc = r->strategy->init(r->space, &so, &r->strategy_state, &why);
    if (rc != KT_OK)
        return kt_fail(r->diag, rc, "strategy '%s' failed to start: %s",
                       r->strategy->name, why.msg[0] ? why.msg : kt_strerror(rc));
    return KT_OK;
}

/* --------------------------------------------------------- measurement */

/* What the map's elites are best at: the run's objective, except that a
 * pareto run's map keeps the fastest configuration of each cell (its front
 * is reported apart). */
static kt_objective map_objective(const run *r)
{
    return r->opts->objective == KT_OBJECTIVE_PARETO ? KT_OBJECTIVE_TIME : r->opts->objective;
}

/* The first correct result decides whether the run has energy (tuner.h):
 * without it the run stops, rather than rank configurations by nothing.
 * Later ones without (a reading that failed once: a batch too long for
 * the counter's steps) are counted and left out of the ranking. */
static int check_energy(run *r, const char *key, const kt_result *res, bool cached)
{
    kt_objective o = r->opts->objective;
    if (res->status != KT_STATUS_OK || !kt_objective_needs_energy(o))
        return KT_OK;
    if (res->energy_j >= 0)
        r->energy_seen = true;
    else if (r->energy_seen)
        r->rep->no_energy++;
    if (res->energy_j >= 0 || r->energy_seen)
        return KT_OK;
    const char *where = r->opts->replay ? "the recording has"
                        : cached        ? "the database has" : "the measurement read";
    return kt_fail(r->diag, KT_EINVAL, "objective '%s' needs the energy of the "
                   "configurations, but %s none for %s%s%s%s (objective time needs "
                   "none)", kt_objective_name(o), where, key, res->detail[0] ? ": " : "",
                   res->detail, cached && !r->opts->replay ? "; it was measured "
                   "without energy" : "");
}

/* A new best by the objective (its key kept), and the front. */
static int keep_best(run *r, const char *key, const kt_result *res)
{
    kt_tune_report *rep = r->rep;
    double cost = kt_objective_cost(r->opts->objective, res);
    if (r->opts->objective == KT_OBJECTIVE_PARETO &&
        kt_front_offer(&rep->front, key, res) != KT_OK)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    if (!(cost < r->best_cost))
        return KT_OK;
    r->best_cost = cost;
    r->best_ms = res->time_ms;
    rep->best = *res;
    free(rep->best_config);
    if (!(rep->best_config = kt_strdup(key)))
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    return KT_OK;
}

static int record(run *r, const uint16_t *cfg, const char *key, kt_result *res,
                  bool cached)
{
    kt_tune_report *rep = r->rep;
    if (!cached) {
        double t0 = kt_now();
        int rc = r->opts->replay ? KT_OK
                                 : kt_db_record(r->db, r->device, r->kernel, r->problem,
                                                key, res, r->diag);
        rep->record_s += kt_now() - t0;
        if (rc != KT_OK)
            return rc;
        rep->measured++;
    } else {
        rep->cached++;
    }
    rep->by_status[res->status]++;
    int rc = check_energy(r, key, res, cached);
    if (rc == KT_OK)
        rc = keep_best(r, key, res);
    if (rc != KT_OK)
        return rc;
    if (r->strategy->observe)
        r->strategy->observe(r->strategy_state, cfg, res);
    uint64_t idx;
    if (r->map && kt_space_index_of(r->space, cfg, &idx) == KT_OK &&
        kt_archive_offer(r->map, idx, kt_objective_cost(map_objective(r), res), res) != KT_OK)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    if (r->opts->progress) {
        uint64_t done = rep->measured + rep->cached;
        double elapsed = kt_now() - r->start;
        uint64_t total = r->limit;
        kt_progress p = {.done = done, .total = total, .measured = rep->measured,
                         .cached = rep->cached,
                         .failed = done - rep->by_status[KT_STATUS_OK],
                         .best_ms = r->best_ms, .elapsed_s = elapsed,
                         .eta_s = isfinite(r->deadline)
                                      ? r->deadline - kt_now()
                                      : elapsed / (double)done * (double)(total - done),
                         .config = key, .result = res};
        r->opts->progress(r->opts->progress_user, &p);
    }
    return KT_OK;
}

static bool cancelled(const run *r)
{
    return r->opts->cancel && *r->opts->cancel;
}

static bool budget_left(const run *r)
{
    return r->rep->measured + r->rep->cached < r->limit && kt_now() < r->deadline &&
           !cancelled(r);
}

/* Whether builds reach the worker one by one as they finish. */
static bool streams(const run *r)
{
    return r->be && r->be->compile_start && !r->opts->no_overlap;
}

/* The executor, opened at the first measurement (a run answered from the
 * database or a replay measures nothing). */
static int open_exec(run *r)
{
    const kt_tune_opts *o = r->opts;
    r->exec_env = (kt_exec_env){.spec = r->spec, .prob = &r->prob,
                                .be = r->be, .be_ctx = r->be_ctx,
                                .be_opts = &o->backend, .measure = &o->measure,
                                .no_overlap = o->no_overlap, .devices = o->devices,
                                .ndevices = o->ndevices, .reference = r->reference,
                                .reference_warn = r->reference_warn, .warn = o->warn,
                                .warn_user = o->warn_user};
    kt_exec_open_fn open = o->exec_open ? o->exec_open : kt_exec_local_open;
    return open(o->exec_user, &r->exec_env, &r->exec, r->diag);
}

/* Measure n configurations that are not in the database: the executor
 * compiles and measures them, and each result is recorded here as it
 * comes, until the batch is done or the budget is spent. */
static int measure(run *r, const uint16_t *const *cfgs, char **keys, size_t n)
{
    int rc = r->exec.ops ? KT_OK : open_exec(r);
    if (rc == KT_OK)
        rc = kt_exec_start(&r->exec, cfgs, n, r->diag);
    if (rc != KT_OK)
        return rc;
    while (rc == KT_OK && budget_left(r)) {
        size_t i = 0;
        kt_result res;
        rc = kt_exec_next(&r->exec, &i, &res, r->diag);
        /* After a stop signal a failure may be the signal's doing (it may
         * have reached the compiler or the worker): not stored. */
        if (rc == KT_OK && !(cancelled(r) && res.status != KT_STATUS_OK))
            rc = record(r, cfgs[i], keys[i], &res, false);
    }
    kt_exec_end(&r->exec);
    return rc == KT_EDONE ? KT_OK : rc;
}

/* The stored result of key: in a replay from the recording (a miss is an
 * error when required), else from the database. */
static int lookup(run *r, const char *key, kt_result *res, bool *found, bool required)
{
    if (!r->opts->replay)
        return kt_db_lookup(r->db, r->device, r->problem, key, res, found, r->diag);
    *found = kt_replay_find(r->opts->replay, key, res);
    if (*found || !required)
        return KT_OK;
    return kt_fail(r->diag, KT_ENOTFOUND, "configuration %s of problem %s is not in "
                   "the recording; a replay needs a complete exhaustive run (hint: "
                   "finish it with 'ktune tune --strategy brute_force')", key,
                   r->prob.key);
}

/* Evaluate a batch of proposals: answer what the database knows, measure
 * the rest.  Configurations seen before in this run are skipped. */
static int evaluate(run *r, const uint16_t *batch, size_t n)
{
    size_t np = r->spec->nparams, nnew = 0;
    const uint16_t **todo = calloc(n, sizeof *todo);
    char **keys = calloc(n, sizeof *keys);
    int rc = todo && keys ? KT_OK : kt_fail(r->diag, KT_ENOMEM, "out of memory");
    uint64_t pending = 0;
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        const uint16_t *cfg = batch + i * np;
        uint64_t idx;
        if (kt_space_index_of(r->space, cfg, &idx) != KT_OK || r->seen[idx])
            continue;
        if (r->rep->measured + r->rep->cached + pending >= r->limit)
            break;
        r->seen[idx] = 1;
        char *key = kt_spec_config_key(r->spec, cfg);
        kt_result res;
        bool found = false;
        rc = key ? lookup(r, key, &res, &found, true)
                 : kt_fail(r->diag, KT_ENOMEM, "out of memory");
        if (found && r->opts->retry_failed && !r->opts->replay &&
            res.status != KT_STATUS_OK)
            found = false; /* measured again; the new result replaces it */
        if (rc == KT_OK && found) {
            rc = record(r, cfg, key, &res, !r->opts->replay);
            free(key);
        } else if (rc == KT_OK) {
            todo[nnew] = cfg;
            keys[nnew++] = key;
            pending++;
        } else {
            free(key);
        }
    }
    if (rc == KT_OK && nnew > 0)
        rc = measure(r, todo, keys, nnew);
    for (size_t i = 0; i < nnew; i++)
        free(keys[i]);
    free(keys);
    free(todo);
    return rc;
}

/* Evaluate now, or (r->queue) add to the first batch. */
static int evaluate_or_queue(run *r, const uint16_t *cfgs, size_t n)
{
    if (!r->queue)
        return evaluate(r, cfgs, n);
    size_t np = r->spec->nparams;
    if (r->nfirst + n > r->first_cap) {
        size_t cap = 2 * (r->nfirst + n);
        uint16_t *grown = realloc(r->first, cap * np * sizeof *grown);
        if (!grown)
            return kt_fail(r->diag, KT_ENOMEM, "out of memory");
        r->first = grown;
        r->first_cap = cap;
    }
    memcpy(r->first + r->nfirst * np, cfgs, n * np * sizeof *cfgs);
    r->nfirst += n;
    return KT_OK;
}

/* The baseline: the default configuration's result, once evaluated. */
static int default_lookup(run *r)
{
    bool found = false;
    if (r->rep->default_skipped)
        return KT_OK;
    return lookup(r, r->rep->default_config, &r->rep->default_result, &found, false);
}

/* The default configuration goes first; its result is the baseline. */
static int evaluate_default(run *r)
{
    size_t np = r->spec->nparams;
    uint16_t *def = malloc(np * sizeof *def);
    if (!def)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    kt_space_default(r->space, def);
    int rc = KT_OK;
    r->rep->default_config = kt_spec_config_key(r->spec, def);
    r->rep->default_result = (kt_result){.status = KT_STATUS_INVALID, .time_ms = NAN};
    if (!r->rep->default_config)
        rc = kt_fail(r->diag, KT_ENOMEM, "out of memory");
    else if (r->start_only)
        r->rep->default_skipped = true;
    else if (kt_space_is_valid(r->space, def))
        rc = evaluate_or_queue(r, def, 1);
    if (rc == KT_OK && !r->queue)
        rc = default_lookup(r);
    free(def);
    return rc;
}

/* Other problems' winners, nearest first (tuner.h, warm). */
static int evaluate_warm(run *r)
{
    size_t max = r->opts->warm, quarter = (size_t)(r->limit / 4);
    if (max > quarter)
        max = quarter > 0 ? quarter : 1;
    if (max == 0 || r->nstart > 0 || r->start_only || r->strategy->exhaustive ||
        r->opts->transfer)
        return KT_OK;
    kt_winners own = {0};
    const kt_winners *w = &own;
    int rc = KT_OK;
    if (r->opts->replay)
        w = kt_replay_winners(r->opts->replay);
    else
        rc = kt_winners_load(r->db, r->spec->name, r->spec->source_hash, r->rep->device,
                             r->prob.key, &own, r->diag);
    uint16_t *cfgs = rc == KT_OK ? malloc(max * r->spec->nparams * sizeof *cfgs) : NULL;
    size_t n = 0;
    if (rc == KT_OK && !cfgs)
        rc = kt_fail(r->diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK)
        rc = kt_warm_starts(r->spec, &r->prob, r->space, w, max, cfgs, &n, r->diag);
    if (rc == KT_OK && n > 0) {
        r->rep->warm_starts = n;
        rc = evaluate_or_queue(r, cfgs, n);
    }
    free(cfgs);
    kt_winners_clear(&own);
    return rc;
}

/* The transfer's top configurations valid here (tuner.h, transfer). */
static int evaluate_transfer(run *r)
{
    size_t max = r->opts->top ? r->opts->top : 10;
    if (!r->opts->transfer)
        return KT_OK;
    uint16_t *cfgs = malloc(max * r->spec->nparams * sizeof *cfgs);
    if (!cfgs)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    size_t n = 0;
    kt_transfer_starts(r->opts->transfer, r->spec, r->space, max, cfgs, &n);
    int rc = n > 0 ? evaluate_or_queue(r, cfgs, n) : KT_OK;
    free(cfgs);
    return rc;
}

/* Whether the strategy's proposals go ahead of the measurements: with
 * builds streamed, a batch's last builds leave compilers idle and the next
 * batch's first build leaves the GPU idle, so a strategy that does not
 * learn from results (observe NULL: random, brute force) proposes what the
 * budget allows at once, up to BATCH_AHEAD.  A strategy that learns
 * proposes four per compiler, to observe often; so does any strategy
 * where a batch is compiled whole before it is measured. */
#define BATCH_AHEAD 4096
static bool ahead(const run *r)
{
    return !r->strategy->observe && (streams(r) || r->opts->exec_jobs > 0);
}

static size_t batch_size(const run *r)
{
    int jobs = r->opts->exec_jobs > 0 ? r->opts->exec_jobs : r->opts->backend.jobs;
    size_t per_job = (size_t)(jobs > 0 ? jobs : 1) * 4;
    if (!ahead(r))
        return per_job;
    uint64_t left = r->limit > BATCH_AHEAD ? BATCH_AHEAD : r->limit;
    return left > per_job ? (size_t)left : per_job;
}

static int search(run *r)
{
    size_t np = r->spec->nparams;
    size_t batch = batch_size(r);
    uint16_t *buf = malloc(batch * np * sizeof *buf);
    if (!buf)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    /* A strategy that does not learn from results has its first proposals
     * compiled with the default and the warm starts, in their order, so
     * no compiler waits for the default's measurement. */
    r->queue = ahead(r) && !r->start_only;
    int rc = evaluate_default(r);
    if (rc == KT_OK && r->nstart > 0)
        rc = evaluate_or_queue(r, r->starts, r->nstart);
    if (rc == KT_OK)
        rc = evaluate_transfer(r);
    if (rc == KT_OK)
        rc = evaluate_warm(r);
    if (rc == KT_OK && r->queue) {
        size_t n = 0;
        rc = r->strategy->propose(r->strategy_state, buf, batch, &n);
        if (rc == KT_OK)
            rc = evaluate_or_queue(r, buf, n);
        r->queue = false;
        if (rc == KT_OK && r->nfirst > 0)
            rc = evaluate(r, r->first, r->nfirst);
        if (rc == KT_OK)
            rc = default_lookup(r);
    }
    while (rc == KT_OK && !r->start_only && budget_left(r)) {
        size_t n = 0;
        rc = r->strategy->propose(r->strategy_state, buf, batch, &n);
        if (rc != KT_OK || n == 0)
            break;
        rc = evaluate(r, buf, n);
    }
    free(buf);
    return rc;
}

/* The pareto front, fastest first, marked in the database as its device's
 * and problem's (a replay stores nothing). */
static int store_front(run *r)
{
    kt_front *f = &r->rep->front;
    kt_front_sort(f);
    if (r->opts->objective != KT_OBJECTIVE_PARETO || !r->db)
        return KT_OK;
    const char **keys = calloc(f->n + 1, sizeof *keys);
    if (!keys)
        return kt_fail(r->diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < f->n; i++)
        keys[i] = f->pts[i].config;
    int rc = kt_db_front_mark(r->db, r->device, r->problem, keys, f->n, r->diag);
    free(keys);
    return rc;
}

int kt_tune(const kt_spec *spec, const kt_tune_opts *opts, kt_tune_report *out,
            kt_diag *diag)
{
    *out = (kt_tune_report){.flops = NAN};
    run r = {.spec = spec, .opts = opts, .rep = out, .diag = diag, .start = kt_now(),
             .best_ms = INFINITY, .best_cost = INFINITY};
    int rc = setup(&r);
    if (rc == KT_OK)
        rc = search(&r);
    if (rc == KT_OK)
        rc = store_front(&r);
    if (rc == KT_OK && r.map && kt_archive_map(r.map, &out->map) != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_archive_free(r.map);
    free(r.first);
    free(r.predicted);
    out->seconds = kt_now() - r.start;
    kt_exec_stats st = {0};
    kt_exec_stats_add(&r.exec, &st);
    kt_exec_close(&r.exec);
    out->start_s = st.start_s;
    out->compile_wait_s = st.compile_wait_s;
    out->measure_s = st.measure_s;
    memcpy(out->phase_s, st.phase_s, sizeof out->phase_s);
    if (r.strategy_state)
        r.strategy->free(r.strategy_state);
    kt_db_close(r.db);
    if (r.be_ctx)
        r.be->close(r.be_ctx);
    free(r.seen);
    kt_space_free(r.space);
    free(r.share);
    free(r.reference);
    kt_problem_clear(&r.prob);
    return rc;
}

void kt_tune_report_clear(kt_tune_report *r)
{
    free(r->problem);
    free(r->best_config);
    free(r->default_config);
    kt_map_free(r->map);
    kt_front_clear(&r->front);
    *r = (kt_tune_report){0};
}
