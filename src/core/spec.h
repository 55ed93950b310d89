/* spec.h - a tuning problem read from a T1 JSON spec, plus ktune's extensions.
 *
 * T1 is the JSON format that Kernel Tuner, KTT and BAT share
 * (kernel_tuner/schema/T1/1.0.0/input-schema.json).  ktune reads the parts
 * it can act on and adds these clearly named extensions (docs/SPEC.md):
 *   KernelSpecification.Language "C"          CPU kernels built by the
 *                                               system compiler;
 *   KernelSpecification.Language "None"       a space without a kernel;
 *   ConfigurationSpace.ProblemParameters       [{"Name","Default"}]: named
 *                                               problem sizes, also visible
 *                                               as ProblemSize[i];
 *   TuningParameters[i].Default                the default configuration;
 *   KernelSpecification.FlopCount              expression for GFLOP/s;
 *   KernelSpecification.ReferenceKernel        {"KernelName","KernelFile"}
 *                                               (GPU: also "GlobalSize",
 *                                               "LocalSize"): the trusted
 *                                               implementation outputs are
 *                                               checked against;
 *   KernelSpecification.SharedMemory           may be an expression (bytes);
 *   Arguments[i].Size / .FillValue             may be expressions over
 *                                               problem names;
 *   ConfigurationSpace.BehaviourDimensions     [{"Name","Expression" or
 *                                               "Measured","Bins"}]: what
 *                                               MAP-Elites spreads its
 *                                               archive over.
 * Unknown keys are reported as warnings; missing required keys and wrong
 * types are errors naming the key path.
 */
#ifndef KT_SPEC_H
#define KT_SPEC_H

#include "core/expr.h"
#include "core/base.h"

/* KT_LANG_NONE: a space-only spec (extension "Language": "None"): tuning
 * parameters, conditions and problem parameters for data measured
 * elsewhere (an imported MIOpen database); there is no kernel to run. */
typedef enum kt_language {
    KT_LANG_C, KT_LANG_CUDA, KT_LANG_OPENCL, KT_LANG_NONE
} kt_language;

/* Element types of kernel arguments. */
typedef enum kt_dtype {
    KT_DT_INT8, KT_DT_UINT8, KT_DT_INT16, KT_DT_UINT16, KT_DT_INT32,
    KT_DT_UINT32, KT_DT_INT64, KT_DT_UINT64, KT_DT_FLOAT, KT_DT_DOUBLE,
    KT_DT_HALF, KT_DT_BF16,  /* 16-bit floats: IEEE binary16, bfloat16 */
    KT_DT_E4M3               /* 8-bit float: OCP FP8 E4M3 (no infinity) */
} kt_dtype;

/* Bytes of one element of type t. */
size_t kt_dtype_size(kt_dtype t);

typedef enum kt_access { KT_READ, KT_WRITE, KT_READ_WRITE } kt_access;
/* Where data comes from (T1's FillType).  KT_FILL_REFERENCE is for
 * expected outputs only: the reference run computes them. */
typedef enum kt_fill {
    KT_FILL_RANDOM, KT_FILL_CONSTANT, KT_FILL_GENERATOR,
    KT_FILL_RAW,        /* BinaryRaw: little-endian elements, as many as Size */
    KT_FILL_HDF5,       /* BinaryHDF: one dataset of an HDF5 file */
    KT_FILL_REFERENCE
} kt_fill;
typedef enum kt_check {
    KT_CHECK_NONE,              /* output not verified */
    KT_CHECK_ABSOLUTE,          /* max |x - ref| <= threshold */
    KT_CHECK_RELATIVE           /* |x - ref| <= threshold * max(|ref|, rms(ref)) */
} kt_check;

/* An input's initial contents, or an output's expected values. */
typedef struct kt_data {
    kt_fill fill;
    kt_expr *value;     /* Constant: the value, over problem names */
    kt_expr *generator; /* Generator: element i's value (DataSource), over
                           the spec's names and "i" (slot nnames) */
    uint64_t seed;      /* Random: RandomSeed; 0 derives it from the run's */
    char *file;         /* BinaryRaw, BinaryHDF: DataSource resolved against
                           the spec's folder; it may be missing until run */
    char *dataset;      /* BinaryHDF: the dataset read when the file holds
                           several (the argument's name) */
    char *key;          /* its key path ("KernelSpecification.Arguments[1]"),
                           for messages */
} kt_data;

/* A tensor map (extension "MemoryType": "TensorMap", CUDA only): a
 * CUtensorMap that the worker encodes over another argument's buffer and
 * passes by value, for the kernel's bulk tensor copies (TMA).  Dimensions
 * and box are innermost first, as cuTensorMapEncodeTiled takes them; the
 * tensor is packed (each stride the product of the inner dimensions). */
