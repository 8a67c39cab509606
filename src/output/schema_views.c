/*
 * schema_views.c - the result tables of the per-worker views beyond the
 * SPEC §4 contract, column by column (schema.h): step trace, data
 * pipeline, CPU, host_info, HTA temporal breakdown and idle time (the
 * MindSpore ones are in schema_ms.c). Same conventions as
 * schema_tables.c.
 */
#include "output/schema_int.h"

#include "analysis/hta_launch.h"
#include "analysis/hta_time.h"

#include <stdio.h>

/* ---- step trace (steptrace.json) ------------------------------------------ */

static void st_total(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	const struct an_steptrace_row *r = row;

	set_us(v, r->end - r->start);
}

static const struct sc_col st_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct an_steptrace_row, name, "Step",
	"step number"),
    COL("start_us", SC_REAL, SC_US, SC_F_NS, struct an_steptrace_row, start, "Start µs",
	"step start, µs"),
    COL("end_us", SC_REAL, SC_US, SC_F_NS, struct an_steptrace_row, end, "End µs", "step end, µs"),
    COL("iteration_interval_us", SC_REAL, SC_US, SC_F_NS, struct an_steptrace_row,
	iteration_interval, "Interval µs", "step start to the first compute operator, µs"),
    COL("fp_bp_us", SC_REAL, SC_US, SC_F_NS, struct an_steptrace_row, fp_bp, "FP+BP µs",
	"forward and backward, µs"),
    COL("tail_us", SC_REAL, SC_US, SC_F_NS, struct an_steptrace_row, tail, "Tail µs",
	"after the last backward operator, µs"),
    FNC("total_us", SC_REAL, SC_US, st_total, "Total µs", "end_us - start_us"),
};

const struct sc_table sc_steptrace = {"steptrace", "MindInsight-style step trace per step", st_cols,
				      NCOLS(st_cols), sizeof(struct an_steptrace_row)};

/* ---- data pipeline (datapipe.json, data_pipeline.csv) -------------------- */

static void q_capacity(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	const struct an_queue *q = row;

	if (q->capacity > 0)
		v->i = q->capacity;
	else
		set_null(v);
}

static void q_util(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	const struct an_queue *q = row;

	if (q->utilization < 0)
		set_null(v);
	else
		v->d = c->unit == SC_PERCENT ? 100.0 * q->utilization : q->utilization;
}

static void q_pct(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	double r;

	memcpy(&r, (const char *)row + c->off, sizeof(r));
	v->d = 100.0 * r;
}

static void q_role(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	v->s = ((const struct an_queue *)row)->consumer ? "consumer" : "producer";
}

static void q_verdict(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct an_datapipe *d = x ? x->aux : NULL;

	v->s = ((const struct an_queue *)row)->consumer && d ? d->verdict : "";
}

static const struct sc_col dpq_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_queue, name, "Queue", "queue name"),
    COL("consumer", SC_BOOL, SC_PLAIN, SC_F_I32, struct an_queue, consumer, "Consumer",
	"the queue the training loop takes from"),
    FNC("role", SC_TEXT, SC_PLAIN, q_role, "Role", "\"consumer\" or \"producer\""),
    COL("samples", SC_INT, SC_COUNT, SC_F_I64, struct an_queue, samples, "Samples", "size samples"),
    COL("avg_size", SC_REAL, SC_PLAIN, SC_F_DBL, struct an_queue, avg_size, "Avg size",
	"mean queue size"),
    COL("max_size", SC_INT, SC_COUNT, SC_F_I64, struct an_queue, max_size, "Max size",
	"largest queue size"),
    FNC("capacity", SC_INT, SC_COUNT, q_capacity, "Capacity",
	"largest capacity reported, null if never"),
    FNC("utilization", SC_REAL, SC_RATIO, q_util, "Utilization",
	"avg_size / capacity, 0..1, null when the capacity is unknown"),
    FNC("utilization_pct", SC_REAL, SC_PERCENT, q_util, "Utilization %", "the same in percent"),
    COL("empty_count", SC_INT, SC_COUNT, SC_F_I64, struct an_queue, empty_count, "Empty",
	"samples with size 0"),
    COL("full_count", SC_INT, SC_COUNT, SC_F_I64, struct an_queue, full_count, "Full",
	"samples at capacity"),
    COL("empty_ratio", SC_REAL, SC_RATIO, SC_F_DBL, struct an_queue, empty_ratio, "Empty share",
	"empty samples / samples, 0..1"),
    COL("full_ratio", SC_REAL, SC_RATIO, SC_F_DBL, struct an_queue, full_ratio, "Full share",
	"full samples / samples, 0..1"),
    FCOL("empty_pct", SC_REAL, SC_PERCENT, q_pct, struct an_queue, empty_ratio, "Empty %",
	 "empty samples, percent"),
    FCOL("full_pct", SC_REAL, SC_PERCENT, q_pct, struct an_queue, full_ratio, "Full %",
	 "full samples, percent"),
    FNC("verdict", SC_TEXT, SC_PLAIN, q_verdict, "Verdict",
	"the pipeline's verdict, on the consumer queue"),
};

