/* recording.h - a recorded run read straight from its file, with no spec:
 * the space, and the answers, of a replay (`ktune tune --replay FILE`,
 * `ktune benchmark --replay FILE`).
 *
 * The file is one of (told by its content, not its name):
 *   - a ktune results database (one kernel, problem and device of it);
 *   - a Kernel Tuner cache (store/kerneltuner.h: old and new layouts);
 *   - a T4 results file (store/t4.h);
 *   - ktune's CSV export (`ktune db export csv`, store/csv_import.h; one
 *     recording of it, chosen as a database's);
 * either JSON file may be compressed with bzip2 or gzip.
 *
 * From it comes what a spec would give: a kt_spec of the recorded tuning
 * parameters and no kernel (Language None; named after the file's kernel,
 * its problem key's numbers as problem parameters), and a kt_replay of
 * every recorded result whose space (kt_replay_space) is the recorded
 * configurations.  Each parameter's value list, along which neighbours
 * are taken, is the cache's tune_params order where the file has one, else
 * the distinct recorded values sorted (by number when all are numbers).
 *
 * What is inside the space follows Kernel Tuner's simulation mode:
 *   - a configuration recorded as invalid (Kernel Tuner's InvalidConfig,
 *     T4's "constraints", a database row "invalid") is outside it: a cache
 *     does not hold its restrictions, and these entries are what they
 *     removed;
 *   - a recorded failure (compilation, runtime, timeout, wrong result) is
 *     inside it: a strategy that proposes it spends an evaluation and sees
 *     it fail.
 * The default configuration is the first recorded one inside the space, in
 * file order (a ktune run records its default first).
 * A database also gives the replay the fastest configuration of each other
 * problem of the kernel that it holds for the device (kt_replay_winners:
 * where `--warm N` starts); a JSON file holds one problem, so none.
 *
 * With o->cache_dir, a JSON file's rows are read from the entry kept there
 * for the file's content when there is one to trust (a Kernel Tuner cache
 * of 20,000 configurations then opens in about a tenth of the time), else
 * parsed and kept there; a cache directory that cannot be written only
 * costs the next replay its parse.
 *
 * Errors, one line naming the file (and line:column of a JSON syntax
 * error): KT_EIO, KT_EFORMAT (not a recording, a configuration of another
 * arity or other parameter names, a missing key), KT_ENOTFOUND (nothing
 * matches the options), KT_EINVAL (a database with several recordings and
 * no option to choose), KT_ENOMEM.
 */
#ifndef KT_RECORDING_H
#define KT_RECORDING_H

#include "core/spec.h"
#include "store/replay.h"

typedef struct kt_recording kt_recording;

/* Which recording of a database holding several; NULL fields: any.  A
 * JSON file holds one, which the options must match. */
typedef struct kt_recording_opts {
    const char *kernel;     /* kernel name */
    const char *problem;    /* problem key, as 'ktune db list' shows it */
    const char *device;     /* device name */
    const char *cache_dir;  /* where a JSON file's rows are kept once read, by
                               its content, for the next replay of it
                               (store/recording_cache.h); NULL: not kept */
    kt_warn_fn warn;        /* told when the rows cannot be kept; NULL: none */
    void *warn_user;
} kt_recording_opts;

/* Read the file at path (o may be NULL). */
int kt_recording_open(const char *path, const kt_recording_opts *o, kt_recording **out,
                      kt_diag *diag);
void kt_recording_free(kt_recording *r);

/* The recording's spec and replay: owned by r, valid while it lives. */
const kt_spec *kt_recording_spec(const kt_recording *r);
const kt_replay *kt_recording_replay(const kt_recording *r);
/* "ktune database", "ktune CSV export", "Kernel Tuner cache" or "T4
 * results". */
const char *kt_recording_kind(const kt_recording *r);
/* The recorded problem key (as the file gives it; "" for none). */
const char *kt_recording_problem(const kt_recording *r);

/* The replay of spec for problem (a key) from the file at path, for
 * `ktune tune SPEC --replay FILE`: a database answers with its rows of the
 * spec's kernel and source (kt_replay_open, o->device choosing the
 * device); any other recording (a Kernel Tuner cache, a T4 file, a CSV
 * export) answers whatever its kernel, source and problem are called,
 * once its parameters are the spec's, by name and in order (else
 * KT_EFORMAT naming the first that differs): the spec's conditions, not
 * the recorded rows, make the space, so a configuration the recording
 * lacks fails the run when a strategy proposes it.  o (may be NULL):
 * device, cache_dir and warn as for kt_recording_open. */
int kt_replay_open_for_spec(const char *path, const kt_spec *spec, const char *problem,
                            const kt_recording_opts *o, kt_replay **out, kt_diag *diag);

#endif /* KT_RECORDING_H */
