/* test_e4m3.c - the FP8 E4M3 type (src/core/half.c and the places a dtype
 * reaches: specs, verification): known values, every one of the 256 codes
 * surviving a round trip, NaN, saturation, and rounding to the nearest code
 * (ties to even) checked against a search over all codes. */
#include "core/half.h"
#include "core/util.h"
#include "measure/measure.h"
#include "spec_util.h"
#include "test.h"

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_e4m3_known_values(void)
{
    CHECK_EQ_INT(kt_e4m3_from_float(1.0f), 0x38);
    CHECK_EQ_INT(kt_e4m3_from_float(-2.0f), 0xc0);
    CHECK_EQ_INT(kt_e4m3_from_float(448.0f), 0x7e);      /* the largest */
    CHECK_EQ_INT(kt_e4m3_from_float(-448.0f), 0xfe);
    CHECK_EQ_INT(kt_e4m3_from_float(0.0f), 0x00);
    CHECK_EQ_INT(kt_e4m3_from_float(-0.0f), 0x80);
    CHECK_EQ_INT(kt_e4m3_from_float(f_of(0x3b000000u)), 0x01); /* 2^-9: smallest */
    CHECK_EQ_INT(kt_e4m3_from_float(f_of(0x3c800000u)), 0x08); /* 2^-6: smallest normal */
    CHECK(kt_e4m3_to_float(0x7e) == 448.0f);
    CHECK(kt_e4m3_to_float(0x01) == f_of(0x3b000000u));
    CHECK(kt_e4m3_to_float(0x07) == 7 * f_of(0x3b000000u)); /* largest subnormal */
    CHECK(kt_e4m3_to_float(0x78) == 256.0f);    /* the all-ones exponent is finite */
    CHECK(kt_e4m3_to_float(0xb8) == -1.0f);
}

static void test_e4m3_nan_and_saturation(void)
{
    CHECK(isnan(kt_e4m3_to_float(0x7f)));
    CHECK(isnan(kt_e4m3_to_float(0xff)));
    CHECK_EQ_INT(kt_e4m3_from_float(NAN), 0x7f);
    CHECK_EQ_INT(kt_e4m3_from_float(-NAN), 0xff);
    /* no infinity: beyond 448 saturates, as cvt.rn.satfinite */
    CHECK_EQ_INT(kt_e4m3_from_float(464.0f), 0x7e);
    CHECK_EQ_INT(kt_e4m3_from_float(480.0f), 0x7e);
    CHECK_EQ_INT(kt_e4m3_from_float(1e30f), 0x7e);
    CHECK_EQ_INT(kt_e4m3_from_float(INFINITY), 0x7e);
    CHECK_EQ_INT(kt_e4m3_from_float(-INFINITY), 0xfe);
}

static void test_e4m3_rounds_to_nearest_even(void)
{
    float sub = f_of(0x3b000000u); /* 2^-9 */
    CHECK_EQ_INT(kt_e4m3_from_float(1.0625f), 0x38);    /* 1 + 1/16: tie, to even 1 */
    CHECK_EQ_INT(kt_e4m3_from_float(1.1875f), 0x3a);    /* tie, up to even 1.25 */
    CHECK_EQ_INT(kt_e4m3_from_float(1.0626f), 0x39);
    CHECK_EQ_INT(kt_e4m3_from_float(1.9375f), 0x40);    /* tie: carries into 2 */
    CHECK_EQ_INT(kt_e4m3_from_float(0.5f * sub), 0x00); /* tie to even zero */
    CHECK_EQ_INT(kt_e4m3_from_float(0.51f * sub), 0x01);
    CHECK_EQ_INT(kt_e4m3_from_float(-0.49f * sub), 0x80);
    CHECK_EQ_INT(kt_e4m3_from_float(1.5f * sub), 0x02); /* tie, up to even */
    CHECK_EQ_INT(kt_e4m3_from_float(7.5f * sub), 0x08); /* tie: up into the normals */
    CHECK_EQ_INT(kt_e4m3_from_float(f_of(0x0000001u)), 0x00); /* float subnormal */
}

static void test_every_e4m3_code_round_trips(void)
{
    for (uint32_t b = 0; b < 256; b++) {
        float f = kt_e4m3_to_float((uint8_t)b);
        if ((b & 0x7f) == 0x7f)
            CHECK(isnan(f) && kt_e4m3_from_float(f) == b);
        else
            CHECK_EQ_INT(kt_e4m3_from_float(f), b);
    }
}

/* The code nearest to x by a search of all finite codes, ties to the even
 * code; saturated at +-448. */
static unsigned nearest(double x)
{
    unsigned best = 0;
    double dist = INFINITY;
    for (unsigned b = 0; b < 0x7f; b++) {
        double d = fabs(fabs(x) - kt_e4m3_to_float((uint8_t)b));
        if (d < dist || (d == dist && b % 2 == 0)) {
            best = b;
            dist = d;
        }
    }
    return best | (x < 0 || (x == 0 && signbit(x)) ? 0x80u : 0);
}

