/* svc.c - support vector classifiers per output position, through libsvm
 * (C-SVC, RBF kernel).  Inputs: the standardised numeric fields, and
 * categorical fields one-hot.  Scores are the one-against-one votes.
 *
 * Each position's model travels inside ktune's model file as libsvm's text
 * format, but ktune writes and reads that text itself (svm_text,
 * svm_parse) rather than through svm_save_model and svm_load_model: those
 * work on file paths (temporary files), change the process's locale, print
 * to stderr, and svm_load_model trusts every count in the text (a crafted
 * nr_sv or total_sv makes svm_predict_values read out of bounds).  The
 * parser accepts exactly what libsvm writes for a C-SVC with an RBF kernel,
 * checks every count against the text and the model's vocabulary, and
 * builds the svm_model itself; a trained model goes through the same text
 * once, so a model in memory is always one that was checked. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <libsvm/svm.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct svc {
    struct svm_model **models;  /* nout */
    size_t count;
} svc;

/* libsvm reports training progress on stdout; the library must not print. */
static void quiet(const char *s) { (void)s; }

/* ------------------------------------------------ libsvm's text, checked */

/* A model svm_parse built (not one of svm_train's). */
static void model_free(struct svm_model *sm)
{
    if (!sm)
        return;
    if (sm->SV)
        free(sm->SV[0]);
    if (sm->sv_coef)
        free(sm->sv_coef[0]);
    free(sm->SV);
    free(sm->sv_coef);
    free(sm->rho);
    free(sm->label);
    free(sm->nSV);
    free(sm);
}

/* The text svm_save_model writes for a C-SVC with an RBF kernel; NULL when
 * out of memory. */
static char *svm_text(const struct svm_model *sm, size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    if (!f)
        return NULL;
    int k = sm->nr_class;
    fprintf(f, "svm_type c_svc\nkernel_type rbf\ngamma %.17g\nnr_class %d\ntotal_sv %d\nrho",
            sm->param.gamma, k, sm->l);
    for (int i = 0; i < k * (k - 1) / 2; i++)
        fprintf(f, " %.17g", sm->rho[i]);
    fprintf(f, "\nlabel");
    for (int i = 0; i < k; i++)
        fprintf(f, " %d", sm->label[i]);
    fprintf(f, "\nnr_sv");
    for (int i = 0; i < k; i++)
        fprintf(f, " %d", sm->nSV[i]);
    fprintf(f, "\nSV\n");
    for (int i = 0; i < sm->l; i++) {
        for (int j = 0; j < k - 1; j++)
            fprintf(f, "%.17g ", sm->sv_coef[j][i]);
        for (const struct svm_node *n = sm->SV[i]; n->index != -1; n++)
            fprintf(f, "%d:%.8g ", n->index, n->value);
        fprintf(f, "\n");
    }
    bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok) {
        free(text);
        return NULL;
    }
    return text;
}

/* A cursor over NUL-terminated text; why: the first thing refused. */
typedef struct text {
    const char *p;
    const char *why;
} text;

static bool refuse(text *t, const char *why)
{
    if (!t->why)
        t->why = why;
    return false;
}

static bool word(text *t, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(t->p, w, n) != 0)
        return refuse(t, "a line libsvm does not write for a C-SVC with an RBF kernel");
    t->p += n;
    return true;
}

/* A finite number starting right here (strtod would skip spaces and
 * newlines, and read "nan"). */
static bool number(text *t, double *v)
{
    char *end;
    if (!strchr("0123456789+-.", *t->p) || !*t->p)
        return refuse(t, "a number expected");
    *v = strtod(t->p, &end);
    if (end == t->p || !isfinite(*v))
        return refuse(t, "a number that is not finite");
    t->p = end;
    return true;
}

