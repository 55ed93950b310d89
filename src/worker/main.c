/* ktune-worker - the measurement worker program.  The tuner starts it
 * (measure/worker.c) to load, run, verify and time kernels in a process of
 * its own; it is not meant to be run by hand. */
#include "measure/worker.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    int rc = kt_worker_serve(argc, argv, NULL);
    fprintf(stderr, "ktune-worker: started by ktune to measure kernels, not by hand\n");
    return rc;
}
