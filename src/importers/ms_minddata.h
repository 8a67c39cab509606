/*
 * ms_minddata.h - readers of MindSpore's MindData (data preparation)
 * profiler files for one device (struct ms_src: directory + device id);
 * the analyses over them are in src/analysis/ms_minddata.h. Reference:
 * shared/reference/mindinsight.md "Data preparation (MindData)", upstream
 * mindinsight/profiler/analyser/minddata_analyser.py,
 * minddata_pipeline_analyser.py, minddata_cpu_utilization_analyser.py.
 *
 * Files (<dev> = s->dev):
 *   device_queue_profiling_<dev>.txt, else dataset_iterator_profiling_<dev>.txt
 *       host-side queue, one record a line "type extra step value [time]":
 *       type 0 = a time record, extra 0 get / 1 push / 2 total (batch) cost,
 *       value the cost (ms); type 1 = a queue record, extra = capacity,
 *       value = size, time = the sampling time stamp. Other types are
 *       ignored (as upstream does); blank lines are skipped.
 *   minddata_aicpu_<dev>.txt (Ascend, times in us), else
 *   minddata_getnext_profiling_<dev>.txt (GPU, ns)
 *       chip-side GetNext, lines "GetNext... start end [queue_size]"; lines
 *       whose first word does not start with "GetNext" are ignored.
 *   minddata_pipeline_raw_<dev>.csv
 *       header op_id,op_type,num_workers,output_queue_size,
 *       output_queue_average_size,output_queue_length,output_queue_usage_rate,
 *       sample_interval,parent_id,children_id; output_queue_size and
 *       children_id are JSON lists of integers; empty cells are "none".
 *   minddata_cpu_utilization_<dev>.json
 *       {sampling_interval, cpu_processor_num, time_stamp[],
 *        device_info{metric: [..]}, process_info{metric: [..]},
 *        op_info[{op_id, metrics{metric: [..]}}]}
 *   pipeline_profiling_<dev>.json  only op_info[].{op_id,num_workers} is read
 *       (the worker count of each op of the CPU utilization view).
 *
 * Every reader returns NNS_OK with present = 0 when its file is absent (no
 * data is not an error), NNS_EFORMAT naming "path:line: why" for a malformed
 * file (nothing is kept from it), NNS_EIO / NNS_ENOMEM otherwise. The
 * ms_md_parse_* functions do the same on a buffer (name is used in the
 * messages), for tests and fuzzing.
 *
 * Bounds: files up to MS_MD_FILE_MAX bytes, MS_MD_MAX_RECORDS records per
 * file, MS_MD_MAX_OPS pipeline ops, MS_MD_MAX_LIST items per list,
 * MS_MD_MAX_METRICS metrics per group, names capped at MS_MD_NAME_MAX - 1.
 *
 * Ownership: each struct owns its vectors; the matching *_release frees
 * them and zeroes the struct (safe on a zeroed or released struct).
 */
#ifndef NNS_IMPORTERS_MS_MINDDATA_H
#define NNS_IMPORTERS_MS_MINDDATA_H

#include <stddef.h>
#include <stdint.h>

#include "common/err.h"
#include "common/vec.h"
#include "importers/ms_src.h"

#define MS_MD_FILE_MAX ((size_t)256 << 20)
#define MS_MD_MAX_RECORDS 10000000
#define MS_MD_MAX_OPS 10000
#define MS_MD_MAX_LIST 10000000
#define MS_MD_MAX_METRICS 16
#define MS_MD_NAME_MAX 64
#define MS_MD_PATH_MAX 4096

/* ---- device queue (host side) ---------------------------------------- */

struct ms_md_qrec {   /* a type-1 line */
	int64_t step; /* step number */
	int64_t capacity;
	int64_t size;
	double time; /* sampling time stamp (5th field); NAN when absent */
	size_t line; /* line in the file */
};

struct ms_md_trec { /* a type-0 line */
	int64_t step;
	double cost_ms;
	size_t line;
};

struct ms_md_dq {
	int present;				 /* a file was read */
	int from_dataset_iterator;		 /* the file was dataset_iterator_profiling_* */
	char path[MS_MD_PATH_MAX];		 /* the file read */
	VEC(struct ms_md_qrec) queue;		 /* file order */
	VEC(struct ms_md_trec) get, push, total; /* file order */
};

int ms_md_read_device_queue(const struct ms_src *s, struct ms_md_dq *out, struct nns_err *err);
int ms_md_parse_device_queue(const char *buf, size_t n, const char *name, struct ms_md_dq *out,
			     struct nns_err *err);
void ms_md_dq_release(struct ms_md_dq *q);

/* ---- GetNext (chip side) -------------------------------------------- */

struct ms_md_gnrec {
	int has_queue;	/* a 4th field was there */
	int64_t queue;	/* queue size */
	double cost_ms; /* (end - start) / 1e3, / 1e6 for the GPU file */
	size_t line;
};

struct ms_md_gn {
	int present;
	int gpu; /* 1: minddata_getnext_profiling_* (ns), 0: minddata_aicpu_* (us) */
	char path[MS_MD_PATH_MAX];
	VEC(struct ms_md_gnrec) rec; /* file order */
};

