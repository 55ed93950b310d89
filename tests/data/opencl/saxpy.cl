/* saxpy.cl - z = a * x + y, WPT elements per work-item, BS work-items per
 * group (the launch's local size, passed as a define too): a small OpenCL
 * kernel for the backend's tests. */
__kernel void saxpy(const int n, const float a, __global const float *x,
                    __global const float *y, __global float *z)
{
    const int base = (int)get_group_id(0) * BS * WPT + (int)get_local_id(0);
    for (int w = 0; w < WPT; w++) {
        const int i = base + w * BS;
        if (i < n)
            z[i] = a * x[i] + y[i];
    }
}
