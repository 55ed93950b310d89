/* space.h - the search space: every valid configuration of a spec for one
 * problem.
 *
 * A configuration is a vector of value indices (uint16_t), one per tuning
 * parameter in spec order.  The space binds parameters in that order and
 * checks each condition as soon as the last parameter it reads is bound, so
 * a failing condition prunes the whole subtree below it.  Enumeration visits
 * valid configurations in lexicographic order of their index vectors.
 *
 * Parameters that share no condition are independent: the space splits them
 * into groups (two parameters are in one group when a chain of conditions
 * links them), and the number of valid configurations is the product of
 * each group's count.  Counting searches each group alone, so a parameter
 * read by no condition costs nothing and a space of 2^70 configurations
 * counts at once.
 *
 * Long work is bounded and can be stopped (kt_space_ctl): every search stops
 * with KT_ERANGE past a number of condition evaluations (KT_SPACE_MAX_EVALS
 * unless set), and with KT_ECANCELED when the caller's cancel flag is set
 * (checked every few milliseconds); the message is kt_space_errmsg's.
 *
 * Threads: a kt_space keeps scratch state; use one from one thread at a time.
 */
#ifndef KT_SPACE_H
#define KT_SPACE_H

#include "core/spec.h"

#include <signal.h>

/* The default bound on condition evaluations of one operation (0.5 to 4 s
 * on one core, by the conditions' length; the shipped specs need
 * at most 1.1 million). */
#define KT_SPACE_MAX_EVALS KTUNE_SPACE_MAX_EVALS

typedef struct ktune_space kt_space; /* the public ktune_space */

/* Counters from one enumeration (the public struct). */
typedef ktune_space_stats kt_space_stats;

/* Where a long operation stands, for progress reports (the public struct). */
typedef ktune_space_progress kt_space_progress;

/* Limits and hooks of long operations; kt_space_set_ctl copies it. */
typedef struct kt_space_ctl {
    /* Stop with KT_ERANGE past this many condition evaluations in one
     * operation; 0: KT_SPACE_MAX_EVALS; UINT64_MAX: no bound. */
    uint64_t max_evals;
    /* Stop with KT_ECANCELED once *cancel is nonzero (a signal handler may
     * set it); NULL: never. */
    const volatile sig_atomic_t *cancel;
    /* Called every 65536 tree nodes or so; NULL: none. */
    void (*progress)(void *user, const kt_space_progress *p);
    void *user;
} kt_space_ctl;

/* Return nonzero to stop the enumeration early. */
typedef int (*kt_space_visit)(void *user, const uint16_t *cfg);

typedef enum kt_neighbourhood {
    KT_NBR_HAMMING,   /* one parameter changed to any other value */
    KT_NBR_ADJACENT   /* one parameter moved to the previous or next value */
} kt_neighbourhood;

/* The space does not copy spec or prob: both must outlive it. */
int kt_space_new(const kt_spec *spec, const kt_problem *prob, kt_space **out,
                 kt_diag *diag);
void kt_space_free(kt_space *s);

/* A recorded space: only the n configurations of cfgs (n * nparams value
 * indices, sorted lexicographically, distinct, each index within its
 * parameter's values) are valid, instead of those the spec's conditions
 * allow.  A recording (store/recording.h) lists what ran: the space is
 * what it holds, whatever the product of the value lists.  The space reads
 * cfgs where it is: it must outlive s.  Every operation below then answers
 * from the list (one group of every parameter; no condition evaluated). */
void kt_space_restrict(kt_space *s, const uint16_t *cfgs, uint64_t n);

/* Bound, cancel and progress for the operations that follow (ctl NULL:
 * the defaults). */
void kt_space_set_ctl(kt_space *s, const kt_space_ctl *ctl);
/* The message of the last operation that failed (KT_ERANGE past the bound,
 * KT_ECANCELED); "" when none did. */
const char *kt_space_errmsg(const kt_space *s);

/* Groups of parameters linked by conditions, and the parameters of one of
 * them (in spec order; *n receives how many). */
