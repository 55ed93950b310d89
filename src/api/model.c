/* model.c - the public model API (include/ktune.h) over ml/: the ml
 * layer's kt_model is the public ktune_model itself; training on a
 * database, the model file, prediction of the k best configurations and
 * the paper's evaluation metrics. */
#include "core/util.h"
#include "ml/evaluate.h"
#include "ml/model_impl.h"
#include "ml/predict.h"

#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ktune_blas_set_threads(int n) { openblas_set_num_threads(n < 1 ? 1 : n); }

/* KT_EINVAL naming fn when an options struct's size is not this library's. */
static int check_size(const char *fn, const char *type, size_t size, size_t want,
                      kt_diag *diag)
{
    if (size == want)
        return KT_OK;
    return kt_fail(diag, KT_EINVAL, "%s: a %s of %zu bytes, not %zu (fill it with %s_init)",
                   fn, type, size, want, type);
}

int ktune_method_at(size_t i, ktune_method_info *out)
{
    const kt_method *m = kt_method_at(i);
    if (!m)
        return KT_ENOTFOUND;
    if (out)
        *out = (ktune_method_info){.name = m->name, .every_measurement = m->every_measurement};
    return KT_OK;
}

void ktune_train_opts_init(ktune_train_opts *o)
{
    if (!o)
        return;
    *o = (ktune_train_opts){.size = sizeof *o, .method = NULL, .holdout = 0.2, .seed = 1,
                            .k = 5};
}

int ktune_model_train(ktune_db *db, const char *kernel, const ktune_train_opts *o,
                      ktune_model **out, ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!db || !kernel || !o || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_model_train: %s is NULL",
                       !db ? "db" : !kernel ? "kernel" : !o ? "o" : "out");
    int rc = check_size("ktune_model_train", "ktune_train_opts", o->size, sizeof *o, diag);
    if (rc != KT_OK)
        return rc;
    return kt_model_train_db(db, kernel, o, out, diag);
}

int ktune_model_save(const ktune_model *m, const char *path, ktune_diag *diag)
{
    if (!m || !path)
        return kt_fail(diag, KT_EINVAL, "ktune_model_save: %s is NULL", m ? "path" : "m");
    return kt_model_save(m, path, diag);
}

int ktune_model_load(const char *path, ktune_model **out, ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!path || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_model_load: %s is NULL", path ? "out" : "path");
    return kt_model_load(path, out, diag);
}

void ktune_model_free(ktune_model *m) { kt_model_free(m); }

int ktune_model_describe(const ktune_model *m, ktune_model_info *out)
{
    if (!m || !out)
        return KT_EINVAL;
    kt_model_info i;
    kt_model_describe(m, &i);
    *out = (ktune_model_info){.method = i.method, .kernel = i.kernel, .where = i.where,
                              .ninputs = i.nin, .noutputs = i.nout, .ntrain = i.ntrain,
                              .ntest = i.ntest, .nvalidation = i.nval};
    return KT_OK;
}

int ktune_model_candidate_at(const ktune_model *m, size_t i, ktune_model_candidate *out)
{
    if (!m || !out)
        return KT_EINVAL;
    if (i >= m->ncand)
        return KT_ENOTFOUND;
    *out = m->cand[i];
    return KT_OK;
}

const char *ktune_model_input_name(const ktune_model *m, size_t i)
{
    return m && i < m->nin ? m->in_names[i] : NULL;
}

const char *ktune_model_output_name(const ktune_model *m, size_t i)
{
    return m && i < m->nout ? m->out_names[i] : NULL;
}

/* ------------------------------------------------------------ prediction */

struct ktune_predictions {
    size_t n;
    char **configs;   /* n keys */
    double *logp;     /* n */
};

void ktune_predictions_free(ktune_predictions *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->n; i++)
        free(p->configs[i]);
    free(p->configs);
    free(p->logp);
    free(p);
}

size_t ktune_predictions_count(const ktune_predictions *p) { return p ? p->n : 0; }

const char *ktune_predictions_config(const ktune_predictions *p, size_t i)
{
    return p && i < p->n ? p->configs[i] : NULL;
}

double ktune_predictions_log_prob(const ktune_predictions *p, size_t i)
{
    return p && i < p->n ? p->logp[i] : NAN;
}

/* problem's fields must be the model's descriptor fields, each once: a
 * misspelt one would silently count as unknown. */
