/* test_model_trust.c - a model file is untrusted input: model files are
 * shared between users, and the checksum only catches accidents (anyone
 * can recompute it).  A crafted or scribbled file must be refused with a
 * clear error, or load into a model that works; it must never crash or
 * corrupt the process.  These tests build small real models of every
 * method, then load files crafted the way an attacker would: the exact
 * attack of issue 10 (the UBJSON length of "num_feature" inside the
 * embedded XGBoost model changed, checksum recomputed), and thousands of
 * random mutations with the checksum fixed up each time. */
#include "core/util.h"
#include "ml/predict.h"
#include "test.h"

#include <stdint.h>
#include <sys/stat.h>

/* ------------------------------------------------------------- fixtures */

/* A scratch directory of this test's process, removed by scratch_done. */
static char scratch_dir[64];

static const char *scratch(const char *name)
{
    static char buf[2][128];
    static int next;
    if (!scratch_dir[0]) {
        snprintf(scratch_dir, sizeof scratch_dir, "/tmp/ktune-test-trust-XXXXXX");
        CHECK(mkdtemp(scratch_dir) != NULL);
    }
    char *p = buf[next++ % 2];
    snprintf(p, 128, "%s/%s", scratch_dir, name);
    return p;
}

static void scratch_done(void)
{
    const char *names[] = {"toy.db", "toy.db-wal", "toy.db-shm", "toy.db-journal",
                           "model.ktm", "model.ktm.tmp", "bad.ktm"};
    for (size_t i = 0; i < KT_ARRAY_LEN(names); i++)
        unlink(scratch(names[i]));
    CHECK(rmdir(scratch_dir) == 0);
    scratch_dir[0] = '\0';
}

/* 30 problems N=1..30 of kernel "toy": the best A is 1 below N=15, else 2
 * (the other A measured too, slower); B is always 4. */
static kt_db *toy_db(void)
{
    kt_db *db;
    kt_diag d = {{0}};
    CHECK(kt_db_open(scratch("toy.db"), &db, &d) == KT_OK);
    kt_device_info dev = {.name = "x", .backend = "cpu", .fingerprint = "fp"};
    int64_t dv, k, pr;
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, "toy", "h", &k, &d) == KT_OK);
    kt_result ok = {.status = KT_STATUS_OK, .time_ms = 1, .energy_j = NAN, .power_w = NAN};
    kt_result slow = ok;
    slow.time_ms = 1.6;
    for (int n = 1; n <= 30; n++) {
        char key[64], cfg[64];
        snprintf(key, sizeof key, "kind=%s,N=%d", n % 2 ? "odd" : "even", n);
        CHECK(kt_db_problem(db, k, key, &pr, &d) == KT_OK);
        snprintf(cfg, sizeof cfg, "A=%d,B=4", n < 15 ? 1 : 2);
        CHECK(kt_db_record(db, dv, k, pr, cfg, &ok, &d) == KT_OK);
        snprintf(cfg, sizeof cfg, "A=%d,B=4", n < 15 ? 2 : 1);
        CHECK(kt_db_record(db, dv, k, pr, cfg, &slow, &d) == KT_OK);
    }
    return db;
}

/* The bytes of a small model file of a method (the caller frees). */
static char *model_bytes(const char *method, size_t *len)
{
    kt_db *db = toy_db();
    kt_dataset *ds;
    kt_model *m;
    kt_diag d = {{0}};
    bool all = strcmp(method, "cost") == 0; /* it learns from every measurement */
    CHECK((all ? kt_dataset_load_all : kt_dataset_load)(db, "toy", NULL, &ds, &d) == KT_OK);
    kt_train_opts o = {.method = method, .holdout = 0.2, .seed = 3, .k = 3, .hidden = 4,
                       .epochs = 3};
    CHECK(kt_model_train(ds, &o, &m, &d) == KT_OK);
    CHECK(kt_model_save(m, scratch("model.ktm"), &d) == KT_OK);
    char *bytes;
    CHECK(kt_read_file(scratch("model.ktm"), &bytes, len, &d) == KT_OK);
    unlink(scratch("model.ktm"));
    kt_model_free(m);
    kt_dataset_free(ds);
    kt_db_close(db);
    return bytes;
}

