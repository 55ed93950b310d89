/* test_search.c - the search strategies on a synthetic constrained space
 * with a synthetic cost, driven the way the tuner drives them (default
 * first, each configuration evaluated once, the budget enforced), so no
 * kernel runs: every proposal is valid, batches respect their size, runs
 * end, the same seed gives the same run, and on a smooth landscape each
 * search strategy finds better configurations than random search. */
#include "core/space.h"
#include "core/util.h"
#include "search/history.h"
#include "search/strategy.h"
#include "spec_util.h"

/* The strategies that search (brute_force and random do not learn). */
static const char *const SEARCHERS[] = {
    "local_search",
    "annealing",
    "genetic",
    "diff_evo",
    "model_guided",
    "pso",
    "ensemble",
};

#define P(name, values) "{\"Name\": \"" name "\", \"Type\": \"int\", \"Values\": \"" values "\", \"Default\": 0}"
#define C(expr) "{\"Parameters\": [], \"Expression\": \"" expr "\"}"
#define V8 "[0, 1, 2, 3, 4, 5, 6, 7]"

/* Five parameters of eight values under conditions that cut the space
 * unevenly (about 15,000 of 32,768 remain). */
static const char *const PARAMS =
    P("A", V8) "," P("B", V8) "," P("C", V8) "," P("D", V8) "," P("E", V8);
static const char *const CONDS =
    C("A + B <= 11") "," C("C != D or C == 0") "," C("(A * E) % 3 != 1") ","
    C("E <= N");

typedef struct fixture {
    kt_spec *spec;
    kt_problem prob;
    kt_space *space;
} fixture;

static fixture fixture_open(const char *params, const char *conds, const char *problem)
{
    fixture f = {0};
    kt_diag d = {{0}};
    if (load_text(spec_json(params, conds, problem), &f.spec, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    CHECK(kt_problem_parse(f.spec, NULL, &f.prob, &d) == KT_OK);
    CHECK(kt_space_new(f.spec, &f.prob, &f.space, &d) == KT_OK);
    CHECK(kt_space_build(f.space, 1u << 20, &d) == KT_OK);
    return f;
}

static fixture fixture_main(void)
{
    return fixture_open(PARAMS, CONDS, "{\"Name\": \"N\", \"Default\": 6}");
}

static void fixture_close(fixture *f)
{
    kt_space_free(f->space);
    kt_problem_clear(&f->prob);
    kt_spec_free(f->spec);
}

/* ------------------------------------------------------------ landscape */

/* A smooth bowl with one interaction, its minimum at an interior valid
 * point of the main space; there, configurations with C == D == 0 and
 * E == 5 "crash".  Spaces of fewer parameters get the bowl's first terms. */
static kt_result synthetic(const uint16_t *cfg, size_t np)
{
    static const double T[] = {5.2, 2.4, 6.1, 3.3, 4.6}, W[] = {3, 1, 2, 1.5, 2.5};
    double cost = 1;
    for (size_t d = 0; d < np && d < 5; d++)
        cost += W[d] * (cfg[d] - T[d]) * (cfg[d] - T[d]) / 49;
    if (np < 5)
        return (kt_result){.status = KT_STATUS_OK, .time_ms = cost};
    cost += 0.5 * ((double)cfg[0] - cfg[4]) * ((double)cfg[0] - cfg[4]) / 49;
    if (cfg[2] == 0 && cfg[3] == 0 && cfg[4] == 5)
        return (kt_result){.status = KT_STATUS_CRASH, .time_ms = NAN};
    return (kt_result){.status = KT_STATUS_OK, .time_ms = cost};
}

/* ---------------------------------------------------------------- driver */

/* One run, as the tuner drives it. */
typedef struct run_log {
    uint64_t *order;      /* indices evaluated, in order */
    size_t n;             /* evaluations */
    size_t calls;         /* propose calls */
    size_t proposed;      /* configurations proposed */
    size_t repeats;       /* proposals of a configuration already proposed */
    double best;
    bool ended;           /* the strategy said it had nothing more */
} run_log;

static void log_free(run_log *l) { free(l->order); }

static void evaluate(const kt_strategy *st, void *state, fixture *f, uint8_t *seen,
                     const uint16_t *cfg, run_log *log)
{
    uint64_t idx;
    CHECK(kt_space_index_of(f->space, cfg, &idx) == KT_OK);
    seen[idx] = 1;
    kt_result r = synthetic(cfg, kt_space_nparams(f->space));
    if (r.status == KT_STATUS_OK && r.time_ms < log->best)
        log->best = r.time_ms;
    log->order[log->n++] = idx;
    if (st->observe)
        st->observe(state, cfg, &r);
}

static run_log drive(const char *name, fixture *f, uint64_t budget, uint64_t seed,
                     size_t batch)
{
    const kt_strategy *st = kt_strategy_find(name);
    CHECK(st != NULL);
    size_t np = kt_space_nparams(f->space);
    uint64_t size = kt_space_size(f->space);
    run_log log = {.order = calloc(size + 1, sizeof(uint64_t)), .best = INFINITY};
    uint8_t *seen = calloc(size, 1), *proposed = calloc(size, 1);
    uint16_t *buf = calloc(batch * np, sizeof *buf), def[16];
    CHECK(log.order && seen && proposed && buf);
    void *state = NULL;
    kt_strategy_opts opts = {.seed = seed, .budget = budget};
    CHECK(st->init(f->space, &opts, &state, NULL) == KT_OK);
    kt_space_default(f->space, def);
    if (kt_space_is_valid(f->space, def))
        evaluate(st, state, f, seen, def, &log);
    while (log.n < budget && log.calls < 4 * size + 16) {
        size_t n = 99999;
        CHECK(st->propose(state, buf, batch, &n) == KT_OK);
        log.calls++;
        CHECK(n <= batch);
        if (n == 0) {
            log.ended = true;
            break;
        }
        for (size_t i = 0; i < n && log.n < budget; i++) {
            const uint16_t *cfg = buf + i * np;
            uint64_t idx;
            CHECK(kt_space_is_valid(f->space, cfg));
            CHECK(kt_space_index_of(f->space, cfg, &idx) == KT_OK);
            log.proposed++;
            log.repeats += proposed[idx];
            proposed[idx] = 1;
            if (!seen[idx])
                evaluate(st, state, f, seen, cfg, &log);
        }
    }
    st->free(state);
    free(seen);
    free(proposed);
    free(buf);
    return log;
}

static bool is_searcher(const char *name)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(SEARCHERS); i++)
        if (strcmp(SEARCHERS[i], name) == 0)
            return true;
    return false;
}