int ms_md_read_get_next(const struct ms_src *s, struct ms_md_gn *out, struct nns_err *err);
/* gpu: the time unit of the buffer is ns (else us). */
int ms_md_parse_get_next(const char *buf, size_t n, const char *name, int gpu, struct ms_md_gn *out,
			 struct nns_err *err);
void ms_md_gn_release(struct ms_md_gn *g);

/* ---- pipeline ops (minddata_pipeline_raw_<dev>.csv) ------------------ */

struct ms_md_op {
	int64_t op_id;
	char op_type[MS_MD_NAME_MAX];
	int64_t num_workers;
	int has_queue_size, has_avg, has_length, has_usage, has_parent, has_children;
	VEC(double) queue_size; /* output_queue_size samples */
	double avg;		/* output_queue_average_size */
	int64_t length;		/* output_queue_length */
	double usage;		/* output_queue_usage_rate */
	int64_t sample_interval;
	int64_t parent_id;
	VEC(int64_t) children; /* children_id */
};

struct ms_md_pipeline {
	int present;
	char path[MS_MD_PATH_MAX];
	VEC(struct ms_md_op) ops; /* file order (BFS from the root) */
};

/* The file's header, in its order: op_id, op_type, num_workers,
 * output_queue_size, output_queue_average_size, output_queue_length,
 * output_queue_usage_rate, sample_interval, parent_id, children_id. */
#define MS_MD_PIPELINE_NCOLS 10
extern const char *const ms_md_pipeline_cols[MS_MD_PIPELINE_NCOLS];

int ms_md_read_pipeline(const struct ms_src *s, struct ms_md_pipeline *out, struct nns_err *err);
int ms_md_parse_pipeline(const char *buf, size_t n, const char *name, struct ms_md_pipeline *out,
			 struct nns_err *err);
void ms_md_pipeline_release(struct ms_md_pipeline *p);
/* The index of op_id in p->ops (first match), or -1. */
long ms_md_pipeline_find(const struct ms_md_pipeline *p, int64_t op_id);

/* ---- CPU utilization (minddata_cpu_utilization_<dev>.json) ----------- */

struct ms_md_series {
	char name[MS_MD_NAME_MAX]; /* e.g. "user_utilization" */
	VEC(double) v;
};

struct ms_md_cpu_op {
	int64_t op_id;	     /* -1: not a pipeline op */
	int64_t num_workers; /* from pipeline_profiling_<dev>.json, -1 unknown */
	size_t nmetrics;
	struct ms_md_series metrics[MS_MD_MAX_METRICS];
};

struct ms_md_cpu {
	int present;
	char path[MS_MD_PATH_MAX];
	int has_sampling_interval, has_cpu_num;
	double sampling_interval;
	int64_t cpu_processor_num;
	VEC(double) time_stamp;
	size_t ndevice, nprocess;
	struct ms_md_series device[MS_MD_MAX_METRICS];	/* device_info, file order */
	struct ms_md_series process[MS_MD_MAX_METRICS]; /* process_info */
	VEC(struct ms_md_cpu_op) ops;			/* op_info, file order */
	int has_workers;				/* pipeline_profiling_<dev>.json was read */
};

/* Reads the CPU file and, when present, the worker counts of
 * pipeline_profiling_<dev>.json (absent: num_workers stays -1). */
int ms_md_read_cpu(const struct ms_src *s, struct ms_md_cpu *out, struct nns_err *err);
int ms_md_parse_cpu(const char *buf, size_t n, const char *name, struct ms_md_cpu *out,
		    struct nns_err *err);
/* Fills num_workers of out->ops from a pipeline_profiling JSON buffer. */
int ms_md_parse_pipeline_workers(const char *buf, size_t n, const char *name, struct ms_md_cpu *out,
				 struct nns_err *err);
void ms_md_cpu_release(struct ms_md_cpu *c);
/* The series named name in a group, or NULL. */
const struct ms_md_series *ms_md_series_find(const struct ms_md_series *g, size_t n,
					     const char *name);

/* ---- all of them ------------------------------------------------------ */

#define MS_MD_MAX_ERRORS 5

struct ms_md {
	struct ms_md_dq dq;
	struct ms_md_gn gn;
	struct ms_md_pipeline pl;
	struct ms_md_cpu cpu;
	int nerr; /* files that could not be read (their struct stays "absent") */
	struct nns_err errors[MS_MD_MAX_ERRORS];
};

/* 1 when s has at least one of the MindData files above. */
int ms_md_any(const struct ms_src *s);

/* Reads every MindData file of s; a file that fails leaves its part absent
 * and its message in errors[]. Returns the number of such files. */
int ms_md_load(struct ms_md *m, const struct ms_src *s);
void ms_md_release(struct ms_md *m);

/* ---- internal helpers shared by the ms_minddata*.c files ------------- */

/* Reads <dir>/<pre><dev><post> whole (capped at MS_MD_FILE_MAX) into a
 * NUL-terminated malloc'ed *buf. 0 read, 1 absent, or a negative NNS_E*
 * (err set). path (MS_MD_PATH_MAX bytes) receives the name. */
int ms_md_slurp(const struct ms_src *s, const char *pre, const char *post, char *path, char **buf,
		size_t *len, struct nns_err *err);

#endif
