/* train.c - a model trained on a kernel's stored results: the method's table
 * says which data it learns from (each problem's best, or every
 * measurement), so callers never choose the data by the method's name. */
#include "core/util.h"
#include "ml/model_impl.h"

#include <stdlib.h>
#include <string.h>

/* Every field of list ("a,b") must be a descriptor field of d: a split that
 * ignores a field the problems lack would silently split by problem. */
static int check_fields(const kt_dataset *d, const char *list, kt_diag *diag)
{
    for (const char *s = list ? list : ""; *s;) {
        size_t len = strcspn(s, ","), i = 0;
        while (i < d->nin && !(strlen(d->in_names[i]) == len &&
                               strncmp(d->in_names[i], s, len) == 0))
            i++;
        if (i == d->nin) {
            kt_buf b = {0};
            kt_buf_append(&b, "");
            for (size_t f = 0; f < d->nin; f++)
                kt_buf_appendf(&b, "%s%s", f ? ", " : "", d->in_names[f]);
            char *fields = kt_buf_take(&b);
            int rc = kt_fail(diag, KT_EINVAL, "--split-ignore: '%.*s' is not a field of "
                             "%s's problems (%s)", (int)len, s, d->kernel,
                             fields ? fields : "");
            free(fields);
            return rc;
        }
        s += len + (s[len] == ',');
    }
    return KT_OK;
}

/* The default method on d, the cell where selects: with the pool of the
 * kernel's problems of other --where values where it has any (siblings.c), else
 * on d alone. */
static int choose_db(kt_db *db, const kt_dataset *d, const kt_train_opts *o, kt_model **out,
                     kt_diag *diag)
{
    kt_dataset *all = NULL;
    kt_siblings pool = {0};
    kt_diag quiet;
    bool pooled = o->where && *o->where &&
                  kt_dataset_load(db, d->kernel, NULL, &all, &quiet) == KT_OK &&
                  kt_siblings_new(all, o->where, o, &pool) == KT_OK;
    int rc = kt_model_choose(d, pooled ? &pool : NULL, o, out, diag);
    kt_siblings_free(&pool);
    kt_dataset_free(all);
    return rc;
}

int kt_model_train_db(kt_db *db, const char *kernel, const kt_train_opts *o,
                      kt_model **out, kt_diag *diag)
{
    *out = NULL;
    const kt_method *method = NULL; /* NULL: chosen by validation (choose.c) */
    int rc = kt_method_is_auto(o->method) ? KT_OK : kt_method_lookup(o->method, &method, diag);
    if (rc != KT_OK)
        return rc;
    if (method && method->every_measurement && o->holdout != 0)
        return kt_fail(diag, KT_EINVAL, "--model %s learns from every measurement and is "
                       "tested on other shapes: give --holdout 0", method->name);
    kt_dataset *d = NULL;
    rc = (method && method->every_measurement ? kt_dataset_load_all : kt_dataset_load)(
        db, kernel, o->where, &d, diag);
    if (rc == KT_OK)
        rc = check_fields(d, o->split_ignore, diag);
    if (rc == KT_OK)
        rc = method ? kt_model_train(d, o, out, diag) : choose_db(db, d, o, out, diag);
    kt_dataset_free(d);
    return rc;
}