static int check_problem(const kt_model *m, const char *problem, kt_diag *diag)
{
    char **names, **values;
    size_t n;
    if (kt_key_fields(problem, &names, &values, &n) != KT_OK)
        return kt_fail(diag, KT_EINVAL, "problem expects F=V,..., not '%s'", problem);
    int rc = KT_OK;
    for (size_t i = 0; rc == KT_OK && i < n; i++) {
        size_t f = 0;
        while (f < m->nin && strcmp(m->in_names[f], names[i]) != 0)
            f++;
        for (size_t j = 0; j < i && rc == KT_OK; j++)
            if (strcmp(names[j], names[i]) == 0)
                rc = kt_fail(diag, KT_EINVAL, "problem sets '%s' twice", names[i]);
        if (rc == KT_OK && f == m->nin) {
            kt_buf b = {0};
            kt_buf_append(&b, "");
            for (size_t k = 0; k < m->nin; k++)
                kt_buf_appendf(&b, "%s%s", k ? ", " : "", m->in_names[k]);
            char *fields = kt_buf_take(&b);
            rc = kt_fail(diag, KT_EINVAL, "problem: '%s' is not a field of the model's "
                         "problems (%s)", names[i], fields ? fields : "");
            free(fields);
        }
    }
    kt_key_fields_free(names, values, n);
    return rc;
}

/* The configuration key of the output tokens t ("A=1,B=4"); NULL when out
 * of memory. */
static char *config_key(const kt_model *m, const uint16_t *t)
{
    kt_buf b = {0};
    kt_buf_append(&b, "");
    for (size_t p = 0; p < m->nout; p++)
        kt_buf_appendf(&b, "%s%s=%s", p ? "," : "", m->out_names[p],
                       m->out_vocab[p].words[t[p]]);
    return kt_buf_take(&b);
}

/* The found beams' keys into p. */
static int take_beams(const kt_model *m, const uint16_t *beams, const double *lp,
                      size_t found, ktune_predictions *p, kt_diag *diag)
{
    if (found && !(p->configs = calloc(found, sizeof *p->configs)) )
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    if (found && !(p->logp = malloc(found * sizeof *p->logp)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (; p->n < found; p->n++) {
        if (!(p->configs[p->n] = config_key(m, beams + p->n * m->nout)))
            return kt_fail(diag, KT_ENOMEM, "out of memory");
        p->logp[p->n] = lp[p->n];
    }
    return KT_OK;
}

int ktune_model_predict(const ktune_model *m, const char *problem, size_t k,
                        const char *spec_path, ktune_predictions **out, ktune_diag *diag)
{
    if (out)
        *out = NULL;
    if (!m || !problem || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_model_predict: %s is NULL",
                       !m ? "m" : !problem ? "problem" : "out");
    if (k < 1 || k > 10000)
        return kt_fail(diag, KT_EINVAL, "ktune_model_predict: k is 1 to 10000, not %zu", k);
    int rc = check_problem(m, problem, diag);
    kt_model_info info;
    kt_model_describe(m, &info);
    kt_constraint *c = NULL;
    uint16_t *beams = malloc(k * (m->nout + 1) * sizeof *beams);
    double *lp = malloc(k * sizeof *lp);
    ktune_predictions *p = calloc(1, sizeof *p);
    size_t found = 0;
    if (rc == KT_OK && !(beams && lp && p))
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && spec_path)
        rc = kt_constraint_new(spec_path, NULL, NULL, &info, &c, diag); /* ktune.h */
    if (rc == KT_OK)
        rc = kt_predict(m, c, problem, k, beams, lp, &found, diag);
    if (rc == KT_OK)
        rc = take_beams(m, beams, lp, found, p, diag);
    free(beams);
    free(lp);
    kt_constraint_free(c);
    if (rc != KT_OK) {
        ktune_predictions_free(p);
        return rc;
    }
    *out = p;
    return KT_OK;
}

/* ------------------------------------------------------------ evaluation */

void ktune_eval_opts_init(ktune_eval_opts *o)
{
    if (!o)
        return;
    *o = (ktune_eval_opts){.size = sizeof *o, .widths = {1, 10, 30, 50, 100}, .nwidths = 5};
}

int ktune_model_evaluate(const ktune_model *m, const ktune_eval_opts *o,
                         ktune_eval_report *out, ktune_diag *diag)
{
    if (!m || !o || !out)
        return kt_fail(diag, KT_EINVAL, "ktune_model_evaluate: %s is NULL",
                       !m ? "m" : !o ? "o" : "out");
    int rc = check_size("ktune_model_evaluate", "ktune_eval_opts", o->size, sizeof *o, diag);
    if (rc != KT_OK)
        return rc;
    return kt_model_evaluate(m, o, out, diag);
}
