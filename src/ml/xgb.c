/* xgb.c - XGBoost's C API behind ktune's conventions; see xgb.h. */
#include "ml/xgb.h"
#include "core/util.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <xgboost/c_api.h>

struct kt_xgb {
    BoosterHandle h;
    int rounds;     /* boosting rounds kept */
};

/* XGBoost's last error as one line: "[hh:mm:ss] file.cc:123: Check failed:
 * ..." loses its time and source location and everything after the first
 * line (a stack trace). */
static int xgb_fail(kt_diag *diag, int code, const char *what)
{
    const char *e = XGBGetLastError();
    e = e ? e : "";
    if (*e == '[' && strstr(e, "] "))
        e = strstr(e, "] ") + 2;
    const char *colon = strstr(e, ": "), *nl = strchr(e, '\n');
    if (colon && (!nl || colon < nl) && strstr(e, ".cc:") && strstr(e, ".cc:") < colon)
        e = colon + 2;
    int len = (int)(nl ? (size_t)(nl - e) : strlen(e));
    return kt_fail(diag, code, "xgboost: %s: %.*s", what, len, e);
}

static int dense_matrix(const float *x, size_t n, size_t nf, DMatrixHandle *out,
                        kt_diag *diag)
{
    *out = NULL;
    if (XGDMatrixCreateFromMat_omp(x, n, nf, NAN, out, 1) != 0)
        return xgb_fail(diag, KT_ENOMEM, "creating a data matrix");
    return KT_OK;
}

static int make_matrix(const kt_xgb_data *d, DMatrixHandle *out, kt_diag *diag)
{
    int rc = dense_matrix(d->x, d->n, d->nf, out, diag);
    if (rc != KT_OK)
        return rc;
    if (XGDMatrixSetFloatInfo(*out, "label", d->y, d->n) != 0 ||
        (d->w && XGDMatrixSetFloatInfo(*out, "weight", d->w, d->n) != 0))
        return xgb_fail(diag, KT_EINVAL, "setting labels");
    return KT_OK;
}

/* Quiet and single-threaded unless the caller's parameters say otherwise. */
static int set_params(BoosterHandle h, const char *const *params, kt_diag *diag)
{
    if (XGBoosterSetParam(h, "verbosity", "0") != 0 || XGBoosterSetParam(h, "nthread", "1"))
        return xgb_fail(diag, KT_EINVAL, "setting verbosity");
    for (size_t i = 0; params && params[i]; i += 2) {
        if (!params[i + 1])
            return kt_fail(diag, KT_EINVAL, "xgboost: parameter '%s' has no value", params[i]);
        if (XGBoosterSetParam(h, params[i], params[i + 1]) != 0)
            return xgb_fail(diag, KT_EINVAL, "setting a parameter");
    }
    return KT_OK;
}

/* The last number of an evaluation line "[3]\tvalid-mlogloss:0.1234". */
static double eval_value(const char *line)
{
    const char *c = line ? strrchr(line, ':') : NULL;
    return c ? strtod(c + 1, NULL) : NAN;
}

/* Boost up to o->rounds rounds; with a validation set, keep the best. */
static int boost(kt_xgb *b, DMatrixHandle train, DMatrixHandle valid, const kt_xgb_opts *o,
                 kt_diag *diag)
{
    double t0 = kt_now(), best = INFINITY;
    int best_round = -1, i;
    const char *names[1] = {"valid"};
    for (i = 0; i < o->rounds; i++) {
        if (XGBoosterUpdateOneIter(b->h, i, train) != 0)
            return xgb_fail(diag, KT_EINVAL, "training");
        const char *line = NULL;
        if (valid && XGBoosterEvalOneIter(b->h, i, &valid, names, 1, &line) != 0)
            return xgb_fail(diag, KT_EINVAL, "evaluating");
        double v = valid ? eval_value(line) : NAN;
        if (v < best) {
            best = v;
            best_round = i;
        }
        if ((valid && i - best_round >= o->patience) ||
            (o->seconds > 0 && kt_now() - t0 > o->seconds))
            break;
    }
    b->rounds = i < o->rounds ? i + 1 : o->rounds;
    if (!valid || best_round < 0 || best_round + 1 == b->rounds)
        return KT_OK;
    BoosterHandle kept;
    if (XGBoosterSlice(b->h, 0, best_round + 1, 1, &kept) != 0)
        return xgb_fail(diag, KT_ENOMEM, "keeping the best round");
    XGBoosterFree(b->h);
    b->h = kept;
    b->rounds = best_round + 1;
    return KT_OK;
}

int kt_xgb_train(const kt_xgb_data *d, const kt_xgb_opts *o, kt_xgb **out, kt_diag *diag)
{
    *out = NULL;
    if (d->n == 0 || d->nf == 0 || o->rounds < 1)
        return kt_fail(diag, KT_EINVAL, "xgboost: nothing to train on");
    DMatrixHandle m[2] = {NULL, NULL};
    kt_xgb *b = calloc(1, sizeof *b);
    int rc = b ? make_matrix(d, &m[0], diag) : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && o->valid)
        rc = make_matrix(o->valid, &m[1], diag);
    if (rc == KT_OK && XGBoosterCreate(m, o->valid ? 2 : 1, &b->h) != 0)
        rc = xgb_fail(diag, KT_ENOMEM, "creating a booster");
    if (rc == KT_OK)
        rc = set_params(b->h, o->params, diag);
    if (rc == KT_OK)
        rc = boost(b, m[0], m[1], o, diag);
    for (int i = 0; i < 2; i++)
        if (m[i])
            XGDMatrixFree(m[i]);
    if (rc != KT_OK) {
        kt_xgb_free(b);
        return rc;
    }
    *out = b;
    return KT_OK;
}

