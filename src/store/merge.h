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

#endif /* KT_MERGE_H */
