/* dl.h - a library loaded at run time (dlopen) into a table of function
 * pointers: the CUDA driver, NVRTC and NVML (cuda_api.c) and the OpenCL
 * ICD loader (opencl_api.c), so that ktune builds and runs where they are
 * missing. */
#ifndef KT_DL_H
#define KT_DL_H

#include "core/base.h"

#include <stddef.h>

/* A symbol and where its pointer goes in the table. */
typedef struct kt_dl_symbol {
    const char *name;
    size_t offset;
} kt_dl_symbol;

/* Open the first of names[0..nnames) that loads into *lib and store every
 * symbol's address at its offset in table.  KT_EBACKEND: "WHAT is not
 * available (dlerror)" when none loads, "WHAT lacks 'NAME'NEED" when a
 * symbol is missing (*lib closed and NULL then); need may be "". */
int kt_dl_load(void **lib, const char *const *names, size_t nnames,
               const kt_dl_symbol *syms, size_t nsyms, void *table, const char *what,
               const char *need, kt_diag *diag);

#endif /* KT_DL_H */
