/* report_elites.c - a run's MAP-Elites map when the kernel's spec is
 * given: the problem's space built and binned by the search layer's
 * archive (search/archive.h), exactly as `ktune tune --map` bins it (the
 * spec's BehaviourDimensions, else ktune's fallbacks), and each stored
 * correct row placed in its cell.  A measured dimension (energy, power,
 * time) is binned from the run's rows, as a tuning run bins it from what it
 * measured; rows without its value (no energy read) are counted in the
 * caption, as are rows the space does not hold (measured under an older
 * spec), not drawn. */
#include "api/report.h"
#include "core/space.h"
#include "search/archive.h"

#include <stdlib.h>

/* Spaces past this many configurations are not listed for a map. */
enum { ELITES_MAX_SPACE = 1 << 20, LABEL = 40 };

/* What the map is drawn from. */
typedef struct elites {
    const kt_spec *spec;
    kt_space *sp;
    kt_archive *a;
    const kt_rp_run *run;
    uint64_t *idx;            /* per row: its built index; UINT64_MAX: none */
    size_t nok, inspace, unplaced; /* correct rows; of them in the space;
                                      of those, without a measured value */
} elites;

static kt_result row_result(const kt_rp_row *r)
{
    return (kt_result){.status = r->status, .time_ms = r->time_ms, .energy_j = r->energy_j,
                       .power_w = r->power_w};
}

/* Offer every correct row of the space to the archive (the measured
 * dimensions' bins come from them); false when out of memory. */
static bool elites_offer(elites *e)
{
    const kt_spec *spec = e->spec;
    uint16_t *cfg = calloc(spec->nparams ? spec->nparams : 1, sizeof *cfg);
    bool ok = cfg != NULL;
    for (size_t i = 0; ok && i < e->run->n; i++) {
        const kt_rp_row *r = &e->run->rows[i];
        e->idx[i] = UINT64_MAX;
        if (r->status != KTUNE_STATUS_OK || !(r->time_ms > 0))
            continue;
        e->nok++;
        if (kt_spec_config_parse(spec, r->config, cfg, NULL) != KT_OK ||
            kt_space_index_of(e->sp, cfg, &e->idx[i]) != KT_OK) {
            e->idx[i] = UINT64_MAX;
            continue;
        }
        e->inspace++;
        kt_result res = row_result(r);
        ok = kt_archive_offer(e->a, e->idx[i], r->time_ms, &res) == KT_OK;
    }
    free(cfg);
    kt_archive_refresh(e->a);
    return ok;
}

/* The fastest row of each cell, projected on the first two dimensions
 * (the others collapsed); how many rows were placed. */
static size_t elites_place(elites *e, kt_rp_grid *g)
{
    size_t placed = 0, nd = kt_archive_ndims(e->a);
    for (size_t i = 0; i < e->run->n; i++) {
        const kt_rp_row *r = &e->run->rows[i];
        kt_result res = row_result(r);
        uint64_t cell;
        if (e->idx[i] == UINT64_MAX)
            continue;
        if (!kt_archive_cell_of(e->a, e->idx[i], &res, &cell)) {
            e->unplaced++;
            continue;
        }
        size_t x = kt_archive_bin(e->a, cell, 0);
        size_t y = nd > 1 ? kt_archive_bin(e->a, cell, 1) : 0;
        const kt_rp_row **c = &g->cell[y * g->nx + x];
        if (!*c || r->time_ms < (*c)->time_ms)
            *c = r;
        placed++;
    }
    return placed;
}

/* Bin b of dimension d as "lo" or "lo-hi" into buf. */
static const char *bin_label(const kt_archive *a, size_t d, size_t b, char *buf)
{
    double lo, hi;
    kt_archive_bin_range(a, d, b, &lo, &hi);
    if (lo == hi)
        snprintf(buf, LABEL, "%g", lo);
    else
        snprintf(buf, LABEL, "%g-%g", lo, hi);
    return buf;
}

