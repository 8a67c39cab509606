/*
 * schema_tables.c - the result tables of the analysis, column by column
 * (schema.h). Column names are the JSON contract's (SPEC §4, docs/CLI.md);
 * the JSON, CSV, SQLite and terminal writers all read them from here.
 * Computed columns keep the exact arithmetic the documents always used, so
 * the JSON stays byte-for-byte what it was.
 */
#include "output/schema.h"
#include "analysis/hta_time.h"
#include "importers/ms_aicore_detail.h"
#include "importers/ms_aicore_type.h"

#include <stdio.h>
#include <string.h>

#define F(type, field) offsetof(type, field)
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* A column read from a field. */
#define COL(n, ty, un, src, type, field, title, doc)                                               \
	{                                                                                          \
		n, ty, un, src, F(type, field), NULL, title, doc                                   \
	}
/* A computed column. */
#define FNC(n, ty, un, fn, title, doc)                                                             \
	{                                                                                          \
		n, ty, un, SC_F_FN, 0, fn, title, doc                                              \
	}

static double ratio(int64_t num, int64_t den)
{
	return den ? (double)num / (double)den : 0.0;
}

static void set_us(struct sc_val *v, int64_t ns)
{
	v->ns = (double)ns;
	v->d = (double)ns / 1000.0;
}

static void set_null(struct sc_val *v)
{
	v->null = 1;
}

static const char *str_or_null(const struct model *m, uint32_t id)
{
	if (!m || id == 0 || id == STRPOOL_NONE)
		return NULL;
	return model_str(m, id);
}

/* ---- steps (overview.json "steps") ---------------------------------------- */

static void step_total(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	const struct an_step *s = row;

	set_us(v, s->end - s->start);
}

#define ROLE(n, r, t, d)                                                                           \
	{                                                                                          \
		n, SC_REAL, SC_US, SC_F_NS, F(struct an_step, cost) + (r) * sizeof(int64_t), NULL, \
		    t, d                                                                           \
	}

static const struct sc_col steps_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct an_step, name, "Step",
	"the step number (ProfilerStep#N), \"0\" when the trace has no steps"),
    FNC("total_us", SC_REAL, SC_US, step_total, "Total µs", "end_us - start_us"),
    ROLE("kernel_us", AN_KERNEL, "Kernel", "GPU kernels running (highest priority), µs"),
    ROLE("memcpy_us", AN_MEMCPY, "Memcpy", "copies running and no kernel, µs"),
    ROLE("memset_us", AN_MEMSET, "Memset", "memsets running and nothing above, µs"),
    ROLE("communication_us", AN_COMM, "Comm", "communication (NCCL/Gloo) and nothing above, µs"),
    ROLE("runtime_us", AN_RUNTIME, "Runtime",
	 "CUDA runtime/driver calls on the CPU and nothing above, µs"),
    ROLE("dataloader_us", AN_DATALOADER, "DataLoader",
	 "data loading on the CPU and nothing above, µs"),
    ROLE("cpu_exec_us", AN_CPUOP, "CPU Exec", "operators on the CPU and nothing above, µs"),
    ROLE("other_us", AN_OTHER, "Other", "the rest of the step, µs"),
    COL("start_us", SC_REAL, SC_US, SC_F_NS, struct an_step, start, "Start µs",
	"step start after device adjustment, µs on the trace clock"),
    COL("end_us", SC_REAL, SC_US, SC_F_NS, struct an_step, end, "End µs", "step end, µs"),
    COL("host_start_us", SC_REAL, SC_US, SC_F_NS, struct an_step, host_start, "Host start µs",
	"the ProfilerStep range on the CPU: start, µs"),
    COL("host_end_us", SC_REAL, SC_US, SC_F_NS, struct an_step, host_end, "Host end µs",
	"the ProfilerStep range on the CPU: end, µs"),
    COL("device_nodes", SC_INT, SC_COUNT, SC_F_I64, struct an_step, device_nodes, "Device events",
	"device events launched inside the host range"),
};

const struct sc_table sc_steps = {"steps", "the overview's steps and their time breakdown",
				  steps_cols, NCOLS(steps_cols), sizeof(struct an_step)};

/* ---- operators (operators.json) ------------------------------------------- */

