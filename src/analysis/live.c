/*
 * live.c - feeding the incremental analysis of a .nnst trace (live.h):
 * decoding each chunk once into the state's steps, tables, recent log and
 * series. The record layouts are src/format/nnst.h's; a record that makes
 * no sense is counted in skipped and passed over. Queries are live_query.c.
 */
#include "analysis/live.h"

#include "analysis/names.h"
#include "common/le.h"
#include "common/satmath.h"
#include "format/nnst_writer.h" /* NNST_EVF_WARMUP, NNST_THREAD_PROCESS */
#include "importers/nnst.h"	/* nnst_name_class */

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_MAX_DEPTH 1024	/* open ranges kept per thread (as the importer) */
#define LIVE_MAX_THREADS 100000 /* distinct thread indices */
#define LIVE_PRUNE_EVERY 16	/* steps beyond the window before the log is pruned */

/* Frame kinds: what a range is to the tables. */
enum { F_ANNOT, F_OP, F_DATALOADER, F_NODE, F_STEP };

/* Step-time roles of host ranges, in the overview's priority order
 * (breakdown.c: communication > DataLoader > CPU exec); R_NONE: steps and
 * modules, which take no time of their own. */
enum { R_COMM, R_DL, R_CPU, R_N, R_NONE = R_N };
static const uint8_t role_rec[R_N] = {LIVE_R_COMM, LIVE_R_DATALOADER, LIVE_R_CPU};

struct live_frame {
	int64_t ts;
	int64_t child;	 /* ns of direct child nodes */
	uint32_t nchild; /* direct child nodes */
	/* the first child node: what an operator whose only child is an
	 * operator of its name merges with (optree.c remove_dup) */
	uint32_t c_name;
	uint8_t c_kind;
	int64_t c_start, c_dur, c_self, c_child;
	uint32_t name;
	uint8_t kind;	/* F_* */
	uint8_t warmup; /* pushed in a schedule's warmup: not kept */
	uint8_t role;	/* R_* */
	uint8_t pad;
	int64_t got[R_N]; /* time of its children's ranges taken by each role */
};

struct live_thread {
	VEC(struct live_frame) stack;
	uint32_t overflow;  /* pushes beyond LIVE_MAX_DEPTH still open */
	int16_t mem_device; /* device of the ALLOC/FREE just read, INT16_MIN none */
	uint64_t lost;
	uint64_t pushes; /* ranges begun (not in a warmup) since the open step began */
};

/* ---- series ------------------------------------------------------------ */

static void series_init(struct live_series *s, int merge_max)
{
	memset(s, 0, sizeof(*s));
	s->merge_max = merge_max;
	s->span = 1;
}

static void merge_into(const struct live_series *s, struct live_point *a, const double v[4],
		       uint32_t k)
{
	for (int i = 0; i < 4; i++)
		a->v[i] = s->merge_max ? fmax(a->v[i], v[i]) : (a->v[i] * k + v[i]) / (k + 1);
}

static int series_add(struct live_series *s, int64_t ts, const double v[4])
{
	struct live_point p;

	s->raw++;
	if (s->p.n && s->last_k < s->span) {
		merge_into(s, &s->p.v[s->p.n - 1], v, s->last_k);
		s->last_k++;
		return NNS_OK;
	}
	if (s->p.n >= LIVE_SERIES_MAX) { /* halve: pairs merge */
		size_t j = 0;

		for (size_t i = 0; i + 1 < s->p.n; i += 2) {
			struct live_point a = s->p.v[i];

			merge_into(s, &a, s->p.v[i + 1].v, 1);
			s->p.v[j++] = a;
		}
		s->p.n = j;
		s->span *= 2;
	}
	p.ts = ts;
	memcpy(p.v, v, sizeof(p.v));
	if (vec_push(&s->p, p))
		return NNS_ENOMEM;
	s->last_k = 1;
	return NNS_OK;
}

/* ---- state -------------------------------------------------------------- */

struct live *live_new(void)
{
	struct live *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	if (strpool_init(&l->names)) {
		free(l);
		return NULL;
	}
	hmap_init(&l->strs);
	hmap_init(&l->op_of);
	hmap_init(&l->kern_of);
	series_init(&l->cpu_machine, 0);
	series_init(&l->cpu_process, 0);
	l->rank = l->world_size = -1;
	l->open_num = -1;
	l->first_ts = INT64_MAX;
	l->last_ts = INT64_MIN;
	return l;
}

