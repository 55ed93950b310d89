/* model_file.c - the model file: "KTUNEMDL", a format version, the method,
 * the vocabularies, the training and held-out samples, the feature scales,
 * then the method's own state.  Every read goes through a bounds-checked
 * cursor, so a truncated or corrupt file is refused, never trusted. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAGIC "KTUNEMDL"
/* 2: the choice of the method (the candidates' scores) after the scales;
 * 3: each candidate says whether it pooled and whether it was chosen. */
#define FORMAT_VERSION 4
#define MAX_CANDIDATES 64

/* Little-endian-as-the-host binary: the file is for the machine family
 * that wrote it (x86-64, aarch64), like the compiled-kernel cache. */

void kt_put(FILE *f, const void *p, size_t n) { fwrite(p, 1, n, f); }
void kt_put_u32(FILE *f, uint32_t v) { kt_put(f, &v, sizeof v); }
void kt_put_u64(FILE *f, uint64_t v) { kt_put(f, &v, sizeof v); }
void kt_put_f64(FILE *f, double v) { kt_put(f, &v, sizeof v); }

static void put_str(FILE *f, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    kt_put_u32(f, n);
    kt_put(f, s, n);
}

static void put_vocabs(FILE *f, char **names, const kt_vocab *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        put_str(f, names[i]);
        kt_put_u32(f, (uint32_t)v[i].n);
        for (size_t w = 0; w < v[i].n; w++)
            put_str(f, v[i].words[w]);
    }
}

static void put_samples(FILE *f, const kt_model *m, const samples *s)
{
    kt_put_u64(f, s->n);
    kt_put(f, s->x, s->n * m->nin * sizeof *s->x);
    kt_put(f, s->xnum, s->n * m->nin * sizeof *s->xnum);
    kt_put(f, s->y, s->n * m->nout * sizeof *s->y);
    for (size_t i = 0; i < s->n; i++)
        put_str(f, s->problem[i]);
}

/* Which methods were tried when training chose one, and their scores. */
static void put_choice(FILE *f, const kt_model *m)
{
    kt_put_u64(f, m->nval);
    kt_put_u32(f, (uint32_t)m->ncand);
    for (size_t i = 0; i < m->ncand; i++) {
        kt_put_u32(f, kt_method_find(m->cand[i].method, 0)->kind);
        kt_put_f64(f, m->cand[i].top1);
        kt_put_f64(f, m->cand[i].top10);
        kt_put_u32(f, (m->cand[i].pooled ? 1u : 0u) | (m->cand[i].chosen ? 2u : 0u));
        kt_put_f64(f, m->cand[i].loglik);
    }
}

/* The FNV-1a hash of everything before it, so that a corrupted file is
 * refused before any method (libsvm's loader among them) parses it. */
static bool append_checksum(FILE *f)
{
    long len = ftell(f);
    char *data = len > 0 ? malloc((size_t)len) : NULL;
    bool ok = data && fseek(f, 0, SEEK_SET) == 0 &&
              fread(data, 1, (size_t)len, f) == (size_t)len && fseek(f, 0, SEEK_END) == 0;
    if (ok)
        kt_put_u64(f, kt_hash(KT_HASH_INIT, data, (size_t)len));
    free(data);
    return ok;
}

int kt_model_save(const kt_model *m, const char *path, kt_diag *diag)
{
    char *tmp = kt_asprintf("%s.tmp", path);
    FILE *f = tmp ? fopen(tmp, "w+b") : NULL;
    if (!f) {
        free(tmp);
        return kt_fail(diag, KT_EIO, "cannot write '%s'", path);
    }
    kt_put(f, MAGIC, 8);
    kt_put_u32(f, FORMAT_VERSION);
    kt_put_u32(f, m->method->kind);
    put_str(f, m->kernel);
    put_str(f, m->where);
    kt_put_f64(f, m->holdout);
    kt_put_u64(f, m->seed);
    kt_put_u32(f, (uint32_t)m->nin);
    kt_put_u32(f, (uint32_t)m->nout);
    put_vocabs(f, m->in_names, m->in_vocab, m->nin);
    put_vocabs(f, m->out_names, m->out_vocab, m->nout);
    put_samples(f, m, &m->train);
    put_samples(f, m, &m->test);
    kt_put(f, m->mean, m->nin * sizeof *m->mean);
    kt_put(f, m->scale, m->nin * sizeof *m->scale);
    put_choice(f, m);
    m->method->save(m, f);
    bool ok = !ferror(f) && fflush(f) == 0;
    ok = ok && append_checksum(f);
    ok = fclose(f) == 0 && ok && rename(tmp, path) == 0; /* never a half-written model */
    if (!ok)
        unlink(tmp);
    free(tmp);
    return ok ? KT_OK : kt_fail(diag, KT_EIO, "cannot write '%s'", path);
}

