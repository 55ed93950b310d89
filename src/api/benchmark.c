/* benchmark.c - the public comparison of strategies on a recording
 * (include/ktune.h) over tune/benchmark.c: the recording read with a spec
 * (its database's rows of the spec's kernel and problem) or alone. */
#include "core/util.h"
#include "store/recording.h"
#include "tune/benchmark.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct ktune_bench {
    kt_bench_report r;
    ktune_bench_info info;
    char *kernel;
};

void ktune_bench_opts_init(ktune_bench_opts *o)
{
    if (!o)
        return;
    static const double BUDGETS[] = {25, 50, 100, 200, 400};
    *o = (ktune_bench_opts){.size = sizeof *o, .budgets = BUDGETS,
                            .nbudgets = KT_ARRAY_LEN(BUDGETS), .seeds = 20};
}

void ktune_bench_free(ktune_bench *b)
{
    if (!b)
        return;
    kt_bench_report_clear(&b->r);
    free(b->kernel);
    free(b);
}

const ktune_bench_info *ktune_bench_summary(const ktune_bench *b) { return b ? &b->info : NULL; }

const ktune_bench_row *ktune_bench_row_at(const ktune_bench *b, size_t i)
{
    return b && i < b->r.nrows ? &b->r.rows[i] : NULL;
}

const ktune_bench_stat *ktune_bench_curve(const ktune_bench *b, size_t s)
{
    return b && s < b->r.nstrategies ? b->r.curves + s * b->r.curve_len : NULL;
}

/* What the library checks of o before reading anything. */
static int check_opts(const ktune_spec *spec, const ktune_bench_opts *o, kt_diag *diag)
{
    if (o->size != sizeof *o)
        return kt_fail(diag, KT_EINVAL, "ktune_benchmark: a ktune_bench_opts of %zu bytes, "
                       "not %zu (fill it with ktune_bench_opts_init)", o->size, sizeof *o);
    if (!o->replay)
        return kt_fail(diag, KT_EINVAL, "ktune_benchmark: no recording (replay)");
    if (spec && o->kernel)
        return kt_fail(diag, KT_EINVAL, "the kernel option chooses a recording's kernel "
                       "without a spec");
    for (size_t i = 0; i < o->nbudgets; i++)
        if (!(o->budgets[i] >= 1 && o->budgets[i] == floor(o->budgets[i])) ||
            (i && o->budgets[i] <= o->budgets[i - 1]))
            return kt_fail(diag, KT_EINVAL, "budgets are ascending whole numbers of "
                           "evaluations, like 25,50,100");
    if (o->nbudgets == 0 || o->seeds == 0)
        return kt_fail(diag, KT_EINVAL, "ktune_benchmark: no %s",
                       o->nbudgets ? "seeds" : "budget");
    return KT_OK;
}

/* The comparison on the recording rp answers for spec. */
static int compare(const kt_spec *spec, const kt_replay *rp, const char *problem,
                   const ktune_bench_opts *o, ktune_bench **out, kt_diag *diag)
{
    ktune_bench *b = calloc(1, sizeof *b);
    if (!b || !(b->kernel = kt_strdup(spec->name))) {
        free(b);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    kt_bench_opts bo = {.problem = problem, .replay = rp, .strategies = o->strategies,
                        .nstrategies = o->strategies ? o->nstrategies : 0,
                        .budgets = o->budgets, .nbudgets = o->nbudgets, .seeds = o->seeds,
                        .warm = o->warm};
    int rc = kt_benchmark(spec, &bo, &b->r, diag);
    if (rc != KT_OK) {
        free(b->kernel);
        free(b);
        return rc;
    }
    b->info = (ktune_bench_info){.kernel = b->kernel, .space = b->r.space,
                                 .optimum_ms = b->r.optimum_ms,
                                 .optimum_config = b->r.optimum_config, .seeds = o->seeds,
                                 .nstrategies = b->r.nstrategies,
                                 .nbudgets = b->r.nbudgets, .nrows = b->r.nrows,
                                 .curve_len = b->r.curve_len};
    *out = b;
    return KT_OK;
}

int ktune_benchmark(const ktune_spec *spec, const ktune_bench_opts *o, ktune_bench **out,
                    ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!o || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_benchmark: %s is NULL", o ? "out" : "o");
    int rc = check_opts(spec, o, diag);
    if (rc != KT_OK)
        return rc;
    if (!spec) { /* the recording alone: it chose its problem */
        kt_recording_opts ro = {.kernel = o->kernel, .problem = o->problem,
                                .device = o->device, .cache_dir = o->cache_dir,
                                .warn = o->warn, .warn_user = o->warn_user};
        kt_recording *rec = NULL;
        rc = kt_recording_open(o->replay, &ro, &rec, diag);
        if (rc == KT_OK)
            rc = compare(kt_recording_spec(rec), kt_recording_replay(rec), NULL, o, out,
                         diag);
        kt_recording_free(rec);
        return rc;
    }
    ktune_problem *p = NULL;
    kt_replay *rp = NULL;
    rc = ktune_problem_parse(spec, o->problem, 0, &p, diag);
    kt_recording_opts ro = {.device = o->device, .cache_dir = o->cache_dir,
                            .warn = o->warn, .warn_user = o->warn_user};
    if (rc == KT_OK)
        rc = kt_replay_open_for_spec(o->replay, spec, ktune_problem_key(p), &ro, &rp, diag);
    if (rc == KT_OK)
        rc = compare(spec, rp, o->problem, o, out, diag);
    kt_replay_free(rp);
    ktune_problem_free(p);
    return rc;
}
