/* import.c - `ktune import miopen`: bring an MIOpen performance database
 * into ktune's results database, for training the predictor; `ktune import
 * csv`: measurements exported by `ktune db export csv`, back in; `ktune
 * import kerneltuner`: a Kernel Tuner cache file; `ktune import t4`: a T4
 * results file. */
#include "cli.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune import miopen PERFDB [--db FILE] [--device NAME] [--specs DIR]\n"
    "       ktune import csv FILE [--db FILE]\n"
    "       ktune import kerneltuner FILE [--db FILE]\n"
    "       ktune import t4 FILE [--db FILE] [--device NAME] [--kernel NAME]\n"
    "                        [--problem KEY]\n\n"
    "Store every row of an MIOpen performance database (the SQLite file, or\n"
    "the .bz2 MIOpen ships) as a measurement: device NAME (default: the file's\n"
    "name, e.g. gfx906_60), kernel = the solver, problem = the convolution's\n"
    "fields, configuration = the solver's tuning parameters, named for\n"
    "ConvAsm1x1U, ConvOclDirectFwd1x1, ConvAsmBwdWrW1x1 and ConvAsmBwdWrW3x3.\n"
    "Importing the same file again adds nothing.  A row that is not a\n"
    "configuration of its solver (checked against DIR/SOLVER.json, else the\n"
    "names above, else the number of values most of the solver's rows have)\n"
    "is not stored: the count and the first few, by perf_db id, are reported.\n"
    "A .bz2 is decompressed in memory and refused past 1 GiB, or past 100\n"
    "times its own size once beyond 64 MiB (MIOpen's are about 7 times).\n\n"
    "csv: the rows of `ktune db export csv` (a recorded run, e.g. bench/data/),\n"
    "all or none; the devices are stored as \"imported|NAME\", so a live run\n"
    "never answers from them, while --replay and training use them.\n\n"
    "kerneltuner: a Kernel Tuner cache file (tune_kernel's cache=), all entries\n"
    "or none: device \"imported|device_name\", kernel kernel_name, problem\n"
    "ProblemSize_0=...; failed entries keep their class (invalid,\n"
    "compile_error, runtime_error).  Times stay in ms.\n\n"
    "t4: a T4 results file, all results or none; device, kernel and problem\n"
    "from each result where it names them (ktune's export does), else from\n"
    "--device, --kernel and --problem (Kernel Tuner's files name none).\n"
    "kerneltuner, t4: a file whose configurations name other parameters than\n"
    "the rows the database holds for the same kernel name is refused.\n\n"
    "  --db FILE           results database (default ktune.db)\n"
    "  --device NAME       miopen, t4: the device name to store\n"
    "  --kernel NAME       t4: the kernel name, for results that name none\n"
    "  --problem KEY       t4: the problem key, for results that name none\n"
    "  --specs DIR         miopen: the solvers' space-only specs (default\n"
    "                      PREFIX/share/ktune/kernels/miopen, or kernels/miopen\n"
    "                      of the repository ktune was built in)\n"
    "  --json              what was read as one JSON object on stdout: format,\n"
    "                      file, db, rows (read), added (new to the database)\n"
    "                      and what the format adds (e.g. ok: rows with a time)\n"
    "  --help              this text\n";

/* What every import reports under --json; the caller adds the format's own
 * counts. */
static json_object *stats_json(const char *format, const char *file, const char *db,
                               uint64_t rows, uint64_t added)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "format", json_object_new_string(format));
    json_object_object_add(o, "file", json_object_new_string(file));
    json_object_object_add(o, "db", json_object_new_string(db));
    json_object_object_add(o, "rows", json_object_new_int64((int64_t)rows));
    json_object_object_add(o, "added", json_object_new_int64((int64_t)added));
    return o;
}

static void add_count(json_object *o, const char *key, uint64_t n)
{
    json_object_object_add(o, key, json_object_new_int64((int64_t)n));
}

static void add_text(json_object *o, const char *key, const char *text)
{
    json_object_object_add(o, key, json_object_new_string(text));
}

