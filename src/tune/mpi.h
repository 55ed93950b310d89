/* mpi.h - a tuning run spread over the ranks of an MPI job
 * (`mpirun --enable-recovery -n N ktune tune ...`).
 *
 * Every rank runs the same command.  Rank 0 runs the strategy and owns the
 * database: its tuner hands each batch's misses to the MPI executor
 * (kt_exec_mpi_open), which gives each measuring rank at most four
 * configurations per compiler (--jobs) at a time, more as its results come
 * back (the rank measures what has arrived as one batch), and takes the
 * results back in the order they come.  Ranks 1..N-1 serve (kt_mpi_serve): each compiles
 * and measures what it is given with the local executor (tune/exec.h: its
 * own compiler jobs and its own isolated worker) on its own device, the
 * ordinal being its place among the measuring ranks of its node (on rank
 * 0's node ranks 1, 2, ... measure on devices 0, 1, ...; on another node
 * its first rank measures on device 0).
 *
 * A rank that dies loses what it held: rank 0 takes a measuring rank that
 * has been silent for rank_timeout_s seconds (each rank beats and hears
 * beats on a thread of its own, so a main thread busy measuring for
 * minutes neither falls silent nor stops hearing) as dead, and hands its
 * configurations to the others, so the stored rows are those of a single
 * process; a result that comes after all is kept if it is still wanted.
 * A measuring rank that hears nothing from rank 0 for as long stops.
 * No call here blocks in MPI (mpi.c says why).
 * OpenMPI aborts the whole job when a rank dies unless mpirun is given
 * --enable-recovery (bench/mpi_notes.md).  A rank whose device has another
 * fingerprint than rank 0's is left out (its rows would be another
 * device's), with a warning.
 *
 * MPI is initialised only when the environment says this process is one
 * of several ranks of a job (kt_mpi_launched): anywhere else ktune is one
 * process and MPI is never touched.  Threads: MPI is initialised for MPI_THREAD_SERIALIZED, and
 * every MPI call of this file goes through the handle's lock.
 */
#ifndef KT_MPI_H
#define KT_MPI_H

#include "tune/exec.h"
#include "tune/mpi_wire.h"
#include "tune/tuner.h"

typedef struct ktune_mpi kt_mpi; /* the public handle */

/* Whether a launcher started this process as one of several ranks:
 * OpenMPI's mpirun (OMPI_COMM_WORLD_SIZE above 1), MPICH's mpiexec or
 * SLURM's PMI-1/2 (PMI_SIZE above 1), or SLURM's srun with PMIx
 * (SLURM_STEP_NUM_TASKS above 1 and PMIX_RANK set).  srun without a PMI
 * plugin (--mpi=none) starts independent processes, which this cannot
 * tell from a job's single one. */
bool kt_mpi_launched(void);

/* *out: the job this process is a rank of, MPI initialised; NULL when it
 * was not started by mpirun with more than one rank.  KT_EINVAL when it
 * was but this ktune was built without MPI, or MPI cannot serialise calls
 * from two threads; KT_ENOMEM. */
int kt_mpi_open(kt_mpi **out, kt_diag *diag);
/* Finalise MPI (NULL: nothing). */
void kt_mpi_close(kt_mpi *m);
int kt_mpi_rank(const kt_mpi *m);   /* 0 without a job */
int kt_mpi_size(const kt_mpi *m);   /* 1 without a job */

/* The device ordinal of a measuring rank (mpi.h's top comment). */
int kt_mpi_device(const kt_mpi *m);

/* Seconds of silence after which a rank takes another as dead, unless
 * told otherwise. */
#define KT_RANK_TIMEOUT KTUNE_RANK_TIMEOUT

/* What a distributed run's ranks share. */
typedef struct kt_mpi_run {
    kt_mpi *m;
    double rank_timeout_s;   /* 0: KT_RANK_TIMEOUT */
} kt_mpi_run;

/* Rank 0 around its run: lead_start beats to the other ranks from the
 * start (its setup may be long); lead_end stops the beat and tells every
 * rank still in to stop, and whether the job lost a rank or rank 0 failed
 * (rc), in which case no rank calls MPI_Finalize (kt_mpi_close).  Every
 * run ends with it: one answered from the database alone never opens the
 * executor. */
int kt_mpi_lead_start(const kt_mpi_run *run, kt_diag *diag);
void kt_mpi_lead_end(const kt_mpi_run *run, int rc);

/* Rank 0's executor over ranks 1..N-1 (a kt_exec_open_fn): user is the
 * kt_mpi_run. */
int kt_exec_mpi_open(void *user, const kt_exec_env *env, kt_exec *out, kt_diag *diag);

/* What a measuring rank did. */
typedef struct kt_mpi_served {
    char device[128];
    uint64_t measured;       /* results sent to rank 0 */
} kt_mpi_served;

/* Ranks 1..N-1: measure what rank 0 sends until it says stop (KT_OK), goes
 * silent (KT_EWORKER), or opts->cancel is set (KT_OK).  opts are the
 * run's, as every rank parsed the same command line; its backend's device
 * is replaced by kt_mpi_device.  A setup that fails is told to rank 0
 * before it is returned. */
int kt_mpi_serve(const kt_mpi_run *run, const kt_spec *spec, const kt_tune_opts *opts,
                 kt_mpi_served *out, kt_diag *diag);

/* ---- the transport, for exec_mpi.c and mpi_serve.c ---- */

/* Rank r is taken as dead or left out: no heartbeat goes to it, and the
 * job counts as having lost a rank (kt_mpi_close then skips MPI_Finalize,
 * which can hang after a death). */
void kt_mpi_gone(kt_mpi *m, int rank);
/* When the heartbeat thread last took a beat from rank (kt_now; the
 * handle's opening before the first). */
double kt_mpi_heard(kt_mpi *m, int rank);
/* Start and stop the heartbeat thread: rank 0 beats to every rank not
 * gone, the others to rank 0, every every_s seconds, and each takes the
 * beats that have come. */
int kt_mpi_beat_start(kt_mpi *m, double every_s, kt_diag *diag);
void kt_mpi_beat_stop(kt_mpi *m);
/* How often to beat for a deadline of timeout_s: eight beats a deadline,
 * at least one a second. */
static inline double kt_mpi_beat_every(double timeout_s)
{
    return timeout_s / 8 < 1 ? timeout_s / 8 : 1;
}

/* Send the message to rank dest (small: mpi_wire.h) without waiting: it
 * goes out as MPI progresses, from a copy the handle keeps. */
int kt_mpi_send(kt_mpi *m, int dest, const kt_mpi_msg *msg, kt_diag *diag);
/* Take one message if one has arrived (*got), from *src; cfg (nparams
 * entries) receives a WORK message's configuration.  A message that
 * cannot be decoded is an error. */
int kt_mpi_poll(kt_mpi *m, int *src, kt_mpi_msg *msg, uint16_t *cfg,
                size_t nparams, bool *got, kt_diag *diag);

#endif /* KT_MPI_H */