/* A whole number in [lo, hi] starting right here. */
static bool whole(text *t, long lo, long hi, int *v)
{
    char *end;
    if (!strchr("0123456789-", *t->p) || !*t->p)
        return refuse(t, "a whole number expected");
    long x = strtol(t->p, &end, 10);
    if (end == t->p || x < lo || x > hi)
        return refuse(t, "a count, label or index out of range");
    t->p = end;
    *v = (int)x;
    return true;
}

/* "name" then n numbers (whole ones in [lo, hi] when ints is not NULL),
 * each after a space, then the end of the line. */
static bool line(text *t, const char *name, int n, double *reals, int *ints, long lo, long hi)
{
    if (!word(t, name))
        return false;
    for (int i = 0; i < n; i++)
        if (!word(t, " ") || !(ints ? whole(t, lo, hi, &ints[i]) : number(t, &reals[i])))
            return false;
    return word(t, "\n");
}

/* The support vectors: k - 1 coefficients, then index:value pairs, each
 * followed by a space; one vector per line.  Indices are positive (-1
 * ends a vector); ktune's rise, but models written before they did are
 * read as they are (libsvm's kernels stop at the first -1 either way). */
static bool vectors(text *t, struct svm_model *sm, size_t nnodes)
{
    struct svm_node *node = sm->SV[0], *end = node + nnodes;
    for (int i = 0; i < sm->l; i++) {
        sm->SV[i] = node;
        for (int j = 0; j < sm->nr_class - 1; j++)
            if (!number(t, &sm->sv_coef[j][i]) || !word(t, " "))
                return false;
        for (; *t->p != '\n'; node++)
            if (node + 1 >= end || !whole(t, 1, INT_MAX, &node->index) || !word(t, ":") ||
                !number(t, &node->value) || !word(t, " "))
                return refuse(t, "a support vector that is not index:value pairs");
        node++->index = -1;
        t->p++;
    }
    return *t->p == '\0' || refuse(t, "text after the last support vector");
}

static size_t count_char(const char *s, char c)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

/* The header's arrays and the support vectors' storage, sized by counts
 * the text was checked to hold. */
static bool alloc_model(text *t, struct svm_model *sm, size_t len, size_t *nnodes)
{
    size_t k = (size_t)sm->nr_class, l = (size_t)sm->l, pairs = k * (k - 1) / 2;
    if (pairs > len / 2 || l > len)
        return refuse(t, "more values than the text holds");
    *nnodes = count_char(t->p, ':') + l + 1; /* index:value pairs, and an end per vector */
    sm->rho = malloc((pairs + 1) * sizeof *sm->rho);
    sm->label = malloc(k * sizeof *sm->label);
    sm->nSV = malloc(k * sizeof *sm->nSV);
    sm->SV = calloc(l + 1, sizeof *sm->SV);
    sm->sv_coef = calloc(k, sizeof *sm->sv_coef);
    if (sm->SV)
        sm->SV[0] = malloc(*nnodes * sizeof **sm->SV);
    if (sm->sv_coef)
        sm->sv_coef[0] = malloc(((k - 1) * l + 1) * sizeof **sm->sv_coef);
    if (!sm->rho || !sm->label || !sm->nSV || !sm->SV || !sm->SV[0] || !sm->sv_coef ||
        !sm->sv_coef[0])
        return refuse(t, "out of memory");
    for (size_t j = 1; j + 1 < k; j++)
        sm->sv_coef[j] = sm->sv_coef[0] + j * l;
    return true;
}

/* A C-SVC of at most V classes whose labels are tokens (1..V-1) from the
 * len bytes of libsvm's text; *why says what was refused. */
