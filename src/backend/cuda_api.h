/* cuda_api.h - the CUDA driver and NVRTC entry points ktune uses, loaded at
 * run time with dlopen, so that ktune builds and runs where CUDA is absent
 * (as hashcat's dynloader does).  Types are declared here, not taken from
 * cuda.h, for the same reason. */
#ifndef KT_CUDA_API_H
#define KT_CUDA_API_H

#include "core/base.h"

typedef int CUresult;          /* 0: CUDA_SUCCESS */
enum { KT_CUDA_ERROR_NOT_FOUND = 500 };
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUmodule;
typedef void *CUfunction;
typedef void *CUevent;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef void *nvrtcProgram;
typedef int nvrtcResult;       /* 0: NVRTC_SUCCESS */

/* Device attributes ktune reads (values from cuda.h). */
enum {
    KT_CU_MAX_THREADS_PER_BLOCK = 1,
    KT_CU_MAX_SHARED_PER_BLOCK = 8,
    KT_CU_MULTIPROCESSOR_COUNT = 16,
    KT_CU_CC_MAJOR = 75,
    KT_CU_CC_MINOR = 76,
    KT_CU_MAX_SHARED_PER_BLOCK_OPTIN = 97,
    KT_CU_FUNC_MAX_DYNAMIC_SHARED = 8, /* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES */
    KT_CU_FUNC_NUM_REGS = 4,
    KT_CU_FUNC_SHARED_SIZE = 1,        /* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES (static) */
};

typedef struct kt_cuda_api {
    void *lib;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int *);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDeviceGetPCIBusId)(char *, int, CUdevice);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxGetCurrent)(CUcontext *);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuModuleGetGlobal)(CUdeviceptr *, size_t *, CUmodule, const char *);
    CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, unsigned, CUstream, void **, void **);
    CUresult (*cuEventCreate)(CUevent *, unsigned);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*cuEventDestroy)(CUevent);
    CUresult (*cuGetErrorString)(CUresult, const char **);
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    /* Optional (CUDA 12 and later): NULL where the driver lacks it, and
     * only TensorMap arguments need it.  Arguments as cuda.h's, with its
     * enums as ints: map, data type, rank, address, dims, strides, box,
     * element strides, interleave, swizzle, L2 promotion, OOB fill. */
    CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *,
                                       const unsigned long long *,
                                       const unsigned long long *, const unsigned *,
                                       const unsigned *, int, int, int, int);
} kt_cuda_api;

typedef struct kt_nvrtc_api {
    void *lib;
    nvrtcResult (*nvrtcVersion)(int *, int *);
    nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                      const char *const *, const char *const *);
    nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
    nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
    nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
    nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
    const char *(*nvrtcGetErrorString)(nvrtcResult);
    /* A C++ kernel's symbol is mangled: the name is added as an expression
     * before compiling and its lowered name read after. */
    nvrtcResult (*nvrtcAddNameExpression)(nvrtcProgram, const char *);
    nvrtcResult (*nvrtcGetLoweredName)(nvrtcProgram, const char *, const char **);
} kt_nvrtc_api;

typedef void *nvmlDevice_t;
enum { KT_NVML_CLOCK_SM = 1 }; /* NVML_CLOCK_SM */

typedef struct kt_nvml_api {
    void *lib;
    int (*nvmlInit)(void);
    int (*nvmlDeviceGetHandleByPciBusId)(const char *, nvmlDevice_t *);
    int (*nvmlDeviceGetTotalEnergyConsumption)(nvmlDevice_t, unsigned long long *);
    int (*nvmlDeviceGetClockInfo)(nvmlDevice_t, int, unsigned *);
} kt_nvml_api;

/* Load the driver (libcuda.so.1) or NVRTC; KT_EBACKEND with the reason in
 * diag when the library or one of its symbols is missing. */
int kt_cuda_api_load(kt_cuda_api *api, kt_diag *diag);
int kt_nvrtc_api_load(kt_nvrtc_api *api, kt_diag *diag);
int kt_nvml_api_load(kt_nvml_api *api, kt_diag *diag);
void kt_cuda_api_unload(kt_cuda_api *api);
void kt_nvrtc_api_unload(kt_nvrtc_api *api);

#endif /* KT_CUDA_API_H */
