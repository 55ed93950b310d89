/* tune.c - the public tuning API (include/ktune.h): the strategy table as
 * properties, options with their defaults, ktune_tune over the tune
 * layer's kt_tune (a spec, or a recording read without one), and the run
 * object, which keeps the report and every evaluated configuration. */
#include "core/util.h"
#include "store/recording.h"
#include "tune/mpi.h"
#include "tune/model_start.h"
#include "tune/tuner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ktune_run {
    kt_tune_report rep;
    ktune_run_info info;
    char *kernel;
    char **keys;              /* every evaluated configuration, in order */
    ktune_result *results;
    size_t n, cap;
    bool oom;                 /* a key could not be kept */
    double energy_window_s;   /* the run's, resolved (ktune_run_info) */
    const ktune_tune_opts *opts; /* during ktune_tune: the caller's progress */
};

/* ------------------------------------------------------------ strategies */

int ktune_strategy_at(size_t i, ktune_strategy_info *out)
{
    const kt_strategy *s = kt_strategy_at(i);
    const kt_model_strategy *m = s ? NULL : kt_model_strategy_at(i - kt_strategy_count());
    if (s && out)
        *out = (ktune_strategy_info){.name = s->name, .summary = s->summary,
                                     .exhaustive = s->exhaustive,
                                     .implies_map = s->implies_map, .searches = true};
    else if (m && out)
        *out = (ktune_strategy_info){.name = m->name, .summary = m->summary,
                                     .needs_model = true, .searches = m->searches};
    return s || m ? KT_OK : KT_ENOTFOUND;
}

int ktune_strategy_find(const char *name, ktune_strategy_info *out, ktune_diag *diag)
{
    ktune_strategy_info info;
    for (size_t i = 0; name && ktune_strategy_at(i, &info) == KT_OK; i++)
        if (strcmp(info.name, name) == 0) {
            if (out)
                *out = info;
            return KT_OK;
        }
    return kt_fail(diag, KT_ENOTFOUND, "unknown strategy '%s'", name ? name : "(null)");
}

/* --------------------------------------------------------------- options */

const char *ktune_objective_name(ktune_objective o) { return kt_objective_name(o); }

int ktune_objective_parse(const char *name, ktune_objective *out)
{
    return kt_objective_parse(name, out);
}

void ktune_tune_opts_init(ktune_tune_opts *o)
{
    if (!o)
        return;
    kt_tune_opts d = kt_tune_defaults();
    *o = (ktune_tune_opts){.size = sizeof *o, .seed = d.seed, .db_path = d.db_path,
                           .cache_dir = d.backend.cache_dir,
                           .energy_window_s = KTUNE_ENERGY_WINDOW_AUTO,
                           .energy_warmup_s = d.measure.energy_warmup_s,
                           .warm = d.warm, .top = d.top};
}

/* The budget as the tuner takes it; KT_EINVAL when out of range. */
static int budget_of(const ktune_tune_opts *o, kt_budget *b, kt_diag *diag)
{
    bool ok = o->budget_kind == KTUNE_BUDGET_SPEC ||
              (o->budget_kind == KTUNE_BUDGET_COUNT && o->budget >= 1) ||
              (o->budget_kind == KTUNE_BUDGET_FRACTION && o->budget > 0 &&
               o->budget <= 1) ||
              (o->budget_kind == KTUNE_BUDGET_SECONDS && o->budget > 0);
    if (!ok)
        return kt_fail(diag, KT_EINVAL, "budget %g does not fit its kind %d",
                       o->budget, (int)o->budget_kind);
    static const kt_budget_kind KIND[] = {KT_BUDGET_NONE, KT_BUDGET_COUNT,
                                          KT_BUDGET_FRACTION, KT_BUDGET_SECONDS};
    *b = (kt_budget){KIND[o->budget_kind], o->budget};
    return KT_OK;
}

/* The device list: ordinals, each once. */
static int check_devices(const ktune_tune_opts *o, kt_diag *diag)
{
    if (o->ndevices && !o->devices)
        return kt_fail(diag, KT_EINVAL, "%zu devices and no list of them", o->ndevices);
    for (size_t i = 0; i < o->ndevices; i++) {
        if (o->devices[i] < 0)
            return kt_fail(diag, KT_EINVAL, "device %d: an ordinal is 0 or more",
                           o->devices[i]);
        for (size_t j = 0; j < i; j++)
            if (o->devices[j] == o->devices[i])
                return kt_fail(diag, KT_EINVAL, "device %d is listed twice",
                               o->devices[i]);
    }
    return KT_OK;
}

