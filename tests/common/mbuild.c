/* mbuild.c - building models by hand in unit tests (mbuild.h). */
#include "mbuild.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

uint32_t mb_str(struct model *m, const char *s)
{
	return model_intern(m, s, strlen(s));
}

uint32_t mb_thr(struct model *m, const char *pid, const char *tid)
{
	return model_thread(m, mb_str(m, pid), mb_str(m, tid));
}

/* An event with the fields every helper sets (the rest as model_event_init). */
static struct model_event event(struct model *m, uint32_t th, int kind, const char *name,
				int64_t ts, int64_t dur, int64_t ext)
{
	struct model_event e;

	model_event_init(&e);
	e.name = mb_str(m, name);
	e.thread = th;
	e.kind = (uint8_t)kind;
	e.ts = ts;
	e.dur = dur;
	assert_int_equal(model_id_enc(m, ext, &e.ext_id_enc), 0);
	return e;
}

void mb_ev(struct model *m, uint32_t th, int kind, const char *name, int64_t ts, int64_t dur,
	   int64_t ext, int64_t corr)
{
	struct model_event e = event(m, th, kind, name, ts, dur, ext);

	assert_int_equal(model_id_enc(m, corr, &e.corr_enc), 0);
	if (kind == MK_KERNEL) {
		struct model_dev_args a;
		int64_t x;

		model_dev_args_init(&a);
		x = model_add_dev_args(m, &a);
		assert_true(x >= 0);
		e.extra = (uint32_t)x;
		e.device = 0;
	}
	assert_true(model_add_event(m, &e) >= 0);
}

/* An event of kind whose op args are *a. */
static void ev_with_args(struct model *m, uint32_t th, int kind, const char *name, int64_t ts,
			 int64_t dur, int64_t ext, const struct model_op_args *a)
{
	struct model_event e = event(m, th, kind, name, ts, dur, ext);
	int64_t x = model_add_op_args(m, a);

	assert_true(x >= 0);
	e.extra = (uint32_t)x;
	assert_true(model_add_event(m, &e) >= 0);
}

void mb_module(struct model *m, uint32_t th, const char *name, int64_t id, int64_t ts, int64_t dur)
{
	mb_module_py(m, th, name, id, MODEL_NONE, MODEL_NONE, ts, dur);
}

void mb_module_py(struct model *m, uint32_t th, const char *name, int64_t id, int64_t py_id,
		  int64_t py_parent, int64_t ts, int64_t dur)
{
	struct model_op_args a;

	model_op_args_init(&a);
	assert_int_equal(model_id_enc(m, id, &a.py_module_id_enc), 0);
	assert_int_equal(model_id_enc(m, py_id, &a.py_id_enc), 0);
	assert_int_equal(model_id_enc(m, py_parent, &a.py_parent_id_enc), 0);
	ev_with_args(m, th, MK_PYTHON_FUNCTION, name, ts, dur, MODEL_NONE, &a);
}

void mb_comm_op(struct model *m, uint32_t th, int kind, const char *name, int64_t ts, int64_t dur,
		int64_t ext, const char *dims, const char *types)
{
	struct model_op_args a;

	model_op_args_init(&a);
	a.input_dims = mb_str(m, dims);
	a.input_type = mb_str(m, types);
	ev_with_args(m, th, kind, name, ts, dur, ext, &a);
}

void mb_fwdbwd_flow(struct model *m, uint32_t th, char ph, int64_t id, int64_t ts)
{
	struct model_flow f;

	memset(&f, 0, sizeof(f));
	f.ts = ts;
	f.id = id;
	f.thread = th;
	f.kind = MF_FWDBWD;
	f.ph = ph;
	assert_int_equal(model_add_flow(m, &f), 0);
}

void mb_mem(struct model *m, uint32_t th, int64_t ts, int type, int id, int64_t addr, int64_t bytes)
{
	struct model_mem r;

	memset(&r, 0, sizeof(r));
	r.ts = ts;
	r.thread = th;
	r.device_type = (int16_t)type;
	r.device_id = (int16_t)id;
	r.addr = addr;
	r.bytes = bytes;
	r.flags = MODEL_MEM_HAS_ADDR;
	assert_int_equal(model_add_mem(m, &r), 0);
}

void mb_compute(struct an_profile *p, struct model *m, int finalize, const mb_pass *passes)
{
	struct nns_err err;

	memset(p, 0, sizeof(*p));
	p->m = m;
	if (finalize)
		assert_int_equal(model_finalize(m, &err), 0);
	for (; *passes; passes++)
		assert_int_equal((*passes)(p, &err), 0);
}
