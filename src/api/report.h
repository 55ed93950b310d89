/* report.h - what the report's files share (report.c gathers the rows and
 * writes the page; report_fig.c draws the figures of a kernel and of its
 * runs; report_roof.c the roofline against a device's measured ceilings). */
#ifndef KT_REPORT_H
#define KT_REPORT_H

#include "api/report_svg.h"
#include "core/spec.h"

/* One stored measurement, as much of it as the figures read. */
typedef struct kt_rp_row {
    char *kernel, *device, *problem, *config; /* owned */
    ktune_status status;
    double time_ms;           /* per call */
    double energy_j;          /* per call; NAN when unknown */
    uint64_t seq;             /* order in the database (the order measured) */
    bool front;               /* marked as its run's time/energy front */
    double power_w;           /* average power; NAN when unknown */
} kt_rp_row;

/* A run: the rows of one kernel, device and problem, in the order measured. */
typedef struct kt_rp_run {
    const kt_rp_row *rows;
    size_t n;
} kt_rp_run;

/* The rows of one kernel and its runs. */
typedef struct kt_rp_kernel {
    const char *name;
    const kt_rp_row *rows;
    size_t n;
    kt_rp_run *runs;          /* owned */
    size_t nruns;
    const kt_spec *spec;      /* the caller's spec of this kernel; NULL: none */
} kt_rp_kernel;

/* The page being written. */
typedef struct kt_rp {
    FILE *f;
    size_t nfig;              /* figures written so far (their ids) */
    size_t nkernels, nruns;   /* sections written, and their runs */
    ktune_db *db;             /* what the report reads (ktune_analyze) */
    bool analysis;            /* draw importance and partial dependence */
} kt_rp;

/* A figure: <figure> with its kind, then the caller's SVG or table, then
 * kt_rp_fig_end with the number of data points drawn and the caption
 * (escaped). */
void kt_rp_fig_begin(kt_rp *rp, const char *kind);
void kt_rp_fig_end(kt_rp *rp, size_t npts, const char *caption);
/* A paragraph of escaped text saying why a figure is not drawn. */
void kt_rp_note(kt_rp *rp, const char *text);

/* One bar of a bar chart: its label, value and colour (NULL: the
 * category is shown empty). */
typedef struct kt_rp_bar {
    const char *label;        /* escaped when drawn */
    double value;
    const char *colour;
} kt_rp_bar;

/* Horizontal bars from p->x.lo (the base, set by the caller with p->f and
 * p->x's label) to each value, top to bottom, in one SVG titled title;
 * the number of bars drawn (report_fig.c). */
size_t kt_rp_bars(kt_plot *p, const kt_rp_bar *bars, size_t n, const char *title);

/* The figures (report_fig.c, report_roof.c, report_analysis.c). */
void kt_rp_status(kt_rp *rp, const kt_rp_kernel *k);
void kt_rp_convergence(kt_rp *rp, const kt_rp_run *run);
void kt_rp_front(kt_rp *rp, const kt_rp_run *run);
void kt_rp_map(kt_rp *rp, const kt_rp_kernel *k, const kt_rp_run *run);
void kt_rp_roofline(kt_rp *rp, const kt_rp_kernel *k);
/* Parameter importance and partial dependence (ktune_analyze) of each
 * device's rows of k. */
void kt_rp_analysis(kt_rp *rp, const kt_rp_kernel *k);

/* A map: a grid of cells, each the fastest row in it (NULL: none). */
typedef struct kt_rp_grid {
    const char *xname, *yname;          /* yname NULL: one row of cells */
    const char *const *xlabel, *const *ylabel; /* [nx], [ny] */
    size_t nx, ny;
    const kt_rp_row **cell;             /* [ny * nx], row after row */
} kt_rp_grid;

/* Draw g as a map figure; dims says in the caption what its dimensions
 * are (report_map.c). */
void kt_rp_grid_draw(kt_rp *rp, const kt_rp_grid *g, const char *dims);
/* The run's MAP-Elites map over spec's behaviour dimensions, binned as a
 * tuning run bins them (report_elites.c); false, drawing nothing, when
 * there is no spec, the problem's space cannot be built, or no correct
 * row of the run lies in it. */
bool kt_rp_elites(kt_rp *rp, const kt_spec *spec, const kt_rp_run *run);

#endif /* KT_REPORT_H */