static void op_tc_self(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	const struct an_op_row *r = row;

	v->d = ratio(r->tc_self, r->dev_self);
	v->undefined = r->dev_self == 0;
}

static void op_tc_total(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			struct sc_val *v)
{
	const struct an_op_row *r = row;

	v->d = ratio(r->tc_total, r->dev_total);
	v->undefined = r->dev_total == 0;
}

static const struct sc_col op_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_op_row, name, "Operator", "operator name"),
    COL("input_shape", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_op_row, input_shape, "Input shape",
	"input shapes (grouped by shape), else empty"),
    COL("call_stack", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_op_row, call_stack, "Call stack",
	"Python call stack (grouped by stack), else empty"),
    COL("calls", SC_INT, SC_COUNT, SC_F_I64, struct an_op_row, calls, "Calls", "occurrences"),
    COL("host_self_us", SC_REAL, SC_US, SC_F_NS, struct an_op_row, host_self, "Host self µs",
	"CPU time without child operators, µs"),
    COL("host_total_us", SC_REAL, SC_US, SC_F_NS, struct an_op_row, host_total, "Host total µs",
	"CPU time including child operators, µs"),
    COL("device_self_us", SC_REAL, SC_US, SC_F_NS, struct an_op_row, dev_self, "Device self µs",
	"device time of the kernels/copies this operator launched itself, µs"),
    COL("device_total_us", SC_REAL, SC_US, SC_F_NS, struct an_op_row, dev_total, "Device total µs",
	"device time including child operators' launches, µs"),
    COL("tc_eligible", SC_BOOL, SC_PLAIN, SC_F_I32, struct an_op_row, tc_eligible, "TC eligible",
	"the operator could use tensor cores"),
    FNC("tc_self_ratio", SC_REAL, SC_RATIO, op_tc_self, "TC self",
	"share of device self time on tensor cores, 0..1"),
    FNC("tc_total_ratio", SC_REAL, SC_RATIO, op_tc_total, "TC total",
	"share of device total time on tensor cores, 0..1"),
};

const struct sc_table sc_operators = {"operators", "operator statistics", op_cols, NCOLS(op_cols),
				      sizeof(struct an_op_row)};

#define OP_COLS                                                                                    \
	"calls", "host_self_us", "host_total_us", "device_self_us", "device_total_us",             \
	    "tc_eligible", "tc_self_ratio", "tc_total_ratio", NULL

const struct sc_group sc_op_groups[SC_OP_GROUPS] = {
    {"by_name", "operators", {"name", OP_COLS}},
    {"by_name_shape", "operators_by_name_shape", {"name", "input_shape", OP_COLS}},
    {"by_name_stack", "operators_by_name_stack", {"name", "call_stack", OP_COLS}},
    {"by_name_shape_stack",
     "operators_by_name_shape_stack",
     {"name", "input_shape", "call_stack", OP_COLS}},
};

const struct an_op_row *sc_op_group_rows(const struct an_ops *o, int g, size_t *n)
{
	switch (g) {
	case 0:
		*n = o->by_name.n;
		return o->by_name.v;
	case 1:
		*n = o->by_name_shape.n;
		return o->by_name_shape.v;
	case 2:
		*n = o->by_name_stack.n;
		return o->by_name_stack.v;
	default:
		*n = o->by_name_shape_stack.n;
		return o->by_name_shape_stack.v;
	}
}

/* ---- kernels (kernels.json) ----------------------------------------------- */

static void k_op_name(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct an_kernel_row *r = row;
	const char *op = str_or_null(x ? x->m : NULL, r->op_name);

	v->s = op ? op : "N/A";
}

static void k_mean(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	const struct an_kernel_row *r = row;

	v->d = r->calls ? (double)r->total / 1000.0 / (double)r->calls : 0.0;
	v->ns = r->calls ? (double)r->total / (double)r->calls : 0.0;
}

