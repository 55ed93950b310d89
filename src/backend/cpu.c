/* cpu.c - the C backend: kernels built by the system compiler, run on the CPU.
 *
 * Each configuration becomes one shared object: a generated wrapper includes
 * the kernel file, defines every tuning parameter with -DNAME=value, and
 * adds `ktune_entry(void **args)`, which unpacks the arguments and calls the
 * kernel.  Objects are cached under the cache directory by a hash of all
 * that went into them, written under a temporary name and renamed, so a
 * crash never leaves a half-written object behind.  Compilations run as
 * parallel child processes (posix_spawn).
 *
 * Buffers are mmap'ed with an inaccessible page after them, so a kernel that
 * writes past its output crashes (and is classified as such) instead of
 * silently corrupting the worker; inputs are made read-only while it runs.
 */
#include "backend/backend.h"
#include "backend/defines.h"
#include "core/util.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define COMPILE_TIMEOUT_S 300.0

typedef struct cpu_ctx {
    const kt_spec *spec;
    char *cache_dir;
    char *compiler;
    char *kernel_path;    /* absolute path of the kernel file */
    char *ref_path;       /* absolute path of the reference file, or NULL */
    int jobs;
    size_t page;
} cpu_ctx;

/* --------------------------------------------------------- device info */

static void read_cpu_model(char *out, size_t n)
{
    snprintf(out, n, "unknown CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *colon = strchr(line, ':');
            if (colon) {
                colon += 1 + (colon[1] == ' ');
                colon[strcspn(colon, "\n")] = '\0';
                kt_strlcpy(out, n, colon);
            }
            break;
        }
    fclose(f);
}

/* The first line the compiler prints for --version. */
static void read_compiler_version(const char *cc, char *out, size_t n)
{
    snprintf(out, n, "%s (version unknown)", cc);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "%s --version 2>/dev/null", cc);
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    char line[256];
    if (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = '\0';
        kt_strlcpy(out, n, line);
    }
    pclose(p);
}

static int cpu_device(void *vctx, kt_device_info *out, kt_diag *diag)
{
    cpu_ctx *c = vctx;
    char model[160], cc[200];
    read_cpu_model(model, sizeof model);
    read_compiler_version(c->compiler, cc, sizeof cc);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    *out = (kt_device_info){0};
    if (snprintf(out->name, sizeof out->name, "%s (%ld cores)", model, cores) < 0)
        return kt_fail(diag, KT_EINVAL, "cannot describe the CPU");
    snprintf(out->backend, sizeof out->backend, "cpu");
    snprintf(out->fingerprint, sizeof out->fingerprint,
             "cpu|model=%s|cores=%ld|compiler=%s|flags=-O3 -march=native", model,
             cores, cc);
    return KT_OK;
}

/* -------------------------------------------------------- open / close */

static void cpu_close(void *vctx)
{
    cpu_ctx *c = vctx;
    if (!c)
        return;
    free(c->cache_dir);
    free(c->compiler);
    free(c->kernel_path);
    free(c->ref_path);
    free(c);
}

static char *absolute(const char *path)
{
    char buf[PATH_MAX];
    return realpath(path, buf) ? kt_strdup(buf) : NULL;
}

static int cpu_open(const kt_spec *spec, const kt_backend_opts *opts, void **out,
                    kt_diag *diag)
{
    int rc = kt_backend_refuse_cuda_args(spec, diag);
    if (rc != KT_OK)
        return rc;
    cpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    c->spec = spec;
    c->jobs = opts->jobs > 0 ? opts->jobs : 1;
    c->page = (size_t)sysconf(_SC_PAGESIZE);
    c->cache_dir = kt_strdup(opts->cache_dir);
    c->compiler = kt_strdup(opts->compiler ? opts->compiler : "cc");
    c->kernel_path = absolute(spec->kernel_file);
    c->ref_path = spec->ref_file ? absolute(spec->ref_file) : NULL;
    if (!c->cache_dir || !c->compiler)
        rc = kt_fail(diag, KT_ENOMEM, "out of memory");
    else if (!c->kernel_path || (spec->ref_file && !c->ref_path))
        rc = kt_fail(diag, KT_EIO, "cannot resolve the kernel file path: %s",
                     strerror(errno));
    else
        rc = kt_mkdir_p(c->cache_dir, diag);
    if (rc == KT_OK && !opts->worker)
        kt_cache_sweep(c->cache_dir);
    if (rc != KT_OK) {
        cpu_close(c);
        return rc;
    }
    *out = c;
    return KT_OK;
}

/* ------------------------------------------------------------ wrapper */

