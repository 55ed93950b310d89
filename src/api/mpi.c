/* mpi.c - the public face of distributed runs (include/ktune.h, "distributed
 * runs") over the tune layer's tune/mpi.c. */
#include "core/util.h"
#include "tune/mpi.h"

int ktune_mpi_open(ktune_mpi **out, ktune_diag *diag)
{
    if (!out)
        return kt_fail(diag, KT_EINVAL, "ktune_mpi_open: out is NULL");
    return kt_mpi_open(out, diag);
}

void ktune_mpi_close(ktune_mpi *m) { kt_mpi_close(m); }
int ktune_mpi_rank(const ktune_mpi *m) { return kt_mpi_rank(m); }
int ktune_mpi_size(const ktune_mpi *m) { return kt_mpi_size(m); }
