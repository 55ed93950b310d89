/* online.c - a kernel with one clearly fastest configuration, for testing
 * online tuning (tests/test_online.c): its time grows with WORK (the
 * output is computed WORK times over), so WORK=1 is the best by far, and
 * MODE 1 computes wrongly, MODE 2 segfaults: configurations that the
 * isolated verification must stop before they serve in-process.  It
 * computes what faulty_ref.c does. */
#ifndef WORK
#define WORK 16
#endif
#ifndef MODE
#define MODE 0
#endif

void scale_work(int n, const float *x, float *y)
{
#if MODE == 2
    /* Far outside any mapping; the compiler cannot prove it invalid. */
    y[(long)n << 28] = 1.0f;
#endif
    for (int w = 0; w < WORK; w++) {
        for (int i = 0; i < n; i++)
#if MODE == 1
            y[i] = 2.0f * x[i];
#else
            y[i] = 2.0f * x[i] + 1.0f;
#endif
        /* Keeps the compiler from folding the repetitions into one. */
        __asm__ volatile("" : : "r"(y) : "memory");
    }
}