void live_free(struct live *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->threads.n; i++) {
		if (l->threads.v[i])
			vec_free(&l->threads.v[i]->stack);
		free(l->threads.v[i]);
	}
	vec_free(&l->threads);
	for (size_t i = 0; i < l->mems.n; i++)
		vec_free(&l->mems.v[i].s.p);
	for (size_t i = 0; i < l->queues.n; i++)
		vec_free(&l->queues.v[i].s.p);
	vec_free(&l->mems);
	vec_free(&l->queues);
	vec_free(&l->cpu_machine.p);
	vec_free(&l->cpu_process.p);
	vec_free(&l->steps);
	free(l->step_hist);
	vec_free(&l->ops);
	vec_free(&l->kernels);
	vec_free(&l->recent);
	hmap_release(&l->strs);
	hmap_release(&l->op_of);
	hmap_release(&l->kern_of);
	nnst_clockmap_release(&l->clock);
	strpool_release(&l->names);
	free(l);
}

int live_header(struct live *l, const struct nnst_header *h)
{
	struct nnst_clock c0 = {h->start_tsc, h->start_mono_ns, h->start_realtime_ns};

	l->hdr = *h;
	l->have_hdr = 1;
	l->clock.tsc = (h->flags & NNST_F_TSC) != 0;
	if (l->clock.tsc && nnst_clockmap_add(&l->clock, &c0) == NNS_ENOMEM)
		return NNS_ENOMEM;
	l->offset = h->start_realtime_ns > 0 && h->start_mono_ns >= 0
			? h->start_realtime_ns - h->start_mono_ns
			: 0;
	return NNS_OK;
}

/* Model times stay within +-2^61 ns, as the importer's, so that the
 * differences the queries and documents take never overflow. */
#define LIVE_TS_LIMIT ((int64_t)1 << 61)

static int64_t clamp_ts(int64_t ns)
{
	return ns > LIVE_TS_LIMIT ? LIVE_TS_LIMIT : ns < -LIVE_TS_LIMIT ? -LIVE_TS_LIMIT : ns;
}

static int64_t mono_to_model(const struct live *l, int64_t mono)
{
	return clamp_ts(sat_add64(clamp_ts(mono), clamp_ts(l->offset)));
}

static int64_t raw_time(const struct live *l, uint64_t raw)
{
	return mono_to_model(l, nnst_clockmap_ns(&l->clock, raw));
}

static void saw_time(struct live *l, int64_t ts)
{
	if (ts < l->first_ts)
		l->first_ts = ts;
	if (ts > l->last_ts)
		l->last_ts = ts;
}

/* The state's id of file string id `id` (0: none / unknown). */
static uint32_t str_of(const struct live *l, uint32_t id)
{
	uint32_t *s = id ? hmap_get(&l->strs, id) : NULL;

	return s ? *s : 0;
}

static struct live_thread *thread_of(struct live *l, uint32_t idx)
{
	if (idx >= LIVE_MAX_THREADS)
		return NULL;
	if (idx >= l->threads.n) {
		size_t old = l->threads.n;

		if (vec_reserve(&l->threads, (size_t)idx + 1))
			return NULL;
		memset(l->threads.v + old, 0, (idx + 1 - old) * sizeof(*l->threads.v));
		l->threads.n = (size_t)idx + 1;
	}
	if (!l->threads.v[idx]) {
		struct live_thread *t = calloc(1, sizeof(*t));

		if (!t)
			return NULL;
		t->mem_device = INT16_MIN;
		l->threads.v[idx] = t;
	}
	return l->threads.v[idx];
}

/* ---- tables and the recent log ----------------------------------------- */

static int log_rec(struct live *l, uint8_t what, uint32_t name, int64_t start, int64_t dur,
		   int64_t self)
{
	struct live_rec r = {start, dur, self, name, what, 0, 0};

	return vec_push(&l->recent, r) ? NNS_ENOMEM : NNS_OK;
}