static const char *const C_TYPES[] = {
    [KT_DT_INT8] = "int8_t",   [KT_DT_UINT8] = "uint8_t",
    [KT_DT_INT16] = "int16_t", [KT_DT_UINT16] = "uint16_t",
    [KT_DT_INT32] = "int32_t", [KT_DT_UINT32] = "uint32_t",
    [KT_DT_INT64] = "int64_t", [KT_DT_UINT64] = "uint64_t",
    [KT_DT_FLOAT] = "float",   [KT_DT_DOUBLE] = "double",
    [KT_DT_HALF] = "uint16_t", [KT_DT_BF16] = "uint16_t", /* as their bits */
    [KT_DT_E4M3] = "uint8_t",
};

/* The wrapper source for the kernel (or the reference when ref). */
static char *wrapper_source(const cpu_ctx *c, bool ref)
{
    const kt_spec *s = c->spec;
    kt_buf b = {0};
    kt_buf_appendf(&b, "/* generated by ktune */\n#include <stdint.h>\n"
                       "#include \"%s\"\nvoid ktune_entry(void **args);\n"
                       "void ktune_entry(void **args)\n{\n    %s(",
                   ref ? c->ref_path : c->kernel_path,
                   ref ? s->ref_name : s->kernel_name);
    for (size_t i = 0; i < s->nargs; i++) {
        const kt_arg *a = &s->args[i];
        const char *t = C_TYPES[a->type];
        if (a->scalar)
            kt_buf_appendf(&b, "%s*(%s *)args[%zu]", i ? ", " : "", t, i);
        else
            kt_buf_appendf(&b, "%s(%s *)*(void **)args[%zu]", i ? ", " : "", t, i);
    }
    kt_buf_append(&b, ");\n}\n");
    return kt_buf_take(&b);
}

/* --------------------------------------------------------- compilation */

/* Everything one compilation needs: its command line and file names. */
typedef struct job {
    char **argv;
    size_t argc;
    char *src, *tmp, *out, *log;
    pid_t pid;
    double start;
} job;

static void job_clear(job *j)
{
    for (size_t i = 0; j->argv && i < j->argc; i++)
        free(j->argv[i]);
    free(j->argv);
    free(j->src);
    free(j->tmp);
    free(j->log);
    free(j->out);
    *j = (job){0};
}

static bool job_arg(job *j, char *arg)
{
    if (!arg)
        return false;
    j->argv[j->argc++] = arg;
    return true;
}

/* Build the command line; the hash covers every argument and the source. */
static int job_prepare(cpu_ctx *c, const uint16_t *cfg, job *j)
{
    const kt_spec *s = c->spec;
    char *wrapper = wrapper_source(c, cfg == NULL);
    if (!wrapper)
        return KT_ENOMEM;
    size_t ndef;
    char **def = kt_defines_new(s, cfg, false, &ndef);
    j->argv = def ? calloc(16 + s->ncompiler_options + ndef, sizeof(char *)) : NULL;
    static const char *const FLAGS[] = {"-std=gnu11", "-O3", "-march=native",
                                        "-fPIC", "-shared", "-fopenmp"};
    bool ok = j->argv && job_arg(j, kt_strdup(c->compiler));
    for (size_t i = 0; ok && i < KT_ARRAY_LEN(FLAGS); i++)
        ok = job_arg(j, kt_strdup(FLAGS[i]));
    for (size_t i = 0; ok && i < s->ncompiler_options; i++)
        ok = job_arg(j, kt_strdup(s->compiler_options[i]));
    for (size_t i = 0; ok && i < ndef; i++) {
        ok = job_arg(j, def[i]);
        def[i] = NULL; /* the job owns it now */
    }
    kt_defines_free(def, ndef);
    uint64_t h = kt_hash_str(KT_HASH_INIT, wrapper);
    h = kt_hash_str(h, cfg ? s->kernel_source : s->ref_source);
    for (size_t i = 0; ok && i < j->argc; i++)
        h = kt_hash_str(h, j->argv[i]);
    if (ok) {
        j->src = kt_asprintf("%s/%016llx.c", c->cache_dir, (unsigned long long)h);
        j->out = kt_asprintf("%s/%016llx.so", c->cache_dir, (unsigned long long)h);
        j->tmp = kt_asprintf("%s/%016llx.%ld.tmp", c->cache_dir,
                             (unsigned long long)h, (long)getpid());
        j->log = kt_asprintf("%s/%016llx.log", c->cache_dir, (unsigned long long)h);
        ok = j->src && j->out && j->tmp && j->log && job_arg(j, kt_strdup("-o")) &&
             job_arg(j, kt_strdup(j->tmp)) && job_arg(j, kt_strdup(j->src));
    }
    FILE *f = ok ? fopen(j->src, "w") : NULL;
    ok = f && fputs(wrapper, f) >= 0;
    if (f)
        ok = fclose(f) == 0 && ok;
    free(wrapper);
    return ok ? KT_OK : KT_EIO;
}