/* Recompute the checksum as anyone can: FNV-1a of all but the last 8 bytes. */
static void fix_checksum(char *bytes, size_t len)
{
    uint64_t sum = kt_hash(KT_HASH_INIT, bytes, len - 8);
    memcpy(bytes + len - 8, &sum, 8);
}

/* Load a model from bytes: refused as a format error naming the file, or
 * loaded into a model that describes itself and predicts. */
static int load_bytes(const char *bytes, size_t len, kt_diag *d)
{
    kt_model *m;
    int rc = kt_model_load_bytes(bytes, len, "crafted.ktm", &m, d);
    CHECK(rc == KT_OK || rc == KT_EFORMAT);
    if (rc != KT_OK) {
        CHECK(strstr(d->msg, "crafted.ktm: ") == d->msg);
        return rc;
    }
    kt_model_info info;
    kt_model_describe(m, &info);
    uint16_t out[3 * 8];
    size_t found;
    kt_diag pd;
    kt_predict(m, NULL, info.ntest ? kt_model_test_problem(m, 0) : "kind=odd,N=5", 3, out,
               NULL, &found, &pd);
    kt_model_free(m);
    return rc;
}

/* The same through a file, as `ktune evaluate` and `ktune predict` read it. */
static int load_crafted(const char *bytes, size_t len, kt_diag *d)
{
    const char *path = scratch("bad.ktm");
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(bytes, 1, len, f) == len);
    CHECK(fclose(f) == 0);
    kt_model *m;
    int rc = kt_model_load(path, &m, d);
    CHECK(rc == KT_EFORMAT || rc == KT_OK);
    if (rc == KT_OK)
        kt_model_free(m);
    else
        CHECK(strstr(d->msg, path) == d->msg);
    return rc;
}

/* ------------------------------------------------------ the attack */

/* Offset of the first (or last) occurrence of a key in UBJSON: 'L', an
 * 8-byte big-endian length, the name; the offset of the length. */
static size_t ubj_key(const char *bytes, size_t len, const char *key, bool last)
{
    size_t k = strlen(key), at = 0;
    for (size_t i = 9; i + k <= len && !(at && !last); i++)
        if (bytes[i - 9] == 'L' && memcmp(bytes + i, key, k) == 0 &&
            (unsigned char)bytes[i - 1] == k)
            at = i - 8;
    CHECK(at != 0);
    return at;
}

static void attack(const char *method)
{
    size_t len;
    char *good = model_bytes(method, &len), *bad = malloc(len);
    static const uint64_t lengths[] = {0x7fffffffffffffffULL, 0x0000000100000000ULL,
                                       0xffffffffffffff00ULL, 0x00000000ffff0000ULL, 4096};
    for (size_t v = 0; v < KT_ARRAY_LEN(lengths); v++)
        for (int what = 0; what < 4; what++) { /* the key's length, the value's */
            memcpy(bad, good, len);
            size_t at = ubj_key(bad, len, "num_feature", what / 2) + (what % 2 ? 8 + 11 + 2 : 0);
            for (int b = 0; b < 8; b++) /* big-endian */
                bad[at + b] = (char)(lengths[v] >> (56 - 8 * b));
            fix_checksum(bad, len);
            kt_diag d = {{0}};
            CHECK_EQ_INT(load_crafted(bad, len, &d), KT_EFORMAT);
            CHECK(strstr(d.msg, "xgboost") != NULL);
        }
    free(bad);
    free(good);
}

/* The exact attack of issue 10, on both methods that embed XGBoost. */
static void test_crafted_xgboost_length_is_refused(void)
{
    attack("xgboost");
    attack("cost");
    scratch_done();
}

/* A tree that sends a row to feature 1000 of a model of a few: XGBoost
 * would index the row with it unchecked. */
static void test_crafted_xgboost_tree_is_refused(void)
{
    size_t len;
    char *bytes = model_bytes("cost", &len);
    /* "split_indices" [$l#L count, then the root's feature, big-endian */
    size_t at = ubj_key(bytes, len, "split_indices", false) + 8 + 13 + 5 + 8;
    memcpy(bytes + at, "\0\0\x03\xe8", 4);
    fix_checksum(bytes, len);
    kt_diag d = {{0}};
    CHECK_EQ_INT(load_crafted(bytes, len, &d), KT_EFORMAT);
    CHECK(strstr(d.msg, "tree 0: node 0 splits on feature 1000") != NULL);
    free(bytes);
    scratch_done();
}

