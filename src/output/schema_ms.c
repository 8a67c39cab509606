/*
 * schema_ms.c - the MindSpore and cluster result tables, column by column
 * (schema.h): AI Core time by type and by operator, the step-trace rows
 * and summary, FLOPs per operator, AI CPU by type and by operator, the
 * dynamic-shape kernels, and the cluster view's ranks, steps, links,
 * stages and proposals. Their
 * rows are the ms_profile's (analysis/an_ms.h) and the cluster result's
 * (analysis/cluster.h); a name kept as an offset in its reader's string
 * list is read through the table's aux (the struct holding that list).
 * Same conventions as schema_tables.c.
 */
#include "output/schema_int.h"

#include "analysis/an_ms.h"
#include "analysis/cluster.h"

#include <math.h>

/* a C long at c->off (MindSpore's counts and steps) */
static void long_at(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	long l;

	(void)x;
	memcpy(&l, (const char *)row + c->off, sizeof(l));
	v->i = l;
}

/* a size_t at c->off */
static void size_at(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	size_t z;

	(void)x;
	memcpy(&z, (const char *)row + c->off, sizeof(z));
	v->i = (int64_t)z;
}

/* a double at c->off, null when not finite */
static void finite_at(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	double d;

	(void)x;
	memcpy(&d, (const char *)row + c->off, sizeof(d));
	if (isfinite(d))
		v->d = d;
	else
		set_null(v);
}

static size_t off_at(const struct sc_col *c, const void *row)
{
	size_t off;

	memcpy(&off, (const char *)row + c->off, sizeof(off));
	return off;
}

/* names at an offset in the string list of x->aux */
static void flops_str(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = ms_flops_str(x->aux, off_at(c, row));
}

static void aicpu_str(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = ms_aicpu_str(x->aux, off_at(c, row));
}

static void ds_str(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	v->s = ms_ds_str(x->aux, off_at(c, row));
}

/* ---- AI Core operators (ms_ops.json, ms_op_type.csv, ms_op_detail.csv) ---- */

static const struct sc_col msat_cols[] = {
    COL("kernel_type", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct ms_at_row, kernel_type, "Op type",
	"AI Core operator type"),
    COL("total_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_at_row, total_time_us, "Total µs",
	"time of the type's operators, µs"),
    FCOL("execution_frequency", SC_INT, SC_COUNT, long_at, struct ms_at_row, execution_frequency,
	 "Calls", "executions"),
    COL("avg_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_at_row, avg_time_us, "Avg µs",
	"mean time of one execution, µs"),
    COL("total_percent", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_at_row, total_percent, "Share",
	"MindSpore's share of all AI Core time, as its file gives it"),
};

const struct sc_table sc_ms_op_types = {"ms_op_types", "MindSpore AI Core operator time by type",
					msat_cols, NCOLS(msat_cols), sizeof(struct ms_at_row)};

static const struct sc_col msad_cols[] = {
    COL("op_name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct ms_ad_row, op_name, "Operator",
	"full operator name (scope)"),
    COL("kernel_name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct ms_ad_row, kernel_name, "Kernel",
	"kernel name"),
    COL("kernel_type", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct ms_ad_row, kernel_type, "Type",
	"operator type"),
    COL("avg_execution_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_ad_row, avg_execution_time_us,
	"Avg µs", "mean time of one execution, µs"),
    FCOL("execution_frequency", SC_INT, SC_COUNT, long_at, struct ms_ad_row, execution_frequency,
	 "Calls", "executions"),
};

const struct sc_table sc_ms_ops = {"ms_ops", "MindSpore AI Core operator time by operator",
				   msad_cols, NCOLS(msad_cols), sizeof(struct ms_ad_row)};

/* ---- step trace (steptrace.json of a MindSpore device) ------------------- */

static const struct sc_col msst_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct ms_step_row, name, "Step",
	"step_num (\"-\" for MindSpore's average row)"),
    COL("start_us", SC_REAL, SC_US, SC_F_DBL, struct ms_step_row, start_us, "Start µs",
	"start_point, µs"),
    COL("end_us", SC_REAL, SC_US, SC_F_DBL, struct ms_step_row, end_us, "End µs", "end_point, µs"),
    COL("iteration_interval_us", SC_REAL, SC_US, SC_F_DBL, struct ms_step_row, interval_us,
	"Interval µs", "iteration interval, µs"),
    COL("fp_bp_us", SC_REAL, SC_US, SC_F_DBL, struct ms_step_row, fp_bp_us, "FP+BP µs",
	"forward and backward, µs"),
    COL("tail_us", SC_REAL, SC_US, SC_F_DBL, struct ms_step_row, tail_us, "Tail µs", "tail, µs"),
    COL("total_us", SC_REAL, SC_US, SC_F_DBL, struct ms_step_row, total_us, "Total µs",
	"the step, µs"),
};