bool kt_get(reader *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}

uint32_t kt_get_u32(reader *r)
{
    uint32_t v;
    kt_get(r, &v, sizeof v);
    return v;
}

uint64_t kt_get_u64(reader *r)
{
    uint64_t v;
    kt_get(r, &v, sizeof v);
    return v;
}

void kt_reader_refuse(reader *r, const char *why)
{
    if (!r->why[0])
        snprintf(r->why, sizeof r->why, "%s", why);
    r->bad = true;
}

static char *get_str(reader *r)
{
    uint32_t n = kt_get_u32(r);
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        return NULL;
    }
    char *s = kt_strndup((const char *)r->p, n);
    r->p += n;
    r->bad |= s == NULL;
    return s;
}

/* n elements of size bytes, checked against what is left before allocating. */
void *kt_get_array(reader *r, uint64_t n, size_t size)
{
    if (r->bad || (n && (uint64_t)(r->end - r->p) / size < n)) {
        r->bad = true;
        return NULL;
    }
    void *p = malloc(n * size + 1);
    if (!p)
        r->bad = true;
    else
        kt_get(r, p, n * size);
    return p;
}

static void get_vocabs(reader *r, char **names, kt_vocab *v, size_t n)
{
    for (size_t i = 0; i < n && !r->bad; i++) {
        names[i] = get_str(r);
        uint32_t words = kt_get_u32(r);
        if (r->bad || words > UINT16_MAX + 1u || words > (size_t)(r->end - r->p) / 4) {
            r->bad = true;
            return;
        }
        v[i].words = calloc(words + 1, sizeof(char *));
        for (uint32_t w = 0; v[i].words && w < words && !r->bad; w++, v[i].n++)
            v[i].words[w] = get_str(r);
        r->bad |= v[i].words == NULL;
    }
}

static void get_samples(reader *r, const kt_model *m, samples *s)
{
    uint64_t n = kt_get_u64(r);
    /* every sample takes bytes of the file: a count beyond them is corrupt,
     * and checking it first keeps n * nin from overflowing */
    if (n > (uint64_t)(r->end - r->p))
        r->bad = true;
    if (r->bad)
        return;
    s->x = kt_get_array(r, n * m->nin, sizeof *s->x);
    s->xnum = kt_get_array(r, n * m->nin, sizeof *s->xnum);
    s->y = kt_get_array(r, n * m->nout, sizeof *s->y);
    s->problem = r->bad ? NULL : calloc(n + 1, sizeof *s->problem);
    r->bad |= s->problem == NULL;
    for (uint64_t i = 0; !r->bad && i < n; i++, s->n++)
        s->problem[i] = get_str(r);
    for (uint64_t i = 0; !r->bad && i < n * m->nout; i++) /* tokens in range */
        r->bad |= s->y[i] >= m->out_vocab[i % m->nout].n;
    for (uint64_t i = 0; !r->bad && i < n * m->nin; i++)
        r->bad |= s->x[i] >= m->in_vocab[i % m->nin].n;
}

/* put_choice's record: known methods, percentages, exactly one chosen
 * (the model's own method, checked once its state is read: check_chosen)
 * when there is any.  Before version 3 the
 * candidate of the model's method was the chosen one, and none pooled. */
static void get_choice(reader *r, kt_model *m, uint32_t version)
{
    m->nval = kt_get_u64(r);
    uint32_t n = kt_get_u32(r);
    if (r->bad || n > MAX_CANDIDATES || m->nval > m->train.n) {
        kt_reader_refuse(r, "a bad record of the method's choice");
        return;
    }
    m->cand = calloc(n + 1, sizeof *m->cand);
    r->bad |= !m->cand;
    size_t chosen = 0;
    for (uint32_t i = 0; !r->bad && i < n; i++, m->ncand++) {
        const kt_method *cm = kt_method_find(NULL, kt_get_u32(r));
        ktune_model_candidate *c = &m->cand[i];
        kt_get(r, &c->top1, sizeof c->top1);
        kt_get(r, &c->top10, sizeof c->top10);
        uint32_t flags = version >= 3 ? kt_get_u32(r) : cm == m->method ? 2 : 0;
        c->loglik = NAN;
        if (version >= 4)
            kt_get(r, &c->loglik, sizeof c->loglik);
        if (!cm || flags > 3 ||
            !(c->top1 >= 0 && c->top1 <= 100 && c->top10 >= 0 && c->top10 <= 100) ||
            (version >= 4 && !(c->loglik <= 0)))
            kt_reader_refuse(r, "a bad record of the method's choice");
        c->method = cm ? cm->name : NULL;
        c->pooled = flags & 1;
        c->chosen = flags & 2;
        chosen += c->chosen;
    }
    if (!r->bad && n > 0 && chosen != 1)
        kt_reader_refuse(r, "a bad record of the method's choice");
}

