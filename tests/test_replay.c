/* test_replay.c - tuning runs answered from a recording: the results are
 * the recorded ones, nothing is measured or stored, a gap in the recording
 * or an ambiguous one is a clear error, and replays are fast.
 *
 * The recordings are synthetic: every valid configuration of the CPU
 * SGEMM spec at M=N=K=256 (480) gets a time derived from a hash of its
 * key, and one in 17 a compile error, written through the database API
 * exactly as a brute-force run would store them. */
#include "core/space.h"
#include "core/util.h"
#include "search/strategy.h"
#include "store/replay.h"
#include "tune/tuner.h"
#include "test.h"

#define PROBLEM "M=256,N=256,K=256"

static kt_spec *load_gemm(void)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    if (kt_spec_load(kt_test_path("kernels/gemm/gemm-c.json"), NULL, NULL, &spec,
                     &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    return spec;
}

static const char *temp_path(const char *name)
{
    static char path[256];
    snprintf(path, sizeof path, "%s", kt_test_tmp(name));
    return path;
}

/* The synthetic result of a configuration key. */
static kt_result synthetic(const char *key)
{
    uint64_t h = kt_hash_str(KT_HASH_INIT, key);
    kt_result r = {.status = KT_STATUS_OK, .time_ms = 1 + (double)(h % 100000) / 1000,
                   .min_ms = NAN, .spread = 0.01, .reps = 5, .energy_j = NAN,
                   .power_w = NAN, .max_error = 0};
    if (h % 17 == 0) {
        r = (kt_result){.status = KT_STATUS_COMPILE_ERROR, .time_ms = NAN};
        snprintf(r.detail, sizeof r.detail, "synthetic compile error");
    }
    return r;
}

/* The database ids of device (a name), kernel (name, hash) and problem. */
static void keys(kt_db *db, const char *name, const char *hash, const char *device,
                 const char *problem, int64_t *dev_id, int64_t *kernel, int64_t *prob)
{
    kt_diag d = {{0}};
    kt_device_info dev = {0};
    snprintf(dev.name, sizeof dev.name, "%s", device);
    snprintf(dev.backend, sizeof dev.backend, "cpu");
    snprintf(dev.fingerprint, sizeof dev.fingerprint, "test|%s", device);
    CHECK(kt_db_device(db, &dev, dev_id, &d) == KT_OK);
    CHECK(kt_db_kernel(db, name, hash, kernel, &d) == KT_OK);
    CHECK(kt_db_problem(db, *kernel, problem, prob, &d) == KT_OK);
}

/* Every valid configuration of the spec at PROBLEM but skip (a key, or
 * NULL), recorded in db as device and kernel source hash. */
static void record(const char *db_path, const kt_spec *spec, const char *device,
                   const char *hash, const char *skip)
{
    kt_diag d = {{0}};
    kt_problem prob;
    kt_space *space;
    kt_db *db;
    CHECK(kt_problem_parse(spec, PROBLEM, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1u << 20, &d) == KT_OK);
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    int64_t dev_id, kernel, problem;
    keys(db, spec->name, hash, device, prob.key, &dev_id, &kernel, &problem);
    CHECK(kt_db_begin(db, &d) == KT_OK);
    for (uint64_t i = 0; i < kt_space_size(space); i++) {
        char *key = kt_spec_config_key(spec, kt_space_at(space, i));
        kt_result r = synthetic(key);
        if (!skip || strcmp(key, skip) != 0)
            CHECK(kt_db_record(db, dev_id, kernel, problem, key, &r, &d) == KT_OK);
        free(key);
    }
    CHECK(kt_db_commit(db, &d) == KT_OK);
    kt_db_close(db);
    kt_space_free(space);
    kt_problem_clear(&prob);
}

static int load(const char *db_path, const kt_spec *spec, const char *device,
                kt_replay **out, kt_diag *d)
{
    kt_db *db;
    CHECK(kt_db_open(db_path, &db, d) == KT_OK);
    int rc = kt_replay_load(db, db_path, spec->name, spec->source_hash, PROBLEM,
                            device, out, d);
    kt_db_close(db);
    return rc;
}

/* Options for a replayed run; the results database must stay untouched. */
static kt_tune_opts replay_opts(const kt_replay *rp, const char *strategy)
{
    kt_tune_opts o = kt_tune_defaults();
    o.problem = PROBLEM;
    o.strategy = strategy;
    o.replay = rp;
    o.db_path = temp_path("never-written.db");
    return o;
}

/* A spec, its synthetic recording (lacking the configuration gap when
 * not NULL) and the replay loaded from it. */
typedef struct fixture {
    kt_spec *spec;
    const char *db;
    kt_replay *rp;
} fixture;

static fixture fixture_new(const char *gap)
{
    fixture f = {.spec = load_gemm(), .db = temp_path("rec.db")};
    kt_diag d = {{0}};
    unlink(f.db);
    record(f.db, f.spec, "Test CPU", f.spec->source_hash, gap);
    CHECK(load(f.db, f.spec, NULL, &f.rp, &d) == KT_OK);
    return f;
}

static void fixture_free(fixture *f)
{
    kt_replay_free(f->rp);
    kt_spec_free(f->spec);
    unlink(f->db);
}

/* The best ok configuration of the synthetic recording. */
static double recorded_best(const kt_replay *rp, const kt_spec *spec, char **best_key)
{
    kt_diag d = {{0}};
    kt_problem prob;
    kt_space *space;
    CHECK(kt_problem_parse(spec, PROBLEM, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1u << 20, &d) == KT_OK);
    double best = INFINITY;
    for (uint64_t i = 0; i < kt_space_size(space); i++) {
        char *key = kt_spec_config_key(spec, kt_space_at(space, i));
        kt_result r;
        CHECK(kt_replay_find(rp, key, &r));
        if (r.status == KT_STATUS_OK && r.time_ms < best) {
            best = r.time_ms;
            free(*best_key);
            *best_key = kt_strdup(key);
        }
        free(key);
    }
    kt_space_free(space);
    kt_problem_clear(&prob);
    return best;
}

static void test_brute_force_replay_gives_the_recorded_results(void)
{
    fixture f = fixture_new(NULL);
    CHECK_EQ_INT(kt_replay_size(f.rp), 480);
    kt_tune_opts o = replay_opts(f.rp, "brute_force");
    unlink(o.db_path);
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.space_size, 480);
    CHECK_EQ_INT(rep.measured, 480);
    CHECK_EQ_INT(rep.cached, 0);
    CHECK_STR(rep.device, "Test CPU");
    CHECK(rep.by_status[KT_STATUS_COMPILE_ERROR] > 0);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK] + rep.by_status[KT_STATUS_COMPILE_ERROR], 480);
    char *best_key = NULL;
    double best = recorded_best(f.rp, f.spec, &best_key);
    CHECK_STR(rep.best_config, best_key);
    CHECK(rep.best.time_ms == best);
    kt_result def = synthetic(rep.default_config);
    CHECK(rep.default_result.status == def.status);
    CHECK(access(o.db_path, F_OK) != 0); /* nothing stored anywhere */
    free(best_key);
    kt_tune_report_clear(&rep);
    fixture_free(&f);
}

