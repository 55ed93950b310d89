/* recording_cache.h - what the reader of a recording file (a Kernel Tuner
 * cache or T4 JSON, store/recording.h) made of it, kept in the
 * compiled-kernel cache directory, so that the next replay of the same file
 * reads its rows back in milliseconds instead of parsing the JSON again
 * (about 150 ms for 20,000 configurations; the goal is 20 ms a
 * replay, load included).
 *
 * An entry is keyed by the file's content: a 64-bit hash of its bytes (as
 * stored, compressed or not) and its size.  A copy, move or touch of the
 * file still finds its entry, and a change to any byte misses it; hashing
 * the 16 MB of a 20,000-configuration cache costs 2-3 ms.  (A key of path,
 * size, mtime and inode would cost nothing to compute but would miss every
 * copy, and trust a rewrite that keeps the size and the mtime, as
 * `cp -p`, `rsync -t` or an unpacked archive do.)
 *
 * An entry, "DIR/<hash>.ktrec", is trusted only as far as it checks: a
 * magic number, the format version, the key it was made for, its length
 * and the hash of its contents; the rows are read through bounds checks.
 * Anything else (absent, another version, stale, cut short, corrupt) is a
 * miss, and the reader parses the file and writes the entry again.  It is
 * written to DIR/<hash>.<pid>.tmp and renamed into place, so a reader sees
 * a whole entry or none (and kt_cache_sweep removes what a killed writer
 * left).
 */
#ifndef KT_RECORDING_CACHE_H
#define KT_RECORDING_CACHE_H

#include "store/replay.h"

/* A file's content key. */
typedef struct kt_rcache_key {
    uint64_t hash;          /* of its bytes */
    uint64_t size;          /* bytes */
} kt_rcache_key;

/* The names of a recording read from a file, kept with its rows. */
typedef struct kt_rcache_names {
    const char *kind;       /* kt_recording_kind's text */
    const char *kernel, *device, *problem;
    const char *lists;      /* the value orders (Kernel Tuner's tune_params) as
                               JSON text, "" for none */
} kt_rcache_names;

/* The key of the file at path; KT_EIO naming it. */
int kt_rcache_key_of(const char *path, kt_rcache_key *key, kt_diag *diag);

/* One row of an entry, in the order saved: the callee takes config (a
 * malloc'ed key), freeing it on failure too.  KT_OK or an error in diag. */
typedef int (*kt_rcache_row_fn)(void *user, char *config, const kt_result *r);

/* The entry of key in dir: its names into *names (their text owned by
 * *blob, which the caller frees, set even on failure), then each row to fn.
 * KT_ENOTFOUND (no message) when there is no entry to trust, which is
 * checked before any row goes to fn; fn's error otherwise. */
int kt_rcache_load(const char *dir, kt_rcache_key key, kt_rcache_names *names, char **blob,
                   kt_rcache_row_fn fn, void *user, kt_diag *diag);

/* Keep names and the rows of replay (in the order added) as the entry of
 * key in dir, which is created if missing.  KT_EIO or KT_ENOMEM; nothing
 * of a failed save stays behind. */
int kt_rcache_save(const char *dir, kt_rcache_key key, const kt_rcache_names *names,
                   const kt_replay *replay, kt_diag *diag);

#endif /* KT_RECORDING_CACHE_H */
