/*
 * schema_page.c - the result tables as the web page shows them, for
 * GET /api/schema (docs/SERVER.md): every column of the tables below with
 * its name, type, unit, terminal title and description from the schema
 * (schema_tables.c, schema_views.c, schema_hta.c, schema_ms.c), plus the
 * title the page gives it and the page's formatter for its type and unit;
 * and the step-time roles
 * (an_role_keys, an_role_names). The page builds its table columns from
 * this document (web/lib/schema.js), so a column's page title is written
 * here once and nowhere in web/.
 *
 * The page's titles are its own vocabulary (short, no unit: the cells carry
 * it), so they are kept here as "col:Title" selections over each table;
 * a column the page does not title has no "page" member. The steps
 * table's role columns are titled by the role table.
 */
#include "output/schema_page.h"
#include "output/schema.h"

#include <string.h>

struct page_table {
	const struct sc_table *t;
	const char *cols[24]; /* "col:Page title", NULL-terminated */
};

static const struct page_table pages[] = {
    {&sc_steps, {"name:Step", "total_us:Total", NULL}},
    {&sc_operators,
     {"name:Name", "input_shape:Input Shape", "call_stack:Call Stack", "calls:Calls",
      "host_self_us:Host Self", "host_total_us:Host Total", "device_self_us:Device Self",
      "device_total_us:Device Total", "tc_eligible:TC Eligible", "tc_self_ratio:TC Self %",
      "tc_total_ratio:TC Total %", NULL}},
    {&sc_kernels,
     {"name:Name", "op_name:Operator", "grid:Grid", "block:Block",
      "registers_per_thread:Registers/Thread", "shared_memory:Shared Mem",
      "tensor_core:Tensor Cores", "calls:Calls", "total_us:Total", "mean_us:Mean", "max_us:Max",
      "min_us:Min", "mean_blocks_per_sm:Blocks/SM", "mean_occupancy:Est. Occupancy", NULL}},
    {&sc_memory_ops,
     {"name:Operator", "calls:Calls", "size_increase:Size Increase",
      "self_size_increase:Self Size Increase", "alloc_count:Allocations",
      "self_alloc_count:Self Allocations", "alloc_size:Allocation Size",
      "self_alloc_size:Self Allocation Size", NULL}},
    {&sc_memory_allocs,
     {"op:Operator", "size:Size", "alloc_us:Allocation Time", "free_us:Release Time",
      "duration_us:Duration", NULL}},
    {&sc_modules,
     {"name:Module", "module_id:Module ID", "parent:Parent", "occurrences:Occurrences",
      "operators:Operators", "host_self_us:Host Self", "host_total_us:Host Total",
      "device_self_us:Device Self", "device_total_us:Device Total", "avg_duration_us:Avg Duration",
      NULL}},
    {&sc_steptrace,
     {"name:Step", "iteration_interval_us:Iteration interval", "fp_bp_us:Forward + backward",
      "tail_us:Tail", "total_us:Total", NULL}},
    {&sc_dist_workers,
     {"worker:Worker", "computation_us:Computation", "overlap_us:Overlapping",
      "communication_us:Communication", "other_us:Other", "transfer_us:Data Transfer",
      "synchronizing_us:Synchronizing", "overlap_pct:Comm overlap (HTA)",
      "late_start:Late start (HTA)", NULL}},
    {&sc_comm_ops,
     {"worker:Worker", "name:Name", "calls:Calls", "total_bytes:Total Size", "avg_bytes:Avg Size",
      "total_latency_us:Total Latency", "avg_latency_us:Avg Latency",
      "transfer_us:Data Transfer Time", "avg_transfer_us:Avg Transfer", NULL}},
    {&sc_dp_queues,
     {"name:Queue", "samples:Samples", "avg_size:Avg Size", "max_size:Max Size",
      "capacity:Capacity", "utilization:Utilization", "empty_count:Empty", "empty_ratio:Empty %",
      "full_count:Full", "full_ratio:Full %", NULL}},
    {&sc_dp_steps,
     {"name:Step", "duration_us:Duration", "dataloader_us:DataLoader", "queue_empty_us:Queue Empty",
      "wait_us:Wait", "wait_ratio:Wait %", "samples:Samples", "empty_samples:Empty Samples", NULL}},
    {&sc_cpu_threads, {"tid:TID", "name:Name", "samples:Samples", "user:User", "sys:Sys", NULL}},
    {&sc_cpu_stages,
     {"name:Stage", "threads:Threads", "user:User", "sys:Sys", "per_thread:Per Thread",
      "advice:Advice", NULL}},
    {&sc_host_events,
     {"module:Module", "event:Event", "stage:Stage", "level:Level", "count:Count", "total_us:Total",
      "avg_us:Avg", "min_us:Min", "max_us:Max", NULL}},
    {&sc_idle,
     {"stream:Stream", "events:Ops", "idle_us:Idle", "host_wait_us:Host Wait",
      "kernel_wait_us:Kernel Wait", "other_us:Other", NULL}},
    /* idle.json's gap statistics, shown as "<idle column> <statistic>" */
    {&sc_idle_gaps, {"count:Gaps", "p50_us:p50", "max_us:Max", NULL}},
    {&sc_ms_op_types,
     {"kernel_type:Type", "total_time_us:Total time", "execution_frequency:Calls",
      "avg_time_us:Avg time", NULL}},
    {&sc_ms_ops,
     {"op_name:Operator (full name)", "kernel_name:Kernel", "kernel_type:Type",
      "avg_execution_time_us:Avg time", "execution_frequency:Calls", NULL}},
    {&sc_temporal,
     {"device:GPU", "total_us:Window", "compute_us:Compute", "compute_pct:Compute %",
      "non_compute_us:Non-compute", "non_compute_pct:Non-compute %", "idle_us:Idle",
      "idle_pct:Idle %", NULL}},
    {&sc_queue,
     {"stream:Stream", "launches:Launches", "mean:Mean", "std:Std", "min:Min", "p25:p25", "p50:p50",
      "p75:p75", "max:Max", "time_at_max_us:At Max", "time_at_max_pct:At Max %", NULL}},
    {&sc_membw,
     {"kind:Kind", "count:Ops", "bytes:Bytes", "time_us:Time", "bw_avg_gbps:Bytes / Time",
      "bw_mean_gbps:Per-op Mean", "bw_max_gbps:Per-op Max", "peak_gbps:Peak", NULL}},
    /* membw.json's per-kind series summary */
    {&sc_describe, {"mean:Series Mean", "p50:Series p50", NULL}},
    {&sc_launches,
     {"kernel:Kernel", "op:Operator", "launch:Launch", "ts_us:At", "cpu_us:CPU", "gpu_us:GPU",
      "delay_us:Delay", "start_delay_us:Start delay", NULL}},
    {&sc_annotations, {"name:Annotation", NULL}},
    {&sc_anno_kernels, {"name:Kernel", "count:Count", "sum_us:Time", NULL}},
    {&sc_seq_ops, {"operator:Operator", "roots:Calls", NULL}},
    {&sc_seq_patterns, {"count:Count", "gpu_time_us:GPU time", "cpu_time_us:CPU time", NULL}},
    {&sc_critpath_top,
     {"name:Event", "class:Class", "edges:Edges", "time_us:Time on path", "share:Share", NULL}},
    {&sc_critpath_segments,
     {"edge:Edge", "class:Class", "name:Event", "kind:Kind", "tid:Thread / stream",
      "weight_us:Weight", NULL}},
    {&sc_cluster_ranks,
     {"rank:Rank", "host:Host", "worker:Worker", "stage:Stage",
      "iteration_interval_us:Iteration interval", "fp_bp_us:FP + BP", "tail_us:Tail",
      "total_us:Total", "communication_us:Communication", "wait_us:Wait", NULL}},
    {&sc_live_ranks,
     {"rank:Rank", "worker:Worker", "host:Host", "steps:Steps", "last_step:Last step",
      "last_ms:Last (ms)", "mean_ms:Mean (ms)", "window_ms:Window (ms)", "vs_mean_pct:vs mean (%)",
      "behind:Behind", "ended:Ended", NULL}},
    {&sc_cluster_links,
     {"reported_by:Reported by", "src_rank:Src", "dst_rank:Dst", "link_type:Type", "time_us:Time",
      "size_kb:Size (KB)", "bandwidth_kbps:Bandwidth (KB/s)", NULL}},
    {&sc_diff_ops,
     {"name:Operator", "base_calls:Base Calls", "exp_calls:Exp Calls", "delta_calls:Δ Calls",
      "base_host_total_us:Base Host Total", "exp_host_total_us:Exp Host Total",
      "delta_host_total_us:Δ Host Total", "delta_host_self_us:Δ Host Self",
      "base_device_total_us:Base Device Total", "exp_device_total_us:Exp Device Total",
      "delta_device_total_us:Δ Device Total", "delta_device_self_us:Δ Device Self", NULL}},
    /* the name column is titled by what the rows are (Operator, Kernel) */
    {&sc_trace_diff,
     {"change:Change", "base_count:Base Count", "exp_count:Exp Count", "diff_count:Δ Count",
      "base_duration_us:Base Duration", "exp_duration_us:Exp Duration",
      "diff_duration_us:Δ Duration", NULL}},
};

