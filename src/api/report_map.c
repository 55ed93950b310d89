/* report_map.c - the report's map of one run: the best time of each
 * cell of a grid.  With the kernel's spec, the cells are its MAP-Elites
 * cells (report_elites.c); without, the run's two tuning parameters with
 * the most values, each value a bin: the dimensions ktune's MAP-Elites
 * falls back to when a spec names no BehaviourDimensions (search/archive.h),
 * read from the configuration keys alone.  The grid drawer serves both. */
#include "api/report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Parameters and values the map considers; past them a parameter is left
 * out (a grid of more columns is no longer readable). */
enum { MAP_PARAMS = 32, MAP_VALUES = 40, MAP_TEXT = 48 };

/* The distinct values of each parameter of a run. */
typedef struct map_params {
    size_t n;                                   /* parameters */
    char name[MAP_PARAMS][MAP_TEXT];
    char value[MAP_PARAMS][MAP_VALUES][MAP_TEXT];
    size_t nvalues[MAP_PARAMS];
    bool too_many[MAP_PARAMS];                  /* past MAP_VALUES */
} map_params;

/* Parameter i's name and value text of key "A=1,B=x" into name/value (at
 * most n bytes each); false past the last. */
static bool key_item(const char *key, size_t i, char *name, char *value, size_t n)
{
    for (; i > 0 && key; i--)
        key = (key = strchr(key, ',')) ? key + 1 : NULL;
    if (!key || !*key)
        return false;
    size_t len = strcspn(key, ","), eq = strcspn(key, "=");
    if (eq >= len)
        return false;
    snprintf(name, n, "%.*s", (int)eq, key);
    snprintf(value, n, "%.*s", (int)(len - eq - 1), key + eq + 1);
    return true;
}

/* The index of value v of parameter p, added when new; -1 past the limit. */
static int value_index(map_params *m, size_t p, const char *v)
{
    for (size_t i = 0; i < m->nvalues[p]; i++)
        if (strcmp(m->value[p][i], v) == 0)
            return (int)i;
    if (m->nvalues[p] == MAP_VALUES) {
        m->too_many[p] = true;
        return -1;
    }
    snprintf(m->value[p][m->nvalues[p]], MAP_TEXT, "%s", v);
    return (int)m->nvalues[p]++;
}

static bool row_ok(const kt_rp_row *r)
{
    return r->status == KTUNE_STATUS_OK && isfinite(r->time_ms) && r->time_ms > 0;
}

static void params_scan(const kt_rp_run *run, map_params *m)
{
    char name[MAP_TEXT], value[MAP_TEXT];
    for (size_t i = 0; i < run->n; i++) {
        if (!row_ok(&run->rows[i]))
            continue;
        for (size_t p = 0; p < MAP_PARAMS &&
                           key_item(run->rows[i].config, p, name, value, MAP_TEXT); p++) {
            if (p == m->n)
                snprintf(m->name[m->n++], MAP_TEXT, "%s", name);
            if (strcmp(m->name[p], name) == 0)
                value_index(m, p, value);
        }
    }
}

/* Sort parameter p's values: as numbers when all are, else as text. */
static int cmp_num(const void *a, const void *b)
{
    double x = strtod(a, NULL), y = strtod(b, NULL);
    return (x > y) - (x < y);
}

static int cmp_text(const void *a, const void *b) { return strcmp(a, b); }

static void values_sort(map_params *m, size_t p)
{
    bool numeric = true;
    for (size_t i = 0; i < m->nvalues[p]; i++) {
        char *end;
        strtod(m->value[p][i], &end);
        numeric &= end != m->value[p][i] && *end == '\0';
    }
    qsort(m->value[p], m->nvalues[p], MAP_TEXT,
          numeric ? cmp_num : cmp_text);
}

/* The two parameters with the most values (ties: key order) into a, b;
 * b is MAP_PARAMS when only one varies; false when none does. */
static bool pick_dims(const map_params *m, size_t *a, size_t *b)
{
    *a = *b = MAP_PARAMS;
    for (size_t p = 0; p < m->n; p++) {
        if (m->too_many[p] || m->nvalues[p] < 2)
            continue;
        if (*a == MAP_PARAMS || m->nvalues[p] > m->nvalues[*a])
            *b = *a, *a = p;
        else if (*b == MAP_PARAMS || m->nvalues[p] > m->nvalues[*b])
            *b = p;
    }
    return *a != MAP_PARAMS;
}

/* The cell of row r: its value indices of a and b; false when it has none. */
static bool cell_of(map_params *m, const kt_rp_row *r, size_t a, size_t b, size_t *ia,
                    size_t *ib)
{
    char name[MAP_TEXT], value[MAP_TEXT];
    int i = key_item(r->config, a, name, value, MAP_TEXT) ? value_index(m, a, value) : -1;
    int j = 0;
    if (b != MAP_PARAMS)
        j = key_item(r->config, b, name, value, MAP_TEXT) ? value_index(m, b, value) : -1;
    *ia = (size_t)i, *ib = (size_t)j;
    return i >= 0 && j >= 0;
}

