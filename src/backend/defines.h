/* defines.h - the preprocessor defines a configuration is compiled with:
 * each tuning parameter, then, for a spec with BAT's BenchmarkConfig,
 * its constants and BAT's launch names.
 *
 * BAT's CUDA runner (batbench/backends/cuda_kernel_runner) compiles every
 * kernel with -DNAME=VALUE for each tuning parameter, each BenchmarkConfig
 * entry and each launch value: GRID_SIZE_X/Y/Z (blocks, GlobalSize divided
 * by LocalSize where GlobalSizeType is "OpenCL"), BLOCK_SIZE_X/Y/Z and,
 * where SharedMemory is not 0, SHARED_MEMORY_SIZE.  BAT's FFT selects
 * float2 or double2 by PRECISION, which only BenchmarkConfig gives.  A
 * spec without a BenchmarkConfig gets its parameters only, as before, so
 * its compiled kernels and their cache keys stay what they were. */
#ifndef KT_DEFINES_H
#define KT_DEFINES_H

#include "core/spec.h"

/* Every "-DNAME=VALUE" of configuration cfg (NULL: the reference kernel,
 * which gets the constants but no parameter or launch names); launch:
 * add BAT's launch names (GPU backends).  A launch name that a tuning
 * parameter or constant already defines (hotspot's BLOCK_SIZE_X) is left
 * out; so are all of them for a launch whose sizes do not evaluate (the
 * configuration is then invalid at load).  NULL when memory runs out;
 * *n the count.  Free with kt_defines_free. */
char **kt_defines_new(const kt_spec *spec, const uint16_t *cfg, bool launch, size_t *n);
void kt_defines_free(char **defines, size_t n);

/* Whether a define ("-DNAME=VALUE") can change what the compiler makes of
 * the kernel: a name the source (or the kernel's name) never mentions
 * cannot, so a GPU backend leaves the define out and configurations that
 * differ only there (launch geometry: KTT's WORK_GROUP_SIZE_X, BAT's
 * BLOCK_SIZE) share one compiled kernel, and the worker one loaded module.
 * Where a name could come from elsewhere (an #include, a pasted token, an
 * option that includes a file) every define matters. */
bool kt_define_matters(const kt_spec *spec, const char *define);

#endif /* KT_DEFINES_H */
