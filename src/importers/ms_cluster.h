/*
 * ms_cluster.h - a MindSpore/MindInsight cluster profiling job: discovery
 * of the per-rank files and small parsers for the cluster inputs of
 * MindInsight's cluster pages and parallel proposer (reference
 * mindinsight.md §1 "Cluster performance", §2):
 *   step_trace_raw_<r>_detail_time.csv   step trace, 10 ns system counts
 *   ascend_cluster_analyse_<mode>_<stages>_<ranks>_<r>.csv  (or gpu_...)
 *                                        per-step computation/communication, ms
 *   hccl_raw_<r>.csv                     communication per link (JSON cells)
 *   flops_summary_<r>.json               FLOPs / FLOPS of the rank
 * Two layouts: the new one (every rank's files in one directory, the
 * directory given or its profiler/ subdirectory) and the old one
 * (hccl.json + host_ips_mapping.txt + cluster_profiler/<N>/profiler/, where
 * N is the host's mapped id, used as the rank's "host").
 *
 * In every per-step table the LAST data row is the average row (as
 * MindInsight reads it: step 0 = last line, step k = data row k).
 *
 * Bounds: at most MSC_MAX_RANKS ranks, MSC_FILE_MAX bytes per file,
 * MSC_MAX_ROWS rows per table, MSC_MAX_COLS columns per row.
 *
 * Ownership: struct msc_job owns everything reachable from it;
 * msc_release() frees it. No function keeps a pointer to its arguments.
 */
#ifndef NNS_IMPORTERS_MS_CLUSTER_H
#define NNS_IMPORTERS_MS_CLUSTER_H

#include "common/err.h"
#include "common/vec.h"

#include <stddef.h>
#include <stdint.h>

#define MSC_MAX_RANKS 4096
#define MSC_MAX_ROWS 1000000
#define MSC_MAX_COLS 16
#define MSC_FILE_MAX ((size_t)512 << 20)
#define MSC_HOST_MAX 64

/* One step_trace_raw row; times in 10 ns system counts as in the file. */
struct msc_st_row {
	char step[16]; /* "1", ..., "-" or "0" for the average row */
	double total, interval, fp_bp, tail;
};

/* One link of an hccl_raw row ("src-dst": {"SDMA": [ms, KB, KB/s(, wait)]}). */
struct msc_link {
	int src, dst;
	char type[8];	/* "SDMA", "RDMA", ... */
	double time_ms; /* communication cost */
	double size_kb; /* bytes moved, KB */
	double bw_kbps; /* band width, KB/s */
};

/* One communication operator of the average hccl_raw row. */
struct msc_op {
	char name[96];
	double cost_ms, wait_ms;
};

struct msc_rank {
	int rank;
	char host[MSC_HOST_MAX];   /* mapped host id (old layout / hccl.json), "" if unknown */
	VEC(struct msc_st_row) st; /* step trace rows, last = average */
	int has_st;
	VEC(double) cl; /* cluster csv cells, row-major, cl_cols per row; last row = average */
	int cl_cols;
	int has_cl;
	double flops, flops_per_s, flops_util; /* flops_summary (MFLOPs, GFLOPS, %) */
	int has_flops;
	double comm_cost_ms, wait_cost_ms; /* hccl_raw average row */
	VEC(struct msc_link) links;	   /* hccl_raw average row */
	VEC(struct msc_op) ops;		   /* hccl_raw average row */
	int has_hccl;
	char problem[160]; /* the first file of this rank that could not be read */
};

struct msc_job {
	char device[8]; /* "ascend" or "gpu" (cluster csv prefix), "" if none */
	char mode[24];	/* "data-parallel" (default), "model-parallel", "pipeline-parallel" */
	int stage_num;	/* 1 if unknown */
	int rank_size;	/* from the cluster csv names, else the number of ranks */
	int old_layout; /* hccl.json + cluster_profiler/ */
	VEC(struct msc_rank) ranks; /* sorted by rank */
	size_t problems;	    /* files that could not be read */
	char note[256];		    /* first problem, "" if none */
};

/* 1 if path is a MindSpore cluster job: a directory (or its profiler/)
 * holding step_trace_raw_<r>_detail_time.csv of at least two ranks or an
 * ascend/gpu_cluster_analyse csv, or the old layout (cluster_profiler/). */
int msc_is_cluster(const char *path);

/* 1 if dir itself is a job: it directly holds the new layout's files, or
 * cluster_profiler/ (no profiler/ indirection). */
int msc_dir_is_job(const char *dir);

/* Walks root (at most max_depth levels, MSC_WALK_ENTRIES_MAX entries and
 * MSC_WALK_JOBS_MAX jobs; no symbolic links to directories, no hidden
 * directories) and calls fn(ctx, path, rel) for each job found: root itself
 * when msc_is_cluster(root) says so (rel ""), else every directory for
 * which msc_dir_is_job() holds (rel its path under root), not descending
 * into a job. A non-zero return from fn stops the walk and is returned.
 * Returns 0 otherwise (also when nothing was found; *found counts jobs). */
#define MSC_WALK_ENTRIES_MAX 200000
#define MSC_WALK_JOBS_MAX 1024
typedef int (*msc_job_fn)(void *ctx, const char *path, const char *rel);
int msc_find_jobs(const char *root, int max_depth, msc_job_fn fn, void *ctx, size_t *found);

/* Loads every rank of the job at path, parsing ranks in parallel on up to
 * threads threads (0 = one per CPU, at most 16). Files that are absent
 * leave the has_* flag 0; files that are damaged are counted in problems
 * with the first one in note and the rank's problem. NNS_OK, NNS_ENOTFOUND
 * (no rank found), NNS_ENOMEM, NNS_EIO. */
int msc_load(struct msc_job *j, const char *path, int threads, struct nns_err *err);
void msc_release(struct msc_job *j);

/* The same with every directory and file opened beneath fsr (common/fs.h,
 * the server's logdir; NULL: as given): a file or directory that resolves
 * outside it is not read (a refused file is the rank's problem, "<name>:
 * refused: resolves outside <root>"). Paths are given as for the
 * functions above (the root's path followed by "/..."). */
struct fs_root;
int msc_is_cluster_in(const struct fs_root *fsr, const char *path);
int msc_find_jobs_in(const struct fs_root *fsr, const char *root, int max_depth, msc_job_fn fn,
		     void *ctx, size_t *found);
int msc_load_in(struct msc_job *j, const struct fs_root *fsr, const char *path, int threads,
		struct nns_err *err);

/* The per-file parsers (buffers need not be NUL-terminated). NNS_OK or
 * NNS_EFORMAT / NNS_ENOMEM with err naming what is wrong. */
int msc_parse_step_trace(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err);
int msc_parse_cluster_csv(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err);
int msc_parse_hccl(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err);
int msc_parse_flops(struct msc_rank *r, const char *buf, size_t n, struct nns_err *err);

/* Parses "ascend_cluster_analyse_<mode>_<stages>_<ranks>_<rank>.csv";
 * 0 if name matches (outputs filled), -1 otherwise. */
int msc_cluster_name(const char *name, char *device, size_t dsize, char *mode, size_t msize,
		     int *stages, int *ranks, int *rank);

#endif
