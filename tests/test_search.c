/* test_search.c - the search strategies on a synthetic constrained space
 * with a synthetic cost, driven the way the tuner drives them (default
 * first, each configuration evaluated once, the budget enforced), so no
 * kernel runs: every proposal is valid, batches respect their size, runs
 * end, the same seed gives the same run, and on a smooth landscape each
 * search strategy finds better configurations than random search. */
#include "core/space.h"
#include "core/util.h"
#include "search/archive.h"
#include "search/history.h"
#include "search/strategy.h"
#include "space_util.h"

/* The strategies that search (brute_force and random do not learn). */
static const char *const SEARCHERS[] = {
    "local_search",
    "annealing",
    "genetic",
    "diff_evo",
    "model_guided",
    "pso",
    "ensemble",
    "map_elites",
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

static fixture fixture_main(void)
{
    return fixture_open(PARAMS, CONDS, "{\"Name\": \"N\", \"Default\": 6}");
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
        if (strcmp(SEARCHERS[i], "map_elites") == 0)
            continue; /* it optimises a map: test_map_elites_fills_a_better_map... */
        double ex = mean_best(SEARCHERS[i], &f, budget) - opt;
        printf("  %-14s %.4f\n", SEARCHERS[i], ex);
        CHECK(ex < 0.5 * rnd);
    }
    fixture_close(&f);
}

/* A population measures as many random configurations as it has members
 * again before its first generation (population.h): with the default
 * observed, the first propose of a run of 25 (population 6, particle swarm
 * 5) asks for twice the population less the default. */
static void test_populations_sample_before_their_first_generation(void)
{
    static const struct { const char *name; size_t size; } POPS[] = {
        {"genetic", 6}, {"diff_evo", 6}, {"pso", 5}};
    fixture f = fixture_main();
    size_t np = kt_space_nparams(f.space);
    uint16_t def[16], buf[64 * 16];
    kt_space_default(f.space, def);
    kt_result r = synthetic(def, np);
    for (size_t i = 0; i < KT_ARRAY_LEN(POPS); i++) {
        const kt_strategy *st = kt_strategy_find(POPS[i].name);
        kt_strategy_opts opts = {.seed = 3, .budget = 25};
        void *state = NULL;
        size_t n = 0;
        CHECK(st->init(f.space, &opts, &state, NULL) == KT_OK);
        st->observe(state, def, &r);
        CHECK(st->propose(state, buf, 64, &n) == KT_OK);
        printf("  %-9s first batch %zu\n", POPS[i].name, n);
        CHECK(n == 2 * POPS[i].size - 1);
        st->free(state);
    }
    fixture_close(&f);
}

/* The history ranks what it has observed; a proposal left unobserved when
 * the next batch begins counts as failed and is not proposed again. */
