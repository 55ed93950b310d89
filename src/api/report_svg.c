/* report_svg.c - SVG plot frames and marks for the HTML report
 * (report_svg.h).  Sizes are fixed in pixels: every figure of the page
 * has the same frame, so they line up in a grid and compare at a glance. */
#include "api/report_svg.h"

#include <math.h>

enum { SVG_W = 560, SVG_H = 340 };
static const double LEFT = 92, TOP = 28, WIDTH = 446, HEIGHT = 250;

void kt_html_text(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", f); break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

void kt_axis_fit(kt_axis *a)
{
    if (!isfinite(a->lo) || !isfinite(a->hi) || a->lo > a->hi)
        a->lo = a->hi = a->log ? 1 : 0;
    if (a->log) {
        if (a->lo <= 0)
            a->lo = a->hi > 0 ? a->hi / 10 : 1;
        double span = log10(a->hi / a->lo);
        double pad = span > 0 ? span * 0.06 : 0.15;
        a->lo /= pow(10, pad);
        a->hi *= pow(10, pad);
        return;
    }
    double span = a->hi - a->lo;
    double pad = span > 0 ? span * 0.06 : (a->lo != 0 ? fabs(a->lo) * 0.1 : 1);
    a->lo -= pad;
    a->hi += pad;
}

/* Position of v along a as a fraction from lo (0) to hi (1). */
static double axis_frac(const kt_axis *a, double v)
{
    if (a->log)
        return log10(v / a->lo) / log10(a->hi / a->lo);
    return (v - a->lo) / (a->hi - a->lo);
}

double kt_plot_x(const kt_plot *p, double x) { return p->left + axis_frac(&p->x, x) * p->width; }

double kt_plot_y(const kt_plot *p, double y)
{
    return p->top + (1 - axis_frac(&p->y, y)) * p->height;
}

/* A step of 1, 2 or 5 times a power of ten giving about 5 ticks. */
static double nice_step(double span)
{
    double raw = span / 5, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return mag * (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10);
}

/* The tick values of a into ticks (at most n); how many. */
static size_t axis_ticks(const kt_axis *a, double *ticks, size_t n)
{
    size_t k = 0;
    if (a->categories)
        return 0;
    if (a->log) {
        static const double MANT[] = {1, 2, 5};
        bool decades = log10(a->hi / a->lo) > 2.5;
        for (double e = floor(log10(a->lo)); e <= ceil(log10(a->hi)) && k < n; e++)
            for (size_t m = 0; m < (decades ? 1u : 3u) && k < n; m++) {
                double v = MANT[m] * pow(10, e);
                if (v >= a->lo && v <= a->hi)
                    ticks[k++] = v;
            }
        return k;
    }
    double step = nice_step(a->hi - a->lo);
    for (double v = ceil(a->lo / step) * step; v <= a->hi && k < n; v += step)
        ticks[k++] = fabs(v) < step * 1e-9 ? 0 : v;
    return k;
}

static void tick_x(const kt_plot *p, double v)
{
    double x = kt_plot_x(p, v), y = p->top + p->height;
    fprintf(p->f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.4g</text>\n",
            x, p->top, x, y, x, y + 16, v);
}

static void tick_y(const kt_plot *p, double v)
{
    double y = kt_plot_y(p, v);
    fprintf(p->f, "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
            "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%.4g</text>\n",
            p->left, y, p->left + p->width, y, p->left - 5, y + 4, v);
}

void kt_plot_begin(kt_plot *p, const char *title)
{
    p->left = LEFT, p->top = TOP, p->width = WIDTH, p->height = HEIGHT;
    fprintf(p->f, "<svg viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\" role=\"img\"><title>", SVG_W, SVG_H, SVG_W, SVG_H);
    kt_html_text(p->f, title);
    fprintf(p->f, "</title>\n<rect class=\"frame\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
            "height=\"%.1f\"/>\n", p->left, p->top, p->width, p->height);
    double t[40];
    size_t n = axis_ticks(&p->x, t, 40);
    for (size_t i = 0; i < n; i++)
        tick_x(p, t[i]);
    n = axis_ticks(&p->y, t, 40);
    for (size_t i = 0; i < n; i++)
        tick_y(p, t[i]);
    fprintf(p->f, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">",
            p->left + p->width / 2, SVG_H - 8);
    kt_html_text(p->f, p->x.label);
    fprintf(p->f, "</text>\n<text class=\"axis\" transform=\"translate(16 %.1f) "
            "rotate(-90)\" text-anchor=\"middle\">", p->top + p->height / 2);
    kt_html_text(p->f, p->y.label);
    fputs("</text>\n", p->f);
}

void kt_plot_end(const kt_plot *p) { fputs("</svg>\n", p->f); }

void kt_plot_point(const kt_plot *p, double x, double y, double r, const char *colour,
                   const char *tip)
{
    fprintf(p->f, "<circle class=\"pt\" cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\">",
            kt_plot_x(p, x), kt_plot_y(p, y), r, colour);
    if (tip) {
        fputs("<title>", p->f);
        kt_html_text(p->f, tip);
        fputs("</title>", p->f);
    }
    fputs("</circle>\n", p->f);
}

void kt_plot_line(const kt_plot *p, const double *x, const double *y, size_t n,
                  const char *colour, bool step)
{
    if (n == 0)
        return;
    fprintf(p->f, "<path class=\"line\" stroke=\"%s\" d=\"M%.1f %.1f", colour,
            kt_plot_x(p, x[0]), kt_plot_y(p, y[0]));
    for (size_t i = 1; i < n; i++) {
        if (step)
            fprintf(p->f, " H%.1f V%.1f", kt_plot_x(p, x[i]), kt_plot_y(p, y[i]));
        else
            fprintf(p->f, " L%.1f %.1f", kt_plot_x(p, x[i]), kt_plot_y(p, y[i]));
    }
    fputs("\"/>\n", p->f);
}

void kt_plot_label(const kt_plot *p, double x, double y, const char *colour, bool end,
                   const char *text)
{
    fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"%s\"%s>", kt_plot_x(p, x) - (end ? 4 : 0),
            kt_plot_y(p, y), colour, end ? " text-anchor=\"end\"" : "");
    kt_html_text(p->f, text);
    fputs("</text>\n", p->f);
}

void kt_plot_category(const kt_plot *p, double x, const char *text)
{
    fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", kt_plot_x(p, x),
            p->top + p->height + 16);
    kt_html_text(p->f, text);
    fputs("</text>\n", p->f);
}

const char *kt_scale_colour(double t, char *buf, size_t n)
{
    /* dark blue to yellow, through teal and green (a viridis-like scale
     * that stays readable in grey) */
    static const double STOPS[4][3] = {{68, 1, 84}, {49, 104, 142}, {53, 183, 121},
                                       {253, 231, 37}};
    t = !isfinite(t) ? 0 : t < 0 ? 0 : t > 1 ? 1 : t;
    double s = t * 3;
    size_t i = s >= 3 ? 2 : (size_t)s;
    double u = s - (double)i;
    snprintf(buf, n, "rgb(%d,%d,%d)", (int)lround(STOPS[i][0] + u * (STOPS[i + 1][0] - STOPS[i][0])),
             (int)lround(STOPS[i][1] + u * (STOPS[i + 1][1] - STOPS[i][1])),
             (int)lround(STOPS[i][2] + u * (STOPS[i + 1][2] - STOPS[i][2])));
    return buf;
}