/* libsvm's text with support vector counts that do not add up: libsvm's
 * own loader believes them and its predictions read past the arrays. */
static void test_crafted_svc_counts_are_refused(void)
{
    size_t len;
    char *bytes = model_bytes("svc", &len);
    char *nr = memmem(bytes, len, "nr_sv ", 6);
    CHECK(nr != NULL && nr[6] >= '0' && nr[6] <= '8');
    nr[6]++;
    fix_checksum(bytes, len);
    kt_diag d = {{0}};
    CHECK_EQ_INT(load_crafted(bytes, len, &d), KT_EFORMAT);
    CHECK(strstr(d.msg, "svc: position 0: nr_sv does not add up to total_sv") != NULL);
    free(bytes);
    scratch_done();
}

/* ------------------------------------------------------ random mutations */

static const char *const METHODS[] = {"knn",    "naive_bayes", "tree",     "forest",
                                      "svc",    "encdec",      "attention", "hybrid",
                                      "hybrid2", "ensemble",   "xgboost",   "cost"};

/* Overwrite a field-sized run of bytes with a value a parser trips on. */
static void scribble_field(char *b, size_t len, kt_rng *rng)
{
    static const uint64_t nasty[] = {0, 1, 2, 0x7f, 0x80, 0xff, 0xffff, 0x7fffffff,
                                     0x80000000u, 0xffffffffu, 0x7fffffffffffffffULL,
                                     UINT64_MAX, 0x4000000000000000ULL};
    size_t w = (size_t)1 << kt_rng_below(rng, 4); /* 1, 2, 4 or 8 bytes */
    if (len < w + 8)
        return;
    uint64_t v = nasty[kt_rng_below(rng, KT_ARRAY_LEN(nasty))];
    size_t at = kt_rng_below(rng, len - 8 - w + 1);
    bool big = kt_rng_below(rng, 2); /* UBJSON is big-endian, the rest little */
    for (size_t i = 0; i < w; i++)
        b[at + i] = (char)(v >> (8 * (big ? w - 1 - i : i)));
}

static void mutate(char *b, size_t len, kt_rng *rng)
{
    int edits = 1 + (int)kt_rng_below(rng, 3);
    for (int e = 0; e < edits; e++) {
        if (kt_rng_below(rng, 2))
            scribble_field(b, len, rng);
        else
            b[kt_rng_below(rng, len - 8)] ^= (char)(1u << kt_rng_below(rng, 8));
    }
    fix_checksum(b, len);
}

/* Every variant is refused cleanly or works; none crashes (the test runs
 * in its own process: a crash fails it). */
static void test_mutated_model_files_never_crash(void)
{
    const char *env = getenv("KT_TRUST_VARIANTS");
    int variants = env ? atoi(env) : 2000;
    for (size_t k = 0; k < KT_ARRAY_LEN(METHODS); k++) {
        size_t len;
        char *good = model_bytes(METHODS[k], &len), *bad = malloc(len);
        kt_rng rng;
        kt_rng_seed(&rng, 11 + k);
        int loaded = 0;
        for (int v = 0; v < variants; v++) {
            memcpy(bad, good, len);
            mutate(bad, len, &rng);
            kt_diag d = {{0}};
            loaded += load_bytes(bad, len, &d) == KT_OK;
        }
        kt_diag d = {{0}};
        CHECK(load_bytes(good, len, &d) == KT_OK); /* the original still loads */
        CHECK(loaded > 0 && loaded < variants); /* the mutations reach past the checks */
        free(bad);
        free(good);
    }
    scratch_done();
}

static const kt_test TESTS[] = {
    KT_T(test_crafted_xgboost_length_is_refused),
    KT_T(test_crafted_xgboost_tree_is_refused),
    KT_T(test_crafted_svc_counts_are_refused),
    KT_T(test_mutated_model_files_never_crash),
};
KT_TEST_MAIN(TESTS)
