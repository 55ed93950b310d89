/* main.c - the ktune command: a table of subcommands, one file each. */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command COMMANDS[] = {
    {"tune", cli_tune, "measure configurations of a kernel and keep the best"},
    {"space", cli_space, "count or list the valid configurations of a spec"},
    {"validate", cli_validate, "check a spec completely, report every problem"},
    {"db", cli_db, "query and export the results database"},
    {"import", cli_import, "bring measurements made elsewhere into the database"},
    {"train", cli_train, "learn to predict the best configuration of unseen problems"},
    {"evaluate", cli_evaluate, "measure a model's predictions on held-out problems"},
    {"predict", cli_predict, "the most likely configurations for one problem"},
    {"benchmark", cli_benchmark, "compare search strategies on a recorded space"},
    {"analyze", cli_analyze, "what makes a kernel fast and frugal: models, importance"},
    {"report", cli_report, "draw the results database as one HTML file"},
    {"devices", cli_devices, "list the GPU and OpenCL devices ktune can run kernels on"},
};

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ktune: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return CLI_FAIL;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("ktune: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nhint: see 'ktune %s --help'\n", cmd);
    va_end(ap);
    return CLI_USAGE;
}

void cli_warn(void *user, const char *msg)
{
    (void)user;
    fprintf(stderr, "ktune: %s\n", msg);
}

char *cli_miopen_spec(const char *spec, const char *kernel)
{
    char dir[4096];
    char *path = NULL;
    if (spec)
        return strdup(spec);
    ktune_data_path("kernels/miopen", dir, sizeof dir); /* else a path that fails */
    return asprintf(&path, "%s/%s.json", dir, kernel) < 0 ? NULL : path;
}

int cli_getopt(const char *cmd, int argc, char **argv, const struct option *longopts)
{
    opterr = 0; /* getopt's own messages name neither ktune nor a hint */
    int c = getopt_long(argc, argv, ":h", longopts, NULL);
    if (c != '?' && c != ':')
        return c;
    char opt[64];
    if (optopt && !(c == ':' && optind > 0 && argv[optind - 1][1] == '-'))
        snprintf(opt, sizeof opt, "-%c", optopt);
    else
        snprintf(opt, sizeof opt, "%.*s", (int)strcspn(argv[optind - 1], "="),
                 argv[optind - 1]);
    if (c == ':')
        cli_usage_error(cmd, "option '%s' needs a value", opt);
    else
        cli_usage_error(cmd, "'%s' is not an option of 'ktune %s' (or is ambiguous)",
                        opt, cmd);
    return '?';
}

int cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text || *end || text[0] == '-')
        return cli_usage_error(cmd, "%s expects a whole number, not '%s'", opt, text);
    *out = v;
    return CLI_OK;
}

int cli_parse_range(const char *cmd, const char *opt, const char *text, uint64_t lo,
                    uint64_t hi, uint64_t *out)
{
    int rc = cli_parse_u64(cmd, opt, text, out);
    if (rc == CLI_OK && *out < lo && hi == UINT64_MAX)
        rc = cli_usage_error(cmd, "%s must be at least %llu, not '%s'", opt,
                             (unsigned long long)lo, text);
    else if (rc == CLI_OK && (*out < lo || *out > hi))
        rc = cli_usage_error(cmd, "%s must be %llu to %llu, not '%s'", opt,
                             (unsigned long long)lo, (unsigned long long)hi, text);
    return rc;
}

int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    if (errno || end == text || *end || !(*out > 0) || !isfinite(*out))
        return cli_usage_error(cmd, "%s expects a positive number, not '%s'", opt,
                               text);
    return CLI_OK;
}

int cli_parse_fraction(const char *cmd, const char *opt, const char *text, double *out)
{
    char *end;
    errno = 0;
    *out = strtod(text, &end);
    if (errno || end == text || *end || !(*out >= 0 && *out < 1))
        return cli_usage_error(cmd, "%s must be at least 0 and below 1, not '%s'", opt,
                               text);
    return CLI_OK;
}

char *cli_join(const char *const *names, size_t n)
{
    size_t len = 1;
    for (size_t i = 0; i < n; i++)
        len += strlen(names[i]) + 2;
    char *out = malloc(len), *end = out;
    for (size_t i = 0; out && i < n; i++)
        end += sprintf(end, "%s%s", i ? ", " : "", names[i]);
    if (out)
        *end = '\0';
    return out;
}

