/* transfer.c - the command line's transfer across devices: the recordings
 * a comma-separated option names (`ktune tune --warm-from`, `ktune
 * benchmark --transfer`), and the leave-one-device-out table. */
#include "cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RECORDINGS 64

/* The recordings text names (comma-separated), split in *buf (the caller
 * frees it) into paths; a usage error of cmd's opt when empty or too
 * many. */
static int split_paths(const char *cmd, const char *opt, const char *text, char **buf,
                       const char **paths, size_t *n)
{
    *n = 0;
    if (!(*buf = strdup(text)))
        return cli_error("out of memory");
    for (char *s = strtok(*buf, ","); s; s = strtok(NULL, ",")) {
        if (*n == MAX_RECORDINGS)
            return cli_usage_error(cmd, "%s takes at most %d recordings", opt,
                                   MAX_RECORDINGS);
        paths[(*n)++] = s;
    }
    return *n ? CLI_OK : cli_usage_error(cmd, "%s wants recordings, like A.json,B.json",
                                         opt);
}

int cli_transfer_open(const char *cmd, const char *opt, const char *text,
                      const char *cache_dir, ktune_transfer **out)
{
    const char *paths[MAX_RECORDINGS];
    char *buf = NULL;
    size_t n = 0;
    ktune_diag d = {{0}};
    int rc = split_paths(cmd, opt, text, &buf, paths, &n);
    if (rc == CLI_OK && ktune_transfer_open(paths, n, cache_dir, out, &d) != KTUNE_OK)
        rc = cli_error("%s", d.msg);
    free(buf);
    return rc;
}

/* ---------------------------------------------------------------- output */

static void print_table(const ktune_transfer_bench *b, const ktune_transfer_bench_opts *o)
{
    printf("%s: each of %zu devices held out, the transfer learnt from the others; "
           "%u seeds\n", ktune_transfer_bench_kernel(b), o->npaths, o->seeds);
    printf("%-36s %6s %9s %7s %7s\n", "held-out device", "meas.", "transfer", "warm",
           "cold");
    for (size_t i = 0; i < ktune_transfer_bench_count(b); i++) {
        const ktune_transfer_row *r = ktune_transfer_bench_row(b, i);
        printf("%-36s %6llu %9.3f %7.3f %7.3f\n", r->device ? r->device : "(median)",
               (unsigned long long)r->measurements, r->transfer, r->warm, r->cold);
    }
    printf("(fractions of the held-out device's optimum: transfer, its top N alone;\n"
           " warm, its top %zu then the default strategy; cold, the default strategy\n"
           " from the default configuration; 0 measurements: the top one and the\n"
           " default one, unmeasured; warm and cold: means over the seeds)\n", o->top);
}

static json_object *row_json(const ktune_transfer_row *r)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "device", r->device ? json_object_new_string(r->device)
                                                  : NULL);
    json_object_object_add(o, "measurements", json_object_new_int64((int64_t)r->measurements));
    json_object_object_add(o, "optimum_ms", cli_json_double(r->optimum_ms));
    json_object_object_add(o, "transfer", cli_json_double(r->transfer));
    json_object_object_add(o, "warm", cli_json_double(r->warm));
    json_object_object_add(o, "cold", cli_json_double(r->cold));
    return o;
}

static void print_json(const ktune_transfer_bench *b, const ktune_transfer_bench_opts *o)
{
    json_object *doc = json_object_new_object(), *rows = json_object_new_array();
    json_object_object_add(doc, "kernel", json_object_new_string(ktune_transfer_bench_kernel(b)));
    json_object_object_add(doc, "seeds", json_object_new_int64(o->seeds));
    json_object_object_add(doc, "top", json_object_new_int64((int64_t)o->top));
    for (size_t i = 0; i < ktune_transfer_bench_count(b); i++)
        json_object_array_add(rows, row_json(ktune_transfer_bench_row(b, i)));
    json_object_object_add(doc, "results", rows);
    cli_json_print(doc);
}

int cli_transfer_bench(const char *list, const double *budgets, size_t nbudgets,
                       unsigned seeds, size_t top, bool json)
{
    const char *paths[MAX_RECORDINGS];
    char *buf = NULL;
    ktune_transfer_bench_opts o;
    ktune_transfer_bench_opts_init(&o);
    int rc = split_paths("benchmark", "--transfer", list, &buf, paths, &o.npaths);
    o.paths = paths;
    o.budgets = budgets;
    o.nbudgets = nbudgets;
    o.seeds = seeds;
    o.top = top ? top : o.top;
    ktune_transfer_bench *b = NULL;
    ktune_diag d = {{0}};
    if (rc == CLI_OK && ktune_transfer_benchmark(&o, &b, &d) != KTUNE_OK)
        rc = cli_error("%s", d.msg);
    if (rc == CLI_OK && json)
        print_json(b, &o);
    else if (rc == CLI_OK)
        print_table(b, &o);
    ktune_transfer_bench_free(b);
    free(buf);
    return rc;
}
