/* dl.c - load a library's entry points into a table (dl.h). */
#include "backend/dl.h"
#include "core/util.h"

#include <dlfcn.h>
#include <string.h>

int kt_dl_load(void **lib, const char *const *names, size_t nnames,
               const kt_dl_symbol *syms, size_t nsyms, void *table, const char *what,
               const char *need, kt_diag *diag)
{
    *lib = NULL;
    for (size_t i = 0; i < nnames && !*lib; i++)
        *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!*lib)
        return kt_fail(diag, KT_EBACKEND, "%s is not available (%s)", what, dlerror());
    for (size_t i = 0; i < nsyms; i++) {
        void *fn = dlsym(*lib, syms[i].name);
        if (!fn) {
            dlclose(*lib);
            *lib = NULL;
            return kt_fail(diag, KT_EBACKEND, "%s lacks '%s'%s", what, syms[i].name, need);
        }
        memcpy((char *)table + syms[i].offset, &fn, sizeof fn);
    }
    return KT_OK;
}