int cli_problem_parse(const char *cmd, const ktune_spec *spec, const char *text,
                      ktune_problem **out)
{
    ktune_diag diag = {{0}};
    int rc = ktune_problem_parse(spec, text, 0, out, &diag);
    if (rc == KTUNE_ENOMEM)
        return cli_error("%s", diag.msg);
    if (rc == KTUNE_ENOTFOUND) /* "does not set K: ..." */
        return cli_usage_error(cmd, "--problem %s", diag.msg);
    if (rc != KTUNE_OK)
        return cli_usage_error(cmd, "--problem: %s", diag.msg);
    return CLI_OK;
}

json_object *cli_config_json(const char *key)
{
    json_object *obj = json_object_new_object();
    char *copy = strdup(key), *save = NULL;
    for (char *f = copy && obj ? strtok_r(copy, ",", &save) : NULL; f;
         f = strtok_r(NULL, ",", &save)) {
        char *value = strchr(f, '='), *end;
        if (!value)
            continue;
        *value++ = '\0';
        double d = strtod(value, &end);
        json_object *v = *end || end == value ? json_object_new_string(value)
                         : d == (double)(long long)d ? json_object_new_int64((long long)d)
                                                     : json_object_new_double(d);
        json_object_object_add(obj, f, v);
    }
    free(copy);
    return obj;
}

json_object *cli_json_double(double v)
{
    return isfinite(v) ? json_object_new_double(v) : NULL;
}

const char *cli_json_text(json_object *o)
{
    return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
                                                 JSON_C_TO_STRING_SPACED |
                                                 JSON_C_TO_STRING_NOSLASHESCAPE);
}

void cli_json_element(uint64_t *printed, json_object *o)
{
    printf("%s%s", (*printed)++ ? ",\n" : "\n", cli_json_text(o));
    json_object_put(o);
}

void cli_json_print(json_object *doc)
{
    puts(cli_json_text(doc));
    json_object_put(doc);
}

/* ktune --version [--json]: ktune's version, then the libraries' it runs
 * with (a bug report wants both). */
static int version(int argc, char **argv)
{
    bool json = argc == 3 && strcmp(argv[2], "--json") == 0;
    if (argc > 2 && !json) {
        fprintf(stderr, "ktune: error: '%s' is not an option of 'ktune --version'\n"
                "hint: see 'ktune --help'\n", argv[2]);
        return CLI_USAGE;
    }
    json_object *o = json ? json_object_new_object() : NULL;
    json_object *libs = json ? json_object_new_object() : NULL;
    if (json)
        json_object_object_add(o, "version", json_object_new_string(ktune_version()));
    else
        printf("ktune %s\n", ktune_version());
    const char *name;
    char v[64];
    for (size_t i = 0; ktune_dependency(i, &name, v, sizeof v) == KTUNE_OK; i++)
        if (json)
            json_object_object_add(libs, name, json_object_new_string(v));
        else
            printf("%s %s\n", name, v);
    if (json) {
        json_object_object_add(o, "libraries", libs);
        cli_json_print(o);
    }
    return CLI_OK;
}

static void usage(FILE *f)
{
    fputs("usage: ktune <command> [options]\n\n"
          "ktune tunes compute kernels: it measures configurations, keeps every\n"
          "result in an SQLite database, and reports the best.\n\ncommands:\n",
          f);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        fprintf(f, "  %-9s %s\n", COMMANDS[i].name, COMMANDS[i].summary);
    fputs("\n'ktune <command> --help' describes a command; 'ktune --version' prints\n"
          "the version; every command takes --json (and so does --version).\n", f);
}

int main(int argc, char **argv)
{
    /* bit-identical training on any machine, and no spinning threads
     * (ktune.h says why) */
    ktune_blas_set_threads(1);
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return CLI_OK;
    }
    if (strcmp(argv[1], "--version") == 0)
        return version(argc, argv);
    for (size_t i = 0; i < sizeof COMMANDS / sizeof COMMANDS[0]; i++)
        if (strcmp(argv[1], COMMANDS[i].name) == 0) {
            /* getopt's own messages, where a command lets it print them,
             * start with argv[0]: "ktune space: ...", not "space: ..." */
            char name[32];
            snprintf(name, sizeof name, "ktune %s", COMMANDS[i].name);
            argv[1] = name;
            return COMMANDS[i].run(argc - 1, argv + 1);
        }
    fprintf(stderr, "ktune: error: '%s' is not a ktune command\n", argv[1]);
    usage(stderr);
    return CLI_USAGE;
}
