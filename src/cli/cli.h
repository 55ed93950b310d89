/* cli.h - what the command-line front end's files share.  Only the CLI
 * prints and chooses exit codes, the same for every command (README, "Exit
 * status"): 0 success; 1 the operation failed (an error, or a tuning run in
 * which no configuration ran correctly); 2 bad usage (an unknown command,
 * option or name, a value out of range); 128 + N a run stopped by signal N
 * after printing what it had done (130 SIGINT, 143 SIGTERM). */
#ifndef KT_CLI_H
#define KT_CLI_H

#include <ktune.h>

#include <getopt.h>
#include <json-c/json.h>

enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

/* The last paragraph of the --help texts of commands other than tune. */
#define CLI_EXIT_STATUS "exit status: 0 success, 1 failure, 2 bad usage.\n"

int cli_tune(int argc, char **argv);
int cli_space(int argc, char **argv);
int cli_validate(int argc, char **argv);
int cli_db(int argc, char **argv);
int cli_import(int argc, char **argv);
int cli_train(int argc, char **argv);
int cli_evaluate(int argc, char **argv);
int cli_predict(int argc, char **argv);
int cli_benchmark(int argc, char **argv);
int cli_analyze(int argc, char **argv);
int cli_report(int argc, char **argv);
int cli_devices(int argc, char **argv);

/* Transfer across devices (transfer.c): the recordings that option opt of
 * command cmd lists (comma-separated) learnt into *out, errors reported;
 * and `ktune benchmark --transfer LIST`'s table (or --json). */
int cli_transfer_open(const char *cmd, const char *opt, const char *text,
                      const char *cache_dir, ktune_transfer **out);
int cli_transfer_bench(const char *list, const double *budgets, size_t nbudgets,
                       unsigned seeds, size_t top, bool json);

/* "ktune: error: <msg>" on stderr; returns CLI_FAIL. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Report a usage error with a hint to --help; returns CLI_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Warnings from the library, printed as they come. */
void cli_warn(void *user, const char *msg);

/* The space of an MIOpen solver: spec if given, else KERNEL.json in the
 * installed (or the repository's) kernels/miopen (ktune_data_path); the
 * caller frees it.  NULL when out of memory. */
char *cli_miopen_spec(const char *spec, const char *kernel);

/* --problem TEXT of command cmd into *out (ktune_problem_free frees it),
 * by ktune_problem_parse: NULL gives the spec's defaults, else TEXT must set
 * every problem parameter once.  A bad or partial TEXT is a usage error
 * naming what is wrong, with the defaults as the hint. */
int cli_problem_parse(const char *cmd, const ktune_spec *spec, const char *text,
                      ktune_problem **out);

/* n names as "a, b, c" (the caller frees); NULL when out of memory. */
char *cli_join(const char *const *names, size_t n);

/* A configuration key "A=1,B=x" as a JSON object, numbers as numbers. */
json_object *cli_config_json(const char *key);

/* A number for --json: null where v is not finite (JSON has no NaN). */
json_object *cli_json_double(double v);

/* What --json prints: doc as one document on stdout, indented, then
 * released (doc may be NULL: out of memory, "null" is printed). */
void cli_json_print(json_object *doc);
/* The text cli_json_print prints, owned by o: for a list streamed an
 * element at a time. */
const char *cli_json_text(json_object *o);
/* An element of a JSON array printed as it comes (a database or a space may
 * hold millions: the array is never held whole), after the '[' the caller
 * printed, then released; printed counts the elements so far. */
void cli_json_element(uint64_t *printed, json_object *o);

/* The MAP-Elites map of a run (ktune_run_map); flops per call (NAN:
 * unknown) gives GFLOP/s. */
void cli_map_print(const ktune_map *m, double flops);
json_object *cli_map_json(const ktune_map *m, double flops);

/* getopt_long for command cmd (short option: -h only): an unknown option or
 * a missing value is reported as a usage error and gives '?', so the caller
 * returns CLI_USAGE. */
int cli_getopt(const char *cmd, int argc, char **argv, const struct option *longopts);

/* Option values; each reports a usage error naming opt and returns
 * CLI_USAGE when text is not what it wants.  u64: a whole number; range:
 * one from lo to hi; double: a positive finite number; fraction: at least
 * 0 and below 1. */
int cli_parse_u64(const char *cmd, const char *opt, const char *text, uint64_t *out);
int cli_parse_range(const char *cmd, const char *opt, const char *text, uint64_t lo,
                    uint64_t hi, uint64_t *out);
int cli_parse_double(const char *cmd, const char *opt, const char *text, double *out);
int cli_parse_fraction(const char *cmd, const char *opt, const char *text, double *out);

#endif /* KT_CLI_H */
