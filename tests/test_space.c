/* test_space.c - the search space: pruned enumeration agrees with a naive
 * one over the Cartesian product, and sampling, neighbours, lookup and
 * satisfiability behave. */
#include "core/space.h"
#include "spec_util.h"

static kt_space *space_of(const char *params, const char *conds, const char *problem,
                          const char *overrides, kt_spec **spec, kt_problem *prob)
{
    kt_diag d = {{0}};
    if (load_text(spec_json(params, conds, problem), spec, &d) != KT_OK) {
        fprintf(stderr, "%s\n", d.msg);
        exit(1);
    }
    CHECK(kt_problem_parse(*spec, overrides, prob, &d) == KT_OK);
    kt_space *s;
    CHECK(kt_space_new(*spec, prob, &s, &d) == KT_OK);
    return s;
}

static void release(kt_space *s, kt_problem *prob, kt_spec *spec)
{
    kt_space_free(s);
    kt_problem_clear(prob);
    kt_spec_free(spec);
}

/* Every condition on every tuple of the Cartesian product. */
static uint64_t naive_count(const kt_spec *spec, const kt_problem *prob)
{
    size_t np = spec->nparams;
    uint16_t cfg[16] = {0};
    double slots[64];
    uint64_t valid = 0;
    for (;;) {
        kt_spec_slots(spec, cfg, prob, slots);
        bool ok = true;
        for (size_t c = 0; c < spec->nconds && ok; c++) {
            double v;
            ok = kt_expr_eval(spec->conds[c], slots, &v) == KT_OK && v != 0;
        }
        valid += ok;
        size_t d = 0;
        while (d < np && ++cfg[d] == spec->params[d].nvalues)
            cfg[d++] = 0;
        if (d == np)
            return valid;
    }
}

/* Enumeration visits valid configurations in strictly increasing order. */
typedef struct order_check {
    kt_space *s;
    size_t np;
    uint16_t prev[16];
    uint64_t n;
} order_check;

static int visit_in_order(void *user, const uint16_t *cfg)
{
    order_check *oc = user;
    CHECK(kt_space_is_valid(oc->s, cfg));
    if (oc->n > 0) {
        size_t i = 0;
        while (i < oc->np && cfg[i] == oc->prev[i])
            i++;
        CHECK(i < oc->np && cfg[i] > oc->prev[i]);
    }
    memcpy(oc->prev, cfg, oc->np * sizeof *cfg);
    oc->n++;
    return 0;
}

#define P(name, values) "{\"Name\": \"" name "\", \"Type\": \"int\", \"Values\": \"" values "\"}"
#define C(expr) "{\"Parameters\": [], \"Expression\": \"" expr "\"}"

static void test_counts_match_naive_enumeration(void)
{
    static const char *const CONDS[] = {
        "",
        C("A % B == 0"),
        C("A * B <= N") "," C("C != 3"),
        C("N // (A - B) > 1"),                 /* division by zero in places */
        C("A <= B <= C") "," C("D % 2 == 0 or A == 1"),
        C("max(A, C) * D <= 64 and ProblemSize[0] >= A"),
        C("B > 100"),                          /* nothing is valid */
        C("N > 0"),                            /* problem-only, true */
        C("N < 0"),                            /* problem-only, false */
        /* one group whose union-find root (B) is not its first parameter */
        C("A < D") "," C("B != C") "," C("C <= D"),
        C("A % B == 0") "," C("C != D"),       /* two groups */
        C("D == 3") "," C("A > B * 16"),      /* a late group, then an empty one */
    };
    const char *params = P("A", "[1, 2, 4, 8, 16]") "," P("B", "[1, 2, 3, 4]") ","
                         P("C", "[1, 2, 3, 4, 6, 8]") "," P("D", "[0, 1, 2, 3]");
    for (size_t i = 0; i < sizeof CONDS / sizeof *CONDS; i++) {
        kt_spec *spec;
        kt_problem prob;
        kt_space *s = space_of(params, CONDS[i], "{\"Name\": \"N\", \"Default\": 24}",
                               NULL, &spec, &prob);
        uint64_t count;
        kt_space_stats st = {0};
        CHECK(kt_space_count(s, &count, &st) == KT_OK);
        uint64_t naive = naive_count(spec, &prob);
        if (count != naive)
            fprintf(stderr, "conditions #%zu: %llu vs naive %llu\n", i,
                    (unsigned long long)count, (unsigned long long)naive);
        CHECK_EQ_INT(count, naive);
        CHECK_EQ_INT(st.valid, count);
        CHECK(st.nodes <= 5 + 5 * 4 + 5 * 4 * 6 + 5 * 4 * 6 * 4);
        CHECK_EQ_INT(kt_space_cartesian(s), 480);
        char *text;
        char expect[24];
        CHECK(kt_space_count_text(s, &text, NULL) == KT_OK);
        snprintf(expect, sizeof expect, "%llu", (unsigned long long)naive);
        CHECK_STR(text, expect);
        free(text);
        order_check oc = {s, 4, {0}, 0};
        CHECK(kt_space_enumerate(s, visit_in_order, &oc, NULL) == KT_OK);
        CHECK_EQ_INT(oc.n, naive);
        release(s, &prob, spec);
    }
}

