/* beam.c - (constrained) beam search; see beam.h. */
#include "ml/beam.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct cand {
    double score;
    size_t from;     /* the beam it extends */
    uint16_t tok;
} cand;

static int by_score(const void *a, const void *b)
{
    double x = ((const cand *)a)->score, y = ((const cand *)b)->score;
    return (x < y) - (x > y); /* best first */
}

int kt_beam_search(size_t nout, const size_t *vocab_n, const kt_beam_opts *o,
                   uint16_t *out, double *logp, size_t *found)
{
    size_t k = o->width, maxv = 1;
    for (size_t i = 0; i < nout; i++)
        maxv = vocab_n[i] > maxv ? vocab_n[i] : maxv;
    uint16_t *beams = calloc(k * nout + 1, sizeof *beams);
    uint16_t *next = calloc(k * nout + 1, sizeof *next);
    double *score = calloc(k, sizeof *score), *lp = malloc(k * maxv * sizeof *lp);
    cand *c = malloc(k * maxv * sizeof *c);
    uint16_t *probe = malloc((nout + 1) * sizeof *probe);
    int rc = beams && next && score && lp && c && probe ? KT_OK : KT_ENOMEM;
    size_t nb = 1; /* one empty prefix */
    for (size_t pos = 0; rc == KT_OK && pos < nout && nb > 0; pos++) {
        size_t nc = 0, v = vocab_n[pos];
        rc = o->scores(o->scores_user, beams, nb, nout, pos, lp);
        for (size_t b = 0; rc == KT_OK && b < nb; b++) {
            memcpy(probe, beams + b * nout, pos * sizeof *probe);
            for (size_t t = 1; t < v; t++) {
                probe[pos] = (uint16_t)t;
                if (isfinite(lp[b * v + t]) && (!o->ok || o->ok(o->ok_user, probe, pos + 1)))
                    c[nc++] = (cand){score[b] + lp[b * v + t], b, (uint16_t)t};
            }
        }
        qsort(c, nc, sizeof *c, by_score);
        nb = nc < k ? nc : k;
        for (size_t i = 0; i < nb; i++) {
            memcpy(next + i * nout, beams + c[i].from * nout, pos * sizeof *next);
            next[i * nout + pos] = c[i].tok;
            score[i] = c[i].score;
        }
        uint16_t *t = beams;
        beams = next;
        next = t;
    }
    *found = rc == KT_OK ? nb : 0;
    if (rc == KT_OK) {
        memcpy(out, beams, nb * nout * sizeof *out);
        memcpy(logp, score, nb * sizeof *logp);
    }
    free(beams);
    free(next);
    free(score);
    free(lp);
    free(c);
    free(probe);
    return rc;
}