/* ----------------------------------------------------------------- tests */

static void test_searchers_are_registered(void)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(SEARCHERS); i++) {
        const kt_strategy *st = kt_strategy_find(SEARCHERS[i]);
        CHECK(st != NULL);
        CHECK(st->observe != NULL);
        CHECK(st->summary && *st->summary);
    }
}

/* drive() checks validity and batch sizes on every call. */
static void test_every_proposal_is_valid_and_batches_fit(void)
{
    fixture f = fixture_main();
    static const size_t BATCHES[] = {1, 3, 8, 32};
    for (size_t i = 0; i < kt_strategy_count(); i++)
        for (size_t b = 0; b < KT_ARRAY_LEN(BATCHES); b++) {
            run_log l = drive(kt_strategy_at(i)->name, &f, 300, 7 + b, BATCHES[b]);
            CHECK(l.n == 300);
            log_free(&l);
        }
    fixture_close(&f);
}

/* On a small space, a run whose budget exceeds the space ends: the strategy
 * covers the space or says it is done, and never loops on old proposals. */
static void test_runs_end_on_a_small_space(void)
{
    fixture f = fixture_open(P("A", "[0, 1, 2, 3]") "," P("B", "[0, 1, 2]") ","
                             P("C", "[0, 1, 2, 3, 4]"),
                             C("A + B != 3") "," C("C != A"), "");
    uint64_t size = kt_space_size(f.space);
    CHECK(size > 20 && size < 60);
    for (size_t i = 0; i < kt_strategy_count(); i++) {
        run_log l = drive(kt_strategy_at(i)->name, &f, size + 10, 3, 4);
        CHECK(l.ended || l.n == size);
        CHECK(l.n <= size);
        log_free(&l);
    }
    fixture_close(&f);
}

static void test_same_seed_same_run(void)
{
    fixture f = fixture_main();
    for (size_t i = 0; i < kt_strategy_count(); i++) {
        const char *name = kt_strategy_at(i)->name;
        run_log a = drive(name, &f, 200, 11, 8), b = drive(name, &f, 200, 11, 8);
        run_log c = drive(name, &f, 200, 12, 8);
        CHECK(a.n == b.n && memcmp(a.order, b.order, a.n * sizeof *a.order) == 0);
        if (is_searcher(name))
            CHECK(a.n != c.n || memcmp(a.order, c.order, a.n * sizeof *a.order) != 0);
        log_free(&a);
        log_free(&b);
        log_free(&c);
    }
    fixture_close(&f);
}

