/* saxpy_ref.cl - the trusted saxpy: one element per work-item. */
__kernel void saxpy_ref(const int n, const float a, __global const float *x,
                        __global const float *y, __global float *z)
{
    const int i = (int)get_global_id(0);
    if (i < n)
        z[i] = a * x[i] + y[i];
}