/* Whether the run keeps a map (asked, or implied by its strategy) along a
 * dimension of spec that reads energy or power. */
static bool map_reads_energy(const ktune_tune_opts *o, const kt_spec *spec,
                             const char *strategy)
{
    const kt_strategy *s = kt_strategy_find(strategy); /* NULL: a model's */
    return (o->map || (s && s->implies_map)) && kt_spec_energy_dim(spec);
}

/* The public options as the tuner's, for spec; KT_EINVAL names a bad one. */
static int opts_of(const ktune_tune_opts *o, const kt_spec *spec, kt_tune_opts *t,
                   kt_diag *diag)
{
    if (o->size != sizeof *o)
        return kt_fail(diag, KT_EINVAL, "ktune_tune_opts of %zu bytes, not %zu: "
                       "fill it with ktune_tune_opts_init", o->size, sizeof *o);
    if (o->timeout_s < 0 || o->time_limit_s < 0 || o->jobs < 0 ||
        !(o->energy_window_s == KTUNE_ENERGY_WINDOW_AUTO ||
          (o->energy_window_s >= 0 && o->energy_window_s <= 60)) ||
        !(o->energy_warmup_s >= 0 && o->energy_warmup_s <= 600) ||
        !(o->hang_factor == 0 || (o->hang_factor >= 1 && o->hang_factor <= 1e9)))
        return kt_fail(diag, KT_EINVAL, "a negative timeout, time limit or jobs, an "
                       "energy window outside 0 to 60 s, a warm-up outside 0 to 600 s "
                       "or a hang factor outside 1 to 1e9");
    *t = kt_tune_defaults();
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    t->problem = o->problem;
    t->strategy = o->strategy ? o->strategy
                  : spec->strategy ? spec->strategy : KT_STRATEGY_DEFAULT;
    t->time_limit_s = o->time_limit_s;
    t->seed = t->measure.seed = o->seed;
    t->db_path = o->db_path;
    t->backend.cache_dir = o->cache_dir;
    t->backend.jobs = o->jobs > 0 ? o->jobs : cpus > 0 ? (int)cpus : 1;
    t->backend.platform = o->platform;
    t->measure.timeout_s = o->timeout_s;
    t->measure.max_memory = o->max_memory;
    t->measure.energy_window_s = kt_tune_energy_window(o->energy_window_s, o->objective,
                                                       map_reads_energy(o, spec, t->strategy));
    t->measure.energy_warmup_s = o->energy_warmup_s;
    if (o->hang_factor > 0)
        t->measure.hang_factor = o->hang_factor;
    t->retry_failed = o->retry_failed;
    t->objective = o->objective;
    t->no_overlap = o->no_overlap;
    t->warm = o->warm;
    t->model = o->model;
    t->top = o->top;
    t->transfer = o->transfer;
    t->map = o->map;
    t->cancel = o->cancel;
    t->warn = o->warn;
    t->warn_user = o->warn_user;
    if (o->shards > 1 && (o->shard < 1 || o->shard > o->shards))
        return kt_fail(diag, KT_EINVAL, "shard %u of %u: the shard must be 1 to %u",
                       o->shard, o->shards, o->shards);
    t->nshards = o->shards;
    t->shard = o->shards > 1 ? o->shard - 1 : 0;
    t->devices = o->ndevices ? o->devices : NULL;
    t->ndevices = o->ndevices;
    int rc = check_devices(o, diag);
    return rc == KT_OK ? budget_of(o, &t->budget, diag) : rc;
}

/* ------------------------------------------------------------------- run */

/* The tuner's progress: every evaluation is kept, then passed on. */
static void keep(void *user, const kt_progress *p)
{
    ktune_run *run = user;
    if (run->n == run->cap) {
        size_t cap = run->cap ? 2 * run->cap : 64;
        char **k = realloc(run->keys, cap * sizeof *k);
        if (k)
            run->keys = k;
        ktune_result *r = k ? realloc(run->results, cap * sizeof *r) : NULL;
        if (r)
            run->results = r;
        run->cap = r ? cap : run->cap;
    }
    char *key = run->n < run->cap ? kt_strdup(p->config) : NULL;
    if (key) {
        run->keys[run->n] = key;
        run->results[run->n++] = *p->result;
    }
    run->oom |= !key;
    if (run->opts->progress)
        run->opts->progress(run->opts->user, p);
}