static const struct sc_col kernel_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_kernel_row, name, "Kernel", "kernel name"),
    FNC("op_name", SC_TEXT, SC_PLAIN, k_op_name, "Operator",
	"the launching operator, \"N/A\" when none (by properties)"),
    COL("grid", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_kernel_row, grid, "Grid",
	"\"[x, y, z]\" (by properties)"),
    COL("block", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_kernel_row, block, "Block",
	"\"[x, y, z]\" (by properties)"),
    COL("registers_per_thread", SC_INT, SC_COUNT, SC_F_I32, struct an_kernel_row, regs, "Registers",
	"registers per thread (by properties)"),
    COL("shared_memory", SC_INT, SC_BYTES, SC_F_I64, struct an_kernel_row, shared_mem, "Shared mem",
	"shared memory, bytes (by properties)"),
    COL("calls", SC_INT, SC_COUNT, SC_F_I64, struct an_kernel_row, calls, "Calls", "launches"),
    COL("total_us", SC_REAL, SC_US, SC_F_NS, struct an_kernel_row, total, "Total µs",
	"summed duration, µs"),
    FNC("mean_us", SC_REAL, SC_US, k_mean, "Mean µs", "total_us / calls"),
    COL("min_us", SC_REAL, SC_US, SC_F_NS, struct an_kernel_row, min, "Min µs",
	"shortest launch, µs"),
    COL("max_us", SC_REAL, SC_US, SC_F_NS, struct an_kernel_row, max, "Max µs",
	"longest launch, µs"),
    COL("mean_blocks_per_sm", SC_REAL, SC_PLAIN, SC_F_DBL, struct an_kernel_row, mean_blocks_per_sm,
	"Blocks/SM", "duration-weighted mean blocks per SM"),
    COL("mean_occupancy", SC_REAL, SC_PERCENT, SC_F_DBL, struct an_kernel_row, mean_occupancy,
	"Occupancy", "duration-weighted est. achieved occupancy, percent"),
    COL("tensor_core", SC_BOOL, SC_PLAIN, SC_F_I32, struct an_kernel_row, tensor_core, "TC",
	"a tensor-core kernel"),
};

const struct sc_table sc_kernels = {"kernels", "GPU kernel statistics", kernel_cols,
				    NCOLS(kernel_cols), sizeof(struct an_kernel_row)};

#define KERNEL_COLS                                                                                \
	"calls", "total_us", "mean_us", "min_us", "max_us", "mean_blocks_per_sm",                  \
	    "mean_occupancy", "tensor_core", NULL

const struct sc_group sc_kernel_groups[SC_KERNEL_GROUPS] = {
    {"by_name", "kernels", {"name", KERNEL_COLS}},
    {"by_properties",
     "kernels_by_properties",
     {"name", "op_name", "grid", "block", "registers_per_thread", "shared_memory", KERNEL_COLS}},
};

const struct an_kernel_row *sc_kernel_group_rows(const struct an_kernels *k, int g, size_t *n)
{
	if (g == 0) {
		*n = k->by_name.n;
		return k->by_name.v;
	}
	*n = k->by_properties.n;
	return k->by_properties.v;
}

/* ---- memory (memory.json) ------------------------------------------------- */

static void mem_device(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	const struct an_mem_device *d = x ? x->aux : NULL;

	v->s = d ? d->name : "";
}

static const struct sc_col memop_cols[] = {
    FNC("device", SC_TEXT, SC_PLAIN, mem_device, "Device", "\"CPU\", \"GPU0\", ..."),
    COL("name", SC_TEXT, SC_PLAIN, SC_F_STRID, struct an_mem_op_row, name, "Operator",
	"operator name"),
    COL("calls", SC_INT, SC_COUNT, SC_F_I64, struct an_mem_op_row, calls, "Calls", "occurrences"),
    COL("size_increase", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_op_row, size_increase,
	"Size incr.", "allocated minus freed, bytes, with children"),
    COL("self_size_increase", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_op_row, self_size_increase,
	"Self size incr.", "allocated minus freed, bytes, itself"),
    COL("alloc_count", SC_INT, SC_COUNT, SC_F_I64, struct an_mem_op_row, alloc_count, "Allocs",
	"allocations, with children"),
    COL("self_alloc_count", SC_INT, SC_COUNT, SC_F_I64, struct an_mem_op_row, self_alloc_count,
	"Self allocs", "allocations, itself"),
    COL("alloc_size", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_op_row, alloc_size, "Alloc size",
	"allocated bytes, with children"),
    COL("self_alloc_size", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_op_row, self_alloc_size,
	"Self alloc size", "allocated bytes, itself"),
};

const struct sc_table sc_memory_ops = {"memory_ops", "memory statistics per operator and device",
				       memop_cols, NCOLS(memop_cols), sizeof(struct an_mem_op_row)};

