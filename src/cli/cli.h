/* cli.h - what the command-line front end's files share.  Only the CLI
 * prints and chooses exit codes: 0 success, 1 failure, 2 bad usage. */
#ifndef KT_CLI_H
#define KT_CLI_H

#include "ktune.h"

#include <json-c/json.h>

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

int cli_tune(int argc, char **argv);
int cli_space(int argc, char **argv);
int cli_db(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_train(int argc, char **argv);
int cli_evaluate(int argc, char **argv);
int cli_predict(int argc, char **argv);

/* "ktune: error: <msg>" on stderr; returns CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a usage error with a hint to --help; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Warnings from the library, printed as they come. */
void cli_warn(void *user, const char *msg);

/* A configuration key "A=1,B=x" as a JSON object, numbers as numbers. */
json_object *cli_config_json(const char *key);

/* The MAP-Elites map of a run (search/archive.h's kt_map); flops per call
 * (NAN: unknown) gives GFLOP/s. */
struct kt_map;
void cli_map_print(const struct kt_map *m, double flops);
json_object *cli_map_json(const struct kt_map *m, double flops);

/* Parse a whole unsigned number or fail with a usage error. */
int cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t *out);
int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out);

#endif /* KT_CLI_H */
