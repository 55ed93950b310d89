/* replay.c - a recorded run's results, found by configuration key.
 *
 * The rows stay in the order added; a sorted array of pointers to them
 * answers the look-ups (sorting the rows themselves would move a result's
 * few hundred bytes at every swap). */
#include "store/replay.h"
#include "core/util.h"

#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *config;         /* configuration key */
    kt_result result;
} entry;

struct kt_replay {
    char device[128];     /* the recorded device's name */
    size_t n, cap;
    entry *rows;          /* in the order added */
    const entry **sorted; /* rows by config, after kt_replay_finish */
    kt_winners winners;   /* other problems' fastest configurations */
    uint16_t *space;      /* kt_replay_set_space's list, or NULL */
    uint64_t nspace;
};

/* What the row visitor gathers. */
typedef struct loader {
    kt_replay *r;
    const char *source_hash;
    bool several_devices;
    size_t other_source;  /* rows of the kernel under another source hash */
    int err;
} loader;

/* Append one row, taking config (freed on failure); KT_ENOMEM. */
static int push(kt_replay *r, char *config, const kt_result *result)
{
    if (config && r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 256;
        entry *rows = realloc(r->rows, cap * sizeof *rows);
        if (rows) {
            r->rows = rows;
            r->cap = cap;
        }
    }
    if (!config || r->n == r->cap) {
        free(config);
        return KT_ENOMEM;
    }
    r->rows[r->n++] = (entry){.config = config, .result = *result};
    return KT_OK;
}

static int add_row(void *user, const kt_db_row *row)
{
    loader *L = user;
    kt_replay *r = L->r;
    if (strcmp(row->source_hash, L->source_hash) != 0) {
        L->other_source++;
        return 0;
    }
    if (r->n == 0)
        kt_strlcpy(r->device, sizeof r->device, row->device);
    else if (strcmp(r->device, row->device) != 0)
        L->several_devices = true;
    if (push(r, kt_strdup(row->config), &row->result) != KT_OK)
        return L->err = KT_ENOMEM, 1;
    return 0;
}

static int by_config(const void *a, const void *b)
{
    return strcmp((*(const entry *const *)a)->config, (*(const entry *const *)b)->config);
}

static int check_loaded(const loader *L, const char *db_path, const char *kernel,
                        const char *problem, kt_diag *diag)
{
    if (L->err)
        return kt_fail(diag, L->err, "out of memory");
    if (L->several_devices)
        return kt_fail(diag, KT_EINVAL, "%s: kernel '%s' problem %s was recorded on "
                       "several devices; choose one (hint: --device NAME, as "
                       "'ktune db list' shows)", db_path, kernel, problem);
    if (L->r->n == 0 && L->other_source)
        return kt_fail(diag, KT_ENOTFOUND, "%s: kernel '%s' problem %s was recorded "
                       "from another source (the kernel, reference or compiler "
                       "options changed since); record it again", db_path, kernel,
                       problem);
    if (L->r->n == 0)
        return kt_fail(diag, KT_ENOTFOUND, "%s: no recording of kernel '%s' for "
                       "problem %s (hint: record one with 'ktune tune --strategy "
                       "brute_force --db %s')", db_path, kernel, problem, db_path);
    return KT_OK;
}

int kt_replay_load(kt_db *db, const char *db_path, const char *kernel,
                   const char *source_hash, const char *problem,
                   const char *device, kt_replay **out, kt_diag *diag)
{
    *out = NULL;
    loader L = {.r = calloc(1, sizeof(kt_replay)), .source_hash = source_hash};
    if (!L.r)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_db_filter f = {.kernel = kernel, .problem = problem, .device = device};
    int rc = kt_db_list(db, &f, add_row, &L, diag);
    if (rc == KT_OK)
        rc = check_loaded(&L, db_path, kernel, problem, diag);
    if (rc == KT_OK)
        rc = kt_replay_load_winners(L.r, db, kernel, source_hash, problem, diag);
    if (rc == KT_OK)
        rc = kt_replay_finish(L.r, diag);
    if (rc != KT_OK) {
        kt_replay_free(L.r);
        return rc;
    }
    *out = L.r;
    return KT_OK;
}

int kt_replay_load_winners(kt_replay *r, kt_db *db, const char *kernel,
                           const char *source_hash, const char *problem, kt_diag *diag)
{
    return kt_winners_load(db, kernel, source_hash, r->device, problem, &r->winners, diag);
}

int kt_replay_open(const char *db_path, const char *kernel, const char *source_hash,
                   const char *problem, const char *device, kt_replay **out,
                   kt_diag *diag)
{
    *out = NULL;
    kt_db *db = NULL;
    int rc = kt_db_open_mode(db_path, KT_DB_EXISTING, &db, diag);
    if (rc == KT_OK)
        rc = kt_replay_load(db, db_path, kernel, source_hash, problem, device, out, diag);
    kt_db_close(db);
    return rc;
}

void kt_replay_free(kt_replay *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n; i++)
        free(r->rows[i].config);
    free(r->rows);
    free(r->sorted);
    kt_winners_clear(&r->winners);
    free(r->space);
    free(r);
}

int kt_replay_new(const char *device, kt_replay **out, kt_diag *diag)
{
    if (!(*out = calloc(1, sizeof **out)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    kt_strlcpy((*out)->device, sizeof (*out)->device, device);
    return KT_OK;
}

int kt_replay_take(kt_replay *r, char *config, const kt_result *result, kt_diag *diag)
{
    return push(r, config, result) == KT_OK ? KT_OK
                                            : kt_fail(diag, KT_ENOMEM, "out of memory");
}

int kt_replay_finish(kt_replay *r, kt_diag *diag)
{
    free(r->sorted);
    if (!(r->sorted = malloc((r->n ? r->n : 1) * sizeof *r->sorted)))
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    for (size_t i = 0; i < r->n; i++)
        r->sorted[i] = &r->rows[i];
    qsort(r->sorted, r->n, sizeof *r->sorted, by_config);
    return KT_OK;
}

void kt_replay_set_space(kt_replay *r, uint16_t *cfgs, uint64_t n)
{
    free(r->space);
    r->space = cfgs;
    r->nspace = n;
}

const uint16_t *kt_replay_space(const kt_replay *r, uint64_t *n)
{
    *n = r->nspace;
    return r->space;
}

const char *kt_replay_row(const kt_replay *r, size_t i, kt_result *out)
{
    *out = r->rows[i].result;
    return r->rows[i].config;
}

const char *kt_replay_device(const kt_replay *r) { return r->device; }
size_t kt_replay_size(const kt_replay *r) { return r->n; }
const kt_winners *kt_replay_winners(const kt_replay *r) { return &r->winners; }

bool kt_replay_find(const kt_replay *r, const char *config, kt_result *out)
{
    entry want = {.config = (char *)config};
    const entry *key = &want, **e = NULL;
    if (r->sorted)
        e = bsearch(&key, r->sorted, r->n, sizeof *r->sorted, by_config);
    if (e)
        *out = (*e)->result;
    return e != NULL;
}
