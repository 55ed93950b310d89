/* archive_impl.h - the insides of the MAP-Elites archive (archive.h),
 * shared by its files: archive.c (dimensions, their bins over the space,
 * groups), archive_cells.c (results, measured bins, cells and elites) and
 * archive_map.c (the map a run reports). */
#ifndef KT_ARCHIVE_IMPL_H
#define KT_ARCHIVE_IMPL_H

#include "search/archive.h"

/* One dimension: how its value is had, and its bins. */
typedef struct kt_archive_dim {
    const char *name;          /* the spec's, or a static one */
    const char *where;         /* the spec key it comes from, for errors */
    const kt_expr *expr[3];    /* the value is their product... */
    size_t nexpr;
    size_t param;              /* ...or, with none, this parameter's value... */
    kt_measured measured;      /* ...or, not NONE, this of the result */
    size_t want;               /* bins asked for */
    double *vals;              /* distinct values, ascending: over the space,
                                  or (measured) over the placed results; a
                                  measured one has room for every kept result */
    size_t nvals, nbins;
} kt_archive_dim;

/* A placed result: kept when a dimension is measured, and a cell's elite. */
typedef struct kt_archive_entry {
    uint64_t idx;              /* built index; UINT64_MAX: none (an empty cell) */
    double cost;
    double time_ms, energy_j, power_w; /* as the result gave them (NAN: unknown) */
} kt_archive_entry;

struct kt_archive {
    kt_space *space;
    kt_archive_dim dims[KT_BEHAVIOUR_MAX_DIMS];
    size_t ndims;
    bool measures;             /* a dimension is measured */
    uint64_t ngroups;
    uint32_t *group;           /* per built index */
    uint64_t *first;           /* per group + 1: where its members start */
    uint64_t *members;         /* built indices grouped by group, ascending */
    bool *filled;              /* per group: a result of it was placed */
    uint64_t ncells;           /* as binned now */
    uint64_t maxcells;         /* with every measured dimension at its Bins */
    kt_archive_entry *elite;   /* [maxcells] */
    uint64_t *order;           /* occupied cells, in the order first filled */
    size_t noccupied;
    kt_archive_entry *kept;    /* measured: the placed results, as offered */
    size_t nkept, cap;
    size_t unplaced;
    bool stale;                /* results were kept since the last refresh */
};

/* Sort v[n] and keep its distinct values at its start; how many. */
size_t kt_archive_distinct(double *v, size_t n);
/* The bin of x along d (a value past the greatest: the last bin). */
size_t kt_archive_bin_of(const kt_archive_dim *d, double x);
/* Empty cells [0, ncells) for a new placement. */
void kt_archive_clear_cells(kt_archive *a);

#endif /* KT_ARCHIVE_IMPL_H */