const char *const sc_memory_op_cols[] = {
    "name",
    "calls",
    "size_increase",
    "self_size_increase",
    "alloc_count",
    "self_alloc_count",
    "alloc_size",
    "self_alloc_size",
    NULL,
};

static int64_t t0_of(const struct sc_ctx *x)
{
	return x && x->m ? x->m->min_ts : 0;
}

static void ma_op(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	const struct an_mem_event *e = row;
	const struct model *m = x ? x->m : NULL;
	const char *op = str_or_null(m, e->op), *parent = str_or_null(m, e->parent_op);

	if (op && parent) {
		snprintf(v->buf, sizeof(v->buf), "%s (%s)", parent, op);
		v->s = v->buf;
	} else {
		v->s = op;
	}
}

static void ma_op_name(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	v->s = str_or_null(x ? x->m : NULL, ((const struct an_mem_event *)row)->op);
}

static void ma_parent(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	v->s = str_or_null(x ? x->m : NULL, ((const struct an_mem_event *)row)->parent_op);
}

static void ma_alloc(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	const struct an_mem_event *e = row;

	if (e->alloc_ts == MODEL_NONE)
		set_null(v);
	else
		set_us(v, e->alloc_ts - t0_of(x));
}

static void ma_free(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	const struct an_mem_event *e = row;

	if (e->free_ts == MODEL_NONE)
		set_null(v);
	else
		set_us(v, e->free_ts - t0_of(x));
}

static void ma_dur(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	const struct an_mem_event *e = row;

	if (e->alloc_ts == MODEL_NONE || e->free_ts == MODEL_NONE)
		set_null(v);
	else
		set_us(v, e->free_ts - e->alloc_ts);
}

static const struct sc_col malloc_cols[] = {
    FNC("device", SC_TEXT, SC_PLAIN, mem_device, "Device", "\"CPU\", \"GPU0\", ..."),
    FNC("op", SC_TEXT, SC_PLAIN, ma_op, "Operator",
	"tb_plugin's label: the op, or \"<parent> (aten::empty...)\"; null when unknown"),
    FNC("op_name", SC_TEXT, SC_PLAIN, ma_op_name, "Op", "the allocating op, null when unknown"),
    FNC("parent_op", SC_TEXT, SC_PLAIN, ma_parent, "Parent",
	"the enclosing op of a factory op (aten::empty...), else null"),
    COL("size", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_event, size, "Size", "bytes"),
    FNC("alloc_us", SC_REAL, SC_US, ma_alloc, "Alloc µs",
	"allocation time since the trace start, µs; null when unpaired"),
    FNC("free_us", SC_REAL, SC_US, ma_free, "Free µs",
	"release time since the trace start, µs; null when never freed"),
    FNC("duration_us", SC_REAL, SC_US, ma_dur, "Duration µs", "free_us - alloc_us"),
};

const struct sc_table sc_memory_allocs = {
    "memory_allocations", "allocation/free pairs with their operator (memory view's events)",
    malloc_cols, NCOLS(malloc_cols), sizeof(struct an_mem_event)};

static void mc_time(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	set_us(v, ((const struct an_mem_point *)row)->ts - t0_of(x));
}

static const struct sc_col mcurve_cols[] = {
    FNC("device", SC_TEXT, SC_PLAIN, mem_device, "Device", "\"CPU\", \"GPU0\", ..."),
    FNC("time_us", SC_REAL, SC_US, mc_time, "Time µs", "since the trace start, µs"),
    COL("allocated", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_point, allocated, "Allocated",
	"allocated bytes"),
    COL("reserved", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_point, reserved, "Reserved",
	"reserved bytes"),
};

const struct sc_table sc_memory_curve = {
    "memory_curve", "memory curve (down-sampled, peak kept) per device", mcurve_cols,
    NCOLS(mcurve_cols), sizeof(struct an_mem_point)};

/* ---- modules (modules.json) ----------------------------------------------- */

static void mod_id(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	v->i = x ? (int64_t)x->index : 0;
}

static void mod_name(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	an_module_name(x ? x->m : NULL, row, 0, v->buf, sizeof(v->buf));
	v->s = v->buf;
}

