/* winners.h - the fastest stored configuration of each problem of a
 * kernel on a device: where a search for another problem of the same kernel
 * can start (tune/warm.h ranks them by how near their problem is).
 */
#ifndef KT_WINNERS_H
#define KT_WINNERS_H

#include "store/db.h"

typedef struct kt_winners {
    size_t n, cap;
    char **problem;         /* problem keys */
    char **config;          /* each one's fastest configuration key */
} kt_winners;

/* Add the winner of every problem of kernel (name, source_hash) measured
 * on device (a name), except the problem `except`. */
int kt_winners_load(kt_db *db, const char *kernel, const char *source_hash,
                    const char *device, const char *except, kt_winners *out,
                    kt_diag *diag);
void kt_winners_clear(kt_winners *w);

#endif /* KT_WINNERS_H */
