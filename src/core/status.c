/* status.c - names of evaluation outcomes, from the KT_STATUSES list (public:
 * the core layer owns them, so that every layer may use them). */
#include "core/base.h"

#include <string.h>

static const char *const NAMES[] = {
#define KT_STATUS_TEXT(name, text) text,
    KT_STATUSES(KT_STATUS_TEXT)
#undef KT_STATUS_TEXT
};

const char *kt_status_name(kt_status s)
{
    return (unsigned)s < KT_STATUS_COUNT ? NAMES[s] : "unknown";
}

int kt_status_parse(const char *text, kt_status *out)
{
    if (!text || !out)
        return KT_EINVAL;
    for (int i = 0; i < KT_STATUS_COUNT; i++)
        if (strcmp(NAMES[i], text) == 0) {
            *out = (kt_status)i;
            return KT_OK;
        }
    return KT_ENOTFOUND;
}
