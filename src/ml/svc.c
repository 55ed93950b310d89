/* svc.c - support vector classifiers per output position, through libsvm
 * (C-SVC, RBF kernel).  Inputs: the standardised numeric fields, and
 * categorical fields one-hot.  Scores are the one-against-one votes.
 *
 * libsvm saves and loads its models through file paths, so each position's
 * model travels inside ktune's model file as the bytes of a temporary file
 * (the whole model file is checksummed before libsvm reads any of it). */
#include "core/util.h"
#include "ml/model_impl.h"

#include <libsvm/svm.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct svc {
    struct svm_model **models;  /* nout */
    size_t count;
} svc;

/* libsvm reports training progress on stdout; the library must not print. */
static void quiet(const char *s) { (void)s; }

static void svc_free(void *state)
{
    svc *s = state;
    if (!s)
        return;
    for (size_t p = 0; s->models && p < s->count; p++)
        svm_free_and_destroy_model(&s->models[p]);
    free(s->models);
    free(s);
}

/* The sparse input of one sample: numeric fields at 1..nin, one-hot
 * categorical tokens after them; terminated by index -1. */
static void encode(const kt_model *m, const uint16_t *x, const double *xn,
                   struct svm_node *out)
{
    size_t k = 0, offset = m->nin + 1;
    for (size_t f = 0; f < m->nin; f++) {
        double v = kt_model_feature(m, xn, f);
        if (!isnan(v))
            out[k++] = (struct svm_node){(int)f + 1, v};
        else if (m->scale[f] == 0 && x[f] != 0)
            out[k++] = (struct svm_node){(int)(offset + x[f]), 1.0};
        offset += m->in_vocab[f].n;
    }
    out[k].index = -1;
}

static int svc_fit(kt_model *m, const kt_train_opts *o)
{
    (void)o;
    svm_set_print_string_function(quiet);
    size_t n = m->train.n, width = m->nin + 1;
    svc *s = calloc(1, sizeof *s);
    m->state = s;
    struct svm_node *nodes = malloc(n * width * sizeof *nodes);
    struct svm_node **rows = malloc(n * sizeof *rows);
    double *y = malloc(n * sizeof *y);
    if (s && (s->models = calloc(m->nout + 1, sizeof *s->models)))
        s->count = m->nout;
    if (!s || !s->models || !nodes || !rows || !y) {
        free(nodes);
        free(rows);
        free(y);
        return KT_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        rows[i] = nodes + i * width;
        encode(m, m->train.x + i * m->nin, m->train.xnum + i * m->nin, rows[i]);
    }
    struct svm_parameter param = {.svm_type = C_SVC, .kernel_type = RBF,
                                  .gamma = 1.0 / (double)m->nin, .C = 10,
                                  .cache_size = 200, .eps = 1e-3, .shrinking = 1};
    int rc = KT_OK;
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++) {
        for (size_t i = 0; i < n; i++)
            y[i] = m->train.y[i * m->nout + p];
        struct svm_problem prob = {(int)n, y, rows};
        /* a trained model points into nodes; a saved-and-loaded copy owns
         * its support vectors, so nodes can go */
        struct svm_model *trained = svm_train(&prob, &param);
        char path[] = "/tmp/ktune-svc-XXXXXX";
        int fd = mkstemp(path);
        if (fd >= 0)
            close(fd);
        if (!trained || fd < 0 || svm_save_model(path, trained) != 0 ||
            !(s->models[p] = svm_load_model(path)))
            rc = KT_ENOMEM;
        svm_free_and_destroy_model(&trained);
        unlink(path);
    }
    free(nodes);
    free(rows);
    free(y);
    return rc;
}

static int svc_dist(const kt_model *m, const uint16_t *x, const double *xn, double **logp)
{
    const svc *s = m->state;
    struct svm_node *in = malloc((m->nin + 1) * sizeof *in);
    int rc = in ? KT_OK : KT_ENOMEM;
    if (in)
        encode(m, x, xn, in);
    for (size_t p = 0; rc == KT_OK && p < m->nout; p++) {
        const struct svm_model *sm = s->models[p];
        int nc = svm_get_nr_class(sm);
        int *label = malloc((size_t)nc * sizeof *label);
        double *dec = malloc(((size_t)nc * (size_t)(nc - 1) / 2 + 1) * sizeof *dec);
        if (!label || !dec) {
            free(label);
            free(dec);
            rc = KT_ENOMEM;
            break;
        }
        svm_get_labels(sm, label);
        svm_predict_values(sm, in, dec);
        size_t V = m->out_vocab[p].n;
        memset(logp[p], 0, V * sizeof **logp);
        if (nc == 1 && label[0] > 0 && (size_t)label[0] < V)
            logp[p][label[0]] = 1;
        for (int i = 0, k = 0; i < nc; i++) /* one-against-one votes */
            for (int j = i + 1; j < nc; j++, k++) {
                int winner = dec[k] > 0 ? label[i] : label[j];
                if (winner > 0 && (size_t)winner < V)
                    logp[p][winner] += 1;
            }
        kt_weights_to_logp(logp[p], V);
        free(label);
        free(dec);
    }
    free(in);
    return rc;
}

static void svc_save(const kt_model *m, FILE *f)
{
    const svc *s = m->state;
    for (size_t p = 0; p < m->nout; p++) {
        char path[] = "/tmp/ktune-svc-XXXXXX", *bytes = NULL;
        size_t len = 0;
        int fd = mkstemp(path);
        if (fd >= 0)
            close(fd);
        if (fd < 0 || svm_save_model(path, s->models[p]) != 0 ||
            kt_read_file(path, &bytes, &len, NULL) != KT_OK)
            len = 0; /* an empty blob fails the load, loudly */
        kt_put_u64(f, len);
        kt_put(f, bytes, len);
        free(bytes);
        unlink(path);
    }
}

static void svc_load(kt_model *m, reader *r)
{
    svc *s = calloc(1, sizeof *s);
    m->state = s;
    if (!s || !(s->models = calloc(m->nout + 1, sizeof *s->models))) {
        r->bad = true;
        return;
    }
    s->count = m->nout;
    svm_set_print_string_function(quiet);
    for (size_t p = 0; !r->bad && p < m->nout; p++) {
        uint64_t len = kt_get_u64(r);
        char *bytes = kt_get_array(r, len, 1);
        char path[] = "/tmp/ktune-svc-XXXXXX";
        int fd = bytes && len ? mkstemp(path) : -1;
        bool written = fd >= 0 && write(fd, bytes, len) == (ssize_t)len;
        if (fd >= 0)
            close(fd);
        if (!written || !(s->models[p] = svm_load_model(path)))
            r->bad = true;
        if (fd >= 0)
            unlink(path);
        free(bytes);
    }
}

const kt_method kt_method_svc = {
    .name = "svc", .kind = 5, .fit = svc_fit, .dist = svc_dist,
    .save = svc_save, .load = svc_load, .free = svc_free,
};