const struct sc_table sc_dp_queues = {"datapipe_queues", "data-pipeline queues", dpq_cols,
				      NCOLS(dpq_cols), sizeof(struct an_queue)};

static void dps_dur(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	const struct an_dp_step *s = row;

	set_us(v, s->end - s->start);
}

static void dps_wait_ratio(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			   struct sc_val *v)
{
	const struct an_dp_step *s = row;
	int64_t dur = s->end - s->start;

	v->d = dur > 0 ? (double)s->wait / (double)dur : 0.0;
}

static const struct sc_col dps_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct an_dp_step, name, "Step", "step number"),
    COL("start_us", SC_REAL, SC_US, SC_F_NS, struct an_dp_step, start, "Start µs",
	"the step's host range: start, µs"),
    COL("end_us", SC_REAL, SC_US, SC_F_NS, struct an_dp_step, end, "End µs",
	"the step's host range: end, µs"),
    FNC("duration_us", SC_REAL, SC_US, dps_dur, "Duration µs", "end_us - start_us"),
    COL("dataloader_us", SC_REAL, SC_US, SC_F_NS, struct an_dp_step, dataloader, "DataLoader µs",
	"DataLoader ranges inside the step (merged), µs"),
    COL("queue_empty_us", SC_REAL, SC_US, SC_F_NS, struct an_dp_step, queue_empty, "Queue empty µs",
	"time the consumer queue stayed empty, µs"),
    COL("wait_us", SC_REAL, SC_US, SC_F_NS, struct an_dp_step, wait, "Wait µs",
	"time the step waited for data, µs"),
    FNC("wait_ratio", SC_REAL, SC_RATIO, dps_wait_ratio, "Wait share", "wait_us / duration_us"),
    COL("samples", SC_INT, SC_COUNT, SC_F_I64, struct an_dp_step, samples, "Samples",
	"consumer queue samples inside the step"),
    COL("empty_samples", SC_INT, SC_COUNT, SC_F_I64, struct an_dp_step, empty_samples,
	"Empty samples", "of them, empty"),
};

const struct sc_table sc_dp_steps = {"datapipe_steps", "how much of each step waited for data",
				     dps_cols, NCOLS(dps_cols), sizeof(struct an_dp_step)};

/* ---- CPU (cpu.json) -------------------------------------------------------- */

static void opt_str(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	uint32_t id;

	memcpy(&id, (const char *)row + c->off, sizeof(id));
	if (!id)
		v->s = NULL;
	else
		v->s = x && x->m && id != STRPOOL_NONE ? model_str(x->m, id) : "";
}

