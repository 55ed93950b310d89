/* conv_ref.cu - the trusted reference for the convolution kernels: one
 * thread per output element, the sum accumulated in double, in the order
 * of the definition (c, then r, then s). */
extern "C" __global__ void conv_ref(int N, int C, int H, int W, int K, int R, int S,
                                    int stride, int pad, int P, int Q, const float *X,
                                    const float *Wt, float *Y)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)N * K * P * Q)
        return;
    int q = (int)(i % Q), p = (int)(i / Q % P), k = (int)(i / ((long long)P * Q) % K);
    int n = (int)(i / ((long long)K * P * Q));
    double sum = 0;
    for (int c = 0; c < C; c++)
        for (int r = 0; r < R; r++)
            for (int s = 0; s < S; s++) {
                int h = p * stride - pad + r, w = q * stride - pad + s;
                if (h >= 0 && h < H && w >= 0 && w < W)
                    sum += (double)X[(((long long)n * C + c) * H + h) * W + w] *
                           Wt[(((long long)k * C + c) * R + r) * S + s];
            }
    Y[i] = (float)sum;
}
