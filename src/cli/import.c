/* import.c - `ktune import miopen`: bring an MIOpen performance database
 * into ktune's results database, for training the predictor; `ktune import
 * csv`: measurements exported by `ktune db export csv`, back in; `ktune
 * import kerneltuner`: a Kernel Tuner cache file. */
#include "cli/cli.h"
#include "store/csv_import.h"
#include "store/kerneltuner.h"
#include "store/miopen.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char USAGE[] =
    "usage: ktune import miopen PERFDB [--db FILE] [--device NAME] [--specs DIR]\n"
    "       ktune import csv FILE [--db FILE]\n"
    "       ktune import kerneltuner FILE [--db FILE]\n\n"
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
    "  --db FILE           results database (default ktune.db)\n"
    "  --device NAME       miopen: the device name to store\n"
    "  --specs DIR         miopen: the solvers' space-only specs (default\n"
    "                      kernels/miopen, when that folder exists)\n"
    "  --help              this text\n";

static int import_csv(const char *file, const char *path)
{
    kt_diag diag = {{0}};
    kt_db *db = NULL;
    kt_csv_import_stats st;
    int rc = kt_db_open_mode(path, KT_DB_CREATE, &db, &diag);
    if (rc == KT_OK)
        rc = kt_csv_import(file, db, &st, &diag);
    kt_db_close(db);
    if (rc != KT_OK)
        return cli_error("%s", diag.msg);
    printf("read %llu rows; %llu new in %s\n", (unsigned long long)st.rows,
           (unsigned long long)st.added, path);
    return CLI_OK;
}

static int import_kerneltuner(const char *file, const char *path)
{
    kt_diag diag = {{0}};
    kt_db *db = NULL;
    kt_kerneltuner_stats st;
    int rc = kt_db_open_mode(path, KT_DB_CREATE, &db, &diag);
    if (rc == KT_OK)
        rc = kt_kerneltuner_import(file, db, &st, &diag);
    kt_db_close(db);
    if (rc != KT_OK)
        return cli_error("%s", diag.msg);
    printf("read %llu entries (%llu with a time) of kernel %s on %s, problem '%s'; "
           "%llu new in %s\n", (unsigned long long)st.rows, (unsigned long long)st.ok,
           st.kernel, st.device, st.problem, (unsigned long long)st.added, path);
    return CLI_OK;
}

/* The default spec folder, when ktune runs from the repository. */
static const char *default_specs(void)
{
    struct stat st;
    return stat("kernels/miopen", &st) == 0 && S_ISDIR(st.st_mode) ? "kernels/miopen"
                                                                   : NULL;
}

static int import_miopen(const char *file, const char *path, kt_miopen_options *o)
{
    kt_diag diag = {{0}};
    kt_db *db = NULL;
    kt_import_stats st;
    int rc = kt_db_open_mode(path, KT_DB_CREATE, &db, &diag);
    if (rc == KT_OK)
        rc = kt_miopen_import_opts(file, db, o, &st, &diag);
    kt_db_close(db);
    if (rc != KT_OK)
        return cli_error("%s", diag.msg);
    if (st.rejected)
        fprintf(stderr, "ktune: warning: %s: %llu rows are not a configuration of "
                "their solver, not stored: %s%s\n", file,
                (unsigned long long)st.rejected, st.rejects,
                st.rejected > 3 ? "; ..." : "");
    printf("read %llu rows of %llu solvers (%llu with named parameters); %llu new in "
           "%s as device %s\n", (unsigned long long)st.rows,
           (unsigned long long)st.solvers, (unsigned long long)st.named,
           (unsigned long long)st.added, path, st.device);
    return CLI_OK;
}

int cli_import(int argc, char **argv)
{
    static const struct option LONG[] = {{"db", required_argument, 0, 'd'},
                                         {"device", required_argument, 0, 'D'},
                                         {"specs", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *path = "ktune.db";
    kt_miopen_options o = {.spec_dir = default_specs()};
    bool miopen_only = false; /* an option only 'miopen' takes was given */
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        switch (c) {
        case 'd': path = optarg; break;
        case 'D': o.device = optarg; miopen_only = true; break;
        case 's': o.spec_dir = optarg; miopen_only = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    const char *kind = optind + 2 == argc ? argv[optind] : "";
    bool csv = strcmp(kind, "csv") == 0, kt = strcmp(kind, "kerneltuner") == 0;
    if ((csv || kt) && miopen_only)
        return cli_usage_error("import", "--device and --specs are for 'miopen': %s "
                               "names its devices and kernels", kind);
    if (csv)
        return import_csv(argv[optind + 1], path);
    if (kt)
        return import_kerneltuner(argv[optind + 1], path);
    if (strcmp(kind, "miopen") != 0)
        return cli_usage_error("import", "expected 'miopen PERFDB', 'csv FILE' or "
                               "'kerneltuner FILE'");
    return import_miopen(argv[optind + 1], path, &o);
}