/* Each cell's fastest row (NULL: empty), na x nb, row-major in b. */
static const kt_rp_row **cells_fill(map_params *m, const kt_rp_run *run, size_t a, size_t b,
                                    size_t na, size_t nb)
{
    const kt_rp_row **cell = calloc(na * nb, sizeof *cell);
    size_t ia, ib;
    for (size_t i = 0; cell && i < run->n; i++) {
        const kt_rp_row *r = &run->rows[i];
        if (!row_ok(r) || !cell_of(m, r, a, b, &ia, &ib))
            continue;
        const kt_rp_row **c = &cell[ib * na + ia];
        if (!*c || r->time_ms < (*c)->time_ms)
            *c = r;
    }
    return cell;
}

static void grid_labels(const kt_plot *p, const kt_rp_grid *g)
{
    for (size_t i = 0; i < g->nx; i++)
        kt_plot_category(p, (double)i + 0.5, g->xlabel[i]);
    for (size_t j = 0; g->yname && j < g->ny; j++) {
        fprintf(p->f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">", p->left - 5,
                kt_plot_y(p, (double)j + 0.5) + 4);
        kt_html_text(p->f, g->ylabel[j]);
        fputs("</text>\n", p->f);
    }
}

/* The cells, coloured by log time: the fastest brightest. */
static size_t grid_cells(const kt_plot *p, const kt_rp_grid *g, double lo, double hi)
{
    size_t npts = 0;
    char colour[32];
    for (size_t j = 0; j < g->ny; j++)
        for (size_t i = 0; i < g->nx; i++) {
            const kt_rp_row *r = g->cell[j * g->nx + i];
            if (!r)
                continue;
            double t = hi > lo ? 1 - log(r->time_ms / lo) / log(hi / lo) : 1;
            double x0 = kt_plot_x(p, (double)i), y0 = kt_plot_y(p, (double)j + 1);
            fprintf(p->f, "<rect class=\"pt\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                    "height=\"%.1f\" fill=\"%s\"><title>%.4g ms: ", x0 + 1, y0 + 1,
                    kt_plot_x(p, (double)i + 1) - x0 - 2, kt_plot_y(p, (double)j) - y0 - 2,
                    kt_scale_colour(t, colour, sizeof colour), r->time_ms);
            kt_html_text(p->f, r->config);
            fputs("</title></rect>\n", p->f);
            npts++;
        }
    return npts;
}

void kt_rp_grid_draw(kt_rp *rp, const kt_rp_grid *g, const char *dims)
{
    double lo = INFINITY, hi = 0;
    for (size_t c = 0; c < g->nx * g->ny; c++)
        if (g->cell[c])
            lo = fmin(lo, g->cell[c]->time_ms), hi = fmax(hi, g->cell[c]->time_ms);
    kt_plot p = {.f = rp->f, .x = {0, (double)g->nx, false, true, g->xname},
                 .y = {0, (double)g->ny, false, true, g->yname ? g->yname : ""}};
    kt_rp_fig_begin(rp, "map");
    kt_plot_begin(&p, "map of the best times");
    grid_labels(&p, g);
    size_t npts = grid_cells(&p, g, lo, hi);
    kt_plot_end(&p);
    char cap[1024];
    snprintf(cap, sizeof cap, "Map: the best time of each cell of %s (across)%s%s%s: %s; "
             "%zu of %zu cells measured correctly, from %.4g ms (brightest) to %.4g ms "
             "(darkest), on a log scale.", g->xname, g->yname ? " and " : "",
             g->yname ? g->yname : "", g->yname ? " (up)" : "", dims, npts, g->nx * g->ny,
             lo, hi);
    kt_rp_fig_end(rp, npts, cap);
}

/* The map over the run's two parameters with the most values. */
static void key_map(kt_rp *rp, const kt_rp_run *run, bool spec)
{
    map_params *m = calloc(1, sizeof *m);
    size_t a, b;
    if (m)
        params_scan(run, m);
    if (!m || !pick_dims(m, &a, &b)) {
        kt_rp_note(rp, m ? "No map: no tuning parameter takes two values (at most 40) "
                           "among this run's correct measurements." : "No map: out of memory.");
        free(m);
        return;
    }
    values_sort(m, a);
    if (b != MAP_PARAMS)
        values_sort(m, b);
    size_t na = m->nvalues[a], nb = b != MAP_PARAMS ? m->nvalues[b] : 1;
    const char *xl[MAP_VALUES], *yl[MAP_VALUES];
    for (size_t i = 0; i < na; i++)
        xl[i] = m->value[a][i];
    for (size_t j = 0; b != MAP_PARAMS && j < nb; j++)
        yl[j] = m->value[b][j];
    kt_rp_grid g = {m->name[a], b != MAP_PARAMS ? m->name[b] : NULL, xl, yl, na, nb,
                    cells_fill(m, run, a, b, na, nb)};
    if (g.cell)
        kt_rp_grid_draw(rp, &g, spec ? "the run's tuning parameters with the most values "
                        "(its spec's space for this problem holds none of the run's correct "
                        "configurations: they were measured under another version of it)"
                        : "the run's tuning parameters with the most values, the dimensions "
                        "ktune's MAP-Elites falls back to where a spec names none (give "
                        "--spec for the spec's own)");
    else
        kt_rp_note(rp, "No map: out of memory.");
    free(g.cell);
    free(m);
}

void kt_rp_map(kt_rp *rp, const kt_rp_kernel *k, const kt_rp_run *run)
{
    if (!kt_rp_elites(rp, k->spec, run))
        key_map(rp, run, k->spec != NULL);
}
