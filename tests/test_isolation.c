/* test_isolation.c - the measurement worker stays trustworthy whatever
 * happens around it: threads already running in the tuner (XGBoost's
 * OpenMP), kernels that hang (found within the derived deadline, without
 * a timeout option), kills from outside (measured again, not stored as a
 * crash), problems too big for memory (refused before allocating), stored
 * failures (measured again on request) and compiler files of killed runs
 * (swept). */
#include "core/util.h"
#include "ml/xgb.h"
#include "tune/tuner.h"
#include "test.h"

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/stat.h>

/* A private directory for one test's database and cache. */
static char g_dir[64];

static const char *scratch(const char *name)
{
    static char path[256];
    if (!g_dir[0]) {
        snprintf(g_dir, sizeof g_dir, "/tmp/ktune-test-isolation-XXXXXX");
        CHECK(mkdtemp(g_dir) != NULL);
    }
    snprintf(path, sizeof path, "%s/%s", g_dir, name);
    return path;
}

static void scratch_remove(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", g_dir);
    CHECK(system(cmd) == 0);
}

static kt_spec *load(const char *rel)
{
    kt_spec *spec;
    kt_diag d = {{0}};
    if (kt_spec_load(kt_test_path(rel), NULL, NULL, &spec, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    return spec;
}

/* The library's defaults: no timeout option. */
static kt_tune_opts defaults(void)
{
    kt_tune_opts o = kt_tune_defaults();
    o.db_path = kt_strdup(scratch("t.db"));
    o.backend.cache_dir = kt_strdup(scratch("cache"));
    o.measure.min_time_s = 0.01;
    return o;
}

/* The end of every test: free what defaults() and load() made, and the
 * private directory. */
static void finish(kt_spec *spec, kt_tune_opts *o)
{
    free((char *)o->db_path);
    free((char *)o->backend.cache_dir);
    kt_spec_free(spec);
    scratch_remove();
}

/* One run that must return rc and count n results of status st; returns
 * how many it measured (not answered from the database). */
static uint64_t tune_expect(const kt_spec *spec, const kt_tune_opts *o, int rc,
                            kt_status st, uint64_t n)
{
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK_EQ_INT(kt_tune(spec, o, &rep, &d), rc);
    CHECK_EQ_INT(rep.by_status[st], n);
    uint64_t measured = rep.measured;
    kt_tune_report_clear(&rep);
    return measured;
}

static void test_threads_in_the_tuner_do_not_hang_the_worker(void)
{
    /* Training starts XGBoost's OpenMP team in this process; a worker
     * forked from it would wait forever in its first parallel region. */
    float x[200], y[100];
    for (int i = 0; i < 100; i++) {
        x[2 * i] = (float)i;
        x[2 * i + 1] = (float)(i % 7);
        y[i] = (float)(i % 5);
    }
    kt_xgb_data data = {.x = x, .y = y, .n = 100, .nf = 2};
    const char *params[] = {"objective", "reg:squarederror", "nthread", "2", NULL};
    kt_xgb_opts xo = {.params = params, .rounds = 5};
    kt_xgb *booster;
    kt_diag d = {{0}};
    CHECK(kt_xgb_train(&data, &xo, &booster, &d) == KT_OK);
    kt_spec *spec = load("kernels/gemm/gemm-c.json");
    kt_tune_opts o = defaults();
    o.problem = "M=64,N=64,K=64";
    uint16_t cfg[16];
    CHECK(kt_spec_config_parse(spec, "MR=4,NR=16,VEC=8,MC=48,KC=128,NC=768,UNROLL=1,"
                                     "THREADS=2", cfg, &d) == KT_OK);
    o.start = cfg;
    o.nstart = 1;
    o.start_only = true;
    kt_tune_report rep;
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 1);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 1); /* it was a timeout */
    kt_tune_report_clear(&rep);
    kt_xgb_free(booster);
    finish(spec, &o);
}

static void test_planted_faults_finish_fast_with_default_limits(void)
{
    kt_spec *spec = load("tests/kernels/faulty.json");
    kt_tune_opts o = defaults();
    o.strategy = "brute_force";
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_EQ_INT(rep.measured, 18);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_TIMEOUT], 2);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_CRASH], 6);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 4);
    /* Each hang costs about the slack (1 s), not a fixed 30 s. */
    fprintf(stderr, "faulty spec with default limits: %.2f s\n", rep.seconds);
    CHECK(rep.seconds < 15);
    kt_tune_report_clear(&rep);
    finish(spec, &o);
}

/* --------------------------------------------------- a kill from outside */

/* A child of this process that is a worker program and has used more
 * than 0.2 s of processor time (it is timing a kernel), or 0. */
static pid_t busy_worker(void)
{
    DIR *d = opendir("/proc");
    pid_t found = 0;
    struct dirent *e;
    while (d && !found && (e = readdir(d))) {
        char path[300], buf[1024];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *after = strrchr(buf, ')');
        long ppid = 0;
        unsigned long utime = 0, stime = 0;
        if (after && strstr(buf, "(ktune-worker)") &&
            sscanf(after + 2, "%*c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ppid,
                   &utime, &stime) == 3 &&
            ppid == (long)getpid() && utime + stime > 0.2 * sysconf(_SC_CLK_TCK))
            found = (pid_t)atol(e->d_name);
    }
    if (d)
        closedir(d);
    return found;
}

