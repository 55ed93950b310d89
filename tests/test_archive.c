/* test_archive.c - the MAP-Elites archive along measured dimensions
 * (search/archive.h): a result is placed only once measured, by its
 * value; the bins are quantiles of the values placed so far, so cells and
 * elites move as values arrive, and equal what one placement of every
 * result under the latest bins gives; results without the value are
 * counted, not placed; the map says which dimensions are measured; the
 * cell limit counts a measured dimension at its Bins. */
#include "core/util.h"
#include "search/archive.h"
#include "space_util.h"

#include <math.h>

/* A (1, 2, 4, 8) by B (1, 2, 3), no conditions: 12 configurations. */
#define TOY_PARAMS "{\"Name\": \"A\", \"Values\": \"[1, 2, 4, 8]\"}," \
                   "{\"Name\": \"B\", \"Values\": \"[1, 2, 3]\"}"
#define TOY_DIMS "{\"Name\": \"N\", \"Default\": 1}], \"BehaviourDimensions\": ["

/* B in 3 bins (a group per value) and energy in 2. */
#define B_ENERGY "{\"Name\": \"b\", \"Expression\": \"B\", \"Bins\": 3}," \
                 "{\"Name\": \"energy\", \"Measured\": \"energy\", \"Bins\": 2}"

/* The toy space along dims, and its archive. */
typedef struct toy {
    fixture f;
    kt_archive *a;
} toy;

static toy toy_open(const char *dims)
{
    char problem[512];
    snprintf(problem, sizeof problem, TOY_DIMS "%s", dims);
    toy t = {fixture_open(TOY_PARAMS, "", problem), NULL};
    CHECK(kt_archive_new(t.f.space, &t.a, NULL) == KT_OK);
    return t;
}

static void toy_close(toy *t)
{
    kt_archive_free(t->a);
    fixture_close(&t->f);
}

static uint64_t at(fixture *f, uint16_t a, uint16_t b)
{
    uint16_t cfg[2] = {a, b};
    uint64_t idx;
    CHECK(kt_space_index_of(f->space, cfg, &idx) == KT_OK);
    return idx;
}

/* A correct result of energy_j J per call, its time the cost offered. */
static kt_result ok(double time_ms, double energy_j)
{
    return (kt_result){.status = KT_STATUS_OK, .time_ms = time_ms, .energy_j = energy_j,
                       .power_w = energy_j / time_ms * 1e3};
}

static void offer(kt_archive *a, uint64_t idx, double time_ms, double energy_j)
{
    kt_result r = ok(time_ms, energy_j);
    CHECK(kt_archive_offer(a, idx, time_ms, &r) == KT_OK);
}

static void check_elite(const kt_archive *a, uint64_t cell, uint64_t want)
{
    uint64_t idx = UINT64_MAX;
    double cost;
    CHECK(kt_archive_elite(a, cell, &idx, &cost) && idx == want);
}

static void check_range(const kt_archive *a, size_t d, size_t b, double lo, double hi)
{
    double l, h;
    kt_archive_bin_range(a, d, b, &l, &h);
    CHECK(l == lo && h == hi);
}

/* Before any value there is no cell; a configuration is placed once its
 * result is offered and the archive refreshed, in its group's row. */
static void test_a_result_is_placed_after_measuring(void)
{
    toy t = toy_open(B_ENERGY);
    kt_archive *a = t.a;
    CHECK(kt_archive_measures(a) && kt_archive_ndims(a) == 2);
    CHECK(kt_archive_dim_measured(a, 0) == KT_MEASURED_NONE);
    CHECK(kt_archive_dim_measured(a, 1) == KT_MEASURED_ENERGY);
    CHECK(kt_archive_ngroups(a) == 3 && kt_archive_group_size(a, 1) == 4);
    CHECK(kt_archive_ncells(a) == 0 && kt_archive_dim_bins(a, 1) == 0);
    CHECK(kt_archive_few_placed(a));
    uint64_t x = at(&t.f, 0, 1), cell;  /* A = 1, B = 2: group 1 */
    kt_result r = ok(2, 5);
    CHECK(!kt_archive_cell_of(a, x, &r, &cell));          /* no energy bin yet */
    offer(a, x, 2, 5);
    CHECK(kt_archive_group_filled(a, 1) && !kt_archive_group_filled(a, 0));
    CHECK(kt_archive_ncells(a) == 0 && kt_archive_occupied(a) == 0); /* until refreshed */
    kt_archive_refresh(a);
    CHECK(kt_archive_ncells(a) == 3 && kt_archive_dim_bins(a, 1) == 1);
    CHECK(kt_archive_occupied(a) == 1 && kt_archive_nth(a, 0) == 1);
    CHECK(kt_archive_cell_of(a, x, &r, &cell) && cell == 1);
    CHECK(kt_archive_bin(a, 1, 0) == 1 && kt_archive_bin(a, 1, 1) == 0);
    check_elite(a, 1, x);
    check_range(a, 1, 0, 5, 5);
    CHECK(kt_archive_few_placed(a));                       /* 1 of 2 cells */
    toy_close(&t);
}

