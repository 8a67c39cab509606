/*
 * nccl_prof.c - the NCCL profiler plugin's one implementation: turns the
 * Coll, P2p and KernelCh events NCCL reports into NNST_GPU_COLL records
 * (docs/FORMAT.md "GPU records") handed to the attached profiler's writer
 * with nns_gpu_submit(). The per-version entry points are in
 * nccl_prof_abi.c.
 *
 * What NCCL's events mean (NVIDIA/nccl src/enqueue.cc hostStreamPlanTask,
 * src/plugin/profiler.cc, src/transport/profiler.cc, 2.23 to 2.29):
 *   - a Coll (or P2p) event starts and stops on the thread that enqueues the
 *     task, both inside hostStreamPlanTask(), around posting the task's
 *     proxy operations: after the kernel launch, before the work is done.
 *     Its start/stop is the host enqueue window (a few microseconds), not
 *     the collective's execution;
 *   - KernelCh events (v3+, when the activation mask has KernelCh) are
 *     started and stopped by NCCL's proxy progress thread when it sees the
 *     kernel begin and finish its work for that task on one channel; their
 *     parent is the Coll/P2p handle. v4+ add the GPU globaltimer of both
 *     ends (pTimer). There is one per channel the task uses (nChannels in
 *     the v4+ descriptor, nMaxChannels in v3);
 *   - ProxyOp/ProxyStep events describe network transfers only; nnscope
 *     does not ask for them;
 *   - CeColl events (v6+, NCCL 2.29) are collectives NCCL runs with copy
 *     engines, no kernel: started and stopped on the enqueuing thread like
 *     a Coll, with no KernelCh children and no GPU time (NCCL leaves their
 *     timing to the plugin, which would need CUDA events on the stream).
 * A record's start/end, by what NCCL gave (`stream` in the record):
 *   2 the GPU timer (v4+): the first channel's GPU start to the last
 *     channel's GPU stop, from the %globaltimer stamps NCCL's kernel writes
 *     into its per-channel timer ring and hands over as kernelCh.pTimer.
 *     That clock is not the host's: each task is placed on the host clock
 *     by its own observations. Every KernelCh start and stop is seen by the
 *     host (h, raw clock) after the GPU stamped it (g, ns), so h - g x slope
 *     is an upper bound of the clock offset; the tightest one of the task's
 *     observations is taken (slope: raw ticks per ns, from the collector's
 *     clock points, 1 without a TSC). The duration is the GPU's; the
 *     placement is late by the smallest polling delay among the task's
 *     channels (microseconds with NCCL's spinning thread);
 *   1 the execution as the host saw it, the first KernelCh start to the last
 *     stop (v3, or v4+ with GPU times missing or inconsistent: counted in
 *     META nccl_profiler_gpu_timer);
 *   0 the enqueue window: v1/v2, KernelCh turned off, CeColl, or a task
 *     whose kernel events never came (emitted at finalize, or evicted when
 *     the pool is full).
 * Host times are read when NCCL calls us (the collector's raw clock).
 *
 * Collectives are recorded only while the attached profiler's
 * profile_communication option is on (the NNS_CAT_COMM state bit); when
 * the profiler attached at a communicator's init has it off, init answers
 * activation mask 0 and NCCL reports nothing (META nccl_profiler "... off").
 *
 * Threads: NCCL calls from user threads, CUDA host-callback threads and
 * its proxy threads. Every event lives in a slot of one pool (NCP_SLOTS)
 * under one mutex (a leaf lock: names and the writer queue are reached
 * only after it is released). Handles given to NCCL are tagged integers
 * (slot index + generation), never dereferenced: a NULL, unknown, stale
 * or twice-stopped handle is counted and ignored. When the pool is full
 * the task that has waited longest for its kernel events is emitted with
 * what it has (counted as evicted); failing that the new event is not
 * recorded (counted).
 *
 * Process-wide state (the pool and its counters) is inherent to the
 * plugin: stopEvent gets only the handle. It is the plugin's documented
 * context, allocated by the first init and freed when the last context is
 * finalized.
 */
#include "collector/collector.h"
#include "collector/nccl_prof.h"
#include "collector/tsc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NCP_SLOTS 4096u
#define NCP_FLUSH_MAX 64 /* records emitted per batch at finalize */

/* A task's GPU timer: its channels' GPU window and the observation that
 * places it on the host clock (nccl_prof.c's header). */
