/*
 * schema_tables.c - the result tables of the SPEC §4 contract (steps,
 * operators, kernels, memory, modules, GPUs), of the distributed view and
 * of the diff's operators,
 * column by column (schema.h). Column names are the JSON contract's (SPEC
 * §4, docs/CLI.md); the JSON, CSV, SQLite and terminal writers all read
 * them from here. Computed columns keep the exact arithmetic the documents
 * always used, so the JSON stays byte-for-byte what it was. The other
 * per-worker views are in schema_views.c.
 */
#include "output/schema_int.h"

#include "analysis/an_diff.h"

#include <stdio.h>

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
/* clang-format off: a column per role, from the role table (an_roles.h) */
#define ROLE_COL(role, name, key, title, desc) ROLE(key, role, title, desc),
    AN_ROLE_TABLE(ROLE_COL)
#undef ROLE_COL
    /* clang-format on */
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
    FCOL("mean_blocks_per_sm", SC_REAL, SC_PLAIN, sc_dbl_or_null, struct an_kernel_row,
	 mean_blocks_per_sm, "Blocks/SM",
	 "duration-weighted mean blocks per SM, null when no call reports it"),
    FCOL("mean_occupancy", SC_REAL, SC_PERCENT, sc_dbl_or_null, struct an_kernel_row,
	 mean_occupancy, "Occupancy",
	 "duration-weighted est. achieved occupancy, percent, null when no call reports it"),
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

