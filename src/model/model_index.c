/*
 * model_index.c - what model_finalize computes once about every event, so
 * that no analysis re-derives it (model.h, "the index"):
 *   - each thread's numeric pid and tid (model_thread_pid/_tid);
 *   - each device event's class: computation, memory or communication
 *     (model_class_of: the one kernel classifier), in model_event.flags;
 *   - nesting: each event's parent (the innermost event of the same thread
 *     whose range holds it) and depth; an event that starts inside a range
 *     and ends after it is flagged MODEL_EF_PARTIAL and hangs under the
 *     innermost range that does hold it;
 *   - attribution: the operator each launch and device event belongs to
 *     (model.op_of), by the rules of model_attr, counted in model.attr.
 * One sweep over the events in (ts, -dur) order with a stack per thread
 * kept as parent links; O(n x depth) overall.
 */
#include "model.h"
#include "common/idmap.h"

#include <stdlib.h>
#include <string.h>

static int has(const char *s, const char *p)
{
	return strstr(s, p) != NULL;
}

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Ascend's collective communication (HCCL) in MindSpore / CANN names:
 * "hcom_allReduce__360_0_1", "HcomAllReduce", "hccl..."; an op whose type
 * (the name after the last '/', before "-op") is a collective:
 * "AllReduce-op12", "Default/Broadcast-op3"; and MindSpore's all-reduce
 * stream rows of the step trace and timeline, "stream_<id>_parallel_<k>"
 * / "stream_<id>_<k>". */
static int ascend_comm(const char *name)
{
	static const char *const types[] = {
	    "AllReduce", "AllGather",	     "ReduceScatter", "Broadcast", "AllToAll", "AlltoAll",
	    "AlltoAllV", "NeighborExchange", "Send",	      "Receive",   "Reduce"};
	const char *b = strrchr(name, '/'), *dash;
	size_t n;

	if (starts(name, "hcom_") || starts(name, "Hcom") || starts(name, "hccl") ||
	    starts(name, "HCCL"))
		return 1;
	if (starts(name, "stream_") && name[7] >= '0' && name[7] <= '9') {
		const char *p = name + 7;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == '_')
			return 1;
	}
	b = b ? b + 1 : name;
	dash = strstr(b, "-op");
	n = dash ? (size_t)(dash - b) : strlen(b);
	if (!dash)
		return 0; /* a bare "Send" / "Broadcast" may be anything's */
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strlen(types[i]) == n && strncmp(b, types[i], n) == 0)
			return 1;
	return 0;
}

int model_class_of(int kind, const char *name)
{
	if (!model_kind_is_device(kind))
		return MC_NONE;
	if (kind == MK_MEMCPY || kind == MK_MEMSET)
		return MC_MEMORY;
	if (!name)
		return MC_COMPUTE;
	/* HTA's get_kernel_type: "ncclKernel" anywhere (so "void ncclKernel..."
	 * too) or a name starting with "nccl"; plus NCCL >= 2.19's
	 * ncclDevKernel, RCCL's and Gloo's */
	if (starts(name, "nccl") || has(name, "ncclKernel") || has(name, "ncclDevKernel") ||
	    starts(name, "rccl") || has(name, "rcclKernel") || has(name, "gloo:"))
		return MC_COMM;
	if (ascend_comm(name))
		return MC_COMM;
	/* HTA's is_memory_kernel, plus accelerators' copy engines: MTIA's
	 * dma_request events (mtia_ccp_events) */
	if (has(name, "Memcpy") || has(name, "Memset") || has(name, "dma_request") ||
	    starts(name, "dma_") || starts(name, "DMA"))
		return MC_MEMORY;
	return MC_COMPUTE;
}

const char *model_class_name(int c)
{
	static const char *const names[] = {"none", "computation", "memory", "communication"};

	return c >= 0 && c < 4 ? names[c] : "none";
}

int model_is_operator(const struct model *m, uint32_t ev)
{
	const struct model_event *e = &m->events.v[ev];
	const char *name;

	if (e->kind != MK_CPU_OP)
		return 0;
	/* PyTorch 1.x writes its step ranges as cpu_op */
	name = model_str(m, e->name);
	return !(name && starts(name, "ProfilerStep#"));
}