#define KT_TMAP_MAX_RANK 5
#define KT_TMAP_BYTES 128 /* sizeof (CUtensorMap) */
typedef enum kt_swizzle {
    KT_SWIZZLE_NONE, KT_SWIZZLE_32B, KT_SWIZZLE_64B, KT_SWIZZLE_128B
} kt_swizzle;            /* CUtensorMapSwizzle's values */
typedef struct kt_tmap {
    size_t source;       /* index of the vector argument it describes */
    size_t rank;         /* 1 .. KT_TMAP_MAX_RANK */
    kt_expr *dims[KT_TMAP_MAX_RANK]; /* elements, over problem names */
    kt_expr *box[KT_TMAP_MAX_RANK];  /* elements, over all names */
    kt_swizzle swizzle;
} kt_tmap;

typedef struct kt_arg {
    char *name;
    kt_dtype type;
    bool scalar;        /* MemoryType Scalar: passed by value */
    bool symbol;        /* copied to the module's __constant__ global of its
                           name before each run (T1 MemoryType "Symbol", or
                           Kernel Tuner's "MemType": "Constant") */
    bool symbol_only;   /* MemoryType "Symbol": not a kernel parameter
                           (Kernel Tuner passes a "MemType" one as well) */
    kt_access access;
    kt_expr *size;      /* vectors: element count, over problem names */
    kt_expr *value;     /* scalars: the value */
    kt_data data;       /* vectors: the initial contents */
    kt_data expect;     /* outputs: the expected values (ReferenceArguments);
                           KT_FILL_REFERENCE unless a file or expression gives them */
    kt_check check;     /* from ReferenceArguments; outputs default to relative */
    double threshold;
    kt_tmap *tmap;      /* MemoryType "TensorMap" (then scalar: passed by
                           value, 128 bytes); NULL otherwise */
} kt_arg;

typedef struct kt_param_spec {
    char *name;
    size_t nvalues;
    double *values;     /* numeric value of each choice */
    char **texts;       /* the choice as written, used for -D and keys */
    size_t default_index;
} kt_param_spec;

typedef struct kt_problem_spec {
    char *name;
    double default_value;
} kt_problem_spec;

/* An entry of BAT's top-level BenchmarkConfig: a constant of the benchmark
 * that the kernel is compiled with (-DNAME=text) and that the spec's
 * expressions read as NAME, as BAT's CUDA runner does. */
typedef struct kt_const_spec {
    char *name;
    char *text;         /* the value as written: a number or an identifier */
    double value;       /* in expressions; an identifier's string code */
} kt_const_spec;

typedef enum kt_budget_kind {
    KT_BUDGET_NONE, KT_BUDGET_COUNT, KT_BUDGET_SECONDS, KT_BUDGET_FRACTION
} kt_budget_kind;

/* What a measured behaviour dimension reads of a correct result
 * (kt_result): its energy per call (J), its average power (W) or its time
 * per call (ms). */
typedef enum kt_measured {
    KT_MEASURED_NONE,   /* not measured: an Expression */
    KT_MEASURED_ENERGY,
    KT_MEASURED_POWER,
    KT_MEASURED_TIME
} kt_measured;

/* "energy", "power", "time" (a spec's "Measured" values); NULL for
 * KT_MEASURED_NONE or out of range. */
const char *kt_measured_name(kt_measured m);

/* A behaviour dimension (extension ConfigurationSpace.BehaviourDimensions):
 * a property of a configuration, such as threads per block or shared
 * memory bytes, or of its measurement, such as its energy, that the
 * MAP-Elites search keeps one best configuration per range of
 * (search/archive.h). */
typedef struct kt_behaviour_dim {
    char *name;
    kt_expr *expr;      /* over kt_spec names; reads a tuning parameter;
                           NULL when measured */
    size_t bins;        /* at most this many bins (1..KT_BEHAVIOUR_MAX_BINS) */
    kt_measured measured; /* KT_MEASURED_NONE: expr gives the value */
} kt_behaviour_dim;

#define KT_BEHAVIOUR_MAX_DIMS 8
#define KT_BEHAVIOUR_MAX_BINS 64
#define KT_BEHAVIOUR_DEFAULT_BINS 4

typedef struct kt_budget {
    kt_budget_kind kind;
    double value;
} kt_budget;

