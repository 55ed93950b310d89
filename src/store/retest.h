/* retest.h - two recordings of the same configurations read against each
 * other (the public ktune_db_retest): how much one reading of time, energy
 * and power moves between runs, against how much the configurations differ,
 * and so the R² a model of one reading can reach. */
#ifndef KT_RETEST_H
#define KT_RETEST_H

#include "store/db.h"

typedef ktune_retest_stat kt_retest_stat;
typedef ktune_retest kt_retest;

/* The pairs are the (device, kernel, problem, configuration) that a and b
 * both hold ok within f (its ok_only is implied); they must be of one
 * device, kernel and problem (KT_EINVAL naming two otherwise: narrow f).
 * KT_ENOTFOUND when there is no pair. */
int kt_db_retest(kt_db *a, kt_db *b, const kt_db_filter *f, kt_retest *out,
                 kt_diag *diag);

#endif /* KT_RETEST_H */
