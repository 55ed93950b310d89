/* test_half.c - binary16 and bfloat16 conversions (src/core/half.c):
 * known values, rounding to nearest even (ties included), subnormals,
 * overflow, NaN, and every 16-bit pattern surviving a round trip. */
#include "core/half.h"
#include "test.h"

static float f_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static void test_half_known_values(void)
{
    CHECK_EQ_INT(kt_half_from_float(1.0f), 0x3c00);
    CHECK_EQ_INT(kt_half_from_float(-2.0f), 0xc000);
    CHECK_EQ_INT(kt_half_from_float(65504.0f), 0x7bff);     /* the largest */
    CHECK_EQ_INT(kt_half_from_float(65519.0f), 0x7bff);     /* rounds down */
    CHECK_EQ_INT(kt_half_from_float(65520.0f), 0x7c00);     /* rounds to inf */
    CHECK_EQ_INT(kt_half_from_float(-1e9f), 0xfc00);
    CHECK_EQ_INT(kt_half_from_float(f_of(0x33800000u)), 0x0001); /* 2^-24 */
    CHECK_EQ_INT(kt_half_from_float(f_of(0x33000000u)), 0x0000); /* 2^-25: tie to even 0 */
    CHECK_EQ_INT(kt_half_from_float(f_of(0x33c00000u)), 0x0002); /* 1.5 units: to even 2 */
    CHECK_EQ_INT(kt_half_from_float(f_of(0x38800000u)), 0x0400); /* 2^-14: smallest normal */
    CHECK_EQ_INT(kt_half_from_float(1.0f + f_of(0x3a000000u)), 0x3c00); /* 1 + 2^-11: tie, even */
    CHECK_EQ_INT(kt_half_from_float(1.0f + 3 * f_of(0x3a000000u)), 0x3c02); /* tie, up to even */
    CHECK(isnan(kt_half_to_float(kt_half_from_float(NAN))));
    CHECK(kt_half_to_float(0x7c00) == INFINITY);
    CHECK(kt_half_to_float(0x0001) == f_of(0x33800000u));
}

static void test_bf16_known_values(void)
{
    CHECK_EQ_INT(kt_bf16_from_float(1.0f), 0x3f80);
    CHECK_EQ_INT(kt_bf16_from_float(f_of(0x3f808000u)), 0x3f80); /* tie: to even */
    CHECK_EQ_INT(kt_bf16_from_float(f_of(0x3f818000u)), 0x3f82); /* tie: up to even */
    CHECK_EQ_INT(kt_bf16_from_float(f_of(0x3f808001u)), 0x3f81);
    CHECK(isnan(kt_bf16_to_float(kt_bf16_from_float(NAN))));
    CHECK(kt_bf16_to_float(0xff80) == -INFINITY);
}

static void test_every_pattern_round_trips(void)
{
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float a = kt_half_to_float((uint16_t)h), b = kt_bf16_to_float((uint16_t)h);
        if (!isnan(a))
            CHECK_EQ_INT(kt_half_from_float(a), h);
        if (!isnan(b))
            CHECK_EQ_INT(kt_bf16_from_float(b), h);
    }
}

/* The bulk conversions give every pattern the same bits as one at a time. */
static void test_bulk_conversions_match_every_pattern(void)
{
    uint16_t *in = malloc(0x10000 * sizeof *in);
    float *half = malloc(0x10000 * sizeof *half), *bf16 = malloc(0x10000 * sizeof *bf16);
    for (uint32_t h = 0; h < 0x10000u; h++)
        in[h] = (uint16_t)h;
    kt_half_to_float_n(in, half, 0x10000);
    kt_bf16_to_float_n(in, bf16, 0x10000);
    for (uint32_t h = 0; h < 0x10000u; h++) {
        float a = kt_half_to_float((uint16_t)h), b = kt_bf16_to_float((uint16_t)h);
        CHECK(memcmp(&a, &half[h], sizeof a) == 0);
        CHECK(memcmp(&b, &bf16[h], sizeof b) == 0);
    }
    free(in);
    free(half);
    free(bf16);
}

static const kt_test TESTS[] = {
    KT_T(test_bulk_conversions_match_every_pattern),
    KT_T(test_half_known_values),
    KT_T(test_bf16_known_values),
    KT_T(test_every_pattern_round_trips),
};
KT_TEST_MAIN(TESTS)
