/* opencl_api.c - dlopen the OpenCL ICD loader into a table of function
 * pointers (opencl_api.h), and name its error codes. */
#include "backend/opencl_api.h"
#include "backend/dl.h"
#include "core/util.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define KT_CL_SYMBOL(name) {#name, offsetof(kt_cl_api, name)},
static const kt_dl_symbol SYMBOLS[] = {KT_CL_FUNCTIONS(KT_CL_SYMBOL)};

/* The Khronos ICD loader that CUDA ships (found before Debian's ocl-icd
 * where both are installed, as on the H100 machine) splits
 * OCL_ICD_FILENAMES with strtok on getenv's own string when it first lists
 * platforms, cutting the process's variable to its first library: the
 * measurement worker, started later with this environment, then found PoCL
 * and no NVIDIA platform.  So the loader lists its platforms here, once,
 * and the variable gets back the value it had (saved, the caller's copy). */
static void list_keeping_env(const kt_cl_api *api, const char *saved)
{
    cl_uint n = 0;
    api->clGetPlatformIDs(0, NULL, &n);
    const char *now = getenv("OCL_ICD_FILENAMES");
    if (saved && (!now || strcmp(now, saved) != 0))
        setenv("OCL_ICD_FILENAMES", saved, 1);
}

int kt_cl_api_load(kt_cl_api *api, kt_diag *diag)
{
    static const char *const NAMES[] = {"libOpenCL.so.1", "libOpenCL.so"};
    memset(api, 0, sizeof *api);
    const char *env = getenv("OCL_ICD_FILENAMES");
    char *saved = env ? kt_strdup(env) : NULL;
    if (env && !saved)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    int rc = kt_dl_load(&api->lib, NAMES, KT_ARRAY_LEN(NAMES), SYMBOLS,
                        KT_ARRAY_LEN(SYMBOLS), api, "the OpenCL ICD loader (libOpenCL.so.1)",
                        " (OpenCL 1.2 is needed)", diag);
    if (rc == KT_OK)
        list_keeping_env(api, saved);
    free(saved);
    return rc;
}

void kt_cl_api_unload(kt_cl_api *api)
{
    if (api->lib)
        dlclose(api->lib);
    memset(api, 0, sizeof *api);
}

typedef struct cl_error {
    cl_int code;
    const char *name;
} cl_error;

#define E(name) {name, #name}
static const cl_error ERRORS[] = {
    E(CL_DEVICE_NOT_FOUND), E(CL_DEVICE_NOT_AVAILABLE), E(CL_COMPILER_NOT_AVAILABLE),
    E(CL_MEM_OBJECT_ALLOCATION_FAILURE), E(CL_OUT_OF_RESOURCES), E(CL_OUT_OF_HOST_MEMORY),
    E(CL_PROFILING_INFO_NOT_AVAILABLE), E(CL_BUILD_PROGRAM_FAILURE),
    E(CL_INVALID_VALUE), E(CL_INVALID_DEVICE), E(CL_INVALID_CONTEXT),
    E(CL_INVALID_COMMAND_QUEUE), E(CL_INVALID_MEM_OBJECT), E(CL_INVALID_BINARY),
    E(CL_INVALID_BUILD_OPTIONS), E(CL_INVALID_PROGRAM), E(CL_INVALID_PROGRAM_EXECUTABLE),
    E(CL_INVALID_KERNEL_NAME), E(CL_INVALID_KERNEL), E(CL_INVALID_ARG_INDEX),
    E(CL_INVALID_ARG_VALUE), E(CL_INVALID_ARG_SIZE), E(CL_INVALID_KERNEL_ARGS),
    E(CL_INVALID_WORK_DIMENSION), E(CL_INVALID_WORK_GROUP_SIZE),
    E(CL_INVALID_WORK_ITEM_SIZE), E(CL_INVALID_GLOBAL_OFFSET), E(CL_INVALID_EVENT),
    E(CL_INVALID_BUFFER_SIZE), E(CL_INVALID_GLOBAL_WORK_SIZE),
    E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST), E(CL_INVALID_PLATFORM),
};
#undef E

const char *kt_cl_error_name(cl_int err)
{
    for (size_t i = 0; i < KT_ARRAY_LEN(ERRORS); i++)
        if (ERRORS[i].code == err)
            return ERRORS[i].name;
    return "CL_ERROR";
}