/* The chosen candidate is the method the model describes itself as (a
 * bag's is its members', known once its state is read). */
static void check_chosen(reader *r, const kt_model *m)
{
    kt_model_info info;
    kt_model_describe(m, &info);
    for (size_t i = 0; i < m->ncand; i++)
        if (m->cand[i].chosen && strcmp(m->cand[i].method, info.method) != 0)
            kt_reader_refuse(r, "a bad record of the method's choice");
}

static void read_model(reader *r, kt_model *m)
{
    char magic[8];
    kt_get(r, magic, 8);
    uint32_t version = kt_get_u32(r);
    if (memcmp(magic, MAGIC, 8) != 0 || version < 1 || version > FORMAT_VERSION ||
        !(m->method = kt_method_find(NULL, kt_get_u32(r)))) {
        r->bad = true;
        return;
    }
    m->kernel = get_str(r);
    m->where = get_str(r);
    kt_get(r, &m->holdout, sizeof m->holdout);
    m->seed = kt_get_u64(r);
    m->nin = kt_get_u32(r);
    m->nout = kt_get_u32(r);
    if (r->bad || m->nin > 4096 || m->nout > 4096) {
        r->bad = true;
        return;
    }
    m->in_names = calloc(m->nin + 1, sizeof(char *));
    m->out_names = calloc(m->nout + 1, sizeof(char *));
    m->in_vocab = calloc(m->nin + 1, sizeof(kt_vocab));
    m->out_vocab = calloc(m->nout + 1, sizeof(kt_vocab));
    r->bad |= !m->in_names || !m->out_names || !m->in_vocab || !m->out_vocab;
    get_vocabs(r, m->in_names, m->in_vocab, m->nin);
    get_vocabs(r, m->out_names, m->out_vocab, m->nout);
    get_samples(r, m, &m->train);
    get_samples(r, m, &m->test);
    m->mean = kt_get_array(r, m->nin, sizeof *m->mean);
    m->scale = kt_get_array(r, m->nin, sizeof *m->scale);
    if (!r->bad && kt_model_features(m) != KT_OK)
        r->bad = true;
    if (!r->bad && version >= 2)
        get_choice(r, m, version);
    if (!r->bad)
        m->method->load(m, r);
    if (!r->bad)
        check_chosen(r, m);
    r->bad |= r->p != r->end || m->train.n == 0;
}

int kt_model_load_bytes(const void *bytes, size_t len, const char *name, kt_model **out,
                        kt_diag *diag)
{
    *out = NULL;
    const unsigned char *data = bytes;
    kt_model *m = calloc(1, sizeof *m);
    uint64_t sum = 0;
    bool intact = len >= 8 && (memcpy(&sum, data + len - 8, 8), true) &&
                  sum == kt_hash(KT_HASH_INIT, data, len - 8);
    reader r = {data, data + (intact ? len - 8 : 0), !m || !intact, ""};
    if (m)
        read_model(&r, m);
    if (r.bad) {
        kt_model_free(m);
        if (r.why[0])
            return kt_fail(diag, KT_EFORMAT, "%s: refused: %s", name, r.why);
        return kt_fail(diag, KT_EFORMAT, "%s: not a ktune model file of format "
                       "version %d, or truncated or corrupt", name, FORMAT_VERSION);
    }
    *out = m;
    return KT_OK;
}

int kt_model_load(const char *path, kt_model **out, kt_diag *diag)
{
    *out = NULL;
    char *data;
    size_t len;
    int rc = kt_read_file(path, &data, &len, diag);
    if (rc != KT_OK)
        return rc;
    rc = kt_model_load_bytes(data, len, path, out, diag);
    free(data);
    return rc;
}
