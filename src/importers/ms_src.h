/*
 * ms_src.h - one MindSpore device's profiler output: the directory that
 * holds MindSpore/MindInsight's intermediate files (step_trace_raw_<dev>_
 * detail_time.csv, aicore_intermediate_<dev>_type.csv, flops_<dev>.txt,
 * minddata_pipeline_raw_<dev>.csv, ...) and the device id <dev> they are
 * named by. The readers of those files take a struct ms_src and build the
 * file names with ms_src_path().
 *
 * Ownership: borrowed; dir and root must outlive the struct.
 */
#ifndef NNS_IMPORTERS_MS_SRC_H
#define NNS_IMPORTERS_MS_SRC_H

#include <stddef.h>

struct fs_root;
struct ms_raw;

struct ms_src {
	const char *dir;	    /* the profiler directory, no trailing slash needed */
	int dev;		    /* device id (rank id in cluster layouts) */
	const struct fs_root *root; /* NULL, or the directory its files must lie
				     * in (common/fs.h): a file that resolves
				     * outside is refused at its open */
	const struct ms_raw *raw;   /* NULL, or a raw job's intermediate files
				     * made in memory (ms_raw.h): served by
				     * ms_src_read / ms_src_has before the disk */
};

/* Writes "<dir>/<pre><dev><post>" into buf (e.g. pre "flops_", post ".txt").
 * Returns 0, or -1 when it does not fit. */
int ms_src_path(const struct ms_src *s, const char *pre, const char *post, char *buf, size_t n);

/* 1 when "<dir>/<pre><dev><post>" exists as a regular file (beneath
 * root). */
int ms_src_has(const struct ms_src *s, const char *pre, const char *post);

/* Reads "<dir>/<pre><dev><post>" whole into *buf (malloc'ed, NUL-terminated,
 * the caller frees it) and *n. NNS_OK; NNS_ENOTFOUND when absent; NNS_EIO
 * (also "refused: resolves outside <root>"); NNS_EFORMAT over max bytes;
 * NNS_ENOMEM. */
#include "common/err.h"
int ms_src_read(const struct ms_src *s, const char *pre, const char *post, size_t max, char **buf,
		size_t *n, struct nns_err *err);

#endif