static const char *const type_names[] = {"text", "int", "real", "bool"};
static const char *const unit_names[] = {"", "us", "bytes", "count", "ratio", "percent"};

/* The page's formatter (web/lib/util.js formatters) for a column. */
const char *sc_page_fmt(const struct sc_col *c)
{
	switch (c->unit) {
	case SC_US:
		return "us";
	case SC_BYTES:
		return "bytes";
	case SC_COUNT:
		return "int";
	case SC_RATIO:
		return "pct";
	case SC_PERCENT:
		return "pct100";
	default:
		break;
	}
	switch (c->type) {
	case SC_INT:
		return "int";
	case SC_REAL:
		return "num";
	case SC_BOOL:
		return "bool";
	default:
		return "text";
	}
}

/* The page title of column c in pt, or NULL. */
static const char *page_title(const struct page_table *pt, const struct sc_col *c)
{
	size_t n = strlen(c->name);

	for (const char *const *e = pt->cols; *e; e++)
		if (!strncmp(*e, c->name, n) && (*e)[n] == ':')
			return *e + n + 1;
	if (pt->t == &sc_steps)
		for (int r = 0; r < AN_NROLES; r++)
			if (!strcmp(c->name, an_role_keys[r]))
				return an_role_names[r];
	return NULL;
}

