/* report_roof.c - the report's roofline: the fastest configurations of a
 * GPU kernel's problems against the device's measured ceilings.
 *
 * The ceilings are data, each with where it was measured: ktune's own
 * fair measurements on the H100 (docs/PERFORMANCE.md).  A point's FLOPs
 * are the spec's FlopCount for the problem; its bytes are not stored
 * anywhere, so the figure assumes the compulsory traffic of the spec's
 * arguments (each read-only buffer read once, each write-only one written
 * once, a read-write one both) and says so: the real traffic is larger,
 * so a point's true intensity is at most the one drawn. */
#include "api/report.h"
#include "core/expr.h"
#include "measure/measure.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* One compute ceiling. */
typedef struct rp_peak {
    const char *what;         /* the arithmetic it bounds */
    double gflops;            /* GFLOP/s */
} rp_peak;

/* A device's measured ceilings. */
typedef struct rp_ceilings {
    const char *device;       /* matched as a part of the stored device name */
    double gbps;              /* DRAM bandwidth, GB/s (bytes read + written) */
    rp_peak peak[3];          /* ascending */
    const char *source;       /* where the figures were measured */
} rp_ceilings;

static const rp_ceilings CEILINGS[] = {
    {"H100", 3000,
     {{"FP32, cuBLAS SGEMM", 51300}, {"FP16 tensor cores, cuBLAS", 758400},
      {"FP8 tensor cores, cuBLAS", 1301900}},
     "measured on an H100 80GB HBM3 on 2026-11-24 (docs/PERFORMANCE.md): cuBLAS at "
     "M=N=K=4096 in the fairly timed GEMM table (BF16: 782 TFLOP/s, near FP16's line), "
     "and a device-to-device copy at 3.0 TB/s (bytes read + written)"},
};

static const rp_ceilings *ceilings_of(const char *device)
{
    for (size_t i = 0; i < sizeof CEILINGS / sizeof *CEILINGS; i++)
        if (strstr(device, CEILINGS[i].device))
            return &CEILINGS[i];
    return NULL;
}

/* The FLOPs and compulsory bytes of one call on problem key; false when
 * the spec cannot say (no FlopCount, a key it does not parse). */
static bool problem_cost(const kt_spec *spec, const char *key, double *flops, double *bytes)
{
    kt_problem prob;
    if (!spec->flops || kt_problem_parse(spec, key, &prob, NULL) != KT_OK)
        return false;
    double *slots = calloc(spec->nnames ? spec->nnames : 1, sizeof *slots);
    bool ok = slots != NULL;
    if (ok)
        kt_spec_slots(spec, NULL, &prob, slots);
    ok = ok && kt_expr_eval(spec->flops, slots, flops) == KT_OK && *flops > 0;
    *bytes = 0;
    for (size_t i = 0; ok && i < spec->nargs; i++) {
        const kt_arg *a = &spec->args[i];
        double n;
        if (a->scalar || !a->size)
            continue;
        ok = kt_expr_eval(a->size, slots, &n) == KT_OK;
        *bytes += n * (double)kt_dtype_size(a->type) * (a->access == KT_READ_WRITE ? 2 : 1);
    }
    free(slots);
    kt_problem_clear(&prob);
    return ok && *bytes > 0;
}

/* A point of the roofline. */
typedef struct rp_point {
    double intensity;         /* FLOP per byte */
    double gflops;
    const kt_rp_row *row;
} rp_point;

static int cmp_time(const void *pa, const void *pb)
{
    const kt_rp_row *a = *(const kt_rp_row *const *)pa, *b = *(const kt_rp_row *const *)pb;
    return (a->time_ms > b->time_ms) - (a->time_ms < b->time_ms);
}

enum { ROOF_TOP = 5 }; /* configurations drawn per run */

/* The fastest ROOF_TOP correct rows of each run on a device of c. */
static size_t roof_points(const kt_rp_kernel *k, const rp_ceilings *c, rp_point *pts)
{
    size_t n = 0;
    const kt_rp_row *top[ROOF_TOP + 1];
    for (size_t r = 0; r < k->nruns; r++) {
        const kt_rp_run *run = &k->runs[r];
        double flops, bytes;
        if (ceilings_of(run->rows[0].device) != c ||
            !problem_cost(k->spec, run->rows[0].problem, &flops, &bytes))
            continue;
        size_t m = 0;
        for (size_t i = 0; i < run->n; i++) {
            const kt_rp_row *row = &run->rows[i];
            if (row->status != KTUNE_STATUS_OK || !(row->time_ms > 0))
                continue;
            top[m] = row; /* the slot past the kept ones */
            qsort(top, m + 1, sizeof *top, cmp_time); /* at most 6: cheap */
            m += m < ROOF_TOP;
        }
        for (size_t i = 0; i < m; i++)
            pts[n++] = (rp_point){flops / bytes, flops / (top[i]->time_ms * 1e-3) / 1e9, top[i]};
    }
    return n;
}

