/* half.h - IEEE binary16 ("half") and bfloat16 conversions for 16-bit
 * kernel arguments: random inputs are rounded to them, outputs read back
 * through them.  Round to nearest even; NaN stays NaN, overflow becomes
 * infinity. */
#ifndef KT_HALF_H
#define KT_HALF_H

#include <stddef.h>
#include <stdint.h>

uint16_t kt_half_from_float(float f);
float kt_half_to_float(uint16_t h);
uint16_t kt_bf16_from_float(float f);
float kt_bf16_to_float(uint16_t h);
/* in[0..n) to out[0..n), the same values as the functions above, without a
 * branch, so that the loop vectorises: a 4096^2 output is read back per
 * configuration tuned. */
void kt_half_to_float_n(const uint16_t *in, float *out, size_t n);
void kt_bf16_to_float_n(const uint16_t *in, float *out, size_t n);

#endif /* KT_HALF_H */
