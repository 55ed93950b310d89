/* transfer_bench.c - transfer across devices measured the honest way:
 * each device held out in turn, the transfer learnt from the others, and
 * the held-out recording answering only the measurements a run makes
 * (transfer.h).  Every figure is a fraction of the held-out device's
 * optimum: its optimum's time over the best time found (0 when nothing
 * found ran correctly). */
#include "tune/transfer.h"
#include "core/util.h"
#include "tune/tuner.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What one replayed run is asked to do. */
typedef struct job {
    const kt_spec *spec;
    const kt_replay *rp;
    const kt_transfer *t;   /* NULL: a cold search */
    bool start_only;        /* the transfer's top configurations alone */
    size_t top;
    uint64_t budget;
    unsigned seed;
    double optimum;
} job;

/* The fraction of the optimum one replayed run reaches. */
static int run_one(const job *j, double *frac, kt_diag *diag)
{
    kt_tune_opts o = kt_tune_defaults();
    o.replay = j->rp;
    o.warm = 0;
    o.seed = j->seed;
    o.budget = (kt_budget){KT_BUDGET_COUNT, (double)j->budget};
    o.transfer = j->t;
    o.start_only = j->start_only;
    o.top = j->top;
    kt_tune_report rep;
    int rc = kt_tune(j->spec, &o, &rep, diag);
    *frac = rc == KT_OK && rep.best_config ? j->optimum / rep.best.time_ms : 0;
    kt_tune_report_clear(&rep);
    return rc;
}

/* The mean over seeds 1..seeds of j's runs. */
static int mean_runs(job j, unsigned seeds, double *mean, kt_diag *diag)
{
    double sum = 0, f;
    int rc = KT_OK;
    for (unsigned s = 1; rc == KT_OK && s <= seeds; s++) {
        j.seed = s;
        rc = run_one(&j, &f, diag);
        sum += f;
    }
    *mean = sum / seeds;
    return rc;
}

/* The fastest correct time the recording holds. */
static double optimum_of(const kt_replay *rp)
{
    double best = INFINITY;
    kt_result r;
    for (size_t i = 0; i < kt_replay_size(rp); i++)
        if (kt_replay_row(rp, i, &r) && r.status == KT_STATUS_OK && r.time_ms > 0 &&
            r.time_ms < best)
            best = r.time_ms;
    return best;
}

/* The row of held-out device d at `budget` measurements (0: the
 * transfer's first configuration against the default one, unmeasured). */
static int bench_cell(const kt_transfer_bench_opts *o, job base, uint64_t budget,
                      kt_transfer_row *row, kt_diag *diag)
{
    row->measurements = budget;
    row->optimum_ms = base.optimum;
    job j = base;
    j.start_only = true;
    j.top = j.budget = budget ? budget : 1;
    int rc = run_one(&j, &row->transfer, diag);
    j = base;
    j.t = NULL;
    j.budget = budget ? budget : 1;
    if (rc == KT_OK)
        rc = mean_runs(j, budget ? o->seeds : 1, &row->cold, diag);
    j.t = base.t;
    j.top = o->top ? o->top : 10;
    if (rc == KT_OK && budget)
        rc = mean_runs(j, o->seeds, &row->warm, diag);
    else
        row->warm = row->transfer;
    return rc;
}

