/* datafile.c - read an argument's data from a file: T1's BinaryRaw (the
 * elements as little-endian bytes, nothing else) and BinaryHDF (one
 * dataset of an HDF5 file).
 *
 * The HDF5 library is loaded with dlopen when a spec asks for it, like the
 * CUDA libraries: a program linked against it would pull in some thirty
 * libraries (curl, TLS, Kerberos) on every start, and the relocatable
 * bundle for the GPU machine, which has no package manager, would need
 * them all.  Without it, only BinaryHDF data is refused, with a hint.
 * Only its header is needed to build (libhdf5-dev), for the types; its
 * macros that call into the library (H5F_ACC_RDONLY, H5T_NATIVE_*) are
 * replaced by their values and by the variables behind them.
 *
 * Which dataset: the file's only object at the top level, else the one
 * named after the argument (for expected values, the TargetName).
 */
#include "measure/datafile.h"
#include "core/util.h"
#include "measure/measure.h"

#include <dlfcn.h>
#include <errno.h>
#include <hdf5.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* "SPEC: KEY.DataSource: 'FILE' " and the rest of the message. */
#define FILE_FAIL(diag, code, spec, d, fmt, ...)                                        \
    kt_fail(diag, code, "%s: %s.DataSource: '%s' " fmt, (spec)->path, (d)->key,       \
            (d)->file, __VA_ARGS__)

/* ------------------------------------------------------------------ raw */