static const struct sc_col cput_cols[] = {
    COL("tid", SC_INT, SC_PLAIN, SC_F_I64, struct an_cpu_thread, tid, "Tid", "thread id"),
    FCOL("name", SC_TEXT, SC_PLAIN, opt_str, struct an_cpu_thread, name, "Thread",
	 "thread name, null if none"),
    COL("samples", SC_INT, SC_COUNT, SC_F_I64, struct an_cpu_thread, avg.samples, "Samples",
	"CPU samples"),
    COL("user", SC_REAL, SC_PERCENT, SC_F_DBL, struct an_cpu_thread, avg.user, "User",
	"user time, percent of one CPU"),
    COL("sys", SC_REAL, SC_PERCENT, SC_F_DBL, struct an_cpu_thread, avg.sys, "Sys",
	"system time, percent of one CPU"),
};

const struct sc_table sc_cpu_threads = {"cpu_threads", "CPU use per thread", cput_cols,
					NCOLS(cput_cols), sizeof(struct an_cpu_thread)};

static const struct sc_col cpus_cols[] = {
    FCOL("name", SC_TEXT, SC_PLAIN, opt_str, struct an_cpu_stage, name, "Stage",
	 "thread name shared by the stage's threads"),
    COL("threads", SC_INT, SC_COUNT, SC_F_I32, struct an_cpu_stage, threads, "Threads", "threads"),
    COL("user", SC_REAL, SC_PERCENT, SC_F_DBL, struct an_cpu_stage, user, "User",
	"sum of the threads' user time, percent of one CPU"),
    COL("sys", SC_REAL, SC_PERCENT, SC_F_DBL, struct an_cpu_stage, sys, "Sys",
	"sum of the threads' system time, percent of one CPU"),
    COL("per_thread", SC_REAL, SC_PERCENT, SC_F_DBL, struct an_cpu_stage, per_thread, "Per thread",
	"(user + sys) / threads"),
    COL("advice", SC_TEXT, SC_PLAIN, SC_F_PSTR, struct an_cpu_stage, advice, "Advice",
	"what to do about it, null if nothing"),
};

const struct sc_table sc_cpu_stages = {"cpu_stages", "CPU use per pipeline stage", cpus_cols,
				       NCOLS(cpus_cols), sizeof(struct an_cpu_stage)};

static void cs_series(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = x && x->aux ? x->aux : "";
}

static void cs_time(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	set_us(v, ((const struct an_cpu_point *)row)->ts - t0_of(x));
}

static const struct sc_col cpuser_cols[] = {
    FNC("series", SC_TEXT, SC_PLAIN, cs_series, "Series", "\"machine\" or \"process\""),
    FNC("time_us", SC_REAL, SC_US, cs_time, "Time µs", "since the trace start, µs"),
    COL("user", SC_REAL, SC_PERCENT, SC_F_FLT, struct an_cpu_point, user, "User",
	"user time, percent"),
    COL("sys", SC_REAL, SC_PERCENT, SC_F_FLT, struct an_cpu_point, sys, "Sys",
	"system time, percent"),
    COL("idle", SC_REAL, SC_PERCENT, SC_F_FLT, struct an_cpu_point, idle, "Idle",
	"idle time, percent (machine)"),
    COL("iowait", SC_REAL, SC_PERCENT, SC_F_FLT, struct an_cpu_point, iowait, "I/O wait",
	"I/O wait, percent (machine)"),
};

const struct sc_table sc_cpu_series = {"cpu_series", "CPU utilization over time", cpuser_cols,
				       NCOLS(cpuser_cols), sizeof(struct an_cpu_point)};

/* ---- host info (hostinfo.json) --------------------------------------------- */

static const struct sc_col host_cols[] = {
    COL("module", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_host_row, module, "Module",
	"host_info module"),
    COL("event", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_host_row, event, "Event", "event"),
    COL("stage", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_host_row, stage, "Stage", "stage"),
    COL("level", SC_INT, SC_PLAIN, SC_F_I32, struct an_host_row, level, "Level",
	"0 framework developers, 1 users"),
    COL("count", SC_INT, SC_COUNT, SC_F_I64, struct an_host_row, count, "Count", "occurrences"),
    COL("avg_us", SC_REAL, SC_US, SC_F_DBL, struct an_host_row, avg_us, "Avg µs",
	"mean duration, µs"),
    COL("total_us", SC_INT, SC_US, SC_F_I64, struct an_host_row, total_us, "Total µs",
	"summed duration, µs"),
    COL("min_us", SC_INT, SC_US, SC_F_I64, struct an_host_row, min_us, "Min µs", "shortest, µs"),
    COL("max_us", SC_INT, SC_US, SC_F_I64, struct an_host_row, max_us, "Max µs", "longest, µs"),
};

