/* make-h5.c - writes the HDF5 fixtures of tests/test_fills.c (they are
 * committed; this is how they were made):
 *   cc make-h5.c $(pkg-config --cflags --libs hdf5) -o /tmp/make-h5 && /tmp/make-h5
 * one.h5: one dataset "values", 6 doubles 0.5, 1.5, ... 5.5 (2 x 3);
 * two.h5: datasets "x" (4 int32: 1 2 3 4) and "y" (4 floats: -1 -2 -3 -4). */
#include <hdf5.h>

static void put(hid_t file, const char *name, hid_t type, int rank, const hsize_t *dims,
                const void *data)
{
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t set = H5Dcreate2(file, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(set, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(set);
    H5Sclose(space);
}

int main(void)
{
    double values[6] = {0.5, 1.5, 2.5, 3.5, 4.5, 5.5};
    int x[4] = {1, 2, 3, 4};
    float y[4] = {-1, -2, -3, -4};
    hsize_t d23[2] = {2, 3}, d4[1] = {4};
    hid_t f = H5Fcreate("one.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put(f, "values", H5T_IEEE_F64LE, 2, d23, values);
    H5Fclose(f);
    f = H5Fcreate("two.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    put(f, "x", H5T_STD_I32LE, 1, d4, x);
    put(f, "y", H5T_IEEE_F32LE, 1, d4, y);
    H5Fclose(f);
    return 0;
}
