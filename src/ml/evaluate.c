/* evaluate.c - a model scored on the problems it held out (ml/evaluate.h):
 * the metrics live here, beside the predictor, so that the command line and
 * the library's users get the same numbers. */
#include "core/util.h"
#include "ml/evaluate.h"
#include "ml/predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Counts over the samples, turned into shares at the end. */
typedef struct tally {
    size_t samples, right_params, valid, checked;
    size_t perfect[KT_EVAL_MAX_WIDTHS];
    double seconds;
} tally;

/* Score held-out sample i into the tally; beams holds kmax x (nout + 1). */
static int eval_sample(const kt_model *m, kt_constraint *c, const kt_eval_opts *o,
                       size_t kmax, size_t i, uint16_t *beams, tally *t, kt_diag *diag)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    size_t found = 0;
    double t0 = kt_now();
    int rc = kt_predict(m, o->unconstrained ? NULL : c, kt_model_test_problem(m, i), kmax,
                        beams, NULL, &found, diag);
    t->seconds += kt_now() - t0;
    if (rc != KT_OK)
        return rc;
    const uint16_t *want = kt_model_test_target(m, i);
    t->samples++;
    size_t rank = found; /* where the true configuration is, if found */
    for (size_t b = 0; b < found && rank == found; b++)
        if (memcmp(beams + b * info.nout, want, info.nout * sizeof *want) == 0)
            rank = b;
    for (size_t w = 0; w < o->nwidths; w++)
        t->perfect[w] += rank < o->widths[w];
    for (size_t p = 0; found && p < info.nout; p++)
        t->right_params += beams[p] == want[p];
    if (c) { /* finding nothing counts as no valid prediction */
        if (o->unconstrained) /* the unconstrained search did not bind it */
            rc = kt_constraint_bind(c, kt_model_test_problem(m, i), diag);
        t->valid += rc == KT_OK && found && kt_constraint_valid(c, beams);
        t->checked++;
    }
    return rc;
}

/* Held-out sample i's log-probability of its true configuration. */
static int sample_loglik(const kt_model *m, const kt_model_info *info, size_t i,
                         double *buf, double *ll, kt_diag *diag)
{
    kt_query *q;
    const uint16_t *y = kt_model_test_target(m, i);
    int rc = kt_query_new(m, kt_model_test_problem(m, i), &q, diag);
    for (size_t p = 0; rc == KT_OK && p < info->nout; p++) {
        rc = kt_query_scores(q, y, 1, info->nout, p, buf);
        *ll += buf[y[p]];
    }
    kt_query_free(q);
    return rc;
}

int kt_model_loglik(const kt_model *m, double *out, kt_diag *diag)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    *out = NAN;
    if (info.ntest == 0)
        return kt_fail(diag, KT_EINVAL, "the model holds no sample out");
    size_t maxv = 1;
    for (size_t p = 0; p < info.nout; p++)
        maxv = info.out_vocab[p].n > maxv ? info.out_vocab[p].n : maxv;
    double *buf = malloc(maxv * sizeof *buf), ll = 0;
    int rc = buf ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; rc == KT_OK && i < info.ntest; i++)
        rc = sample_loglik(m, &info, i, buf, &ll, diag);
    free(buf);
    if (rc == KT_OK)
        *out = ll / (double)info.ntest;
    return rc;
}

static double pct(size_t a, size_t b) { return b ? 100.0 * (double)a / (double)b : NAN; }

static int check_opts(const kt_model_info *info, const kt_eval_opts *o, size_t *kmax,
                      kt_diag *diag)
{
    *kmax = 0;
    if (o->nwidths < 1 || o->nwidths > KT_EVAL_MAX_WIDTHS)
        return kt_fail(diag, KT_EINVAL, "1 to %d beam widths, not %zu", KT_EVAL_MAX_WIDTHS,
                       o->nwidths);
    for (size_t w = 0; w < o->nwidths; w++) {
        if (o->widths[w] < 1 || o->widths[w] > 10000)
            return kt_fail(diag, KT_EINVAL, "a beam width is 1 to 10000, not %zu",
                           o->widths[w]);
        *kmax = o->widths[w] > *kmax ? o->widths[w] : *kmax;
    }
    if (info->ntest == 0)
        return kt_fail(diag, KT_EINVAL, "the model holds out no problems (trained with "
                       "--holdout 0): nothing to evaluate");
    if (!o->spec_path && !o->unconstrained)
        return kt_fail(diag, KT_EINVAL, "no space for kernel '%s': the constrained search "
                       "needs one (hint: a spec, or unconstrained)", info->kernel);
    return KT_OK;
}

int kt_model_evaluate(const kt_model *m, const kt_eval_opts *o, kt_eval_report *out,
                      kt_diag *diag)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    memset(out, 0, sizeof *out);
    size_t kmax;
    int rc = check_opts(&info, o, &kmax, diag);
    kt_constraint *c = NULL;
    uint16_t *beams = NULL;
    tally t = {0};
    if (rc == KT_OK && o->spec_path)
        rc = kt_constraint_new(o->spec_path, o->warn, o->warn_user, &info, &c, diag);
    if (rc == KT_OK && !(beams = malloc(kmax * (info.nout + 1) * sizeof *beams)))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t n = o->limit && o->limit < info.ntest ? o->limit : info.ntest;
    for (size_t i = 0; rc == KT_OK && i < n; i++)
        rc = eval_sample(m, c, o, kmax, i, beams, &t, diag);
    free(beams);
    kt_constraint_free(c);
    if (rc != KT_OK)
        return rc;
    out->samples = t.samples;
    out->kmax = kmax;
    out->avg_accuracy = pct(t.right_params, t.samples * info.nout);
    for (size_t w = 0; w < o->nwidths; w++)
        out->perfect[w] = pct(t.perfect[w], t.samples);
    out->valid = pct(t.valid, t.checked);
    out->ms_per_query = t.samples ? t.seconds / (double)t.samples * 1e3 : NAN;
    return KT_OK;
}
