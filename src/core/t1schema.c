/* t1schema.c - check a T1 document against the schema rules that the spec
 * loader does not enforce itself (see t1schema.h for which and why).
 *
 * The rules are a table of key paths ("KernelSpecification.Arguments[].TypeSize",
 * where [] is every item of an array) with the JSON types and the enum the
 * schema allows and whether the key is required.  The walk resolves each
 * path against the document and reports each mismatch with the concrete
 * key path ("KernelSpecification.Arguments[2].TypeSize").
 */
#include "core/t1schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* JSON types a rule allows (JSON Schema's names). */
enum {
    T_STRING = 1, T_INTEGER = 2, T_NUMBER = 4, T_BOOLEAN = 8, T_OBJECT = 16,
    T_ARRAY = 32,
};

typedef struct rule {
    const char *path;   /* dotted key path; [] stands for every array item */
    unsigned types;     /* T_* allowed; 0: any */
    const char *enums;  /* "|A|B|" the allowed strings, or NULL */
    bool required;      /* must be present where its parent object is */
    bool tolerated;     /* ktune reads another form on purpose: a warning */
} rule;

#define ANY_VALUE (T_STRING | T_NUMBER | T_BOOLEAN | T_OBJECT | T_ARRAY)

static const rule RULES[] = {
    {"General.FormatVersion", T_INTEGER, NULL, false, false},
    {"General.LoggingLevel", T_STRING, "|Off|Error|Warning|Info|Debug|", false, false},
    {"General.TimeUnit", T_STRING, "|Nanoseconds|Microseconds|Milliseconds|Seconds|",
     false, false},
    {"General.OutputFile", T_STRING, NULL, false, false},
    {"General.OutputFormat", T_STRING, "|JSON|XML|", false, false},
    {"ConfigurationSpace.TuningParameters[].Type", T_STRING,
     "|int|uint|float|bool|string|", true, false},
    {"ConfigurationSpace.TuningParameters[].Values", T_STRING, NULL, false, true},
    {"ConfigurationSpace.Conditions[].Parameters", T_ARRAY, NULL, true, false},
    {"ConfigurationSpace.Conditions[].Parameters[]", T_STRING, NULL, false, false},
    {"Search.Attributes", T_ARRAY, NULL, false, false},
    {"Search.Attributes[]", T_OBJECT, NULL, false, false},
    {"Search.Attributes[].Name", T_STRING, NULL, true, false},
    {"Search.Attributes[].Value", ANY_VALUE, NULL, true, false},
    {"Budget", T_ARRAY, NULL, false, true},
    {"KernelSpecification.Language", T_STRING, "|OpenCL|CUDA|Vulkan|Hypertuner|", false,
     true},
    {"KernelSpecification.Device", T_OBJECT, NULL, false, false},
    {"KernelSpecification.Device.PlatformId", T_INTEGER, NULL, false, false},
    {"KernelSpecification.Device.DeviceId", T_INTEGER, NULL, false, false},
    {"KernelSpecification.Device.Name", T_STRING, NULL, false, false},
    {"KernelSpecification.Profiling", T_BOOLEAN, NULL, false, false},
    {"KernelSpecification.SimulationInput", T_STRING, NULL, false, false},
    {"KernelSpecification.SharedMemory", T_INTEGER, NULL, false, true},
    {"KernelSpecification.GlobalSize.X", T_STRING, NULL, false, true},
    {"KernelSpecification.GlobalSize.Y", T_STRING, NULL, false, true},
    {"KernelSpecification.GlobalSize.Z", T_STRING, NULL, false, true},
    {"KernelSpecification.LocalSize.X", T_STRING, NULL, false, true},
    {"KernelSpecification.LocalSize.Y", T_STRING, NULL, false, true},
    {"KernelSpecification.LocalSize.Z", T_STRING, NULL, false, true},
    {"KernelSpecification.Arguments[].Type", T_STRING,
     "|bool|int8|uint8|int16|uint16|int32|uint32|int64|uint64|half|half2|half4|half8|"
     "half16|float|float2|float4|float8|float16|double|double2|double4|double8|"
     "double16|custom|", false, true},
    {"KernelSpecification.Arguments[].Size", T_INTEGER | T_STRING, NULL, false, true},
    {"KernelSpecification.Arguments[].TypeSize", T_INTEGER, NULL, false, false},
    {"KernelSpecification.Arguments[].FillValue", T_NUMBER, NULL, false, true},
    {"KernelSpecification.Arguments[].DataSource", T_STRING, NULL, false, false},
    {"KernelSpecification.Arguments[].RandomSeed", T_INTEGER, NULL, false, false},
    {"KernelSpecification.ReferenceArguments[].Name", T_STRING, NULL, true, false},
    {"KernelSpecification.ReferenceArguments[].FillType", T_STRING,
     "|Constant|Random|Generator|Script|BinaryRaw|BinaryHDF|", true, false},
    {"KernelSpecification.ReferenceArguments[].FillValue", T_NUMBER, NULL, false, false},
    {"KernelSpecification.ReferenceArguments[].DataSource", T_STRING, NULL, false, false},
    {"KernelSpecification.ReferenceArguments[].RandomSeed", T_INTEGER, NULL, false,
     false},
};

