/* faulty.cu - a CUDA kernel whose MODE selects how it misbehaves, for the
 * GPU checks in bench/gpu/run.sh:
 *   0 correct              3 computes wrongly
 *   1 illegal address      4 does not compile
 *   2 never returns        5 asks for 2048 threads per block (invalid) */
#ifndef MODE
#define MODE 0
#endif
#if MODE == 4
#error "this configuration is broken on purpose"
#endif

extern "C" __global__ void scale(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
#if MODE == 1
    if (i == 0)
        y[(long)n << 30] = 1.0f;
#elif MODE == 2
    /* x holds values in [-1, 1): this never ends, and reading x through a
     * volatile pointer keeps the compiler from deciding so */
    if (i == 0)
        while (*(volatile const float *)x != 12345.0f)
            ;
#endif
    if (i < n)
#if MODE == 3
        y[i] = 2.0f * x[i];
#else
        y[i] = 2.0f * x[i] + 1.0f;
#endif
}

extern "C" __global__ void scale_ref(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = 2.0f * x[i] + 1.0f;
}
