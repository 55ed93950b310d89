/* data.c - the public API's way to the data ktune installs (the kernels
 * and their specs, under PREFIX/share/ktune), found from the program or
 * library that runs, as the worker is found in PREFIX/libexec: so an
 * installed ktune finds them from any folder. */
#include "core/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* out (size bytes) gets path made absolute where it can be. */
static int give(const char *path, char *out, size_t size)
{
    char full[PATH_MAX];
    const char *p = realpath(path, full) ? full : path;
    if (strlen(p) >= size)
        return KT_ERANGE;
    memcpy(out, p, strlen(p) + 1);
    return KT_OK;
}

int ktune_data_path(const char *name, char *out, size_t size)
{
    if (!name || !out || size == 0)
        return KT_EINVAL;
    /* PREFIX/bin or PREFIX/lib; a repository's build/ktune, then its
     * build/rel/libktune.so and build/bundle/ktune */
    char installed[PATH_MAX], repo[PATH_MAX], deeper[PATH_MAX], found[PATH_MAX];
    const char *const places[] = {installed, repo, deeper};
    if (snprintf(installed, sizeof installed, "../share/ktune/%s", name) >= PATH_MAX ||
        snprintf(repo, sizeof repo, "../%s", name) >= PATH_MAX ||
        snprintf(deeper, sizeof deeper, "../../%s", name) >= PATH_MAX)
        return KT_ERANGE;
    if (kt_find_near_self(places, KT_ARRAY_LEN(places), exists, found, sizeof found))
        return give(found, out, size);
    if (strlen(name) >= size)
        return KT_ERANGE;
    memcpy(out, name, strlen(name) + 1);
    return exists(name) ? KT_OK : KT_ENOTFOUND;
}