/* Kill the first worker seen timing a kernel, once. */
static void *killer(void *arg)
{
    for (int i = 0; i < 2000; i++) { /* about 10 s */
        pid_t pid = busy_worker();
        if (pid) {
            kill(pid, SIGKILL);
            *(int *)arg = 1;
            return NULL;
        }
        usleep(1000);
    }
    return NULL;
}

static void test_an_outside_kill_is_measured_again(void)
{
    kt_spec *spec = load("tests/kernels/faulty.json");
    kt_tune_opts o = defaults();
    o.problem = "N=200000";
    o.measure.max_spread = 0; /* time for 1.5 s: long enough to be killed */
    o.measure.max_reps = 1000000;
    o.measure.max_time_s = 1.5;
    uint16_t cfg[2];
    kt_diag d = {{0}};
    CHECK(kt_spec_config_parse(spec, "MODE=0,VARIANT=2", cfg, &d) == KT_OK);
    o.start = cfg;
    o.nstart = 1;
    o.start_only = true;
    pthread_t t;
    int killed = 0;
    CHECK(pthread_create(&t, NULL, killer, &killed) == 0);
    kt_tune_report rep;
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    pthread_join(t, NULL);
    CHECK(killed);
    CHECK_EQ_INT(rep.measured, 1);
    CHECK_EQ_INT(rep.by_status[KT_STATUS_OK], 1); /* not a crash */
    kt_tune_report_clear(&rep);
    finish(spec, &o);
}

/* ------------------------------------------------------------- memory */

static void test_buffers_past_the_memory_limit_are_refused(void)
{
    kt_spec *spec = load("tests/kernels/faulty.json");
    kt_tune_opts o = defaults();
    o.problem = "N=400000000000"; /* 2 x 1.6 TB of floats */
    kt_tune_report rep;
    kt_diag d = {{0}};
    double t0 = kt_now();
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_ERANGE);
    CHECK(kt_now() - t0 < 5); /* nothing was allocated */
    CHECK(strstr(d.msg, "GiB") && strstr(d.msg, "limit"));
    kt_tune_report_clear(&rep);
    o.problem = "N=100000"; /* 0.4 MB a vector */
    o.measure.max_memory = 1 << 20;
    tune_expect(spec, &o, KT_ERANGE, KT_STATUS_OK, 0);
    o.measure.max_memory = 8 << 20;
    o.budget = (kt_budget){KT_BUDGET_COUNT, 1};
    tune_expect(spec, &o, KT_OK, KT_STATUS_OK, 1);
    finish(spec, &o);
}

/* ---------------------------------------------------- stored failures */

static void test_failed_configurations_can_be_measured_again(void)
{
    kt_spec *spec = load("tests/kernels/faulty.json");
    kt_tune_opts o = defaults();
    o.budget = (kt_budget){KT_BUDGET_COUNT, 1}; /* the default configuration */
    CHECK_EQ_INT(tune_expect(spec, &o, KT_OK, KT_STATUS_OK, 1), 1);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "sqlite3 '%s' \"UPDATE measurement SET status = 'crash', "
             "signal = 9, time_ms = NULL\"", o.db_path);
    CHECK(system(cmd) == 0); /* as an outside kill stored it before */
    CHECK_EQ_INT(tune_expect(spec, &o, KT_OK, KT_STATUS_CRASH, 1), 0);
    o.retry_failed = true;
    CHECK_EQ_INT(tune_expect(spec, &o, KT_OK, KT_STATUS_OK, 1), 1);
    o.retry_failed = false; /* the new result replaced the stored one */
    CHECK_EQ_INT(tune_expect(spec, &o, KT_OK, KT_STATUS_OK, 1), 0);
    finish(spec, &o);
}

/* -------------------------------------------------------------- cache */

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fclose(f);
}

static void test_compiler_files_of_killed_runs_are_swept(void)
{
    const char *cache = kt_strdup(scratch("cache"));
    CHECK(mkdir(cache, 0755) == 0);
    char dead[300], alive[300], other[300];
    snprintf(dead, sizeof dead, "%s/0123456789abcdef.%d.tmp", cache, 1 << 30);
    snprintf(alive, sizeof alive, "%s/0123456789abcdef.%d.tmp", cache, (int)getppid());
    snprintf(other, sizeof other, "%s/0123456789abcdef.so", cache);
    touch(dead);
    touch(alive);
    touch(other);
    kt_spec *spec = load("tests/kernels/faulty.json");
    kt_backend_opts bo = {.cache_dir = cache, .jobs = 1};
    void *ctx;
    kt_diag d = {{0}};
    const kt_backend *be = kt_backend_find("cpu");
    CHECK(be->open(spec, &bo, &ctx, &d) == KT_OK);
    be->close(ctx);
    CHECK(access(dead, F_OK) != 0);  /* its process is gone */
    CHECK(access(alive, F_OK) == 0); /* a running process may still write it */
    CHECK(access(other, F_OK) == 0);
    kt_spec_free(spec);
    free((char *)cache);
    scratch_remove();
}

static const kt_test TESTS[] = {
    KT_T(test_threads_in_the_tuner_do_not_hang_the_worker),
    KT_T(test_planted_faults_finish_fast_with_default_limits),
    KT_T(test_an_outside_kill_is_measured_again),
    KT_T(test_buffers_past_the_memory_limit_are_refused),
    KT_T(test_failed_configurations_can_be_measured_again),
    KT_T(test_compiler_files_of_killed_runs_are_swept),
};
KT_TEST_MAIN(TESTS)
