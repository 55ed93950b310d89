/* launch.h - the launch of a GPU kernel from its spec: grid, block and
 * dynamic shared memory evaluated for one configuration and checked
 * against the hardware's and the device's limits.  Pure computations (no
 * driver call), so the CPU machine tests them. */
#ifndef KT_LAUNCH_H
#define KT_LAUNCH_H

#include "core/spec.h"

/* What the device allows (cuDeviceGetAttribute). */
typedef struct kt_launch_limits {
    int max_threads;         /* threads per block */
    int max_shared_optin;    /* shared memory per block, bytes, with the opt-in */
    double max_block[3];     /* threads per block along each axis (0: no limit
                              * of its own) */
    double max_grid[3];      /* blocks along each axis (0: no limit of its own) */
} kt_launch_limits;

/* A CUDA device's limits: its threads and shared memory per block, and
 * CUDA's own per-axis limits (blocks of 1024 x 1024 x 64 threads, grids of
 * 2^31-1 x 65535 x 65535 blocks).  An OpenCL device has its own per-axis
 * work-group limits and none on the number of groups. */
kt_launch_limits kt_launch_cuda_limits(int max_threads, int max_shared_optin);

typedef struct kt_launch {
    unsigned grid[3];        /* blocks per axis */
    unsigned block[3];       /* threads per axis */
    unsigned shared;         /* dynamic shared memory, bytes */
} kt_launch;

/* The spec's LocalSize, GlobalSize (blocks, or threads with GlobalSizeType
 * "OpenCL": rounded up to whole blocks) and SharedMemory for the slot
 * values of a configuration (kt_spec_slots); the reference kernel's own
 * sizes when reference and the spec gives them.  KT_ERANGE, with the axis
 * and sizes in diag, when the launch exceeds CUDA's or the device's
 * limits: the configuration is invalid, not broken. */
int kt_launch_geometry(const kt_spec *spec, const double *slots, bool reference,
                       const kt_launch_limits *lim, kt_launch *out, kt_diag *diag);

/* Registers are allocated per warp, in units of 256, from 64 Ki per block
 * (compute capability 5.0 to 9.0): KT_ERANGE when regs per thread do not
 * fit threads that way (68 registers fit 960 threads by the product,
 * 65,280, but 30 warps of 2,304 take 69,120: the launch would fail with
 * CUDA error 701, "too many resources requested"). */
int kt_launch_registers(int regs, unsigned threads, kt_diag *diag);

/* The compiled kernel's own limit on threads per block (the driver's
 * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: its __launch_bounds__, or what
 * its registers allow; 0: unknown): KT_ERANGE when the block is larger,
 * since every launch would fail with CUDA error 701 and cost a worker. */
int kt_launch_kernel_threads(int kernel_max, unsigned threads, kt_diag *diag);
/* A block gets static + dynamic shared memory up to 48 KiB by default and
 * up to the opt-in limit once the kernel's dynamic limit is raised: *raise
 * says whether it must be (cuFuncSetAttribute); KT_ERANGE when even the
 * opt-in limit is too small. */
int kt_launch_shared(unsigned static_bytes, unsigned dynamic_bytes, int max_shared_optin,
                     bool *raise, kt_diag *diag);

/* The kernel's parameters: args (one per spec argument, as the worker
 * passes them) without the MemoryType "Symbol" ones, which live in
 * __constant__ memory instead; params has room for spec->nargs.  Returns
 * how many. */
size_t kt_launch_params(const kt_spec *spec, void *const *args, void **params);

/* Bytes of symbol argument i for a configuration's slot values, checked
 * against the size of the module's global (symbol_bytes): a larger array
 * would be written past it (KT_ERANGE, which names both). */
int kt_launch_symbol_bytes(const kt_spec *spec, size_t i, const double *slots,
                           size_t symbol_bytes, size_t *bytes, kt_diag *diag);

#endif /* KT_LAUNCH_H */
