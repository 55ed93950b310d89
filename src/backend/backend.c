/* backend.c - the registry of compute backends, and what they share. */
#include "backend/backend.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const kt_backend kt_backend_cpu;
extern const kt_backend kt_backend_cuda;
extern const kt_backend kt_backend_opencl;

static const kt_backend *const REGISTRY[] = {
    &kt_backend_cpu,
    &kt_backend_cuda,
    &kt_backend_opencl,
};

const kt_backend *kt_backend_find(const char *name)
{
    for (size_t i = 0; i < sizeof REGISTRY / sizeof REGISTRY[0]; i++)
        if (strcmp(REGISTRY[i]->name, name) == 0)
            return REGISTRY[i];
    return NULL;
}

const kt_backend *kt_backend_at(size_t i)
{
    return i < sizeof REGISTRY / sizeof REGISTRY[0] ? REGISTRY[i] : NULL;
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

/* The pid in a name "<anything>.<pid>.tmp", or 0. */
static long tmp_owner(const char *name)
{
    size_t len = strlen(name);
    if (len < 5 || strcmp(name + len - 4, ".tmp") != 0)
        return 0;
    const char *end = name + len - 4, *p = end;
    while (p > name && p[-1] >= '0' && p[-1] <= '9')
        p--;
    if (p == end || p == name || p[-1] != '.')
        return 0;
    return strtol(p, NULL, 10);
}

void kt_cache_sweep(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = tmp_owner(e->d_name);
        if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        char path[4096];
        if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, e->d_name) < sizeof path)
            unlink(path);
    }
    closedir(d);
}

int kt_backend_refuse_cuda_args(const kt_spec *spec, kt_diag *diag)
{
    for (size_t i = 0; i < spec->nargs; i++)
        if (spec->args[i].symbol || spec->args[i].tmap)
            return kt_fail(diag, KT_EBACKEND, "%s: argument '%s' is a %s, which only a "
                           "CUDA kernel has", spec->path, spec->args[i].name,
                           spec->args[i].tmap ? "TensorMap" : "__constant__ symbol");
    return KT_OK;
}
