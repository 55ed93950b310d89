/* half.h - IEEE binary16 ("half") and bfloat16 conversions for 16-bit
 * kernel arguments: random inputs are rounded to them, outputs read back
 * through them.  Round to nearest even; NaN stays NaN, overflow becomes
 * infinity. */
#ifndef KT_HALF_H
#define KT_HALF_H

#include <stdint.h>

uint16_t kt_half_from_float(float f);
float kt_half_to_float(uint16_t h);
uint16_t kt_bf16_from_float(float f);
float kt_bf16_to_float(uint16_t h);

#endif /* KT_HALF_H */
