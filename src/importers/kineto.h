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
/* The input limits' defaults (issue 20: a small .gz must not expand into
 * minutes of work or gigabytes of memory). A kineto_opts field left 0
 * takes its default; a negative one turns the limit off. */
#define KINETO_MAX_INPUT ((int64_t)64 << 30)   /* bytes of JSON (after gunzip) */
#define KINETO_MAX_RATIO 200		       /* JSON bytes per gzip byte */
#define KINETO_MAX_MEMORY ((int64_t)512 << 20) /* the memory budget's floor */

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
	int64_t max_input;	     /* most bytes of JSON read, decompressed: a larger
				      * plain file is refused before parsing, a .gz
				      * when it expands past it (--max-input) */
	int64_t max_ratio;	     /* .gz: most JSON bytes per compressed byte, checked
				      * once 256 MiB of JSON came out (--max-ratio);
				      * real traces compress 20-30x */
	int64_t max_memory;	     /* the memory budget is the larger of this and the
				      * JSON bytes read so far: the model, with what
				      * its analysis adds per event, must stay under it
				      * (--max-memory) */
};

/* Loads the trace at `path` (gzip detected by magic bytes). */
int kineto_load_file(const char *path, struct model *m, const struct kineto_opts *o,
		     struct nns_err *err);

/* Parses an in-memory JSON document; `name` is used in error messages. */
int kineto_load_buffer(const char *buf, size_t len, const char *name, struct model *m,
		       const struct kineto_opts *o, struct nns_err *err);

#endif