/* The decimal integer of s, or -1 when s is not one ("stream 7" -> 7). */
static int64_t id_number(const char *s)
{
	int64_t v = 0;
	int digits = 0;

	if (!s)
		return -1;
	if (starts(s, "stream "))
		s += 7;
	if (*s == '-')
		return -1;
	for (; *s >= '0' && *s <= '9' && digits < 18; s++, digits++)
		v = v * 10 + (*s - '0');
	return digits && !*s ? v : -1;
}

int model_event_device(const struct model *m, uint32_t ev)
{
	const struct model_event *e = &m->events.v[ev];
	int64_t pid;

	if (e->device >= 0 || !(model_kind_is_device(e->kind) || e->kind == MK_GPU_ANNOTATION))
		return e->device;
	/* Kineto writes a device's events under pid = the device index */
	pid = m->thread_pid[e->thread];
	return pid >= 0 && pid < 4096 ? (int)pid : -1;
}

int64_t model_event_stream(const struct model *m, uint32_t ev)
{
	const struct model_event *e = &m->events.v[ev];

	if (model_kind_has_dev_args(e->kind) && e->extra != MODEL_NOIDX &&
	    m->dev_args.v[e->extra].stream >= 0)
		return m->dev_args.v[e->extra].stream;
	if (!(model_kind_is_device(e->kind) || e->kind == MK_GPU_ANNOTATION || e->kind == MK_SYNC))
		return -1;
	/* Kineto writes a stream's events under tid = the stream id */
	return m->thread_tid[e->thread];
}

void model_index_release(struct model *m)
{
	free(m->parent);
	free(m->depth);
	free(m->op_of);
	free(m->thread_pid);
	free(m->thread_tid);
	m->parent = m->op_of = NULL;
	m->depth = NULL;
	m->thread_pid = m->thread_tid = NULL;
	memset(&m->attr, 0, sizeof(m->attr));
}

/* Event i's parent t (MODEL_NOIDX: none), and its depth: written only
 * when not the zeroed arrays' default (the top, depth 0). */
static void link(struct model *m, size_t i, uint32_t t)
{
	if (t == MODEL_NOIDX)
		return;
	m->parent[i] = ~t;
	m->depth[i] = (uint16_t)(m->depth[t] + (m->depth[t] < UINT16_MAX));
}

/* Nesting: parent links double as each thread's stack (top[thread]). */
static void nest(struct model *m, uint32_t *top)
{
	size_t i;

	for (i = 0; i < m->events.n; i++) {
		struct model_event *e = &m->events.v[i];
		int64_t end = e->ts + e->dur;
		uint32_t t = top[e->thread];

		/* pop what ended before e starts */
		while (t != MODEL_NOIDX && m->events.v[t].ts + m->events.v[t].dur <= e->ts)
			t = model_parent(m, t);
		if (t != MODEL_NOIDX && end > m->events.v[t].ts + m->events.v[t].dur) {
			/* a partial overlap: hang it under the innermost range
			 * that holds it, and keep it off the stack */
			e->flags |= MODEL_EF_PARTIAL;
			while (t != MODEL_NOIDX && end > m->events.v[t].ts + m->events.v[t].dur)
				t = model_parent(m, t);
			link(m, i, t);
			continue;
		}
		link(m, i, t);
		top[e->thread] = (uint32_t)i;
	}
}

/* The innermost operator enclosing event i on its thread, or MODEL_NOIDX. */
static uint32_t enclosing_op(const struct model *m, uint32_t i)
{
	uint32_t p;

	for (p = model_parent(m, i); p != MODEL_NOIDX; p = model_parent(m, p))
		if (model_is_operator(m, p))
			return p;
	return MODEL_NOIDX;
}

