/* faulty_ref.c - the trusted reference for faulty.c. */
void scale_ref(int n, const float *x, float *y)
{
    for (int i = 0; i < n; i++)
        y[i] = 2.0f * x[i] + 1.0f;
}
