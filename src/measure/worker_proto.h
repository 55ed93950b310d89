/* worker_proto.h - what the tuner (worker.c) and the worker program
 * (worker_child.c) say to each other.  Private to measure/.
 *
 * The worker is a separate program started with posix_spawn, never a fork
 * of the tuner: a forked copy of a process whose threaded libraries
 * (XGBoost's OpenMP, OpenBLAS, NVRTC, the CUDA driver) are running inherits
 * their locks but not their threads, and a kernel that then starts an
 * OpenMP team waits forever.  A fresh program has no such state.
 *
 * The worker's standard descriptors are the tuner's; the socket is
 * descriptor WORKER_SOCK_FD and the shared reference region (a memfd)
 * WORKER_SHARED_FD.  argv is { path, KT_WORKER_ARG, tuner pid }.
 *
 * tuner -> worker: one setup message (u32 length, then the encoded setup),
 *                  then requests (request header, artifact path, cfg).
 * worker -> tuner: messages (msg_head, payload): MSG_RUN before each batch
 *                  of kernel calls (payload: double calls), MSG_RAN after it,
 *                  MSG_PHASES (payload: double[KT_PHASE_COUNT], the
 *                  seconds of each phase) before the MSG_RESULT (payload:
 *                  kt_result) that ends every evaluation; a MSG_RESULT also
 *                  ends the start (the reference); MSG_WARM (payload:
 *                  double seconds) when an energy warm-up begins, which
 *                  moves the evaluation's timeout cap that much later.
 * Both ends are the same build of ktune: the setup starts with the protocol
 * version and the sizes of the structs that travel as bytes.
 */
#ifndef KT_WORKER_PROTO_H
#define KT_WORKER_PROTO_H

#include "measure/worker.h"

#define WORKER_PROTOCOL 4
#define WORKER_SOCK_FD 3
#define WORKER_SHARED_FD 4

enum { REQ_EVAL = 1, REQ_QUIT = 2 };
enum { MSG_RESULT = 1, MSG_RUN = 2, MSG_RAN = 3, MSG_PHASES = 4, MSG_WARM = 5 };

/* Request header; the artifact path and the configuration follow. */
typedef struct request {
    uint32_t kind;
    uint32_t path_len;
    double warmup_s;       /* > 0: where energy is read, run the kernel back
                              to back this long before timing it */
} request;

typedef struct msg_head {
    uint32_t kind;
    uint32_t len;          /* payload bytes */
} msg_head;

/* The start of the shared region; reference outputs follow at the offsets
 * the worker computes from the argument sizes (worker_ref_offsets). */
typedef struct shared_head {
    int ready;
    char pad[60];
} shared_head;

/* Everything a worker needs to rebuild the tuner's view of the problem. */
typedef struct worker_setup {
    char *spec_path;       /* loaded again by the worker ... */
    char *source_hash;     /* ... and checked to be the same kernel */
    char *problem;         /* canonical problem key */
    char *backend;         /* registered backend name */
    char *cache_dir, *compiler, *arch, *platform;
    int32_t device;        /* kt_backend_opts.device */
    char *ref_artifact;
    uint16_t *ref_cfg;     /* nparams value indices */
    size_t nparams;
    kt_measure_opts opts;  /* worker_path cleared */
    uint64_t shared_bytes;
    uint64_t memory_limit; /* bytes the worker's address space may use; 0: none */
} worker_setup;

/* Encode s into a heap buffer (*out, *len); KT_ENOMEM on failure. */
int worker_setup_encode(const worker_setup *s, char **out, size_t *len);
/* Decode a setup; strings and ref_cfg are heap copies (worker_setup_clear). */
int worker_setup_decode(const char *buf, size_t len, worker_setup *s, kt_diag *diag);
void worker_setup_clear(worker_setup *s);

/* True for arguments the kernel writes (their reference is kept). */
bool worker_is_output(const kt_arg *a);
/* Offsets of each output's reference in the shared region (others 0);
 * returns the region's size. */
size_t worker_ref_offsets(const kt_spec *spec, const kt_args *args, size_t *offsets);

#endif /* KT_WORKER_PROTO_H */
