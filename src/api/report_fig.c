/* report_fig.c - the report's figures of a kernel (failure classes) and of
 * one run (convergence, time/energy front, map of the best times over two
 * tuning parameters).  Each draws its data points with class "pt" and
 * says in its caption what it shows and what it left out. */
#include "api/report.h"
#include "search/objective.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const C_POINT = "#4a78b5", *const C_BEST = "#d1495b",
                         *const C_FRONT = "#e08a00";

/* ----------------------------------------------------- failure classes */

size_t kt_rp_bars(kt_plot *p, const kt_rp_bar *bars, size_t n, const char *title)
{
    size_t npts = 0;
    double max = p->x.lo;
    for (size_t i = 0; i < n; i++)
        max = fmax(max, bars[i].value);
    p->x.hi = max, p->y = (kt_axis){0, (double)n, false, true, ""};
    double lo = p->x.lo;
    kt_axis_fit(&p->x);
    p->x.lo = lo;
    kt_plot_begin(p, title);
    for (size_t i = 0; i < n; i++) {
        double y0 = kt_plot_y(p, (double)(n - i)), y1 = kt_plot_y(p, (double)(n - i - 1));
        fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", p->left - 5,
                (y0 + y1) / 2 + 4);
        kt_html_text(p->f, bars[i].label);
        fputs("</text>\n", p->f);
        if (!bars[i].colour)
            continue; /* a category with nothing to draw */
        /* at least a pixel wide: a bar at the base value is still a point */
        double w = fmax(kt_plot_x(p, bars[i].value) - p->left, 1);
        fprintf(p->f, "<rect class=\"pt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\" fill=\"%s\"><title>", p->left, y0 + 3, w, y1 - y0 - 6,
                bars[i].colour);
        kt_html_text(p->f, bars[i].label);
        fprintf(p->f, ": %.4g</title></rect>\n<text x=\"%.1f\" y=\"%.1f\">%.4g</text>\n",
                bars[i].value, p->left + w + 4, (y0 + y1) / 2 + 4, bars[i].value);
        npts++;
    }
    kt_plot_end(p);
    return npts;
}

void kt_rp_status(kt_rp *rp, const kt_rp_kernel *k)
{
    size_t count[KTUNE_STATUS_COUNT] = {0};
    kt_rp_bar bars[KTUNE_STATUS_COUNT];
    for (size_t i = 0; i < k->n; i++)
        if ((unsigned)k->rows[i].status < KTUNE_STATUS_COUNT)
            count[k->rows[i].status]++;
    for (size_t s = 0; s < KTUNE_STATUS_COUNT; s++)
        bars[s] = (kt_rp_bar){ktune_status_name((ktune_status)s), (double)count[s],
                              !count[s] ? NULL : s == KTUNE_STATUS_OK ? C_POINT : C_BEST};
    kt_rp_fig_begin(rp, "status");
    kt_plot p = {.f = rp->f, .x = {0, 0, false, false, "measurements"}};
    size_t npts = kt_rp_bars(&p, bars, KTUNE_STATUS_COUNT, "failure classes");
    char cap[256];
    snprintf(cap, sizeof cap, "Failure classes: how each of the kernel's %zu measurements "
             "ended (ok: verified and timed; the others are the worker's classes of "
             "failure).", k->n);
    kt_rp_fig_end(rp, npts, cap);
}

/* ---------------------------------------------------------- convergence */

static bool row_ok(const kt_rp_row *r)
{
    return r->status == KTUNE_STATUS_OK && isfinite(r->time_ms) && r->time_ms > 0;
}

static bool row_energy(const kt_rp_row *r)
{
    return row_ok(r) && isfinite(r->energy_j) && r->energy_j > 0;
}

/* The least and greatest time (energy: energy) of run's correct rows
 * (with_energy: those with energy). */
