/* test_online.c - online tuning (tune/online.h) on tests/kernels/online.c,
 * whose WORK=1,MODE=0 configuration is clearly the fastest and whose MODE 1
 * and 2 compute wrongly or crash: the served configuration converges to
 * the best and stays, wrong and crashing ones never serve, exploration
 * stays within its bounds, and the database keeps what was learnt. */
#include "core/util.h"
#include "tune/online.h"
#include "test.h"

#define N 20000
#define BEST "WORK=1,MODE=0"

typedef struct app {
    kt_spec *spec;
    kt_problem prob;
    float *x, *y;
    int n;
    void *px, *py;
    void *args[3];
} app;

static void app_init(app *a)
{
    kt_diag d = {{0}};
    CHECK(kt_spec_load(kt_test_path("tests/kernels/online.json"), NULL, NULL, &a->spec,
                       &d) == KT_OK);
    CHECK(kt_problem_parse(a->spec, "N=20000", &a->prob, &d) == KT_OK);
    a->x = malloc(N * sizeof *a->x);
    a->y = malloc(N * sizeof *a->y);
    CHECK(a->x && a->y);
    for (int i = 0; i < N; i++)
        a->x[i] = (float)(i % 97) / 7.0f;
    a->n = N;
    a->px = a->x;
    a->py = a->y;
    a->args[0] = &a->n;
    a->args[1] = &a->px;
    a->args[2] = &a->py;
}

static void app_clear(app *a)
{
    kt_problem_clear(&a->prob);
    kt_spec_free(a->spec);
    free(a->x);
    free(a->y);
}

/* The application's outputs are right whichever configuration served. */
static bool outputs_right(const app *a)
{
    for (int i = 0; i < N; i++)
        if (a->y[i] != 2.0f * a->x[i] + 1.0f)
            return false;
    return true;
}

static kt_online_opts opts_for(const char *db)
{
    kt_online_opts o = kt_online_defaults();
    o.db_path = db;
    o.backend.cache_dir = kt_test_tmp("cache");
    o.candidates = 21; /* the whole space: 7 WORK x 3 MODE */
    o.seed = 7;
    return o;
}

static int count_online_rows(void *user, const kt_db_row *row)
{
    int *n = user;
    n[0] += strncmp(row->result.detail, "online:", 7) == 0;
    n[1] += row->result.status == KT_STATUS_WRONG_RESULT;
    n[2] += row->result.status == KT_STATUS_CRASH;
    return 0;
}

/* Calls, with every candidate built first so that the run does not depend
 * on how fast the machine compiles. */
static void run_calls(kt_online *on, app *a, int calls, int *best_from,
                      int *explored)
{
    kt_diag d = {{0}};
    kt_online_call call;
    *best_from = -1;
    *explored = 0;
    for (int k = 0; k < calls; k++) {
        memset(a->y, 0, N * sizeof *a->y);
        CHECK(kt_online_run(on, &a->prob, a->args, &call, &d) == KT_OK);
        if (k % 100 == 0) /* calls of microseconds: the background thread's turn */
            kt_online_wait(on);
        CHECK(strstr(call.config, "MODE=0") != NULL);
        if (k % 100 == 0)
            CHECK(outputs_right(a));
        *explored += call.explored;
        if (strcmp(call.config, BEST) != 0)
            *best_from = -1;
        else if (*best_from < 0)
            *best_from = k;
    }
}