static int add_op(struct live *l, uint32_t name, int64_t start, int64_t dur, int64_t self)
{
	int is_new;
	uint32_t *ix = hmap_put(&l->op_of, name, (uint32_t)l->ops.n, &is_new);
	struct live_op *o;

	if (!ix)
		return NNS_ENOMEM;
	if (is_new) {
		struct live_op z = {name, 0, 0, 0, 0};

		if (vec_push(&l->ops, z)) {
			*ix = UINT32_MAX; /* never used: the row is missing */
			return NNS_ENOMEM;
		}
	}
	if (*ix >= l->ops.n)
		return NNS_ENOMEM;
	o = &l->ops.v[*ix];
	o->calls++;
	o->total = sat_add64(o->total, dur);
	o->self = sat_add64(o->self, self);
	return log_rec(l, LIVE_R_OP, name, start, dur, self);
}

static int add_kernel(struct live *l, uint32_t name, int64_t start, int64_t dur)
{
	int is_new;
	uint32_t *ix = hmap_put(&l->kern_of, name, (uint32_t)l->kernels.n, &is_new);
	struct live_kernel *k;

	if (!ix)
		return NNS_ENOMEM;
	if (is_new) {
		struct live_kernel z = {name, 0, 0, 0, INT64_MAX, 0};

		if (vec_push(&l->kernels, z)) {
			*ix = UINT32_MAX;
			return NNS_ENOMEM;
		}
	}
	if (*ix >= l->kernels.n)
		return NNS_ENOMEM;
	k = &l->kernels.v[*ix];
	k->calls++;
	k->total = sat_add64(k->total, dur);
	if (dur < k->min)
		k->min = dur;
	if (dur > k->max)
		k->max = dur;
	return log_rec(l, LIVE_R_KERNEL, name, start, dur, dur);
}

/* Freezes the breakdown of the steps that leave the recent window and
 * drops the log's records older than the window, every LIVE_PRUNE_EVERY
 * steps past it (so the pass over the log is amortised). */
static void prune(struct live *l)
{
	size_t n = l->steps.n, keep_from, first = l->frozen;
	struct live_step *tmp;
	int64_t lo;
	size_t j = 0;

	if (n < LIVE_RECENT_STEPS + LIVE_PRUNE_EVERY ||
	    n - LIVE_RECENT_STEPS - first < LIVE_PRUNE_EVERY)
		return;
	keep_from = n - LIVE_RECENT_STEPS;
	tmp = malloc((n - first) * sizeof(*tmp));
	if (!tmp)
		return; /* tried again at the next step */
	live_steps_now(l, first, tmp);
	for (size_t i = first; i < keep_from; i++) {
		l->steps.v[i] = tmp[i - first];
		l->steps.v[i].final = 1;
	}
	free(tmp);
	l->frozen = keep_from;
	lo = l->steps.v[keep_from].start;
	for (size_t i = 0; i < l->recent.n; i++)
		if (l->recent.v[i].start >= lo)
			l->recent.v[j++] = l->recent.v[i];
	l->recent.n = j;
}

/* ---- steps --------------------------------------------------------------- */

/* The histogram bucket of a step of d ns: 1 % wide from 1 us. */
static size_t hist_bucket(int64_t d)
{
	double b = d > 1000 ? log((double)d / 1000.0) / log(1.01) + 1 : 0;

	return b >= LIVE_HIST_BUCKETS - 1 ? LIVE_HIST_BUCKETS - 1 : (size_t)b;
}

static void step_stat(struct live *l, int64_t d)
{
	if (!l->step_hist && !(l->step_hist = calloc(LIVE_HIST_BUCKETS, sizeof(uint32_t))))
		return; /* the histogram is then missing: stats sort what is kept */
	l->step_hist[hist_bucket(d)]++;
	l->step_sum += (double)d;
	if (l->steps.n == 1 || d < l->step_min)
		l->step_min = d;
	if (l->steps.n == 1 || d > l->step_max)
		l->step_max = d;
}

static int complete_step(struct live *l, int64_t num, int64_t start, int64_t end, uint32_t thread)
{
	struct live_step s;

	memset(&s, 0, sizeof(s));
	s.num = num;
	s.start = start;
	s.end = end > start ? end : start;
	s.thread = thread;
	/* steps complete in time order; one out of order (another thread's
	 * range) still goes in its place among the steps not frozen (at most
	 * the window: a file of steps in reverse order costs no more) */
	if (vec_push(&l->steps, s))
		return NNS_ENOMEM;
	step_stat(l, s.end - s.start);
	for (size_t i = l->steps.n - 1; i > l->frozen && l->steps.v[i - 1].start > s.start; i--) {
		l->steps.v[i] = l->steps.v[i - 1];
		l->steps.v[i - 1] = s;
	}
	prune(l);
	return NNS_OK;
}

