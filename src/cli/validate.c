/* validate.c - `ktune validate`: check a spec completely and report every
 * problem, then count its space.
 *
 * The library does the checking (ktune_spec_validate); this file only
 * prints: one line per problem, then the space's size when the space part
 * is valid. */
#include "cli.h"

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

/* --json: the warnings as they come; NULL: printed. */
static void keep_warning(void *user, const char *msg)
{
    json_object *warnings = user;
    if (!warnings) {
        cli_warn(NULL, msg);
        return;
    }
    json_object *s = json_object_new_string(msg);
    if (s)
        json_object_array_add(warnings, s);
}

static int print_text(const char *path, const ktune_validation *v)
{
    size_t n = ktune_validation_count(v);
    const char *count = ktune_validation_space(v);
    const char *count_problem = ktune_validation_space_problem(v);
    for (size_t i = 0; i < n; i++)
        printf("%s\n", ktune_validation_problem(v, i));
    if (count_problem)
        printf("%s: %s\n", path, count_problem);
    if (n == 0 && count)
        printf("%s: valid; %s configurations\n", path, count);
    else if (count)
        printf("%s: %zu problem%s; the space is valid and has %s configurations\n", path,
               n, n == 1 ? "" : "s", count);
    else
        printf("%s: %zu problem%s; the space cannot be counted\n", path, n,
               n == 1 ? "" : "s");
    return n == 0 && !count_problem ? CLI_OK : CLI_FAIL;
}

/* Prints and releases warnings. */
static int print_json(const char *path, const ktune_validation *v, json_object *warnings)
{
    json_object *root = json_object_new_object(), *errors = json_object_new_array();
    if (!root || !errors) {
        json_object_put(root);
        json_object_put(errors);
        json_object_put(warnings);
        return cli_error("out of memory");
    }
    const char *count = ktune_validation_space(v);
    const char *count_problem = ktune_validation_space_problem(v);
    for (size_t i = 0; i < ktune_validation_count(v); i++)
        json_object_array_add(errors,
                              json_object_new_string(ktune_validation_problem(v, i)));
    if (count_problem)
        json_object_array_add(errors, json_object_new_string(count_problem));
    bool valid = json_object_array_length(errors) == 0;
    json_object_object_add(root, "file", json_object_new_string(path));
    json_object_object_add(root, "valid", json_object_new_boolean(valid));
    json_object_object_add(root, "errors", errors);
    json_object_object_add(root, "warnings", warnings);
    json_object_object_add(root, "count", count ? json_object_new_string(count) : NULL);
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
    json_object *warnings = json ? json_object_new_array() : NULL;
    if (json && !warnings)
        return cli_error("out of memory");
    ktune_validation *v = NULL;
    ktune_diag d = {{0}};
    if (ktune_spec_validate(path, keep_warning, warnings, &v, &d) != KTUNE_OK) {
        json_object_put(warnings);
        return cli_error("%s", d.msg);
    }
    rc = json ? print_json(path, v, warnings) : print_text(path, v);
    ktune_validation_free(v);
    return rc;
}
