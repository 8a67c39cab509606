/*
 * event_args.c - an event's arguments under Kineto's names ("External id",
 * "Input Dims", "grid", ...), shared by the Chrome-trace export and the
 * server's event details (output.h, out_json_event_args).
 */
#include "output/output.h"

static void kv_str(const struct model *m, struct jsonw *w, const char *k, uint32_t sid)
{
	if (sid)
		jsonw_kstr(w, k, model_str(m, sid));
}

static void kv_int(struct jsonw *w, const char *k, int64_t v)
{
	if (v != MODEL_NONE)
		jsonw_kint(w, k, v);
}

static void kv_nonneg(struct jsonw *w, const char *k, int64_t v)
{
	if (v >= 0)
		jsonw_kint(w, k, v);
}

/* A device event's or a sync's device, stream and launch arguments. */
static void device_args(struct jsonw *w, const struct model *m, const struct model_event *e)
{
	const struct model_dev_args *a;

	kv_nonneg(w, "device", e->device);
	if (e->extra == MODEL_NOIDX || e->extra >= m->dev_args.n)
		return;
	a = &m->dev_args.v[e->extra];
	kv_nonneg(w, "stream", a->stream);
	if (e->kind == MK_SYNC) {
		kv_nonneg(w, "wait_on_stream", a->wait_stream);
		kv_int(w, "wait_on_cuda_event_record_corr_id", a->wait_corr);
		return;
	}
	kv_str(m, w, "grid", a->grid);
	kv_str(m, w, "block", a->block);
	kv_nonneg(w, "registers per thread", a->regs);
	kv_nonneg(w, "shared memory", a->shared_mem);
	if (a->blocks_per_sm >= 0)
		jsonw_kdouble(w, "blocks per SM", a->blocks_per_sm);
	if (a->occupancy >= 0)
		jsonw_kdouble(w, "est. achieved occupancy %", a->occupancy);
	kv_nonneg(w, "bytes", a->bytes);
}

void out_json_event_args(struct jsonw *w, const struct model *m, const struct model_event *e)
{
	kv_int(w, "External id", model_ext_id(m, e));
	kv_int(w, "correlation", model_corr(m, e));
	if (model_kind_has_dev_args(e->kind)) {
		device_args(w, m, e);
	} else if (e->extra != MODEL_NOIDX && e->extra < m->op_args.n) {
		const struct model_op_args *a = &m->op_args.v[e->extra];

		kv_str(m, w, "Input Dims", a->input_dims);
		kv_str(m, w, "Input type", a->input_type);
		kv_str(m, w, "Call stack", a->call_stack);
		kv_int(w, "Python id", model_id_dec(m, a->py_id_enc));
		kv_int(w, "Python parent id", model_id_dec(m, a->py_parent_id_enc));
		kv_int(w, "Python module id", model_id_dec(m, a->py_module_id_enc));
		kv_int(w, "Sequence number", model_id_dec(m, a->seq_enc));
		kv_int(w, "Fwd thread id", model_id_dec(m, a->fwd_tid_enc));
	}
}
