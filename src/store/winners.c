/* winners.c - each problem's fastest stored configuration (winners.h). */
#include "store/winners.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct collector {
    kt_winners *w;
    const char *source_hash, *except;
    int err;
} collector;

static int add(kt_winners *w, const char *problem, const char *config)
{
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 16;
        char **p = realloc(w->problem, cap * sizeof *p);
        if (p)
            w->problem = p;
        char **c = realloc(w->config, cap * sizeof *c);
        if (c)
            w->config = c;
        if (!p || !c)
            return KT_ENOMEM;
        w->cap = cap;
    }
    w->problem[w->n] = kt_strdup(problem);
    w->config[w->n] = kt_strdup(config);
    if (!w->problem[w->n] || !w->config[w->n]) {
        free(w->problem[w->n]);
        free(w->config[w->n]);
        return KT_ENOMEM;
    }
    w->n++;
    return KT_OK;
}

static int visit(void *user, const kt_db_row *row)
{
    collector *c = user;
    if (strcmp(row->source_hash, c->source_hash) != 0 ||
        (c->except && strcmp(row->problem, c->except) == 0))
        return 0;
    c->err = add(c->w, row->problem, row->config);
    return c->err != KT_OK;
}

int kt_winners_load(kt_db *db, const char *kernel, const char *source_hash,
                    const char *device, const char *except, kt_winners *out,
                    kt_diag *diag)
{
    collector c = {.w = out, .source_hash = source_hash, .except = except};
    kt_db_filter f = {.kernel = kernel, .device = device, .ok_only = true};
    int rc = kt_db_best(db, &f, visit, &c, diag);
    if (rc == KT_OK && c.err != KT_OK)
        rc = kt_fail(diag, c.err, "out of memory");
    return rc;
}

void kt_winners_clear(kt_winners *w)
{
    for (size_t i = 0; i < w->n; i++) {
        free(w->problem[i]);
        free(w->config[i]);
    }
    free(w->problem);
    free(w->config);
    *w = (kt_winners){0};
}
