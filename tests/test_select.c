/* test_select.c - runtime selection (ktune_selector_*, ktune_select*): the
 * answer and its provenance from the database, the nearest tuned shape, a
 * model and the spec's default; refresh while threads select; bad input.
 *
 * The database is written here through the store (a few rows of the CPU
 * SGEMM for the current spec's source), so no kernel runs. */
#include "test.h"

#include "ktune.h"
#include "core/spec.h"
#include "ml/model.h"
#include "store/db.h"

#include <pthread.h>
#include <sqlite3.h>
#include <stdatomic.h>

#define SPEC "kernels/gemm/gemm-c.json"
#define DEVICE "test-cpu"

static const char *const SLOW = "MR=4,NR=16,VEC=8,MC=48,KC=128,NC=768,UNROLL=1,THREADS=2";
static const char *const FAST = "MR=6,NR=16,VEC=8,MC=96,KC=256,NC=768,UNROLL=4,THREADS=2";
static const char *const FASTER = "MR=4,NR=16,VEC=8,MC=96,KC=128,NC=768,UNROLL=4,THREADS=2";

/* Store one ok measurement of a kernel on the test device. */
static void put_kernel(kt_db *db, const char *name, const char *hash,
                       const char *problem, const char *config, double ms)
{
    kt_diag d = {{0}};
    kt_device_info dev = {.name = DEVICE, .backend = "cpu", .fingerprint = "test|cpu"};
    int64_t device, kernel, prob;
    CHECK(kt_db_device(db, &dev, &device, &d) == KT_OK);
    CHECK(kt_db_kernel(db, name, hash, &kernel, &d) == KT_OK);
    CHECK(kt_db_problem(db, kernel, problem, &prob, &d) == KT_OK);
    kt_result r = {.status = KT_STATUS_OK, .time_ms = ms, .min_ms = ms, .reps = 10};
    CHECK(kt_db_record(db, device, kernel, prob, config, &r, &d) == KT_OK);
}

/* ... of the SGEMM, for the current spec's source. */
static void put(kt_db *db, const char *problem, const char *config, double ms)
{
    kt_diag d = {{0}};
    kt_spec *spec = NULL;
    CHECK(kt_spec_load(kt_test_path(SPEC), NULL, NULL, &spec, &d) == KT_OK);
    put_kernel(db, spec->name, spec->source_hash, problem, config, ms);
    kt_spec_free(spec);
}

/* Four square problems, each with a slow and a fast configuration. */
static const char *tuned_db(void)
{
    const char *path = kt_test_tmp("t.db");
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    static const char *const SIZES[] = {"128", "256", "512", "1024"};
    for (size_t i = 0; i < 4; i++) {
        char key[64];
        snprintf(key, sizeof key, "M=%s,N=%s,K=%s", SIZES[i], SIZES[i], SIZES[i]);
        put(db, key, SLOW, 2.0 + (double)i);
        put(db, key, FAST, 1.0 + (double)i);
    }
    kt_db_close(db);
    return path;
}

