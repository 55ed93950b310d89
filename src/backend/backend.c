/* backend.c - the registry of compute backends. */
#include "backend/backend.h"

#include <stdlib.h>
#include <string.h>

extern const kt_backend kt_backend_cpu;
extern const kt_backend kt_backend_cuda;

static const kt_backend *const REGISTRY[] = {
    &kt_backend_cpu,
    &kt_backend_cuda,
};

const kt_backend *kt_backend_find(const char *name)
{
    for (size_t i = 0; i < sizeof REGISTRY / sizeof REGISTRY[0]; i++)
        if (strcmp(REGISTRY[i]->name, name) == 0)
            return REGISTRY[i];
    return NULL;
}

const kt_backend *kt_backend_for(kt_language lang)
{
    for (size_t i = 0; i < sizeof REGISTRY / sizeof REGISTRY[0]; i++)
        if (REGISTRY[i]->language == lang && REGISTRY[i]->abi == KT_BACKEND_ABI)
            return REGISTRY[i];
    return NULL;
}

void kt_builds_clear(kt_build *builds, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(builds[i].artifact);
        builds[i].artifact = NULL;
    }
}
