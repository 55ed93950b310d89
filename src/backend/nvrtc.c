/* nvrtc.c - CUDA configurations to CUBINs with NVRTC: a pool of threads in
 * a forked child, each finished build streamed back over a pipe (see
 * nvrtc.h for why both). */
#include "backend/nvrtc.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ------------------------------------------------------- one compilation */

/* True when the spec's options name a target themselves: a kernel that
 * needs architecture-specific instructions (wgmma: sm_90a) says so. */
static bool names_arch(const kt_spec *s)
{
    for (size_t i = 0; i < s->ncompiler_options; i++)
        if (strncmp(s->compiler_options[i], "--gpu-architecture", 18) == 0 ||
            strncmp(s->compiler_options[i], "-arch", 5) == 0)
            return true;
    return false;
}

/* The options of one compilation: architecture (the device's, unless the
 * spec names one), the configuration's defines, the spec's options.  NULL
 * on allocation failure. */
static char **nvrtc_options(const kt_nvrtc *nv, const uint16_t *cfg, size_t *n)
{
    const kt_spec *s = nv->spec;
    char **o = calloc(2 + s->nparams + s->ncompiler_options, sizeof *o);
    if (!o)
        return NULL;
    *n = 0;
    if (!names_arch(s))
        o[(*n)++] = kt_asprintf("--gpu-architecture=%s", nv->arch);
    for (size_t i = 0; cfg && i < s->nparams; i++)
        o[(*n)++] = kt_asprintf("-D%s=%s", s->params[i].name, s->params[i].texts[cfg[i]]);
    for (size_t i = 0; i < s->ncompiler_options; i++)
        o[(*n)++] = kt_strdup(s->compiler_options[i]);
    for (size_t i = 0; i < *n; i++)
        if (!o[i]) {
            for (size_t j = 0; j < *n; j++)
                free(o[j]);
            free(o);
            return NULL;
        }
    return o;
}

/* The first line of the NVRTC log that says "error", else its first. */
static void compile_log(const kt_nvrtc *nv, nvrtcProgram prog, char *out, size_t n)
{
    size_t len = 0;
    char *log = NULL;
    snprintf(out, n, "NVRTC failed");
    if (nv->api->nvrtcGetProgramLogSize(prog, &len) != 0 || !(log = malloc(len + 1)))
        return;
    if (nv->api->nvrtcGetProgramLog(prog, log) == 0) {
        log[len] = '\0';
        const char *line = strstr(log, "error");
        while (line && line > log && line[-1] != '\n')
            line--;
        line = line ? line : log;
        size_t l = strcspn(line, "\n");
        if (l)
            snprintf(out, n, "%.*s", (int)l, line);
    }
    free(log);
}

static bool write_file(const char *path, const void *data, size_t len)
{
    char *tmp = kt_asprintf("%s.%ld.tmp", path, (long)getpid());
    FILE *f = tmp ? fopen(tmp, "wb") : NULL;
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f)
        ok = fclose(f) == 0 && ok;
    ok = ok && rename(tmp, path) == 0; /* never a half-written cache entry */
    if (!ok && tmp)
        unlink(tmp);
    free(tmp);
    return ok;
}

/* NVRTC source to CUBIN; b->status says whether it compiled. */
static void nvrtc_build(const kt_nvrtc *nv, const char *src, const char *path, char **opts,
                        size_t nopts, kt_build *b)
{
    nvrtcProgram prog = NULL;
    double t0 = kt_now();
    b->status = KT_STATUS_COMPILE_ERROR;
    if (nv->api->nvrtcCreateProgram(&prog, src, "kernel.cu", 0, NULL, NULL) != 0) {
        snprintf(b->detail, sizeof b->detail, "NVRTC could not create a program");
        return;
    }
    size_t len = 0;
    char *cubin = NULL;
    if (nv->api->nvrtcCompileProgram(prog, (int)nopts, (const char *const *)opts) != 0)
        compile_log(nv, prog, b->detail, sizeof b->detail);
    else if (nv->api->nvrtcGetCUBINSize(prog, &len) != 0 || !(cubin = malloc(len)) ||
             nv->api->nvrtcGetCUBIN(prog, cubin) != 0 || !write_file(path, cubin, len))
        snprintf(b->detail, sizeof b->detail, "cannot store the compiled kernel in '%s'",
                 path);
    else
        b->status = KT_STATUS_OK;
    b->compile_ms = (kt_now() - t0) * 1e3;
    free(cubin);
    nv->api->nvrtcDestroyProgram(&prog);
}

static void compile_one(const kt_nvrtc *nv, const uint16_t *cfg, kt_build *b)
{
    const kt_spec *s = nv->spec;
    const char *src = cfg ? s->kernel_source : s->ref_source;
    size_t nopts = 0;
    char **opts = nvrtc_options(nv, cfg, &nopts);
    *b = (kt_build){.status = KT_STATUS_COMPILE_ERROR};
    if (!opts) {
        snprintf(b->detail, sizeof b->detail, "out of memory");
        return;
    }
    int major = 0, minor = 0;
    nv->api->nvrtcVersion(&major, &minor);
    uint64_t h = kt_hash(KT_HASH_INIT, &major, sizeof major);
    h = kt_hash(h, &minor, sizeof minor);
    h = kt_hash_str(h, src);
    for (size_t i = 0; i < nopts; i++)
        h = kt_hash_str(h, opts[i]);
    char *path = kt_asprintf("%s/%016llx.cubin", nv->cache_dir, (unsigned long long)h);
    if (path && access(path, R_OK) == 0)
        b->status = KT_STATUS_OK; /* cached */
    else if (path)
        nvrtc_build(nv, src, path, opts, nopts, b);
    if (b->status == KT_STATUS_OK)
        b->artifact = path;
    else
        free(path);
    for (size_t i = 0; i < nopts; i++)
        free(opts[i]);
    free(opts);
}