size_t kt_space_ngroups(const kt_space *s);
const size_t *kt_space_group(const kt_space *s, size_t g, size_t *n);

size_t kt_space_nparams(const kt_space *s);
const kt_spec *kt_space_spec(const kt_space *s);
/* Fill slots (kt_spec names) with cfg's values and the space's problem. */
void kt_space_slots(const kt_space *s, const uint16_t *cfg, double *slots);

/* The size of the Cartesian product (saturates at UINT64_MAX). */
uint64_t kt_space_cartesian(const kt_space *s);

/* Does the complete configuration satisfy every condition? */
bool kt_space_is_valid(kt_space *s, const uint16_t *cfg);

/* Visit every valid configuration; stats may be NULL.  KT_ERANGE or
 * KT_ECANCELED stop it (see kt_space_ctl). */
int kt_space_enumerate(kt_space *s, kt_space_visit visit, void *user,
                       kt_space_stats *stats);

/* Count the valid configurations, group by group; *count saturates at
 * UINT64_MAX (kt_space_count_text gives the exact number).  KT_ERANGE or
 * KT_ECANCELED stop it, *count then 0. */
int kt_space_count(kt_space *s, uint64_t *count, kt_space_stats *stats);
/* The same count in decimal, exact at any size; *text is the caller's to
 * free (NULL on failure). */
int kt_space_count_text(kt_space *s, char **text, kt_space_stats *stats);

/* Can the parameters marked in bound (with cfg's values) be completed into
 * a valid configuration?  Unbound entries of cfg are ignored.  Each group
 * is searched alone. */
int kt_space_satisfiable(kt_space *s, const uint16_t *cfg, const bool *bound,
                         bool *out);

/* Materialise the valid configurations (at most limit; KT_ERANGE beyond,
 * found by counting first, with the count in the message), enabling
 * kt_space_size/at/index_of and exact uniform sampling. */
int kt_space_build(kt_space *s, uint64_t limit, kt_diag *diag);
bool kt_space_is_built(const kt_space *s);

/* Instead of every valid configuration, materialise a uniform random
 * sample of n distinct ones (fewer if 4n + 1000 draws find fewer), plus
 * the default configuration when it is valid: a space too large to list
 * still serves a strategy that only draws uniformly.  Each group of
 * parameters is drawn alone by rejection; KT_EEMPTY when a group finds no
 * valid assignment in a million draws.  kt_space_size/at/index_of then see
 * the sample only. */
int kt_space_build_sample(kt_space *s, uint64_t n, kt_rng *rng, kt_diag *diag);
/* Is the built list a sample (kt_space_build_sample)? */
bool kt_space_is_sample(const kt_space *s);
/* KT_EDOMAIN, with the condition and the values it was evaluated on, when a
 * condition raised a domain error (1 / 0) while the space was walked; such
 * a configuration counts as invalid, and kt_space_build fails with this
 * error when it leaves the space empty. */
int kt_space_domain_error(const kt_space *s, kt_diag *diag);
uint64_t kt_space_size(const kt_space *s);
const uint16_t *kt_space_at(const kt_space *s, uint64_t i);
/* Index of a valid configuration in the built list, or KT_ENOTFOUND. */
int kt_space_index_of(const kt_space *s, const uint16_t *cfg, uint64_t *idx);

/* A configuration drawn uniformly among valid ones (exact when built;
 * otherwise rejection sampling of each group of parameters alone, which
 * fails with KT_EEMPTY after a million rejections in one group). */
int kt_space_sample(kt_space *s, kt_rng *rng, uint16_t *cfg);

/* The valid neighbours of cfg, at most cap of them into out (n * nparams
 * entries); *n receives how many were written. */
int kt_space_neighbours(kt_space *s, const uint16_t *cfg, kt_neighbourhood kind,
                        uint16_t *out, size_t cap, size_t *n);

/* The spec's default configuration (valid or not). */
void kt_space_default(const kt_space *s, uint16_t *cfg);

#endif /* KT_SPACE_H */