/* A step mark (nns_step, START: num >= 0) or a STOP / warmup mark (num <
 * 0) on thread idx at ts. */
static int bound(struct live *l, uint32_t idx, int64_t ts, int64_t num, int stop)
{
	int rc = NNS_OK;

	if (l->step_ranges)
		return NNS_OK;
	if (l->open_num >= 0 && ts > l->open_start) {
		struct live_thread *t = thread_of(l, l->open_thread);

		/* the step a STOP closes is dropped when its thread began no
		 * range in it (as the importer: no event of the model starts in
		 * it; queue samples and marks are not events) */
		if (!stop || (t && t->pushes > 0))
			rc = complete_step(l, l->open_num, l->open_start, ts, l->open_thread);
	}
	l->open_num = num;
	l->open_start = ts;
	l->open_thread = idx;
	if (num >= 0) {
		struct live_thread *t = thread_of(l, idx);

		if (t)
			t->pushes = 0;
	}
	return rc;
}

/* ---- ranges -------------------------------------------------------------- */

static int frame_kind(const struct live *l, uint32_t name)
{
	const char *s = live_str(l, name);

	switch (nnst_name_class(s)) {
	case NNST_NC_OP:
		if (an_is_dataloader_name(s) || strncmp(s, "enumerate(DataLoader)#", 22) == 0)
			return F_DATALOADER;
		if (an_is_optimizer_name(s))
			return F_NODE;
		return F_OP;
	case NNST_NC_MODULE:
		return F_NODE;
	case NNST_NC_STEP:
		return F_STEP;
	default:
		return an_is_comm_name(s, NULL) ? F_NODE : F_ANNOT;
	}
}

static int frame_role(const struct live *l, uint32_t name, int kind)
{
	const char *s = live_str(l, name);

	if (kind == F_STEP || nnst_name_class(s) == NNST_NC_MODULE)
		return R_NONE;
	if (an_is_comm_name(s, NULL))
		return R_COMM;
	return an_is_dataloader_name(s) ? R_DL : R_CPU;
}

/* The step-time roles of popped frame f (its own role over its whole
 * range, under the higher roles its children took) go to its parent
 * frame, or, from an outermost one, into the recent log (the
 * overview's union of each role's ranges, on one thread). */
static int take_roles(struct live *l, struct live_thread *t, const struct live_frame *f,
		      int64_t dur)
{
	int64_t a[R_N];

	memcpy(a, f->got, sizeof(a));
	if (f->role != R_NONE) {
		int64_t higher = 0;

		for (int r = 0; r < f->role; r++)
			higher += a[r];
		a[f->role] = dur > higher ? dur - higher : 0;
		for (int r = f->role + 1; r < R_N; r++)
			a[r] = 0;
	}
	if (t->stack.n) {
		struct live_frame *p = &t->stack.v[t->stack.n - 1];

		for (int r = 0; r < R_N; r++)
			p->got[r] = sat_add64(p->got[r], a[r]);
		return NNS_OK;
	}
	for (int r = 0; r < R_N; r++)
		if (a[r] > 0 && log_rec(l, role_rec[r], f->name, f->ts, a[r], a[r]))
			return NNS_ENOMEM;
	return NNS_OK;
}

static int push(struct live *l, struct live_thread *t, int64_t ts, uint32_t name, int warmup)
{
	struct live_frame f;

	if (t->overflow || t->stack.n >= LIVE_MAX_DEPTH) {
		t->overflow++;
		l->skipped++;
		return NNS_OK;
	}
	memset(&f, 0, sizeof(f));
	f.ts = ts;
	f.name = name;
	f.kind = (uint8_t)frame_kind(l, name);
	f.warmup = (uint8_t)warmup;
	f.role = (uint8_t)frame_role(l, name, f.kind);
	if (f.kind == F_STEP)
		l->step_ranges = 1;
	return vec_push(&t->stack, f) ? NNS_ENOMEM : NNS_OK;
}

