/* faulty.c - a kernel whose MODE parameter selects how it misbehaves, for
 * testing that the tuner classifies every failure and keeps going.
 *   0 correct            4 does not compile
 *   1 segfaults          5 writes into its read-only input
 *   2 never returns      6 writes past the end of its output
 *   3 computes wrongly   7 leaves the last output element unwritten
 *   8 correct, but prints to stdout on its first call
 * VARIANT changes nothing but the loop shape: it gives the space two
 * correct configurations. */
#ifndef MODE
#define MODE 0
#endif
#ifndef VARIANT
#define VARIANT 1
#endif

#if MODE == 4
#error "this configuration is broken on purpose"
#endif
#if MODE == 8
#include <stdio.h>
#endif

void scale(int n, const float *x, float *y)
{
#if MODE == 1
    /* Far outside any mapping; the compiler cannot prove it invalid. */
    y[(long)n << 28] = 1.0f;
#elif MODE == 2
    for (;;)
        __asm__ volatile("");
#elif MODE == 5
    ((float *)x)[0] = 0.0f;
#elif MODE == 8
    static int said;
    if (!said++)
        printf("noise from a kernel\n");
#endif
    int end = n;
#if MODE == 6
    end = n + 65536;
#elif MODE == 7
    end = n - 1;
#endif
    for (int i = 0; i < end; i += VARIANT)
        for (int j = i; j < i + VARIANT && j < end; j++)
#if MODE == 3
            y[j] = 2.0f * x[j];
#elif MODE == 6
            y[j] = 2.0f * x[j % n] + 1.0f;
#else
            y[j] = 2.0f * x[j] + 1.0f;
#endif
}
