/* report.c - `ktune report`: a results database drawn as one self-contained
 * HTML file (the library's ktune_report_write makes it; this file parses
 * the options, loads the specs and writes the file, through a temporary
 * file renamed into place, so a failed report leaves no half page). */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune report [options]\n\n"
    "Draw what the results database holds as one HTML file (inline SVG, nothing\n"
    "fetched, no script needed): per kernel the failure classes and, for an\n"
    "NVIDIA H100 and a spec with a FlopCount, a roofline against the measured\n"
    "ceilings, and the parameters' importance and partial dependence (ktune\n"
    "analyze's models); per run (device and problem) its convergence, its\n"
    "time/energy front and its MAP-Elites map (docs/ANALYSIS.md, \"Report\").\n\n"
    "options:\n"
    "  --db FILE       results database (default ktune.db)\n"
    "  --output FILE   the HTML file to write (default ktune-report.html; - for\n"
    "                  standard output)\n"
    "  --kernel NAME   only this kernel\n"
    "  --spec FILE     a kernel's spec, for its roofline (FlopCount, argument\n"
    "                  sizes); repeat for several kernels\n"
    "  --title TEXT    the page's title (default \"ktune report\")\n"
    "  --runs N        runs drawn per kernel, the most measured first (default 8)\n"
    "  --no-analysis   leave out parameter importance and partial dependence\n"
    "                  (their models take about a second per kernel)\n"
    "  --json          say what was written as JSON on stdout: output,\n"
    "                  measurements, kernels, runs, figures\n"
    "  --help          this text\n\n"
    CLI_EXIT_STATUS;

enum { MAX_SPECS = 32 };

typedef struct report_args {
    const char *db, *output, *spec_path[MAX_SPECS];
    size_t nspecs;
    bool help, json;
    ktune_report_info info;
    ktune_report_opts o;
} report_args;

static int parse_args(int argc, char **argv, report_args *a)
{
    static const struct option LONG[] = {
        {"db", required_argument, 0, 'd'},    {"output", required_argument, 0, 'o'},
        {"kernel", required_argument, 0, 'k'}, {"spec", required_argument, 0, 's'},
        {"title", required_argument, 0, 't'},  {"runs", required_argument, 0, 'r'},
        {"json", no_argument, 0, 'J'},         {"no-analysis", no_argument, 0, 'A'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0}};
    uint64_t runs;
    int c;
    optind = 1;
    while ((c = cli_getopt("report", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'd': a->db = optarg; break;
        case 'o': a->output = optarg; break;
        case 'k': a->o.kernel = optarg; break;
        case 't': a->o.title = optarg; break;
        case 's':
            if (a->nspecs == MAX_SPECS)
                return cli_usage_error("report", "--spec: at most %d specs", MAX_SPECS);
            a->spec_path[a->nspecs++] = optarg;
            break;
        case 'r':
            if (cli_parse_range("report", "--runs", optarg, 1, 10000, &runs) != CLI_OK)
                return CLI_USAGE;
            a->o.max_runs = (size_t)runs;
            break;
        case 'J': a->json = true; break;
        case 'A': a->o.no_analysis = true; break;
        case 'h': a->help = true; break;
        default: return CLI_USAGE;
        }
    }
    if (optind < argc)
        return cli_usage_error("report", "unexpected argument '%s'", argv[optind]);
    if (a->json && a->output && strcmp(a->output, "-") == 0)
        return cli_usage_error("report", "--json and --output - would both write to "
                               "standard output: give --output FILE");
    return CLI_OK;
}

/* Write the report into path (through path.tmp), or to stdout for "-". */
static int write_report(ktune_db *db, report_args *a, ktune_diag *d)
{
    if (strcmp(a->output, "-") == 0)
        return ktune_report_write(db, &a->o, stdout, &a->info, d);
    size_t n = strlen(a->output) + 5;
    char *tmp = malloc(n);
    if (!tmp)
        return snprintf(d->msg, sizeof d->msg, "out of memory"), KTUNE_ENOMEM;
    snprintf(tmp, n, "%s.tmp", a->output);
    FILE *f = fopen(tmp, "w");
    int rc = f ? ktune_report_write(db, &a->o, f, &a->info, d) : KTUNE_EIO;
    if (!f)
        snprintf(d->msg, sizeof d->msg, "cannot write '%s'", tmp);
    if (f && fclose(f) != 0 && rc == KTUNE_OK)
        rc = KTUNE_EIO, snprintf(d->msg, sizeof d->msg, "cannot write '%s'", tmp);
    if (rc == KTUNE_OK && rename(tmp, a->output) != 0)
        rc = KTUNE_EIO, snprintf(d->msg, sizeof d->msg, "cannot write '%s'", a->output);
    if (rc != KTUNE_OK)
        remove(tmp);
    free(tmp);
    return rc;
}

static void print_json(const report_args *a)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "output", json_object_new_string(a->output));
    json_object_object_add(o, "measurements", json_object_new_int64((int64_t)a->info.measurements));
    json_object_object_add(o, "kernels", json_object_new_int64((int64_t)a->info.kernels));
    json_object_object_add(o, "runs", json_object_new_int64((int64_t)a->info.runs));
    json_object_object_add(o, "figures", json_object_new_int64((int64_t)a->info.figures));
    cli_json_print(o);
}

int cli_report(int argc, char **argv)
{
    report_args a = {.db = "ktune.db", .output = "ktune-report.html"};
    ktune_report_opts_init(&a.o);
    int rc = parse_args(argc, argv, &a);
    if (rc != CLI_OK || a.help) {
        if (a.help)
            fputs(USAGE, stdout);
        return rc;
    }
    ktune_spec *specs[MAX_SPECS] = {0};
    ktune_diag d = {{0}};
    ktune_db *db = NULL;
    int krc = KTUNE_OK;
    for (size_t i = 0; krc == KTUNE_OK && i < a.nspecs; i++)
        krc = ktune_spec_load(a.spec_path[i], cli_warn, NULL, &specs[i], &d);
    if (krc == KTUNE_OK)
        krc = ktune_db_open(a.db, 0, &db, &d); /* creates nothing */
    a.o.specs = (const ktune_spec *const *)specs;
    a.o.nspecs = a.nspecs;
    a.o.source = a.db;
    if (krc == KTUNE_OK)
        krc = write_report(db, &a, &d);
    ktune_db_close(db);
    for (size_t i = 0; i < a.nspecs; i++)
        ktune_spec_free(specs[i]);
    if (krc != KTUNE_OK)
        return cli_error("%s", d.msg);
    if (a.json)
        print_json(&a);
    else if (strcmp(a.output, "-") != 0)
        printf("report: wrote %s (%zu figures of %zu kernel%s)\n", a.output, a.info.figures,
               a.info.kernels, a.info.kernels == 1 ? "" : "s");
    return CLI_OK;
}