static void range_of(const kt_rp_run *run, bool with_energy, bool energy, double *lo,
                     double *hi)
{
    *lo = INFINITY, *hi = -INFINITY;
    for (size_t i = 0; i < run->n; i++) {
        const kt_rp_row *r = &run->rows[i];
        if (with_energy ? !row_energy(r) : !row_ok(r))
            continue;
        double v = energy ? r->energy_j : r->time_ms;
        *lo = v < *lo ? v : *lo;
        *hi = v > *hi ? v : *hi;
    }
}

/* At most this many measurements drawn per figure (the improvements always
 * are): a page stays light over a run of millions. */
enum { MAX_DRAWN = 2000 };

/* The best-so-far steps of run into x/y (n + 1 room); how many. */
static size_t best_steps(const kt_rp_run *run, double *x, double *y, size_t *ibest)
{
    size_t k = 0;
    double best = INFINITY;
    for (size_t i = 0; i < run->n; i++)
        if (row_ok(&run->rows[i]) && run->rows[i].time_ms < best) {
            best = run->rows[i].time_ms;
            x[k] = (double)(i + 1), y[k++] = best;
            *ibest = i;
        }
    if (k) /* the level of the best to the last measurement */
        x[k] = (double)run->n, y[k] = best, k++;
    return k;
}

static void tip_of(const kt_rp_row *r, size_t i, char *tip, size_t n)
{
    snprintf(tip, n, "#%zu %.4g ms %s", i + 1, r->time_ms, r->config);
}

void kt_rp_convergence(kt_rp *rp, const kt_rp_run *run)
{
    double *x = malloc((run->n + 1) * sizeof *x), *y = malloc((run->n + 1) * sizeof *y);
    size_t ibest = 0, nsteps = x && y ? best_steps(run, x, y, &ibest) : 0, nok = 0, npts = 0;
    if (nsteps == 0) {
        kt_rp_note(rp, x && y ? "No convergence figure: no measurement of this run ran "
                                "correctly." : "No convergence figure: out of memory.");
        free(x), free(y);
        return;
    }
    kt_plot p = {.f = rp->f, .x = {1, (double)run->n, false, false, "measurement (in the "
                                   "order measured)"},
                 .y = {0, 0, true, false, "time per call (ms, log)"}};
    range_of(run, false, false, &p.y.lo, &p.y.hi);
    kt_axis_fit(&p.x), kt_axis_fit(&p.y);
    kt_rp_fig_begin(rp, "convergence");
    kt_plot_begin(&p, "convergence");
    for (size_t i = 0; i < run->n; i++)
        nok += row_ok(&run->rows[i]);
    size_t stride = nok > MAX_DRAWN ? nok / MAX_DRAWN + 1 : 1;
    char tip[512];
    for (size_t i = 0, k = 0; i < run->n; i++) {
        const kt_rp_row *r = &run->rows[i];
        if (!row_ok(r) || k++ % stride != 0)
            continue;
        tip_of(r, i, tip, sizeof tip);
        kt_plot_point(&p, (double)(i + 1), r->time_ms, 2.5, C_POINT, tip), npts++;
    }
    kt_plot_line(&p, x, y, nsteps, C_BEST, true);
    kt_plot_end(&p);
    char cap[1024];
    snprintf(cap, sizeof cap, "Convergence: each correct measurement (blue%s) and the best "
             "so far (red) of %zu measurements, %zu correct (failures are not drawn). "
             "Best %.4g ms at measurement %zu: %s.", stride > 1 ? ", every few" : "", run->n,
             nok, run->rows[ibest].time_ms, ibest + 1, run->rows[ibest].config);
    kt_rp_fig_end(rp, npts, cap);
    free(x), free(y);
}

/* ------------------------------------------------------ time and energy */

/* The front of run: the rows marked in the database, else the one its
 * rows make (*stored says which), fastest first, into f. */
