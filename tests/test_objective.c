/* test_objective.c - what a run minimises (search/objective.h): each
 * objective's cost, the time/energy front against a brute-force one, and
 * whole runs of the tuner answered from a database that holds energy: the
 * best follows the objective, a pareto run marks its front in the
 * database, and a row without energy stops an energy run with one line;
 * and the energy window each objective reads with by default. */
#include "backend/backend.h"
#include "core/util.h"
#include "search/objective.h"
#include "store/db.h"
#include "tune/tuner.h"
#include "spec_util.h"
#include "test.h"

static kt_result ok(double ms, double j)
{
    return (kt_result){.status = KT_STATUS_OK, .time_ms = ms, .energy_j = j,
                       .power_w = NAN, .min_ms = ms, .spread = NAN};
}

static void test_costs_follow_the_objective(void)
{
    kt_result r = ok(2, 3), no_energy = ok(2, NAN), failed = ok(1, 1);
    failed.status = KT_STATUS_CRASH;
    CHECK_NEAR(kt_objective_cost(KT_OBJECTIVE_TIME, &r), 2, 0);
    CHECK_NEAR(kt_objective_cost(KT_OBJECTIVE_ENERGY, &r), 3, 0);
    CHECK_NEAR(kt_objective_cost(KT_OBJECTIVE_EDP, &r), 6, 0);
    CHECK_NEAR(kt_objective_cost(KT_OBJECTIVE_PARETO, &r), 6, 0);
    CHECK_NEAR(kt_objective_cost(KT_OBJECTIVE_TIME, &no_energy), 2, 0);
    for (int o = 0; o < KT_OBJECTIVE_COUNT; o++) {
        CHECK(isinf(kt_objective_cost((kt_objective)o, &failed)));
        CHECK(o == KT_OBJECTIVE_TIME || isinf(kt_objective_cost((kt_objective)o,
                                                                &no_energy)));
    }
}

static void test_names_round_trip(void)
{
    for (int o = 0; o < KT_OBJECTIVE_COUNT; o++) {
        ktune_objective back;
        CHECK(ktune_objective_parse(ktune_objective_name((ktune_objective)o), &back) ==
              KT_OK);
        CHECK_EQ_INT(back, o);
    }
    ktune_objective x = KTUNE_OBJECTIVE_EDP;
    CHECK(ktune_objective_parse("speed", &x) == KT_ENOTFOUND);
    CHECK(ktune_objective_parse(NULL, &x) == KT_ENOTFOUND);
    CHECK_EQ_INT(x, KTUNE_OBJECTIVE_EDP);
    CHECK(ktune_objective_name(KTUNE_OBJECTIVE_COUNT) == NULL);
    CHECK(!kt_objective_needs_energy(KT_OBJECTIVE_TIME));
    CHECK(kt_objective_needs_energy(KT_OBJECTIVE_PARETO));
}

/* Whether no other point of the n is as good in both and better in one. */
static bool brute_on_front(const kt_result *pts, size_t n, size_t i)
{
    for (size_t j = 0; j < n; j++)
        if (pts[j].time_ms <= pts[i].time_ms && pts[j].energy_j <= pts[i].energy_j &&
            (pts[j].time_ms < pts[i].time_ms || pts[j].energy_j < pts[i].energy_j))
            return false;
    return true;
}

static void test_front_is_the_non_dominated_set(void)
{
    enum { N = 300 };
    kt_result pts[N];
    kt_rng rng;
    kt_rng_seed(&rng, 5);
    kt_front f = {0};
    for (size_t i = 0; i < N; i++) {
        /* a coarse grid, so ties and duplicates occur */
        pts[i] = ok(1 + (double)kt_rng_below(&rng, 20), 1 + (double)kt_rng_below(&rng, 20));
        if (i % 17 == 0)
            pts[i].status = KT_STATUS_TIMEOUT;
        char key[16];
        snprintf(key, sizeof key, "I=%zu", i);
        CHECK(kt_front_offer(&f, key, &pts[i]) == KT_OK);
    }
    kt_front_sort(&f);
    kt_result ok_pts[N];
    size_t n = 0, want = 0;
    for (size_t j = 0; j < N; j++)
        if (pts[j].status == KT_STATUS_OK)
            ok_pts[n++] = pts[j];
    bool value_seen[21][21] = {{false}};
    for (size_t i = 0; i < N; i++) {
        int t = (int)pts[i].time_ms, e = (int)pts[i].energy_j;
        if (pts[i].status != KT_STATUS_OK || value_seen[t][e])
            continue;
        value_seen[t][e] = true; /* a later point of equal values is left out */
        bool on = true;
        for (size_t j = 0; j < n && on; j++)
            on = !kt_result_dominates(&ok_pts[j], &pts[i]);
        if (!on)
            continue;
        want++;
        char key[16];
        bool found = false;
        snprintf(key, sizeof key, "I=%zu", i);
        for (size_t k = 0; k < f.n; k++)
            found |= strcmp(f.pts[k].config, key) == 0;
        CHECK(found);
    }
    CHECK(want >= 2);
    CHECK_EQ_INT(f.n, want);
    for (size_t k = 1; k < f.n; k++) /* fastest first, energy falling */
        CHECK(f.pts[k - 1].result.time_ms < f.pts[k].result.time_ms &&
              f.pts[k - 1].result.energy_j > f.pts[k].result.energy_j);
    kt_front_clear(&f);
}

