/* datafile.h - an argument's data read from a file (T1's FillType
 * BinaryRaw and BinaryHDF): the inputs a kernel starts from, or the
 * expected values its outputs are checked against. */
#ifndef KT_DATAFILE_H
#define KT_DATAFILE_H

#include "core/spec.h"

/* Check, without reading the data, that d's file (d->fill KT_FILL_RAW or
 * KT_FILL_HDF5) holds count elements of type t: a raw file of exactly
 * count * kt_dtype_size(t) bytes, or an HDF5 dataset of count elements.
 * Errors are one line "SPEC: KEY.DataSource: 'FILE' ..." in diag. */
int kt_datafile_check(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                      kt_diag *diag);

/* Read the file's count elements of type t into dst, which holds that many;
 * nothing else is allocated for the data.  Raw files hold little-endian
 * elements; an HDF5 dataset is converted to t by the HDF5 library.  The
 * same checks and errors as kt_datafile_check. */
int kt_datafile_read(const kt_spec *spec, const kt_data *d, kt_dtype t, size_t count,
                     void *dst, kt_diag *diag);

#endif /* KT_DATAFILE_H */