static void mod_parent(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	const struct an_module_row *r = row;
	size_t n = x && x->aux ? ((const struct an_modules *)x->aux)->rows.n : 0;

	if (r->parent == MODEL_NOIDX || r->parent >= n)
		set_null(v);
	else
		v->i = r->parent;
}

static const struct sc_col mod_cols[] = {
    FNC("id", SC_INT, SC_PLAIN, mod_id, "Id", "row index"),
    FNC("name", SC_TEXT, SC_PLAIN, mod_name, "Module", "module name (\".backward\" rows too)"),
    COL("backward", SC_BOOL, SC_PLAIN, SC_F_I32, struct an_module_row, backward, "Backward",
	"a synthetic backward row"),
    COL("module_id", SC_INT, SC_PLAIN, SC_F_I64, struct an_module_row, module_id, "Module id",
	"Python module id"),
    FNC("parent", SC_INT, SC_PLAIN, mod_parent, "Parent", "id of the parent row, null at top"),
    COL("occurrences", SC_INT, SC_COUNT, SC_F_I64, struct an_module_row, occurrences, "Occurrences",
	"calls"),
    COL("operators", SC_INT, SC_COUNT, SC_F_I64, struct an_module_row, operators, "Operators",
	"operators called"),
    COL("host_self_us", SC_REAL, SC_US, SC_F_NS, struct an_module_row, host_self, "Host self µs",
	"CPU time without child modules, µs"),
    COL("host_total_us", SC_REAL, SC_US, SC_F_NS, struct an_module_row, host_total, "Host total µs",
	"CPU time, µs"),
    COL("device_self_us", SC_REAL, SC_US, SC_F_NS, struct an_module_row, dev_self, "Device self µs",
	"device time without child modules, µs"),
    COL("device_total_us", SC_REAL, SC_US, SC_F_NS, struct an_module_row, dev_total,
	"Device total µs", "device time, µs"),
    COL("avg_duration_us", SC_REAL, SC_US, SC_F_DNS, struct an_module_row, avg_duration, "Avg µs",
	"mean duration of one call, µs"),
};

const struct sc_table sc_modules = {"modules", "the module tree (aux: the an_modules)", mod_cols,
				    NCOLS(mod_cols), sizeof(struct an_module_row)};

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
    {"empty_pct", SC_REAL, SC_PERCENT, SC_F_FN, F(struct an_queue, empty_ratio), q_pct, "Empty %",
     "empty samples, percent"},
    {"full_pct", SC_REAL, SC_PERCENT, SC_F_FN, F(struct an_queue, full_ratio), q_pct, "Full %",
     "full samples, percent"},
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
    {"name", SC_TEXT, SC_PLAIN, SC_F_FN, F(struct an_cpu_thread, name), opt_str, "Thread",
     "thread name, null if none"},
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
    {"name", SC_TEXT, SC_PLAIN, SC_F_FN, F(struct an_cpu_stage, name), opt_str, "Stage",
     "thread name shared by the stage's threads"},
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

/* ---- MindSpore AI Core operators (ms_ops.json, ms_op_type.csv, ms_op_detail.csv) */

/* a C long at c->off (MindSpore's execution counts) */
static void long_at(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	long l;

	memcpy(&l, (const char *)row + c->off, sizeof(l));
	v->i = l;
}

static const struct sc_col msat_cols[] = {
    COL("kernel_type", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct ms_at_row, kernel_type, "Op type",
	"AI Core operator type"),
    COL("total_time_us", SC_REAL, SC_US, SC_F_DBL, struct ms_at_row, total_time_us, "Total µs",
	"time of the type's operators, µs"),
    {"execution_frequency", SC_INT, SC_COUNT, SC_F_FN, F(struct ms_at_row, execution_frequency),
     long_at, "Calls", "executions"},
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
    {"execution_frequency", SC_INT, SC_COUNT, SC_F_FN, F(struct ms_ad_row, execution_frequency),
     long_at, "Calls", "executions"},
};

const struct sc_table sc_ms_ops = {"ms_ops", "MindSpore AI Core operator time by operator",
				   msad_cols, NCOLS(msad_cols), sizeof(struct ms_ad_row)};

/* ---- GPUs (overview.json "gpus") ------------------------------------------ */

static const struct model_device *gpu_dev(const void *row, const struct sc_ctx *x)
{
	return x && x->m ? model_device_by_id(x->m, ((const struct an_gpu *)row)->id) : NULL;
}