static int job_spawn(job *j)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, j->log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    j->argv[j->argc] = NULL;
    j->start = kt_now();
    int rc = posix_spawnp(&j->pid, j->argv[0], &fa, NULL, j->argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? KT_OK : KT_EIO;
}

/* The first line of the compiler's log that says "error", else its first. */
static void log_excerpt(const char *log, char *out, size_t n)
{
    char *text = NULL;
    snprintf(out, n, "compiler failed");
    if (kt_read_file(log, &text, NULL, NULL) != KT_OK)
        return;
    const char *line = strstr(text, "error");
    if (line)
        while (line > text && line[-1] != '\n')
            line--;
    else
        line = text;
    size_t len = strcspn(line, "\n");
    if (len)
        snprintf(out, n, "%.*s", (int)len, line);
    free(text);
}

static void job_finish(job *j, int status, kt_build *b)
{
    b->compile_ms = (kt_now() - j->start) * 1e3;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && rename(j->tmp, j->out) == 0) {
        b->status = KT_STATUS_OK;
        b->artifact = j->out;
        j->out = NULL;
        unlink(j->log);
        return;
    }
    b->status = KT_STATUS_COMPILE_ERROR;
    if (WIFSIGNALED(status))
        snprintf(b->detail, sizeof b->detail, "compiler killed by signal %d",
                 WTERMSIG(status));
    else
        log_excerpt(j->log, b->detail, sizeof b->detail);
    unlink(j->tmp);
}

/* Reap whichever running job has finished; kill those past the limit. */
static bool reap_one(job *jobs, size_t *slot_of, size_t nrun, kt_build *builds,
                     size_t *finished)
{
    for (size_t r = 0; r < nrun; r++) {
        job *j = &jobs[r];
        int status;
        pid_t p = waitpid(j->pid, &status, WNOHANG);
        if (p == 0 && kt_now() - j->start > COMPILE_TIMEOUT_S) {
            kill(j->pid, SIGKILL);
            p = waitpid(j->pid, &status, 0);
        }
        if (p == j->pid) {
            job_finish(j, status, &builds[slot_of[r]]);
            *finished = r;
            return true;
        }
    }
    return false;
}

static int cpu_compile(void *vctx, const uint16_t *const *cfgs, size_t n,
                       kt_build *builds, kt_diag *diag)
{
    cpu_ctx *c = vctx;
    job *jobs = calloc((size_t)c->jobs, sizeof *jobs);
    size_t *slot_of = calloc((size_t)c->jobs, sizeof *slot_of);
    int rc = jobs && slot_of ? KT_OK : kt_fail(diag, KT_ENOMEM, "out of memory");
    size_t next = 0, nrun = 0;
    while (rc == KT_OK && (next < n || nrun > 0)) {
        if (next < n && nrun < (size_t)c->jobs) {
            job *j = &jobs[nrun];
            kt_build *b = &builds[next];
            *b = (kt_build){0};
            rc = job_prepare(c, cfgs[next], j);
            if (rc == KT_OK && access(j->out, R_OK) == 0) {
                b->status = KT_STATUS_OK; /* cached */
                b->artifact = j->out;
                j->out = NULL;
                job_clear(j);
            } else if (rc == KT_OK && (rc = job_spawn(j)) == KT_OK) {
                slot_of[nrun++] = next;
            }
            if (rc != KT_OK) {
                rc = kt_fail(diag, rc, "cannot run the compiler '%s' in '%s': %s",
                             c->compiler, c->cache_dir, strerror(errno));
                job_clear(j);
            }
            next++;
            continue;
        }
        size_t done;
        if (!reap_one(jobs, slot_of, nrun, builds, &done)) {
            nanosleep(&(struct timespec){0, 2000000}, NULL);
            continue;
        }
        job_clear(&jobs[done]);
        jobs[done] = jobs[nrun - 1];
        slot_of[done] = slot_of[nrun - 1];
        jobs[--nrun] = (job){0};
    }
    for (size_t r = 0; r < nrun; r++) { /* after an error: stop the rest */
        kill(jobs[r].pid, SIGKILL);
        waitpid(jobs[r].pid, NULL, 0);
        job_clear(&jobs[r]);
    }
    free(jobs);
    free(slot_of);
    return rc;
}

/* ------------------------------------------------------- worker side */

typedef void (*entry_fn)(void **args);

/* A loaded kernel: the library handle and its entry point. */
typedef struct cpu_kernel {
    void *lib;
    entry_fn entry;
} cpu_kernel;