/* The spec and replay the options ask for: spec itself, or with none the
 * recording's (*rec); with a spec and opts->replay, *rp. */
static int open_recording(const kt_spec **spec, const ktune_tune_opts *o,
                          kt_recording **rec, kt_replay **rp, kt_diag *diag)
{
    if (!*spec) {
        kt_recording_opts ro = {.kernel = o->kernel, .problem = o->problem,
                                .device = o->device, .cache_dir = o->cache_dir,
                                .warn = o->warn, .warn_user = o->warn_user};
        int rc = kt_recording_open(o->replay, &ro, rec, diag);
        *spec = rc == KT_OK ? kt_recording_spec(*rec) : NULL;
        return rc;
    }
    ktune_problem *prob = NULL;
    int rc = ktune_problem_parse(*spec, o->problem, 0, &prob, diag);
    kt_recording_opts ro = {.device = o->device, .cache_dir = o->cache_dir,
                            .warn = o->warn, .warn_user = o->warn_user};
    if (rc == KT_OK && o->replay)
        rc = kt_replay_open_for_spec(o->replay, *spec, prob->key, &ro, rp, diag);
    ktune_problem_free(prob);
    return rc;
}

static int check_args(const ktune_spec *spec, const ktune_tune_opts *opts,
                      ktune_run **out, kt_diag *diag)
{
    if (!opts || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_tune: %s is NULL", opts ? "out" : "opts");
    if (!spec && !opts->replay)
        return kt_fail(diag, KT_EINVAL, "ktune_tune: no spec, and no recording to "
                       "replay");
    if (spec && opts->kernel)
        return kt_fail(diag, KT_EINVAL, "the kernel option chooses a recording's "
                       "kernel: it is for a replay without a spec");
    if (opts->device && !opts->replay)
        return kt_fail(diag, KT_EINVAL, "the device option chooses a recorded "
                       "device: it needs a replay");
    if (opts->size == sizeof *opts && kt_mpi_size(opts->mpi) > 1 && opts->replay)
        return kt_fail(diag, KT_EINVAL, "a replay measures nothing to spread over MPI "
                       "ranks: run it as one process");
    if (opts->size == sizeof *opts && opts->rank_timeout_s < 0)
        return kt_fail(diag, KT_EINVAL, "a negative rank timeout");
    return KT_OK;
}

/* A measuring rank of a distributed run (tune/mpi.h): the run holds its
 * device and how many configurations it measured. */
static int serve_rank(const kt_spec *spec, const kt_tune_opts *t, const kt_mpi_run *m,
                      ktune_run *run, kt_diag *diag)
{
    kt_mpi_served served;
    int rc = kt_mpi_serve(m, spec, t, &served, diag);
    kt_strlcpy(run->rep.device, sizeof run->rep.device, served.device);
    run->rep.measured = served.measured;
    if (rc == KT_OK && !(run->rep.problem = kt_strdup(t->problem ? t->problem : "")))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    return rc;
}

/* kt_tune on rank 0 (over the other ranks when there are any) or alone. */
static int tune_or_serve(const kt_spec *spec, kt_tune_opts *t, const ktune_tune_opts *o,
                         ktune_run *run, kt_diag *diag)
{
    kt_mpi_run m = {.m = o->mpi, .rank_timeout_s = o->rank_timeout_s};
    if (kt_mpi_rank(o->mpi) > 0)
        return serve_rank(spec, t, &m, run, diag);
    if (kt_mpi_size(o->mpi) <= 1)
        return kt_tune(spec, t, &run->rep, diag);
    t->exec_open = kt_exec_mpi_open;
    t->exec_user = &m;
    t->exec_jobs = (t->backend.jobs > 0 ? t->backend.jobs : 1) * (kt_mpi_size(o->mpi) - 1);
    int rc = kt_mpi_lead_start(&m, diag);
    if (rc == KT_OK)
        rc = kt_tune(spec, t, &run->rep, diag);
    kt_mpi_lead_end(&m, rc);
    return rc;
}

/* What the tuner's report says, as the run's figures. */
static void fill_info(ktune_run *run)
{
    const kt_tune_report *r = &run->rep;
    ktune_run_info *i = &run->info;
    *i = (ktune_run_info){.kernel = run->kernel, .problem = r->problem,
                          .device = r->device, .space_size = r->space_size,
                          .space_sampled = r->space_sampled, .measured = r->measured,
                          .cached = r->cached, .warm_starts = r->warm_starts,
                          .default_skipped = r->default_skipped, .seconds = r->seconds,
                          .flops = r->flops, .no_energy = r->no_energy,
                          .energy_window_s = run->energy_window_s};
    memcpy(i->by_status, r->by_status, sizeof i->by_status);
}

int ktune_tune(const ktune_spec *spec, const ktune_tune_opts *opts, ktune_run **out,
               ktune_diag *diag)
{
    int rc = check_args(spec, opts, out, diag);
    if (rc != KT_OK)
        return rc;
    *out = NULL;
    kt_recording *rec = NULL;
    kt_replay *rp = NULL;
    kt_tune_opts t;
    ktune_run *run = calloc(1, sizeof *run);
    if (!run)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    run->opts = opts;
    rc = open_recording(&spec, opts, &rec, &rp, diag);
    if (rc == KT_OK)
        rc = opts_of(opts, spec, &t, diag);
    if (rc == KT_OK && !(run->kernel = kt_strdup(spec->name)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK) {
        t.problem = rec ? NULL : opts->problem; /* the recording chose it */
        t.replay = rec ? kt_recording_replay(rec) : rp;
        run->energy_window_s = t.replay ? 0 : t.measure.energy_window_s;
        t.progress = keep;
        t.progress_user = run;
        rc = tune_or_serve(spec, &t, opts, run, diag);
    }
    if (rc == KT_OK && run->oom)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_replay_free(rp);
    kt_recording_free(rec);
    run->opts = NULL;
    fill_info(run);
    if (rc != KT_OK)
        ktune_run_free(run);
    else
        *out = run;
    return rc;
}

void ktune_run_free(ktune_run *run)
{
    if (!run)
        return;
    kt_tune_report_clear(&run->rep);
    for (size_t i = 0; i < run->n; i++)
        free(run->keys[i]);
    free(run->keys);
    free(run->results);
    free(run->kernel);
    free(run);
}

const ktune_run_info *ktune_run_summary(const ktune_run *run)
{
    return run ? &run->info : NULL;
}

int ktune_run_best(const ktune_run *run, const char **config, ktune_result *result)
{
    if (!run || !run->rep.best_config)
        return KT_ENOTFOUND;
    *config = run->rep.best_config;
    *result = run->rep.best;
    return KT_OK;
}

int ktune_run_default(const ktune_run *run, const char **config, ktune_result *result)
{
    if (!run || !config || !result)
        return KT_EINVAL;
    *config = run->rep.default_config;
    if (run->rep.default_skipped || !run->rep.default_config)
        return KT_ENOTFOUND;
    *result = run->rep.default_result;
    return KT_OK;
}

double ktune_run_speedup(const ktune_run *run)
{
    bool both = run && run->rep.best_config && !run->rep.default_skipped &&
                run->rep.default_result.status == KT_STATUS_OK;
    return both ? run->rep.default_result.time_ms / run->rep.best.time_ms : NAN;
}

int ktune_run_phase(const ktune_run *run, size_t i, const char **name, double *seconds)
{
    static const char *const TUNER[] = {"compile_wait", "start", "measure", "record"};
    enum { NTUNER = KT_ARRAY_LEN(TUNER) };
    if (!run || i >= NTUNER + KT_PHASE_COUNT)
        return KT_ENOTFOUND;
    const kt_tune_report *r = &run->rep;
    const double tuner[NTUNER] = {r->compile_wait_s, r->start_s, r->measure_s,
                                  r->record_s};
    *name = i < NTUNER ? TUNER[i] : kt_worker_phase_name((kt_worker_phase)(i - NTUNER));
    *seconds = i < NTUNER ? tuner[i] : r->phase_s[i - NTUNER];
    return KT_OK;
}

size_t ktune_run_count(const ktune_run *run) { return run ? run->n : 0; }

int ktune_run_evaluated(const ktune_run *run, size_t i, const char **config,
                        ktune_result *result)
{
    if (!run || i >= run->n)
        return KT_ENOTFOUND;
    *config = run->keys[i];
    *result = run->results[i];
    return KT_OK;
}

size_t ktune_run_front_count(const ktune_run *run) { return run ? run->rep.front.n : 0; }

int ktune_run_front(const ktune_run *run, size_t i, const char **config,
                    ktune_result *result)
{
    if (!run || i >= run->rep.front.n)
        return KT_ENOTFOUND;
    *config = run->rep.front.pts[i].config;
    *result = run->rep.front.pts[i].result;
    return KT_OK;
}

const ktune_map *ktune_run_map(const ktune_run *run) { return run ? run->rep.map : NULL; }
