/* opencl_api.h - the OpenCL entry points ktune uses, loaded at run time
 * from the ICD loader (libOpenCL.so.1) with dlopen, so that ktune builds
 * and runs where OpenCL is absent; the loader then dispatches to the
 * installed platforms (PoCL on the CPU, NVIDIA's, AMD's, Intel's).  Types,
 * constants and prototypes come from the Khronos headers (CL/cl.h), whose
 * declarations the table's fields copy: nothing links against -lOpenCL.
 * OpenCL 1.2 is the target: every platform ktune meets has it. */
#ifndef KT_OPENCL_API_H
#define KT_OPENCL_API_H

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "core/base.h"

/* X(name): each function of the table, one list for the fields and for
 * the symbols dlsym looks up. */
#define KT_CL_FUNCTIONS(X)                                                     \
    X(clGetPlatformIDs) X(clGetPlatformInfo) X(clGetDeviceIDs) X(clGetDeviceInfo) \
    X(clCreateContext) X(clReleaseContext) X(clCreateCommandQueue)             \
    X(clReleaseCommandQueue) X(clCreateProgramWithSource)                      \
    X(clCreateProgramWithBinary) X(clBuildProgram) X(clGetProgramBuildInfo)    \
    X(clGetProgramInfo) X(clReleaseProgram) X(clCreateKernel) X(clReleaseKernel) \
    X(clSetKernelArg) X(clGetKernelWorkGroupInfo) X(clCreateBuffer)            \
    X(clReleaseMemObject) X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer)       \
    X(clEnqueueFillBuffer) X(clEnqueueNDRangeKernel) X(clFinish)               \
    X(clWaitForEvents) X(clGetEventProfilingInfo) X(clReleaseEvent)

#define KT_CL_FIELD(name) __typeof__(name) *name;
typedef struct kt_cl_api {
    void *lib;
    KT_CL_FUNCTIONS(KT_CL_FIELD)
} kt_cl_api;
#undef KT_CL_FIELD

/* Load the ICD loader; KT_EBACKEND with the reason in diag when it or one
 * of its symbols is missing. */
int kt_cl_api_load(kt_cl_api *api, kt_diag *diag);
void kt_cl_api_unload(kt_cl_api *api);

/* The name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or
 * "CL_ERROR" for one ktune does not name. */
const char *kt_cl_error_name(cl_int err);

#endif /* KT_OPENCL_API_H */