static int front_of(const kt_rp_run *run, kt_front *f, bool *stored)
{
    *stored = false;
    for (size_t i = 0; i < run->n; i++)
        *stored |= run->rows[i].front && row_energy(&run->rows[i]);
    for (size_t i = 0; i < run->n; i++) {
        const kt_rp_row *r = &run->rows[i];
        if (!row_energy(r) || (*stored && !r->front))
            continue;
        kt_result res = {.status = KTUNE_STATUS_OK, .time_ms = r->time_ms,
                         .energy_j = r->energy_j};
        if (kt_front_offer(f, r->config, &res) != KT_OK)
            return KT_ENOMEM;
    }
    kt_front_sort(f);
    return KT_OK;
}

static void front_draw(kt_plot *p, const kt_rp_run *run, const kt_front *f, size_t *npts)
{
    char tip[512];
    for (size_t i = 0; i < run->n; i++) {
        const kt_rp_row *r = &run->rows[i];
        if (!row_energy(r))
            continue;
        snprintf(tip, sizeof tip, "%.4g ms, %.4g J: %s", r->time_ms, r->energy_j, r->config);
        kt_plot_point(p, r->time_ms, r->energy_j, 2.5, C_POINT, tip), (*npts)++;
    }
    double *x = malloc(f->n * sizeof *x), *y = malloc(f->n * sizeof *y);
    for (size_t i = 0; x && y && i < f->n; i++)
        x[i] = f->pts[i].result.time_ms, y[i] = f->pts[i].result.energy_j;
    if (x && y)
        kt_plot_line(p, x, y, f->n, C_FRONT, false);
    for (size_t i = 0; i < f->n; i++) {
        snprintf(tip, sizeof tip, "front: %.4g ms, %.4g J: %s", f->pts[i].result.time_ms,
                 f->pts[i].result.energy_j, f->pts[i].config);
        kt_plot_point(p, f->pts[i].result.time_ms, f->pts[i].result.energy_j, 4.5, C_FRONT,
                      tip), (*npts)++;
    }
    free(x), free(y);
}

void kt_rp_front(kt_rp *rp, const kt_rp_run *run)
{
    kt_front f = {0};
    bool stored = false;
    size_t nenergy = 0, npts = 0;
    for (size_t i = 0; i < run->n; i++)
        nenergy += row_energy(&run->rows[i]);
    if (nenergy == 0 || front_of(run, &f, &stored) != KT_OK || f.n == 0) {
        kt_rp_note(rp, nenergy ? "No time/energy figure: out of memory."
                               : "No time/energy figure: no correct measurement of this "
                                 "run has its energy (a CPU without RAPL, or an import "
                                 "without energy).");
        kt_front_clear(&f);
        return;
    }
    kt_plot p = {.f = rp->f, .x = {0, 0, false, false, "time per call (ms)"},
                 .y = {0, 0, false, false, "energy per call (J)"}};
    range_of(run, true, false, &p.x.lo, &p.x.hi);
    range_of(run, true, true, &p.y.lo, &p.y.hi);
    p.x.log = p.x.hi > 20 * p.x.lo, p.y.log = p.y.hi > 20 * p.y.lo; /* wide: log */
    kt_axis_fit(&p.x), kt_axis_fit(&p.y);
    kt_rp_fig_begin(rp, "front");
    kt_plot_begin(&p, "time and energy");
    front_draw(&p, run, &f, &npts);
    kt_plot_end(&p);
    char cap[1024];
    snprintf(cap, sizeof cap, "Time and energy per call of the %zu correct measurements "
             "with energy (blue) and their time/energy front (orange, %zu configurations: "
             "%s). From the fastest to the most frugal: %.4g ms at %.4g J to %.4g ms at "
             "%.4g J.", nenergy, f.n, stored ? "as stored by ktune tune --objective pareto"
                                             : "none is stored; the report computed it",
             f.pts[0].result.time_ms, f.pts[0].result.energy_j,
             f.pts[f.n - 1].result.time_ms, f.pts[f.n - 1].result.energy_j);
    kt_rp_fig_end(rp, npts, cap);
    kt_front_clear(&f);
}