static int raw_check(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                     kt_diag *diag)
{
    struct stat st;
    size_t want = count * kt_dtype_size(t);
    if (stat(d->file, &st) != 0)
        return FILE_FAIL(diag, KT_EIO, spec, d, "cannot be read: %s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return FILE_FAIL(diag, KT_EIO, spec, d, "is %s", "not a regular file");
    if ((uint64_t)st.st_size != (uint64_t)want)
        return FILE_FAIL(diag, KT_ESPEC, spec, d, "holds %llu bytes, but the argument is "
                         "%zu elements of %zu bytes (%zu bytes)",
                         (unsigned long long)st.st_size, count, kt_dtype_size(t), want);
    return KT_OK;
}

/* The file is little-endian; turn each element around on a big-endian host. */
static void from_little_endian(void *p, size_t count, size_t size)
{
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    unsigned char *b = p;
    for (size_t i = 0; i < count; i++, b += size)
        for (size_t j = 0; j < size / 2; j++) {
            unsigned char c = b[j];
            b[j] = b[size - 1 - j];
            b[size - 1 - j] = c;
        }
#else
    (void)p, (void)count, (void)size;
#endif
}

static int raw_read(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                    void *dst, kt_diag *diag)
{
    int rc = raw_check(spec, d, t, count, diag);
    if (rc != KT_OK)
        return rc;
    FILE *f = fopen(d->file, "rb");
    if (!f)
        return FILE_FAIL(diag, KT_EIO, spec, d, "cannot be read: %s", strerror(errno));
    size_t got = fread(dst, kt_dtype_size(t), count, f);
    bool failed = ferror(f);
    fclose(f);
    if (got != count)
        return FILE_FAIL(diag, KT_EIO, spec, d, "ended after %zu of %zu elements%s", got,
                         count, failed ? " (read error)" : "");
    from_little_endian(dst, count, kt_dtype_size(t));
    return KT_OK;
}

/* ----------------------------------------------------------------- HDF5 */

/* The HDF5 functions used, resolved from the library. */
typedef struct h5_api {
    __typeof__(H5open) *open;
    __typeof__(H5Eset_auto2) *eset_auto;
    __typeof__(H5Fopen) *fopen;
    __typeof__(H5Fclose) *fclose;
    __typeof__(H5Gget_info) *gget_info;
    __typeof__(H5Lget_name_by_idx) *lget_name_by_idx;
    __typeof__(H5Dopen2) *dopen;
    __typeof__(H5Dclose) *dclose;
    __typeof__(H5Dget_space) *dget_space;
    __typeof__(H5Dread) *dread;
    __typeof__(H5Sget_simple_extent_npoints) *npoints;
    __typeof__(H5Sclose) *sclose;
    __typeof__(H5Tcopy) *tcopy;
    __typeof__(H5Tset_fields) *tset_fields;
    __typeof__(H5Tset_size) *tset_size;
    __typeof__(H5Tset_ebias) *tset_ebias;
    __typeof__(H5Tclose) *tclose;
    const hid_t *native[KT_DT_BF16 + 1]; /* H5T_NATIVE_*_g by kt_dtype; NULL: none
                                            (the 16-bit floats) */
} h5_api;

#define H5F(field, name) {name, offsetof(h5_api, field)}
#define H5N(type, name) {name, offsetof(h5_api, native) + (type) * sizeof(hid_t *)}
static const struct {
    const char *name;
    size_t offset;      /* of the pointer in h5_api */
} H5_SYMBOLS[] = {
    H5F(open, "H5open"),        H5F(eset_auto, "H5Eset_auto2"),
    H5F(fopen, "H5Fopen"),      H5F(fclose, "H5Fclose"),
    H5F(gget_info, "H5Gget_info"), H5F(lget_name_by_idx, "H5Lget_name_by_idx"),
    H5F(dopen, "H5Dopen2"),     H5F(dclose, "H5Dclose"),
    H5F(dget_space, "H5Dget_space"), H5F(dread, "H5Dread"),
    H5F(npoints, "H5Sget_simple_extent_npoints"), H5F(sclose, "H5Sclose"),
    H5F(tcopy, "H5Tcopy"),      H5F(tset_fields, "H5Tset_fields"),
    H5F(tset_size, "H5Tset_size"), H5F(tset_ebias, "H5Tset_ebias"),
    H5F(tclose, "H5Tclose"),
    H5N(KT_DT_INT8, "H5T_NATIVE_INT8_g"),     H5N(KT_DT_UINT8, "H5T_NATIVE_UINT8_g"),
    H5N(KT_DT_INT16, "H5T_NATIVE_INT16_g"),   H5N(KT_DT_UINT16, "H5T_NATIVE_UINT16_g"),
    H5N(KT_DT_INT32, "H5T_NATIVE_INT32_g"),   H5N(KT_DT_UINT32, "H5T_NATIVE_UINT32_g"),
    H5N(KT_DT_INT64, "H5T_NATIVE_INT64_g"),   H5N(KT_DT_UINT64, "H5T_NATIVE_UINT64_g"),
    H5N(KT_DT_FLOAT, "H5T_NATIVE_FLOAT_g"),   H5N(KT_DT_DOUBLE, "H5T_NATIVE_DOUBLE_g"),
};

/* Load the library and switch off its printing of error stacks (the
 * library part of ktune never prints).  It stays loaded (RTLD_NODELETE):
 * HDF5 registers an exit handler inside itself. */
static int h5_load(h5_api *h, kt_diag *diag)
{
    static const char *const NAMES[] = {"libhdf5_serial.so.103", "libhdf5.so.103",
                                        "libhdf5_serial.so", "libhdf5.so"};
    void *lib = NULL;
    for (size_t i = 0; i < KT_ARRAY_LEN(NAMES) && !lib; i++)
        lib = dlopen(NAMES[i], RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!lib)
        return kt_fail(diag, KT_EIO, "reading BinaryHDF data needs the HDF5 library "
                       "(Debian: libhdf5-103-1), which is not available (%s)", dlerror());
    *h = (h5_api){0};
    for (size_t i = 0; i < KT_ARRAY_LEN(H5_SYMBOLS); i++) {
        void *p = dlsym(lib, H5_SYMBOLS[i].name);
        if (!p)
            return kt_fail(diag, KT_EIO, "the HDF5 library lacks '%s'", H5_SYMBOLS[i].name);
        memcpy((char *)h + H5_SYMBOLS[i].offset, &p, sizeof p);
    }
    if (h->open() < 0)
        return kt_fail(diag, KT_EIO, "the HDF5 library did not start");
    h->eset_auto(H5E_DEFAULT, NULL, NULL);
    return KT_OK;
}

/* The dataset to read: the file's only top-level object, else the one
 * named d->dataset.  *set < 0 after an error. */
static int h5_dataset(const h5_api *h, const kt_spec *spec, const kt_data *d, hid_t file,
                      hid_t *set, kt_diag *diag)
{
    H5G_info_t info;
    char only[256];
    const char *name = d->dataset;
    *set = -1;
    if (h->gget_info(file, &info) < 0)
        return FILE_FAIL(diag, KT_EIO, spec, d, "has %s", "no readable top-level group");
    if (info.nlinks == 1 &&
        h->lget_name_by_idx(file, ".", H5_INDEX_NAME, H5_ITER_INC, 0, only, sizeof only,
                            H5P_DEFAULT) > 0)
        name = only;
    *set = h->dopen(file, name, H5P_DEFAULT);
    if (*set < 0)
        return FILE_FAIL(diag, KT_ESPEC, spec, d, "holds %llu top-level objects and no "
                         "dataset '%s' (keep one dataset in the file, or name it after "
                         "the argument)", (unsigned long long)info.nlinks, name);
    return KT_OK;
}

/* The memory type of t: native, or for the 16-bit floats, which HDF5 has
 * no native type for, float's layout cut down to IEEE binary16 or bfloat16
 * (sign at bit 15, then exponent, then mantissa), so that the library
 * converts and rounds to them itself.  Close it with h5_type_close. */
static hid_t h5_type(const h5_api *h, kt_dtype t)
{
    /* E4M3 spends its all-ones exponent on finite numbers (256 to 448),
     * which HDF5's soft float conversion would read as infinity or NaN */
    if (t == KT_DT_E4M3)
        return -1;
    if (t != KT_DT_HALF && t != KT_DT_BF16)
        return *h->native[t];
    size_t mant = t == KT_DT_HALF ? 10 : 7;
    hid_t m = h->tcopy(*h->native[KT_DT_FLOAT]);
    if (m >= 0 && (h->tset_fields(m, 15, mant, 15 - mant, 0, mant) < 0 ||
                   h->tset_size(m, 2) < 0 ||
                   h->tset_ebias(m, t == KT_DT_HALF ? 15 : 127) < 0)) {
        h->tclose(m);
        m = -1;
    }
    return m;
}

static void h5_type_close(const h5_api *h, kt_dtype t, hid_t m)
{
    if ((t == KT_DT_HALF || t == KT_DT_BF16) && m >= 0)
        h->tclose(m);
}

/* Read the dataset into dst as t. */
static int h5_read(const h5_api *h, const kt_spec *spec, const kt_data *d, hid_t set,
                   kt_dtype t, void *dst, kt_diag *diag)
{
    hid_t m = h5_type(h, t);
    int rc = m >= 0 && h->dread(set, m, H5S_ALL, H5S_ALL, H5P_DEFAULT, dst) >= 0
                 ? KT_OK
                 : FILE_FAIL(diag, KT_EIO, spec, d, "has a dataset that cannot be read "
                             "as %s", "the argument's type");
    h5_type_close(h, t, m);
    return rc;
}

/* Open the dataset and check its element count; dst, if not NULL, gets
 * the data converted to t. */
static int h5_access(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                     void *dst, kt_diag *diag)
{
    h5_api h;
    int rc = h5_load(&h, diag);
    if (rc != KT_OK)
        return rc;
    hid_t file = h.fopen(d->file, 0x0000u /* H5F_ACC_RDONLY */, H5P_DEFAULT), set = -1;
    if (file < 0) {
        struct stat st;
        return stat(d->file, &st) != 0
                   ? FILE_FAIL(diag, KT_EIO, spec, d, "cannot be read: %s", strerror(errno))
                   : FILE_FAIL(diag, KT_EIO, spec, d, "is %s", "not an HDF5 file");
    }
    rc = h5_dataset(&h, spec, d, file, &set, diag);
    hid_t space = rc == KT_OK ? h.dget_space(set) : -1;
    hssize_t n = space >= 0 ? h.npoints(space) : -1;
    if (rc == KT_OK && (n < 0 || (uint64_t)n != (uint64_t)count))
        rc = FILE_FAIL(diag, KT_ESPEC, spec, d, "holds a dataset of %lld elements, but the "
                       "argument is %zu elements", (long long)n, count);
    if (rc == KT_OK && dst)
        rc = h5_read(&h, spec, d, set, t, dst, diag);
    if (space >= 0)
        h.sclose(space);
    if (set >= 0)
        h.dclose(set);
    h.fclose(file);
    return rc;
}

/* --------------------------------------------------------------- public */

int kt_datafile_check(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                      kt_diag *diag)
{
    return d->fill == KT_FILL_HDF5 ? h5_access(spec, d, t, count, NULL, diag)
                                   : raw_check(spec, d, t, count, diag);
}

int kt_datafile_read(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                     void *dst, kt_diag *diag)
{
    return d->fill == KT_FILL_HDF5 ? h5_access(spec, d, t, count, dst, diag)
                                   : raw_read(spec, d, t, count, dst, diag);
}
