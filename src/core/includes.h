/* includes.h - a CUDA kernel's local headers: the quoted includes
 * (#include "x.cuh") of files beside the kernel file, found by scanning
 * its text, so that NVRTC can be given the kernel's directory and every
 * hash that identifies the kernel can cover the headers' text too. */
#ifndef KT_INCLUDES_H
#define KT_INCLUDES_H

#include "core/util.h"

/* The deepest chain of nested local includes followed. */
#define KT_INCLUDE_DEPTH 8

/* Collect the local headers that src (the text of the file at path) names,
 * recursively, each once: *out is "name\ntext\n" per header in the order
 * first met, or NULL when src names none.  A header that cannot be read, a
 * name outside the kernel's directory or a chain deeper than
 * KT_INCLUDE_DEPTH is KT_EINVAL (KT_ENOMEM) with "file:line: ..." in diag. */
int kt_includes_collect(const char *path, const char *src, char **out, kt_diag *diag);

/* The directory of a file path, as a new string ("." when it has none). */
char *kt_path_dir(const char *path);

#endif