/* The check of one rule. */
typedef struct walk {
    const rule *r;
    kt_t1_problem_fn fn;
    void *user;
} walk;

static unsigned type_of(json_object *v)
{
    switch (json_object_get_type(v)) {
    case json_type_string: return T_STRING;
    case json_type_int: return T_INTEGER | T_NUMBER;
    case json_type_double: { /* JSON Schema: 2.0 is an integer */
        double d = json_object_get_double(v);
        return d == floor(d) ? T_INTEGER | T_NUMBER : T_NUMBER;
    }
    case json_type_boolean: return T_BOOLEAN;
    case json_type_object: return T_OBJECT;
    case json_type_array: return T_ARRAY;
    default: return 0; /* null */
    }
}

static const char *const TYPE_NAMES[] = {"a string", "an integer", "a number",
                                         "a boolean", "an object", "an array"};

/* "a string or an integer": the types of t, into buf. */
static void types_text(unsigned t, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    if (t & T_INTEGER && t & T_NUMBER)
        t &= ~(unsigned)T_INTEGER; /* a number includes the integers */
    for (unsigned b = 0; b < 6 && used < len; b++)
        if (t & (1u << b))
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " or " : "",
                                     TYPE_NAMES[b]);
    if (!used)
        snprintf(buf, len, "null");
}

static void report(const walk *w, const char *keypath, const char *what)
{
    char msg[640];
    snprintf(msg, sizeof msg, "%s (T1 schema%s)", what,
             w->r->tolerated ? "; ktune reads it, other T1 tools may not" : "");
    w->fn(w->user, !w->r->tolerated, keypath, msg);
}

/* The value at a rule's full path. */
static void check_value(const walk *w, json_object *v, const char *keypath)
{
    char what[512];
    unsigned t = type_of(v);
    if (w->r->types && !(t & w->r->types)) {
        char want[100], found[100];
        types_text(w->r->types, want, sizeof want);
        types_text(t & T_INTEGER ? T_INTEGER : t, found, sizeof found);
        snprintf(what, sizeof what, "expected %s, found %s", want, found);
        report(w, keypath, what);
        return;
    }
    if (w->r->enums && t == T_STRING) {
        const char *s = json_object_get_string(v);
        char key[130];
        snprintf(key, sizeof key, "|%.120s|", s);
        if (!strstr(w->r->enums, key)) {
            char allowed[400];
            size_t used = 0;
            for (const char *c = w->r->enums + 1; c[1] && used + 3 < sizeof allowed; c++) {
                if (*c == '|')
                    allowed[used++] = ',', allowed[used++] = ' ';
                else
                    allowed[used++] = *c;
            }
            allowed[used] = '\0';
            snprintf(what, sizeof what, "\"%.60s\" is not one of: %.300s", s, allowed);
            report(w, keypath, what);
        }
    }
}

/* Resolve rest (the rule's path from node on); keypath is node's path. */
static void visit(const walk *w, json_object *node, const char *rest, char *keypath,
                  size_t len)
{
    size_t at = strlen(keypath);
    if (rest[0] == '[') { /* "[]": every item */
        if (!json_object_is_type(node, json_type_array))
            return;
        const char *next = rest + 2 + (rest[2] == '.');
        for (size_t i = 0; i < json_object_array_length(node); i++) {
            snprintf(keypath + at, len - at, "[%zu]", i);
            json_object *item = json_object_array_get_idx(node, i);
            if (*next)
                visit(w, item, next, keypath, len);
            else
                check_value(w, item, keypath);
        }
        keypath[at] = '\0';
        return;
    }
    size_t n = strcspn(rest, ".[");
    snprintf(keypath + at, len - at, "%s%.*s", at ? "." : "", (int)n, rest);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)n, rest);
    json_object *child = NULL;
    bool has = json_object_is_type(node, json_type_object) &&
               json_object_object_get_ex(node, key, &child);
    const char *next = rest + n + (rest[n] == '.');
    if (!json_object_is_type(node, json_type_object)) {
        /* the parent's own type is another rule's business */
    } else if (!has) {
        if (w->r->required && !*next)
            report(w, keypath, "missing required key");
    } else if (*next) {
        visit(w, child, next, keypath, len);
    } else {
        check_value(w, child, keypath);
    }
    keypath[at] = '\0';
}

void kt_t1_schema_check(json_object *root, kt_t1_problem_fn fn, void *user)
{
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++) {
        walk w = {&RULES[i], fn, user};
        char keypath[256] = "";
        visit(&w, root, RULES[i].path, keypath, sizeof keypath);
    }
}
