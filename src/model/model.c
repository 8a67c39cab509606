/* model.c - building, merging and finalizing the in-memory trace (model.h). */
#include "model.h"
#include "common/num.h"

#include <stdlib.h>
#include <string.h>

int model_init(struct model *m)
{
	memset(m, 0, sizeof(*m));
	if (strpool_init(&m->strings))
		return NNS_ENOMEM;
	hmap_init(&m->thread_ix);
	m->schema_version = -1;
	m->dist_rank = -1;
	m->dist_world_size = -1;
	m->pid = -1;
	m->mono_offset_ns = MODEL_NONE;
	return NNS_OK;
}

/* Forgets the arrays a snapshot's mapping holds, so that only the rest is
 * freed. */
static void forget_mapped(struct model *m)
{
#define FORGET(p)                                                                                  \
	do {                                                                                       \
		if (snap_map_holds(&m->map, (p)))                                                  \
			(p) = NULL;                                                                \
	} while (0)
	FORGET(m->threads.v);
	FORGET(m->events.v);
	FORGET(m->dev_args.v);
	FORGET(m->op_args.v);
	FORGET(m->mems.v);
	FORGET(m->flows.v);
	FORGET(m->counters.v);
	FORGET(m->devices.v);
	FORGET(m->queues.v);
	FORGET(m->samples.v);
	FORGET(m->instants.v);
	FORGET(m->meta.v);
	FORGET(m->host.v);
	FORGET(m->wide_ids.v);
	FORGET(m->launch_of);
	FORGET(m->parent);
	FORGET(m->depth);
	FORGET(m->op_of);
	FORGET(m->thread_pid);
	FORGET(m->thread_tid);
#undef FORGET
}

void model_release(struct model *m)
{
	struct snap_map map = m->map;

	forget_mapped(m);
	strpool_release(&m->strings);
	vec_free(&m->threads);
	vec_free(&m->events);
	vec_free(&m->dev_args);
	vec_free(&m->op_args);
	vec_free(&m->mems);
	vec_free(&m->flows);
	vec_free(&m->counters);
	vec_free(&m->devices);
	vec_free(&m->queues);
	vec_free(&m->samples);
	vec_free(&m->instants);
	vec_free(&m->meta);
	vec_free(&m->host);
	vec_free(&m->wide_ids);
	hmap_release(&m->thread_ix);
	free(m->launch_of);
	model_index_release(m);
	memset(m, 0, sizeof(*m));
	snap_map_release(&map);
}

void model_event_init(struct model_event *e)
{
	memset(e, 0, sizeof(*e));
	e->ext_id_enc = MODEL_ID_NONE;
	e->corr_enc = MODEL_ID_NONE;
	e->extra = MODEL_NOIDX;
	e->kind = MK_OTHER;
	e->device = -1;
}

int model_id_enc(struct model *m, int64_t id, uint32_t *enc)
{
	if (id == MODEL_NONE) {
		*enc = MODEL_ID_NONE;
		return NNS_OK;
	}
	if (id >= 0 && id < (int64_t)MODEL_ID_WIDE) {
		*enc = (uint32_t)id;
		return NNS_OK;
	}
	if (m->wide_ids.n >= MODEL_ID_WIDE - 1 || vec_push(&m->wide_ids, id))
		return NNS_ENOMEM;
	*enc = MODEL_ID_WIDE | (uint32_t)(m->wide_ids.n - 1);
	return NNS_OK;
}

int model_event_ids(struct model *m, struct model_event *e, int64_t ext_id, int64_t corr)
{
	uint32_t x, c;

	if (model_id_enc(m, ext_id, &x) || model_id_enc(m, corr, &c))
		return NNS_ENOMEM;
	e->ext_id_enc = x;
	e->corr_enc = c;
	return NNS_OK;
}

void model_dev_args_init(struct model_dev_args *a)
{
	memset(a, 0, sizeof(*a));
	a->stream = -1;
	a->shared_mem = -1;
	a->blocks_per_sm = -1;
	a->occupancy = -1;
	a->regs = -1;
	a->bytes = -1;
	a->wait_stream = -1;
	a->wait_corr = MODEL_NONE;
}

void model_op_args_init(struct model_op_args *a)
{
	memset(a, 0, sizeof(*a));
	a->py_id_enc = MODEL_ID_NONE;
	a->py_parent_id_enc = MODEL_ID_NONE;
	a->py_module_id_enc = MODEL_ID_NONE;
	a->seq_enc = MODEL_ID_NONE;
	a->fwd_tid_enc = MODEL_ID_NONE;
}

#define ROWS(vec) ((vec).n * sizeof(*(vec).v))

