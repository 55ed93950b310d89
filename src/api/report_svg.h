/* report_svg.h - what the report's figures draw with (report_svg.c):
 * escaped HTML text, and a plot frame with linear or log axes, ticks and
 * labels, into which marks are placed in data coordinates.  Every data
 * mark carries class "pt", which is what the page's check counts. */
#ifndef KT_REPORT_SVG_H
#define KT_REPORT_SVG_H

#include "core/base.h"

#include <stdio.h>

/* s with & < > " ' escaped, for text and attribute values alike. */
void kt_html_text(FILE *f, const char *s);

/* One axis of a plot. */
typedef struct kt_axis {
    double lo, hi;        /* the data range shown */
    bool log;             /* log10 scale (lo > 0) */
    bool categories;      /* no numeric ticks: the caller labels the
                             categories at 0.5, 1.5, ... */
    const char *label;    /* under or beside the axis; escaped */
} kt_axis;

/* A plot: the axes and where the data area lies in the SVG (pixels). */
typedef struct kt_plot {
    FILE *f;
    kt_axis x, y;
    double left, top, width, height;
} kt_plot;

/* Widen [*lo, *hi] to a drawable range: a little margin, log ranges to
 * whole decades' fractions; empty or degenerate ranges made non-empty. */
void kt_axis_fit(kt_axis *a);

/* Open an SVG of the page's standard size with the frame, ticks and
 * labels of p (p->f set by the caller), titled title (escaped). */
void kt_plot_begin(kt_plot *p, const char *title);
void kt_plot_end(const kt_plot *p);

/* Data coordinates to SVG pixels. */
double kt_plot_x(const kt_plot *p, double x);
double kt_plot_y(const kt_plot *p, double y);

/* A data point: a circle of colour (a CSS colour, not data) with a
 * tooltip (escaped; NULL: none). */
void kt_plot_point(const kt_plot *p, double x, double y, double r, const char *colour,
                   const char *tip);
/* A polyline through n points (x[i], y[i]); step: horizontal then
 * vertical (a best-so-far curve). */
void kt_plot_line(const kt_plot *p, const double *x, const double *y, size_t n,
                  const char *colour, bool step);
/* A text label at data coordinates (escaped), starting there or (end)
 * ending there. */
void kt_plot_label(const kt_plot *p, double x, double y, const char *colour, bool end,
                   const char *text);

/* A category's label under the x axis at data coordinate x (escaped). */
void kt_plot_category(const kt_plot *p, double x, const char *text);

/* A colour of a sequential scale for t in [0, 1] (dark: 0) into buf. */
const char *kt_scale_colour(double t, char *buf, size_t n);

#endif /* KT_REPORT_SVG_H */
