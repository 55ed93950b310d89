/* validate.c - `ktune validate`: check a spec completely and report every
 * problem, then count its space.
 *
 * The library does the checking (kt_spec_load_with with a report and the
 * official schema's rules, core/spec.h); this file only prints: one line
 * per problem, then the space's size when the space part is valid. */
#include "cli/cli.h"
#include "core/space.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char USAGE[] =
    "usage: ktune validate SPEC [--json]\n\n"
    "Check a T1 spec completely: everything ktune needs to tune it and the\n"
    "official T1 schema's types, enums and required keys. Every problem is\n"
    "printed, one line each (SPEC: KEY.PATH: what), then the number of valid\n"
    "configurations when the space part (parameters, problem, conditions) is\n"
    "valid. Warnings (unknown keys, forms only ktune reads) go to stderr.\n\n"
    "  --json   print {\"file\", \"valid\", \"errors\", \"warnings\", \"count\"}\n"
    "           instead (count: the exact number as a string, or null)\n"
    "  --help   this text\n\n"
    "exit status: 0 the spec is valid, 1 problems were found (or the file\n"
    "cannot be read), 2 bad usage.\n";

/* What one validation found. */
typedef struct outcome {
    kt_spec_report rep;
    json_object *warnings; /* --json: the warnings; NULL: printed as they come */
    char *count;           /* the exact count; NULL: none */
    char *count_problem;   /* why the space was not counted, when it is valid */
} outcome;

static void keep_warning(void *user, const char *msg)
{
    outcome *o = user;
    if (!o->warnings) {
        cli_warn(NULL, msg);
        return;
    }
    json_object *s = json_object_new_string(msg);
    if (s)
        json_object_array_add(o->warnings, s);
}

/* Count the space of a spec whose space part is valid. */
static void count_space(const kt_spec *spec, outcome *o)
{
    kt_diag d = {{0}};
    kt_problem prob = {0};
    kt_space *space = NULL;
    int rc = kt_problem_parse(spec, NULL, &prob, &d);
    if (rc == KT_OK)
        rc = kt_space_new(spec, &prob, &space, &d);
    if (rc == KT_OK)
        rc = kt_space_count_text(space, &o->count, NULL);
    if (rc == KT_ERANGE)
        o->count_problem = kt_asprintf("the space was not counted: %s (`ktune space "
                                       "--max-evals 0` counts it without a bound)",
                                       kt_space_errmsg(space));
    else if (rc != KT_OK)
        o->count_problem = kt_asprintf("the space was not counted: %s",
                                       space ? kt_space_errmsg(space) : d.msg);
    kt_space_free(space);
    kt_problem_clear(&prob);
}

static int print_text(const char *path, const outcome *o)
{
    for (size_t i = 0; i < o->rep.nerrors; i++)
        printf("%s\n", o->rep.errors[i]);
    if (o->count_problem)
        printf("%s: %s\n", path, o->count_problem);
    size_t n = o->rep.nerrors;
    if (n == 0 && o->count)
        printf("%s: valid; %s configurations\n", path, o->count);
    else if (o->count)
        printf("%s: %zu problem%s; the space is valid and has %s configurations\n", path,
               n, n == 1 ? "" : "s", o->count);
    else
        printf("%s: %zu problem%s; the space cannot be counted\n", path, n,
               n == 1 ? "" : "s");
    return n == 0 && !o->count_problem ? CLI_OK : CLI_FAIL;
}

static int print_json(const char *path, outcome *o)
{
    json_object *root = json_object_new_object(), *errors = json_object_new_array();
    if (!root || !errors) {
        json_object_put(root);
        json_object_put(errors);
        return cli_error("out of memory");
    }
    for (size_t i = 0; i < o->rep.nerrors; i++)
        json_object_array_add(errors, json_object_new_string(o->rep.errors[i]));
    if (o->count_problem)
        json_object_array_add(errors, json_object_new_string(o->count_problem));
    bool valid = json_object_array_length(errors) == 0;
    json_object_object_add(root, "file", json_object_new_string(path));
    json_object_object_add(root, "valid", json_object_new_boolean(valid));
    json_object_object_add(root, "errors", errors);
    json_object_object_add(root, "warnings", o->warnings);
    o->warnings = NULL;
    json_object_object_add(root, "count", o->count ? json_object_new_string(o->count)
                                                   : NULL);
    cli_json_print(root);
    return valid ? CLI_OK : CLI_FAIL;
}

static int parse_args(int argc, char **argv, const char **path, bool *json)
{
    static const struct option LONG[] = {
        {"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    *json = false;
    optind = 1;
    while ((c = cli_getopt("validate", argc, argv, LONG)) != -1) {
        switch (c) {
        case 'j': *json = true; break;
        case 'h': fputs(USAGE, stdout); return -1;
        default: return CLI_USAGE;
        }
    }
    if (optind + 1 != argc)
        return cli_usage_error("validate", "expected one SPEC file");
    *path = argv[optind];
    return CLI_OK;
}

int cli_validate(int argc, char **argv)
{
    const char *path = NULL;
    bool json;
    int rc = parse_args(argc, argv, &path, &json);
    if (rc != CLI_OK)
        return rc < 0 ? CLI_OK : rc;
    outcome o = {.warnings = json ? json_object_new_array() : NULL};
    if (json && !o.warnings)
        return cli_error("out of memory");
    kt_spec_opts opts = {.flags = KT_SPEC_SCHEMA, .warn = keep_warning, .warn_user = &o,
                         .report = &o.rep};
    kt_spec *spec = NULL;
    kt_diag d = {{0}};
    rc = kt_spec_load_with(path, &opts, &spec, &d);
    if (rc == KT_ENOMEM) {
        rc = cli_error("%s", d.msg);
    } else {
        if (spec)
            count_space(spec, &o);
        rc = json ? print_json(path, &o) : print_text(path, &o);
    }
    kt_spec_free(spec);
    kt_spec_report_clear(&o.rep);
    json_object_put(o.warnings);
    free(o.count);
    free(o.count_problem);
    return rc;
}