static void test_searchers_never_propose_twice(void)
{
    fixture f = fixture_main();
    for (size_t i = 0; i < KT_ARRAY_LEN(SEARCHERS); i++) {
        run_log l = drive(SEARCHERS[i], &f, 500, 5, 8);
        CHECK_EQ_INT(l.repeats, 0);
        CHECK(l.proposed >= l.n - 1);
        log_free(&l);
    }
    fixture_close(&f);
}

/* The mean over seeds of the best cost found in a budget of about 0.5% of
 * the space: every searcher must beat random search, by a margin. */
static double mean_best(const char *name, fixture *f, uint64_t budget)
{
    enum { SEEDS = 30 };
    double sum = 0;
    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        run_log l = drive(name, f, budget, seed, 8);
        sum += l.best;
        log_free(&l);
    }
    return sum / SEEDS;
}

static double optimum(fixture *f)
{
    double best = INFINITY;
    for (uint64_t i = 0; i < kt_space_size(f->space); i++) {
        kt_result r = synthetic(kt_space_at(f->space, i), 5);
        if (r.status == KT_STATUS_OK && r.time_ms < best)
            best = r.time_ms;
    }
    return best;
}

static void test_searchers_beat_random_on_a_smooth_landscape(void)
{
    fixture f = fixture_main();
    uint64_t budget = kt_space_size(f.space) / 200;
    double opt = optimum(&f), rnd = mean_best("random", &f, budget) - opt;
    printf("  space %llu, budget %llu, optimum %.4f; mean excess over the optimum:"
           " random %.4f\n", (unsigned long long)kt_space_size(f.space),
           (unsigned long long)budget, opt, rnd);
    for (size_t i = 0; i < KT_ARRAY_LEN(SEARCHERS); i++) {
        double ex = mean_best(SEARCHERS[i], &f, budget) - opt;
        printf("  %-14s %.4f\n", SEARCHERS[i], ex);
        CHECK(ex < 0.5 * rnd);
    }
    fixture_close(&f);
}

/* The history ranks what it has observed; a proposal left unobserved when
 * the next batch begins counts as failed and is not proposed again. */
static void test_history_ranks_and_settles(void)
{
    fixture f = fixture_main();
    kt_history h;
    CHECK(kt_history_init(&h, f.space) == KT_OK);
    static const double COSTS[] = {5, 2, INFINITY, 3, 1};
    for (uint64_t i = 0; i < 5; i++) {
        kt_result r = {.status = isinf(COSTS[i]) ? KT_STATUS_CRASH : KT_STATUS_OK,
                       .time_ms = COSTS[i]};
        kt_history_observe(&h, kt_space_at(f.space, i * 7), &r);
    }
    uint64_t top[9];
    CHECK_EQ_INT(kt_history_top(&h, 3, top), 3);
    CHECK(top[0] == 28 && top[1] == 7 && top[2] == 21);
    CHECK_EQ_INT(kt_history_top(&h, 9, top), 4);  /* the failure is not ranked */
    CHECK(h.best == 28 && h.best_cost == 1);
    uint16_t out[2 * 5];
    kt_batch b = kt_batch_begin(&h, out, 2);
    CHECK(kt_batch_add(&b, kt_space_at(f.space, 100)));
    CHECK(!kt_batch_add(&b, kt_space_at(f.space, 100)));  /* proposed */
    CHECK(!kt_batch_add(&b, kt_space_at(f.space, 7)));    /* observed */
    CHECK(kt_history_seen(&h, 100));
    size_t n;
    CHECK(kt_batch_end(&b, &n) == KT_OK && n == 1);
    b = kt_batch_begin(&h, out, 2);
    double c;
    CHECK(kt_history_cost(&h, 100, &c) && isinf(c));
    CHECK(!kt_batch_add(&b, kt_space_at(f.space, 100)));
    kt_history_clear(&h);
    fixture_close(&f);
}

static const kt_test TESTS[] = {
    KT_T(test_history_ranks_and_settles),
    KT_T(test_searchers_are_registered),
    KT_T(test_every_proposal_is_valid_and_batches_fit),
    KT_T(test_runs_end_on_a_small_space),
    KT_T(test_same_seed_same_run),
    KT_T(test_searchers_never_propose_twice),
    KT_T(test_searchers_beat_random_on_a_smooth_landscape),
};

KT_TEST_MAIN(TESTS)