struct ncp_gpu {
	uint64_t first, last; /* GPU ns: earliest channel start, latest stop */
	uint64_t h0, g0;      /* the first observation: raw clock, GPU ns */
	double best;	      /* min over observations of (h-h0) - (g-g0) x slope */
	double slope;	      /* raw ticks per ns when h0/g0 were taken */
	uint16_t n;	      /* channels with a usable start and stop */
	uint8_t obs;	      /* h0/g0 set */
	uint8_t bad;	      /* a channel without usable GPU times */
};

struct ncp_slot {
	uint32_t gen;	 /* bumped at each allocation; 0 = never used */
	uint8_t kind;	 /* enum ncp_kind (NCP_CE stored as NCP_COLL), NCP_OTHER = free */
	uint8_t stopped; /* COLL/P2P: the enqueue stop came */
	uint8_t ce;	 /* COLL: a CeColl, complete at its stop */
	uint16_t kids_started, kids_stopped, kids_expected;
	uint32_t next_free;
	struct ncp_ctx *ctx;
	uint64_t parent;	     /* KCH: the task's handle */
	uint64_t enq_start, enq_end; /* raw clock */
	uint64_t k_start, k_end;     /* raw clock, first KCH start, last stop */
	uint64_t g_start, g_stop;    /* KCH: GPU ns of its start and stop, 0 none */
	struct ncp_gpu gpu;	     /* COLL/P2P */
	struct nnst_gpu rec;	     /* COLL/P2P: filled at start */
};

