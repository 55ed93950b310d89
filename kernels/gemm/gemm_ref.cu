/* gemm_ref.cu - the trusted reference for gemm.cu: one thread per element
 * of C, accumulating in double. */
extern "C" __global__ void gemm_ref(int M, int N, int K, const float *A, const float *B,
                                    float *C)
{
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= M || c >= N)
        return;
    double sum = 0;
    for (int k = 0; k < K; k++)
        sum += (double)A[(size_t)r * K + k] * B[(size_t)k * N + c];
    C[(size_t)r * N + c] = (float)sum;
}
