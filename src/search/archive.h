/* archive.h - the MAP-Elites archive: the valid configurations of a space
 * sorted into cells by behaviour dimensions, and the best (least cost)
 * configuration observed in each cell, so that a run leaves a map of
 * diverse good configurations rather than one point.
 *
 * Dimensions are the spec's BehaviourDimensions (spec.h).  A spec that
 * names none gets fallbacks: threads per block (the product of LocalSize)
 * and shared memory bytes (SharedMemory) where they depend on a tuning
 * parameter, then the tuning parameters with the most values (ties in spec
 * order) until there are two; each of KT_BEHAVIOUR_DEFAULT_BINS bins.
 *
 * Bins: a dimension is evaluated on every valid configuration of the
 * space, and its distinct values, sorted, are cut into at most Bins runs of
 * (nearly) equal length; with no more distinct values than bins, each value
 * is a bin.  Bins are quantiles of the values the space takes, not of their
 * range: a product of powers of two gets about log-scale bins, and every
 * bin holds valid configurations (a combination of bins, a cell, may not).
 *
 * Cells number the combinations of bins in mixed radix, the first
 * dimension most significant.  Only successes (finite cost) enter.
 */
#ifndef KT_ARCHIVE_H
#define KT_ARCHIVE_H

#include "core/space.h"

/* The grid may not have more cells than this. */
#define KT_ARCHIVE_MAX_CELLS (1u << 20)

typedef struct kt_archive kt_archive;

/* Bin the built, non-empty space (which must outlive the archive).
 * KT_ESPEC with the dimension named in diag when a dimension cannot be
 * evaluated on a configuration or the grid is too large; KT_EEMPTY when
 * no fallback dimension exists (every parameter has one value). */
int kt_archive_new(kt_space *space, kt_archive **out, kt_diag *diag);
void kt_archive_free(kt_archive *a);

size_t kt_archive_ndims(const kt_archive *a);
/* True when the spec names no BehaviourDimensions (the fallbacks above). */
bool kt_archive_fallback(const kt_archive *a);
const char *kt_archive_dim_name(const kt_archive *a, size_t d);
size_t kt_archive_dim_bins(const kt_archive *a, size_t d);
/* The least and greatest value of dimension d in bin b. */
void kt_archive_bin_range(const kt_archive *a, size_t d, size_t b, double *lo,
                          double *hi);
uint64_t kt_archive_ncells(const kt_archive *a);

/* The cell of built configuration idx (< the space size). */
uint64_t kt_archive_cell_of(const kt_archive *a, uint64_t idx);
/* The valid configurations in cell: how many, and the k-th (its built
 * index; ascending in k). */
uint64_t kt_archive_cell_size(const kt_archive *a, uint64_t cell);
uint64_t kt_archive_member(const kt_archive *a, uint64_t cell, uint64_t k);
/* Dimension d's bin in cell. */
size_t kt_archive_bin(const kt_archive *a, uint64_t cell, size_t d);

/* An observed configuration (built index) and its cost; true when it
 * became its cell's elite (a tie leaves the earlier one).  The map reports
 * the cost as the elite's time. */
bool kt_archive_offer(kt_archive *a, uint64_t idx, double cost);
/* The same, with the time and energy (NAN: unknown) that the map reports
 * of the elite, whatever its cost is made of (an energy objective's). */
bool kt_archive_offer_measured(kt_archive *a, uint64_t idx, double cost, double time_ms,
                               double energy_j);

/* Cells holding an elite. */
size_t kt_archive_occupied(const kt_archive *a);
/* The k-th occupied cell (k < kt_archive_occupied), in the order cells
 * were first filled. */
uint64_t kt_archive_nth(const kt_archive *a, size_t k);
/* The elite of cell and its cost; false when the cell is empty. */
bool kt_archive_elite(const kt_archive *a, uint64_t cell, uint64_t *idx, double *cost);

/* ------------------------------------------------------------------ map */

/* A copy of an archive that outlives its space: what a tuning run reports
 * (tune/tuner.h) and the command line prints. */
typedef struct kt_map_dim {
    char *name;
    size_t nbins;
    double *lo, *hi;          /* [nbins]: least and greatest value per bin */
} kt_map_dim;

typedef struct kt_map_cell {
    uint64_t cell;
    size_t bin[KT_BEHAVIOUR_MAX_DIMS]; /* per dimension */
    char *config;             /* the elite's configuration key */
    double cost;              /* its cost (kt_archive_offer's) */
    double time_ms, energy_j; /* its time and energy per call (NAN: unknown) */
} kt_map_cell;

/* The public ktune_map (include/ktune.h) is this struct. */
typedef struct ktune_map kt_map;
struct ktune_map {
    kt_map_dim *dims;
    size_t ndims;
    uint64_t ncells;          /* in the grid */
    bool fallback;            /* the spec names no dimensions: the fallbacks */
    kt_map_cell *filled;      /* the occupied cells, in cell order */
    size_t nfilled;
};

int kt_archive_map(const kt_archive *a, kt_map **out);
void kt_map_free(kt_map *m);

#endif /* KT_ARCHIVE_H */