static ktune_selector *open_sel(const char *db, const char *model, unsigned refresh_ms)
{
    ktune_selector_opts o;
    ktune_selector_opts_init(&o);
    o.refresh_ms = refresh_ms;
    o.max_distance = 0.5;
    ktune_selector *sel = NULL;
    ktune_diag d = {{0}};
    int rc = ktune_selector_open(db, kt_test_path(SPEC), DEVICE, model, &o, &sel, &d);
    if (rc != KTUNE_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK_EQ_INT(rc, KTUNE_OK);
    return sel;
}

static void test_exact_hit_is_the_stored_best(void)
{
    ktune_selector *sel = open_sel(tuned_db(), NULL, 0);
    CHECK_EQ_INT(ktune_selector_size(sel), 4);
    CHECK_EQ_INT(ktune_selector_nproblem(sel), 3);
    CHECK_STR(ktune_selector_problem_name(sel, 0), "M");
    ktune_choice c;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_select(sel, "K=256,M=256,N=256", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DATABASE);
    CHECK_STR(ktune_source_name(c.source), "database");
    CHECK_STR(c.config, FAST);
    CHECK_NEAR(c.time_ms, 2.0, 1e-12);
    CHECK_EQ_INT(c.nparams, 8);
    CHECK_NEAR(c.values[0], 6, 0);   /* MR */
    CHECK_NEAR(c.values[6], 4, 0);   /* UNROLL */
    int64_t v[3] = {1024, 1024, 1024};
    CHECK_EQ_INT(ktune_select_values(sel, v, 3, &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DATABASE);
    CHECK_NEAR(c.time_ms, 4.0, 1e-12);
    ktune_selector_close(sel);
}

/* A spec the application loaded serves as well as its path, and stays the
 * application's: the selector neither frees nor needs a copy of it. */
static void test_open_from_a_loaded_spec(void)
{
    ktune_spec *spec = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_spec_load(kt_test_path(SPEC), NULL, NULL, &spec, &d), KTUNE_OK);
    ktune_selector *sel = NULL;
    CHECK_EQ_INT(ktune_selector_open_spec(tuned_db(), spec, DEVICE, NULL, NULL, &sel, &d),
                 KTUNE_OK);
    ktune_choice c;
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256,K=256", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DATABASE);
    CHECK_STR(c.config, FAST);
    CHECK_EQ_INT(ktune_select(sel, "M=100,N=100,K=100", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST); /* the spec's parameters */
    CHECK_STR(c.from, "M=128,N=128,K=128");
    ktune_selector_close(sel);
    CHECK_STR(ktune_spec_name(spec), "gemm"); /* still the caller's */
    CHECK_EQ_INT(ktune_selector_open_spec(tuned_db(), NULL, DEVICE, NULL, NULL, &sel, &d),
                 KTUNE_EINVAL);
    CHECK(strstr(d.msg, "ktune_selector_open_spec: NULL spec") != NULL);
    CHECK(sel == NULL);
    ktune_spec_free(spec);
}

static void test_unseen_shape_gets_the_nearest(void)
{
    ktune_selector *sel = open_sel(tuned_db(), NULL, 0);
    ktune_choice c;
    ktune_diag d = {{0}};
    for (int twice = 0; twice < 2; twice++) { /* the second from the cache */
        CHECK_EQ_INT(ktune_select(sel, "M=300,N=256,K=256", &c, &d), KTUNE_OK);
        CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST);
        CHECK_STR(c.from, "M=256,N=256,K=256");
        CHECK_STR(c.config, FAST);
        CHECK_NEAR(c.distance, log2(301.0) - log2(257.0), 1e-9);
        CHECK_NEAR(c.time_ms, 2.0, 1e-12);
    }
    /* far from every tuned shape and no model: still the nearest */
    CHECK_EQ_INT(ktune_select(sel, "M=100000,N=100000,K=100000", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST);
    CHECK_STR(c.from, "M=1024,N=1024,K=1024");
    ktune_selector_close(sel);
}

static void test_far_shape_goes_to_the_model(void)
{
    const char *path = tuned_db(), *model = kt_test_tmp("m.ktm");
    kt_db *db = NULL;
    kt_dataset *ds = NULL;
    kt_model *m = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    CHECK(kt_dataset_load(db, "gemm", NULL, &ds, &d) == KT_OK);
    kt_train_opts o = {.method = "knn", .k = 1, .seed = 1};
    CHECK(kt_model_train(ds, &o, &m, &d) == KT_OK);
    CHECK(kt_model_save(m, model, &d) == KT_OK);
    kt_model_free(m);
    kt_dataset_free(ds);
    kt_db_close(db);

    ktune_selector *sel = open_sel(path, model, 0);
    ktune_choice c, again;
    ktune_diag e = {{0}};
    CHECK_EQ_INT(ktune_select(sel, "M=4096,N=4096,K=4096", &c, &e), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_MODEL);
    CHECK(isnan(c.time_ms));
    kt_spec *spec = NULL;
    uint16_t cfg[8];
    CHECK(kt_spec_load(kt_test_path(SPEC), NULL, NULL, &spec, &d) == KT_OK);
    CHECK(kt_spec_config_parse(spec, c.config, cfg, &d) == KT_OK);
    kt_spec_free(spec);
    CHECK_EQ_INT(ktune_select(sel, "M=4096,N=4096,K=4096", &again, &e), KTUNE_OK);
    CHECK_EQ_INT(again.source, KTUNE_FROM_MODEL);
    CHECK_STR(again.config, c.config);
    /* near a tuned shape, the nearest still wins over the model */
    CHECK_EQ_INT(ktune_select(sel, "M=260,N=256,K=256", &c, &e), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST);
    ktune_selector_close(sel);
}

static void test_empty_database_gives_the_default(void)
{
    const char *path = kt_test_tmp("empty.db");
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    kt_db_close(db);
    ktune_selector *sel = open_sel(path, NULL, 0);
    ktune_choice c;
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256,K=256", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DEFAULT);
    kt_spec *spec = NULL;
    CHECK(kt_spec_load(kt_test_path(SPEC), NULL, NULL, &spec, &d) == KT_OK);
    uint16_t def[8];
    for (size_t p = 0; p < spec->nparams; p++)
        def[p] = (uint16_t)spec->params[p].default_index;
    char *key = kt_spec_config_key(spec, def);
    CHECK_STR(c.config, key);
    free(key);
    kt_spec_free(spec);
    ktune_selector_close(sel);
    /* no database at all: the same */
    sel = open_sel(NULL, NULL, 0);
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256,K=256", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DEFAULT);
    ktune_selector_close(sel);
}

static void test_kernel_by_name_reads_its_stored_keys(void)
{
    ktune_selector *sel = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_selector_open(tuned_db(), "gemm", DEVICE, NULL, NULL, &sel, &d),
                 KTUNE_OK);
    CHECK_EQ_INT(ktune_selector_nproblem(sel), 3);
    ktune_choice c;
    CHECK_EQ_INT(ktune_select(sel, "M=512,N=512,K=512", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DATABASE);
    CHECK_STR(c.config, FAST);
    CHECK_EQ_INT(ktune_select(sel, "M=512,N=512,K=500", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST);
    ktune_selector_close(sel);
    /* the device given by its fingerprint is the same device */
    CHECK_EQ_INT(ktune_selector_open(tuned_db(), "gemm", "test|cpu", NULL, NULL, &sel,
                                     &d), KTUNE_OK);
    CHECK_EQ_INT(ktune_selector_size(sel), 4);
    ktune_selector_close(sel);
}

/* A problem measured by two versions of the kernel (two source hashes): a
 * selector by the kernel's name answers with the faster row, whichever
 * came first, and a nearest answer still names its problem. */
static void test_two_versions_of_a_problem_give_the_faster(void)
{
    const char *path = kt_test_tmp("v.db");
    kt_db *db = NULL;
    kt_diag kd = {{0}};
    CHECK(kt_db_open(path, &db, &kd) == KT_OK);
    put_kernel(db, "gemm", "v1", "M=64,N=64,K=64", SLOW, 3.0);
    put_kernel(db, "gemm", "v2", "M=64,N=64,K=64", FAST, 2.0);
    put_kernel(db, "gemm", "v1", "M=96,N=96,K=96", FASTER, 1.0);
    put_kernel(db, "gemm", "v2", "M=96,N=96,K=96", SLOW, 4.0);
    kt_db_close(db);
    ktune_selector *sel = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_selector_open(path, "gemm", DEVICE, NULL, NULL, &sel, &d), KTUNE_OK);
    CHECK_EQ_INT(ktune_selector_size(sel), 2);
    ktune_choice c;
    CHECK_EQ_INT(ktune_select(sel, "M=64,N=64,K=64", &c, &d), KTUNE_OK);
    CHECK(c.source == KTUNE_FROM_DATABASE && strcmp(c.config, FAST) == 0);
    CHECK_NEAR(c.time_ms, 2.0, 0);
    CHECK_EQ_INT(ktune_select(sel, "M=96,N=96,K=96", &c, &d), KTUNE_OK);
    CHECK(c.source == KTUNE_FROM_DATABASE && strcmp(c.config, FASTER) == 0);
    CHECK_EQ_INT(ktune_select(sel, "M=90,N=96,K=96", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST);
    CHECK(strcmp(c.from, "M=96,N=96,K=96") == 0 && strcmp(c.config, FASTER) == 0);
    ktune_selector_close(sel);
}

static void test_text_values_must_match_to_be_near(void)
{
    const char *path = kt_test_tmp("conv.db");
    kt_db *db = NULL;
    kt_diag d = {{0}};
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    put_kernel(db, "conv", "h", "dtype=FP32,n=64", "tile=8,mode=fast", 1.0);
    put_kernel(db, "conv", "h", "dtype=FP16,n=64", "tile=16,mode=slow", 1.0);
    kt_db_close(db);
    ktune_selector *sel = NULL;
    CHECK_EQ_INT(ktune_selector_open(path, "conv", DEVICE, NULL, NULL, &sel, &d), KTUNE_OK);
    ktune_choice c;
    CHECK_EQ_INT(ktune_select(sel, "n=64,dtype=FP16", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_DATABASE);
    CHECK_STR(c.config, "tile=16,mode=slow");
    CHECK_EQ_INT(c.nparams, 2);
    CHECK_NEAR(c.values[0], 16, 0);
    CHECK(isnan(c.values[1])); /* text */
    CHECK_EQ_INT(ktune_select(sel, "dtype=FP16,n=70", &c, &d), KTUNE_OK);
    CHECK_EQ_INT(c.source, KTUNE_FROM_NEAREST);
    CHECK_STR(c.from, "dtype=FP16,n=64");
    /* another data type is near nothing, and a name has no default */
    CHECK_EQ_INT(ktune_select(sel, "dtype=BF16,n=64", &c, &d), KTUNE_ENOTFOUND);
    CHECK(strstr(d.msg, "no tuned problem, no model and no default") != NULL);
    int64_t v[2];
    CHECK_EQ_INT(ktune_selector_problem(sel, "dtype=FP32,n=64", v, 2, &d), KTUNE_OK);
    CHECK(v[1] == 64 && v[0] < -(INT64_C(1) << 62));
    CHECK_EQ_INT(ktune_select_values(sel, v, 2, &c, &d), KTUNE_OK);
    CHECK_STR(c.config, "tile=8,mode=fast");
    ktune_selector_close(sel);
}

static void test_own_device_is_this_machine(void)
{
    ktune_selector_opts o;
    ktune_selector_opts_init(&o);
    o.cache_dir = kt_test_tmp("cache");
    ktune_selector *sel = NULL;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_selector_open(tuned_db(), kt_test_path(SPEC), NULL, NULL, &o,
                                     &sel, &d), KTUNE_OK);
    CHECK_EQ_INT(ktune_selector_size(sel), 0); /* the rows are the test device's */
    ktune_selector_close(sel);
}

/* ------------------------------------------------------------ threads */

typedef struct shared {
    ktune_selector *sel;
    const char *db;
    atomic_bool stop;
    atomic_int saw_new, errors;
} shared;

static void *reader(void *arg)
{
    shared *s = arg;
    const int64_t v[3] = {256, 256, 256}, far[3] = {640, 640, 640};
    ktune_choice c;
    while (!atomic_load(&s->stop)) {
        if (ktune_select_values(s->sel, v, 3, &c, NULL) != KTUNE_OK ||
            c.source != KTUNE_FROM_DATABASE ||
            (strcmp(c.config, FAST) != 0 && strcmp(c.config, FASTER) != 0))
            atomic_fetch_add(&s->errors, 1);
        if (strcmp(c.config, FASTER) == 0)
            atomic_store(&s->saw_new, 1);
        if (ktune_select_values(s->sel, far, 3, &c, NULL) != KTUNE_OK ||
            c.source != KTUNE_FROM_NEAREST)
            atomic_fetch_add(&s->errors, 1);
    }
    return NULL;
}

static void *writer(void *arg)
{
    shared *s = arg;
    kt_db *db = NULL;
    kt_diag d = {{0}};
    for (int i = 0; i < 20; i++) { /* other problems change too */
        CHECK(kt_db_open(s->db, &db, &d) == KT_OK);
        char key[64];
        snprintf(key, sizeof key, "M=%d,N=64,K=64", 64 + i);
        put(db, key, SLOW, 1.0);
        kt_db_close(db);
        usleep(2000);
    }
    CHECK(kt_db_open(s->db, &db, &d) == KT_OK);
    put(db, "M=256,N=256,K=256", FASTER, 0.5);
    kt_db_close(db);
    return NULL;
}

static void test_lookups_go_on_while_the_database_changes(void)
{
    shared s = {.db = tuned_db()};
    s.sel = open_sel(s.db, NULL, 1);
    pthread_t r[4], w;
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&r[i], NULL, reader, &s) == 0);
    CHECK(pthread_create(&w, NULL, writer, &s) == 0);
    pthread_join(w, NULL);
    for (int ms = 0; ms < 5000 && !atomic_load(&s.saw_new); ms += 5)
        usleep(5000);
    atomic_store(&s.stop, true);
    for (int i = 0; i < 4; i++)
        pthread_join(r[i], NULL);
    CHECK_EQ_INT(atomic_load(&s.errors), 0);
    CHECK(atomic_load(&s.saw_new)); /* the automatic refresh found it */
    CHECK_EQ_INT(ktune_selector_size(s.sel), 24);
    ktune_selector_close(s.sel);
}

static void test_explicit_refresh_sees_a_better_row(void)
{
    const char *path = tuned_db();
    ktune_selector *sel = open_sel(path, NULL, 0);
    ktune_choice c;
    ktune_diag d = {{0}};
    bool changed = true;
    CHECK_EQ_INT(ktune_selector_refresh(sel, &changed, &d), KTUNE_OK);
    CHECK(!changed);
    kt_db *db = NULL;
    CHECK(kt_db_open(path, &db, &d) == KT_OK);
    put(db, "M=256,N=256,K=256", FASTER, 0.5);
    kt_db_close(db);
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256,K=256", &c, &d), KTUNE_OK);
    CHECK_STR(c.config, FAST); /* refresh_ms 0: not yet */
    CHECK_EQ_INT(ktune_selector_refresh(sel, &changed, &d), KTUNE_OK);
    CHECK(changed);
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256,K=256", &c, &d), KTUNE_OK);
    CHECK_STR(c.config, FASTER);
    CHECK_NEAR(c.time_ms, 0.5, 1e-12);
    ktune_selector_close(sel);
}

/* ---------------------------------------------------------- bad input */

static void expect_open_error(const char *db, const char *kernel, const char *device,
                              const char *model, int code, const char *pattern)
{
    ktune_selector *sel = (ktune_selector *)1;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_selector_open(db, kernel, device, model, NULL, &sel, &d), code);
    CHECK(sel == NULL);
    if (!strstr(d.msg, pattern))
        fprintf(stderr, "message: %s\n", d.msg);
    CHECK(strstr(d.msg, pattern) != NULL);
}