static void test_history_ranks_and_settles(void)
{
    fixture f = fixture_main();
    kt_history h;
    CHECK(kt_history_init(&h, f.space, KT_OBJECTIVE_TIME) == KT_OK);
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

/* ---------------------------------------------------------- MAP-Elites */

/* A (1, 2, 4, 8) by B (1, 2, 3), no conditions, and two dimensions: A * B
 * in 3 bins (9 distinct values: 3 per bin) and B in 4 (3 values: one per
 * bin). */
static fixture fixture_toy_map(void)
{
    return fixture_open(
        "{\"Name\": \"A\", \"Values\": \"[1, 2, 4, 8]\"},"
        "{\"Name\": \"B\", \"Values\": \"[1, 2, 3]\"}", "",
        "{\"Name\": \"N\", \"Default\": 1}], \"BehaviourDimensions\": ["
        "{\"Name\": \"work\", \"Expression\": \"A * B * N\", \"Bins\": 3},"
        "{\"Name\": \"b\", \"Expression\": \"B\", \"Bins\": 4}");
}

static uint64_t toy_index(fixture *f, uint16_t a, uint16_t b)
{
    uint16_t cfg[2] = {a, b};
    uint64_t idx;
    CHECK(kt_space_index_of(f->space, cfg, &idx) == KT_OK);
    return idx;
}

static void test_archive_cells_on_a_toy_spec(void)
{
    fixture f = fixture_toy_map();
    kt_archive *a;
    CHECK(kt_archive_new(f.space, &a, NULL) == KT_OK);
    CHECK(kt_archive_ndims(a) == 2 && kt_archive_ncells(a) == 9 && !kt_archive_fallback(a));
    CHECK(kt_archive_ngroups(a) == 9);  /* nothing measured: a group is a cell */
    CHECK_STR(kt_archive_dim_name(a, 0), "work");
    CHECK(kt_archive_dim_bins(a, 0) == 3 && kt_archive_dim_bins(a, 1) == 3);
    static const double LO[] = {1, 4, 12}, HI[] = {3, 8, 24};
    for (size_t b = 0; b < 3; b++) {
        double lo, hi;
        kt_archive_bin_range(a, 0, b, &lo, &hi);
        CHECK(lo == LO[b] && hi == HI[b]);
        kt_archive_bin_range(a, 1, b, &lo, &hi);
        CHECK(lo == b + 1 && hi == b + 1);
    }
    /* A = 4, B = 3: work 12 (bin 2), b 3 (bin 2); A = 1, B = 3: 3 (0), 3 (2);
     * A = 2, B = 2: 4 (1), 2 (1) */
    uint64_t c = kt_archive_group_of(a, toy_index(&f, 2, 2));
    CHECK(c == 8 && kt_archive_bin(a, c, 0) == 2 && kt_archive_bin(a, c, 1) == 2);
    CHECK(kt_archive_group_of(a, toy_index(&f, 0, 2)) == 2);
    CHECK(kt_archive_group_of(a, toy_index(&f, 1, 1)) == 4);
    /* cell 8 holds A = 4 and 8 with B = 3; every configuration is a member */
    CHECK(kt_archive_group_size(a, 8) == 2);
    CHECK(kt_archive_group_member(a, 8, 0) == toy_index(&f, 2, 2));
    CHECK(kt_archive_group_member(a, 8, 1) == toy_index(&f, 3, 2));
    uint64_t total = 0;
    for (uint64_t cell = 0; cell < 9; cell++)
        for (uint64_t k = 0; k < kt_archive_group_size(a, cell); k++, total++)
            CHECK(kt_archive_group_of(a, kt_archive_group_member(a, cell, k)) == cell);
    CHECK(total == kt_space_size(f.space));
    kt_archive_free(a);
    fixture_close(&f);
}

static void test_archive_keeps_the_best_per_cell(void)
{
    fixture f = fixture_toy_map();
    kt_archive *a;
    CHECK(kt_archive_new(f.space, &a, NULL) == KT_OK);
    uint64_t x = toy_index(&f, 2, 0), y = toy_index(&f, 3, 0); /* work 4 and 8, B 1 */
    uint64_t z = toy_index(&f, 0, 0), idx;
    CHECK(kt_archive_group_of(a, x) == kt_archive_group_of(a, y));
    uint64_t cell = kt_archive_group_of(a, x);
    double cost;
    CHECK(!kt_archive_elite(a, cell, &idx, &cost));
    CHECK(kt_archive_offer(a, x, INFINITY, NULL) == KT_OK);  /* failures stay out */
    CHECK(kt_archive_occupied(a) == 0 && !kt_archive_group_filled(a, cell));
    CHECK(kt_archive_offer(a, x, 5, NULL) == KT_OK);
    CHECK(kt_archive_offer(a, y, 7, NULL) == KT_OK);         /* slower: kept out */
    CHECK(kt_archive_offer(a, y, 5, NULL) == KT_OK);         /* a tie: the first stays */
    CHECK(kt_archive_elite(a, cell, &idx, &cost) && idx == x && cost == 5);
    CHECK(kt_archive_offer(a, y, 3, NULL) == KT_OK);         /* faster: replaces */
    CHECK(kt_archive_elite(a, cell, &idx, &cost) && idx == y && cost == 3);
    CHECK(kt_archive_offer(a, z, 9, NULL) == KT_OK);         /* another cell */
    CHECK(kt_archive_occupied(a) == 2 && kt_archive_group_filled(a, cell));
    CHECK(kt_archive_unplaced(a) == 0 && !kt_archive_measures(a));
    CHECK(!kt_archive_few_placed(a));
    CHECK(kt_archive_nth(a, 0) == cell && kt_archive_nth(a, 1) == kt_archive_group_of(a, z));
    kt_archive_free(a);
    fixture_close(&f);
}

/* Without BehaviourDimensions (and no GPU sizes) the archive spreads over
 * the two parameters with the most values. */
static void test_archive_falls_back_to_the_widest_parameters(void)
{
    fixture f = fixture_open(P("A", "[0, 1]") "," P("B", "[0, 1, 2, 3, 4, 5]") ","
                             P("C", "[0, 1, 2]"), "", "");
    kt_archive *a;
    CHECK(kt_archive_new(f.space, &a, NULL) == KT_OK);
    CHECK(kt_archive_ndims(a) == 2 && kt_archive_fallback(a));
    CHECK_STR(kt_archive_dim_name(a, 0), "B");
    CHECK_STR(kt_archive_dim_name(a, 1), "C");
    CHECK(kt_archive_ncells(a) == KT_BEHAVIOUR_DEFAULT_BINS * 3);
    kt_archive_free(a);
    fixture_close(&f);
}

/* A dimension that cannot be evaluated on a valid configuration is an
 * error naming it and the configuration. */
static void test_archive_reports_a_dimension_it_cannot_evaluate(void)
{
    fixture f = fixture_open(
        P("A", "[0, 1, 2]"), "",
        "{\"Name\": \"N\", \"Default\": 1}], \"BehaviourDimensions\": ["
        "{\"Name\": \"inv\", \"Expression\": \"N / A\"}");
    kt_archive *a = NULL;
    kt_diag d = {{0}};
    CHECK(kt_archive_new(f.space, &a, &d) == KT_ESPEC && a == NULL);
    CHECK(strstr(d.msg, "'inv'") && strstr(d.msg, "A=0"));
    fixture_close(&f);
}

/* Every shipped spec's dimensions (the GEMMs name theirs; the convolutions
 * fall back to threads per block and shared memory) can be evaluated on
 * its whole space at the default problem, in more than one cell. */
static void test_shipped_specs_have_maps(void)
{
    static const char *const SPECS[] = {
        "kernels/gemm/gemm-c.json", "kernels/gemm/gemm-cuda.json",
        "kernels/gemm/gemm-f16-cuda.json", "kernels/gemm/gemm-bf16-cuda.json",
        "kernels/gemm/gemm-wgmma-f16-cuda.json", "kernels/gemm/gemm-wgmma-bf16-cuda.json",
        "kernels/conv/conv-igemm-cuda.json", "kernels/conv/conv-direct-cuda.json"};
    for (size_t i = 0; i < KT_ARRAY_LEN(SPECS); i++) {
        kt_spec *spec;
        kt_problem prob;
        kt_space *space;
        kt_archive *a;
        kt_diag d = {{0}};
        CHECK(kt_spec_load(kt_test_path(SPECS[i]), NULL, NULL, &spec, &d) == KT_OK);
        CHECK(kt_problem_parse(spec, NULL, &prob, &d) == KT_OK);
        CHECK(kt_space_new(spec, &prob, &space, &d) == KT_OK);
        CHECK(kt_space_build(space, 1u << 22, &d) == KT_OK);
        if (kt_archive_new(space, &a, &d) != KT_OK) {
            fprintf(stderr, "%s: %s\n", SPECS[i], d.msg);
            exit(1);
        }
        size_t cells = 0;
        for (uint64_t c = 0; c < kt_archive_ngroups(a); c++)
            cells += kt_archive_group_size(a, c) > 0;
        printf("  %-40s %zu dimensions, %zu of %llu cells hold configurations\n",
               SPECS[i], kt_archive_ndims(a), cells,
               (unsigned long long)kt_archive_ncells(a));
        CHECK(cells > 1);
        kt_archive_free(a);
        kt_space_free(space);
        kt_problem_clear(&prob);
        kt_spec_free(spec);
    }
}

/* The quality of a run's map: the mean over the cells of the elite's excess
 * over the cell's optimum (an empty cell counts its worst). */
static double map_excess(fixture *f, const run_log *l)
{
    kt_archive *a;
    CHECK(kt_archive_new(f->space, &a, NULL) == KT_OK);
    uint64_t n = kt_archive_ncells(a);
    double *best = malloc(n * sizeof *best), *worst = calloc(n, sizeof *worst);
    CHECK(best && worst);
    for (uint64_t c = 0; c < n; c++)
        best[c] = INFINITY;
    for (uint64_t i = 0; i < kt_space_size(f->space); i++) {
        kt_result r = synthetic(kt_space_at(f->space, i), 5);
        uint64_t c = kt_archive_group_of(a, i);
        if (r.status == KT_STATUS_OK) {
            best[c] = fmin(best[c], r.time_ms);
            worst[c] = fmax(worst[c], r.time_ms);
        }
    }
    for (size_t k = 0; k < l->n; k++) {
        kt_result r = synthetic(kt_space_at(f->space, l->order[k]), 5);
        CHECK(kt_archive_offer(a, l->order[k], kt_objective_cost(KT_OBJECTIVE_TIME, &r),
                               &r) == KT_OK);
    }
    double sum = 0;
    size_t cells = 0;  /* that hold a success (a combination of bins may not) */
    for (uint64_t c = 0; c < n; c++) {
        uint64_t idx;
        double cost;
        if (isfinite(best[c])) {
            sum += (kt_archive_elite(a, c, &idx, &cost) ? cost : worst[c]) - best[c];
            cells++;
        }
    }
    free(best);
    free(worst);
    kt_archive_free(a);
    return sum / (double)cells;
}

/* MAP-Elites spends its budget across the map, not on the optimum alone
 * (so it is not held to test_searchers_beat_random...): its map must be
 * better than random search's by a margin, and it must fill every cell
 * that holds configurations before it breeds. */
static void test_map_elites_fills_a_better_map_than_random(void)
{
    fixture f = fixture_main();
    uint64_t budget = kt_space_size(f.space) / 100;
    double me = 0, rnd = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        run_log a = drive("map_elites", &f, budget, seed, 8);
        run_log b = drive("random", &f, budget, seed, 8);
        me += map_excess(&f, &a) / 20;
        rnd += map_excess(&f, &b) / 20;
        log_free(&a);
        log_free(&b);
    }
    kt_archive *a;
    CHECK(kt_archive_new(f.space, &a, NULL) == KT_OK);
    uint64_t cells = 0;
    for (uint64_t c = 0; c < kt_archive_ngroups(a); c++)
        cells += kt_archive_group_size(a, c) > 0;
    run_log l = drive("map_elites", &f, cells, 3, 8);  /* the default, then the rest */
    for (size_t k = 0; k < l.n; k++)
        CHECK(kt_archive_offer(a, l.order[k], 1, NULL) == KT_OK);
    CHECK(kt_archive_occupied(a) == cells);
    log_free(&l);
    kt_archive_free(a);
    printf("  mean excess of a cell's elite over its optimum, budget %llu: "
           "map_elites %.4f, random %.4f\n", (unsigned long long)budget, me, rnd);
    CHECK(me < 0.5 * rnd);
    fixture_close(&f);
}