/* The names of the measured dimensions into out ("" for none). */
static void measured_text(const kt_archive *a, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t d = 0; d < kt_archive_ndims(a) && len < n; d++)
        if (kt_archive_dim_measured(a, d))
            len += (size_t)snprintf(out + len, n - len, "%s%s", len ? ", " : "",
                                    kt_archive_dim_name(a, d));
}

static void elites_caption(const elites *e, char *out, size_t n)
{
    char measured[256];
    measured_text(e->a, measured, sizeof measured);
    size_t nd = kt_archive_ndims(e->a);
    int len = snprintf(out, n, "%s, binned as ktune tune --map bins them%s; %zu of the "
                       "run's %zu correct measurements lie in the spec's space for this "
                       "problem", kt_archive_fallback(e->a)
                       ? "ktune's MAP-Elites fallback dimensions (the spec names no "
                         "BehaviourDimensions)" : "the spec's BehaviourDimensions",
                       nd > 2 ? " (the further dimensions collapsed: a cell is the best "
                       "over them)" : "", e->inspace, e->nok);
    if (*measured && len > 0 && (size_t)len < n)
        snprintf(out + len, n - (size_t)len, "; measured: %s, its bins the quantiles of "
                 "the values of the rows placed (%zu rows without the value are not)",
                 measured, e->unplaced);
}

static bool elites_draw(kt_rp *rp, elites *e)
{
    const kt_archive *a = e->a;
    size_t nd = kt_archive_ndims(a), placed = 0;
    kt_rp_grid g = {kt_archive_dim_name(a, 0), nd > 1 ? kt_archive_dim_name(a, 1) : NULL,
                    NULL, NULL, kt_archive_dim_bins(a, 0), nd > 1 ? kt_archive_dim_bins(a, 1) : 1,
                    NULL};
    g.cell = calloc(g.nx * g.ny + 1, sizeof *g.cell);
    char(*text)[LABEL] = calloc(g.nx + g.ny + 1, LABEL);
    const char **label = calloc(g.nx + g.ny + 1, sizeof *label);
    if (g.cell && text && label && kt_archive_ncells(a) > 0)
        placed = elites_place(e, &g);
    if (placed) {
        for (size_t i = 0; i < g.nx + g.ny; i++)
            label[i] = i < g.nx ? bin_label(a, 0, i, text[i])
                                : nd > 1 ? bin_label(a, 1, i - g.nx, text[i]) : "";
        g.xlabel = label, g.ylabel = label + g.nx;
        char dims[768];
        elites_caption(e, dims, sizeof dims);
        kt_rp_grid_draw(rp, &g, dims);
    }
    free(g.cell);
    free(text);
    free(label);
    return placed > 0;
}

/* A map over measured dimensions that no row has a value of: said, in
 * place of a map over other dimensions. */
static bool elites_none_measured(kt_rp *rp, const elites *e)
{
    if (!kt_archive_measures(e->a) || e->inspace == 0)
        return false;
    char measured[256], text[512];
    measured_text(e->a, measured, sizeof measured);
    snprintf(text, sizeof text, "No map: the spec's behaviour dimensions include measured "
             "ones (%s), and none of the run's %zu correct measurements in its space has "
             "their values.", measured, e->inspace);
    kt_rp_note(rp, text);
    return true;
}

bool kt_rp_elites(kt_rp *rp, const kt_spec *spec, const kt_rp_run *run)
{
    kt_problem prob = {0};
    elites e = {.spec = spec, .run = run, .idx = calloc(run->n + 1, sizeof *e.idx)};
    bool drawn = false;
    if (e.idx && spec &&
        kt_problem_parse(spec, run->rows[0].problem, &prob, NULL) == KT_OK &&
        kt_space_new(spec, &prob, &e.sp, NULL) == KT_OK &&
        kt_space_build(e.sp, ELITES_MAX_SPACE, NULL) == KT_OK &&
        kt_archive_new(e.sp, &e.a, NULL) == KT_OK && elites_offer(&e))
        drawn = elites_draw(rp, &e) || elites_none_measured(rp, &e);
    free(e.idx);
    kt_archive_free(e.a);
    kt_space_free(e.sp);
    kt_problem_clear(&prob);
    return drawn;
}