static void g_name(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		   struct sc_val *v)
{
	const struct model_device *d = gpu_dev(row, x);

	if (!d)
		set_null(v);
	else
		v->s = d->name != STRPOOL_NONE ? model_str(x->m, d->name) : "";
}

/* A field of the GPU's model_device: int64 or int32 at c->off of it. */
static void g_dev_i64(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct model_device *d = gpu_dev(row, x);

	if (!d)
		set_null(v);
	else
		memcpy(&v->i, (const char *)d + c->off, sizeof(v->i));
}

static void g_dev_i32(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct model_device *d = gpu_dev(row, x);
	int32_t i;

	if (!d) {
		set_null(v);
		return;
	}
	memcpy(&i, (const char *)d + c->off, sizeof(i));
	v->i = i;
}

static void g_cc(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	const struct model_device *d = gpu_dev(row, x);

	if (!d) {
		set_null(v);
		return;
	}
	snprintf(v->buf, sizeof(v->buf), "%d.%d", d->major, d->minor);
	v->s = v->buf;
}

static void g_sm_eff(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	const struct an_gpu *g = row;

	if (g->sm_efficiency < 0)
		set_null(v);
	else
		v->d = g->sm_efficiency;
}

static void g_occ(const struct sc_col *c, const void *row, const struct sc_ctx *x, struct sc_val *v)
{
	const struct an_gpu *g = row;

	if (g->achieved_occupancy < 0)
		set_null(v);
	else
		v->d = g->achieved_occupancy;
}

static const struct sc_col gpu_cols[] = {
    COL("id", SC_INT, SC_PLAIN, SC_F_I32, struct an_gpu, id, "GPU", "device id"),
    FNC("name", SC_TEXT, SC_PLAIN, g_name, "Name", "device name, null when unknown"),
    {"memory_bytes", SC_INT, SC_BYTES, SC_F_FN, F(struct model_device, total_mem), g_dev_i64,
     "Memory", "total memory, bytes"},
    FNC("compute_capability", SC_TEXT, SC_PLAIN, g_cc, "CC", "\"major.minor\""),
    COL("utilization", SC_REAL, SC_RATIO, SC_F_DBL, struct an_gpu, utilization, "Utilization",
	"GPU busy share of the steps, 0..1"),
    FNC("sm_efficiency", SC_REAL, SC_RATIO, g_sm_eff, "Est. SM eff.",
	"estimated SM efficiency, 0..1, null without blocks per SM"),
    FNC("achieved_occupancy", SC_REAL, SC_PERCENT, g_occ, "Est. occupancy",
	"estimated achieved occupancy, percent, null when not reported"),
    COL("tensor_core_ratio", SC_REAL, SC_RATIO, SC_F_DBL, struct an_gpu, tensor_core_ratio,
	"Tensor cores", "tensor-core kernel share of operators' kernel time, 0..1"),
    COL("kernel_us", SC_REAL, SC_US, SC_F_NS, struct an_gpu, kernel_time, "Kernel µs",
	"merged kernel busy time, µs"),
    {"num_sms", SC_INT, SC_PLAIN, SC_F_FN, F(struct model_device, num_sms), g_dev_i32, "SMs",
     "streaming multiprocessors"},
    {"max_threads_per_sm", SC_INT, SC_PLAIN, SC_F_FN, F(struct model_device, max_threads_per_sm),
     g_dev_i32, "Threads/SM", "maximum threads per SM"},
};

const struct sc_table sc_gpus = {"gpus", "GPU summary", gpu_cols, NCOLS(gpu_cols),
				 sizeof(struct an_gpu)};

/* ---- distributed (distributed.json) --------------------------------------- */

static void dw_num(struct sc_val *v, double x, double scale)
{
	if (x < 0)
		set_null(v);
	else
		v->d = x * scale;
}

static void dw_overlap_pct(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			   struct sc_val *v)
{
	dw_num(v, ((const struct an_dist_worker *)row)->overlap_pct, 1.0);
}

static void dw_step_time(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			 struct sc_val *v)
{
	const struct an_dist_worker *w = row;

	dw_num(v, w->step_time, 1e-3);
	v->ns = w->step_time;
}

