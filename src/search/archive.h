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
 * A predetermined dimension (an Expression, or a fallback) is a property
 * of the configuration, known before it is measured.  It is evaluated on
 * every valid configuration of the space, and its distinct values, sorted,
 * are cut into at most Bins runs of (nearly) equal length; with no more
 * distinct values than bins, each value is a bin.  Bins are quantiles of
 * the values the space takes, not of their range: a product of powers of
 * two gets about log-scale bins, and every bin holds valid configurations.
 *
 * A measured dimension (Measured: energy, power or time) is an outcome:
 * a configuration's bin along it comes from its result.  Its bins are cut
 * the same way from the distinct values of the results placed so far, so
 * they (and the number of bins, up to Bins) change as results arrive.  The
 * archive then keeps every placed result, and kt_archive_refresh re-bins
 * them all and chooses each cell's elite again: cells and elites are what
 * they would be had every result arrived under the latest bins (a refresh
 * sorts the kept values: n log n for n results, once per batch of a
 * run).  A correct result lacking a measured value (no energy read) is not
 * placed, only counted (kt_archive_unplaced).
 *
 * A group is the set of configurations that share their bins along every
 * predetermined dimension: what is known of a cell before measuring.
 * Without measured dimensions a group is a cell.
 *
 * Cells number the combinations of bins in mixed radix, the first
 * dimension most significant; groups the same over the predetermined
 * dimensions alone (one group when there are none).  Only successes
 * (finite cost) enter.
 */
#ifndef KT_ARCHIVE_H
#define KT_ARCHIVE_H

#include "core/space.h"

/* The grid may not have more cells than this (measured dimensions counted
 * at their Bins). */
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
/* What dimension d measures; KT_MEASURED_NONE when predetermined. */
kt_measured kt_archive_dim_measured(const kt_archive *a, size_t d);
/* Whether any dimension is measured. */
bool kt_archive_measures(const kt_archive *a);

/* ---------------------------------------------------------------- groups */

uint64_t kt_archive_ngroups(const kt_archive *a);
/* The group of built configuration idx (< the space size). */
uint64_t kt_archive_group_of(const kt_archive *a, uint64_t idx);
/* The valid configurations in group g: how many, and the k-th (its built
 * index; ascending in k). */
uint64_t kt_archive_group_size(const kt_archive *a, uint64_t g);
uint64_t kt_archive_group_member(const kt_archive *a, uint64_t g, uint64_t k);
/* Whether a result of group g has been placed. */
bool kt_archive_group_filled(const kt_archive *a, uint64_t g);

/* ----------------------------------------------------------------- cells */

/* An observed configuration (built index), its cost and its result (NULL:
 * the cost stands for its time; nothing else measured).  The map reports
 * the result's time and energy of an elite, whatever its cost is made of
 * (an energy objective's).  KT_ENOMEM when a measured result cannot be
 * kept (the archive is unchanged). */
int kt_archive_offer(kt_archive *a, uint64_t idx, double cost, const kt_result *r);

/* Bring the measured dimensions' bins, the cells and their elites up to
 * the results offered (see the top); a no-op when nothing new was offered
 * or no dimension is measured.  The functions below read the archive as
 * of the last refresh. */
void kt_archive_refresh(kt_archive *a);

/* Bins of dimension d (a measured one: 0 before any value). */
size_t kt_archive_dim_bins(const kt_archive *a, size_t d);
/* The least and greatest value of dimension d in bin b. */
void kt_archive_bin_range(const kt_archive *a, size_t d, size_t b, double *lo,
                          double *hi);
uint64_t kt_archive_ncells(const kt_archive *a);
/* Dimension d's bin in cell. */
size_t kt_archive_bin(const kt_archive *a, uint64_t cell, size_t d);
/* The cell of configuration idx with result r (NULL: none), by the
 * current bins; false when a measured dimension's value is missing. */
bool kt_archive_cell_of(const kt_archive *a, uint64_t idx, const kt_result *r,
                        uint64_t *cell);

/* Cells holding an elite. */
size_t kt_archive_occupied(const kt_archive *a);
/* The k-th occupied cell (k < kt_archive_occupied), in the order cells
 * were first filled. */
uint64_t kt_archive_nth(const kt_archive *a, size_t k);
/* The elite of cell and its cost; false when the cell is empty. */
bool kt_archive_elite(const kt_archive *a, uint64_t cell, uint64_t *idx, double *cost);
/* Whether fewer results are placed than the measured dimensions make
 * cells at their Bins (their product); false without measured ones. */
bool kt_archive_few_placed(const kt_archive *a);
/* Correct results offered that could not be placed: a measured
 * dimension's value (energy, power) is missing, or the cost is not
 * finite. */
size_t kt_archive_unplaced(const kt_archive *a);

/* ------------------------------------------------------------------ map */

/* A copy of an archive that outlives its space: what a tuning run reports
 * (tune/tuner.h) and the command line prints. */
typedef struct kt_map_dim {
    char *name;
    size_t nbins;
    double *lo, *hi;          /* [nbins]: least and greatest value per bin */
    kt_measured measured;     /* KT_MEASURED_NONE: predetermined */
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
    size_t unplaced;          /* kt_archive_unplaced */
};

/* Refresh a, then copy it. */
int kt_archive_map(kt_archive *a, kt_map **out);
void kt_map_free(kt_map *m);

#endif /* KT_ARCHIVE_H */