/* XGBoost's output of shape[dim] into out, which holds exactly cap: a
 * booster trained on other data gives another count. */
static int take_result(const bst_ulong *shape, bst_ulong dim, const float *res, size_t n,
                       float *out, size_t cap, kt_diag *diag)
{
    size_t count = 1;
    for (bst_ulong i = 0; i < dim; i++)
        count *= shape[i];
    if (count != cap)
        return kt_fail(diag, KT_EFORMAT, "xgboost: %zu predictions for %zu rows, "
                       "expected %zu", count, n, cap);
    memcpy(out, res, cap * sizeof *out);
    return KT_OK;
}

int kt_xgb_predict(kt_xgb *b, const float *x, size_t n, size_t nf, float *out, size_t cap,
                   kt_diag *diag)
{
    if (n == 0)
        return cap == 0 ? KT_OK : kt_fail(diag, KT_EINVAL, "xgboost: no rows to predict");
    /* NumPy's array interface: the matrix is read in place, not copied */
    char values[160];
    snprintf(values, sizeof values,
             "{\"data\": [%ju, true], \"shape\": [%zu, %zu], \"typestr\": \"<f4\", "
             "\"version\": 3}", (uintmax_t)(uintptr_t)x, n, nf);
    static const char config[] =
        "{\"type\": 0, \"training\": false, \"iteration_begin\": 0, \"iteration_end\": 0, "
        "\"strict_shape\": false, \"cache_id\": 0, \"missing\": NaN}";
    const bst_ulong *shape;
    bst_ulong dim;
    const float *res;
    if (XGBoosterPredictFromDense(b->h, values, config, NULL, &shape, &dim, &res) != 0)
        return xgb_fail(diag, KT_EFORMAT, "predicting");
    return take_result(shape, dim, res, n, out, cap, diag);
}

int kt_xgb_shap(kt_xgb *b, const float *x, size_t n, size_t nf, bool interactions,
                float *out, size_t cap, kt_diag *diag)
{
    if (n == 0)
        return cap == 0 ? KT_OK : kt_fail(diag, KT_EINVAL, "xgboost: no rows to explain");
    /* contributions need a DMatrix: XGBoost 1.7's in-place prediction
     * gives plain predictions only */
    DMatrixHandle m;
    int rc = dense_matrix(x, n, nf, &m, diag);
    if (rc != KT_OK)
        return rc;
    char config[160];
    snprintf(config, sizeof config,
             "{\"type\": %d, \"training\": false, \"iteration_begin\": 0, "
             "\"iteration_end\": 0, \"strict_shape\": false}", interactions ? 4 : 2);
    const bst_ulong *shape;
    bst_ulong dim;
    const float *res;
    if (XGBoosterPredictFromDMatrix(b->h, m, config, &shape, &dim, &res) != 0)
        rc = xgb_fail(diag, KT_EFORMAT, "computing contributions");
    else
        rc = take_result(shape, dim, res, n, out, cap, diag);
    XGDMatrixFree(m);
    return rc;
}

int kt_xgb_save(kt_xgb *b, const char **bytes, size_t *len, kt_diag *diag)
{
    bst_ulong n;
    if (XGBoosterSaveModelToBuffer(b->h, "{\"format\": \"ubj\"}", &n, bytes) != 0)
        return xgb_fail(diag, KT_ENOMEM, "saving a booster");
    *len = n;
    return KT_OK;
}

int kt_xgb_rounds(kt_xgb *b) { return b->rounds; }

/* Defence in depth: XGBoost's own save of what it loaded is the input,
 * byte for byte, so it read the model the way kt_xgb_check did. */
static int same_bytes(kt_xgb *b, const void *bytes, size_t len, kt_diag *diag)
{
    const char *again = NULL;
    size_t n = 0;
    int rc = kt_xgb_save(b, &again, &n, diag);
    if (rc == KT_OK && (n != len || memcmp(again, bytes, len) != 0))
        rc = kt_fail(diag, KT_EFORMAT, "xgboost model: XGBoost read it otherwise than "
                     "it was checked (its save differs)");
    return rc;
}

int kt_xgb_load(const void *bytes, size_t len, size_t num_feature, size_t num_class,
                kt_xgb **out, kt_diag *diag)
{
    *out = NULL;
    int rc = kt_xgb_check(bytes, len, num_feature, num_class, diag);
    if (rc != KT_OK)
        return rc;
    kt_xgb *b = calloc(1, sizeof *b);
    rc = b ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    if (rc == KT_OK && XGBoosterCreate(NULL, 0, &b->h) != 0)
        rc = xgb_fail(diag, KT_ENOMEM, "creating a booster");
    if (rc == KT_OK) /* one thread from the start: loading runs a parallel loop */
        rc = set_params(b->h, NULL, diag);
    if (rc == KT_OK && XGBoosterLoadModelFromBuffer(b->h, bytes, len) != 0)
        rc = xgb_fail(diag, KT_EFORMAT, "loading a booster");
    if (rc == KT_OK)
        rc = same_bytes(b, bytes, len, diag);
    if (rc == KT_OK && XGBoosterBoostedRounds(b->h, &b->rounds) != 0)
        rc = xgb_fail(diag, KT_EFORMAT, "loading a booster");
    if (rc != KT_OK) {
        kt_xgb_free(b);
        return rc;
    }
    *out = b;
    return KT_OK;
}

void kt_xgb_free(kt_xgb *b)
{
    if (!b)
        return;
    if (b->h)
        XGBoosterFree(b->h);
    free(b);
}