const struct sc_table sc_host_events = {"host_events", "MindSpore host_info events by time",
					host_cols, NCOLS(host_cols), sizeof(struct an_host_row)};

/* ---- HTA temporal breakdown and idle time (temporal.json, idle.json) ------- */

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* percent of the row's int64 at c->off over its total */
static void tb_pct(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	const struct hta_temporal_dev *d = row;
	int64_t part;

	memcpy(&part, (const char *)row + c->off, sizeof(part));
	v->d = pct(part, d->total);
}

#define TPCT(n, field, t, doc)                                                                     \
	{                                                                                          \
		n, SC_REAL, SC_PERCENT, SC_F_FN, F(struct hta_temporal_dev, field), tb_pct, t, doc \
	}

static const struct sc_col temporal_cols[] = {
    COL("device", SC_INT, SC_PLAIN, SC_F_I32, struct hta_temporal_dev, device, "Device",
	"device id"),
    COL("total_us", SC_REAL, SC_US, SC_F_NS, struct hta_temporal_dev, total, "Total µs",
	"first device event start to last end, µs"),
    COL("compute_us", SC_REAL, SC_US, SC_F_NS, struct hta_temporal_dev, compute, "Compute µs",
	"union of compute kernels, µs"),
    COL("non_compute_us", SC_REAL, SC_US, SC_F_NS, struct hta_temporal_dev, non_compute,
	"Non-compute µs", "communication and memory kernels not overlapped by compute, µs"),
    COL("idle_us", SC_REAL, SC_US, SC_F_NS, struct hta_temporal_dev, idle, "Idle µs",
	"no device event running, µs"),
    TPCT("compute_pct", compute, "Compute %", "compute_us / total_us, percent"),
    TPCT("non_compute_pct", non_compute, "Non-compute %", "non_compute_us / total_us, percent"),
    TPCT("idle_pct", idle, "Idle %", "idle_us / total_us, percent"),
};

const struct sc_table sc_temporal = {"temporal", "HTA temporal breakdown per device", temporal_cols,
				     NCOLS(temporal_cols), sizeof(struct hta_temporal_dev)};

static int64_t idle_total(const struct hta_idle_stream *s)
{
	int64_t total = 0;

	for (int k = 0; k < HTA_IDLE_N; k++)
		total += s->idle[k];
	return total;
}

static void id_total(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	set_us(v, idle_total(row));
}

static void id_pct(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	int64_t part;

	memcpy(&part, (const char *)row + c->off, sizeof(part));
	v->d = pct(part, idle_total(row));
}

#define IDLE_F(k) (F(struct hta_idle_stream, idle) + (k) * sizeof(int64_t))

static const struct sc_col idle_cols[] = {
    COL("device", SC_INT, SC_PLAIN, SC_F_I32, struct hta_idle_stream, device, "Device",
	"device id"),
    COL("stream", SC_INT, SC_PLAIN, SC_F_I64, struct hta_idle_stream, stream, "Stream",
	"stream id"),
    COL("events", SC_INT, SC_COUNT, SC_F_I64, struct hta_idle_stream, events, "Events",
	"device events on the stream"),
    FNC("idle_us", SC_REAL, SC_US, id_total, "Idle µs", "idle time between its events, µs"),
    {"host_wait_us", SC_REAL, SC_US, SC_F_NS, IDLE_F(HTA_IDLE_HOST), NULL, "Host wait µs",
     "idle waiting for the host to launch, µs"},
    {"kernel_wait_us", SC_REAL, SC_US, SC_F_NS, IDLE_F(HTA_IDLE_KERNEL), NULL, "Kernel wait µs",
     "gaps shorter than the consecutive-kernel delay, µs"},
    {"other_us", SC_REAL, SC_US, SC_F_NS, IDLE_F(HTA_IDLE_OTHER), NULL, "Other µs",
     "the rest of the idle time, µs"},
    {"host_wait_pct", SC_REAL, SC_PERCENT, SC_F_FN, IDLE_F(HTA_IDLE_HOST), id_pct, "Host wait %",
     "host_wait_us / idle_us, percent"},
    {"kernel_wait_pct", SC_REAL, SC_PERCENT, SC_F_FN, IDLE_F(HTA_IDLE_KERNEL), id_pct,
     "Kernel wait %", "kernel_wait_us / idle_us, percent"},
    {"other_pct", SC_REAL, SC_PERCENT, SC_F_FN, IDLE_F(HTA_IDLE_OTHER), id_pct, "Other %",
     "other_us / idle_us, percent"},
};