size_t model_mem_bytes(const struct model *m)
{
	size_t b = ROWS(m->threads) + ROWS(m->events) + ROWS(m->dev_args) + ROWS(m->op_args) +
		   ROWS(m->mems) + ROWS(m->flows) + ROWS(m->counters) + ROWS(m->devices) +
		   ROWS(m->queues) + ROWS(m->samples) + ROWS(m->instants) + ROWS(m->meta) +
		   ROWS(m->host) + ROWS(m->wide_ids);

	/* per string: its pointer, length and hash, and ~2 table slots */
	b += m->strings.bytes + m->strings.count * (sizeof(char *) + 2 * sizeof(uint32_t) + 8);
	if (m->thread_ix.t)
		b += (m->thread_ix.mask + 1) * sizeof(*m->thread_ix.t);
	if (m->finalized)
		b += m->events.n * (sizeof(*m->launch_of) + sizeof(*m->parent) + sizeof(*m->depth) +
				    sizeof(*m->op_of)) +
		     m->threads.n * (sizeof(*m->thread_pid) + sizeof(*m->thread_tid));
	return b;
}
#undef ROWS

uint32_t model_thread(struct model *m, uint32_t pid, uint32_t tid)
{
	int is_new;
	uint32_t *ix;

	/* room first, so that a key is never left without its row */
	if (m->threads.n >= UINT32_MAX - 1 ||
	    (m->threads.n == m->threads.cap && vec_reserve(&m->threads, m->threads.n + 1)))
		return MODEL_NOIDX;
	ix = hmap_put(&m->thread_ix, hmap_pair(pid, tid), (uint32_t)m->threads.n, &is_new);
	if (!ix)
		return MODEL_NOIDX;
	if (is_new)
		m->threads.v[m->threads.n++] = (struct model_thread){pid, tid, 0};
	return *ix;
}

#define ADD_ROW(vec, row)                                                                          \
	do {                                                                                       \
		if ((vec)->n >= UINT32_MAX - 1 || vec_push((vec), *(row)))                         \
			return NNS_ENOMEM;                                                         \
		return (int64_t)((vec)->n - 1);                                                    \
	} while (0)

static int64_t clamp_time(int64_t v)
{
	return v > MODEL_TIME_MAX ? MODEL_TIME_MAX : v < MODEL_TIME_MIN ? MODEL_TIME_MIN : v;
}

int64_t model_add_event(struct model *m, const struct model_event *e)
{
	struct model_event c = *e;

	c.ts = clamp_time(c.ts);
	c.dur = c.dur < 0 ? 0 : c.dur > MODEL_DUR_MAX ? MODEL_DUR_MAX : c.dur;
	ADD_ROW(&m->events, &c);
}

int64_t model_add_dev_args(struct model *m, const struct model_dev_args *a)
{
	ADD_ROW(&m->dev_args, a);
}

int64_t model_add_op_args(struct model *m, const struct model_op_args *a)
{
	ADD_ROW(&m->op_args, a);
}

int model_add_mem(struct model *m, const struct model_mem *r)
{
	struct model_mem c = *r;

	c.ts = clamp_time(c.ts);
	return vec_push(&m->mems, c) ? NNS_ENOMEM : 0;
}

int model_add_flow(struct model *m, const struct model_flow *f)
{
	return vec_push(&m->flows, *f) ? NNS_ENOMEM : 0;
}

int model_add_counter(struct model *m, const struct model_counter *c)
{
	return vec_push(&m->counters, *c) ? NNS_ENOMEM : 0;
}

int model_add_device(struct model *m, const struct model_device *d)
{
	return vec_push(&m->devices, *d) ? NNS_ENOMEM : 0;
}

int model_add_queue(struct model *m, const struct model_queue *q)
{
	return vec_push(&m->queues, *q) ? NNS_ENOMEM : 0;
}

int model_add_sample(struct model *m, const struct model_sample *s)
{
	return vec_push(&m->samples, *s) ? NNS_ENOMEM : 0;
}

int model_add_instant(struct model *m, const struct model_instant *i)
{
	return vec_push(&m->instants, *i) ? NNS_ENOMEM : 0;
}

int model_add_host(struct model *m, const struct model_host *h)
{
	return vec_push(&m->host, *h) ? NNS_ENOMEM : 0;
}