/* Device d held out: its rows. */
static int bench_device(const kt_recording *const *recs, const char *const *paths,
                        size_t n, size_t d, const kt_transfer_bench_opts *o,
                        kt_transfer_row *rows, kt_diag *diag)
{
    const kt_recording **others = malloc(n * sizeof *others);
    const char **names = malloc(n * sizeof *names);
    if (!others || !names) {
        free(others);
        free(names);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    for (size_t i = 0, k = 0; i < n; i++)
        if (i != d) {
            others[k] = recs[i];
            names[k++] = paths[i];
        }
    job base = {.spec = kt_recording_spec(recs[d]), .rp = kt_recording_replay(recs[d])};
    base.optimum = optimum_of(base.rp);
    kt_transfer *t = NULL;
    int rc = kt_transfer_new(others, names, n - 1, &t, diag);
    if (rc == KT_OK && !isfinite(base.optimum))
        rc = kt_fail(diag, KT_EEMPTY, "%s: no configuration ran correctly", paths[d]);
    base.t = t;
    for (size_t k = 0; rc == KT_OK && k <= o->nbudgets; k++)
        rc = bench_cell(o, base, k ? (uint64_t)o->budgets[k - 1] : 0, &rows[k], diag);
    kt_transfer_free(t);
    free(others);
    free(names);
    return rc;
}

/* ------------------------------------------------------------ medians */

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Column c (0 transfer, 1 warm, 2 cold) of a row. */
static double column(const kt_transfer_row *r, int c)
{
    return c == 0 ? r->transfer : c == 1 ? r->warm : r->cold;
}

/* The median rows: for each number of measurements k, each column's
 * median over the held-out devices. */
static int add_medians(kt_transfer_bench *b, size_t per, kt_diag *diag)
{
    double *v = malloc(b->ndev * sizeof *v);
    if (!v)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t k = 0; k < per; k++) {
        double m[3];
        for (int c = 0; c < 3; c++) {
            for (size_t d = 0; d < b->ndev; d++)
                v[d] = column(&b->rows[d * per + k], c);
            m[c] = median(v, b->ndev);
        }
        b->rows[b->ndev * per + k] = (kt_transfer_row){
            .measurements = b->rows[k].measurements, .optimum_ms = NAN,
            .transfer = m[0], .warm = m[1], .cold = m[2]};
    }
    free(v);
    return KT_OK;
}

/* ------------------------------------------------------------- public */

static int check_opts(size_t n, const kt_transfer_bench_opts *o, kt_diag *diag)
{
    if (n < 2)
        return kt_fail(diag, KT_EINVAL, "leaving one device out needs recordings of at "
                       "least two devices, not %zu", n);
    if (o->seeds == 0)
        return kt_fail(diag, KT_EINVAL, "no seeds");
    for (size_t k = 0; k < o->nbudgets; k++)
        if (!(o->budgets[k] >= 1 && o->budgets[k] == floor(o->budgets[k])) ||
            (k && o->budgets[k] <= o->budgets[k - 1]))
            return kt_fail(diag, KT_EINVAL, "budgets are ascending whole numbers of "
                           "measurements, like 10,20");
    return KT_OK;
}

int kt_transfer_bench_run(const kt_recording *const *recs, const char *const *paths,
                          size_t n, const kt_transfer_bench_opts *o,
                          kt_transfer_bench *out, kt_diag *diag)
{
    *out = (kt_transfer_bench){0};
    kt_transfer *all = NULL; /* every recording checked before any run */
    int rc = check_opts(n, o, diag);
    if (rc == KT_OK)
        rc = kt_transfer_new(recs, paths, n, &all, diag);
    kt_transfer_free(all);
    if (rc != KT_OK)
        return rc;
    size_t per = o->nbudgets + 1;
    out->kernel = kt_strdup(kt_recording_spec(recs[0])->name);
    out->devices = calloc(n, sizeof *out->devices);
    out->rows = calloc((n + 1) * per, sizeof *out->rows);
    if (!out->kernel || !out->devices || !out->rows)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t d = 0; rc == KT_OK && d < n; d++, out->ndev++)
        if (!(out->devices[d] = kt_strdup(kt_replay_device(kt_recording_replay(recs[d])))))
            rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t d = 0; rc == KT_OK && d < n; d++) {
        rc = bench_device(recs, paths, n, d, o, out->rows + d * per, diag);
        for (size_t k = 0; k < per; k++)
            out->rows[d * per + k].device = out->devices[d];
    }
    if (rc == KT_OK)
        rc = add_medians(out, per, diag);
    out->nrows = (n + 1) * per;
    if (rc != KT_OK)
        kt_transfer_bench_clear(out);
    return rc;
}

void kt_transfer_bench_clear(kt_transfer_bench *b)
{
    for (size_t i = 0; i < b->ndev; i++)
        free(b->devices[i]);
    free(b->devices);
    free(b->rows);
    free(b->kernel);
    *b = (kt_transfer_bench){0};
}