const struct sc_table sc_idle = {"idle", "HTA idle time per stream", idle_cols, NCOLS(idle_cols),
				 sizeof(struct hta_idle_stream)};

/* ---- HTA queue length per stream (queue.json "streams"; aux = hta_queue) -- */

static void qs_at_max_pct(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			  struct sc_val *v)
{
	const struct hta_queue *q = x->aux;

	v->d = pct(((const struct hta_queue_stream *)row)->time_at_max, q->trace_dur);
}

#define QS(n, ty, src, field, title, doc)                                                          \
	COL(n, ty, SC_PLAIN, src, struct hta_queue_stream, field, title, doc)

static const struct sc_col queue_cols[] = {
    QS("device", SC_INT, SC_F_I32, device, "Device", "device id"),
    QS("stream", SC_INT, SC_F_I64, stream, "Stream", "stream id"),
    QS("launches", SC_INT, SC_F_I64, launches, "Launches",
       "device events with a launch on the host"),
    QS("count", SC_INT, SC_F_I64, count, "Rows", "series rows (2 per launch), HTA's count"),
    QS("mean", SC_REAL, SC_F_DBL, mean, "Mean", "mean queue length over the rows"),
    QS("std", SC_REAL, SC_F_DBL, std, "Std", "sample standard deviation"),
    QS("min", SC_REAL, SC_F_DBL, min, "Min", "minimum"),
    QS("p25", SC_REAL, SC_F_DBL, p25, "p25", "25th percentile"),
    QS("p50", SC_REAL, SC_F_DBL, p50, "p50", "median"),
    QS("p75", SC_REAL, SC_F_DBL, p75, "p75", "75th percentile"),
    QS("max", SC_REAL, SC_F_DBL, max, "Max", "maximum"),
    COL("time_at_max_us", SC_REAL, SC_US, SC_F_NS, struct hta_queue_stream, time_at_max,
	"At max µs", "time with the queue at max_queue_length or more, µs"),
    FNC("time_at_max_pct", SC_REAL, SC_PERCENT, qs_at_max_pct, "At max %",
	"time_at_max_us over the trace's duration, percent"),
};

const struct sc_table sc_queue = {"queue", "HTA launch queue length per stream", queue_cols,
				  NCOLS(queue_cols), sizeof(struct hta_queue_stream)};

/* ---- HTA memory bandwidth per copy kind (membw.json "kinds") --------------- */

#define MB(n, ty, un, src, field, title, doc)                                                      \
	COL(n, ty, un, src, struct hta_membw_kind, field, title, doc)

