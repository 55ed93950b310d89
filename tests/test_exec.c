/* test_exec.c - the local executor (tune/exec.h) with several workers: every
 * configuration of a batch comes back once, in the order the workers finish
 * (a hanging configuration does not hold up the others), compile errors
 * come back as results, and end() in the middle of a batch stops it and
 * leaves the executor ready for the next; the public options refuse a
 * device listed twice.  The backend is a stand-in: the
 * C backend whose builds are handed out one by one, last first, like a
 * streaming GPU backend's; the workers run the real C backend. */
#include "core/space.h"
#include "core/util.h"
#include "tune/exec.h"
#include "test.h"

#include <math.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------- the stand-in backend */

typedef struct fake_job {
    kt_build *builds;
    size_t n, given;
} fake_job;

static int fake_start(void *ctx, const uint16_t *const *cfgs, size_t n, void **job,
                      kt_diag *diag)
{
    fake_job *j = calloc(1, sizeof *j);
    j->builds = calloc(n + 1, sizeof *j->builds);
    j->n = n;
    *job = j;
    return kt_backend_find("cpu")->compile(ctx, cfgs, n, j->builds, diag);
}

/* The builds last first, so the order of results is not the order given. */
static int fake_next(void *job, size_t *index, kt_build *b, kt_diag *diag)
{
    (void)diag;
    fake_job *j = job;
    if (j->given == j->n)
        return KT_EDONE;
    *index = j->n - 1 - j->given++;
    *b = j->builds[*index];
    j->builds[*index].artifact = NULL;
    return KT_OK;
}

static void fake_end(void *job)
{
    fake_job *j = job;
    kt_builds_clear(j->builds, j->n);
    free(j->builds);
    free(j);
}

/* ------------------------------------------------------------ fixture */

typedef struct fixture {
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
    uint16_t reference[2]; /* the default configuration */
    kt_backend be;
    void *ctx;
    kt_backend_opts bo;
    kt_measure_opts mo;
    kt_exec exec;
    char cache[256];
} fixture;

static const int DEVICES[] = {0, 1};

/* The faulty kernel (tests/kernels/faulty.c) with two workers; streamed:
 * the stand-in hands builds out one by one. */
static void setup(fixture *f, bool streamed)
{
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/kernels/faulty.json"), NULL, NULL, &f->spec,
                       &d) == KT_OK);
    CHECK(kt_problem_parse(f->spec, "N=5000", &f->prob, &d) == KT_OK);
    CHECK(kt_space_new(f->spec, &f->prob, &f->space, &d) == KT_OK);
    CHECK(kt_space_build(f->space, 1000, &d) == KT_OK);
    f->be = *kt_backend_find("cpu");
    if (streamed) {
        f->be.compile_start = fake_start;
        f->be.compile_next = fake_next;
        f->be.compile_end = fake_end;
    }
    snprintf(f->cache, sizeof f->cache, "%s", kt_test_tmp("cache"));
    f->bo = (kt_backend_opts){.cache_dir = f->cache, .jobs = 2};
    CHECK(f->be.open(f->spec, &f->bo, &f->ctx, &d) == KT_OK);
    f->mo = kt_measure_defaults();
    f->mo.min_time_s = 0.01;
    /* a hang's timeout: long enough that the other worker, started with
     * it, measures a correct build first even on a loaded host (at 1 s a
     * make check beside a tuning run once saw the hang's result first) */
    f->mo.timeout_s = 2;
    kt_space_default(f->space, f->reference);
    kt_exec_env env = {.spec = f->spec, .prob = &f->prob, .reference = f->reference,
                       .be = &f->be, .be_ctx = f->ctx, .be_opts = &f->bo,
                       .measure = &f->mo, .devices = DEVICES, .ndevices = 2};
    CHECK(kt_exec_local_open(NULL, &env, &f->exec, &d) == KT_OK);
}

static void teardown(fixture *f)
{
    kt_exec_close(&f->exec);
    f->be.close(f->ctx);
    kt_space_free(f->space);
    kt_problem_clear(&f->prob);
    kt_spec_free(f->spec);
}

/* MODE and VARIANT as value indices (their values are 0..8 and 1, 2). */
static void set(uint16_t *cfg, int mode, int variant)
{
    cfg[0] = (uint16_t)mode;
    cfg[1] = (uint16_t)(variant - 1);
}

/* Take every result of the batch: their indices in order into order[],
 * their statuses by index into status[]; returns how many came. */
static size_t drain(fixture *f, size_t n, size_t *order, kt_status *status)
{
    size_t got = 0, i;
    kt_result res;
    kt_diag d = {{0}};
    int rc;
    while ((rc = kt_exec_next(&f->exec, &i, &res, &d)) == KT_OK) {
        CHECK(i < n && got < n);
        if (i >= n || got >= n)
            break;
        order[got++] = i;
        status[i] = res.status;
    }
    CHECK_EQ_INT(rc, KT_EDONE);
    return got;
}

/* ------------------------------------------------------------- tests */

