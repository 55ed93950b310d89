/* mpi_kill.c - how OpenMPI treats a rank killed with SIGKILL (bench/mpi_notes.md).
 * Build: mpicc bench/mpi_kill.c -o /tmp/mpi_kill
 * Run:   mpirun --oversubscribe [--enable-recovery] -n 3 /tmp/mpi_kill [BIG]
 * Rank 2 kills itself after 1 s; rank 0 polls with MPI_Iprobe, takes a rank
 * silent for 1 s as dead, then sends it 4 bytes (MPI_Send, MPI_Isend) and
 * BIG bytes (default 1 MiB; 1 to see Finalize succeed). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    double t0 = now();
    if (rank == 0) {
        double last[64] = {0};
        for (int i = 1; i < size; i++) last[i] = t0;
        while (now() - t0 < 5) {
            int flag = 0;
            MPI_Status st;
            int rc = MPI_Iprobe(MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &flag, &st);
            if (rc != MPI_SUCCESS) { printf("rank0: Iprobe rc %d at %.2f\n", rc, now() - t0); fflush(stdout); break; }
            if (flag) {
                int v;
                rc = MPI_Recv(&v, 1, MPI_INT, st.MPI_SOURCE, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                if (rc != MPI_SUCCESS) printf("rank0: recv rc %d\n", rc);
                last[st.MPI_SOURCE] = now();
            } else usleep(1000);
            for (int i = 1; i < size; i++)
                if (last[i] > 0 && now() - last[i] > 1.0) {
                    printf("rank0: rank %d silent for 1 s at %.2f: taken as dead\n", i, now() - t0);
                    fflush(stdout);
                    last[i] = -1;
                    int v = 7;
                    double ts = now();
                    int rc2 = MPI_Send(&v, 1, MPI_INT, i, 2, MPI_COMM_WORLD);
                    printf("rank0: MPI_Send to dead rank %d: rc %d in %.3f s\n", i, rc2, now() - ts);
                    MPI_Request rq;
                    ts = now();
                    rc2 = MPI_Isend(&v, 1, MPI_INT, i, 2, MPI_COMM_WORLD, &rq);
                    int done = 0;
                    while (rc2 == MPI_SUCCESS && !done && now() - ts < 1) rc2 = MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
                    printf("rank0: Isend+Test to dead rank %d: rc %d done %d in %.3f s\n", i, rc2, done, now() - ts);
                    static char big[1 << 20];
                    size_t nbig = argc > 1 ? (size_t)atoi(argv[1]) : sizeof big;
                    ts = now();
                    rc2 = MPI_Isend(big, (int)nbig, MPI_CHAR, i, 3, MPI_COMM_WORLD, &rq);
                    done = 0;
                    while (rc2 == MPI_SUCCESS && !done && now() - ts < 1) rc2 = MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
                    printf("rank0: %zu-byte Isend+Test to dead rank %d: rc %d done %d in %.3f s\n", nbig, i, rc2, done, now() - ts);
                    if (!done) { rc2 = MPI_Cancel(&rq); printf("cancel rc %d\n", rc2); }
                    fflush(stdout);
                }
        }
        printf("rank0: done at %.2f\n", now() - t0);
        fflush(stdout);
    } else {
        int v = rank;
        while (now() - t0 < 4.5) {
            if (rank == 2 && now() - t0 > 1) raise(SIGKILL);
            MPI_Send(&v, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
            usleep(100000);
        }
        printf("rank%d: done\n", rank); fflush(stdout);
    }
    MPI_Finalize();
    printf("rank%d: finalized\n", rank); fflush(stdout);
    return 0;
}
