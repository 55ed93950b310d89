/* defines.c - the -D options of one compilation (defines.h). */
#include "backend/defines.h"
#include "backend/launch.h"
#include "core/util.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* BAT's launch names, in its order (cuda_kernel_runner.get_launch_config). */
static const char *const LAUNCH_NAMES[] = {"GRID_SIZE_X",  "GRID_SIZE_Y",  "GRID_SIZE_Z",
                                           "BLOCK_SIZE_X", "BLOCK_SIZE_Y", "BLOCK_SIZE_Z",
                                           "SHARED_MEMORY_SIZE"};
#define NLAUNCH KT_ARRAY_LEN(LAUNCH_NAMES)

/* True when a tuning parameter or a constant is called name. */
static bool defined(const kt_spec *s, const char *name)
{
    for (size_t i = 0; i < s->nparams; i++)
        if (strcmp(s->params[i].name, name) == 0)
            return true;
    for (size_t i = 0; i < s->nconsts; i++)
        if (strcmp(s->consts[i].name, name) == 0)
            return true;
    return false;
}

/* BAT's launch values of cfg into out[]; false when the sizes do not
 * evaluate to a launch CUDA could make. */
static bool launch_values(const kt_spec *s, const uint16_t *cfg, unsigned out[NLAUNCH])
{
    double *slots = calloc(s->nnames ? s->nnames : 1, sizeof *slots);
    if (!slots)
        return false;
    kt_spec_slots(s, cfg, NULL, slots); /* the spec's sizes read no problem name */
    kt_launch k;
    kt_diag d = {{0}};
    kt_launch_limits any = kt_launch_cuda_limits(INT_MAX, INT_MAX);
    bool ok = kt_launch_geometry(s, slots, false, &any, &k, &d) == KT_OK;
    free(slots);
    for (int i = 0; ok && i < 3; i++) {
        out[i] = k.grid[i];
        out[3 + i] = k.block[i];
    }
    out[6] = ok ? k.shared : 0;
    return ok;
}

char **kt_defines_new(const kt_spec *s, const uint16_t *cfg, bool launch, size_t *n)
{
    char **v = calloc(s->nparams + s->nconsts + NLAUNCH + 1, sizeof *v);
    unsigned values[NLAUNCH];
    *n = 0;
    if (!v)
        return NULL;
    for (size_t i = 0; cfg && i < s->nparams; i++)
        v[(*n)++] = kt_asprintf("-D%s=%s", s->params[i].name, s->params[i].texts[cfg[i]]);
    for (size_t i = 0; i < s->nconsts; i++)
        v[(*n)++] = kt_asprintf("-D%s=%s", s->consts[i].name, s->consts[i].text);
    if (cfg && launch && s->bat_launch && launch_values(s, cfg, values))
        for (size_t i = 0; i < NLAUNCH; i++)
            if (!defined(s, LAUNCH_NAMES[i]) && (i < 6 || values[i]))
                v[(*n)++] = kt_asprintf("-D%s=%u", LAUNCH_NAMES[i], values[i]);
    for (size_t i = 0; i < *n; i++)
        if (!v[i]) {
            kt_defines_free(v, *n);
            return NULL;
        }
    return v;
}

void kt_defines_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

/* True when name occurs in src as an identifier (in comments too). */
static bool mentions(const char *src, const char *name, size_t len)
{
    for (const char *p = strstr(src, name); p; p = strstr(p + 1, name)) {
        bool start = p == src || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        bool end = !(isalnum((unsigned char)p[len]) || p[len] == '_');
        if (start && end)
            return true;
    }
    return false;
}

bool kt_define_matters(const kt_spec *s, const char *define)
{
    const char *src = s->kernel_source;
    if (strncmp(define, "-D", 2) != 0 || strstr(src, "#include") || strstr(src, "##"))
        return true;
    for (size_t k = 0; k < s->ncompiler_options; k++)
        if (strstr(s->compiler_options[k], "include"))
            return true;
    char name[256];
    size_t len = strcspn(define + 2, "=");
    if (len >= sizeof name)
        return true;
    memcpy(name, define + 2, len);
    name[len] = '\0';
    /* CUDA compiles the kernel's name too, as a name expression ("k<BS>") */
    return mentions(src, name, len) || mentions(s->kernel_name, name, len);
}
