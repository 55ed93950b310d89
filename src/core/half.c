/* half.c - binary16, bfloat16 and FP8 E4M3 conversions; see half.h. */
#include "core/half.h"

#include <string.h>

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float float_of(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

uint16_t kt_half_from_float(float f)
{
    uint32_t u = bits_of(f), sign = (u >> 16) & 0x8000u, mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u) /* NaN: keep it quiet */
        return (uint16_t)(sign | 0x7e00u);
    if (mag >= 0x477ff000u) /* rounds to 65536 or more: infinity */
        return (uint16_t)(sign | 0x7c00u);
    if (mag < 0x38800000u) { /* below 2^-14: subnormal half (or zero) */
        /* the value in units of 2^-24, rounded to nearest even */
        uint32_t m = (mag & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(mag >> 23); /* 14 + (127 - 1 - exponent) */
        if (mag < 0x33000000u) /* below 2^-25: rounds to zero */
            return (uint16_t)sign;
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        q += rem > half || (rem == half && (q & 1));
        return (uint16_t)(sign | q);
    }
    uint32_t h = ((mag >> 13) - (112u << 10)), rem = mag & 0x1fffu; /* rebias 127 -> 15 */
    h += rem > 0x1000u || (rem == 0x1000u && (h & 1));
    return (uint16_t)(sign | h);
}

float kt_half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
    if (e == 0x1f) /* infinity or NaN */
        return float_of(sign | 0x7f800000u | (m << 13));
    if (e == 0) { /* zero or subnormal: m * 2^-24 */
        float v = (float)m * float_of(0x33800000u);
        return sign ? -v : v;
    }
    return float_of(sign | ((e + 112u) << 23) | (m << 13));
}

uint16_t kt_bf16_from_float(float f)
{
    uint32_t u = bits_of(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((u >> 16) | 0x40u);
    u += 0x7fffu + ((u >> 16) & 1u);
    return (uint16_t)(u >> 16);
}

float kt_bf16_to_float(uint16_t h) { return float_of((uint32_t)h << 16); }

/* One half's bits as a float's: the magnitude's bits shifted into a
 * float's place, times 2^112, rebias the exponent exactly (a subnormal half
 * becomes a normal float on the way); an all-ones exponent (infinity, NaN)
 * is set to the float's. */
static inline float half_bits_to_float(uint32_t h)
{
    float v = float_of((h & 0x7fffu) << 13) * float_of(0x77800000u); /* 2^112 */
    uint32_t inf_nan = (h & 0x7c00u) == 0x7c00u ? 0x7f800000u : 0;
    return float_of(bits_of(v) | inf_nan | (h & 0x8000u) << 16);
}

/* Blocks of a fixed 8 elements: a loop of known length is one that gcc's
 * -O2 vectorises. */
#define BLOCK 8

void kt_half_to_float_n(const uint16_t *in, float *out, size_t n)
{
    size_t i = 0;
    for (; i + BLOCK <= n; i += BLOCK)
        for (size_t j = 0; j < BLOCK; j++)
            out[i + j] = half_bits_to_float(in[i + j]);
    for (; i < n; i++)
        out[i] = half_bits_to_float(in[i]);
}

void kt_bf16_to_float_n(const uint16_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = float_of((uint32_t)in[i] << 16);
}

/* E4M3 (OCP FP8, "fn"): sign, 4 exponent bits biased by 7, 3 mantissa
 * bits; no infinity, S.1111.111 is NaN, so the largest finite is
 * 1.75 * 2^8 = 448 and the smallest subnormal 2^-9. */
#define E4M3_MAX 0x43e00000u     /* 448.0f */
#define E4M3_HALF_MIN 0x3a800000u /* 2^-10: half the smallest subnormal */
#define E4M3_NORMAL_MIN 0x3c800000u /* 2^-6 */

uint8_t kt_e4m3_from_float(float f)
{
    uint32_t u = bits_of(f), sign = (u >> 24) & 0x80u, mag = u & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return (uint8_t)(sign | 0x7fu);
    if (mag >= E4M3_MAX) /* satfinite, as cvt.rn.satfinite.e4m3x2.f32 */
        return (uint8_t)(sign | 0x7eu);
    if (mag <= E4M3_HALF_MIN) /* 2^-10 is a tie: to even, zero */
        return (uint8_t)sign;
    if (mag < E4M3_NORMAL_MIN) {
        /* in units of 2^-9: the significand shifted right by 141 - exponent
         * (at least 21, at most 24 here); a result of 8 is the code of 2^-6 */
        uint32_t m = (mag & 0x7fffffu) | 0x800000u;
        int shift = 141 - (int)(mag >> 23);
        uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        q += rem > half || (rem == half && (q & 1));
        return (uint8_t)(sign | q);
    }
    uint32_t q = (mag >> 20) - (120u << 3), rem = mag & 0xfffffu; /* rebias 127 -> 7 */
    q += rem > 0x80000u || (rem == 0x80000u && (q & 1));
    return (uint8_t)(sign | q);
}

float kt_e4m3_to_float(uint8_t b)
{
    uint32_t sign = (uint32_t)(b & 0x80u) << 24, e = (b >> 3) & 0xfu, m = b & 7u;
    if ((b & 0x7fu) == 0x7fu)
        return float_of(sign | 0x7fc00000u);
    if (e == 0) { /* zero or subnormal: m * 2^-9 */
        float v = (float)m * float_of(0x3b000000u);
        return sign ? -v : v;
    }
    return float_of(sign | ((e + 120u) << 23) | (m << 20));
}

void kt_e4m3_to_float_n(const uint8_t *in, float *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = kt_e4m3_to_float(in[i]);
}