static void roof_ceilings(const kt_plot *p, const rp_ceilings *c)
{
    static const char *const COLOUR[] = {"#777", "#2a9d8f", "#e76f51"};
    double x0 = p->x.lo, x1 = p->x.hi;
    for (size_t i = 0; i < 3; i++) {
        double g = c->peak[i].gflops, ridge = g / c->gbps;
        double xs[2] = {fmax(ridge, x0), x1}, ys[2] = {g, g};
        kt_plot_line(p, xs, ys, 2, COLOUR[i], false);
        char t[96];
        snprintf(t, sizeof t, "%s %.4g TFLOP/s", c->peak[i].what, g / 1e3);
        kt_plot_label(p, x1, g * 1.12, COLOUR[i], true, t);
    }
    double top = c->peak[2].gflops, xs[2] = {x0, top / c->gbps},
           ys[2] = {x0 * c->gbps, top};
    kt_plot_line(p, xs, ys, 2, "#777", false);
    char t[64];
    snprintf(t, sizeof t, "DRAM %.3g TB/s", c->gbps / 1e3);
    kt_plot_label(p, x0 * 1.3, x0 * 1.3 * c->gbps * 1.5, "#777", false, t);
}

static void roof_draw(kt_rp *rp, const kt_rp_kernel *k, const rp_ceilings *c,
                      const rp_point *pts, size_t n)
{
    kt_plot p = {.f = rp->f, .x = {INFINITY, -INFINITY, true, false,
                                   "arithmetic intensity (FLOP per compulsory byte, log)"},
                 .y = {INFINITY, c->peak[2].gflops, true, false, "GFLOP/s (log)"}};
    for (size_t i = 0; i < n; i++) {
        p.x.lo = fmin(p.x.lo, pts[i].intensity), p.x.hi = fmax(p.x.hi, pts[i].intensity);
        p.y.lo = fmin(p.y.lo, pts[i].gflops);
    }
    /* room for the ridge points and the slope below them */
    p.x.lo = fmin(p.x.lo, c->peak[0].gflops / c->gbps) / 8;
    p.x.hi = fmax(p.x.hi, c->peak[2].gflops / c->gbps) * 4;
    p.y.lo = fmin(p.y.lo, p.x.lo * c->gbps);
    kt_axis_fit(&p.x), kt_axis_fit(&p.y);
    kt_rp_fig_begin(rp, "roofline");
    kt_plot_begin(&p, "roofline");
    roof_ceilings(&p, c);
    char tip[512];
    for (size_t i = 0; i < n; i++) {
        snprintf(tip, sizeof tip, "%s: %.4g GFLOP/s, %.4g ms: %s", pts[i].row->problem,
                 pts[i].gflops, pts[i].row->time_ms, pts[i].row->config);
        kt_plot_point(&p, pts[i].intensity, pts[i].gflops, 3.5, "#d1495b", tip);
    }
    kt_plot_end(&p);
    char cap[1024];
    snprintf(cap, sizeof cap, "Roofline of %s: the %d fastest configurations of each "
             "problem (red; GFLOP/s from the spec's FlopCount) against the device's ceilings, "
             "%s. Assumed: bytes are the compulsory traffic of the spec's arguments (each "
             "input read once, each output written once); the real traffic is larger, so "
             "a point's true intensity is at most the one drawn.", k->name, ROOF_TOP,
             c->source);
    kt_rp_fig_end(rp, n, cap);
}

void kt_rp_roofline(kt_rp *rp, const kt_rp_kernel *k)
{
    const rp_ceilings *c = NULL;
    for (size_t r = 0; r < k->nruns && !c; r++)
        c = ceilings_of(k->runs[r].rows[0].device);
    if (!c)
        return; /* no device with known ceilings: not a GPU kernel ktune can place */
    if (!k->spec || !k->spec->flops) {
        kt_rp_note(rp, k->spec ? "No roofline: the spec has no FlopCount."
                               : "No roofline: give the kernel's spec (ktune report --spec "
                                 "FILE) for its FlopCount and argument sizes.");
        return;
    }
    rp_point *pts = calloc(k->nruns * ROOF_TOP, sizeof *pts);
    size_t n = pts ? roof_points(k, c, pts) : 0;
    if (n)
        roof_draw(rp, k, c, pts, n);
    else
        kt_rp_note(rp, "No roofline: the spec's FlopCount or argument sizes cannot be "
                       "evaluated on the stored problems, or no run ran correctly.");
    free(pts);
}