/* The public ktune_spec (include/ktune.h) is this struct. */
typedef struct ktune_spec kt_spec;
struct ktune_spec {
    char *path;             /* as given */
    char *dir;              /* directory holding the spec; files are relative to it */
    char *name;             /* General.BenchmarkName, else KernelName */
    kt_language language;
    char *kernel_name;
    char *kernel_file;      /* resolved path */
    char *kernel_source;    /* file contents */
    char *kernel_includes;  /* its local headers' names and text (core/includes.h);
                               NULL when none */
    char *ref_name;         /* NULL when the default configuration is the reference */
    char *ref_file;
    char *ref_source;
    char *ref_includes;
    char **compiler_options;
    size_t ncompiler_options;
    kt_expr *global[3];     /* GPU grid; NULL where absent */
    kt_expr *local[3];      /* GPU block */
    bool grid_in_threads;   /* GlobalSizeType "OpenCL": global counts threads */
    kt_expr *shared;        /* SharedMemory: dynamic shared bytes; NULL: 0 */
    kt_expr *ref_global[3]; /* ReferenceKernel's own GlobalSize/LocalSize, */
    kt_expr *ref_local[3];  /* NULL: the kernel's */
    kt_expr *flops;         /* NULL when absent */
    kt_arg *args;
    size_t nargs;
    kt_param_spec *params;
    size_t nparams;
    kt_problem_spec *problem;
    size_t nproblem;
    kt_const_spec *consts;  /* BenchmarkConfig's compile-time constants */
    size_t nconsts;
    bool bat_launch;        /* a BenchmarkConfig is present: BAT's launch
                               defines too (backend/defines.h) */
    kt_expr **conds;        /* compiled over kt_spec_names */
    size_t nconds;
    kt_behaviour_dim *dims; /* BehaviourDimensions; NULL when none */
    size_t ndims;
    kt_budget budget;
    const char *strategy;   /* Search.Name as a ktune strategy (static); NULL: none */
    char **names;           /* expression names: params, problem, ProblemSize[i] */
    size_t nnames;
    kt_expr_list *lists;    /* per name: a parameter's values (nnames entries) */
    char **strings;         /* the string values of string parameters; value */
    size_t nstrings;        /* code of strings[i]: KT_EXPR_STRING(i) */
    kt_expr_env env;        /* lists, strings and consts, for compiling expressions */
    const char **const_names; /* consts' names and values for env */
    double *const_values;
    char *source_hash;      /* hex digest of kernel + reference + options */
};

/* A function that receives each warning (one line, no newline). */
typedef void (*kt_warn_fn)(void *user, const char *msg);

/* Load and validate the spec at path.  Errors come back as KT_ESPEC (or
 * KT_EIO / KT_ESYNTAX) with "path:line:col: ..." or "path: Key.Path: ..."
 * in diag.  warn may be NULL. */
int kt_spec_load(const char *path, kt_warn_fn warn, void *warn_user,
                 kt_spec **out, kt_diag *diag);

/* Flags of kt_spec_load_with. */
#define KT_SPEC_SPACE_ONLY 0x1u /* a spec without KernelSpecification is a
                                   space only, as with "Language": "None"
                                   (BAT writes such files); `space` reads
                                   them, `tune` does not */
#define KT_SPEC_SCHEMA 0x2u     /* also check the official T1 schema's types,
                                   enums and required keys where ktune does
                                   not otherwise read them (core/t1schema.h):
                                   breaking one is an error; a form ktune
                                   reads on purpose (a Budget object, Values
                                   as an array, an expression for a number)
                                   is a warning */

/* Every error of a spec, one line each ("path: Key.Path: what" or
 * "path:line:col: what"), in file order.  Owned; kt_spec_report_clear. */
typedef struct kt_spec_report {
    char **errors;
    size_t nerrors;
    bool space_ok;  /* the space (parameters, problem, conditions) is valid */
} kt_spec_report;

typedef struct kt_spec_opts {
    unsigned flags;          /* KT_SPEC_* */
    kt_warn_fn warn;         /* each warning; NULL: none */
    void *warn_user;
    kt_spec_report *report;  /* NULL: stop at the first error, as kt_spec_load
                                does; else record every error here and go on
                                with the next element (parameter, condition,
                                argument, section) */
} kt_spec_opts;

/* kt_spec_load with options.  With a report, the result is KT_ESPEC when it
 * holds an error (KT_ENOMEM, or an unreadable or malformed file, still
 * stop), and *out is the spec whenever report->space_ok, so its space can
 * be counted even when other parts are wrong; such a spec must not be run. */
int kt_spec_load_with(const char *path, const kt_spec_opts *opts, kt_spec **out,
                      kt_diag *diag);
void kt_spec_report_clear(kt_spec_report *r);
void kt_spec_free(kt_spec *spec);

/* The first behaviour dimension that reads a result's energy or power: a
 * map along it needs energy readings.  NULL when none does (or spec is
 * NULL). */
const kt_behaviour_dim *kt_spec_energy_dim(const kt_spec *spec);

/* Problem values: one per problem parameter, in spec order (the public
 * ktune_problem). */
typedef struct ktune_problem kt_problem;
struct ktune_problem {
    size_t n;
    double *values;
    char *key;              /* canonical "M=256,N=256,K=256" */
};

/* The defaults, overridden by "K=V,K=V" (NULL or "" for none). */
int kt_problem_parse(const kt_spec *spec, const char *overrides,
                     kt_problem *out, kt_diag *diag);
void kt_problem_clear(kt_problem *p);

/* Fill slots (length spec->nnames) with a configuration's values (cfg holds
 * a value index per parameter; NULL leaves the parameter slots alone) and
 * the problem's values. */
void kt_spec_slots(const kt_spec *spec, const uint16_t *cfg,
                   const kt_problem *prob, double *slots);

/* Canonical "NAME=text,..." key of a configuration; caller frees. */
char *kt_spec_config_key(const kt_spec *spec, const uint16_t *cfg);

/* Parse a configuration key back into value indices. */
int kt_spec_config_parse(const kt_spec *spec, const char *key, uint16_t *cfg,
                         kt_diag *diag);

#endif /* KT_SPEC_H */
