/* energy.c - CPU energy from the Linux powercap (RAPL) interface.
 *
 * Reading needs /sys/class/powercap/intel-rapl:0/energy_uj (Intel, and AMD
 * Zen on recent kernels) to exist and be readable; virtual machines usually
 * lack it, and then energy is recorded as unknown rather than guessed. */
#include "measure/measure.h"

#include <math.h>
#include <stdio.h>

double kt_cpu_energy_j(void)
{
    FILE *f = fopen("/sys/class/powercap/intel-rapl:0/energy_uj", "r");
    if (!f)
        return NAN;
    unsigned long long uj = 0;
    int ok = fscanf(f, "%llu", &uj) == 1;
    fclose(f);
    return ok ? (double)uj * 1e-6 : NAN;
}