/* ------------------------------------------------------------ the tuner */

static kt_tune_opts opts_for(kt_objective objective)
{
    static char db[256], cache[256];
    snprintf(db, sizeof db, "%s", kt_test_tmp("obj.db"));
    snprintf(cache, sizeof cache, "%s", kt_test_tmp("cache"));
    kt_tune_opts o = kt_tune_defaults();
    o.db_path = db;
    o.backend.cache_dir = cache;
    o.problem = "N=5000";
    o.objective = objective;
    o.strategy = "brute_force";
    o.warm = 0;
    return o;
}

/* The time and energy this test stores for the i-th configuration: a
 * trade-off on MODE, with a tie. */
static kt_result made_up(uint64_t i)
{
    static const double T[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    static const double E[] = {9, 7, 7, 8, 3, 2.5, 2.5, 1, 4};
    return ok(T[i % 9] + (double)(i / 9) * 0.5, E[i % 9] + (double)(i / 9) * 0.25);
}

/* Store a correct result (energy NAN when !energy) for every valid
 * configuration of the faulty kernel at o's problem, as the CPU backend's
 * device, so that a run answers every evaluation from the database. */
static void preload(const kt_spec *spec, const kt_tune_opts *o, bool energy,
                    char keys[][64], size_t *n)
{
    kt_diag d = {{0}};
    const kt_backend *be = kt_backend_for(spec->language);
    void *ctx = NULL;
    kt_device_info dev;
    CHECK(be && be->open(spec, &o->backend, &ctx, &d) == KT_OK);
    CHECK(be->device(ctx, &dev, &d) == KT_OK);
    be->close(ctx);
    kt_problem prob;
    kt_space *space;
    CHECK(kt_problem_parse(spec, o->problem, &prob, &d) == KT_OK);
    CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
    CHECK(kt_space_build(space, 1000, &d) == KT_OK);
    kt_db *db;
    int64_t dv, k, p;
    CHECK(kt_db_open(o->db_path, &db, &d) == KT_OK);
    CHECK(kt_db_device(db, &dev, &dv, &d) == KT_OK);
    CHECK(kt_db_kernel(db, spec->name, spec->source_hash, &k, &d) == KT_OK);
    CHECK(kt_db_problem(db, k, prob.key, &p, &d) == KT_OK);
    *n = kt_space_size(space);
    for (uint64_t i = 0; i < *n; i++) {
        char *key = kt_spec_config_key(spec, kt_space_at(space, i));
        kt_result r = made_up(i);
        if (!energy)
            r.energy_j = NAN;
        CHECK(key && kt_db_record(db, dv, k, p, key, &r, &d) == KT_OK);
        kt_strlcpy(keys[i], 64, key);
        free(key);
    }
    kt_db_close(db);
    kt_space_free(space);
    kt_problem_clear(&prob);
}

static int collect(void *user, const kt_db_row *row)
{
    strcat(user, row->config);
    strcat(user, ";");
    return 0;
}

static void test_best_follows_the_objective_and_pareto_marks_its_front(void)
{
    kt_spec *spec = load_ok("tests/kernels/faulty.json");
    char keys[32][64];
    size_t n = 0;
    kt_tune_opts o = opts_for(KT_OBJECTIVE_TIME);
    preload(spec, &o, true, keys, &n);
    CHECK_EQ_INT(n, 18);
    /* Computed apart: the least time, energy, product, and the front. */
    size_t want[KT_OBJECTIVE_COUNT] = {0};
    char front[512] = "";
    kt_result all[32];
    for (size_t i = 0; i < n; i++)
        all[i] = made_up(i);
    for (size_t i = 0; i < n; i++) {
        const kt_result *a = &all[i], *w;
        w = &all[want[0]];
        want[0] = a->time_ms < w->time_ms ? i : want[0];
        w = &all[want[1]];
        want[1] = a->energy_j < w->energy_j ? i : want[1];
        w = &all[want[2]];
        want[2] = a->time_ms * a->energy_j < w->time_ms * w->energy_j ? i : want[2];
    }
    want[3] = want[2];
    /* all[] is in time order within each VARIANT; the front by brute force */
    for (double t = 0; t < 20; t += 0.5)
        for (size_t i = 0; i < n; i++)
            if (all[i].time_ms == t && brute_on_front(all, n, i)) {
                strcat(front, keys[i]);
                strcat(front, ";");
            }
    for (int obj = 0; obj < KT_OBJECTIVE_COUNT; obj++) {
        o.objective = (kt_objective)obj;
        kt_tune_report rep;
        kt_diag d = {{0}};
        CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
        CHECK_EQ_INT(rep.measured, 0);
        CHECK_EQ_INT(rep.cached, 18);
        CHECK_STR(rep.best_config, keys[want[obj]]);
        CHECK_NEAR(rep.best.energy_j, all[want[obj]].energy_j, 0);
        CHECK_EQ_INT(rep.front.n, obj == KT_OBJECTIVE_PARETO ? 5 : 0);
        kt_tune_report_clear(&rep);
    }
    kt_db *db;
    kt_diag d = {{0}};
    char got[512] = "";
    CHECK(kt_db_open(o.db_path, &db, &d) == KT_OK);
    CHECK(kt_db_front(db, NULL, collect, got, &d) == KT_OK);
    kt_db_close(db);
    CHECK_STR(got, front);
    kt_spec_free(spec);
}

static void test_rows_without_energy_stop_an_energy_run(void)
{
    kt_spec *spec = load_ok("tests/kernels/faulty.json");
    char keys[32][64];
    size_t n = 0;
    kt_tune_opts o = opts_for(KT_OBJECTIVE_EDP);
    preload(spec, &o, false, keys, &n);
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "objective 'edp' needs the energy of the configurations") != NULL);
    CHECK(strstr(d.msg, "the database has none for MODE=0,VARIANT=1") != NULL);
    CHECK(strchr(d.msg, '\n') == NULL);
    kt_tune_report_clear(&rep);
    o.objective = KT_OBJECTIVE_TIME; /* time needs none */
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_OK);
    CHECK_STR(rep.best_config, keys[0]);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static void test_no_energy_window_is_refused_before_anything_runs(void)
{
    kt_spec *spec = load_ok("tests/kernels/faulty.json");
    kt_tune_opts o = opts_for(KT_OBJECTIVE_ENERGY);
    o.measure.energy_window_s = 0;
    kt_tune_report rep;
    kt_diag d = {{0}};
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "objective 'energy' needs energy readings") != NULL);
    CHECK_EQ_INT(rep.measured + rep.cached, 0);
    kt_tune_report_clear(&rep);
    o.objective = (kt_objective)KT_OBJECTIVE_COUNT;
    CHECK(kt_tune(spec, &o, &rep, &d) == KT_EINVAL);
    kt_tune_report_clear(&rep);
    kt_spec_free(spec);
}