/* Every registered strategy, replayed: it spends exactly its budget on
 * configurations the recording holds (a proposal outside the valid space
 * would be missing from it, an error), and a seed repeats its run. */
static void test_every_strategy_replays_within_budget_and_by_seed(void)
{
    fixture f = fixture_new(NULL);
    kt_diag d = {{0}};
    for (size_t i = 0; i < kt_strategy_count(); i++) {
        kt_tune_opts o = replay_opts(f.rp, kt_strategy_at(i)->name);
        o.budget = (kt_budget){KT_BUDGET_COUNT, 25};
        o.seed = 7;
        kt_tune_report a, b;
        CHECK(kt_tune(f.spec, &o, &a, &d) == KT_OK);
        CHECK(kt_tune(f.spec, &o, &b, &d) == KT_OK);
        CHECK_EQ_INT(a.measured, 25);
        CHECK_EQ_INT(b.measured, 25);
        CHECK_STR(a.best_config, b.best_config);
        kt_tune_report_clear(&a);
        kt_tune_report_clear(&b);
    }
    fixture_free(&f);
}

static void test_replay_honours_budget_and_seed(void)
{
    fixture f = fixture_new(NULL);
    kt_tune_opts o = replay_opts(f.rp, "random");
    o.budget = (kt_budget){KT_BUDGET_COUNT, 25};
    kt_diag d = {{0}};
    char *first[2] = {NULL, NULL};
    for (int seed = 0; seed < 2; seed++) {
        kt_tune_report a;
        o.seed = (uint64_t)seed + 7;
        CHECK(kt_tune(f.spec, &o, &a, &d) == KT_OK);
        first[seed] = kt_strdup(a.best_config);
        kt_tune_report_clear(&a);
    }
    /* two seeds draw different samples: with 480 configurations the same
     * best of 25 draws is possible but this pair differs */
    CHECK(strcmp(first[0], first[1]) != 0);
    free(first[0]);
    free(first[1]);
    o.budget = (kt_budget){KT_BUDGET_SECONDS, 1};
    kt_tune_report rep;
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "no clock") != NULL);
    kt_tune_report_clear(&rep);
    fixture_free(&f);
}