/* An operator whose only child node is an operator of its name is one
 * call (optree.c remove_dup): the child's row comes out of the table and
 * the log, and its children become the operator's. */
static void unmerge(struct live *l, const struct live_frame *f)
{
	uint32_t *ix = hmap_get(&l->op_of, f->c_name);

	if (ix && *ix < l->ops.n) {
		struct live_op *o = &l->ops.v[*ix];

		o->calls--;
		o->total -= f->c_dur;
		o->self -= f->c_self;
	}
	for (size_t i = l->recent.n; i > 0; i--) {
		struct live_rec *r = &l->recent.v[i - 1];

		if (r->what == LIVE_R_OP && r->name == f->c_name && r->start == f->c_start &&
		    r->dur == f->c_dur) {
			memmove(r, r + 1, (l->recent.n - i) * sizeof(*r));
			l->recent.n--;
			break;
		}
	}
}

static int pop(struct live *l, struct live_thread *t, uint32_t idx, int64_t ts)
{
	struct live_frame f;
	int64_t dur, self;

	if (t->overflow) {
		t->overflow--;
		return NNS_OK;
	}
	if (!t->stack.n)
		return NNS_OK; /* a POP with nothing open: a window's edge */
	f = t->stack.v[--t->stack.n];
	if (f.warmup)
		return NNS_OK;
	dur = ts > f.ts ? ts - f.ts : 0;
	if (f.kind == F_OP && f.nchild == 1 && f.c_kind == F_OP && f.c_name == f.name) {
		unmerge(l, &f);
		f.child = f.c_child;
	}
	self = dur - f.child;
	if (self < 0)
		self = 0;
	if (f.kind != F_ANNOT) /* a node: its parent node's child */
		for (size_t i = t->stack.n; i > 0; i--) {
			struct live_frame *p = &t->stack.v[i - 1];

			if (p->kind == F_ANNOT)
				continue;
			p->child = sat_add64(p->child, dur);
			if (++p->nchild == 1) {
				p->c_name = f.name;
				p->c_kind = f.kind;
				p->c_start = f.ts;
				p->c_dur = dur;
				p->c_self = self;
				p->c_child = f.child;
			}
			break;
		}
	if (take_roles(l, t, &f, dur))
		return NNS_ENOMEM;
	switch (f.kind) {
	case F_OP:
		return add_op(l, f.name, f.ts, dur, self);
	case F_STEP: {
		long long num = -1;

		an_is_step_name(live_str(l, f.name), &num);
		return complete_step(l, num, f.ts, ts, idx);
	}
	default:
		return NNS_OK;
	}
}

/* ---- events -------------------------------------------------------------- */

static struct live_mem *mem_of(struct live *l, int16_t device)
{
	struct live_mem z;

	for (size_t i = 0; i < l->mems.n; i++)
		if (l->mems.v[i].device == device)
			return &l->mems.v[i];
	if (l->mems.n >= LIVE_MAX_DEVICES)
		return NULL;
	memset(&z, 0, sizeof(z));
	z.device = device;
	series_init(&z.s, 1);
	return vec_push(&l->mems, z) ? NULL : &l->mems.v[l->mems.n - 1];
}

static int mem_event(struct live *l, struct live_thread *t, int64_t ts, int16_t device,
		     uint64_t bytes, int freed)
{
	struct live_mem *m = mem_of(l, device < 0 ? -1 : device);
	int64_t b = bytes > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)bytes;
	double v[4];

	if (!m) {
		if (l->mems.n < LIVE_MAX_DEVICES)
			return NNS_ENOMEM;
		l->skipped++; /* a device beyond the ones kept */
		return NNS_OK;
	}
	m->allocated = freed ? m->allocated - b : sat_add64(m->allocated, b);
	if (m->allocated < 0)
		m->allocated = 0;
	if (m->allocated > m->peak_allocated)
		m->peak_allocated = m->allocated;
	t->mem_device = m->device;
	v[0] = (double)m->allocated;
	v[1] = (double)m->reserved;
	v[2] = v[3] = 0;
	return series_add(&m->s, ts, v);
}

