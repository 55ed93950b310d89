/* nn10_baseline.c - the 10-distinct-nearest-neighbour baseline of issue 14
 * on a model's own split: for each problem a model held out, the best
 * configurations of its nearest training problems (k-NN's distance:
 * standardised log-scale fields, exact match for the others), nearest
 * first, repeats dropped; the first is its top-1 prediction, the first 10
 * distinct its top 10.  Prints perfect prediction at 1 and 10 (%) for each
 * model file, so the default method and the baseline are scored on the
 * same held-out problems (docs/PREDICTION.md).
 *
 *   build/bench/nn10_baseline MODEL.ktm...
 */
#include "ml/model_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TOP = 10, LOOK = 400 };  /* distinct winners wanted; neighbours read */

/* Whether held-out sample i's best configuration is among the first
 * distinct winners of its nearest training problems: *at1, *at10. */
static int score_one(const kt_model *m, size_t i, size_t *idx, double *dist, bool *at1,
                     bool *at10)
{
    size_t look = m->train.n < LOOK ? m->train.n : LOOK, seen = 0, nout = m->nout;
    const uint16_t *want = m->test.y + i * nout, *distinct[TOP];
    int rc = kt_knn_nearest(m, m->test.x + i * m->nin, m->test.xnum + i * m->nin, look, idx,
                            dist);
    *at1 = *at10 = false;
    for (size_t j = 0; rc == KT_OK && j < look && seen < TOP; j++) {
        const uint16_t *y = m->train.y + idx[j] * nout;
        size_t s = 0;
        while (s < seen && memcmp(distinct[s], y, nout * sizeof *y) != 0)
            s++;
        if (s < seen)
            continue;
        distinct[seen++] = y;
        if (memcmp(y, want, nout * sizeof *y) == 0) {
            *at1 = seen == 1;
            *at10 = true;
        }
    }
    return rc;
}

int main(int argc, char **argv)
{
    size_t *idx = malloc(LOOK * sizeof *idx);
    double *dist = malloc(LOOK * sizeof *dist);
    if (argc < 2 || !idx || !dist) {
        fprintf(stderr, "usage: nn10_baseline MODEL.ktm...\n");
        return 2;
    }
    for (int a = 1; a < argc; a++) {
        kt_model *m;
        kt_diag diag = {{0}};
        if (kt_model_load(argv[a], &m, &diag) != KT_OK) {
            fprintf(stderr, "nn10_baseline: %s\n", diag.msg);
            return 1;
        }
        size_t n1 = 0, n10 = 0;
        for (size_t i = 0; i < m->test.n; i++) {
            bool at1, at10;
            if (score_one(m, i, idx, dist, &at1, &at10) != KT_OK)
                return 1;
            n1 += at1;
            n10 += at10;
        }
        printf("%s\t%s\t%zu\t%.2f\t%.2f\n", m->kernel, m->where, m->test.n,
               m->test.n ? 100.0 * (double)n1 / (double)m->test.n : 0,
               m->test.n ? 100.0 * (double)n10 / (double)m->test.n : 0);
        kt_model_free(m);
    }
    free(idx);
    free(dist);
    return 0;
}
