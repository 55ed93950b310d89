/* import_names.h - an import's configurations must name the parameters
 * that the rows already stored under the same kernel name name: training,
 * replay and the exports read a kernel's rows as one table, in which a
 * configuration with other names (or the same names in another order) is
 * another configuration that no search can reach.  Used by the Kernel
 * Tuner and T4 imports, each of which is one transaction, so a refusal
 * changes nothing in the database. */
#ifndef KT_IMPORT_NAMES_H
#define KT_IMPORT_NAMES_H

#include "store/db.h"

/* What is known of the kernel met last (looked up again when it changes). */
typedef struct kt_import_names {
    char *kernel;       /* its name; NULL: none met yet */
    char **names;       /* its parameters' names, in order */
    size_t count;
    char *origin;       /* where they were read: "the database", or the place
                           of this import's first configuration of it */
} kt_import_names;

/* Check that config (a checked key) of kernel names the same parameters,
 * in the same order, as the kernel's stored rows; for a kernel with none,
 * as the first configuration of it this import checked (where is its
 * place, e.g. "results[0]").  KT_EFORMAT: one line naming path, where, both
 * lists of names and the names that differ. */
int kt_import_names_check(kt_import_names *n, kt_db *db, const char *path,
                          const char *where, const char *kernel, const char *config,
                          kt_diag *diag);

/* Free what n holds (n itself is the caller's); n may be all zeros. */
void kt_import_names_clear(kt_import_names *n);

#endif /* KT_IMPORT_NAMES_H */