/* MEMTOTAL after ALLOC/FREE: the allocator's own totals replace ours. */
static void mem_total(struct live *l, struct live_thread *t, uint64_t a, uint64_t b)
{
	struct live_mem *m = NULL;

	if (t->mem_device == INT16_MIN)
		return;
	for (size_t i = 0; i < l->mems.n; i++)
		if (l->mems.v[i].device == t->mem_device)
			m = &l->mems.v[i];
	if (!m || !m->s.p.n)
		return;
	if ((int64_t)a >= 0)
		m->allocated = (int64_t)a;
	if ((int64_t)b >= 0)
		m->reserved = (int64_t)b;
	if (m->allocated > m->peak_allocated)
		m->peak_allocated = m->allocated;
	if (m->reserved > m->peak_reserved)
		m->peak_reserved = m->reserved;
	/* the point just added says the totals */
	m->s.p.v[m->s.p.n - 1].v[0] =
	    fmax(m->s.last_k > 1 ? m->s.p.v[m->s.p.n - 1].v[0] : 0, (double)m->allocated);
	m->s.p.v[m->s.p.n - 1].v[1] =
	    fmax(m->s.last_k > 1 ? m->s.p.v[m->s.p.n - 1].v[1] : 0, (double)m->reserved);
}

static int queue_event(struct live *l, int64_t ts, uint32_t name, uint64_t size, uint64_t cap)
{
	struct live_queue *q = NULL, z;
	double v[4];

	for (size_t i = 0; i < l->queues.n; i++)
		if (l->queues.v[i].name == name)
			q = &l->queues.v[i];
	if (!q) {
		if (l->queues.n >= LIVE_MAX_QUEUES) {
			l->skipped++;
			return NNS_OK;
		}
		memset(&z, 0, sizeof(z));
		z.name = name;
		series_init(&z.s, 0);
		if (vec_push(&l->queues, z))
			return NNS_ENOMEM;
		q = &l->queues.v[l->queues.n - 1];
	}
	if (size > (uint64_t)INT64_MAX || cap > (uint64_t)INT64_MAX) {
		l->skipped++;
		return NNS_OK;
	}
	q->samples++;
	q->size_sum += (double)size;
	q->capacity = (int64_t)cap;
	if ((int64_t)size > q->max_size)
		q->max_size = (int64_t)size;
	if (size == 0)
		q->empty++;
	else if (cap > 0 && size >= cap)
		q->full++;
	v[0] = (double)size;
	v[1] = (double)cap;
	v[2] = v[3] = 0;
	return series_add(&q->s, ts, v);
}

static int event(struct live *l, struct live_thread *t, uint32_t idx, const uint8_t *q)
{
	uint8_t type = q[12];
	int warmup = (q[13] & NNST_EVF_WARMUP) != 0;
	int64_t ts = raw_time(l, le64(q));
	uint32_t name = str_of(l, le32(q + 8));
	uint64_t a = le64(q + 16), b = le64(q + 24);

	l->events++;
	if (type == NNST_EV_PUSH && !warmup)
		t->pushes++;
	if (type != NNST_EV_MEMTOTAL)
		t->mem_device = INT16_MIN;
	if (type < NNST_EV_PUSH || type > NNST_EV_STOP) {
		l->skipped++;
		return NNS_OK;
	}
	saw_time(l, ts);
	if (warmup && type == NNST_EV_STEP)
		return bound(l, idx, ts, -1, 0);
	if (warmup && type != NNST_EV_PUSH && type != NNST_EV_POP && type != NNST_EV_STOP &&
	    type != NNST_EV_START)
		return NNS_OK;
	switch (type) {
	case NNST_EV_PUSH:
		return push(l, t, ts, name, warmup);
	case NNST_EV_POP:
		return pop(l, t, idx, ts);
	case NNST_EV_MARK:
		if (name && nnst_name_class(live_str(l, name)) == NNST_NC_KINDOP && t->stack.n &&
		    !t->overflow && t->stack.v[t->stack.n - 1].kind == F_ANNOT)
			t->stack.v[t->stack.n - 1].kind = F_OP;
		return NNS_OK;
	case NNST_EV_START:
		return bound(l, idx, ts, a > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)a, 0);
	case NNST_EV_STOP:
		/* open ranges end at a STOP (their POPs were not recorded) */
		while (t->stack.n && !t->overflow) {
			int rc = pop(l, t, idx, ts);

			if (rc)
				return rc;
		}
		t->overflow = 0;
		return bound(l, idx, ts, -1, 1);
	case NNST_EV_STEP:
		return bound(l, idx, ts, a > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)a, 0);
	case NNST_EV_ALLOC:
	case NNST_EV_FREE:
		return mem_event(l, t, ts, (int16_t)le16(q + 14), b, type == NNST_EV_FREE);
	case NNST_EV_MEMTOTAL:
		mem_total(l, t, a, b);
		t->mem_device = INT16_MIN;
		return NNS_OK;
	case NNST_EV_QUEUE:
		return queue_event(l, ts, name, a, b);
	default: /* BEGIN/END, COUNTER, FLOW: not in the live views */
		return NNS_OK;
	}
}