static void test_converges_to_best_and_stays(void)
{
    app a;
    app_init(&a);
    char db[4096];
    snprintf(db, sizeof db, "%s", kt_test_tmp("online.db"));
    kt_online_opts o = opts_for(db);
    kt_online *on;
    kt_diag d = {{0}};
    CHECK(kt_online_open(a.spec, &o, &on, &d) == KT_OK);
    int from, explored;
    run_calls(on, &a, 3000, &from, &explored);
    kt_online_info info;
    CHECK(kt_online_info_get(on, &a.prob, &info, &d) == KT_OK);
    printf("online: %s served from call %d of 3000 on; %d explored; "
           "%zu candidates, %zu failed, %zu live; extra %.2f ms of %.2f ms\n",
           info.best, from, explored, info.candidates, info.failed, info.live, info.extra_ms,
           info.time_ms);
    CHECK(info.converged);
    CHECK_STR(info.best, BEST);
    CHECK(from >= 0 && from < 2500); /* the last 500 calls all served the best */
    CHECK(info.failed >= 1);         /* the wrong and crashing candidates */
    CHECK_EQ_INT((int)info.explored, explored);
    CHECK(explored <= 0.1 * 3000 + 1);
    kt_online_close(on);

    int rows[3] = {0};
    kt_db *kdb;
    CHECK(kt_db_open(db, &kdb, &d) == KT_OK);
    CHECK(kt_db_list(kdb, NULL, count_online_rows, rows, &d) == KT_OK);
    kt_db_close(kdb);
    CHECK(rows[0] >= 2);             /* the winner and the dropped ones */
    CHECK(rows[1] + rows[2] >= 1);   /* failures stored as tune stores them */

    /* Opened again, the database's best serves from the first call. */
    CHECK(kt_online_open(a.spec, &o, &on, &d) == KT_OK);
    kt_online_call call;
    CHECK(kt_online_run(on, &a.prob, a.args, &call, &d) == KT_OK);
    CHECK_STR(call.config, BEST);
    CHECK(outputs_right(&a));
    kt_online_close(on);
    app_clear(&a);
}

/* calls calls under the bounds share and overhead (no database); *info
 * says where the problem stands at the end. */
static void bounded_run(double share, double overhead, int calls, int *explored,
                        kt_online_info *info)
{
    app a;
    app_init(&a);
    kt_online_opts o = opts_for(NULL);
    o.explore_share = share;
    o.explore_overhead = overhead;
    kt_online *on;
    kt_diag d = {{0}};
    CHECK(kt_online_open(a.spec, &o, &on, &d) == KT_OK);
    int from;
    run_calls(on, &a, calls, &from, explored);
    CHECK(kt_online_info_get(on, &a.prob, info, &d) == KT_OK);
    CHECK_EQ_INT((int)info->explored, *explored);
    kt_online_close(on);
    app_clear(&a);
}

static void test_exploration_share_is_bounded(void)
{
    int explored;
    kt_online_info info;
    bounded_run(0.03, 0, 1000, &explored, &info);
    printf("share 0.03: %d of 1000 calls explored\n", explored);
    CHECK(explored <= 0.03 * 1000 + 1);
    CHECK(explored >= 3); /* it did explore */
}

static void test_exploration_time_is_bounded(void)
{
    int explored;
    kt_online_info info;
    bounded_run(1, 0.05, 2000, &explored, &info);
    printf("overhead 0.05: extra %.3f ms of %.3f ms (%.1f %%), %d explored\n",
           info.extra_ms, info.time_ms, 100 * info.extra_ms / info.time_ms, explored);
    /* One exploring call may overshoot; the default WORK=16 is the slowest,
     * so a call of it bounds that overshoot. */
    CHECK(info.extra_ms <= 0.05 * info.time_ms + 16 * info.best_ms * 1.5 + 0.05);
    CHECK(explored > 0);
}

static void test_policy_none_serves_the_default(void)
{
    app a;
    app_init(&a);
    kt_online_opts o = opts_for(NULL);
    o.policy = "none";
    kt_online *on;
    kt_diag d = {{0}};
    CHECK(kt_online_open(a.spec, &o, &on, &d) == KT_OK);
    kt_online_call call;
    for (int k = 0; k < 200; k++) {
        CHECK(kt_online_run(on, &a.prob, a.args, &call, &d) == KT_OK);
        CHECK_STR(call.config, "WORK=16,MODE=0");
        CHECK(!call.explored);
    }
    CHECK(outputs_right(&a));
    kt_online_close(on);
    app_clear(&a);
}