/* an allocation's or free's time (int64 at c->off), null when unpaired */
static void ma_time(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		    struct sc_val *v)
{
	int64_t ts;

	memcpy(&ts, (const char *)row + c->off, sizeof(ts));
	if (ts == MODEL_NONE)
		set_null(v);
	else
		set_us(v, ts - t0_of(x));
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
    FCOL("op_name", SC_TEXT, SC_PLAIN, sc_strid_or_null, struct an_mem_event, op, "Op",
	 "the allocating op, null when unknown"),
    FCOL("parent_op", SC_TEXT, SC_PLAIN, sc_strid_or_null, struct an_mem_event, parent_op, "Parent",
	 "the enclosing op of a factory op (aten::empty...), else null"),
    COL("size", SC_INT, SC_BYTES, SC_F_I64, struct an_mem_event, size, "Size", "bytes"),
    FCOL("alloc_us", SC_REAL, SC_US, ma_time, struct an_mem_event, alloc_ts, "Alloc µs",
	 "allocation time since the trace start, µs; null when unpaired"),
    FCOL("free_us", SC_REAL, SC_US, ma_time, struct an_mem_event, free_ts, "Free µs",
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

static const struct sc_col gpu_cols[] = {
    COL("id", SC_INT, SC_PLAIN, SC_F_I32, struct an_gpu, id, "GPU", "device id"),
    FNC("name", SC_TEXT, SC_PLAIN, g_name, "Name", "device name, null when unknown"),
    FCOL("memory_bytes", SC_INT, SC_BYTES, g_dev_i64, struct model_device, total_mem, "Memory",
	 "total memory, bytes"),
    FNC("compute_capability", SC_TEXT, SC_PLAIN, g_cc, "CC", "\"major.minor\""),
    COL("utilization", SC_REAL, SC_RATIO, SC_F_DBL, struct an_gpu, utilization, "Utilization",
	"GPU busy share of the steps, 0..1"),
    FCOL("sm_efficiency", SC_REAL, SC_RATIO, sc_dbl_or_null, struct an_gpu, sm_efficiency,
	 "Est. SM eff.", "estimated SM efficiency, 0..1, null without blocks per SM"),
    FCOL("achieved_occupancy", SC_REAL, SC_PERCENT, sc_dbl_or_null, struct an_gpu,
	 achieved_occupancy, "Est. occupancy",
	 "estimated achieved occupancy, percent, null when not reported"),
    FCOL("tensor_core_ratio", SC_REAL, SC_RATIO, sc_dbl_or_null, struct an_gpu, tensor_core_ratio,
	 "Tensor cores",
	 "tensor-core kernel share of operators' kernel time, 0..1, null where the device "
	 "cannot have NVIDIA tensor cores (AMD, MTIA, pre-Volta)"),
    COL("kernel_us", SC_REAL, SC_US, SC_F_NS, struct an_gpu, kernel_time, "Kernel µs",
	"merged kernel busy time, µs"),
    FCOL("num_sms", SC_INT, SC_PLAIN, g_dev_i32, struct model_device, num_sms, "SMs",
	 "streaming multiprocessors"),
    FCOL("max_threads_per_sm", SC_INT, SC_PLAIN, g_dev_i32, struct model_device, max_threads_per_sm,
	 "Threads/SM", "maximum threads per SM"),
};

const struct sc_table sc_gpus = {"gpus", "GPU summary", gpu_cols, NCOLS(gpu_cols),
				 sizeof(struct an_gpu)};

/* ---- distributed (distributed.json) --------------------------------------- */

static void dw_step_time(const struct sc_col *c, const void *row, const struct sc_ctx *x,
			 struct sc_val *v)
{
	const struct an_dist_worker *w = row;

	if (w->step_time < 0)
		set_null(v);
	else
		v->d = w->step_time * 1e-3; /* as hta_dist wrote it: not / 1000.0 */
	v->ns = w->step_time;
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
    FCOL("overlap_pct", SC_REAL, SC_PERCENT, sc_dbl_or_null, struct an_dist_worker, overlap_pct,
	 "Overlap %",
	 "HTA: comm kernel time overlapped by compute, percent; null without comm kernels"),
    FNC("step_time_us", SC_REAL, SC_US, dw_step_time, "Step µs", "HTA: mean step time, µs"),
    FCOL("late_start", SC_REAL, SC_RATIO, sc_dbl_or_null, struct an_dist_worker, late_start,
	 "Late start", "HTA: how late the worker starts its steps, fraction of a step"),
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

/* a per-call mean of the int64 ns at c->off */
static void co_avg_us(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		      struct sc_val *v)
{
	const struct an_dist_comm_row *r = row;
	int64_t total;

	memcpy(&total, (const char *)row + c->off, sizeof(total));
	v->d = r->calls ? (double)total / 1000.0 / (double)r->calls : 0.0;
	v->ns = r->calls ? (double)total / (double)r->calls : 0.0;
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
    FCOL("avg_latency_us", SC_REAL, SC_US, co_avg_us, struct an_dist_comm_row, total_latency,
	 "Avg latency µs", "total_latency_us / calls"),
    FCOL("avg_transfer_us", SC_REAL, SC_US, co_avg_us, struct an_dist_comm_row, transfer,
	 "Avg transfer µs", "transfer_us / calls"),
};

const struct sc_table sc_comm_ops = {"comm_ops", "communication ops per worker (aux: an_dist)",
				     co_cols, NCOLS(co_cols), sizeof(struct an_dist_comm_row)};

/* ---- the diff's operators (the diff document's "ops") --------------------- */

/* each base_ field is followed by its exp_ field */
#define DIFF_PAIR(a, b)                                                                            \
	_Static_assert(offsetof(struct an_diff_row, b) ==                                          \
			   offsetof(struct an_diff_row, a) + sizeof(int64_t),                      \
		       #b " follows " #a)
DIFF_PAIR(base_calls, exp_calls);
DIFF_PAIR(base_host, exp_host);
DIFF_PAIR(base_dev, exp_dev);
DIFF_PAIR(base_host_self, exp_host_self);
DIFF_PAIR(base_dev_self, exp_dev_self);

/* exp - base of the pair at c->off: a count, or ns written as µs */
static void df_delta(const struct sc_col *c, const void *row, const struct sc_ctx *x,
		     struct sc_val *v)
{
	int64_t p[2];

	memcpy(p, (const char *)row + c->off, sizeof(p));
	if (c->unit == SC_US)
		set_us(v, p[1] - p[0]);
	else
		v->i = p[1] - p[0];
}

/* base_<n>, exp_<n> and delta_<n> of one pair */
#define DIFF_COLS(n, ty, un, src, base, exp, what)                                                 \
	COL("base_" n, ty, un, src, struct an_diff_row, base, "Base " what, "the base's " what),   \
	    COL("exp_" n, ty, un, src, struct an_diff_row, exp, "Exp " what,                       \
		"the experiment's " what),                                                         \
	    FCOL("delta_" n, ty, un, df_delta, struct an_diff_row, base, "Δ " what, "exp - base")

static const struct sc_col diff_cols[] = {
    COL("name", SC_TEXT, SC_PLAIN, SC_F_CHARS, struct an_diff_row, name, "Operator",
	"operator name (the union of both profiles')"),
    DIFF_COLS("calls", SC_INT, SC_COUNT, SC_F_I64, base_calls, exp_calls, "calls"),
    DIFF_COLS("host_total_us", SC_REAL, SC_US, SC_F_NS, base_host, exp_host, "host total µs"),
    DIFF_COLS("device_total_us", SC_REAL, SC_US, SC_F_NS, base_dev, exp_dev, "device total µs"),
    DIFF_COLS("host_self_us", SC_REAL, SC_US, SC_F_NS, base_host_self, exp_host_self,
	      "host self µs"),
    DIFF_COLS("device_self_us", SC_REAL, SC_US, SC_F_NS, base_dev_self, exp_dev_self,
	      "device self µs"),
};

const struct sc_table sc_diff_ops = {"diff_ops", "operators of two profiles: base, exp and delta",
				     diff_cols, NCOLS(diff_cols), sizeof(struct an_diff_row)};
