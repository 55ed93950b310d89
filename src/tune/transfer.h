/* transfer.h - what recordings of a kernel on other devices say about a
 * device none of them is: transfer across devices (issue 14).
 *
 * Each source recording (store/recording.h: one kernel, one problem, one
 * device, every configuration measured) gives each configuration its
 * fraction of that device's optimum (the optimum's time over its time; 0
 * for a failure, or a configuration the device did not record).  A
 * configuration's score is its mean fraction over the source devices, and
 * the configurations of highest score are the transfer's prediction for a
 * new device: measured first there, they warm-start its search (the tuner's
 * kt_tune_opts.transfer).  docs/ANALYSIS.md measures it, each device held
 * out in turn, against a cold search, and says why this and not a
 * regressor.
 *
 * The model is immutable once made, so threads may share it.
 */
#ifndef KT_TRANSFER_H
#define KT_TRANSFER_H

#include "core/space.h"
#include "store/recording.h"

/* The public handle (include/ktune.h) is the model itself. */
typedef struct ktune_transfer kt_transfer;

/* The model of the n recordings recs (borrowed for the call), named by
 * paths in messages.  Errors, one line naming the file: KT_EINVAL for no
 * recording, KT_EFORMAT for a recording of another kernel or other tuning
 * parameters than the first, or of a device recorded already, KT_EEMPTY
 * for one where nothing ran correctly; KT_ENOMEM. */
int kt_transfer_new(const kt_recording *const *recs, const char *const *paths, size_t n,
                    kt_transfer **out, kt_diag *diag);
void kt_transfer_free(kt_transfer *t);

/* The kernel and parameter names it was learnt on, the source devices. */
const char *kt_transfer_kernel(const kt_transfer *t);
size_t kt_transfer_ndevices(const kt_transfer *t);
const char *kt_transfer_device(const kt_transfer *t, size_t i);

/* The configurations, best score first (ties by key): n of them; the i-th
 * key (owned by t) and its score into *score. */
size_t kt_transfer_count(const kt_transfer *t);
const char *kt_transfer_at(const kt_transfer *t, size_t i, double *score);

/* KT_OK when spec's tuning parameters are those the model learnt (same
 * names, same order), else KT_EFORMAT naming the first difference. */
int kt_transfer_check(const kt_transfer *t, const kt_spec *spec, kt_diag *diag);

/* Up to max configurations of positive score that are valid in space
 * (value indices of spec, best first, max * nparams entries in out); *n
 * tells how many.  Keys spec cannot parse are skipped. */
void kt_transfer_starts(const kt_transfer *t, const kt_spec *spec, kt_space *space,
                        size_t max, uint16_t *out, size_t *n);

#endif /* KT_TRANSFER_H */

/* ------------------------------------------- leave one device out */

/* One held-out device at one number of measurements: the public
 * ktune_transfer_row (include/ktune.h). */
typedef ktune_transfer_row kt_transfer_row;

typedef struct kt_transfer_bench_opts {
    const double *budgets;  /* measurements on the held-out device, ascending
                               whole numbers from 1 */
    size_t nbudgets;
    unsigned seeds;         /* searches per budget, seeds 1..seeds */
    size_t top;             /* configurations of the transfer a warm search
                               starts from (0: 10) */
} kt_transfer_bench_opts;

typedef struct kt_transfer_bench {
    char *kernel;
    char **devices;         /* [ndev] in the order given */
    size_t ndev;
    kt_transfer_row *rows;  /* device-major, 0 measurements then each budget;
                               then the medians over devices (device NULL) */
    size_t nrows;
} kt_transfer_bench;

/* Each of the n recordings held out in turn: a transfer from the others,
 * replayed on it against the default strategy from scratch (the figures
 * of ktune_transfer_row).  The held-out recording answers the runs'
 * measurements and gives the fraction of its optimum; nothing else of it
 * is read.  Errors: those of kt_transfer_new, KT_EINVAL for fewer than two
 * recordings (nothing to learn from with one held out) or bad options,
 * those of kt_tune on the replays. */
int kt_transfer_bench_run(const kt_recording *const *recs, const char *const *paths,
                          size_t n, const kt_transfer_bench_opts *o,
                          kt_transfer_bench *out, kt_diag *diag);
void kt_transfer_bench_clear(kt_transfer_bench *b);