/* Quantile bins of the energies placed so far: a configuration changes
 * cell when new values move the edges, and a refresh is needed to see it. */
static void test_bins_move_as_values_arrive(void)
{
    toy t = toy_open(B_ENERGY);
    kt_archive *a = t.a;
    uint64_t x = at(&t.f, 0, 0), y = at(&t.f, 1, 0), z = at(&t.f, 0, 1);
    offer(a, x, 2, 5);   /* B = 1 */
    offer(a, y, 4, 1);   /* B = 1 */
    offer(a, z, 1, 3);   /* B = 2 */
    kt_archive_refresh(a);
    /* energies 1, 3, 5 in 2 bins: {1, 3} and {5} */
    CHECK(kt_archive_dim_bins(a, 1) == 2 && kt_archive_ncells(a) == 6);
    CHECK(!kt_archive_few_placed(a));
    check_range(a, 1, 0, 1, 3);
    check_range(a, 1, 1, 5, 5);
    check_elite(a, 0, y);  /* B bin 0, energy bin 0 */
    check_elite(a, 1, x);  /* B bin 0, energy bin 1 */
    check_elite(a, 2, z);  /* B bin 1, energy bin 0 */
    CHECK(kt_archive_occupied(a) == 3);
    CHECK(kt_archive_nth(a, 0) == 1 && kt_archive_nth(a, 1) == 0);
    CHECK(kt_archive_nth(a, 2) == 2);
    uint64_t u = at(&t.f, 2, 2), v = at(&t.f, 3, 2), idx;
    double cost;
    offer(a, u, 3, 0.5);  /* B = 3 */
    offer(a, v, 2, 0.7);  /* B = 3 */
    check_elite(a, 2, z);  /* the old cells stand until refreshed */
    kt_archive_refresh(a);
    /* energies 0.5, 0.7, 1, 3, 5: {0.5, 0.7, 1} and {3, 5}; z moves up */
    check_range(a, 1, 0, 0.5, 1);
    check_range(a, 1, 1, 3, 5);
    CHECK(!kt_archive_elite(a, 2, &idx, &cost));
    check_elite(a, 3, z);
    check_elite(a, 0, y);
    check_elite(a, 1, x);
    check_elite(a, 4, v);  /* B = 3, energy bin 0: v is faster than u */
    CHECK(kt_archive_occupied(a) == 4);
    toy_close(&t);
}

/* When the edges move, two results that had cells of their own may share
 * one: the better (by cost) is its elite, as if both arrived under the
 * new bins. */
static void test_elites_are_chosen_again(void)
{
    toy t = toy_open(B_ENERGY);
    kt_archive *a = t.a;
    uint64_t p = at(&t.f, 0, 0), q = at(&t.f, 1, 0), w = at(&t.f, 2, 0);  /* all B = 1 */
    offer(a, p, 5, 1);
    offer(a, q, 3, 2);
    offer(a, w, 1, 9);
    kt_archive_refresh(a);
    check_elite(a, 0, q);  /* {1, 2}: q beats p */
    check_elite(a, 1, w);  /* {9} */
    offer(a, at(&t.f, 0, 2), 7, 10);
    offer(a, at(&t.f, 1, 2), 7, 11);
    offer(a, at(&t.f, 2, 2), 7, 12);
    kt_archive_refresh(a);
    check_range(a, 1, 0, 1, 9);  /* 1, 2, 9 | 10, 11, 12 */
    check_elite(a, 0, w);        /* w now shares p's and q's cell, and beats both */
    uint64_t idx;
    double cost;
    CHECK(!kt_archive_elite(a, 1, &idx, &cost));
    toy_close(&t);
}

/* A correct result without energy, or whose cost is not finite, is
 * counted and not placed; a failure is neither. */
