/* nvrtc_util.h - for tests that compile with the real NVRTC: load it, or
 * report the running test as skipped where NVRTC is absent. */
#ifndef KT_NVRTC_UTIL_H
#define KT_NVRTC_UTIL_H

#include "backend/cuda_api.h"
#include "test.h"

/* Load NVRTC into *api (the caller unloads it), or skip the test. */
static inline void nvrtc_load_or_skip(kt_nvrtc_api *api)
{
    kt_diag d = {{0}};
    if (kt_nvrtc_api_load(api, &d) != KT_OK)
        KT_SKIP("%s", d.msg);
}

/* Skip the running test where NVRTC cannot be loaded. */
static inline void need_nvrtc(void)
{
    kt_nvrtc_api api;
    nvrtc_load_or_skip(&api);
    kt_nvrtc_api_unload(&api);
}

#endif
