/*
 * kineto_events.c - one traceEvents element -> model rows.
 *
 * An element is read into a struct kev (keys may come in any order: "args"
 * often precedes "ph"), then committed: "X" -> model_event (+ dev_args for
 * kernels/memcpy/memset, + op_args for host ops carrying shapes, call
 * stacks or Python ids), "i"/"I" "[memory]" -> model_mem, "s"/"f"/"t" ->
 * model_flow, "C" -> model_counter per numeric series, "M" process_name -> metadata
 * "process_name:<pid>", thread_name -> the thread's name, "B"/"E" -> pairs resolved after parsing
 * (kineto_pairs.c). Other phases are ignored. An "X" without "cat" on
 * the legacy torch.profiler pids is an operator or a kernel
 * (kineto_note.c). An element that is valid
 * JSON but unusable (an "X" without a numeric ts, ...) is skipped and
 * counted in m->diag.events_skipped, with the reason: a "ts" missing, not
 * a number or out of the model's range; a "dur" negative, not a number or
 * beyond the range. A key the importer reads that appears twice in one
 * event is read from its last occurrence and noted (m->diag.notes).
 */
#include "kineto_internal.h"
#include "common/strhash.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Container depth of an event's members: top object 1, traceEvents 2,
 * the event 3 (conservative for the bare-array form). */
#define EV_DEPTH 3
#define ARGS_DEPTH 4

/* Why a "ts" or "dur" was not taken (struct kev's bad_ts, bad_dur). */
enum { KT_OK = 0, KT_NAN, KT_RANGE };

/* The members an event may not repeat without a note (struct kev.seen). */
enum {
	KB_PH = 1,
	KB_TS = 2,
	KB_ID = 4,
	KB_CAT = 8,
	KB_PID = 16,
	KB_TID = 32,
	KB_DUR = 64,
	KB_NAME = 128,
	KB_ARGS = 256
};

struct kev {
	char ph;
	int has_ts, has_dur, has_id, bad_ts, bad_dur, has_op, has_cs, has_arg_name;
	unsigned seen;	    /* KB_* read so far */
	const char *dup;    /* the first repeated one's name, NULL if none */
	int kind, cat_code; /* of cat: kcat_memo */
	struct kstr name, cat, pid, tid, call_stack, arg_name;
	int64_t ts, dur, id;
	int64_t ext_id, corr, device;
	int64_t mtype, mid, maddr, mbytes, mtalloc, mtres;
	int mflags;
	int nseries;
	/* from here on kev_init does not clear: the args fields are set by
	 * kev_reset_args when "args" begins (commit_x sets dev's defaults for
	 * an event without "args"), the buffers and series when written */
	struct model_dev_args dev;
	struct model_op_args op;
	/* op's ids, read as int64 and encoded into op on commit */
	int64_t py_id, py_parent_id, py_module_id, seq, fwd_tid;
	char pidbuf[24], tidbuf[24];
	struct kstr skey[KP_SERIES_MAX];
	double sval[KP_SERIES_MAX];
};

static void kev_init(struct kev *e)
{
	memset(e, 0, offsetof(struct kev, dev));
	e->kind = MK_OTHER;
	e->ext_id = MODEL_NONE;
	e->corr = MODEL_NONE;
	e->device = -1;
	e->mtype = -1;
	e->mid = -1;
}

/* ---- members ----------------------------------------------------------------- */

/* pid/tid: the text of a string, or the decimal text of an integer, so that
 * 25738 and "25738" name the same thread. */
