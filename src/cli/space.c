/* space.c - `ktune space`: count or list the valid configurations. */
#include "cli/cli.h"
#include "core/space.h"
#include "core/util.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static const char USAGE[] =
    "usage: ktune space SPEC [--problem K=V,...] [--count | --list] [--stats]\n\n"
    "  --problem K=V,...   problem sizes (default: the spec's defaults)\n"
    "  --count             print the number of valid configurations (default)\n"
    "  --list              print every valid configuration, one per line\n"
    "  --stats             also print the Cartesian size, the tree nodes visited,\n"
    "                      the condition evaluations and the time taken\n"
    "  --help              this text\n";

static int print_config(void *user, const uint16_t *cfg)
{
    const kt_spec *spec = user;
    char *key = kt_spec_config_key(spec, cfg);
    if (!key)
        return 1;
    puts(key);
    free(key);
    return 0;
}

int cli_space(int argc, char **argv)
{
    static const struct option LONG[] = {
        {"problem", required_argument, 0, 'p'}, {"count", no_argument, 0, 'c'},
        {"list", no_argument, 0, 'l'},          {"stats", no_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0}};
    const char *problem = NULL;
    bool list = false, stats = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", LONG, NULL)) != -1) {
        switch (c) {
        case 'p': problem = optarg; break;
        case 'c': list = false; break;
        case 'l': list = true; break;
        case 's': stats = true; break;
        case 'h': fputs(USAGE, stdout); return CLI_OK;
        default: return CLI_USAGE;
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("space", "expected one SPEC file");
    kt_diag diag = {{0}};
    kt_spec *spec = NULL;
    kt_problem prob = {0};
    kt_space *space = NULL;
    int rc = CLI_OK;
    if (kt_spec_load(argv[optind], cli_warn, NULL, &spec, &diag) != KT_OK ||
        kt_problem_parse(spec, problem, &prob, &diag) != KT_OK ||
        kt_space_new(spec, &prob, &space, &diag) != KT_OK) {
        rc = cli_error("%s", diag.msg);
        goto done;
    }
    kt_space_stats st = {0};
    uint64_t count = 0;
    double t0 = kt_now();
    if (list)
        kt_space_enumerate(space, print_config, spec, &st);
    else
        kt_space_count(space, &count, &st);
    double dt = kt_now() - t0;
    if (!list)
        printf("%llu\n", (unsigned long long)count);
    if (stats)
        fprintf(stderr, "cartesian %llu, valid %llu, nodes %llu, condition "
                "evaluations %llu, %.3f ms (%.1f M nodes/s)\n",
                (unsigned long long)kt_space_cartesian(space),
                (unsigned long long)st.valid, (unsigned long long)st.nodes,
                (unsigned long long)st.evals, dt * 1e3, (double)st.nodes / dt / 1e6);
done:
    kt_space_free(space);
    kt_problem_clear(&prob);
    kt_spec_free(spec);
    return rc;
}