/* The import's report: with json the object o, else the line fmt. */
static int report(json_object *o, bool json, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int report(json_object *o, bool json, const char *fmt, ...)
{
    if (json) {
        cli_json_print(o);
        return CLI_OK;
    }
    json_object_put(o);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    return CLI_OK;
}

/* The import of file into the database at path (created if need be), or
 * the error, reported. */
static int import(ktune_import_format fmt, const char *file, const char *path,
                  const ktune_import_opts *o, ktune_import_stats *st)
{
    ktune_diag diag = {{0}};
    ktune_db *db = NULL;
    int rc = ktune_db_open(path, KTUNE_DB_CREATE, &db, &diag);
    if (rc == KTUNE_OK)
        rc = ktune_db_import(db, fmt, file, o, st, &diag);
    ktune_db_close(db);
    return rc == KTUNE_OK ? CLI_OK : cli_error("%s", diag.msg);
}

/* What was read: a line, or with json an object. */
static int report_csv(const char *file, const char *path, const ktune_import_stats *st,
                      bool json)
{
    return report(stats_json("csv", file, path, st->rows, st->added), json,
                  "read %llu rows; %llu new in %s\n", (unsigned long long)st->rows,
                  (unsigned long long)st->added, path);
}

static int report_kerneltuner(const char *file, const char *path,
                              const ktune_import_stats *st, bool json)
{
    json_object *o = stats_json("kerneltuner", file, path, st->rows, st->added);
    add_count(o, "ok", st->ok);
    add_text(o, "kernel", st->kernel);
    add_text(o, "device", st->device);
    add_text(o, "problem", st->problem);
    return report(o, json, "read %llu entries (%llu with a time) of kernel %s on %s, "
                  "problem '%s'; %llu new in %s\n", (unsigned long long)st->rows,
                  (unsigned long long)st->ok, st->kernel, st->device, st->problem,
                  (unsigned long long)st->added, path);
}

static int report_t4(const char *file, const char *path, const ktune_import_stats *st,
                     bool json)
{
    json_object *j = stats_json("t4", file, path, st->rows, st->added);
    add_count(j, "ok", st->ok);
    return report(j, json, "read %llu results (%llu correct); %llu new in %s\n",
                  (unsigned long long)st->rows, (unsigned long long)st->ok,
                  (unsigned long long)st->added, path);
}

static int report_miopen(const char *file, const char *path, const ktune_import_stats *st,
                         bool json)
{
    if (st->rejected)
        fprintf(stderr, "ktune: warning: %s: %llu rows are not a configuration of "
                "their solver, not stored: %s%s\n", file,
                (unsigned long long)st->rejected, st->rejects,
                st->rejected > 3 ? "; ..." : "");
    json_object *j = stats_json("miopen", file, path, st->rows, st->added);
    add_count(j, "solvers", st->solvers);
    add_count(j, "named", st->named);
    add_count(j, "rejected", st->rejected);
    add_text(j, "device", st->device);
    return report(j, json, "read %llu rows of %llu solvers (%llu with named parameters); "
                  "%llu new in %s as device %s\n", (unsigned long long)st->rows,
                  (unsigned long long)st->solvers, (unsigned long long)st->named,
                  (unsigned long long)st->added, path, st->device);
}

/* The default spec folder, installed or the repository's; NULL if none. */
static const char *default_specs(char *dir, size_t n)
{
    return ktune_data_path("kernels/miopen", dir, n) == KTUNE_OK ? dir : NULL;
}

int cli_import(int argc, char **argv)
{
    static const struct option LONG[] = {{"db", required_argument, 0, 'd'},
                                         {"device", required_argument, 0, 'D'},
                                         {"specs", required_argument, 0, 's'},
                                         {"kernel", required_argument, 0, 'k'},
                                         {"problem", required_argument, 0, 'p'},
                                         {"json", no_argument, 0, 'J'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *path = "ktune.db";
    ktune_import_opts o;
    ktune_import_opts_init(&o);
    char specs[4096];
    o.spec_dir = default_specs(specs, sizeof specs);
    o.warn = cli_warn;
    bool miopen_only = false; /* an option only 'miopen' takes was given */
    bool t4_only = false;     /* one only 't4' takes */
    bool json = false;
    int c;
    optind = 1;
    while ((c = cli_getopt("import", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'D': o.device = optarg; break;
        case 's': o.spec_dir = optarg; miopen_only = true; break;
        case 'k': o.kernel = optarg; t4_only = true; break;
        case 'p': o.problem = optarg; t4_only = true; break;
        case 'J': json = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    const char *kind = optind + 2 == argc ? argv[optind] : "";
    ktune_import_format fmt;
    if (ktune_import_format_parse(kind, &fmt) != KTUNE_OK)
        return cli_usage_error("import", "expected 'miopen PERFDB', 'csv FILE', "
                               "'kerneltuner FILE' or 't4 FILE'");
    bool is_miopen = fmt == KTUNE_IMPORT_MIOPEN, is_t4 = fmt == KTUNE_IMPORT_T4;
    if (!is_miopen && !is_t4 && (miopen_only || o.device))
        return cli_usage_error("import", "--device and --specs are for 'miopen' and "
                               "'t4': %s names its devices and kernels", kind);
    if (!is_t4 && t4_only)
        return cli_usage_error("import", "--kernel and --problem are for 't4'");
    if (is_t4 && miopen_only)
        return cli_usage_error("import", "--specs is for 'miopen'");
    const char *file = argv[optind + 1];
    ktune_import_stats st;
    int rc = import(fmt, file, path, &o, &st);
    if (rc != CLI_OK)
        return rc;
    switch (fmt) {
    case KTUNE_IMPORT_CSV: return report_csv(file, path, &st, json);
    case KTUNE_IMPORT_KERNELTUNER: return report_kerneltuner(file, path, &st, json);
    case KTUNE_IMPORT_T4: return report_t4(file, path, &st, json);
    case KTUNE_IMPORT_MIOPEN: break;
    }
    return report_miopen(file, path, &st, json);
}