/* A (8 values) by B (3): B in 3 bins and, when measured, the time in 4. */
static fixture fixture_measured_map(bool with_b)
{
    char dims[512];
    snprintf(dims, sizeof dims, "{\"Name\": \"N\", \"Default\": 1}], "
             "\"BehaviourDimensions\": [%s{\"Name\": \"t\", \"Measured\": \"time\"}",
             with_b ? "{\"Name\": \"b\", \"Expression\": \"B\", \"Bins\": 3}," : "");
    return fixture_open(P("A", V8) "," P("B", "[0, 1, 2]"), "", dims);
}

/* Along a measured dimension the fill phase covers the groups of the
 * predetermined dimensions (B here) first, then breeds; with every
 * dimension measured it fills at random; either way a run spends its
 * budget without proposing a configuration twice, the same for a seed. */
static void test_map_elites_with_measured_dimensions(void)
{
    for (int with_b = 0; with_b < 2; with_b++) {
        fixture f = fixture_measured_map(with_b);
        for (uint64_t seed = 1; seed <= 10; seed++) {
            run_log l = drive("map_elites", &f, 20, seed, 1);
            run_log again = drive("map_elites", &f, 20, seed, 1);
            CHECK(l.n == 20 && l.repeats == 0);
            CHECK(memcmp(l.order, again.order, 20 * sizeof *l.order) == 0);
            bool group[3] = {false};
            for (size_t k = 0; k < 3; k++)
                group[kt_space_at(f.space, l.order[k])[1]] = true;
            CHECK(!with_b || (group[0] && group[1] && group[2]));
            log_free(&l);
            log_free(&again);
        }
        fixture_close(&f);
    }
}

static const kt_test TESTS[] = {
    KT_T(test_history_ranks_and_settles),
    KT_T(test_searchers_are_registered),
    KT_T(test_every_proposal_is_valid_and_batches_fit),
    KT_T(test_runs_end_on_a_small_space),
    KT_T(test_same_seed_same_run),
    KT_T(test_searchers_never_propose_twice),
    KT_T(test_searchers_beat_random_on_a_smooth_landscape),
    KT_T(test_populations_sample_before_their_first_generation),
    KT_T(test_archive_cells_on_a_toy_spec),
    KT_T(test_archive_keeps_the_best_per_cell),
    KT_T(test_archive_falls_back_to_the_widest_parameters),
    KT_T(test_archive_reports_a_dimension_it_cannot_evaluate),
    KT_T(test_shipped_specs_have_maps),
    KT_T(test_map_elites_fills_a_better_map_than_random),
    KT_T(test_map_elites_with_measured_dimensions),
};

KT_TEST_MAIN(TESTS)