const struct sc_table sc_ms_steps = {"ms_steps", "MindSpore step trace per step", msst_cols,
				     NCOLS(msst_cols), sizeof(struct ms_step_row)};

static const struct sc_col mssum_cols[] = {
    COL("total_ms", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_st_summary, total_ms, "Step ms",
	"average step, ms"),
    COL("iteration_interval_ms", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_st_summary, interval_ms,
	"Interval ms", "average iteration interval, ms"),
    COL("iteration_interval_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_st_summary,
	interval_pct, "Interval %", "of the step"),
    COL("fp_bp_ms", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_st_summary, fp_bp_ms, "FP+BP ms",
	"average forward and backward, ms"),
    COL("fp_bp_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_st_summary, fp_bp_pct, "FP+BP %",
	"of the step"),
    COL("tail_ms", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_st_summary, tail_ms, "Tail ms",
	"average tail, ms"),
    COL("tail_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_st_summary, tail_pct, "Tail %",
	"of the step"),
    FCOL("total_steps", SC_INT, SC_COUNT, size_at, struct ms_st_summary, total_steps, "Steps",
	 "data rows of the step trace"),
};

const struct sc_table sc_ms_step_summary = {
    "ms_step_summary", "MindInsight's step-trace summary of a device", mssum_cols,
    NCOLS(mssum_cols), sizeof(struct ms_st_summary)};

/* ---- FLOPs (ms_flops.json): the summary, and per operator with aux =
 * struct ms_flops ----------------------------------------------------------- */

static const struct sc_col msfs_cols[] = {
    COL("mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_summary, mflops, "MFLOPs",
	"FLOPs, in millions"),
    COL("gflops_per_s", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_summary, gflops, "GFLOPS",
	"GFLOP/s"),
    COL("utilization_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_flops_summary, util_pct,
	"Util %", "FLOPS utilization"),
    COL("cube_mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_summary, mflops_cube,
	"Cube MFLOPs", "cube unit MFLOPs"),
    COL("vector_mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_summary, mflops_vec,
	"Vector MFLOPs", "vector unit MFLOPs"),
    COL("cube_gflops_per_s", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_summary, gflops_cube,
	"Cube GFLOPS", "cube unit GFLOP/s"),
    COL("vector_gflops_per_s", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_summary, gflops_vec,
	"Vector GFLOPS", "vector unit GFLOP/s"),
};

const struct sc_table sc_ms_flops_summary = {"ms_flops_summary", "MindSpore FLOPs of a device",
					     msfs_cols, NCOLS(msfs_cols),
					     sizeof(struct ms_flops_summary)};