int model_add_meta(struct model *m, const char *key, const char *value)
{
	struct model_meta kv;
	int64_t v;

	kv.key = model_intern(m, key, strlen(key));
	kv.value = model_intern(m, value, strlen(value));
	if (kv.key == STRPOOL_NONE || kv.value == STRPOOL_NONE || vec_push(&m->meta, kv))
		return NNS_ENOMEM;
	if (strcmp(key, "rank") == 0 && num_i64(value, strlen(value), &v, NULL) == 0 && v >= 0)
		m->dist_rank = v;
	else if (strcmp(key, "world_size") == 0 && num_i64(value, strlen(value), &v, NULL) == 0 &&
		 v > 0)
		m->dist_world_size = v;
	return 0;
}

const char *model_meta_get(const struct model *m, const char *key)
{
	for (size_t i = m->meta.n; i-- > 0;)
		if (strcmp(model_str(m, m->meta.v[i].key), key) == 0)
			return model_str(m, m->meta.v[i].value);
	return NULL;
}

const struct model_device *model_device_by_id(const struct model *m, int id)
{
	size_t i;

	for (i = 0; i < m->devices.n; i++)
		if (m->devices.v[i].id == id)
			return &m->devices.v[i];
	return NULL;
}

/* Accelerators' category names (libkineto's ActivityType and its vendor
 * forks) kept on their events; the code is the index + 1. */
static const char *const src_cats[] = {
    "mtia_runtime",
    "mtia_ccp_events",
    "glow_runtime",
    "xpu_runtime",
    "xpu_driver",
    "hpu_op",
    "privateuse1_runtime",
    "privateuse1_driver",
    "hip_runtime",
    "hip_driver",
    "mlu_runtime",
    "mlu_memcpy",
    "mlu_memset",
    "mlu_user_annotation",
    "mlu_profiler_range",
    "gcu_runtime",
    "gcu_driver",
    "gcu_memcpy",
    "gcu_memset",
    "gcu_user_annotation",
    "gcu_profiler_range",
    "gcu_sync",
    "xpu_sync",
};
_Static_assert(sizeof(src_cats) / sizeof(*src_cats) <= 31, "five bits of model_event.flags");
_Static_assert(sizeof(struct model_event) == 40, "model.h promises 40-byte event rows");

int model_src_cat_code(const char *lower, size_t n)
{
	for (size_t i = 0; i < sizeof(src_cats) / sizeof(*src_cats); i++)
		if (strlen(src_cats[i]) == n && memcmp(src_cats[i], lower, n) == 0)
			return (int)i + 1;
	return 0;
}

const char *model_event_cat(const struct model *m, uint32_t ev)
{
	const struct model_event *e = &m->events.v[ev];
	unsigned code = (e->flags & MODEL_EF_SRCCAT) >> MODEL_EF_SRCCAT_SHIFT;

	if (code && code <= sizeof(src_cats) / sizeof(*src_cats))
		return src_cats[code - 1];
	return model_kind_name(e->kind);
}

const char *model_kind_name(int kind)
{
	static const char *const names[MK__COUNT] = {
	    "cpu_op",
	    "user_annotation",
	    "gpu_user_annotation",
	    "python",
	    "python_function",
	    "cuda_runtime",
	    "cuda_driver",
	    "kernel",
	    "gpu_memcpy",
	    "gpu_memset",
	    "trace",
	    "cuda_sync",
	    "other",
	    "cuda_profiler_range",
	};

	return kind >= 0 && kind < MK__COUNT ? names[kind] : "other";
}

static void diag_cat_add(struct model_diag *d, const char *name, size_t n, int64_t count)
{
	size_t i,
	    len = n < sizeof(d->unknown_cats[0].name) ? n : sizeof(d->unknown_cats[0].name) - 1;

	for (i = 0; i < MODEL_DIAG_CATS && d->unknown_cats[i].count; i++) {
		struct model_diag_cat *c = &d->unknown_cats[i];
		if (strlen(c->name) == len && memcmp(c->name, name, len) == 0) {
			c->count += count;
			return;
		}
	}
	if (i == MODEL_DIAG_CATS) {
		d->unknown_cats_more += count;
		return;
	}
	memcpy(d->unknown_cats[i].name, name, len);
	d->unknown_cats[i].name[len] = '\0';
	d->unknown_cats[i].count = count;
}

void model_diag_count_cat(struct model_diag *d, const char *name, size_t n)
{
	diag_cat_add(d, name, n, 1);
}

void model_diag_add_cats(struct model_diag *dst, const struct model_diag *src)
{
	size_t i;

	if (dst == src)
		return;
	dst->unknown_cats_more += src->unknown_cats_more;
	for (i = 0; i < MODEL_DIAG_CATS && src->unknown_cats[i].count; i++)
		diag_cat_add(dst, src->unknown_cats[i].name, strlen(src->unknown_cats[i].name),
			     src->unknown_cats[i].count);
}