static int events_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	uint32_t idx, count;
	struct live_thread *t;

	if (len < 8 || (len - 8) % 32) {
		l->skipped++;
		return NNS_OK;
	}
	idx = le32(p);
	count = le32(p + 4);
	if (count != (len - 8) / 32) {
		l->skipped++;
		count = count < (len - 8) / 32 ? count : (len - 8) / 32;
	}
	if (!(t = thread_of(l, idx))) {
		l->skipped += count;
		return idx >= LIVE_MAX_THREADS ? NNS_OK : NNS_ENOMEM;
	}
	for (uint32_t i = 0; i < count; i++) {
		int rc = event(l, t, idx, p + 8 + (size_t)i * 32);

		if (rc)
			return rc;
	}
	return NNS_OK;
}

/* ---- the other chunks ----------------------------------------------------- */

static int strings_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	uint32_t off = 0;

	while (len - off >= 8) {
		uint32_t id = le32(p + off), n = le32(p + off + 4), s;
		uint32_t *slot;

		if (n > len - off - 8) {
			l->skipped++;
			return NNS_OK;
		}
		s = strpool_intern(&l->names, (const char *)p + off + 8, n);
		if (s == STRPOOL_NONE || !(slot = hmap_put(&l->strs, id, s, NULL)))
			return NNS_ENOMEM;
		*slot = s; /* a redefinition wins */
		off += 8 + n;
	}
	return NNS_OK;
}

static int clock_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 24; off += 24) {
		struct nnst_clock c = {le64(p + off), (int64_t)le64(p + off + 8),
				       (int64_t)le64(p + off + 16)};

		if (nnst_clockmap_add(&l->clock, &c) == NNS_ENOMEM)
			return NNS_ENOMEM;
	}
	return NNS_OK;
}

static int meta_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	uint32_t off = 0;

	while (len - off >= 8) {
		uint32_t kl = le32(p + off), vl;
		const char *k = (const char *)p + off + 4, *v;
		char num[32];

		if (kl > len - off - 8)
			break;
		vl = le32(p + off + 4 + kl);
		if (vl > len - off - 8 - kl)
			break;
		v = (const char *)p + off + 8 + kl;
		if (vl < sizeof(num) && ((kl == 4 && !memcmp(k, "rank", 4)) ||
					 (kl == 10 && !memcmp(k, "world_size", 10)))) {
			char *end;
			long long x;

			memcpy(num, v, vl);
			num[vl] = 0;
			x = strtoll(num, &end, 10);
			if (end != num && !*end && x >= 0)
				*(kl == 4 ? &l->rank : &l->world_size) = x;
		} else if (kl == 4 && !memcmp(k, "host", 4)) {
			uint32_t s = strpool_intern(&l->names, v, vl);

			if (s == STRPOOL_NONE)
				return NNS_ENOMEM;
			l->host = s;
		}
		off += 8 + kl + vl;
	}
	return NNS_OK;
}

static float pct(const uint8_t *q)
{
	uint32_t u = le32(q);
	float f;

	memcpy(&f, &u, sizeof(f));
	return isfinite(f) && f >= 0 ? f : 0;
}

static int samples_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 64; off += 64) {
		const uint8_t *q = p + off;
		int64_t ts = mono_to_model(l, (int64_t)le64(q));
		uint32_t kind = le32(q + 16);
		double v[4] = {pct(q + 20), pct(q + 24), pct(q + 28), pct(q + 32)};
		int rc = NNS_OK;

		l->samples++;
		if (kind == NNST_SAMPLE_MACHINE) {
			rc = series_add(&l->cpu_machine, ts, v);
		} else if (kind == NNST_SAMPLE_PROCESS) {
			uint64_t rss = le64(q + 48); /* kB: beyond 2^50 kB is no RSS */

			v[2] = rss < (1ull << 50) ? (double)rss : 0;
			v[3] = 0;
			rc = series_add(&l->cpu_process, ts, v);
		}
		if (rc)
			return rc;
	}
	return NNS_OK;
}

