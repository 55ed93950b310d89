/* import_names.c - an import's parameter names checked against the rows
 * stored for its kernel: one lookup per kernel, then a comparison without
 * allocations per configuration (a recording has thousands). */
#include "store/import_names.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

void kt_import_names_clear(kt_import_names *n)
{
    free(n->kernel);
    kt_key_fields_free(n->names, NULL, n->count);
    free(n->origin);
    *n = (kt_import_names){0};
}

static int first_config(void *user, const kt_db_row *row)
{
    char **config = user;
    *config = kt_strdup(row->config);
    return 1; /* one row is enough: a kernel's rows name the same parameters */
}

/* The names of kernel: a stored row's, else config's. */
static int lookup(kt_import_names *n, kt_db *db, const char *where, const char *kernel,
                  const char *config, kt_diag *diag)
{
    kt_import_names_clear(n);
    kt_db_filter f = {.kernel = kernel};
    char *stored = NULL, **values = NULL;
    int rc = kt_db_list(db, &f, first_config, &stored, diag);
    if (rc != KT_OK)
        return rc;
    n->kernel = kt_strdup(kernel);
    n->origin = kt_strdup(stored ? "the database" : where);
    if (!n->kernel || !n->origin ||
        kt_key_fields(stored ? stored : config, &n->names, &values, &n->count) != KT_OK)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_key_fields_free(NULL, values, n->count);
    free(stored);
    return rc;
}

/* Whether config (a checked key) names n's parameters in n's order. */
static bool same_names(const kt_import_names *n, const char *config)
{
    const char *s = config;
    for (size_t i = 0; i < n->count; i++) {
        size_t len = strlen(n->names[i]);
        if (strncmp(s, n->names[i], len) != 0 || s[len] != '=')
            return false;
        s += strcspn(s, ",");
        s += *s == ',';
    }
    return *s == '\0';
}

/* Append to b, after label, the names of a that other lacks. */
static void append_missing(kt_buf *b, const char *label, char **a, size_t na,
                           char **other, size_t nother)
{
    bool first = true;
    for (size_t i = 0; i < na; i++) {
        size_t j = 0;
        while (j < nother && strcmp(a[i], other[j]) != 0)
            j++;
        if (j < nother)
            continue;
        kt_buf_appendf(b, "%s%s%s", first ? (b->len ? "; " : "") : ", ",
                       first ? label : "", a[i]);
        first = false;
    }
}

static void append_list(kt_buf *b, char **names, size_t n)
{
    kt_buf_append(b, "");
    for (size_t i = 0; i < n; i++)
        kt_buf_appendf(b, "%s%s", i ? ", " : "", names[i]);
}

/* The error: both lists of names, and which differ. */
static int refuse(const kt_import_names *n, const char *path, const char *where,
                  char **cn, size_t nc, kt_diag *diag)
{
    kt_buf mine = {0}, theirs = {0}, diff = {0};
    append_list(&mine, cn, nc);
    append_list(&theirs, n->names, n->count);
    kt_buf_append(&diff, "");
    append_missing(&diff, "new: ", cn, nc, n->names, n->count);
    append_missing(&diff, "missing: ", n->names, n->count, cn, nc);
    char *m = kt_buf_take(&mine), *t = kt_buf_take(&theirs), *d = kt_buf_take(&diff);
    int rc = m && t && d
                 ? kt_fail(diag, KT_EFORMAT, "%s: %s: parameters (%s) other than those "
                           "of kernel '%s' in %s (%s): %s (hint: import into another "
                           "--db)", path, where, m, n->kernel, n->origin, t,
                           *d ? d : "the same names in another order")
                 : kt_fail(diag, KT_ENOMEM, "out of memory");
    free(m);
    free(t);
    free(d);
    return rc;
}

int kt_import_names_check(kt_import_names *n, kt_db *db, const char *path,
                          const char *where, const char *kernel, const char *config,
                          kt_diag *diag)
{
    int rc = KT_OK;
    if (!n->kernel || strcmp(n->kernel, kernel) != 0)
        rc = lookup(n, db, where, kernel, config, diag);
    if (rc != KT_OK || same_names(n, config))
        return rc;
    char **cn, **cv;
    size_t nc;
    if (kt_key_fields(config, &cn, &cv, &nc) != KT_OK)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    rc = refuse(n, path, where, cn, nc, diag);
    kt_key_fields_free(cn, cv, nc);
    return rc;
}