static void test_bad_input_is_a_clear_error(void)
{
    const char *db = tuned_db();
    expect_open_error(db, NULL, DEVICE, NULL, KTUNE_EINVAL, "NULL kernel");
    expect_open_error(db, "nosuchkernel", DEVICE, NULL, KTUNE_EINVAL, "no stored row");
    expect_open_error(db, "gemm", NULL, NULL, KTUNE_EINVAL, "name its device");
    expect_open_error(kt_test_tmp("none.db"), "gemm", DEVICE, NULL, KTUNE_EIO, "none.db");
    expect_open_error(db, kt_test_path("kernels/none.json"), DEVICE, NULL, KTUNE_EIO,
                      "none.json");
    expect_open_error(db, kt_test_path(SPEC), DEVICE, kt_test_tmp("none.ktm"),
                      KTUNE_EIO, "none.ktm");
    /* a ktune database of a newer schema */
    const char *newer = kt_test_tmp("newer.db");
    sqlite3 *c;
    CHECK(sqlite3_open(newer, &c) == SQLITE_OK);
    CHECK(sqlite3_exec(c, "PRAGMA application_id = 1802794350; PRAGMA user_version = 99;"
                       "CREATE TABLE x(y);", NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(c);
    expect_open_error(newer, kt_test_path(SPEC), DEVICE, NULL, KTUNE_EFORMAT, "newer.db");

    ktune_selector *sel = open_sel(db, NULL, 0);
    ktune_choice ch;
    ktune_diag d = {{0}};
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256", &ch, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "'K' is missing") != NULL);
    CHECK_EQ_INT(ktune_select(sel, "M=256,N=256,K=256,Q=1", &ch, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "'Q' is not a problem parameter") != NULL);
    CHECK_EQ_INT(ktune_select(sel, "M=256,M=256,N=256,K=256", &ch, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "given twice") != NULL);
    CHECK_EQ_INT(ktune_select(sel, "M=256,N,K=256", &ch, &d), KTUNE_EINVAL);
    CHECK_EQ_INT(ktune_select(sel, NULL, &ch, &d), KTUNE_EINVAL);
    CHECK_EQ_INT(ktune_select(NULL, "M=1,N=1,K=1", &ch, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "NULL selector") != NULL);
    int64_t v[3] = {1, 1, 1};
    CHECK_EQ_INT(ktune_select_values(sel, v, 2, &ch, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "3 problem parameters, not 2") != NULL);
    CHECK_EQ_INT(ktune_select_values(sel, v, 3, NULL, &d), KTUNE_EINVAL);
    CHECK_EQ_INT(ktune_selector_refresh(NULL, NULL, &d), KTUNE_EINVAL);
    ktune_selector_opts o = {.size = 3};
    ktune_selector *none = NULL;
    CHECK_EQ_INT(ktune_selector_open(db, "gemm", DEVICE, NULL, &o, &none, &d),
                 KTUNE_EINVAL);
    CHECK(strstr(d.msg, "ktune_selector_opts_init") != NULL);
    CHECK_EQ_INT(ktune_selector_size(NULL), 0);
    CHECK(ktune_selector_problem_name(sel, 3) == NULL);
    CHECK_STR(ktune_source_name((ktune_source)0), "unknown");
    ktune_selector_close(sel);
    ktune_selector_close(NULL);
}

static const kt_test TESTS[] = {
    KT_T(test_exact_hit_is_the_stored_best),
    KT_T(test_open_from_a_loaded_spec),
    KT_T(test_unseen_shape_gets_the_nearest),
    KT_T(test_far_shape_goes_to_the_model),
    KT_T(test_empty_database_gives_the_default),
    KT_T(test_kernel_by_name_reads_its_stored_keys),
    KT_T(test_two_versions_of_a_problem_give_the_faster),
    KT_T(test_text_values_must_match_to_be_near),
    KT_T(test_own_device_is_this_machine),
    KT_T(test_lookups_go_on_while_the_database_changes),
    KT_T(test_explicit_refresh_sees_a_better_row),
    KT_T(test_bad_input_is_a_clear_error),
};

KT_TEST_MAIN(TESTS)