static void test_pruning_skips_subtrees(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* A < 2 holds for 1 of 5 values of A; B and C are read by no condition,
     * so they multiply the count without being searched. */
    kt_space *s = space_of(P("A", "[1, 2, 3, 4, 5]") "," P("B", "[1, 2, 3, 4, 5]") ","
                           P("C", "[1, 2, 3, 4, 5]"), C("A < 2"), "", NULL, &spec, &prob);
    uint64_t count;
    kt_space_stats st = {0};
    CHECK(kt_space_count(s, &count, &st) == KT_OK);
    CHECK_EQ_INT(count, 25);
    CHECK_EQ_INT(st.nodes, 5);
    release(s, &prob, spec);
}

static void test_built_space_is_sorted_and_indexable(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"),
                           C("A * B <= 16"), "", NULL, &spec, &prob);
    kt_diag d = {{0}};
    CHECK(kt_space_build(s, 100, &d) == KT_OK);
    CHECK_EQ_INT(kt_space_size(s), 13);
    for (uint64_t i = 0; i < kt_space_size(s); i++) {
        uint64_t idx;
        CHECK(kt_space_index_of(s, kt_space_at(s, i), &idx) == KT_OK);
        CHECK_EQ_INT(idx, i);
        CHECK(kt_space_is_valid(s, kt_space_at(s, i)));
    }
    uint16_t bad[2] = {3, 3}; /* 8 * 8 */
    uint64_t idx;
    CHECK(!kt_space_is_valid(s, bad));
    CHECK(kt_space_index_of(s, bad, &idx) == KT_ENOTFOUND);
    CHECK(kt_space_build(s, 5, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "more than 5") != NULL);
    release(s, &prob, spec);
}

static void test_sampling_is_uniform_over_valid_configurations(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"),
                           C("A * B <= 16"), "", NULL, &spec, &prob);
    kt_diag d = {{0}};
    for (int built = 0; built < 2; built++) {
        if (built)
            CHECK(kt_space_build(s, 100, &d) == KT_OK);
        kt_rng rng;
        kt_rng_seed(&rng, 42);
        int hits[4][4] = {{0}};
        const int n = 39000;
        for (int i = 0; i < n; i++) {
            uint16_t cfg[2];
            CHECK(kt_space_sample(s, &rng, cfg) == KT_OK);
            CHECK(kt_space_is_valid(s, cfg));
            hits[cfg[0]][cfg[1]]++;
        }
        /* 13 valid configurations: each about 3000 times (5 sigma ~ 265) */
        for (int a = 0; a < 4; a++)
            for (int b = 0; b < 4; b++)
                if ((1 << a) * (1 << b) <= 16)
                    CHECK(abs(hits[a][b] - n / 13) < 300);
                else
                    CHECK_EQ_INT(hits[a][b], 0);
    }
    release(s, &prob, spec);
}

static void test_neighbours_are_valid_and_differ_in_one_parameter(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"),
                           C("A * B <= 16"), "", NULL, &spec, &prob);
    uint16_t cfg[2] = {1, 1}, out[32];
    size_t n;
    CHECK(kt_space_neighbours(s, cfg, KT_NBR_HAMMING, out, 16, &n) == KT_OK);
    /* A in {1,4,8} with B=2: 1*2, 4*2, 8*2 valid; B in {1,4,8} with A=2: 2, 8, 16 */
    CHECK_EQ_INT(n, 6);
    for (size_t i = 0; i < n; i++) {
        CHECK(kt_space_is_valid(s, out + 2 * i));
        CHECK((out[2 * i] != 1) + (out[2 * i + 1] != 1) == 1);
    }
    CHECK(kt_space_neighbours(s, cfg, KT_NBR_ADJACENT, out, 16, &n) == KT_OK);
    CHECK_EQ_INT(n, 4); /* A: 1 or 4; B: 1 or 4 */
    uint16_t corner[2] = {3, 1}; /* 8 * 2 */
    CHECK(kt_space_neighbours(s, corner, KT_NBR_ADJACENT, out, 16, &n) == KT_OK);
    CHECK_EQ_INT(n, 2); /* A=4 (4*2) and B=1 (8*1); B=4 gives 32 */
    release(s, &prob, spec);
}