static void test_results_without_the_value_are_counted(void)
{
    toy t = toy_open(B_ENERGY);
    kt_archive *a = t.a;
    uint64_t x = at(&t.f, 0, 0), cell;
    kt_result none = ok(2, NAN), crash = {.status = KT_STATUS_CRASH, .time_ms = NAN,
                                          .energy_j = NAN, .power_w = NAN};
    kt_result costly = ok(2, 1);
    CHECK(kt_archive_offer(a, x, 2, &none) == KT_OK);
    CHECK(kt_archive_offer(a, x, INFINITY, &crash) == KT_OK);
    CHECK(kt_archive_offer(a, x, 3, NULL) == KT_OK);     /* a cost alone: no energy */
    CHECK(kt_archive_offer(a, x, INFINITY, &costly) == KT_OK);
    CHECK(kt_archive_unplaced(a) == 3 && !kt_archive_group_filled(a, 0));
    kt_archive_refresh(a);
    CHECK(kt_archive_occupied(a) == 0 && kt_archive_ncells(a) == 0);
    offer(a, at(&t.f, 1, 0), 2, 4);
    kt_archive_refresh(a);
    CHECK(kt_archive_occupied(a) == 1 && kt_archive_unplaced(a) == 3);
    CHECK(!kt_archive_cell_of(a, x, &none, &cell));
    CHECK(kt_archive_cell_of(a, x, &costly, &cell) && cell == 0);
    kt_map *m;
    CHECK(kt_archive_map(a, &m) == KT_OK);
    CHECK(m->unplaced == 3 && m->nfilled == 1);
    kt_map_free(m);
    toy_close(&t);
}

/* The map refreshes first, and says which dimension is measured, with
 * its bins as they stand. */
