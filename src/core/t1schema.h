/* t1schema.h - the official T1 schema's rules that the spec loader does not
 * enforce by reading a key.
 *
 * kernel_tuner/schema/T1/1.0.0/input-schema.json (a copy is in
 * tests/data/t1/) gives types, enums and required keys.  The loader checks
 * those of the keys ktune acts on as it reads them; this table holds the
 * rest: keys ktune ignores (General.LoggingLevel, Device, Profiling,
 * Search.Attributes, Conditions[].Parameters, ...), whose mistakes would
 * otherwise pass silently, and the keys where ktune reads more than T1
 * allows (a Budget object, Values as a JSON array, expressions where T1 has
 * a number, Language "C"), reported as warnings so a file meant for other
 * T1 tools can be kept portable.  `ktune validate` runs it
 * (KT_SPEC_SCHEMA).
 */
#ifndef KT_T1SCHEMA_H
#define KT_T1SCHEMA_H

#include <json-c/json.h>
#include <stdbool.h>

/* One broken rule: error (the file is not valid T1) or a warning (not valid
 * T1, but a form ktune reads on purpose); keypath as "A.B[2].C". */
typedef void (*kt_t1_problem_fn)(void *user, bool error, const char *keypath,
                                 const char *msg);

/* Call fn for each rule of the table that root breaks, in table order. */
void kt_t1_schema_check(json_object *root, kt_t1_problem_fn fn, void *user);

#endif /* KT_T1SCHEMA_H */