static int cpu_load(void *vctx, const char *artifact, const double *slots,
                    bool reference, void **out, kt_diag *diag)
{
    (void)vctx;
    (void)slots; /* a C kernel gets its sizes as arguments */
    (void)reference;
    cpu_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    /* Pin the OpenMP runtime: unloading it with a kernel while its idle
     * threads still exist would crash the worker later, for no fault of
     * the next kernel.  (Absent libgomp is fine: no kernel can need it.) */
    dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE);
    k->lib = dlopen(artifact, RTLD_NOW | RTLD_LOCAL);
    if (k->lib)
        *(void **)&k->entry = dlsym(k->lib, "ktune_entry");
    if (!k->lib || !k->entry) {
        kt_fail(diag, KT_EBACKEND, "cannot load '%s': %s", artifact, dlerror());
        if (k->lib)
            dlclose(k->lib);
        free(k);
        return KT_EBACKEND;
    }
    *out = k;
    return KT_OK;
}

static void cpu_unload(void *vctx, void *kernel)
{
    (void)vctx;
    cpu_kernel *k = kernel;
    if (!k)
        return;
    dlclose(k->lib);
    free(k);
}

/* Buffers end flush against an inaccessible guard page (64-byte aligned),
 * and another guard page precedes them. */
static size_t mapping_bytes(const cpu_ctx *c, size_t bytes)
{
    size_t data = (bytes + 63) & ~(size_t)63;
    return ((data + c->page - 1) / c->page + 2) * c->page;
}

static char *mapping_base(const cpu_ctx *c, void *buf, size_t bytes)
{
    size_t data = (bytes + 63) & ~(size_t)63;
    size_t span = mapping_bytes(c, bytes) - 2 * c->page;
    return (char *)buf - (span - data) - c->page;
}

static int cpu_buffer_new(void *vctx, size_t bytes, void **buf, kt_diag *diag)
{
    cpu_ctx *c = vctx;
    size_t total = mapping_bytes(c, bytes);
    char *base = mmap(NULL, total, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (base == MAP_FAILED)
        return kt_fail(diag, KT_ENOMEM, "cannot map %zu bytes: %s", bytes,
                       strerror(errno));
    mprotect(base, c->page, PROT_NONE);
    mprotect(base + total - c->page, c->page, PROT_NONE);
    size_t data = (bytes + 63) & ~(size_t)63;
    *buf = base + total - c->page - data;
    return KT_OK;
}

static void cpu_buffer_free(void *vctx, void *buf, size_t bytes)
{
    cpu_ctx *c = vctx;
    if (buf)
        munmap(mapping_base(c, buf, bytes), mapping_bytes(c, bytes));
}

static int cpu_buffer_protect(void *vctx, void *buf, size_t bytes, bool readonly)
{
    cpu_ctx *c = vctx;
    char *base = mapping_base(c, buf, bytes);
    size_t len = mapping_bytes(c, bytes) - 2 * c->page;
    return mprotect(base + c->page, len, readonly ? PROT_READ : PROT_READ | PROT_WRITE)
               ? KT_EBACKEND
               : KT_OK;
}

static int cpu_buffer_write(void *vctx, void *buf, const void *host, size_t bytes)
{
    (void)vctx;
    memcpy(buf, host, bytes);
    return KT_OK;
}

static int cpu_buffer_read(void *vctx, void *host, const void *buf, size_t bytes)
{
    (void)vctx;
    memcpy(host, buf, bytes);
    return KT_OK;
}

static int cpu_run(void *vctx, void *kernel, void **args, int reps, int inner,
                   double *times_ms, kt_diag *diag)
{
    (void)vctx;
    (void)diag;
    cpu_kernel *k = kernel;
    for (int r = 0; r < reps; r++) {
        double t0 = kt_now();
        for (int i = 0; i < inner; i++)
            k->entry(args);
        times_ms[r] = (kt_now() - t0) * 1e3 / inner;
    }
    return KT_OK;
}

/* A production call is one call on the application's buffers (no stream:
 * the C kernel runs in the calling thread). */
static int cpu_call(void *vctx, void *kernel, void **args, void *stream, double *ms,
                    kt_diag *diag)
{
    (void)stream;
    return cpu_run(vctx, kernel, args, 1, 1, ms, diag);
}

const kt_backend kt_backend_cpu = {
    .abi = KT_BACKEND_ABI,
    .name = "cpu",
    .language = KT_LANG_C,
    .open = cpu_open,
    .close = cpu_close,
    .device = cpu_device,
    .compile = cpu_compile,
    .load = cpu_load,
    .unload = cpu_unload,
    .buffer_new = cpu_buffer_new,
    .buffer_free = cpu_buffer_free,
    .buffer_write = cpu_buffer_write,
    .buffer_read = cpu_buffer_read,
    .buffer_protect = cpu_buffer_protect,
    .run = cpu_run,
    .call = cpu_call,
    .host_memory = true,
};
