/* measure.h - the parts of a measurement the worker is built from:
 * argument buffers, output verification, timing statistics and energy. */
#ifndef KT_MEASURE_H
#define KT_MEASURE_H

#include "core/spec.h"
#include "core/stats.h"

#include <stdbool.h>
#include <stddef.h>

/* ---------------------------------------------------------------- args */

/* Host-side layout of the kernel's arguments for one problem. */
typedef struct kt_args {
    size_t n;
    size_t *count;        /* elements per argument (1 for scalars) */
    size_t *bytes;        /* bytes per argument */
    void **init;          /* initial contents (vectors) or the value (scalars) */
} kt_args;

/* Evaluate sizes and scalar values, and fill inputs (seeded random or
 * constant).  Output-only vectors are left zeroed in init. */
int kt_args_new(const kt_spec *spec, const kt_problem *prob, uint64_t seed,
                kt_args *out, kt_diag *diag);
/* Sizes only: count and bytes as kt_args_new gives them, init all NULL. */
int kt_args_plan(const kt_spec *spec, const kt_problem *prob, kt_args *out,
                 kt_diag *diag);
void kt_args_clear(kt_args *a);
/* Output i's expected values (count elements into dst) where its
 * ReferenceArguments entry gives them (spec->args[i].expect: a constant,
 * an expression or a data file); nothing when the reference run computes
 * them (KT_FILL_REFERENCE). */
int kt_args_expected(const kt_spec *spec, const kt_problem *prob, size_t i, size_t count,
                     void *dst, kt_diag *diag);

/* -------------------------------------------------------------- verify */

/* Compare got against ref (count elements of type t).  Returns true when
 * they agree under check/threshold; *max_err receives the largest error and
 * detail describes the first element out of tolerance. */
bool kt_verify(kt_dtype t, kt_check check, double threshold, const void *got,
               const void *ref, size_t count, double *max_err, char *detail,
               size_t detail_len);

/* The scale a relative check measures errors against: the reference's
 * RMS.  A caller that checks many outputs against one reference computes
 * it once and calls kt_verify_scaled. */
double kt_verify_scale(kt_dtype t, const void *ref, size_t count);
/* kt_verify with scale given (used by KT_CHECK_RELATIVE only). */
bool kt_verify_scaled(kt_dtype t, kt_check check, double threshold, double scale,
                      const void *got, const void *ref, size_t count, double *max_err,
                      char *detail, size_t detail_len);

/* The same comparison in up to KT_VERIFY_MAX_THREADS threads, while the
 * caller does other work (the worker times the kernel meanwhile).  got and
 * ref must stay unchanged until kt_verify_finish.  KT_ENOMEM, or KT_OK
 * with *job to finish (threads that cannot start compare in the caller). */
#define KT_VERIFY_MAX_THREADS 8
typedef struct kt_verify_job kt_verify_job;
int kt_verify_start(kt_dtype t, kt_check check, double threshold, double scale,
                    const void *got, const void *ref, size_t count, int nthreads,
                    kt_verify_job **job);
/* True once an element out of tolerance was found (the job may still run);
 * false for NULL. */
bool kt_verify_failing(kt_verify_job *job);
/* Wait for the job and free it: kt_verify_scaled's verdict, error and
 * detail. */
bool kt_verify_finish(kt_verify_job *job, double *max_err, char *detail,
                      size_t detail_len);

/* True when any floating-point element is NaN (outputs left unwritten). */
bool kt_has_nan(kt_dtype t, const void *data, size_t count);

/* --------------------------------------------------------------- stats */

/* kt_summarize: core/stats.h */

/* -------------------------------------------------------------- energy */

/* Cumulative CPU package energy in joules from the kernel's powercap
 * (RAPL) counters, or NAN where the machine does not expose them. */
double kt_cpu_energy_j(void);

/* Average power from an energy counter that moves in steps (NVML's moves
 * every few tens of milliseconds): readings (joules, each between two host
 * clock reads) taken between batches of back-to-back calls are fed in
 * order; a step is dated at the middle of the interval between the two
 * readings it fell between, from the earlier one's first clock read to
 * the later one's last, so each end of the span is known to half that
 * interval even where the host was descheduled between a counter read and
 * its clock read (a busy host's readings were biased low by that).  Pure:
 * no clock, no device, so fake counter sequences can test it. */
typedef struct kt_energy_span {
    double window_s;     /* the shortest span read */
    double t0;           /* the first reading's time */
    double t_prev, e_prev; /* the last reading (t_prev: its first clock read) */
    double t_a, e_a, half_a; /* the span's start (a step); e_a NAN before */
    double longest_s;    /* the longest interval between readings */
    int steps;           /* steps of the counter seen */
    double idle_new, busy_new, calls_new; /* batches reported since the last reading */
    double idle_s;       /* the device's idle time within the span so far */
    double busy_s, calls; /* its batches' device time and calls in the span so far */
    int restarts;        /* spans dropped for idling more than 2% */
    double idle_share;   /* the last dropped span's idle share */
    double watts;        /* the result; NAN until kt_energy_span_add says done */
    double call_s;       /* then the span's own time per call (NAN: no batch
                            reported), so that energy per call is watts times
                            it, both read from the same calls */
} kt_energy_span;

/* Start with the reading e, taken after the host time t_lo. */
void kt_energy_span_init(kt_energy_span *s, double window_s, double t_lo, double e);
/* Add the reading e, taken between the host times t_lo and t_hi; true
 * when the power is known (s->watts).  Feed readings until this is true
 * or t_hi passes kt_energy_span_deadline. */
bool kt_energy_span_add(kt_energy_span *s, double t_lo, double t_hi, double e);
/* Report a batch of calls that ended since the last reading: the device
 * sat idle idle_s seconds before it (where the backend can tell, else 0)
 * and then ran it for busy_s.  A span in which the device idled more than
 * 2% is not the kernel's power, and is started again from its last step;
 * the batches' time per call within the span becomes s->call_s. */
void kt_energy_span_batch(kt_energy_span *s, double idle_s, double busy_s, double calls);
/* When to give up: later for longer batches, whose steps are dated more
 * loosely and so need a longer span. */
double kt_energy_span_deadline(const kt_energy_span *s);
/* Why the span gave no power (after the deadline passed), one line. */
void kt_energy_span_why(const kt_energy_span *s, double now, char *buf, size_t len);

#endif /* KT_MEASURE_H */