static void test_satisfiable_prefixes(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* C must equal A + B: a prefix (A, B) is satisfiable iff A + B <= 4 */
    kt_space *s = space_of(P("A", "[1, 2, 3]") "," P("B", "[1, 2, 3]") ","
                           P("C", "[2, 3, 4]"), C("C == A + B"), "", NULL, &spec, &prob);
    bool bound[3] = {true, true, false}, sat;
    for (uint16_t a = 0; a < 3; a++)
        for (uint16_t b = 0; b < 3; b++) {
            uint16_t cfg[3] = {a, b, 0};
            CHECK(kt_space_satisfiable(s, cfg, bound, &sat) == KT_OK);
            CHECK(sat == ((a + 1) + (b + 1) <= 4));
        }
    bool only_c[3] = {false, false, true};
    uint16_t c4[3] = {0, 0, 2}; /* C = 4: A=1,B=3 or A=2,B=2 or A=3,B=1 */
    CHECK(kt_space_satisfiable(s, c4, only_c, &sat) == KT_OK && sat);
    bool none[3] = {false, false, false};
    CHECK(kt_space_satisfiable(s, c4, none, &sat) == KT_OK && sat);
    uint16_t out_of_range[3] = {9, 0, 0};
    CHECK(kt_space_satisfiable(s, out_of_range, bound, &sat) == KT_ERANGE);
    release(s, &prob, spec);
}

