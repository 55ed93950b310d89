/* test_mpi_launch.c - kt_mpi_launched (tune/mpi.h) reads the launchers'
 * environments: OpenMPI's mpirun, MPICH's mpiexec and SLURM's PMI, and
 * SLURM's srun with PMIx; one process, or a step of one task, is no job.
 * Each test runs in its own process, so the variables it sets go with it. */
#include "tune/mpi.h"

#include "test.h"

static void clear_launchers(void)
{
    static const char *const VARS[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                       "SLURM_STEP_NUM_TASKS", "PMIX_RANK"};
    for (size_t i = 0; i < sizeof VARS / sizeof *VARS; i++)
        unsetenv(VARS[i]);
}

static void test_one_process_is_no_job(void)
{
    clear_launchers();
    CHECK(!kt_mpi_launched());
    setenv("OMPI_COMM_WORLD_SIZE", "1", 1);
    setenv("PMI_SIZE", "1", 1);
    CHECK(!kt_mpi_launched());
}

static void test_mpirun_and_pmi_launch_a_job(void)
{
    clear_launchers();
    setenv("OMPI_COMM_WORLD_SIZE", "3", 1);
    CHECK(kt_mpi_launched());
    clear_launchers();
    setenv("PMI_SIZE", "2", 1);
    CHECK(kt_mpi_launched());
}

/* srun --mpi=pmix: the step's task count and a PMIx rank; the count alone
 * (a batch script's environment) is no job. */
static void test_srun_with_pmix_launches_a_job(void)
{
    clear_launchers();
    setenv("SLURM_STEP_NUM_TASKS", "4", 1);
    CHECK(!kt_mpi_launched());
    setenv("PMIX_RANK", "0", 1);
    CHECK(kt_mpi_launched());
    setenv("SLURM_STEP_NUM_TASKS", "1", 1);
    CHECK(!kt_mpi_launched());
}

static const kt_test TESTS[] = {
    KT_T(test_one_process_is_no_job),
    KT_T(test_mpirun_and_pmi_launch_a_job),
    KT_T(test_srun_with_pmix_launches_a_job),
};
KT_TEST_MAIN(TESTS)