static struct svm_model *svm_parse(const char *bytes, size_t len, size_t V, const char **why)
{
    text t = {bytes, NULL};
    struct svm_model *sm = calloc(1, sizeof *sm);
    if (!sm || strlen(bytes) != len) {
        *why = sm ? "a NUL byte in the text" : "out of memory";
        free(sm);
        return NULL;
    }
    sm->param = (struct svm_parameter){.svm_type = C_SVC, .kernel_type = RBF};
    sm->free_sv = 1;
    long maxk = V < 2 ? 1 : (long)V - 1;
    size_t nnodes = 0;
    bool ok = word(&t, "svm_type c_svc\nkernel_type rbf\n") &&
              line(&t, "gamma", 1, &sm->param.gamma, NULL, 0, 0) &&
              line(&t, "nr_class", 1, NULL, &sm->nr_class, 1, maxk) &&
              line(&t, "total_sv", 1, NULL, &sm->l, 0, INT_MAX) &&
              alloc_model(&t, sm, len, &nnodes) &&
              line(&t, "rho", sm->nr_class * (sm->nr_class - 1) / 2, sm->rho, NULL, 0, 0) &&
              line(&t, "label", sm->nr_class, NULL, sm->label, 1, maxk) &&
              line(&t, "nr_sv", sm->nr_class, NULL, sm->nSV, 0, sm->l);
    long total = 0;
    for (int i = 0; ok && i < sm->nr_class; i++)
        total += sm->nSV[i];
    ok = ok && (total == sm->l || refuse(&t, "nr_sv does not add up to total_sv")) &&
         word(&t, "SV\n") && vectors(&t, sm, nnodes);
    if (ok && !(sm->param.gamma > 0))
        ok = refuse(&t, "gamma is not positive");
    if (!ok) {
        *why = t.why;
        model_free(sm);
        return NULL;
    }
    return sm;
}

/* ------------------------------------------------------------- the method */

static void svc_free(void *state)
{
    svc *s = state;
    if (!s)
        return;
    for (size_t p = 0; s->models && p < s->count; p++)
        model_free(s->models[p]);
    free(s->models);
    free(s);
}

/* The sparse input of one sample: numeric fields at 1..nin, one-hot
 * categorical tokens after them; terminated by index -1.  The indices
 * rise, as libsvm's kernels (a merge of two sorted lists) need. */
static void encode(const kt_model *m, const uint16_t *x, const double *xn,
                   struct svm_node *out)
{
    size_t k = 0, offset = m->nin + 1;
    for (size_t f = 0; f < m->nin; f++) {
        double v = kt_model_feature(m, xn, f);
        if (!isnan(v))
            out[k++] = (struct svm_node){(int)f + 1, v};
    }
    for (size_t f = 0; f < m->nin; f++) {
        if (isnan(kt_model_feature(m, xn, f)) && m->scale[f] == 0 && x[f] != 0)
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
        /* a trained model points into nodes; the copy read back from its
         * text owns its support vectors, so nodes can go */
        struct svm_model *trained = svm_train(&prob, &param);
        size_t len = 0;
        char *text = trained ? svm_text(trained, &len) : NULL;
        const char *why;
        if (!text || !(s->models[p] = svm_parse(text, len, m->out_vocab[p].n, &why)))
            rc = KT_ENOMEM;
        free(text);
        svm_free_and_destroy_model(&trained);
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
        size_t len = 0;
        char *text = svm_text(s->models[p], &len);
        if (!text)
            len = 0; /* an empty text fails the load, loudly */
        kt_put_u64(f, len);
        kt_put(f, text, len);
        free(text);
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
    for (size_t p = 0; !r->bad && p < m->nout; p++) {
        uint64_t len = kt_get_u64(r);
        char *text = kt_get_array(r, len, 1); /* one byte more: the NUL */
        const char *why = "an empty model";
        if (text)
            text[len] = '\0';
        if (text && (!len || !(s->models[p] = svm_parse(text, len, m->out_vocab[p].n, &why)))) {
            char msg[200];
            snprintf(msg, sizeof msg, "svc: position %zu: %s", p, why);
            kt_reader_refuse(r, msg);
        }
        free(text);
    }
}

const kt_method kt_method_svc = {
    .name = "svc", .kind = 5, .fit = svc_fit, .dist = svc_dist,
    .save = svc_save, .load = svc_load, .free = svc_free,
};