static int id_text(struct kparser *ps, const char **pp, struct kstr *out, char *buf)
{
	struct kval v;
	int r = kj_scalar(ps, pp, &v, EV_DEPTH);

	if (r)
		return r;
	out->p = "";
	out->n = 0;
	if (v.type == KV_STR) {
		*out = v.s;
	} else if (v.type == KV_NUM && v.num.is_int && v.num.p[0] >= '1' && v.num.p[0] <= '9') {
		*out = (struct kstr){v.num.p, v.num.n}; /* already canonical */
	} else if (v.type == KV_NUM && v.num.is_int && !v.num.ovf) {
		char rev[24];
		size_t n = 0, k = 0;
		uint64_t x = v.num.mag;
		do {
			rev[n++] = (char)('0' + x % 10);
			x /= 10;
		} while (x);
		if (v.num.neg && v.num.mag)
			buf[k++] = '-';
		while (n)
			buf[k++] = rev[--n];
		out->p = buf;
		out->n = k;
	} else if (v.type == KV_NUM) {
		out->p = v.num.p;
		out->n = v.num.n;
	} else if (v.type == KV_BOOL) {
		out->p = v.b ? "true" : "false";
		out->n = v.b ? 4 : 5;
	}
	return KP_OK;
}

/* ts/dur: microseconds -> ns; strings holding numbers are accepted. Sets
 * *has, or *bad to KT_NAN / KT_RANGE (a number that int64 ns cannot hold). */
static int time_value(struct kparser *ps, const char **pp, int64_t *out, int *has, int *bad)
{
	struct kval v;
	int r = kj_scalar(ps, pp, &v, EV_DEPTH);
	int64_t i;

	if (r)
		return r;
	*has = 0;
	*bad = KT_OK;
	if (v.type == KV_NUM) {
		if (kj_num_ns(&v.num, out) == 0)
			*has = 1;
		else
			*bad = KT_RANGE;
	} else if (v.type == KV_STR && kj_val_i64(&v, &i)) {
		if (i > -INT64_MAX / 1000 && i < INT64_MAX / 1000) {
			*out = i * 1000;
			*has = 1;
		} else {
			*bad = KT_RANGE;
		}
	} else {
		*bad = KT_NAN;
	}
	return KP_OK;
}

/* Notes member `name` (bit b) of e; the first repeated one is remembered. */
static void seen(struct kev *e, unsigned b, const char *name)
{
	if ((e->seen & b) && !e->dup)
		e->dup = name;
	e->seen |= b;
}

/* The fields "args" sets, to their defaults: when "args" begins (a
 * repeated "args": its last occurrence is kept, so the first one's fields
 * are forgotten). */
static void kev_reset_args(struct kev *e)
{
	e->has_op = e->has_cs = e->has_arg_name = 0;
	e->ext_id = e->corr = MODEL_NONE;
	e->device = e->mtype = e->mid = -1;
	e->maddr = e->mbytes = e->mtalloc = e->mtres = 0;
	e->mflags = 0;
	e->nseries = 0;
	e->py_id = e->py_parent_id = e->py_module_id = e->seq = e->fwd_tid = MODEL_NONE;
	model_dev_args_init(&e->dev);
	model_op_args_init(&e->op);
}

static void add_series(struct kev *e, struct kstr key, const struct kval *v)
{
	if (v->type == KV_NUM && e->nseries < KP_SERIES_MAX) {
		e->skey[e->nseries] = key;
		e->sval[e->nseries] = kj_num_double(&v->num);
		e->nseries++;
	}
}

static int set_i64(struct kparser *ps, const char **pp, int64_t *dst, struct kev *e,
		   struct kstr key, int collect)
{
	struct kval v;
	int64_t x;
	int r = kj_scalar(ps, pp, &v, ARGS_DEPTH);

	if (r)
		return r;
	if (kj_val_i64(&v, &x))
		*dst = x;
	if (collect)
		add_series(e, key, &v);
	return KP_OK;
}

static int set_f32(struct kparser *ps, const char **pp, float *dst, struct kev *e, struct kstr key,
		   int collect)
{
	struct kval v;
	double x;
	int r = kj_scalar(ps, pp, &v, ARGS_DEPTH);

	if (r)
		return r;
	if (kj_val_f64(&v, &x))
		*dst = (float)x;
	if (collect)
		add_series(e, key, &v);
	return KP_OK;
}

/* A nested value's repr text, interned; *dst keeps 0 when it is too long. */
static int set_repr(struct kparser *ps, const char **pp, uint32_t *dst)
{
	int r = kj_repr(ps, pp, ARGS_DEPTH, 1);
	uint32_t id;

	if (r)
		return r;
	if (ps->tmp_over)
		return KP_OK;
	id = model_intern(ps->m, ps->tmp.p ? ps->tmp.p : "", ps->tmp.len);
	if (id == STRPOOL_NONE)
		return kp_nomem(ps, *pp);
	*dst = id;
	return KP_OK;
}

