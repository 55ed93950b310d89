/* half.h - IEEE binary16 ("half"), bfloat16 and FP8 E4M3 conversions for
 * 16- and 8-bit kernel arguments: random inputs are rounded to them,
 * outputs read back through them.  Round to nearest even; NaN stays NaN,
 * overflow becomes infinity, except in E4M3, which has none: there it
 * saturates to +-448, as CUDA's cvt.rn.satfinite does (so a value a kernel
 * rounds on the device gets the same code). */
#ifndef KT_HALF_H
#define KT_HALF_H

#include <stddef.h>
#include <stdint.h>

uint16_t kt_half_from_float(float f);
float kt_half_to_float(uint16_t h);
uint16_t kt_bf16_from_float(float f);
float kt_bf16_to_float(uint16_t h);
uint8_t kt_e4m3_from_float(float f);
float kt_e4m3_to_float(uint8_t b);
/* in[0..n) to out[0..n), the same values as the functions above, without a
 * branch, so that the loop vectorises: a 4096^2 output is read back per
 * configuration tuned. */
void kt_half_to_float_n(const uint16_t *in, float *out, size_t n);
void kt_bf16_to_float_n(const uint16_t *in, float *out, size_t n);
void kt_e4m3_to_float_n(const uint8_t *in, float *out, size_t n);

#endif /* KT_HALF_H */