static void test_the_default_window_follows_the_objective(void)
{
    double time_window = kt_measure_defaults().energy_window_s;
    CHECK_NEAR(kt_tune_energy_window(-1, KT_OBJECTIVE_TIME, false), time_window, 0);
    /* a map along energy or power places configurations by their energy */
    CHECK_NEAR(kt_tune_energy_window(-1, KT_OBJECTIVE_TIME, true), 1.0, 0);
    for (int o = KT_OBJECTIVE_ENERGY; o < KT_OBJECTIVE_COUNT; o++)
        for (int map = 0; map < 2; map++) {
            CHECK_NEAR(kt_tune_energy_window(-1, (kt_objective)o, map), 1.0, 0);
            CHECK(kt_tune_energy_window(-1, (kt_objective)o, map) > time_window);
        }
    for (int o = 0; o < KT_OBJECTIVE_COUNT; o++) /* asked: as asked */
        for (int map = 0; map < 2; map++) {
            CHECK_NEAR(kt_tune_energy_window(0, (kt_objective)o, map), 0, 0);
            CHECK_NEAR(kt_tune_energy_window(2.5, (kt_objective)o, map), 2.5, 0);
        }
}

static const kt_test TESTS[] = {
    KT_T(test_costs_follow_the_objective),
    KT_T(test_names_round_trip),
    KT_T(test_front_is_the_non_dominated_set),
    KT_T(test_best_follows_the_objective_and_pareto_marks_its_front),
    KT_T(test_rows_without_energy_stop_an_energy_run),
    KT_T(test_no_energy_window_is_refused_before_anything_runs),
    KT_T(test_the_default_window_follows_the_objective),
};
KT_TEST_MAIN(TESTS)
