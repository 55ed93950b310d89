/* version.c - the public API's version report: ktune's own version and the
 * versions of the libraries it runs with (asked from each library at run
 * time, since a shared library may be newer than the headers we built
 * with). */
#include "core/base.h"

#include <cblas.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <xgboost/c_api.h>

const char *ktune_version(void) { return KTUNE_VERSION; }

int ktune_dependency(size_t i, const char **name, char *version, size_t size)
{
    static const char *const NAMES[] = {"SQLite", "json-c", "XGBoost", "OpenBLAS"};
    if (!name || (!version && size))
        return KTUNE_EINVAL;
    *name = i < sizeof NAMES / sizeof NAMES[0] ? NAMES[i] : NULL;
    if (!*name)
        return KTUNE_ENOTFOUND;
    int major = 0, minor = 0, patch = 0;
    if (i == 0)
        snprintf(version, size, "%s", sqlite3_libversion());
    else if (i == 1)
        snprintf(version, size, "%s", json_c_version());
    else if (i == 2) {
        XGBoostVersion(&major, &minor, &patch);
        snprintf(version, size, "%d.%d.%d", major, minor, patch);
    } else { /* "OpenBLAS 0.3.21 DYNAMIC_ARCH ...": its second word */
        const char *config = openblas_get_config();
        const char *v = config ? strchr(config, ' ') : NULL;
        snprintf(version, size, "%.*s", v ? (int)strcspn(v + 1, " ") : 0, v ? v + 1 : "");
    }
    return KTUNE_OK;
}