static void test_bad_options_are_refused(void)
{
    app a;
    app_init(&a);
    kt_online *on = NULL;
    kt_diag d = {{0}};
    kt_online_opts o = opts_for(NULL);
    o.explore_share = 2;
    CHECK_EQ_INT(kt_online_open(a.spec, &o, &on, &d), KT_EINVAL);
    CHECK(strstr(d.msg, "explore_share") != NULL);
    o = opts_for(NULL);
    o.policy = "ucb9";
    CHECK_EQ_INT(kt_online_open(a.spec, &o, &on, &d), KT_ENOTFOUND);
    CHECK(strstr(d.msg, "ucb9") != NULL);
    CHECK(on == NULL);
    CHECK_EQ_INT(kt_online_run(NULL, &a.prob, a.args, NULL, &d), KT_EINVAL);
    kt_online_close(NULL);
    app_clear(&a);
}

/* The public API (include/ktune.h) over the same kernel: options checked,
 * seeds as keys, bad input refused with a message, a run that serves. */
static void test_public_api_checks_its_input_and_serves(void)
{
    ktune_spec *spec;
    ktune_problem *prob;
    ktune_diag d = {{0}};
    CHECK(ktune_spec_load(kt_test_path("tests/kernels/online.json"), NULL, NULL, &spec,
                          &d) == 0);
    CHECK(ktune_problem_parse(spec, "N=20000", 0, &prob, &d) == 0);
    ktune_online_opts o;
    ktune_online_opts_init(&o);
    o.cache_dir = kt_test_tmp("cache");
    ktune_online *on = NULL;
    CHECK_EQ_INT(ktune_online_open(NULL, &o, &on, &d), KTUNE_EINVAL);
    o.size--;
    CHECK_EQ_INT(ktune_online_open(spec, &o, &on, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "ktune_online_opts_init") != NULL);
    ktune_online_opts_init(&o);
    o.cache_dir = kt_test_tmp("cache");
    const char *bad[] = {"WORK=2,MODE=0"}; /* 2 is not one of WORK's values */
    o.seeds = bad;
    o.nseeds = 1;
    CHECK_EQ_INT(ktune_online_open(spec, &o, &on, &d), KTUNE_EINVAL);
    CHECK(strstr(d.msg, "WORK") != NULL);
    const char *good[] = {"WORK=1,MODE=0"};
    o.seeds = good;
    o.policy = "none"; /* the seed is listed first, so it serves */
    CHECK_EQ_INT(ktune_online_open(spec, &o, &on, &d), 0);
    float x[64] = {0}, y[64];
    int n = 64;
    void *px = x, *py = y, *args[] = {&n, &px, &py};
    ktune_problem *small;
    CHECK(ktune_problem_parse(spec, "N=64", 0, &small, &d) == 0);
    ktune_online_call call;
    CHECK_EQ_INT(ktune_online_run(on, small, args, &call, &d), 0);
    CHECK_STR(call.config, "WORK=1,MODE=0");
    CHECK(y[0] == 1.0f);
    ktune_online_state st;
    CHECK_EQ_INT(ktune_online_report(on, prob, &st, &d), KTUNE_ENOTFOUND);
    CHECK_EQ_INT(ktune_online_report(on, small, &st, &d), 0);
    CHECK(st.calls == 1 && st.candidates >= 2);
    CHECK_EQ_INT(ktune_online_run(NULL, small, args, &call, &d), KTUNE_EINVAL);
    ktune_online_close(on);
    ktune_online_close(NULL);
    ktune_problem_free(small);
    ktune_problem_free(prob);
    ktune_spec_free(spec);
}

static const kt_test TESTS[] = {
    KT_T(test_converges_to_best_and_stays),
    KT_T(test_exploration_share_is_bounded),
    KT_T(test_exploration_time_is_bounded),
    KT_T(test_policy_none_serves_the_default),
    KT_T(test_bad_options_are_refused),
    KT_T(test_public_api_checks_its_input_and_serves),
};

KT_TEST_MAIN(TESTS)