static const struct sc_col msfl_cols[] = {
    FCOL("op_full_name", SC_TEXT, SC_PLAIN, flops_str, struct ms_flops_op, name, "Operator",
	 "full operator name"),
    COL("mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_op, mflops, "MFLOPs", "MFLOPs"),
    COL("gflops_per_s", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_op, gflops, "GFLOPS",
	"GFLOP/s"),
    COL("utilization_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_flops_op, util_pct,
	"Util %", "FLOPS utilization"),
    COL("cube_mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_op, mflops_cube, "Cube MFLOPs",
	"cube unit MFLOPs"),
    COL("cube_gflops_per_s", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_op, gflops_cube,
	"Cube GFLOPS", "cube unit GFLOP/s"),
    COL("cube_utilization_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_flops_op,
	util_cube_pct, "Cube util %", "cube unit utilization"),
    COL("vector_mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_op, mflops_vec,
	"Vector MFLOPs", "vector unit MFLOPs"),
    COL("vector_gflops_per_s", SC_REAL, SC_PLAIN, SC_F_DBL, struct ms_flops_op, gflops_vec,
	"Vector GFLOPS", "vector unit GFLOP/s"),
    COL("vector_utilization_percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_flops_op,
	util_vec_pct, "Vector util %", "vector unit utilization"),
};

const struct sc_table sc_ms_flops_ops = {"ms_flops_ops", "MindSpore FLOPs per operator", msfl_cols,
					 NCOLS(msfl_cols), sizeof(struct ms_flops_op)};

/* ---- AI CPU (ms_aicpu.json), aux = struct ms_aicpu ------------------------ */

static const struct sc_col msct_cols[] = {
    FCOL("kernel_type", SC_TEXT, SC_PLAIN, aicpu_str, struct ms_aicpu_type, type, "Op type",
	 "AI CPU operator type"),
    COL("total_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_aicpu_type, total_time_us, "Total µs",
	"time of the type's operators, µs"),
    FCOL("execution_frequency", SC_INT, SC_COUNT, long_at, struct ms_aicpu_type,
	 execution_frequency, "Calls", "executions"),
    COL("percent", SC_REAL, SC_PERCENT, SC_F_DBL, struct ms_aicpu_type, percent, "Share",
	"share of all AI CPU time"),
};

const struct sc_table sc_ms_aicpu_types = {"ms_aicpu_types", "MindSpore AI CPU time by type",
					   msct_cols, NCOLS(msct_cols),
					   sizeof(struct ms_aicpu_type)};

static const struct sc_col msco_cols[] = {
    FCOL("kernel_name", SC_TEXT, SC_PLAIN, aicpu_str, struct ms_aicpu_op, name, "Kernel",
	 "kernel name"),
    FCOL("kernel_type", SC_TEXT, SC_PLAIN, aicpu_str, struct ms_aicpu_op, type, "Type",
	 "operator type"),
    COL("avg_execution_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_aicpu_op,
	avg_execution_time_us, "Avg µs", "mean time of one execution, µs"),
    COL("avg_dispatch_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_aicpu_op, avg_dispatch_time_us,
	"Dispatch µs", "mean dispatch time, µs"),
    FCOL("execution_frequency", SC_INT, SC_COUNT, long_at, struct ms_aicpu_op, execution_frequency,
	 "Calls", "executions"),
};

const struct sc_table sc_ms_aicpu_ops = {"ms_aicpu_ops", "MindSpore AI CPU time by operator",
					 msco_cols, NCOLS(msco_cols), sizeof(struct ms_aicpu_op)};

/* ---- dynamic shape (ms_dynshape.json), aux = struct ms_ds ----------------- */

/* the operators' scalar columns (their "shapes" list is written beside) */
static const struct sc_col msdo_cols[] = {
    FCOL("step", SC_INT, SC_COUNT, long_at, struct ms_ds_op, step, "Step", "step"),
    FCOL("op_side", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_op, side, "Side", "host or device"),
    FCOL("op_type", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_op, type, "Type", "operator type"),
    FCOL("op_name", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_op, name, "Operator", "operator name"),
    COL("duration_us", SC_REAL, SC_US, SC_F_DBL, struct ms_ds_op, dur_us, "µs", "duration, µs"),
};

const struct sc_table sc_ms_ds_ops = {"ms_ds_ops", "MindSpore dynamic-shape operators", msdo_cols,
				      NCOLS(msdo_cols), sizeof(struct ms_ds_op)};

static const struct sc_col msdk_cols[] = {
    FCOL("step", SC_INT, SC_COUNT, long_at, struct ms_ds_kernel, step, "Step", "step"),
    FCOL("op_type", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_kernel, type, "Type", "operator type"),
    FCOL("op_name", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_kernel, name, "Operator",
	 "operator name"),
    FCOL("op_full_name", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_kernel, full_name, "Full name",
	 "full operator name"),
    COL("duration_us", SC_REAL, SC_US, SC_F_DBL, struct ms_ds_kernel, dur_us, "µs", "duration, µs"),
    FCOL("block_dim", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_kernel, block_dim, "Block dim",
	 "block dimensions"),
    FCOL("grid_dim", SC_TEXT, SC_PLAIN, ds_str, struct ms_ds_kernel, grid_dim, "Grid dim",
	 "grid dimensions"),
};

const struct sc_table sc_ms_ds_kernels = {"ms_ds_kernels", "MindSpore dynamic-shape kernels",
					  msdk_cols, NCOLS(msdk_cols), sizeof(struct ms_ds_kernel)};

/* ---- cluster links and stages (cluster.json) ------------------------------ */

static const struct sc_col cll_cols[] = {
    COL("reported_by", SC_INT, SC_PLAIN, SC_F_I32, struct cl_link, reporter, "Reported by",
	"the rank whose hccl_raw file holds the link"),
    COL("src_rank", SC_INT, SC_PLAIN, SC_F_I32, struct cl_link, src, "Source", "source rank"),
    COL("dst_rank", SC_INT, SC_PLAIN, SC_F_I32, struct cl_link, dst, "Destination",
	"destination rank"),
    COL("link_type", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct cl_link, type, "Link", "link type"),
    COL("time_us", SC_REAL, SC_US, SC_F_DBL, struct cl_link, time_us, "µs", "transfer time, µs"),
    COL("size_kb", SC_REAL, SC_PLAIN, SC_F_DBL, struct cl_link, size_kb, "KB", "size, KB"),
    COL("bandwidth_kbps", SC_REAL, SC_PLAIN, SC_F_DBL, struct cl_link, bw_kbps, "KB/s",
	"bandwidth, KB/s"),
};

const struct sc_table sc_cluster_links = {"cluster_links", "communication links of a cluster",
					  cll_cols, NCOLS(cll_cols), sizeof(struct cl_link)};

static const struct sc_col cls_cols[] = {
    COL("stage", SC_INT, SC_PLAIN, SC_F_I32, struct cl_stage, stage, "Stage", "pipeline stage"),
    COL("ranks", SC_INT, SC_COUNT, SC_F_I32, struct cl_stage, ranks, "Ranks", "ranks in it"),
    COL("iteration_interval_us", SC_REAL, SC_US, SC_F_DBL, struct cl_stage, interval_avg_us,
	"Interval µs", "mean iteration interval of its ranks, µs"),
    COL("flops_mflops", SC_REAL, SC_PLAIN, SC_F_DBL, struct cl_stage, flops_avg, "MFLOPs",
	"mean FLOPs of its ranks"),
    FCOL("within_stage_rate", SC_REAL, SC_RATIO, finite_at, struct cl_stage, within_comm_rate,
	 "Within-stage rate",
	 "collective time alone / (computation + communication); null when "
	 "not pipelined"),
};

const struct sc_table sc_cluster_stages = {"cluster_stages", "pipeline stages of a cluster",
					   cls_cols, NCOLS(cls_cols), sizeof(struct cl_stage)};

/* ---- cluster ranks, their steps and the proposals (cluster.json, cluster.csv) */

/* a char array at c->off, left out when empty */
static void chars_or_omit(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			  struct sc_val *v)
{
	(void)x;
	v->s = (const char *)row + c->off;
	if (!*v->s)
		set_omit(v);
}

/* a µs double at c->off, left out when not finite */
static void us_finite_or_omit(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			      struct sc_val *v)
{
	double d;

	(void)x;
	memcpy(&d, (const char *)row + c->off, sizeof(d));
	if (isfinite(d))
		set_us_d(v, d);
	else
		set_omit(v);
}

/* The double at c->off (also in ns for a µs column) when the row has it
 * (have); else null, or left out when omit. */
static void dbl_if(const struct sc_col *c, const void *row, struct sc_val *v, int have, int omit)
{
	if (!have) {
		if (omit)
			set_omit(v);
		else
			set_null(v);
		return;
	}
	memcpy(&v->d, (const char *)row + c->off, sizeof(v->d));
	if (c->unit == SC_US)
		v->ns = v->d * 1000.0;
}

/* the average step's phases: null without a step trace */
static void rk_phase(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	dbl_if(c, row, v, ((const struct cl_rank *)row)->has_steptrace, 0);
}

/* communication (hccl_raw or nnscope's comm ops) and FLOPs: left out
 * without them */
static void rk_comm(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	dbl_if(c, row, v, ((const struct cl_rank *)row)->has_comm, 1);
}

static void rk_comm_ops(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			struct sc_val *v)
{
	const struct cl_rank *r = row;

	if (r->has_comm)
		v->i = (int64_t)r->comm_ops;
	else
		set_omit(v);
}

static void rk_flops(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	dbl_if(c, row, v, ((const struct cl_rank *)row)->has_flops, 1);
}

#define RK(n, ty, un, fn, field, title, doc) FCOL(n, ty, un, fn, struct cl_rank, field, title, doc)

/* the rank's scalar members; its "bottleneck_us" and "steps" are written
 * beside */
static const struct sc_col clr_cols[] = {
    COL("rank", SC_INT, SC_PLAIN, SC_F_I32, struct cl_rank, rank, "Rank", "rank"),
    COL("host", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct cl_rank, host, "Host", "host name"),
    RK("worker", SC_TEXT, SC_PLAIN, chars_or_omit, worker, "Worker",
       "nnscope worker; left out for MindSpore jobs"),
    COL("stage", SC_INT, SC_PLAIN, SC_F_I32, struct cl_rank, stage, "Stage",
	"1-based pipeline stage, 1 when not pipelined"),
    RK("clock_sync", SC_TEXT, SC_PLAIN, chars_or_omit, clock_sync, "Clock",
       "\"ntp\" or \"unsynced\"; left out when unknown"),
    RK("clock_error_us", SC_REAL, SC_US, us_finite_or_omit, clock_error_us, "Clock error µs",
       "the clock's maximum error, µs; left out when unknown"),
    RK("iteration_interval_us", SC_REAL, SC_US, rk_phase, interval_us, "Interval µs",
       "the average step's iteration interval, µs; null without a step trace"),
    RK("fp_bp_us", SC_REAL, SC_US, rk_phase, fp_bp_us, "FP+BP µs", "... forward and backward, µs"),
    RK("tail_us", SC_REAL, SC_US, rk_phase, tail_us, "Tail µs", "... tail, µs"),
    RK("total_us", SC_REAL, SC_US, rk_phase, total_us, "Total µs", "... whole step, µs"),
    RK("communication_us", SC_REAL, SC_US, rk_comm, comm_cost_us, "Comm µs",
       "communication per step, µs; left out without communication data"),
    RK("wait_us", SC_REAL, SC_US, rk_comm, wait_cost_us, "Wait µs",
       "waiting in communication per step (MindSpore), µs"),
    FNC("communication_ops", SC_INT, SC_COUNT, rk_comm_ops, "Comm ops", "communication operations"),
    RK("flops_mflops", SC_REAL, SC_PLAIN, rk_flops, flops, "MFLOPs",
       "FLOPs, MFLOPs; left out without FLOPs data"),
    RK("flops_per_s_gflops", SC_REAL, SC_PLAIN, rk_flops, flops_per_s, "GFLOPS",
       "FLOPs per second, GFLOPS"),
};

const struct sc_table sc_cluster_ranks = {"cluster_ranks", "ranks of a cluster (the average step)",
					  clr_cols, NCOLS(clr_cols), sizeof(struct cl_rank)};

/* a step's "bottleneck_us" is written beside */
static const struct sc_col clst_cols[] = {
    COL("step", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct cl_step, name, "Step", "step name"),
    FCOL("start_us", SC_REAL, SC_US, us_finite_or_omit, struct cl_step, start_us, "Start µs",
	 "start relative to the earliest step of any rank, µs; left out when the clocks are "
	 "not aligned"),
    COL("iteration_interval_us", SC_REAL, SC_US, SC_F_DBL, struct cl_step, interval_us,
	"Interval µs", "iteration interval, µs"),
    COL("fp_bp_us", SC_REAL, SC_US, SC_F_DBL, struct cl_step, fp_bp_us, "FP+BP µs",
	"forward and backward, µs"),
    COL("tail_us", SC_REAL, SC_US, SC_F_DBL, struct cl_step, tail_us, "Tail µs", "tail, µs"),
    COL("total_us", SC_REAL, SC_US, SC_F_DBL, struct cl_step, total_us, "Total µs",
	"whole step, µs"),
};

const struct sc_table sc_cluster_steps = {"cluster_steps", "steps of one rank of a cluster",
					  clst_cols, NCOLS(clst_cols), sizeof(struct cl_step)};

/* A proposal's member that only some proposals have: present when the
 * proposal has the CL_HAS_ bit the column's function names. */
static int pr_has(const void *row, unsigned bit, struct sc_val *v)
{
	if (((const struct cl_proposal *)row)->has & bit)
		return 1;
	set_omit(v);
	return 0;
}

static void pr_int(const struct sc_col *c, const void *row, struct sc_val *v, unsigned bit)
{
	int i;

	if (!pr_has(row, bit, v))
		return;
	memcpy(&i, (const char *)row + c->off, sizeof(i));
	v->i = i;
}

static void pr_dbl(const struct sc_col *c, const void *row, struct sc_val *v, unsigned bit)
{
	dbl_if(c, row, v, (((const struct cl_proposal *)row)->has & bit) != 0, 1);
}

#define PR_FN(name, kind, bit)                                                                     \
	static void name(const struct sc_col *c, const void *row, const struct sc_ctx *x,          \
			 struct sc_val *v)                                                         \
	{                                                                                          \
		(void)x;                                                                           \
		kind(c, row, v, bit);                                                              \
	}
PR_FN(pr_stage, pr_int, CL_HAS_STAGE)
PR_FN(pr_link_int, pr_int, CL_HAS_LINK)
PR_FN(pr_pct, pr_dbl, CL_HAS_PERCENT)
PR_FN(pr_thr, pr_dbl, CL_HAS_THRESHOLD)
PR_FN(pr_excess, pr_dbl, CL_HAS_EXCESS)

static void pr_rank(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	if (pr_has(row, CL_HAS_RANK, v))
		v->i = ((const struct cl_proposal *)row)->rank;
}

static void pr_link_type(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			 struct sc_val *v)
{
	if (pr_has(row, CL_HAS_LINK, v))
		v->s = ((const struct cl_proposal *)row)->link_type;
}

/* the host (c->off 0) or worker (1) of the proposal's rank (aux = the
 * cl_result), left out when it has none */
static void pr_where(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	const struct cl_proposal *p = row;
	const struct cl_rank *r = NULL;

	if (p->has & CL_HAS_RANK)
		r = cl_find_rank(x->aux, p->rank);
	v->s = !r ? "" : c->off ? r->worker : r->host;
	if (!*v->s)
		set_omit(v);
}

#define PR(n, ty, un, fn, field, title, doc)                                                       \
	FCOL(n, ty, un, fn, struct cl_proposal, field, title, doc)

static const struct sc_col clp_cols[] = {
    COL("id", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct cl_proposal, id, "Proposal",
	"slow_rank, slow_link, ..."),
    COL("text", SC_TEXT, SC_PLAIN, SC_F_PSTR, struct cl_proposal, text, "Text",
	"the proposal in words"),
    FNC("rank", SC_INT, SC_PLAIN, pr_rank, "Rank", "the rank it names; left out when none"),
    {"host", SC_TEXT, SC_PLAIN, SC_F_FN, 0, pr_where, "Host", "that rank's host"},
    {"worker", SC_TEXT, SC_PLAIN, SC_F_FN, 1, pr_where, "Worker", "that rank's worker"},
    PR("stage", SC_INT, SC_PLAIN, pr_stage, stage, "Stage",
       "the stage it names; left out when none"),
    PR("src_rank", SC_INT, SC_PLAIN, pr_link_int, src, "Source",
       "the link's source rank; left out when no link"),
    PR("dst_rank", SC_INT, SC_PLAIN, pr_link_int, dst, "Destination", "... destination rank"),
    PR("reported_by", SC_INT, SC_PLAIN, pr_link_int, reporter, "Reported by",
       "... the rank whose hccl_raw file holds it"),
    FNC("link_type", SC_TEXT, SC_PLAIN, pr_link_type, "Link", "... link type"),
    COL("value", SC_REAL, SC_PLAIN, SC_F_DBL, struct cl_proposal, val, "Value", "in unit"),
    COL("unit", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct cl_proposal, unit, "Unit",
	"\"ms\", \"KB/s\", \"MFLOPs\", \"GFLOPS\", \"%\""),
    PR("percent", SC_REAL, SC_PLAIN, pr_pct, percent, "%",
       "percent above or below the average; left out when none"),
    PR("threshold_percent", SC_REAL, SC_PLAIN, pr_thr, threshold, "Threshold %",
       "the threshold crossed, percent"),
    PR("value_us", SC_REAL, SC_US, pr_excess, val_us, "Value µs",
       "slow ranks: the rank's value, µs"),
    PR("mean_us", SC_REAL, SC_US, pr_excess, mean_us, "Mean µs", "... the mean of all ranks, µs"),
    PR("excess_us", SC_REAL, SC_US, pr_excess, excess_us, "Excess µs",
       "... its excess over the mean of the other ranks, µs"),
};

const struct sc_table sc_cluster_proposals = {
    "cluster_proposals", "proposals for a cluster (MindInsight's proposer)", clp_cols,
    NCOLS(clp_cols), sizeof(struct cl_proposal)};