static void test_the_map_shows_measured_bins(void)
{
    toy t = toy_open(B_ENERGY);
    kt_archive *a = t.a;
    uint64_t x = at(&t.f, 0, 0), y = at(&t.f, 1, 0), z = at(&t.f, 0, 1);
    offer(a, x, 2, 5);
    offer(a, y, 4, 1);
    offer(a, z, 1, 3);
    kt_map *m;
    CHECK(kt_archive_map(a, &m) == KT_OK);  /* refreshed by the map */
    CHECK(m->ndims == 2 && m->ncells == 6 && m->nfilled == 3 && m->unplaced == 0);
    CHECK(m->dims[0].measured == KT_MEASURED_NONE && m->dims[0].nbins == 3);
    CHECK(m->dims[1].measured == KT_MEASURED_ENERGY && m->dims[1].nbins == 2);
    CHECK_STR(m->dims[1].name, "energy");
    CHECK(m->dims[1].lo[0] == 1 && m->dims[1].hi[0] == 3);
    CHECK(m->dims[1].lo[1] == 5 && m->dims[1].hi[1] == 5);
    CHECK(m->filled[0].cell == 0 && m->filled[0].energy_j == 1);
    CHECK(m->filled[0].time_ms == 4);
    CHECK(m->filled[1].cell == 1 && m->filled[1].bin[0] == 0 && m->filled[1].bin[1] == 1);
    CHECK(m->filled[1].energy_j == 5);
    CHECK(m->filled[2].cell == 2 && m->filled[2].bin[0] == 1 && m->filled[2].bin[1] == 0);
    CHECK_STR(m->filled[2].config, "A=1,B=2");
    kt_map_free(m);
    toy_close(&t);
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* v[n] sorted, its distinct values first; how many. */
static size_t distinct(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp);
    size_t m = 1;
    for (size_t i = 1; i < n; i++)
        if (v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

/* Refreshing after every result or once at the end gives the same cells,
 * elites and order, and those are what one placement of every result
 * under the final quantile bins gives (computed here). */
static void test_refreshes_equal_one_placement(void)
{
    toy t = toy_open(B_ENERGY);
    kt_rng rng;
    kt_rng_seed(&rng, 11);
    for (int round = 0; round < 20; round++) {
        kt_archive *each, *once;  /* t.a stays empty */
        CHECK(kt_archive_new(t.f.space, &each, NULL) == KT_OK);
        CHECK(kt_archive_new(t.f.space, &once, NULL) == KT_OK);
        double energy[12], time[12], sorted[12];
        for (uint64_t i = 0; i < 12; i++) {
            energy[i] = sorted[i] = (double)kt_rng_below(&rng, 8);  /* ties too */
            time[i] = 1 + (double)kt_rng_below(&rng, 5);
            offer(each, i, time[i], energy[i]);
            offer(once, i, time[i], energy[i]);
            kt_archive_refresh(each);
        }
        kt_archive_refresh(once);
        size_t n = distinct(sorted, 12), bins = n < 2 ? n : 2;
        uint64_t want[6];
        for (int c = 0; c < 6; c++)
            want[c] = UINT64_MAX;
        for (uint64_t i = 0; i < 12; i++) {
            size_t rank = 0;
            while (sorted[rank] != energy[i])
                rank++;
            uint64_t c = kt_archive_group_of(once, i) * bins + rank * bins / n;
            if (want[c] == UINT64_MAX || time[i] < time[want[c]])
                want[c] = i;
        }
        CHECK(kt_archive_ncells(each) == 3 * bins && kt_archive_ncells(once) == 3 * bins);
        CHECK(kt_archive_occupied(each) == kt_archive_occupied(once));
        for (size_t k = 0; k < kt_archive_occupied(once); k++)
            CHECK(kt_archive_nth(each, k) == kt_archive_nth(once, k));
        for (uint64_t c = 0; c < 3 * bins; c++) {
            uint64_t i1 = UINT64_MAX, i2 = UINT64_MAX;
            double c1, c2;
            kt_archive_elite(each, c, &i1, &c1);
            kt_archive_elite(once, c, &i2, &c2);
            CHECK(i1 == want[c] && i2 == want[c]);
        }
        kt_archive_free(each);
        kt_archive_free(once);
    }
    toy_close(&t);
}

/* With every dimension measured there is one group, the whole space; the
 * fill wants as many results as cells; in one dimension quantile bins are
 * all filled. */
static void test_every_dimension_measured(void)
{
    toy t = toy_open("{\"Name\": \"t\", \"Measured\": \"time\", \"Bins\": 3}");
    kt_archive *a = t.a;
    CHECK(kt_archive_ngroups(a) == 1 && kt_archive_group_size(a, 0) == 12);
    CHECK(kt_archive_dim_measured(a, 0) == KT_MEASURED_TIME);
    for (uint64_t i = 0; i < 5; i++) {
        CHECK(kt_archive_few_placed(a) == (i < 3));  /* as many results as cells */
        offer(a, i, 10 - (double)i, 1);
    }
    kt_archive_refresh(a);
    CHECK(kt_archive_ncells(a) == 3 && kt_archive_occupied(a) == 3);
    check_range(a, 0, 0, 6, 7);  /* 6 7 | 8 9 | 10 */
    check_range(a, 0, 2, 10, 10);
    check_elite(a, 0, 4);
    check_elite(a, 2, 0);
    toy_close(&t);
}

/* Power is read as measured: a dimension of it bins the results' power. */
static void test_power_is_binned(void)
{
    toy t = toy_open("{\"Name\": \"w\", \"Measured\": \"power\", \"Bins\": 2}");
    kt_archive *a = t.a;
    kt_result r = ok(1, 0.1);
    for (uint64_t i = 0; i < 2; i++) {
        r.power_w = i ? 300 : 100;
        CHECK(kt_archive_offer(a, i, 1, &r) == KT_OK);
    }
    kt_archive_refresh(a);
    check_range(a, 0, 0, 100, 100);
    check_range(a, 0, 1, 300, 300);
    toy_close(&t);
}

/* The limit of 2^20 cells counts a measured dimension at its Bins. */
static void test_measured_bins_count_in_the_cell_limit(void)
{
#define M(name) "{\"Name\": \"" name "\", \"Measured\": \"time\", \"Bins\": 64}"
    fixture ok3 = fixture_open(TOY_PARAMS, "", TOY_DIMS "{\"Name\": \"b\", \"Expression\":"
                               " \"B\"}," M("t1") "," M("t2") "," M("t3"));
    fixture no4 = fixture_open(TOY_PARAMS, "", TOY_DIMS M("t1") "," M("t2") "," M("t3")
                               "," M("t4"));
#undef M
    kt_archive *a = NULL;
    kt_diag d = {{0}};
    CHECK(kt_archive_new(ok3.space, &a, &d) == KT_OK);  /* 3 * 64^3 */
    kt_archive_free(a);
    CHECK(kt_archive_new(no4.space, &a, &d) == KT_ESPEC && a == NULL); /* 64^4 */
    CHECK(strstr(d.msg, "more than 1048576 cells") != NULL);
    fixture_close(&ok3);
    fixture_close(&no4);
}

static const kt_test TESTS[] = {
    KT_T(test_a_result_is_placed_after_measuring),
    KT_T(test_bins_move_as_values_arrive),
    KT_T(test_elites_are_chosen_again),
    KT_T(test_results_without_the_value_are_counted),
    KT_T(test_the_map_shows_measured_bins),
    KT_T(test_refreshes_equal_one_placement),
    KT_T(test_every_dimension_measured),
    KT_T(test_power_is_binned),
    KT_T(test_measured_bins_count_in_the_cell_limit),
};

KT_TEST_MAIN(TESTS)