static void test_rounding_matches_a_search_of_all_codes(void)
{
    /* every code, the midpoints between neighbours and points just off
     * them, then random values over the whole range */
    for (unsigned b = 0; b < 0x7e; b++) {
        double lo = kt_e4m3_to_float((uint8_t)b), hi = kt_e4m3_to_float((uint8_t)(b + 1));
        double mid = (lo + hi) / 2, off = (hi - lo) / 64;
        double xs[] = {lo, mid, mid - off, mid + off, -mid, -(mid + off)};
        for (size_t i = 0; i < KT_ARRAY_LEN(xs); i++)
            CHECK_EQ_INT(kt_e4m3_from_float((float)xs[i]), nearest(xs[i]));
    }
    kt_rng rng;
    kt_rng_seed(&rng, 3);
    for (int i = 0; i < 20000; i++) {
        float x = (float)((2 * kt_rng_unit(&rng) - 1) * pow(2, 22 * kt_rng_unit(&rng) - 20) * 250);
        CHECK_EQ_INT(kt_e4m3_from_float(x), nearest(x));
    }
}

static void test_bulk_conversion_matches(void)
{
    uint8_t in[256];
    float out[256];
    for (unsigned b = 0; b < 256; b++)
        in[b] = (uint8_t)b;
    kt_e4m3_to_float_n(in, out, 256);
    for (unsigned b = 0; b < 256; b++) {
        float a = kt_e4m3_to_float((uint8_t)b);
        CHECK(memcmp(&a, &out[b], sizeof a) == 0);
    }
}

/* A spec argument of type float8_e4m3 (or e4m3) is one byte an element,
 * and verification reads it as E4M3: one code apart fails at 1e-3, the
 * same codes pass, a NaN code fails. */
static void test_spec_type_and_verification(void)
{
    char kernel[PATH_MAX], text[PATH_MAX + 1024];
    CHECK(realpath(kt_test_path("tests/kernels/faulty.c"), kernel) != NULL);
    snprintf(text, sizeof text,
             "{\"ConfigurationSpace\": {\"TuningParameters\": [{\"Name\": \"T\", \"Type\": \"int\", \"Values\": \"[1]\", \"Default\": 1}]},"
             " \"KernelSpecification\": {\"Language\": \"C\", \"KernelName\": \"scale\","
             " \"KernelFile\": \"%s\", \"Arguments\": ["
             "{\"Name\": \"x\", \"Type\": \"float8_e4m3\", \"MemoryType\": \"Vector\","
             " \"AccessType\": \"ReadOnly\", \"FillType\": \"Random\", \"Size\": 4},"
             "{\"Name\": \"y\", \"Type\": \"e4m3\", \"MemoryType\": \"Vector\","
             " \"AccessType\": \"WriteOnly\", \"Size\": 4}]}}",
             kernel);
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    int rc = load_text(text, &spec, &d);
    if (rc != KT_OK)
        fprintf(stderr, "%s\n", d.msg);
    CHECK(rc == KT_OK);
    CHECK_EQ_INT(spec->args[0].type, KT_DT_E4M3);
    CHECK_EQ_INT(spec->args[1].type, KT_DT_E4M3);
    kt_spec_free(spec);
    CHECK_EQ_INT(kt_dtype_size(KT_DT_E4M3), 1);

    uint8_t ref[4] = {0x38, 0xc0, 0x01, 0x3c}, got[4]; /* 1, -2, 2^-9, 1.5 */
    double err;
    char detail[200];
    memcpy(got, ref, sizeof got);
    CHECK(kt_verify(KT_DT_E4M3, KT_CHECK_RELATIVE, 1e-3, got, ref, 4, &err, detail,
                    sizeof detail));
    got[0] = 0x39; /* 1.125 for 1 */
    CHECK(!kt_verify(KT_DT_E4M3, KT_CHECK_RELATIVE, 1e-3, got, ref, 4, &err, detail,
                     sizeof detail));
    CHECK(kt_has_nan(KT_DT_E4M3, (uint8_t[]){0x38, 0x7f}, 2));
    CHECK(!kt_has_nan(KT_DT_E4M3, ref, 4));
}

static const kt_test TESTS[] = {
    KT_T(test_e4m3_known_values),
    KT_T(test_e4m3_nan_and_saturation),
    KT_T(test_e4m3_rounds_to_nearest_even),
    KT_T(test_every_e4m3_code_round_trips),
    KT_T(test_rounding_matches_a_search_of_all_codes),
    KT_T(test_bulk_conversion_matches),
    KT_T(test_spec_type_and_verification),
};
KT_TEST_MAIN(TESTS)