static void test_a_configuration_missing_from_the_recording_is_an_error(void)
{
    const char *gap = "MR=8,NR=32,VEC=16,MC=96,KC=256,NC=768,UNROLL=4,THREADS=2";
    fixture f = fixture_new(gap);
    CHECK_EQ_INT(kt_replay_size(f.rp), 479);
    kt_tune_opts o = replay_opts(f.rp, "brute_force");
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_ENOTFOUND);
    CHECK(strstr(d.msg, gap) != NULL);
    CHECK(strstr(d.msg, "not in the recording") != NULL);
    kt_tune_report_clear(&rep);
    fixture_free(&f);
}

static void test_ambiguous_or_absent_recordings_are_refused(void)
{
    kt_spec *spec = load_gemm();
    const char *db = temp_path("rec.db");
    kt_replay *rp = NULL;
    kt_diag d = {{0}};
    unlink(db);
    record(db, spec, "Test CPU", "another-source", NULL);
    CHECK(load(db, spec, NULL, &rp, &d) == KT_ENOTFOUND);
    CHECK(strstr(d.msg, "another source") != NULL);
    record(db, spec, "Test CPU", spec->source_hash, NULL);
    record(db, spec, "Other CPU", spec->source_hash, NULL);
    CHECK(load(db, spec, NULL, &rp, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "several devices") != NULL);
    CHECK(load(db, spec, "Other CPU", &rp, &d) == KT_OK);
    CHECK_STR(kt_replay_device(rp), "Other CPU");
    CHECK_EQ_INT(kt_replay_size(rp), 480);
    kt_replay_free(rp);
    CHECK(load(db, spec, "No CPU", &rp, &d) == KT_ENOTFOUND);
    CHECK(strstr(d.msg, "no recording") != NULL);
    kt_spec_free(spec);
    unlink(db);
}

/* The configurations evaluated, in order, as keys joined by ';'. */
static void on_progress(void *user, const kt_progress *p)
{
    kt_buf_appendf(user, "%s;", p->config);
}

/* Three valid configurations, far apart in enumeration order, and their
 * keys joined as on_progress joins them. */
static void pick_three(const fixture *f, uint16_t *cfgs, kt_buf *keys)
{
    kt_diag d = {{0}};
    kt_problem prob;
    kt_space *space;
    CHECK(kt_problem_parse(f->spec, PROBLEM, &prob, &d) == KT_OK);
    CHECK(kt_space_new(f->spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1u << 20, &d) == KT_OK);
    size_t np = f->spec->nparams;
    for (int i = 0; i < 3; i++) {
        const uint16_t *c = kt_space_at(space, (uint64_t)(400 - 150 * i));
        memcpy(cfgs + (size_t)i * np, c, np * sizeof *cfgs);
        char *key = kt_spec_config_key(f->spec, c);
        kt_buf_appendf(keys, "%s;", key);
        free(key);
    }
    kt_space_free(space);
    kt_problem_clear(&prob);
}

static void test_start_configurations_go_first(void)
{
    fixture f = fixture_new(NULL);
    uint16_t cfgs[3 * 8];
    kt_buf want = {0}, got = {0};
    pick_three(&f, cfgs, &want);
    kt_tune_opts o = replay_opts(f.rp, "brute_force");
    o.start = cfgs;
    o.nstart = 3;
    o.start_only = true;
    o.progress = on_progress;
    o.progress_user = &got;
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 3); /* only those: no default, no strategy */
    CHECK(rep.default_skipped);
    CHECK_STR(got.data, want.data);
    kt_tune_report_clear(&rep);
    /* with a strategy: the default, the three, then the strategy's */
    o.start_only = false;
    o.budget = (kt_budget){KT_BUDGET_COUNT, 10};
    free(kt_buf_take(&got));
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 10);
    CHECK(!rep.default_skipped);
    char *first = kt_strdup(got.data);
    CHECK(strncmp(first, rep.default_config, strlen(rep.default_config)) == 0);
    CHECK(strncmp(first + strlen(rep.default_config) + 1, want.data, strlen(want.data)) == 0);
    free(first);
    free(kt_buf_take(&got));
    free(kt_buf_take(&want));
    kt_tune_report_clear(&rep);
    fixture_free(&f);
}