static void dw_late(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	dw_num(v, ((const struct an_dist_worker *)row)->late_start, 1.0);
}

#define DW(n, field, t, d) COL(n, SC_REAL, SC_US, SC_F_DNS, struct an_dist_worker, field, t, d)

static const struct sc_col dw_cols[] = {
    COL("worker", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct an_dist_worker, name, "Worker",
	"worker name"),
    DW("computation_us", computation, "Computation µs", "computation not overlapped, per step"),
    DW("overlap_us", overlap, "Overlap µs", "computation overlapped with communication"),
    DW("communication_us", communication, "Communication µs",
       "communication not overlapped, per step"),
    DW("other_us", other, "Other µs", "the rest of the step"),
    DW("transfer_us", transfer, "Transfer µs", "communication moving data, per step"),
    DW("synchronizing_us", synchronizing, "Synchronizing µs",
       "communication waiting for peers, per step"),
    COL("comparable", SC_BOOL, SC_PLAIN, SC_F_I32, struct an_dist_worker, comparable, "Comparable",
	"its communication ops match the other workers'"),
    FNC("overlap_pct", SC_REAL, SC_PERCENT, dw_overlap_pct, "Overlap %",
	"HTA: comm kernel time overlapped by compute, percent; null without comm kernels"),
    FNC("step_time_us", SC_REAL, SC_US, dw_step_time, "Step µs", "HTA: mean step time, µs"),
    FNC("late_start", SC_REAL, SC_RATIO, dw_late, "Late start",
	"HTA: how late the worker starts its steps, fraction of a step"),
};

const struct sc_table sc_dist_workers = {"distributed", "per-worker distributed breakdown", dw_cols,
					 NCOLS(dw_cols), sizeof(struct an_dist_worker)};

static void co_worker(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct an_dist *d = x ? x->aux : NULL;
	const struct an_dist_comm_row *r = row;

	v->s = d && r->worker < d->workers.n ? d->workers.v[r->worker].name : "";
}

static void co_avg_bytes(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			 struct sc_val *v)
{
	const struct an_dist_comm_row *r = row;

	v->d = r->calls ? (double)r->total_bytes / (double)r->calls : 0.0;
}

static void co_avg_lat(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		       struct sc_val *v)
{
	const struct an_dist_comm_row *r = row;

	v->d = r->calls ? (double)r->total_latency / 1000.0 / (double)r->calls : 0.0;
	v->ns = r->calls ? (double)r->total_latency / (double)r->calls : 0.0;
}

static void co_avg_xfer(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			struct sc_val *v)
{
	const struct an_dist_comm_row *r = row;

	v->d = r->calls ? (double)r->transfer / 1000.0 / (double)r->calls : 0.0;
	v->ns = r->calls ? (double)r->transfer / (double)r->calls : 0.0;
}

static const struct sc_col co_cols[] = {
    FNC("worker", SC_TEXT, SC_PLAIN, co_worker, "Worker", "worker name"),
    COL("name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct an_dist_comm_row, name, "Operation",
	"communication op"),
    COL("calls", SC_INT, SC_COUNT, SC_F_I64, struct an_dist_comm_row, calls, "Calls", "calls"),
    COL("total_bytes", SC_INT, SC_BYTES, SC_F_I64, struct an_dist_comm_row, total_bytes, "Bytes",
	"bytes moved"),
    COL("total_latency_us", SC_REAL, SC_US, SC_F_NS, struct an_dist_comm_row, total_latency,
	"Latency µs", "summed latency, µs"),
    COL("transfer_us", SC_REAL, SC_US, SC_F_NS, struct an_dist_comm_row, transfer, "Transfer µs",
	"summed transfer time, µs"),
    FNC("avg_bytes", SC_REAL, SC_BYTES, co_avg_bytes, "Avg bytes", "total_bytes / calls"),
    FNC("avg_latency_us", SC_REAL, SC_US, co_avg_lat, "Avg latency µs", "total_latency_us / calls"),
    FNC("avg_transfer_us", SC_REAL, SC_US, co_avg_xfer, "Avg transfer µs", "transfer_us / calls"),
};

const struct sc_table sc_comm_ops = {"comm_ops", "communication ops per worker (aux: an_dist)",
				     co_cols, NCOLS(co_cols), sizeof(struct an_dist_comm_row)};
