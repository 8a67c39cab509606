/*
 * ms_raw_int.h - the converters of a raw Ascend job (ms_raw.h), one per
 * input kind; each takes a whole input file (path for its warnings) and
 * appends MindSpore's intermediate text to out. Internal to ms_raw*.c.
 */
#ifndef NNS_IMPORTERS_MS_RAW_INT_H
#define NNS_IMPORTERS_MS_RAW_INT_H

#include "common/buf.h"
#include "importers/ms_raw.h"

#include <stdint.h>

/* Adds a warning "<path>: offset <off>: <why>" (off < 0: no offset).
 * NNS_OK or NNS_ENOMEM. */
int ms_raw_warn(struct ms_raw *r, const char *path, long long off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* One operator of the framework files: its task and its graph row. */
struct ms_raw_op {
	char *name;   /* full op name */
	char key[48]; /* the hwts task key: "<task>" or "<stream>_<task>" */
	long task_id, stream_id, block_dim;
	char *op_type; /* from the graph file; NULL when absent */
	int graph;     /* a graph row named it */
};

struct ms_raw_fw {
	VEC(struct ms_raw_op) ops;
};

/* The hwts task key MindInsight joins on: "<stream>_<task>" for task ids
 * below 25000, else "<task>". */
void ms_raw_task_key(char *key, size_t n, long task_id, long stream_id);

/* Task description files (one line "op block_dim task_id stream_id"). */
int ms_raw_fw_tasks(struct ms_raw_fw *fw, const char *buf, size_t n, const char *path,
		    struct ms_raw *r);
/* Graph description files (ge: 0, vm: 1) -> framework_raw rows in out
 * (header written by ms_raw_fw_header); op types noted in fw. */
void ms_raw_fw_header(struct buf *out);
int ms_raw_fw_graph(struct ms_raw_fw *fw, const char *buf, size_t n, int vm, const char *path,
		    struct buf *out, struct ms_raw *r);
/* The tasks no graph row named, as rows with empty graph columns. */
int ms_raw_fw_rest(struct ms_raw_fw *fw, struct buf *out);
void ms_raw_fw_release(struct ms_raw_fw *fw);

/* training_trace -> step_trace_raw CSV. */
int ms_raw_trace(const unsigned char *b, size_t n, const char *path, struct buf *out,
		 struct ms_raw *r);

/* hwts log + framework ops -> aicore detail and type CSVs, the timeline
 * rows (output_timeline_data) and the min cycle counter. */
int ms_raw_hwts(const unsigned char *b, size_t n, const char *path, const struct ms_raw_fw *fw,
		struct buf *detail, struct buf *type, struct buf *tl, struct buf *mincc,
		struct ms_raw *r);

/* DATA_PREPROCESS AICPU -> output_data_preprocess_aicpu text. */
int ms_raw_aicpu(const char *b, size_t n, const char *path, struct buf *out, struct ms_raw *r);

#endif
