/* mpi_wire.h - what the ranks of a distributed run (tune/mpi.h) say to
 * each other, as bytes: pure encoding, no MPI here, so that it is tested
 * alone.
 *
 * rank 0 -> rank r: WORK (a ticket and one configuration to compile and
 *                   measure), BEAT (rank 0 lives), STOP (no more work; its
 *                   code 1 when the job lost a rank, kt_mpi_close).
 * rank r -> rank 0: HELLO (ready, with the fingerprint of the device it
 *                   measures on), RESULT (a ticket and its kt_result),
 *                   BEAT (the rank lives while it measures), FAIL (its
 *                   setup failed: the error code and its message).
 *
 * Every message is small (at most KT_MPI_MSG_MAX bytes): OpenMPI sends
 * such a message eagerly, so a send to a rank that died completes, where a
 * large one would never complete and would hang MPI_Finalize
 * (bench/mpi_notes.md).  A message starts with a magic number and the
 * protocol version; numbers are in the sender's byte order, as every rank
 * runs the same build of ktune on the same kind of machine (the version
 * and a fixed layout still catch a mismatched build).
 */
#ifndef KT_MPI_WIRE_H
#define KT_MPI_WIRE_H

#include "core/base.h"

#define KT_MPI_MSG_MAX 4000   /* below OpenMPI's 4 KiB shared-memory eager limit */
#define KT_MPI_PROTOCOL 1

typedef enum kt_mpi_kind {
    KT_MPI_HELLO = 1,
    KT_MPI_WORK,
    KT_MPI_RESULT,
    KT_MPI_BEAT,
    KT_MPI_STOP,
    KT_MPI_FAIL,
} kt_mpi_kind;

/* One message, decoded. */
typedef struct kt_mpi_msg {
    kt_mpi_kind kind;
    uint64_t ticket;        /* WORK, RESULT: which evaluation */
    const uint16_t *cfg;    /* WORK, encoding: nparams value indices */
    size_t nparams;
    kt_result result;       /* RESULT */
    int code;               /* FAIL: a negative KT_E* code; STOP: 1 when
                               the job lost a rank */
    char text[512];         /* HELLO: the device's fingerprint; FAIL: the
                               message */
} kt_mpi_msg;

/* Encode m into buf (cap bytes, at least KT_MPI_MSG_MAX); *len gets the
 * bytes used.  KT_ERANGE when a WORK message's configuration does not fit
 * (more than about 1,900 parameters). */
int kt_mpi_encode(const kt_mpi_msg *m, unsigned char *buf, size_t cap, size_t *len);

/* Decode len bytes into *m.  A WORK message's values go to cfg, which
 * holds nparams entries (m->cfg then points there); one of another length
 * is refused.  KT_EFORMAT, with why in diag, for a short or foreign
 * message, another protocol version or an unknown kind. */
int kt_mpi_decode(const unsigned char *buf, size_t len, uint16_t *cfg, size_t nparams,
                  kt_mpi_msg *m, kt_diag *diag);

#endif /* KT_MPI_WIRE_H */