static void every_result_once_in_completion_order(bool streamed)
{
    fixture f;
    setup(&f, streamed);
    /* hang, correct, wrong, does not compile, correct, crash */
    static const int MODES[][2] = {{2, 1}, {0, 1}, {3, 1}, {4, 1}, {0, 2}, {1, 2}};
    enum { N = 6 };
    uint16_t cfgs[N][2];
    const uint16_t *list[N];
    for (int i = 0; i < N; i++) {
        set(cfgs[i], MODES[i][0], MODES[i][1]);
        list[i] = cfgs[i];
    }
    kt_diag d = {{0}};
    CHECK(kt_exec_start(&f.exec, list, N, &d) == KT_OK);
    size_t order[N];
    kt_status status[N];
    CHECK_EQ_INT(drain(&f, N, order, status), N);
    kt_exec_end(&f.exec);
    bool seen[N] = {0};
    for (int k = 0; k < N; k++) {
        CHECK(!seen[order[k]]);
        seen[order[k]] = true;
    }
    /* The hang holds one worker for its timeout while the other measures
     * the rest: it is not among the first results. */
    CHECK(order[0] != 0 && order[1] != 0);
    CHECK(status[0] == KT_STATUS_TIMEOUT);
    CHECK(status[1] == KT_STATUS_OK && status[4] == KT_STATUS_OK);
    CHECK(status[2] == KT_STATUS_WRONG_RESULT);
    CHECK(status[3] == KT_STATUS_COMPILE_ERROR);
    CHECK(status[5] == KT_STATUS_CRASH);
    kt_exec_stats st = {0};
    kt_exec_stats_add(&f.exec, &st);
    CHECK(st.measure_s > 0 && st.start_s > 0 && st.phase_s[KT_PHASE_time] > 0);
    teardown(&f);
}

static void test_streamed_builds_come_back_once_each_as_workers_finish(void)
{
    every_result_once_in_completion_order(true);
}

static void test_a_batch_compiled_whole_is_shared_by_the_workers(void)
{
    every_result_once_in_completion_order(false);
}

/* end() after the first result: the batch stops without waiting for the
 * rest (a batch of hangs would take 8 s in one worker), and the executor
 * takes the next batch. */
static void test_end_in_the_middle_of_a_batch_stops_it(void)
{
    fixture f;
    setup(&f, true);
    enum { N = 8 };
    uint16_t cfgs[N][2];
    const uint16_t *list[N];
    for (int i = 0; i < N; i++) {
        set(cfgs[i], i == N - 1 ? 0 : 2, 1 + i % 2);
        list[i] = cfgs[i];
    }
    kt_diag d = {{0}};
    size_t i;
    kt_result res;
    double t0 = kt_now();
    CHECK(kt_exec_start(&f.exec, list, N, &d) == KT_OK);
    CHECK(kt_exec_next(&f.exec, &i, &res, &d) == KT_OK);
    CHECK_EQ_INT(i, N - 1); /* the stand-in's first build, a correct one */
    CHECK(res.status == KT_STATUS_OK);
    kt_exec_end(&f.exec);
    /* at most the hangs under way when it stopped, one per worker */
    CHECK(kt_now() - t0 < 6);
    set(cfgs[0], 0, 2);
    CHECK(kt_exec_start(&f.exec, list, 1, &d) == KT_OK);
    CHECK(kt_exec_next(&f.exec, &i, &res, &d) == KT_OK);
    CHECK(i == 0 && res.status == KT_STATUS_OK);
    CHECK(kt_exec_next(&f.exec, &i, &res, &d) == KT_EDONE);
    kt_exec_end(&f.exec);
    teardown(&f);
}

/* The public options: a device listed twice, or a negative ordinal, is
 * refused before anything runs. */
static void test_a_device_listed_twice_is_refused(void)
{
    ktune_spec *spec;
    ktune_diag d = {{0}};
    CHECK(ktune_spec_load(kt_test_path("tests/kernels/faulty.json"), NULL, NULL, &spec,
                          &d) == KTUNE_OK);
    ktune_tune_opts o;
    ktune_tune_opts_init(&o);
    o.db_path = kt_test_tmp("twice.db");
    static const int TWICE[] = {0, 1, 0}, NEGATIVE[] = {-1};
    ktune_run *run = NULL;
    o.devices = TWICE;
    o.ndevices = 3;
    CHECK(ktune_tune(spec, &o, &run, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "device 0 is listed twice") != NULL);
    o.devices = NEGATIVE;
    o.ndevices = 1;
    CHECK(ktune_tune(spec, &o, &run, &d) == KTUNE_EINVAL);
    CHECK(strstr(d.msg, "device -1") != NULL);
    CHECK(access(o.db_path, F_OK) != 0); /* nothing opened */
    ktune_run_free(run);
    ktune_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_streamed_builds_come_back_once_each_as_workers_finish),
    KT_T(test_a_batch_compiled_whole_is_shared_by_the_workers),
    KT_T(test_end_in_the_middle_of_a_batch_stops_it),
    KT_T(test_a_device_listed_twice_is_refused),
};

KT_TEST_MAIN(TESTS)
