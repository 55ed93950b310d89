/* cuda_api.c - dlopen the CUDA driver and NVRTC into tables of function
 * pointers (cuda_api.h).  The symbol names are the ones cuda.h maps its
 * calls to (the _v2 entry points where the ABI changed). */
#include "backend/cuda_api.h"
#include "backend/dl.h"
#include "core/util.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

typedef kt_dl_symbol symbol;

#define CU(field, name) {name, offsetof(kt_cuda_api, field)}
static const symbol CUDA_SYMBOLS[] = {
    CU(cuInit, "cuInit"),
    CU(cuDriverGetVersion, "cuDriverGetVersion"),
    CU(cuDeviceGetCount, "cuDeviceGetCount"),
    CU(cuDeviceGet, "cuDeviceGet"),
    CU(cuDeviceGetName, "cuDeviceGetName"),
    CU(cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId"),
    CU(cuDeviceGetAttribute, "cuDeviceGetAttribute"),
    CU(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain"),
    CU(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2"),
    CU(cuCtxSetCurrent, "cuCtxSetCurrent"),
    CU(cuCtxGetCurrent, "cuCtxGetCurrent"),
    CU(cuCtxSynchronize, "cuCtxSynchronize"),
    CU(cuModuleLoadData, "cuModuleLoadData"),
    CU(cuModuleUnload, "cuModuleUnload"),
    CU(cuModuleGetFunction, "cuModuleGetFunction"),
    CU(cuModuleGetGlobal, "cuModuleGetGlobal_v2"),
    CU(cuFuncGetAttribute, "cuFuncGetAttribute"),
    CU(cuFuncSetAttribute, "cuFuncSetAttribute"),
    CU(cuMemAlloc, "cuMemAlloc_v2"),
    CU(cuMemFree, "cuMemFree_v2"),
    CU(cuMemcpyHtoD, "cuMemcpyHtoD_v2"),
    CU(cuMemcpyDtoH, "cuMemcpyDtoH_v2"),
    CU(cuMemcpyDtoD, "cuMemcpyDtoD_v2"),
    CU(cuMemsetD8, "cuMemsetD8_v2"),
    CU(cuLaunchKernel, "cuLaunchKernel"),
    CU(cuEventCreate, "cuEventCreate"),
    CU(cuEventRecord, "cuEventRecord"),
    CU(cuEventSynchronize, "cuEventSynchronize"),
    CU(cuEventElapsedTime, "cuEventElapsedTime"),
    CU(cuEventDestroy, "cuEventDestroy_v2"),
    CU(cuGetErrorString, "cuGetErrorString"),
    CU(cuOccupancyMaxActiveBlocksPerMultiprocessor,
       "cuOccupancyMaxActiveBlocksPerMultiprocessor"),
};

#define NV(field) {#field, offsetof(kt_nvrtc_api, field)}
static const symbol NVRTC_SYMBOLS[] = {
    NV(nvrtcVersion),         NV(nvrtcCreateProgram),  NV(nvrtcCompileProgram),
    NV(nvrtcGetProgramLogSize), NV(nvrtcGetProgramLog), NV(nvrtcGetCUBINSize),
    NV(nvrtcGetCUBIN),        NV(nvrtcDestroyProgram), NV(nvrtcGetErrorString),
    NV(nvrtcAddNameExpression), NV(nvrtcGetLoweredName),
};

#define NVML(field, name) {name, offsetof(kt_nvml_api, field)}
static const symbol NVML_SYMBOLS[] = {
    NVML(nvmlInit, "nvmlInit_v2"),
    NVML(nvmlDeviceGetHandleByPciBusId, "nvmlDeviceGetHandleByPciBusId_v2"),
    NVML(nvmlDeviceGetTotalEnergyConsumption, "nvmlDeviceGetTotalEnergyConsumption"),
    NVML(nvmlDeviceGetClockInfo, "nvmlDeviceGetClockInfo"),
};

int kt_cuda_api_load(kt_cuda_api *api, kt_diag *diag)
{
    static const char *const NAMES[] = {"libcuda.so.1", "libcuda.so"};
    memset(api, 0, sizeof *api);
    int rc = kt_dl_load(&api->lib, NAMES, KT_ARRAY_LEN(NAMES), CUDA_SYMBOLS,
                  KT_ARRAY_LEN(CUDA_SYMBOLS), api, "the CUDA driver (libcuda.so.1)", "", diag);
    if (rc == KT_OK) { /* optional: an older driver still runs other kernels */
        void *fn = dlsym(api->lib, "cuTensorMapEncodeTiled");
        memcpy(&api->cuTensorMapEncodeTiled, &fn, sizeof fn);
    }
    return rc;
}

int kt_nvrtc_api_load(kt_nvrtc_api *api, kt_diag *diag)
{
    static const char *const NAMES[] = {
        "libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12",
        "/usr/local/cuda/lib64/libnvrtc.so"};
    memset(api, 0, sizeof *api);
    return kt_dl_load(&api->lib, NAMES, KT_ARRAY_LEN(NAMES), NVRTC_SYMBOLS,
                KT_ARRAY_LEN(NVRTC_SYMBOLS), api, "NVRTC (libnvrtc.so)", "", diag);
}

int kt_nvml_api_load(kt_nvml_api *api, kt_diag *diag)
{
    static const char *const NAMES[] = {"libnvidia-ml.so.1", "libnvidia-ml.so"};
    memset(api, 0, sizeof *api);
    return kt_dl_load(&api->lib, NAMES, KT_ARRAY_LEN(NAMES), NVML_SYMBOLS,
                KT_ARRAY_LEN(NVML_SYMBOLS), api, "NVML (libnvidia-ml.so.1)", "", diag);
}

void kt_cuda_api_unload(kt_cuda_api *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof *api);
}

void kt_nvrtc_api_unload(kt_nvrtc_api *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof *api);
}
