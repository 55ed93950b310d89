/* replay.h - a recorded exhaustive run, held in memory, that answers a
 * tuning run's evaluations instead of the kernel.
 *
 * Search strategies are compared on recorded spaces (Kernel Tuner's
 * simulation mode, the BAT benchmark): the recording is the results
 * database of a brute-force run, and the rows that replay one tuning
 * problem are those with the same keys a real run would look up in
 * db.c: kernel name and source hash, problem key, device, configuration
 * key.  Loaded once, a replay is immutable, so any number of runs (and
 * threads) may share it.
 */
#ifndef KT_REPLAY_H
#define KT_REPLAY_H

#include "store/winners.h"

typedef struct kt_replay kt_replay;

/* Every stored result of kernel (name, source_hash) for problem on device
 * (a device name; NULL: the one device that recorded it).  Errors, each a
 * line naming the database: KT_ENOTFOUND when nothing matches (saying
 * whether another source of the kernel was recorded), KT_EINVAL when
 * several devices recorded it and device is NULL. */
int kt_replay_load(kt_db *db, const char *db_path, const char *kernel,
                   const char *source_hash, const char *problem,
                   const char *device, kt_replay **out, kt_diag *diag);
/* The same from the database file at db_path, which must exist (a
 * replay never creates one). */
int kt_replay_open(const char *db_path, const char *kernel, const char *source_hash,
                   const char *problem, const char *device, kt_replay **out,
                   kt_diag *diag);
void kt_replay_free(kt_replay *r);

/* A replay filled row by row (a recording read from a file with no spec,
 * store/recording.h): kt_replay_new, kt_replay_take for each row, then
 * kt_replay_finish before any kt_replay_find.  KT_ENOMEM. */
int kt_replay_new(const char *device, kt_replay **out, kt_diag *diag);
/* Add a row: the replay takes config (a malloc'ed configuration key, freed
 * on failure too), which stays where it is until kt_replay_free.  A
 * configuration added twice answers with either row. */
int kt_replay_take(kt_replay *r, char *config, const kt_result *result, kt_diag *diag);
int kt_replay_finish(kt_replay *r, kt_diag *diag);

/* The recorded space, for a recording with no spec: n configurations as
 * value indices of the recording's spec, sorted and distinct (what
 * kt_space_restrict takes).  The replay takes cfgs (malloc'ed) and frees
 * it.  The tuner restricts its space to it (tune/tuner.h). */
void kt_replay_set_space(kt_replay *r, uint16_t *cfgs, uint64_t n);
/* That list and its length into *n; NULL (and 0) when the space is the
 * spec's (a replay loaded for a spec). */
const uint16_t *kt_replay_space(const kt_replay *r, uint64_t *n);

/* Row i (< kt_replay_size) in the order added: its configuration key
 * (owned by r), its result into *out. */
const char *kt_replay_row(const kt_replay *r, size_t i, kt_result *out);

/* The recorded device's name, and how many configurations were recorded. */
const char *kt_replay_device(const kt_replay *r);
size_t kt_replay_size(const kt_replay *r);
/* Load into r the fastest configuration of each problem but `problem` of
 * kernel (name, source_hash) that db holds for r's device (a warm start's
 * source; kt_replay_load does it, a recording read from a database file
 * with no spec too, store/recording.h). */
int kt_replay_load_winners(kt_replay *r, kt_db *db, const char *kernel,
                           const char *source_hash, const char *problem, kt_diag *diag);
/* The fastest configuration of each other problem of the kernel that the
 * database holds for the recorded device (a warm start's source). */
const kt_winners *kt_replay_winners(const kt_replay *r);

/* The recorded result of configuration key config; false when the
 * recording lacks it. */
bool kt_replay_find(const kt_replay *r, const char *config, kt_result *out);

#endif /* KT_REPLAY_H */