/* Bytes per element of a c10 ScalarType name, as record_param_comms writes
 * "dtype" (c10::toString): 0 for an unknown name. */
static int32_t dtype_size(struct kstr d)
{
	static const struct {
		const char *name;
		int32_t size;
	} tab[] = {
	    {"Byte", 1},
	    {"Char", 1},
	    {"Bool", 1},
	    {"QInt8", 1},
	    {"QUInt8", 1},
	    {"Float8_e5m2", 1},
	    {"Float8_e4m3fn", 1},
	    {"Float8_e5m2fnuz", 1},
	    {"Float8_e4m3fnuz", 1},
	    {"UInt8", 1},
	    {"Int8", 1},
	    {"Short", 2},
	    {"Half", 2},
	    {"BFloat16", 2},
	    {"UInt16", 2},
	    {"ComplexHalf", 4},
	    {"Int", 4},
	    {"Float", 4},
	    {"QInt32", 4},
	    {"UInt32", 4},
	    {"Long", 8},
	    {"Double", 8},
	    {"ComplexFloat", 8},
	    {"UInt64", 8},
	    {"ComplexDouble", 16},
	};
	size_t i;

	for (i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (strlen(tab[i].name) == d.n && memcmp(tab[i].name, d.p, d.n) == 0)
			return tab[i].size;
	return 0;
}

/* What the arg_* helpers return for a key that is none of theirs. */
#define ARG_OTHER 3

/* The args keys of 4 to 11 bytes: launch geometry, memory records, the
 * operator's inputs, ids and call stack. */
static int arg_short(struct kparser *ps, const char **pp, struct kev *e, struct kstr k, int collect)
{
	int r;

#define I64(dst) return set_i64(ps, pp, (dst), e, k, collect)
	switch (k.n) {
	case 4:
		if (KJ_EQ(k, "grid"))
			return set_repr(ps, pp, &e->dev.grid);
		if (KJ_EQ(k, "Addr")) {
			e->mflags |= MODEL_MEM_HAS_ADDR;
			I64(&e->maddr);
		}
		if (KJ_EQ(k, "name") && **pp == '"') {
			e->has_arg_name = 1;
			return kj_string(ps, pp, &e->arg_name);
		}
		break;
	case 5:
		if (KJ_EQ(k, "block"))
			return set_repr(ps, pp, &e->dev.block);
		if (KJ_EQ(k, "bytes"))
			I64(&e->dev.bytes);
		if (KJ_EQ(k, "Bytes"))
			I64(&e->mbytes);
		if (KJ_EQ(k, "dtype") && **pp == '"') {
			struct kstr d;

			if ((r = kj_string(ps, pp, &d)))
				return r;
			e->dev.comm_elem_size = e->op.comm_elem_size = dtype_size(d);
			e->has_op = 1;
			return KP_OK;
		}
		break;
	case 6:
		if (KJ_EQ(k, "device"))
			I64(&e->device);
		if (KJ_EQ(k, "stream"))
			I64(&e->dev.stream);
		break;
	case 9:
		if (KJ_EQ(k, "Device Id"))
			I64(&e->mid);
		if (KJ_EQ(k, "Python id")) {
			e->has_op = 1;
			I64(&e->py_id);
		}
		break;
	case 10:
		if (KJ_EQ(k, "Input Dims") || KJ_EQ(k, "Input dims")) {
			e->has_op = 1;
			return set_repr(ps, pp, &e->op.input_dims);
		}
		if (KJ_EQ(k, "Input type")) {
			e->has_op = 1;
			return set_repr(ps, pp, &e->op.input_type);
		}
		if (KJ_EQ(k, "Call stack") && **pp == '"') {
			e->has_op = e->has_cs = 1;
			return kj_string(ps, pp, &e->call_stack);
		}
		break;
	case 11:
		if (KJ_EQ(k, "External id") || KJ_EQ(k, "external id"))
			I64(&e->ext_id);
		if (KJ_EQ(k, "correlation"))
			I64(&e->corr);
		if (KJ_EQ(k, "Device Type"))
			I64(&e->mtype);
		break;
	}
#undef I64
	return ARG_OTHER;
}

/* The args keys of 13 to 16 bytes: collective sizes, memory totals and
 * the operator's sequence / Python ids. */
static int arg_mid(struct kparser *ps, const char **pp, struct kev *e, struct kstr k, int collect)
{
	int64_t x;
	int r;

#define I64(dst) return set_i64(ps, pp, (dst), e, k, collect)
	switch (k.n) {
	case 13:
		if (KJ_EQ(k, "shared memory"))
			I64(&e->dev.shared_mem);
		if (KJ_EQ(k, "In msg nelems")) {
			x = 0;
			if ((r = set_i64(ps, pp, &x, e, k, collect)))
				return r;
			e->dev.comm_nelems = e->op.comm_nelems = x > 0 ? x : 0;
			e->has_op = 1;
			return KP_OK;
		}
		if (KJ_EQ(k, "blocks per SM"))
			return set_f32(ps, pp, &e->dev.blocks_per_sm, e, k, collect);
		if (KJ_EQ(k, "Fwd thread id")) {
			e->has_op = 1;
			I64(&e->fwd_tid);
		}
		break;
	case 14:
		if (KJ_EQ(k, "wait_on_stream"))
			I64(&e->dev.wait_stream);
		if (KJ_EQ(k, "Total Reserved")) {
			e->mflags |= MODEL_MEM_HAS_TOTAL_RESERVED;
			I64(&e->mtres);
		}
		break;
	case 15:
		if (KJ_EQ(k, "Total Allocated")) {
			e->mflags |= MODEL_MEM_HAS_TOTAL_ALLOC;
			I64(&e->mtalloc);
		}
		if (KJ_EQ(k, "Sequence number")) {
			e->has_op = 1;
			I64(&e->seq);
		}
		break;
	case 16:
		if (KJ_EQ(k, "Python parent id")) {
			e->has_op = 1;
			I64(&e->py_parent_id);
		}
		if (KJ_EQ(k, "Python module id")) {
			e->has_op = 1;
			I64(&e->py_module_id);
		}
		break;
	}
#undef I64
	return ARG_OTHER;
}

/* The args keys of 20 bytes and more: the kernel's registers, bandwidth,
 * occupancy and the event it waits on. */
static int arg_long(struct kparser *ps, const char **pp, struct kev *e, struct kstr k, int collect)
{
	int64_t x;
	struct kval v;
	int r;

#define I64(dst) return set_i64(ps, pp, (dst), e, k, collect)
	switch (k.n) {
	case 20:
		if (KJ_EQ(k, "registers per thread")) {
			x = INT64_MIN;
			if ((r = set_i64(ps, pp, &x, e, k, collect)))
				return r;
			if (x != INT64_MIN)
				e->dev.regs = x > INT32_MAX ? INT32_MAX : x < 0 ? -1 : (int32_t)x;
			return KP_OK;
		}
		break;
	case 23:
		if (KJ_EQ(k, "memory bandwidth (GB/s)")) {
			double bw = 0;

			if ((r = kj_scalar(ps, pp, &v, ARGS_DEPTH)))
				return r;
			/* kept only when > 0 (not 0, negative or NaN) */
			e->dev.mem_bw = kj_val_f64(&v, &bw) && bw > 0 ? bw : 0;
			if (collect)
				add_series(e, k, &v);
			return KP_OK;
		}
		break;
	case 25:
		if (KJ_EQ(k, "est. achieved occupancy %"))
			return set_f32(ps, pp, &e->dev.occupancy, e, k, collect);
		break;
	case 33:
		if (KJ_EQ(k, "wait_on_cuda_event_record_corr_id"))
			I64(&e->dev.wait_corr);
		break;
	}
#undef I64
	return ARG_OTHER;
}

/* One member of an event's args: a known key fills its field of e; any
 * other becomes a counter series (ph "C", or a metadata-less event) or is
 * skipped. */
static int arg_member(struct kparser *ps, const char **pp, struct kev *e, struct kstr k)
{
	int collect = e->ph == 0 || e->ph == 'C';
	struct kval v;
	int r = k.n <= 11   ? arg_short(ps, pp, e, k, collect)
		: k.n <= 16 ? arg_mid(ps, pp, e, k, collect)
			    : arg_long(ps, pp, e, k, collect);

	if (r != ARG_OTHER)
		return r;
	if (!collect)
		return kj_skip(ps, pp, ARGS_DEPTH);
	if ((r = kj_scalar(ps, pp, &v, ARGS_DEPTH)))
		return r;
	add_series(e, k, &v);
	return KP_OK;
}

static int parse_args(struct kparser *ps, const char **pp, struct kev *e)
{
	const char *p = *pp;
	struct kstr key;
	int r, more = 1;

	if (*p != '{')
		return kj_skip(ps, pp, EV_DEPTH);
	p = kj_ws(p + 1);
	if (*p == '}') {
		*pp = p + 1;
		return KP_OK;
	}
	while (more) {
		if (*p != '"')
			return kp_unexpected(ps, p, "expected a key string in \"args\"");
		if ((r = kj_string(ps, &p, &key)) || (r = kj_colon(ps, &p)) ||
		    (r = arg_member(ps, &p, e, key)) ||
		    (r = kj_next(ps, &p, '}', "in \"args\" object", &more)))
			return r;
	}
	*pp = p;
	return KP_OK;
}

/* A flow's "id"/"bind_id": a number (or numeric text, "0x10"), else, as
 * Chrome's trace format allows, any string (MindSpore's step trace writes
 * "Data_aug Bound 1"): its FNV-1a hash with bit 62 set, so that the events
 * of one string id pair and stay apart from small numeric ids. 1 when v
 * gives an id. */
static int flow_id(const struct kval *v, int64_t *id)
{
	if (kj_val_i64(v, id))
		return 1;
	if (v->type != KV_STR || v->s.n == 0)
		return 0;
	*id = (int64_t)((strhash_add(STRHASH_INIT, v->s.p, v->s.n) & ((1ull << 62) - 1)) |
			(1ull << 62));
	return 1;
}

static int ev_member(struct kparser *ps, const char **pp, struct kev *e, struct kstr k)
{
	struct kval v;
	int r;

	switch (k.n) {
	case 2:
		if (KJ_EQ(k, "ph")) {
			seen(e, KB_PH, "ph");
			if ((r = kj_scalar(ps, pp, &v, EV_DEPTH)))
				return r;
			e->ph = (v.type == KV_STR && v.s.n == 1) ? v.s.p[0] : '?';
			return KP_OK;
		}
		if (KJ_EQ(k, "ts")) {
			seen(e, KB_TS, "ts");
			return time_value(ps, pp, &e->ts, &e->has_ts, &e->bad_ts);
		}
		if (KJ_EQ(k, "id")) {
			seen(e, KB_ID, "id");
			if ((r = kj_scalar(ps, pp, &v, EV_DEPTH)))
				return r;
			e->has_id = flow_id(&v, &e->id);
			return KP_OK;
		}
		break;
	case 3:
		if (KJ_EQ(k, "cat")) {
			seen(e, KB_CAT, "cat");
			if ((r = kj_scalar(ps, pp, &v, EV_DEPTH)))
				return r;
			e->cat = (struct kstr){"", 0};
			e->kind = MK_OTHER;
			e->cat_code = 0;
			if (v.type == KV_STR) {
				e->cat = v.s;
				kcat_memo(ps, v.s, &e->kind, &e->cat_code);
			}
			return KP_OK;
		}
		if (KJ_EQ(k, "pid")) {
			seen(e, KB_PID, "pid");
			return id_text(ps, pp, &e->pid, e->pidbuf);
		}
		if (KJ_EQ(k, "tid")) {
			seen(e, KB_TID, "tid");
			return id_text(ps, pp, &e->tid, e->tidbuf);
		}
		if (KJ_EQ(k, "dur")) {
			seen(e, KB_DUR, "dur");
			return time_value(ps, pp, &e->dur, &e->has_dur, &e->bad_dur);
		}
		break;
	case 4:
		if (KJ_EQ(k, "name")) {
			seen(e, KB_NAME, "name");
			if ((r = kj_scalar(ps, pp, &v, EV_DEPTH)))
				return r;
			e->name = (struct kstr){"", 0};
			if (v.type == KV_STR)
				e->name = v.s;
			else if (v.type == KV_NUM)
				e->name = (struct kstr){v.num.p, v.num.n};
			return KP_OK;
		}
		if (KJ_EQ(k, "args")) {
			kev_reset_args(e);
			seen(e, KB_ARGS, "args");
			return parse_args(ps, pp, e);
		}
		break;
	case 7:
		if (KJ_EQ(k, "bind_id")) {
			if ((r = kj_scalar(ps, pp, &v, EV_DEPTH)))
				return r;
			if (!e->has_id)
				e->has_id = flow_id(&v, &e->id);
			return KP_OK;
		}
		break;
	}
	return kj_skip(ps, pp, EV_DEPTH);
}

/* ---- commit ------------------------------------------------------------------ */

static int16_t clamp16(int64_t v)
{
	return v > INT16_MAX ? INT16_MAX : v < INT16_MIN ? INT16_MIN : (int16_t)v;
}

static int is_host(int k)
{
	return k == MK_CPU_OP || k == MK_USER_ANNOTATION || k == MK_PYTHON ||
	       k == MK_PYTHON_FUNCTION || k == MK_OTHER;
}

/* Skips the event at `at` when its "ts" is missing, not a number or out
 * of the model's range, saying which; `what` names the kind of event.
 * Returns 1 when skipped. */
static int bad_ts(struct kparser *ps, const struct kev *e, const char *at, const char *what)
{
	char why[160];

	if (e->has_ts && e->ts >= MODEL_TIME_MIN && e->ts <= MODEL_TIME_MAX)
		return 0;
	if (e->has_ts || e->bad_ts == KT_RANGE)
		snprintf(why, sizeof(why),
			 "%s with a \"ts\" out of range (-1.15e15 .. 3.46e15 us) skipped", what);
	else if (e->bad_ts == KT_NAN)
		snprintf(why, sizeof(why), "%s with a non-numeric \"ts\" skipped", what);
	else
		snprintf(why, sizeof(why), "%s without \"ts\" skipped", what);
	kp_skipped(ps, at, why);
	return 1;
}

/* The same for the "dur" of a complete event: absent is 0, but negative,
 * not a number or beyond the model's range skips the event. */
static int bad_dur(struct kparser *ps, const struct kev *e, const char *at)
{
	const char *why = NULL;

	if (e->bad_dur == KT_RANGE || (e->has_dur && e->dur > MODEL_DUR_MAX))
		why = "complete event with a \"dur\" beyond the trace's range (4.6e15 us) skipped";
	else if (e->has_dur && e->dur < 0)
		why = "complete event with a negative \"dur\" skipped";
	else if (e->bad_dur == KT_NAN)
		why = "complete event with a non-numeric \"dur\" skipped";
	if (why)
		kp_skipped(ps, at, why);
	return why != NULL;
}

static int commit_x(struct kparser *ps, struct kev *e, const char *at)
{
	struct model *m = ps->m;
	struct model_event ev;
	int64_t idx;

	if (bad_ts(ps, e, at, "complete event") || bad_dur(ps, e, at))
		return KP_OK;
	if (e->kind == MK_OTHER && !e->cat.n) /* torch.profiler's legacy format? */
		e->kind = kleg_kind(e->pid, e->tid, &e->device);
	if (e->kind == MK_OTHER && e->cat.n && !kcat_known_other(e->cat))
		model_diag_count_cat(&m->diag, e->cat.p, e->cat.n);
	model_event_init(&ev);
	ev.ts = e->ts;
	ev.dur = e->has_dur ? e->dur : 0;
	if (model_event_ids(m, &ev, e->ext_id, e->corr))
		return kp_nomem(ps, at);
	ev.kind = (uint8_t)e->kind;
	if (e->cat.n)
		ev.flags = (uint8_t)(e->cat_code << MODEL_EF_SRCCAT_SHIFT);
	ev.thread = kev_thread(ps, e->pid, e->tid);
	ev.name = model_intern(m, e->name.p, e->name.n);
	if (ev.thread == MODEL_NOIDX || ev.name == STRPOOL_NONE)
		return kp_nomem(ps, at);
	if (model_kind_is_device(e->kind) || e->kind == MK_GPU_ANNOTATION || e->kind == MK_SYNC)
		ev.device = e->device >= 0 ? clamp16(e->device) : -1;
	if (model_kind_has_dev_args(e->kind)) {
		if (!(e->seen & KB_ARGS))
			model_dev_args_init(&e->dev);
		if ((idx = model_add_dev_args(m, &e->dev)) < 0)
			return kp_nomem(ps, at);
		ev.extra = (uint32_t)idx;
	} else if (is_host(e->kind) && e->has_op) {
		if (e->has_cs) {
			e->op.call_stack = model_intern(m, e->call_stack.p, e->call_stack.n);
			if (e->op.call_stack == STRPOOL_NONE)
				return kp_nomem(ps, at);
		}
		if (model_id_enc(m, e->py_id, &e->op.py_id_enc) ||
		    model_id_enc(m, e->py_parent_id, &e->op.py_parent_id_enc) ||
		    model_id_enc(m, e->py_module_id, &e->op.py_module_id_enc) ||
		    model_id_enc(m, e->seq, &e->op.seq_enc) ||
		    model_id_enc(m, e->fwd_tid, &e->op.fwd_tid_enc) ||
		    (idx = model_add_op_args(m, &e->op)) < 0)
			return kp_nomem(ps, at);
		ev.extra = (uint32_t)idx;
	}
	if (model_add_event(m, &ev) < 0)
		return kp_nomem(ps, at);
	return KP_OK;
}

static int commit_mem(struct kparser *ps, struct kev *e, const char *at)
{
	struct model_mem r;

	if (bad_ts(ps, e, at, "[memory] event"))
		return KP_OK;
	memset(&r, 0, sizeof(r));
	r.ts = e->ts;
	r.addr = e->maddr;
	r.bytes = e->mbytes;
	r.total_allocated = e->mtalloc;
	r.total_reserved = e->mtres;
	r.device_type = clamp16(e->mtype);
	r.device_id = clamp16(e->mid);
	r.flags = (uint8_t)e->mflags;
	r.thread = kev_thread(ps, e->pid, e->tid);
	if (r.thread == MODEL_NOIDX || model_add_mem(ps->m, &r))
		return kp_nomem(ps, at);
	return KP_OK;
}

static int commit_flow(struct kparser *ps, struct kev *e, const char *at)
{
	struct model_flow f;

	if (bad_ts(ps, e, at, "flow event"))
		return KP_OK;
	if (!e->has_id) {
		kp_skipped(ps, at, "flow event without an \"id\" skipped");
		return KP_OK;
	}
	memset(&f, 0, sizeof(f));
	f.ts = e->ts;
	f.id = e->id;
	f.kind = (uint8_t)kcat_flow_kind(e->cat);
	f.ph = e->ph;
	f.thread = kev_thread(ps, e->pid, e->tid);
	if (f.thread == MODEL_NOIDX || model_add_flow(ps->m, &f))
		return kp_nomem(ps, at);
	return KP_OK;
}

static int commit_counter(struct kparser *ps, struct kev *e, const char *at)
{
	struct model_counter c;
	int i;

	if (bad_ts(ps, e, at, "counter event"))
		return KP_OK;
	c.ts = e->ts;
	c.thread = kev_thread(ps, e->pid, e->tid);
	if (c.thread == MODEL_NOIDX)
		return kp_nomem(ps, at);
	for (i = 0; i < e->nseries; i++) {
		if (e->nseries == 1) {
			c.name = model_intern(ps->m, e->name.p, e->name.n);
		} else {
			buf_reset(&ps->tmp);
			ps->tmp_over = 0;
			kj_tmp_put(ps, e->name.p, e->name.n);
			kj_tmp_put(ps, ".", 1);
			kj_tmp_put(ps, e->skey[i].p, e->skey[i].n);
			if (ps->tmp_over)
				continue;
			c.name = model_intern(ps->m, ps->tmp.p, ps->tmp.len);
		}
		c.value = e->sval[i];
		if (c.name == STRPOOL_NONE || model_add_counter(ps->m, &c))
			return kp_nomem(ps, at);
	}
	return KP_OK;
}

static int commit_be(struct kparser *ps, struct kev *e, const char *at)
{
	struct kbe b;

	if (bad_ts(ps, e, at, "B/E event"))
		return KP_OK;
	memset(&b, 0, sizeof(b));
	b.ts = e->ts;
	b.ext_id = e->ext_id;
	b.kind = (uint8_t)e->kind;
	b.ph = e->ph;
	if (kbe_push(ps, &b, e->pid, e->tid, e->name))
		return kp_nomem(ps, at);
	return KP_OK;
}

static int commit(struct kparser *ps, struct kev *e, const char *at)
{
	uint32_t t, n;

	switch (e->ph) {
	case 'X':
		return commit_x(ps, e, at);
	case 'i':
	case 'I':
		if (KJ_EQ(e->name, "[memory]"))
			return commit_mem(ps, e, at);
		return KP_OK;
	case 's':
	case 'f':
	case 't':
		return commit_flow(ps, e, at);
	case 'C':
		return commit_counter(ps, e, at);
	case 'B':
	case 'E':
		return commit_be(ps, e, at);
	case 'M':
		if (KJ_EQ(e->name, "thread_name") && e->has_arg_name) {
			t = kev_thread(ps, e->pid, e->tid);
			n = model_intern(ps->m, e->arg_name.p, e->arg_name.n);
			if (t == MODEL_NOIDX || n == STRPOOL_NONE)
				return kp_nomem(ps, at);
			ps->m->threads.v[t].name = n;
		} else if (KJ_EQ(e->name, "process_name") && e->has_arg_name && e->pid.n < 200 &&
			   e->arg_name.n < 1000) {
			/* kept as metadata "process_name:<pid>" (model_process_name) */
			char key[216], val[1001];

			snprintf(key, sizeof(key), "process_name:%.*s", (int)e->pid.n, e->pid.p);
			snprintf(val, sizeof(val), "%.*s", (int)e->arg_name.n, e->arg_name.p);
			if (model_add_meta(ps->m, key, val))
				return kp_nomem(ps, at);
		}
		return KP_OK;
	case 0:
		kp_skipped(ps, at, "event without \"ph\" skipped");
		return KP_OK;
	default:
		return KP_OK;
	}
}

int kev_element(struct kparser *ps, const char **pp)
{
	const char *p = *pp, *at = p;
	struct kstr key;
	struct kev e;
	int r, more = 1;

	if (*p != '{') {
		if ((r = kj_skip(ps, pp, 2)))
			return r;
		kp_skipped(ps, at, "traceEvents element that is not an object skipped");
		ps->non_objects++;
		return KP_OK;
	}
	kev_init(&e);
	e.pid.p = e.tid.p = e.name.p = e.cat.p = "";
	p = kj_ws(p + 1);
	if (*p == '}') {
		p++;
		more = 0;
	}
	while (more) {
		if (*p != '"')
			return kp_unexpected(ps, p, "expected a key string in event object");
		if ((r = kj_string(ps, &p, &key)) || (r = kj_colon(ps, &p)) ||
		    (r = ev_member(ps, &p, &e, key)) ||
		    (r = kj_next(ps, &p, '}', "in event object", &more)))
			return r;
	}
	if ((r = commit(ps, &e, at)))
		return r;
	if (e.dup) {
		char what[96];

		snprintf(what, sizeof(what),
			 "event with a repeated \"%s\" key: its last occurrence is kept", e.dup);
		kp_note(ps, kp_off(ps, at), what);
	}
	*pp = p;
	return KP_OK;
}