static void test_problem_overrides_change_the_space(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4, 8, 16]"), C("N % A == 0"),
                           "{\"Name\": \"N\", \"Default\": 8}", "N=12", &spec, &prob);
    uint64_t count;
    CHECK(kt_space_count(s, &count, NULL) == KT_OK);
    CHECK_EQ_INT(count, 3); /* 1, 2, 4 divide 12 */
    CHECK_STR(prob.key, "N=12");
    kt_space_free(s);
    kt_problem_clear(&prob);
    kt_diag d = {{0}};
    CHECK(kt_problem_parse(spec, "Q=3", &prob, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'Q'") != NULL);
    CHECK(kt_problem_parse(spec, "N=abc", &prob, &d) == KT_EINVAL);
    CHECK(kt_problem_parse(spec, "N", &prob, &d) == KT_EINVAL);
    kt_spec_free(spec);
}

static void test_config_keys_round_trip(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(P("A", "[1, 2, 4]") "," P("B", "[0.5, 1.5]"), "", "", NULL,
                           &spec, &prob);
    uint16_t cfg[2] = {2, 1}, back[2];
    char *key = kt_spec_config_key(spec, cfg);
    CHECK_STR(key, "A=4,B=1.5");
    kt_diag d = {{0}};
    CHECK(kt_spec_config_parse(spec, key, back, &d) == KT_OK);
    CHECK(back[0] == 2 && back[1] == 1);
    CHECK(kt_spec_config_parse(spec, "A=3,B=1.5", back, &d) == KT_EINVAL);
    CHECK(kt_spec_config_parse(spec, "A=4", back, &d) == KT_EINVAL);
    CHECK(strstr(d.msg, "'B'") != NULL);
    free(key);
    release(s, &prob, spec);
}

/* n parameters named P0.. with the given values, as TuningParameters text. */
static const char *many_params(size_t n, const char *values)
{
    static char buf[8192];
    size_t at = 0;
    for (size_t i = 0; i < n; i++)
        at += (size_t)snprintf(buf + at, sizeof buf - at,
                               "%s{\"Name\": \"P%zu\", \"Type\": \"int\", \"Values\": \"%s\"}",
                               i ? ", " : "", i, values);
    return buf;
}

static void test_independent_parameters_count_without_search(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* 2^70: no condition links any two parameters */
    kt_space *s = space_of(many_params(70, "[0, 1]"), "", "", NULL, &spec, &prob);
    uint64_t count;
    kt_space_stats st = {0};
    CHECK(kt_space_count(s, &count, &st) == KT_OK);
    CHECK(count == UINT64_MAX); /* saturated */
    CHECK_EQ_INT(st.nodes, 0);
    CHECK_EQ_INT(kt_space_ngroups(s), 70);
    char *text;
    CHECK(kt_space_count_text(s, &text, NULL) == KT_OK);
    CHECK_STR(text, "1180591620717411303424");
    free(text);
    kt_diag d = {{0}};
    CHECK(kt_space_build(s, 1000, &d) == KT_ERANGE); /* refused from the count */
    CHECK(strstr(d.msg, "1180591620717411303424 valid configurations, more than 1000"));
    release(s, &prob, spec);
}

static void test_linked_groups_are_searched_alone(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* 10 x 100 values (10^20): three groups of two, four free parameters */
    char values[512] = "[0";
    for (int v = 1; v < 100; v++)
        snprintf(values + strlen(values), sizeof values - strlen(values), ", %d", v);
    strcat(values, "]");
    kt_space *s = space_of(many_params(10, values),
                           C("P0 * P1 <= N") "," C("P2 % (P3 + 1) == 0") "," C("P9 < P4"),
                           "{\"Name\": \"N\", \"Default\": 1000}", NULL, &spec, &prob);
    char *text;
    kt_space_stats st = {0};
    CHECK(kt_space_count_text(s, &text, &st) == KT_OK);
    CHECK_STR(text, "962657190000000000"); /* 3394 * 573 * 4950 * 100^4 */
    CHECK_EQ_INT(st.evals, 3 * 100 * 100);
    CHECK_EQ_INT(kt_space_ngroups(s), 7);
    size_t n;
    const size_t *g = kt_space_group(s, 2, &n); /* P4 and P9 */
    CHECK(n == 2 && g[0] == 4 && g[1] == 9);
    free(text);
    /* an empty group empties the space before anything else is searched */
    release(s, &prob, spec);
    s = space_of(many_params(20, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"), C("P0 + P19 > 100"),
                 "", NULL, &spec, &prob);
    uint64_t count;
    CHECK(kt_space_count(s, &count, NULL) == KT_OK && count == 0);
    kt_diag d = {{0}};
    CHECK(kt_space_build(s, 1000, &d) == KT_OK && kt_space_size(s) == 0);
    release(s, &prob, spec);
}

/* For a space where nothing is valid. */
static int visit_never(void *user, const uint16_t *cfg)
{
    (void)user;
    (void)cfg;
    CHECK(!"a configuration was visited");
    return 1;
}

/* The progress callback: how often, and the last fraction seen. */
typedef struct progress_seen {
    int calls;
    double fraction;
} progress_seen;

static void note_progress(void *user, const kt_space_progress *p)
{
    progress_seen *ps = user;
    CHECK(p->fraction >= 0 && p->fraction <= 1);
    CHECK(p->group == 1 && p->ngroups == 1 && p->group_params == 20);
    ps->calls++;
    ps->fraction = p->fraction;
}

static void test_long_searches_stop_at_the_bound_or_on_request(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* one condition reads all 20 parameters and never holds: 10^20 leaves */
    kt_space *s = space_of(many_params(20, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"),
                           C("P0 + P1 + P2 + P3 + P4 + P5 + P6 + P7 + P8 + P9 + P10 + "
                             "P11 + P12 + P13 + P14 + P15 + P16 + P17 + P18 + P19 > 1000"),
                           "", NULL, &spec, &prob);
    progress_seen seen = {0};
    kt_space_ctl ctl = {.max_evals = 1000000, .progress = note_progress, .user = &seen};
    kt_space_set_ctl(s, &ctl);
    uint64_t count = 1;
    kt_space_stats st = {0};
    CHECK(kt_space_count(s, &count, &st) == KT_ERANGE);
    CHECK(count == 0 && st.evals > 1000000 && st.evals < 1100000);
    CHECK(strstr(kt_space_errmsg(s), "bound of 1000000 condition evaluations"));
    CHECK(strstr(kt_space_errmsg(s), "20 parameters, 1e+20 combinations"));
    CHECK(seen.calls >= 10 && seen.fraction > 0);
    kt_diag d = {{0}};
    CHECK(kt_space_build(s, 1000, &d) == KT_ERANGE);
    CHECK(strstr(d.msg, "counting the space: stopped at the bound"));
    volatile sig_atomic_t cancel = 1;
    ctl = (kt_space_ctl){.max_evals = UINT64_MAX, .cancel = &cancel};
    kt_space_set_ctl(s, &ctl);
    CHECK(kt_space_count(s, &count, NULL) == KT_ECANCELED);
    CHECK(strstr(kt_space_errmsg(s), "stopped on request"));
    CHECK(kt_space_enumerate(s, visit_never, NULL, NULL) == KT_ECANCELED);
    bool sat, none[20] = {false};
    uint16_t cfg[20] = {0};
    CHECK(kt_space_satisfiable(s, cfg, none, &sat) == KT_ECANCELED);
    release(s, &prob, spec);
}

static void test_sampling_draws_each_group_alone(void)
{
    kt_spec *spec;
    kt_problem prob;
    /* each of 8 conditions holds for 1 value in 10: 1 in 10^8 of the
     * Cartesian product is valid, too rare for rejection over all of it */
    kt_space *s = space_of(many_params(8, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"),
                           C("P0 == 1") "," C("P1 == 2") "," C("P2 == 3") ","
                           C("P3 == 4") "," C("P4 == 5") "," C("P5 == 6") ","
                           C("P6 == 7") "," C("P7 < 1"), "", NULL, &spec, &prob);
    kt_rng rng;
    kt_rng_seed(&rng, 7);
    uint16_t cfg[8];
    CHECK(kt_space_sample(s, &rng, cfg) == KT_OK);
    CHECK(kt_space_is_valid(s, cfg));
    CHECK(cfg[0] == 1 && cfg[6] == 7 && cfg[7] == 0);
    release(s, &prob, spec);
}

static void test_a_sample_stands_for_a_space_too_large_to_list(void)
{
    kt_spec *spec;
    kt_problem prob;
    kt_space *s = space_of(many_params(20, "[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]"),
                           C("P3 < P17"), "", NULL, &spec, &prob);
    kt_diag d = {{0}};
    kt_rng rng;
    kt_rng_seed(&rng, 3);
    CHECK(kt_space_build(s, 1000, &d) == KT_ERANGE);
    CHECK(kt_space_build_sample(s, 1000, &rng, &d) == KT_OK);
    CHECK(kt_space_is_sample(s) && kt_space_size(s) == 1000);
    for (uint64_t i = 0; i < 1000; i++) {
        const uint16_t *c = kt_space_at(s, i);
        uint64_t idx;
        CHECK(kt_space_is_valid(s, c));
        CHECK(kt_space_index_of(s, c, &idx) == KT_OK && idx == i); /* sorted, distinct */
    }
    uint16_t def[20] = {0}; /* the default, P3 = P17 = 0, is invalid here */
    uint64_t idx;
    CHECK(kt_space_index_of(s, def, &idx) == KT_ENOTFOUND);
    release(s, &prob, spec);

    /* 13 valid of 16: a sample of 5 holds each about 5/13 of the time, and
     * the valid default (A = B = 1) always */
    int hits[4][4] = {{0}};
    for (int seed = 0; seed < 1300; seed++) {
        s = space_of(P("A", "[1, 2, 4, 8]") "," P("B", "[1, 2, 4, 8]"), C("A * B <= 16"),
                     "", NULL, &spec, &prob);
        kt_rng_seed(&rng, (uint64_t)seed);
        CHECK(kt_space_build_sample(s, 5, &rng, &d) == KT_OK && kt_space_size(s) == 5);
        for (uint64_t i = 0; i < 5; i++)
            hits[kt_space_at(s, i)[0]][kt_space_at(s, i)[1]]++;
        release(s, &prob, spec);
    }
    CHECK_EQ_INT(hits[0][0], 1300);
    for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++)
            if ((a || b) && a + b <= 4) /* 4 of the other 12 each time: 433 */
                CHECK(abs(hits[a][b] - 433) < 90);

    s = space_of(P("A", "[1, 2, 4, 8]"), C("A > 8"), "", NULL, &spec, &prob);
    CHECK(kt_space_build_sample(s, 5, &rng, &d) == KT_EEMPTY);
    CHECK(strstr(d.msg, "1000000 random draws of A (1 parameters, 4 combinations)"));
    CHECK(!kt_space_is_built(s));
    release(s, &prob, spec);
}

static const kt_test TESTS[] = {
    KT_T(test_counts_match_naive_enumeration),
    KT_T(test_pruning_skips_subtrees),
    KT_T(test_built_space_is_sorted_and_indexable),
    KT_T(test_sampling_is_uniform_over_valid_configurations),
    KT_T(test_neighbours_are_valid_and_differ_in_one_parameter),
    KT_T(test_satisfiable_prefixes),
    KT_T(test_problem_overrides_change_the_space),
    KT_T(test_config_keys_round_trip),
    KT_T(test_independent_parameters_count_without_search),
    KT_T(test_linked_groups_are_searched_alone),
    KT_T(test_long_searches_stop_at_the_bound_or_on_request),
    KT_T(test_sampling_draws_each_group_alone),
    KT_T(test_a_sample_stands_for_a_space_too_large_to_list),
};
KT_TEST_MAIN(TESTS)