static const struct sc_col membw_cols[] = {
    MB("kind", SC_TEXT, SC_PLAIN, SC_F_CHARS, name, "Kind", "\"Memcpy HtoD\", \"Memset\" ..."),
    MB("count", SC_INT, SC_COUNT, SC_F_I64, count, "Ops", "operations"),
    MB("with_bytes", SC_INT, SC_COUNT, SC_F_I64, with_bytes, "With bytes",
       "operations that report bytes"),
    MB("with_bw", SC_INT, SC_COUNT, SC_F_I64, with_bw, "With bw",
       "operations whose bandwidth is known"),
    MB("kineto_bw", SC_INT, SC_COUNT, SC_F_I64, kineto_bw, "Kineto bw",
       "of those, taken from Kineto's memory bandwidth (GB/s)"),
    MB("bytes", SC_INT, SC_BYTES, SC_F_I64, bytes, "Bytes", "bytes over with_bytes"),
    MB("time_us", SC_REAL, SC_US, SC_F_NS, time, "Time µs", "summed durations, µs"),
    MB("bw_mean_gbps", SC_REAL, SC_PLAIN, SC_F_DBL, bw_mean, "Mean GB/s",
       "per-operation bandwidth: mean, GB/s"),
    MB("bw_min_gbps", SC_REAL, SC_PLAIN, SC_F_DBL, bw_min, "Min GB/s", "... minimum, GB/s"),
    MB("bw_max_gbps", SC_REAL, SC_PLAIN, SC_F_DBL, bw_max, "Max GB/s", "... maximum, GB/s"),
    MB("bw_avg_gbps", SC_REAL, SC_PLAIN, SC_F_DBL, bw_avg, "Avg GB/s",
       "bytes / time of the operations with bytes, GB/s"),
    MB("peak_gbps", SC_REAL, SC_PLAIN, SC_F_DBL, peak, "Peak GB/s",
       "peak of the summed series: concurrent GB/s"),
};

const struct sc_table sc_membw = {"membw", "HTA memory bandwidth per copy kind", membw_cols,
				  NCOLS(membw_cols), sizeof(struct hta_membw_kind)};

/* ---- HTA kernel launches (launches.json's outlier lists; aux = profile) -- */

/* a model string as the launch writers always wrote it: "" for none */
static const char *launch_str(const struct model *m, uint32_t id)
{
	return m && id != STRPOOL_NONE ? model_str(m, id) : "";
}

static void ln_kernel(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = launch_str(x->m, x->m->events.v[((const struct hta_launch_row *)row)->dev].name);
}

static void ln_op(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	uint32_t op = hta_launch_op_name(x->aux, ((const struct hta_launch_row *)row)->launch);

	v->s = op ? launch_str(x->m, op) : NULL;
}

static void ln_launch(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = launch_str(x->m, x->m->events.v[((const struct hta_launch_row *)row)->launch].name);
}

static void ln_ts(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	set_us(v, x->m->events.v[((const struct hta_launch_row *)row)->launch].ts);
}

static void ln_kernel_ts(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			 struct sc_val *v)
{
	set_us(v, x->m->events.v[((const struct hta_launch_row *)row)->dev].ts);
}

#define LN(n, field, title, doc)                                                                   \
	COL(n, SC_REAL, SC_US, SC_F_NS, struct hta_launch_row, field, title, doc)

static const struct sc_col launch_cols[] = {
    FNC("kernel", SC_TEXT, SC_PLAIN, ln_kernel, "Kernel", "the device event's name"),
    FNC("op", SC_TEXT, SC_PLAIN, ln_op, "Operator",
	"the operator that issued the launch, null when none"),
    FNC("launch", SC_TEXT, SC_PLAIN, ln_launch, "Launch", "the runtime/driver call"),
    FNC("ts_us", SC_REAL, SC_US, ln_ts, "Launch µs", "launch start, µs on the trace clock"),
    FNC("kernel_ts_us", SC_REAL, SC_US, ln_kernel_ts, "Kernel µs",
	"device event start, µs on the trace clock"),
    LN("cpu_us", cpu_dur, "CPU µs", "launch duration, µs"),
    LN("gpu_us", gpu_dur, "GPU µs", "device event duration, µs"),
    LN("delay_us", delay, "Delay µs",
       "HTA launch delay: device start - launch end, clipped at 0, µs"),
    LN("start_delay_us", start_delay, "Start delay µs", "device start - launch start, µs"),
};

const struct sc_table sc_launches = {"launches", "HTA kernel launches (outlier lists)", launch_cols,
				     NCOLS(launch_cols), sizeof(struct hta_launch_row)};