/* One result of configuration key at problem on device, of time ms. */
static void record_one(const char *db_path, const kt_spec *spec, const char *device,
                       const char *problem, const char *key, double ms)
{
    kt_diag d = {{0}};
    kt_db *db;
    CHECK(kt_db_open(db_path, &db, &d) == KT_OK);
    int64_t dev_id, kernel, prob;
    keys(db, spec->name, spec->source_hash, device, problem, &dev_id, &kernel, &prob);
    kt_result r = {.status = KT_STATUS_OK, .time_ms = ms, .min_ms = ms, .spread = 0.01,
                   .reps = 5, .energy_j = NAN, .power_w = NAN};
    CHECK(kt_db_record(db, dev_id, kernel, prob, key, &r, &d) == KT_OK);
    kt_db_close(db);
}

/* A warm start: after the default, the winners of the nearest other
 * problems on the same device, skipping one the problem's conditions
 * reject; none for brute_force or with warm = 0. */
static void test_warm_start_tries_the_nearest_problems_winners_first(void)
{
    fixture f = fixture_new(NULL);
    uint16_t cfgs[3 * 8];
    kt_buf picked = {0}, got = {0};
    pick_three(&f, cfgs, &picked);
    char *key[3];
    for (int i = 0; i < 3; i++)
        key[i] = kt_spec_config_key(f.spec, cfgs + i * f.spec->nparams);
    record_one(f.db, f.spec, "Test CPU", "M=256,N=256,K=200", key[0], 0.5);
    record_one(f.db, f.spec, "Test CPU", "M=256,N=256,K=200", key[1], 0.9);
    record_one(f.db, f.spec, "Test CPU", "M=256,N=256,K=512",
               "MR=4,NR=16,VEC=8,MC=48,KC=384,NC=768,UNROLL=1,THREADS=1", 0.4);
    record_one(f.db, f.spec, "Test CPU", "M=64,N=64,K=64", key[2], 0.1);
    record_one(f.db, f.spec, "Other CPU", "M=256,N=256,K=255", key[1], 0.1);
    kt_replay_free(f.rp);
    kt_diag d = {{0}};
    CHECK(load(f.db, f.spec, "Test CPU", &f.rp, &d) == KT_OK);
    kt_tune_opts o = replay_opts(f.rp, "random");
    o.budget = (kt_budget){KT_BUDGET_COUNT, 12};
    o.warm = 4;
    o.progress = on_progress;
    o.progress_user = &got;
    kt_tune_report rep;
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.warm_starts, 2);
    kt_buf want = {0};
    kt_buf_appendf(&want, "%s;%s;%s;", rep.default_config, key[0], key[2]);
    CHECK(strncmp(got.data, want.data, want.len) == 0);
    kt_tune_report_clear(&rep);
    o.warm = 1; /* the nearest only */
    free(kt_buf_take(&got));
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.warm_starts, 1);
    kt_tune_report_clear(&rep);
    o.warm = 0;
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.warm_starts, 0);
    kt_tune_report_clear(&rep);
    o = replay_opts(f.rp, "brute_force");
    o.budget = (kt_budget){KT_BUDGET_COUNT, 12};
    CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.warm_starts, 0);
    kt_tune_report_clear(&rep);
    for (int i = 0; i < 3; i++)
        free(key[i]);
    free(kt_buf_take(&got));
    free(kt_buf_take(&want));
    free(kt_buf_take(&picked));
    fixture_free(&f);
}

/* Strategy benchmarks replay thousands of runs; each must cost well under
 * a millisecond (a generous bound: the sanitised build is slower too). */
static void test_thousands_of_replays_take_seconds(void)
{
    fixture f = fixture_new(NULL);
    kt_tune_opts o = replay_opts(f.rp, "random");
    o.budget = (kt_budget){KT_BUDGET_FRACTION, 0.1};
    kt_diag d = {{0}};
    double t0 = kt_now();
    for (int i = 0; i < 2000; i++) {
        kt_tune_report rep;
        o.seed = (uint64_t)i;
        CHECK(kt_tune(f.spec, &o, &rep, &d) == KT_OK);
        CHECK_EQ_INT(rep.measured, 48);
        kt_tune_report_clear(&rep);
    }
    double s = kt_now() - t0;
    printf("  2000 replayed runs of 48 evaluations in %.2f s\n", s);
    CHECK(s < 30);
    fixture_free(&f);
}

static const kt_test TESTS[] = {
    KT_T(test_brute_force_replay_gives_the_recorded_results),
    KT_T(test_every_strategy_replays_within_budget_and_by_seed),
    KT_T(test_replay_honours_budget_and_seed),
    KT_T(test_a_configuration_missing_from_the_recording_is_an_error),
    KT_T(test_ambiguous_or_absent_recordings_are_refused),
    KT_T(test_start_configurations_go_first),
    KT_T(test_warm_start_tries_the_nearest_problems_winners_first),
    KT_T(test_thousands_of_replays_take_seconds),
};

KT_TEST_MAIN(TESTS)