static void write_table(struct jsonw *w, const struct page_table *pt)
{
	const struct sc_table *t = pt->t;

	jsonw_key(w, t->name);
	jsonw_obj_begin(w);
	jsonw_kstr(w, "doc", t->doc);
	jsonw_key(w, "columns");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < t->ncols; i++) {
		const struct sc_col *c = &t->cols[i];
		const char *page = page_title(pt, c);

		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", c->name);
		jsonw_kstr(w, "type", type_names[c->type]);
		if (c->unit != SC_PLAIN)
			jsonw_kstr(w, "unit", unit_names[c->unit]);
		jsonw_kstr(w, "title", c->title ? c->title : c->name);
		if (page)
			jsonw_kstr(w, "page", page);
		jsonw_kstr(w, "fmt", sc_page_fmt(c));
		if (c->doc)
			jsonw_kstr(w, "doc", c->doc);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_schema(struct jsonw *w)
{
	jsonw_obj_begin(w);
	jsonw_key(w, "roles");
	jsonw_arr_begin(w);
	for (int r = 0; r < AN_NROLES; r++) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "key", an_role_keys[r]);
		jsonw_kstr(w, "name", an_role_names[r]);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "tables");
	jsonw_obj_begin(w);
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		write_table(w, &pages[i]);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* 1 when entry "col:Title" names a column of t. */
static int entry_ok(const struct sc_table *t, const char *entry)
{
	const char *colon = strchr(entry, ':');
	char name[64];

	if (!colon || (size_t)(colon - entry) >= sizeof(name))
		return 0;
	memcpy(name, entry, (size_t)(colon - entry));
	name[colon - entry] = '\0';
	return sc_col_find(t, name) != NULL;
}

int sc_page_check(const char **bad)
{
	for (size_t i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		for (const char *const *e = pages[i].cols; *e; e++)
			if (!entry_ok(pages[i].t, *e)) {
				*bad = *e;
				return -1;
			}
	return 0;
}