static int attribute(struct model *m)
{
	struct model_attr *a = &m->attr;
	struct idmap first; /* external id -> first operator carrying it */
	size_t i, n = m->events.n, count = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	int rc = NNS_ENOMEM;

	/* a loop below that would find nothing (no ids; no launch or device
	 * event among m->kinds, which model_index_nest set) is not run: a
	 * trace of plain ranges reads its rows once, not four times */
	for (i = 0; i < n; i++) {
		int64_t x = model_ext_id(m, &m->events.v[i]);
		if (x != MODEL_NONE && x != 0) {
			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
			count++;
		}
	}
	if (idmap_init(&first, lo, hi, count))
		return NNS_ENOMEM;
	for (i = 0; i < n && count; i++) {
		int64_t x = model_ext_id(m, &m->events.v[i]);
		if (x != MODEL_NONE && x != 0 && model_is_operator(m, (uint32_t)i) &&
		    idmap_put_first(&first, x, (uint32_t)i))
			goto out;
	}
	for (i = 0; i < n && (m->kinds & MODEL_KB_LAUNCH); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t op, hit = IDMAP_NONE;
		int64_t x;
		if (!model_kind_is_launch(e->kind))
			continue;
		a->launches++;
		/* an external id equal to the launch's own correlation id is
		 * Kineto writing the correlation twice, not a name */
		x = model_ext_id(m, e);
		if (x != MODEL_NONE && x != 0 && x != model_corr(m, e))
			hit = idmap_get(&first, x);
		if (hit != IDMAP_NONE &&
		    m->threads.v[m->events.v[hit].thread].pid == m->threads.v[e->thread].pid) {
			op = hit;
			a->by_external_id++;
		} else if ((op = enclosing_op(m, (uint32_t)i)) != MODEL_NOIDX) {
			a->by_enclosing++;
		} else {
			a->unattributed++;
		}
		if (op != MODEL_NOIDX)
			m->op_of[i] = ~op;
	}
	for (i = 0; i < n && (m->kinds & MODEL_KB_DEVICE); i++) {
		const struct model_event *e = &m->events.v[i];
		uint32_t l = model_launch_of(m, i);
		if (!model_kind_is_device(e->kind))
			continue;
		a->device_events++;
		a->device_ns += e->dur;
		if (l == MODEL_NOIDX) {
			a->device_no_launch++;
			a->device_unattributed_ns += e->dur;
			continue;
		}
		m->op_of[i] = m->op_of[l];
		if (model_op_of(m, i) == MODEL_NOIDX) {
			a->device_unattributed++;
			a->device_unattributed_ns += e->dur;
		}
	}
	rc = NNS_OK;
out:
	idmap_release(&first);
	return rc;
}

int model_index_nest(struct model *m)
{
	size_t n = m->events.n, nthr = m->threads.n, i;
	uint32_t *top = NULL;
	uint8_t *memo = NULL;
	int rc = NNS_ENOMEM;

	model_index_release(m);
	m->parent = calloc(n + 1, sizeof(*m->parent));
	m->depth = calloc(n + 1, sizeof(*m->depth));
	m->op_of = calloc(n + 1, sizeof(*m->op_of));
	m->thread_pid = malloc((nthr + 1) * sizeof(*m->thread_pid));
	m->thread_tid = malloc((nthr + 1) * sizeof(*m->thread_tid));
	top = malloc((nthr + 1) * sizeof(*top));
	if (!m->parent || !m->depth || !m->op_of || !m->thread_pid || !m->thread_tid || !top)
		goto out;
	for (i = 0; i < nthr; i++) {
		m->thread_pid[i] = id_number(model_str(m, m->threads.v[i].pid));
		m->thread_tid[i] = id_number(model_str(m, m->threads.v[i].tid));
		top[i] = MODEL_NOIDX;
	}
	/* a kernel's class depends on its name only: classified once per
	 * distinct name (memo: class + 1, 0 = not yet) */
	memo = calloc(m->strings.count + 1, 1);
	if (!memo)
		goto out;
	m->kinds = 0;
	for (i = 0; i < n; i++) {
		struct model_event *e = &m->events.v[i];
		int c = MC_NONE;
		if (e->kind < 32)
			m->kinds |= MODEL_KB(e->kind);
		if (e->kind == MK_MEMCPY || e->kind == MK_MEMSET) {
			c = MC_MEMORY;
		} else if (model_kind_is_device(e->kind) && e->name < m->strings.count) {
			if (!memo[e->name])
				memo[e->name] =
				    (uint8_t)(model_class_of(e->kind, model_str(m, e->name)) + 1);
			c = memo[e->name] - 1;
		} else if (model_kind_is_device(e->kind)) {
			c = model_class_of(e->kind, NULL);
		}
		e->flags = (uint8_t)((e->flags & MODEL_EF_SRCCAT) | (c & MODEL_EF_CLASS));
	}
	nest(m, top);
	rc = NNS_OK;
out:
	free(top);
	free(memo);
	if (rc)
		model_index_release(m);
	return rc;
}

int model_index_attribute(struct model *m)
{
	int rc = attribute(m);

	if (rc)
		model_index_release(m);
	return rc;
}

int model_index_build(struct model *m)
{
	int rc = model_index_nest(m);

	return rc ? rc : model_index_attribute(m);
}