/* ------------------------------------------------ the pool (child side) */

/* One build as it crosses the pipe. */
typedef struct wire_build {
    uint64_t index;
    int status;
    double compile_ms;
    char detail[256];
    char artifact[4096];
} wire_build;

/* The batch the child's threads share. */
typedef struct pool {
    const kt_nvrtc *nv;
    const uint16_t *const *cfgs;
    size_t n, next;
    int fd;
    pthread_mutex_t take, send; /* the next index; the pipe */
} pool;

static void send_build(pool *p, size_t i, const kt_build *b)
{
    wire_build w = {.index = i, .status = (int)b->status, .compile_ms = b->compile_ms};
    kt_strlcpy(w.detail, sizeof w.detail, b->detail);
    kt_strlcpy(w.artifact, sizeof w.artifact, b->artifact ? b->artifact : "");
    pthread_mutex_lock(&p->send);
    bool ok = write(p->fd, &w, sizeof w) == (ssize_t)sizeof w;
    pthread_mutex_unlock(&p->send);
    if (!ok)
        _exit(1); /* the tuner stopped listening */
}

static void *compile_thread(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->take);
        size_t i = p->next++;
        pthread_mutex_unlock(&p->take);
        if (i >= p->n)
            return NULL;
        kt_build b;
        compile_one(p->nv, p->cfgs[i], &b);
        send_build(p, i, &b);
        free(b.artifact);
    }
}

/* The child's whole life: jobs threads (NVRTC is thread-safe) take
 * configurations in order and send each build when it is done. */
static void compile_child(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n, int fd)
{
    pool p = {.nv = nv, .cfgs = cfgs, .n = n, .fd = fd};
    size_t nthreads = (size_t)(nv->jobs > 0 ? nv->jobs : 1);
    nthreads = nthreads < n ? nthreads : n;
    pthread_t *threads = calloc(nthreads + 1, sizeof *threads);
    if (!threads || pthread_mutex_init(&p.take, NULL) != 0 ||
        pthread_mutex_init(&p.send, NULL) != 0)
        _exit(1);
    size_t started = 0;
    while (started < nthreads &&
           pthread_create(&threads[started], NULL, compile_thread, &p) == 0)
        started++;
    if (started == 0)
        compile_thread(&p); /* no thread could start: compile here */
    for (size_t i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    _exit(0);
}

/* ----------------------------------------------- the job (tuner side) */

struct kt_nvrtc_job {
    pid_t pid;
    int fd;
    size_t n, returned;
    bool dead;              /* the child stopped sending */
    uint8_t *done;          /* per configuration: returned */
};

int kt_nvrtc_start(const kt_nvrtc *nv, const uint16_t *const *cfgs, size_t n,
                   kt_nvrtc_job **out, kt_diag *diag)
{
    int fds[2];
    kt_nvrtc_job *job = calloc(1, sizeof *job);
    if (!job || !(job->done = calloc(n ? n : 1, 1))) {
        free(job);
        return kt_fail(diag, KT_ENOMEM, "out of memory");
    }
    if (pipe(fds) != 0) {
        free(job->done);
        free(job);
        return kt_fail(diag, KT_EBACKEND, "cannot create a pipe: %s", strerror(errno));
    }
    fcntl(fds[1], F_SETPIPE_SZ, 1 << 20); /* room to run ahead; best effort */
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        compile_child(nv, cfgs, n, fds[1]);
    }
    close(fds[1]);
    *job = (kt_nvrtc_job){.pid = pid, .fd = fds[0], .n = n, .done = job->done,
                          .dead = pid < 0};
    *out = job;
    if (pid < 0) {
        kt_nvrtc_end(job);
        *out = NULL;
        return kt_fail(diag, KT_EBACKEND, "cannot fork the compiler: %s", strerror(errno));
    }
    return KT_OK;
}

/* The first configuration not yet returned, as a failure: the child died. */
static void orphan(kt_nvrtc_job *job, size_t *index, kt_build *b)
{
    size_t i = 0;
    while (job->done[i])
        i++;
    *index = i;
    snprintf(b->detail, sizeof b->detail, "the NVRTC process died");
}

int kt_nvrtc_next(kt_nvrtc_job *job, size_t *index, kt_build *b, kt_diag *diag)
{
    *b = (kt_build){.status = KT_STATUS_COMPILE_ERROR};
    if (job->returned == job->n)
        return KT_EDONE;
    wire_build w;
    if (!job->dead && kt_read_all(job->fd, &w, sizeof w) && w.index < job->n &&
        !job->done[w.index]) {
        *index = (size_t)w.index;
        b->status = (kt_status)w.status;
        b->compile_ms = w.compile_ms;
        kt_strlcpy(b->detail, sizeof b->detail, w.detail);
        if (w.artifact[0] && !(b->artifact = kt_strdup(w.artifact)))
            return kt_fail(diag, KT_ENOMEM, "out of memory");
    } else {
        job->dead = true;
        orphan(job, index, b);
    }
    job->done[*index] = 1;
    job->returned++;
    return KT_OK;
}

void kt_nvrtc_end(kt_nvrtc_job *job)
{
    if (!job)
        return;
    close(job->fd);
    if (job->pid > 0) {
        if (job->returned < job->n)
            kill(job->pid, SIGKILL); /* stopped early: no use for the rest */
        while (waitpid(job->pid, NULL, 0) < 0 && errno == EINTR) {
        }
    }
    free(job->done);
    free(job);
}
