/* test_worker.c - the worker's energy and clock readings, without a GPU:
 * the CPU backend with a stand-in energy counter that, like NVML's, moves
 * in steps (every 25 ms, at a constant 100 W) and a clock fixed at
 * 1500 MHz.  Average power is read between two steps, so it comes out
 * within 5% of 100 W whatever the phase and however loaded the machine;
 * energy per call is that power times the time per call of the calls it
 * was read over.  The stand-in
 * runs in the worker program, so this test program is its own worker: run
 * with KT_WORKER_ARG, it serves with the stand-in backend that
 * KT_TEST_DEVICE names (stand_in's by default).
 *
 * A second stand-in is a device that draws power only while it has work
 * queued and whose counter takes 2 ms to read, as NVML's calls take time on
 * a loaded host: read between batches of run, the device idles during the
 * reads and the power comes out low; with run_busy, which keeps the next
 * batch queued while the host reads, it comes out right; and where
 * run_busy reports that the queue ran dry, no power is read. */
#include "backend/backend.h"
#include "core/space.h"
#include "core/util.h"
#include "measure/worker.h"
#include "test.h"

#include <math.h>
#include <stdlib.h>
#include <time.h>

#define STEP_S 0.025
#define WATTS 100.0

static double stepping_energy(void *ctx)
{
    (void)ctx;
    return floor(kt_now() / STEP_S) * STEP_S * WATTS;
}

static double fixed_clock(void *ctx)
{
    (void)ctx;
    return 1500;
}

/* The CPU backend with the stepping energy counter and the fixed clock. */
static kt_backend stand_in(void)
{
    kt_backend be = *kt_backend_find("cpu");
    be.energy_j = stepping_energy;
    be.clock_mhz = fixed_clock;
    return be;
}

/* The busy device's state: seconds busy before busy_since (-1: idle).  It
 * lives in the worker process, one evaluation each. */
static double busy_s, busy_since = -1;

static double busy_now(void)
{
    return busy_s + (busy_since >= 0 ? kt_now() - busy_since : 0);
}

static void set_busy(bool on)
{
    if (on)
        busy_since = kt_now();
    else
        busy_s = busy_now(), busy_since = -1;
}

static double slow_busy_energy(void *ctx)
{
    (void)ctx;
    nanosleep(&(struct timespec){0, 2000000}, NULL);
    return busy_now() * WATTS;
}

/* Busy while the CPU backend runs the batches. */
static int busy_run(void *ctx, void *kernel, void **args, int reps, int inner,
                    double *times_ms, kt_diag *diag)
{
    set_busy(true);
    int rc = kt_backend_find("cpu")->run(ctx, kernel, args, reps, inner, times_ms, diag);
    set_busy(false);
    return rc;
}

/* The time per call that the fed device reports for its batches: a card
 * that lowered its clock while its power was read (whatever the CPU took). */
#define FED_CALL_MS 0.125

/* Busy throughout: a batch is always queued while between runs. */
static int busy_run_fed(void *ctx, void *kernel, void **args, int inner,
                        bool (*between)(void *arg, double idle_s, double ms), void *arg,
                        kt_diag *diag)
{
    double t;
    int rc;
    set_busy(true);
    while ((rc = kt_backend_find("cpu")->run(ctx, kernel, args, 1, inner, &t, diag)) == KT_OK &&
           between(arg, 0, FED_CALL_MS)) {
    }
    set_busy(false);
    return rc;
}

/* The queue runs dry for 1 ms before each batch (a host too busy to feed
 * it), and says so. */
static int busy_run_starved(void *ctx, void *kernel, void **args, int inner,
                            bool (*between)(void *arg, double idle_s, double ms), void *arg,
                            kt_diag *diag)
{
    double t, idle;
    int rc;
    do {
        double t0 = kt_now();
        nanosleep(&(struct timespec){0, 1000000}, NULL);
        idle = kt_now() - t0;
        rc = busy_run(ctx, kernel, args, 1, inner, &t, diag);
    } while (rc == KT_OK && between(arg, idle, t));
    return rc;
}

/* The stand-in that KT_TEST_DEVICE names: "busy" (the busy device, read
 * between runs), "fed" (the same with run_busy), "starved" (run_busy
 * with gaps), else stand_in's. */
static kt_backend named_stand_in(void)
{
    const char *name = getenv("KT_TEST_DEVICE");
    kt_backend be = stand_in();
    if (name) {
        be.run = busy_run;
        be.energy_j = slow_busy_energy;
        be.run_busy = strcmp(name, "fed") == 0       ? busy_run_fed
                      : strcmp(name, "starved") == 0 ? busy_run_starved
                                                     : NULL;
        be.run_busy_depth = 2;
    }
    return be;
}

