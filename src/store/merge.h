/* merge.h - one results database merged into another: the files of the
 * jobs of an array (`ktune tune --shard K/N`, one database each) or of
 * several machines joined into one.
 *
 * Devices are matched by fingerprint, kernels by name and source hash,
 * problems by kernel and key, measurements by (device, problem,
 * configuration), as the tuner's own lookups match them; the input's ids
 * mean nothing in the output.  Where both hold a measurement of the same
 * keys, the rule is kt_db_record's: a success is never replaced, and a
 * failure is replaced by a success (the configuration ran correctly on
 * another try); two successes or two failures keep what the output holds,
 * so the first input merged wins.  Merging the same file twice adds
 * nothing.
 *
 * Time/energy fronts (kt_db_front_mark) are merged as fronts: the output's
 * marks of a (device, problem) and the input's together, less every mark
 * another one dominates (or equals, the older one kept), which is the front
 * of the union of what both runs evaluated.
 *
 * Merged as a mean (kt_db_merge_mean), each configuration's successful
 * readings, one per database (the output's own row and each input's), are
 * stored as one row of their mean: repeated runs of the same space average
 * out a noisy reading (NVML's energy).  The inputs are merged as above,
 * each in its transaction, each one's ok rows also kept as readings in a
 * TEMP table of the connection; then one more transaction averages.  An
 * error partway leaves the inputs merged so far merged and nothing
 * averaged, never a half-averaged output.
 */
#ifndef KT_MERGE_H
#define KT_MERGE_H

#include "store/db.h"

/* What merging one input did (the public ktune_merge_stats). */
typedef ktune_merge_stats kt_merge_stats;

/* Merge the ktune database at path into db, in one transaction: all of it
 * or nothing.  The input is identified (and a version-1 file upgraded) as
 * kt_db_open_mode does, then only read.  KT_EINVAL when path is db's own
 * file; the errors of kt_db_open_mode for path; KT_EDB. */
int kt_db_merge(kt_db *db, const char *path, kt_merge_stats *stats, kt_diag *diag);

/* What averaging did (the public ktune_mean_stats). */
typedef ktune_mean_stats kt_mean_stats;

/* Merge the n databases at paths into db and store each configuration's
 * successful readings as their mean (ktune_db_merge_mean says how).  Every
 * path is checked (kt_db_merge's refusals; KT_EINVAL for a file given
 * twice) before anything is written; then KT_EDB.  stats (n of them) and
 * mean may be NULL. */
int kt_db_merge_mean(kt_db *db, const char *const *paths, size_t n, kt_merge_stats *stats,
                     kt_mean_stats *mean, kt_diag *diag);

#endif /* KT_MERGE_H */