/* LOST: the largest count seen per thread (and for the process), summed
 * as the importer does; kept up to date by the increase, not re-summed. */
static int lost_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 12; off += 12) {
		uint32_t idx = le32(p + off);
		uint64_t n = le64(p + off + 4);
		struct live_thread *t;

		if (idx == NNST_THREAD_PROCESS) {
			if (n > l->lost_process)
				l->lost_process = n;
		} else if ((t = thread_of(l, idx)) && n > t->lost) {
			l->lost_threads += n - t->lost;
			t->lost = n;
		}
	}
	l->lost = l->lost_process + l->lost_threads;
	return NNS_OK;
}

static int gpuclock_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 16; off += 16) {
		l->gpu_ns = le64(p + off);
		l->gpu_raw = le64(p + off + 8);
	}
	return NNS_OK;
}

/* A GPU record's time in model ns: raw timestamps, or CUPTI ns through the
 * latest GPUCLOCK pair; 0 when it cannot be placed. */
static int gpu_time(const struct live *l, uint64_t v, int hostclock, int64_t *out)
{
	if (hostclock) {
		*out = raw_time(l, v);
		return 1;
	}
	if (!l->gpu_raw)
		return 0;
	*out = clamp_ts(sat_add64(raw_time(l, l->gpu_raw), clamp_ts((int64_t)(v - l->gpu_ns))));
	return 1;
}

static int gpu_chunk(struct live *l, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 80; off += 80) {
		const uint8_t *q = p + off;
		uint8_t type = q[20];
		int host = (q[21] & NNST_GPUF_HOSTCLOCK) != 0;
		uint32_t name = str_of(l, le32(q + 16));
		int64_t start, end;
		int rc = NNS_OK;

		l->gpu_records++;
		if (type != NNST_GPU_KERNEL && type != NNST_GPU_MEMCPY && type != NNST_GPU_MEMSET &&
		    type != NNST_GPU_COLL)
			continue;
		if (!gpu_time(l, le64(q), host, &start) || !gpu_time(l, le64(q + 8), host, &end) ||
		    end < start) {
			l->skipped++;
			continue;
		}
		saw_time(l, end);
		if (type == NNST_GPU_KERNEL)
			rc = add_kernel(l, name, start, end - start);
		else
			rc = log_rec(l, type == NNST_GPU_COLL ? LIVE_R_COMM : LIVE_R_MEMCPY, name,
				     start, end - start, end - start);
		if (rc)
			return rc;
	}
	return NNS_OK;
}

int live_feed(struct live *l, uint32_t type, const uint8_t *p, uint32_t len)
{
	l->feeds++;
	switch (type) {
	case NNST_CHUNK_STRINGS:
		return strings_chunk(l, p, len);
	case NNST_CHUNK_EVENTS:
		return events_chunk(l, p, len);
	case NNST_CHUNK_CLOCK:
		return clock_chunk(l, p, len);
	case NNST_CHUNK_META:
		return meta_chunk(l, p, len);
	case NNST_CHUNK_SAMPLES:
		return samples_chunk(l, p, len);
	case NNST_CHUNK_LOST:
		return lost_chunk(l, p, len);
	case NNST_CHUNK_END: {
		struct live_thread *t = l->open_num >= 0 ? thread_of(l, l->open_thread) : NULL;

		l->ended = 1;
		/* the open step lasts to the end of the trace, kept when its
		 * thread recorded something in it (as the importer) */
		if (t && t->pushes > 0 && !l->step_ranges && l->last_ts > l->open_start) {
			int64_t num = l->open_num;

			l->open_num = -1;
			return complete_step(l, num, l->open_start, l->last_ts, l->open_thread);
		}
		return NNS_OK;
	}
	case NNST_CHUNK_GPU:
		return gpu_chunk(l, p, len);
	case NNST_CHUNK_GPUCLOCK:
		return gpuclock_chunk(l, p, len);
	default: /* THREAD (names are not shown live), newer types */
		return NNS_OK;
	}
}