static struct {
	pthread_mutex_t mu;
	struct ncp_slot *slot; /* NCP_SLOTS, NULL until the first init */
	uint32_t free_head;    /* index + 1, 0 = none */
	uint32_t nctx;	       /* live contexts */
	struct ncp_ctx *dead;  /* finalized contexts, freed with the pool */
	struct ncp_stats st;
	struct nnst_clock clk0, clkn; /* raw ticks per ns: two clock points */
	double slope;		      /* 0 until they are 1 ms apart */
} ncp = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* (NNSCOPE_NCCL_GPU_TIMER=0 in the environment: v4+ records keep the
 * host's view, stream 1; ncp_init reads it.) */
#define NCP_GPU_SPAN_MAX 3600000000000ull /* ns: a task's GPU window beyond is wrong */
#define NCP_CLOCK_REFRESH (1ull << 27)	  /* raw ticks between slope updates */

/* Raw clock ticks per ns (mu held): 1 without a TSC, else measured between
 * the first init's clock point and one refreshed every ~50 ms; 0 while
 * they are less than 1 ms apart. */
static double slope_locked(uint64_t now)
{
	if (!(NNS_CLOCK_FLAGS & NNST_F_TSC))
		return 1.0;
	if (ncp.slope > 0 && now - ncp.clkn.tsc < NCP_CLOCK_REFRESH)
		return ncp.slope;
	nns_clock_point(&ncp.clkn);
	if (ncp.clkn.mono_ns - ncp.clk0.mono_ns >= 1000000 && ncp.clkn.tsc > ncp.clk0.tsc)
		ncp.slope = (double)(ncp.clkn.tsc - ncp.clk0.tsc) /
			    (double)(ncp.clkn.mono_ns - ncp.clk0.mono_ns);
	return ncp.slope;
}

/* One host observation h (raw) of a GPU stamp g (ns) of task t (mu held). */
static void gpu_observe(struct ncp_gpu *t, uint64_t h, uint64_t g, double slope)
{
	double key;

	if (!g || slope <= 0) {
		t->bad = 1;
		return;
	}
	if (!t->obs) {
		t->h0 = h;
		t->g0 = g;
		t->best = 0;
		t->slope = slope;
		t->obs = 1;
		return;
	}
	key = (double)(int64_t)(h - t->h0) - (double)(int64_t)(g - t->g0) * t->slope;
	if (key < t->best)
		t->best = key;
}

/* GPU ns g of task t on the raw clock, into *out: 0 if it falls before 0. */
static int gpu_to_raw(const struct ncp_gpu *t, uint64_t g, uint64_t *out)
{
	double off = t->best + (double)(int64_t)(g - t->g0) * t->slope;

	if (off < 0 && -off > (double)t->h0)
		return 0;
	*out = t->h0 + (uint64_t)(int64_t)(off < 0 ? off - 0.5 : off + 0.5);
	return 1;
}

/* The task's GPU window on the raw clock, when every channel gave one. */
static int gpu_window(const struct ncp_slot *s, uint64_t *start, uint64_t *end)
{
	const struct ncp_gpu *t = &s->gpu;

	if (t->bad || !t->obs || !t->n || t->n != s->kids_stopped ||
	    s->kids_stopped != s->kids_started || t->last < t->first ||
	    t->last - t->first > NCP_GPU_SPAN_MAX)
		return 0;
	return gpu_to_raw(t, t->first, start) && gpu_to_raw(t, t->last, end);
}

static uint64_t handle_of(uint32_t idx)
{
	return ((uint64_t)ncp.slot[idx].gen << 32) | (idx + 1);
}

/* The live slot a handle names, else NULL (mu held). */
static struct ncp_slot *slot_of(uint64_t h)
{
	uint32_t idx = (uint32_t)h;
	struct ncp_slot *s;

	if (!ncp.slot || idx == 0 || idx > NCP_SLOTS)
		return NULL;
	s = &ncp.slot[idx - 1];
	if (s->kind == NCP_OTHER || s->gen != (uint32_t)(h >> 32))
		return NULL;
	return s;
}

static void slot_free(struct ncp_slot *s)
{
	s->kind = NCP_OTHER;
	s->next_free = ncp.free_head;
	ncp.free_head = (uint32_t)(s - ncp.slot) + 1;
}

/* The finished record of task s; frees the slot (mu held). */
static void task_record(struct ncp_slot *s, struct nnst_gpu *out)
{
	*out = s->rec;
	if (s->kids_started && s->kids_stopped && s->ctx->gpu_timer &&
	    gpu_window(s, &out->start, &out->end)) {
		out->stream = 2;
		ncp.st.gpu_timed++;
	} else if (s->kids_started && s->kids_stopped) {
		out->start = s->k_start;
		out->end = s->k_end;
		out->stream = 1;
		if (s->ctx->gpu_timer)
			ncp.st.gpu_unusable++;
	} else {
		out->start = s->enq_start;
		out->end = s->stopped ? s->enq_end : s->enq_start;
		out->stream = 0;
	}
	if (out->end < out->start)
		out->end = out->start;
	ncp.st.recorded++;
	slot_free(s);
}

static int task_complete(const struct ncp_slot *s)
{
	if (!s->stopped)
		return 0;
	if (!s->ctx->kernel_events || s->ce)
		return 1;
	if (s->kids_expected)
		return s->kids_stopped >= s->kids_expected;
	return s->kids_started && s->kids_stopped == s->kids_started;
}

/* Drops the oldest waiting task of c: emitted into *out (1) when it is
 * still live without kernel events (mu held). */
static int wait_pop(struct ncp_ctx *c, struct nnst_gpu *out)
{
	struct ncp_slot *s = slot_of(c->wait[c->whead]);

	c->whead = (c->whead + 1) % NCP_WAIT;
	c->wlen--;
	if (!s || s->kids_started)
		return 0; /* finished, or its kernel events complete it */
	ncp.st.no_completion++;
	task_record(s, out);
	return 1;
}

/* Task upto's kernel events began: the tasks of c enqueued before it that
 * have none yet will get none; emits up to max of them into out (mu
 * held). Returns how many. */
static size_t wait_drain(struct ncp_ctx *c, uint64_t upto, struct nnst_gpu *out, size_t max)
{
	size_t n = 0;

	while (c->wlen && n < max && c->wait[c->whead] != upto)
		n += (size_t)wait_pop(c, &out[n]);
	return n;
}

/* A free slot, evicting the stopped task that has waited longest for its
 * kernel events when none is free (mu held). *ev gets the evicted task's
 * record and *nev = 1. */
static struct ncp_slot *slot_alloc(struct nnst_gpu *ev, int *nev)
{
	struct ncp_slot *s, *old = NULL;

	*nev = 0;
	if (!ncp.free_head) {
		for (uint32_t i = 0; i < NCP_SLOTS; i++) {
			s = &ncp.slot[i];
			if ((s->kind == NCP_COLL || s->kind == NCP_P2P) && s->stopped &&
			    (!old || s->enq_end < old->enq_end))
				old = s;
		}
		if (!old) {
			ncp.st.pool_full++;
			return NULL;
		}
		ncp.st.evicted++;
		task_record(old, ev);
		*nev = 1;
	}
	s = &ncp.slot[ncp.free_head - 1];
	ncp.free_head = s->next_free;
	s->gen++;
	if (!s->gen)
		s->gen = 1;
	s->stopped = 0;
	s->ce = 0;
	s->kids_started = s->kids_stopped = s->kids_expected = 0;
	s->k_start = s->k_end = 0;
	s->g_start = s->g_stop = 0;
	memset(&s->gpu, 0, sizeof(s->gpu));
	return s;
}

static int pool_ready_locked(void)
{
	if (ncp.slot)
		return 1;
	ncp.slot = calloc(NCP_SLOTS, sizeof(*ncp.slot));
	if (!ncp.slot)
		return 0;
	for (uint32_t i = 0; i < NCP_SLOTS; i++) {
		ncp.slot[i].next_free = i + 1 < NCP_SLOTS ? i + 2 : 0;
	}
	ncp.free_head = 1;
	if (!ncp.clk0.tsc)
		nns_clock_point(&ncp.clk0);
	return 1;
}

/* profile_communication (options.c): 0 when the attached profiler's options
 * turn collectives off (init then gives NCCL activation mask 0, so NCCL
 * reports no event at all), else 1; with none attached yet a later one's
 * NNS_CAT_COMM state bit decides per event (ncp_start). */
static int comm_wanted(void)
{
	const struct nns_profiler *p = nns_current();

	return !p || p->o.profile_communication;
}

int ncp_init(struct ncp_ctx **out, int version, int *mask, uint64_t comm_hash, int nranks, int rank)
{
	struct ncp_ctx *c;
	const char *env = getenv("NNSCOPE_NCCL_KERNEL_EVENTS");
	const char *genv = getenv("NNSCOPE_NCCL_GPU_TIMER");
	int first, on;
	char v[64];

	if (!out)
		return NNS_EINVAL;
	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NNS_ENOMEM;
	c->magic = NCP_CTX_MAGIC;
	c->version = version;
	c->kernel_events = version >= 3 && !(env && strcmp(env, "0") == 0);
	c->gpu_timer = c->kernel_events && version >= 4 && !(genv && strcmp(genv, "0") == 0);
	c->rank = rank;
	c->nranks = nranks;
	c->comm_hash = comm_hash;
	pthread_mutex_lock(&ncp.mu);
	if (!pool_ready_locked()) {
		pthread_mutex_unlock(&ncp.mu);
		free(c);
		return NNS_ENOMEM;
	}
	first = ncp.nctx++ == 0;
	pthread_mutex_unlock(&ncp.mu);
	on = comm_wanted();
	if (mask) /* one mask for every communicator of the process */
		*mask = !on ? 0
			    : NCP_MASK_BASE | (c->kernel_events ? NCP_MASK_KERNEL : 0) |
				  (version >= 6 ? NCP_MASK_CE : 0);
	if (first) {
		snprintf(v, sizeof(v), "ncclProfiler_v%d%s%s", version,
			 !on		    ? " off"
			 : c->kernel_events ? " kernel"
					    : " enqueue",
			 on && c->gpu_timer ? " gputimer" : "");
		nns_set_metadata(nns_current(), "nccl_profiler", v);
	}
	*out = c;
	return NNS_OK;
}

static pid_t ncp_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static void task_start(struct ncp_ctx *ctx, const struct ncp_event *e, void **handle)
{
	struct nnst_gpu rec, ev;
	struct ncp_slot *s;
	int nev;

	memset(&rec, 0, sizeof(rec));
	rec.type = NNST_GPU_COLL;
	rec.flags = NNST_GPUF_HOSTCLOCK;
	rec.device = -1;
	rec.name = nns_name(e->func ? e->func : (e->kind == NCP_P2P ? "SendRecv" : "unknown"));
	rec.a = e->count;
	rec.b = e->comm_hash ? e->comm_hash : ctx->comm_hash;
	rec.u[0] = nns_name(e->dtype);
	rec.u[1] = nns_name(e->algo);
	rec.u[2] = nns_name(e->proto);
	rec.u[3] = (uint32_t)(e->rank >= 0 ? e->rank : ctx->rank);
	rec.u[4] = (uint32_t)ctx->nranks;
	rec.u[5] = (uint32_t)e->root;
	rec.u[6] = (uint32_t)e->seq;
	rec.u[7] = (uint32_t)ncp_tid();

	pthread_mutex_lock(&ncp.mu);
	nev = 0;
	s = ncp.slot && ctx->magic == NCP_CTX_MAGIC ? slot_alloc(&ev, &nev) : NULL;
	if (s) {
		s->kind = (uint8_t)(e->kind == NCP_CE ? NCP_COLL : e->kind);
		s->ce = e->kind == NCP_CE;
		s->ctx = ctx;
		s->rec = rec;
		s->kids_expected = (uint16_t)(e->nchannels > 0 ? e->nchannels : 0);
		s->enq_start = nns_now();
		*handle = (void *)(uintptr_t)handle_of((uint32_t)(s - ncp.slot));
	}
	pthread_mutex_unlock(&ncp.mu);
	if (nev)
		nns_gpu_submit(&ev, 1);
}

static void kernel_start(const struct ncp_event *e, void **handle)
{
	struct ncp_slot *task, *s = NULL;
	struct nnst_gpu ev[9];
	uint64_t parent = (uint64_t)(uintptr_t)e->parent, now = nns_now();
	int nev = 0;
	size_t nold = 0;

	if (!parent) /* its task was not recorded (nothing collected then) */
		return;
	pthread_mutex_lock(&ncp.mu);
	task = slot_of(parent);
	if (!task || (task->kind != NCP_COLL && task->kind != NCP_P2P)) {
		ncp.st.bad_handle++;
	} else {
		if (!task->kids_started)
			nold = wait_drain(task->ctx, parent, ev + 1, 8);
		/* the eviction could pick the parent itself: mark it busy first */
		if (!task->kids_started || now < task->k_start)
			task->k_start = now;
		task->kids_started++;
		if (task->ctx->gpu_timer)
			gpu_observe(&task->gpu, now, e->gpu_ns, slope_locked(now));
		s = slot_alloc(&ev[0], &nev);
		if (s && slot_of(parent)) {
			s->kind = NCP_KCH;
			s->ctx = task->ctx;
			s->parent = parent;
			s->g_start = e->gpu_ns;
			*handle = (void *)(uintptr_t)handle_of((uint32_t)(s - ncp.slot));
		} else if (s) { /* the parent was evicted to make room */
			slot_free(s);
		}
	}
	pthread_mutex_unlock(&ncp.mu);
	if (nev)
		nns_gpu_submit(&ev[0], 1);
	if (nold)
		nns_gpu_submit(ev + 1, nold);
}

void ncp_start(struct ncp_ctx *ctx, const struct ncp_event *e, void **handle)
{
	if (!handle)
		return;
	*handle = NULL;
	if (!ctx || __atomic_load_n(&ctx->magic, __ATOMIC_RELAXED) != NCP_CTX_MAGIC || !e)
		return;
	switch (e->kind) {
	case NCP_COLL:
	case NCP_P2P:
	case NCP_CE:
		if (nns_state_load() & NNS_CAT_COMM) /* else nothing collects collectives */
			task_start(ctx, e, handle);
		break;
	case NCP_KCH:
		kernel_start(e, handle);
		break;
	default:
		break;
	}
}

/* A channel of task t stopped at host time now: its GPU start gs and stop
 * ge (0 none) widen the task's GPU window (mu held). */
static void kernel_gpu_stop(struct ncp_slot *t, uint64_t now, uint64_t gs, uint64_t ge)
{
	struct ncp_gpu *g = &t->gpu;

	if (!gs || !ge || ge < gs || ge - gs > NCP_GPU_SPAN_MAX) {
		g->bad = 1;
		return;
	}
	gpu_observe(g, now, ge, slope_locked(now));
	if (!g->n || gs < g->first)
		g->first = gs;
	if (!g->n || ge > g->last)
		g->last = ge;
	g->n++;
}

void ncp_kernel_stop_time(void *handle, uint64_t gpu_ns)
{
	struct ncp_slot *s;

	if (!handle)
		return;
	pthread_mutex_lock(&ncp.mu);
	s = slot_of((uint64_t)(uintptr_t)handle);
	if (s && s->kind == NCP_KCH)
		s->g_stop = gpu_ns;
	pthread_mutex_unlock(&ncp.mu);
}

void ncp_stop(void *handle)
{
	uint64_t h = (uint64_t)(uintptr_t)handle, now = nns_now();
	struct ncp_slot *s, *task;
	struct nnst_gpu rec;
	int emit = 0;

	if (!handle)
		return;
	pthread_mutex_lock(&ncp.mu);
	s = slot_of(h);
	if (!s) {
		ncp.st.bad_handle++;
	} else if (s->kind == NCP_KCH) {
		uint64_t gs = s->g_start, ge = s->g_stop;

		task = slot_of(s->parent);
		slot_free(s);
		if (!task) {
			ncp.st.bad_handle++;
		} else {
			task->kids_stopped++;
			if (now > task->k_end)
				task->k_end = now;
			if (task->ctx->gpu_timer)
				kernel_gpu_stop(task, now, gs, ge);
			if (task_complete(task)) {
				task_record(task, &rec);
				emit = 1;
			}
		}
	} else if (s->stopped) {
		ncp.st.bad_handle++; /* stopped twice */
	} else {
		s->stopped = 1;
		s->enq_end = now;
		if (task_complete(s)) {
			task_record(s, &rec);
			emit = 1;
		} else if (s->ctx->kernel_events && !s->kids_expected && !s->kids_started) {
			struct ncp_ctx *c = s->ctx;

			if (c->wlen == NCP_WAIT)
				emit = wait_pop(c, &rec);
			c->wait[(c->whead + c->wlen++) % NCP_WAIT] = h;
		}
	}
	pthread_mutex_unlock(&ncp.mu);
	if (emit)
		nns_gpu_submit(&rec, 1);
}

/* Emits the tasks of ctx and frees their slots and those of their kernel
 * events, in batches submitted outside the lock. */
static void flush_ctx(const struct ncp_ctx *ctx)
{
	struct nnst_gpu batch[NCP_FLUSH_MAX];
	uint32_t i = 0;

	for (;;) {
		size_t n = 0;

		pthread_mutex_lock(&ncp.mu);
		for (; ncp.slot && i < NCP_SLOTS && n < NCP_FLUSH_MAX; i++) {
			struct ncp_slot *s = &ncp.slot[i];

			if (s->kind == NCP_OTHER || s->ctx != ctx)
				continue;
			if (s->kind == NCP_KCH) {
				slot_free(s);
				continue;
			}
			if (s->ctx->kernel_events && !s->ce && !s->kids_stopped)
				ncp.st.no_completion++;
			task_record(s, &batch[n++]);
		}
		pthread_mutex_unlock(&ncp.mu);
		if (n)
			nns_gpu_submit(batch, n);
		if (n < NCP_FLUSH_MAX)
			break;
	}
}

void ncp_finalize(struct ncp_ctx *ctx)
{
	struct ncp_stats st;
	char v[160];
	int last, gpu_timer;

	struct ncp_ctx *dead = NULL;

	pthread_mutex_lock(&ncp.mu);
	if (!ctx || ctx->magic != NCP_CTX_MAGIC) {
		pthread_mutex_unlock(&ncp.mu);
		return;
	}
	__atomic_store_n(&ctx->magic, 0, __ATOMIC_RELAXED); /* later calls: ignored */
	gpu_timer = ctx->gpu_timer;
	ctx->next_dead = ncp.dead;
	ncp.dead = ctx;
	pthread_mutex_unlock(&ncp.mu);
	flush_ctx(ctx);
	pthread_mutex_lock(&ncp.mu);
	last = ncp.nctx > 0 && --ncp.nctx == 0;
	st = ncp.st;
	if (last) {
		free(ncp.slot);
		ncp.slot = NULL;
		ncp.free_head = 0;
		dead = ncp.dead;
		ncp.dead = NULL;
	}
	pthread_mutex_unlock(&ncp.mu);
	while (dead) {
		struct ncp_ctx *next = dead->next_dead;

		free(dead);
		dead = next;
	}
	if (last && (st.pool_full || st.bad_handle || st.evicted || st.no_completion)) {
		snprintf(v, sizeof(v),
			 "pool_full=%llu bad_handle=%llu evicted=%llu no_completion=%llu",
			 (unsigned long long)st.pool_full, (unsigned long long)st.bad_handle,
			 (unsigned long long)st.evicted, (unsigned long long)st.no_completion);
		nns_set_metadata(nns_current(), "nccl_profiler_drops", v);
	}
	if (last && gpu_timer) {
		snprintf(v, sizeof(v), "timed=%llu unusable=%llu", (unsigned long long)st.gpu_timed,
			 (unsigned long long)st.gpu_unusable);
		nns_set_metadata(nns_current(), "nccl_profiler_gpu_timer", v);
	}
}

void ncp_stats(struct ncp_stats *out)
{
	if (!out)
		return;
	pthread_mutex_lock(&ncp.mu);
	*out = ncp.st;
	pthread_mutex_unlock(&ncp.mu);
}
