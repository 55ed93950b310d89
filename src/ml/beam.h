/* beam.h - beam search over a model's per-position token scores, with or
 * without the kernel's constraints.
 *
 * Output position i has vocab_n[i] tokens (token 0, "unknown", is never
 * proposed).  At each position every kept prefix is extended by every
 * token; the k best by summed log-probability are kept.  In the
 * constrained search (the paper's OPCS-BS) a prefix that can no longer be
 * completed into a valid configuration is dropped before ranking, so every
 * returned configuration is valid.
 */
#ifndef KT_BEAM_H
#define KT_BEAM_H

#include "core/base.h"

/* Log-probabilities of the vocab_n[pos] tokens at position pos after each
 * of n prefixes, all scored in one call so that a model can batch them:
 * prefix i is prefixes[i * stride ..][0..pos), its scores go to
 * logp[i * vocab_n[pos] ..]. */
typedef int (*kt_beam_scores_fn)(void *user, const uint16_t *prefixes, size_t n,
                                 size_t stride, size_t pos, double *logp);

/* Can prefix[0..len) still be completed validly? */
typedef bool (*kt_beam_ok_fn)(void *user, const uint16_t *prefix, size_t len);

typedef struct kt_beam_opts {
    size_t width;              /* k */
    kt_beam_scores_fn scores;
    void *scores_user;
    kt_beam_ok_fn ok;          /* NULL: unconstrained */
    void *ok_user;
} kt_beam_opts;

/* Up to width complete sequences (out: width x nout tokens, best first;
 * logp: their scores); *found receives how many. */
int kt_beam_search(size_t nout, const size_t *vocab_n, const kt_beam_opts *o,
                   uint16_t *out, double *logp, size_t *found);

#endif /* KT_BEAM_H */
