/*
 * ms_read.h - reads one whole file of a MindSpore profiler directory
 * ("<dir>/<pre><dev><post>", see ms_src.h) into memory, for the readers of
 * ms_flops.c, ms_aicpu.c, ms_dynshape.c and ms_opdetail.c, and keeps their
 * strings. A file that is not there is not an error: those readers report
 * "no data" for it.
 *
 * Ownership: *buf is malloc'ed (NUL-terminated, n bytes before the NUL),
 * the caller frees it.
 */
#ifndef NNS_IMPORTERS_MS_READ_H
#define NNS_IMPORTERS_MS_READ_H

#include <stddef.h>

#include "common/err.h"
#include "importers/ms_src.h"

#define MS_READ_MAX ((size_t)1 << 30) /* 1 GiB: larger is an error */

/* NNS_OK with *buf set; NNS_OK with *buf NULL when the file is absent;
 * NNS_EIO / NNS_ENOMEM / NNS_EFORMAT (too large, path too long).
 * path (size pn) receives the file's path for messages. */
int ms_read(const struct ms_src *s, const char *pre, const char *post, char *path, size_t pn,
	    char **buf, size_t *n, struct nns_err *err);

/* The file name after the last '/' (for short messages). */
const char *ms_read_base(const char *path);

/* Appends s[0..n) and a NUL to a VEC(char) of NUL-separated strings (the
 * readers keep their names so, by offset); *off receives where it starts.
 * 0 or NNS_ENOMEM (the strings unchanged). */
#define ms_strs_add(a, str, len, off)                                                              \
	ms_strs_add_raw(&(a)->v, &(a)->n, &(a)->cap, (str), (len), (off))
int ms_strs_add_raw(char **v, size_t *len, size_t *cap, const char *s, size_t n, size_t *off);

#endif
