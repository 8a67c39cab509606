/*
 * kineto.h - importer for PyTorch profiler / Kineto Chrome-trace JSON
 * (`.json` and `.json.gz`, object form {"traceEvents": [...]} or a bare
 * array), old (PyTorch 1.x: Operator, Runtime, Kernel ...) and modern
 * categories (cpu_op, cuda_runtime, cuda_driver, kernel, gpu_memcpy ...).
 *
 * The JSON is parsed by a streaming tokenizer straight into the model (no
 * DOM), in bounded memory, using several threads for large plain files.
 * On success (NNS_OK) or on a truncated/damaged input where events could be
 * kept (NNS_ETRUNC, err says what and where) the model is finalized and
 * usable. Other errors leave the model in an unspecified but releasable
 * state. The caller owns the model (model_init before, model_release after).
 */
#ifndef NNS_IMPORTERS_KINETO_H
#define NNS_IMPORTERS_KINETO_H

#include "model/model.h"

struct fs_root;

struct kineto_opts {
	int threads;		     /* parser threads; 0 = one per online CPU (max 8) */
	int progress;		     /* 1: print progress on stderr (the CLI sets this
				      * when stderr is a terminal) */
	_Atomic int64_t *done_bytes; /* NULL, or a counter the parser adds the
				      * input bytes it consumed to (the server's
				      * progress bar); the caller owns it */
	const _Atomic int *cancel;   /* NULL, or a flag that, once non-zero,
				      * stops the parse at its next read with
				      * NNS_EINVAL "loading cancelled" */
	const struct fs_root *root;  /* NULL, or the directory every file read
				      * must lie in (common/fs.h; the server's
				      * logdir): a file that resolves outside
				      * is refused at its open; borrowed */
};

/* Loads the trace at `path` (gzip detected by magic bytes). */
int kineto_load_file(const char *path, struct model *m, const struct kineto_opts *o,
		     struct nns_err *err);

/* Parses an in-memory JSON document; `name` is used in error messages. */
int kineto_load_buffer(const char *buf, size_t len, const char *name, struct model *m,
		       const struct kineto_opts *o, struct nns_err *err);

#endif
