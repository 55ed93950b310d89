/* devices.c - the public list of the devices the GPU backends see here
 * (ktune_devices): each backend of the registry that can list its own,
 * and one line of why for a backend that has none. */
#include "backend/backend.h"
#include "core/util.h"

#include <string.h>

/* Backend be's entry saying why it has no device (reason). */
static void note_absent(const kt_backend *be, const char *reason, ktune_device *out,
                        size_t cap, size_t *n)
{
    if (*n < cap) {
        ktune_device *e = &out[*n];
        *e = (ktune_device){.ordinal = -1};
        kt_strlcpy(e->backend, sizeof e->backend, be->name);
        kt_strlcpy(e->note, sizeof e->note, reason);
    }
    (*n)++;
}

KTUNE_API int ktune_devices(ktune_device *out, size_t cap, size_t *n, ktune_diag *diag)
{
    if (!n || (!out && cap > 0))
        return kt_fail(diag, KT_EINVAL, "ktune_devices: %s is NULL", n ? "out" : "n");
    *n = 0;
    const kt_backend *be;
    for (size_t i = 0; (be = kt_backend_at(i)); i++) {
        if (!be->devices)
            continue;
        kt_diag why = {{0}};
        size_t before = *n;
        if (be->devices(out, cap, n, &why) != KT_OK)
            note_absent(be, why.msg, out, cap, n);
        else if (*n == before)
            note_absent(be, "no device", out, cap, n);
    }
    return KT_OK;
}