/* One evaluation of the faulty kernel's correct configuration. */
static kt_result evaluate(double window)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/kernels/faulty.json"), NULL, NULL, &spec,
                       &d) == KT_OK);
    CHECK(kt_problem_parse(spec, "N=5000", &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1000, &d) == KT_OK);
    kt_backend be = stand_in();
    char cache[128];
    snprintf(cache, sizeof cache, "%s", kt_test_tmp("cache"));
    kt_backend_opts bo = {.cache_dir = cache, .jobs = 2};
    void *ctx;
    CHECK(be.open(spec, &bo, &ctx, &d) == KT_OK);
    uint16_t cfg[2];
    kt_space_default(space, cfg);
    const uint16_t *list[2] = {NULL, cfg};
    kt_build b[2];
    CHECK(be.compile(ctx, list, 2, b, &d) == KT_OK);
    CHECK(b[0].status == KT_STATUS_OK && b[1].status == KT_STATUS_OK);
    kt_measure_opts mo = kt_measure_defaults();
    mo.min_time_s = 0.01;
    mo.energy_window_s = window;
    mo.worker_path = "/proc/self/exe";
    kt_worker *w;
    kt_result r;
    CHECK(kt_worker_new(&be, &bo, spec, &prob, b[0].artifact, cfg, &mo, &w, &d) == KT_OK);
    CHECK(kt_worker_eval(w, b[1].artifact, cfg, &r, &d) == KT_OK);
    kt_worker_free(w);
    kt_builds_clear(b, 2);
    be.close(ctx);
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return r;
}

static void test_power_is_read_between_counter_steps(void)
{
    for (int i = 0; i < 3; i++) { /* three phases against the steps */
        kt_result r = evaluate(0.2);
        CHECK(r.status == KT_STATUS_OK);
        CHECK_NEAR(r.power_w, WATTS, 0.06 * WATTS); /* the worker's bound: 5% */
        /* the window's own time per call: the same kernel, so near the
         * timing's median (a loaded host's CPU calls vary, not 1000x) */
        double call_ms = r.energy_j / r.power_w * 1e3;
        CHECK(call_ms > 0.25 * r.time_ms && call_ms < 4 * r.time_ms);
        CHECK_NEAR(r.sm_clock_mhz, 1500, 0);
        CHECK(r.detail[0] == 0); /* no reason: the energy is known */
    }
}

/* The device draws 100 W while busy; its counter takes 2 ms to read. */
static kt_result evaluate_busy(const char *device)
{
    setenv("KT_TEST_DEVICE", device, 1);
    kt_result r = evaluate(0.2);
    unsetenv("KT_TEST_DEVICE");
    CHECK(r.status == KT_STATUS_OK);
    return r;
}

static void test_a_fed_device_reads_its_power(void)
{
    kt_result idle = evaluate_busy("busy"), fed = evaluate_busy("fed");
    /* batches of about 5 ms, each followed by 2 ms or more of reads */
    CHECK(idle.power_w < 0.85 * WATTS);
    CHECK(idle.detail[0] == 0); /* read between runs, the gaps are not seen */
    CHECK_NEAR(fed.power_w, WATTS, 0.06 * WATTS);
    /* energy per call: the power times the window's own time per call */
    CHECK_NEAR(fed.energy_j, fed.power_w * FED_CALL_MS * 1e-3, 1e-15);
    CHECK(fed.detail[0] == 0);
}

/* Gaps the backend reports (1 ms before each 5 ms batch) leave no power,
 * and the row says why, instead of a reading a sixth low. */
static void test_a_starved_device_says_so(void)
{
    kt_result r = evaluate_busy("starved");
    CHECK(isnan(r.power_w) && isnan(r.energy_j));
    CHECK(strstr(r.detail, "idled") != NULL);
}

static void test_no_window_means_no_energy(void)
{
    kt_result r = evaluate(0);
    CHECK(r.status == KT_STATUS_OK);
    CHECK(isnan(r.energy_j) && isnan(r.power_w));
    CHECK(strstr(r.detail, "--energy-window 0") != NULL); /* never a silent blank */
    CHECK_NEAR(r.sm_clock_mhz, 1500, 0); /* the clock is still read */
}

static const kt_test TESTS[] = {
    KT_T(test_power_is_read_between_counter_steps),
    KT_T(test_no_window_means_no_energy),
    KT_T(test_a_fed_device_reads_its_power),
    KT_T(test_a_starved_device_says_so),
};
int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], KT_WORKER_ARG) == 0) {
        kt_backend be = named_stand_in();
        return kt_worker_serve(argc, argv, &be);
    }
    return kt_test_main(TESTS, sizeof TESTS / sizeof TESTS[0], argc, argv);
}
