/*
 * chrome.c - Chrome-trace export of any model (Kineto or .nnst): the
 * timeline for Perfetto UI / chrome://tracing, honouring a size cap like
 * MindSpore's timeline_limit (output.h, out_chrome_write); the limit a
 * trace's own collector options asked for (out_chrome_trace_limit_mb).
 *
 * All rows of the model are merged into one stream in time order (events
 * are already sorted; counters and flows get a sorted index), so a cut
 * drops the tail of the run, as MindSpore's writer does. The size is
 * counted exactly: the JSON writer's FILE is a counting wrapper
 * (fopencookie, unbuffered) around the destination, and before each event
 * the bytes written + an upper bound of the event's size + room for the
 * closing part are checked against the cap, so the file never passes it
 * (unless the cap is smaller than the header and metadata, which are
 * always written).
 *
 * pid and tid are numbers in the output: a model pid/tid text that is a
 * decimal integer is written as that number, any other ("stream 7",
 * "Traces") gets a synthetic number and keeps its text in the
 * process_name / thread_name metadata.
 */
#include "common/hmap.h"
#include "common/num.h"
#include "output/outfile.h"
#include "output/output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TAIL_RESERVE 640     /* cut marker + closing part */
#define EVENT_OVERHEAD 700   /* fixed part of one event, args included */
#define SYNTH_TID 2000000000 /* + thread index */
#define SYNTH_PID 2100000000 /* + string id */

enum { S_EVENT, S_COUNTER, S_INSTANT, S_FLOW, S_MEM, S_QUEUE, S_SAMPLE, S_HOST, S_N };

struct stream {
	size_t i, n;
	uint32_t *order; /* sorted index, NULL when the rows are sorted */
};

struct cw {
	FILE *out;
	int64_t bytes;
	int failed;
};

struct ctx {
	const struct model *m;
	struct jsonw w;
	struct cw cw;
	int64_t t0;
	int64_t *tid_num; /* per thread */
	struct stream s[S_N];
};

static ssize_t cw_write(void *cookie, const char *buf, size_t n)
{
	struct cw *c = cookie;
	size_t k = fwrite(buf, 1, n, c->out);

	c->bytes += (int64_t)k;
	if (k != n) {
		c->failed = 1;
		return k ? (ssize_t)k : -1;
	}
	return (ssize_t)n;
}

static int parse_num(const char *s, int64_t *v)
{
	char *end;
	long long x;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return -1;
	errno = 0;
	x = strtoll(s, &end, 10);
	if (errno || *end || x < -2147483647LL * 1024 || x > 2147483647LL * 1024)
		return -1;
	*v = x;
	return 0;
}

static int64_t pid_num(const struct model *m, uint32_t pid)
{
	int64_t v;

	return parse_num(model_str(m, pid), &v) == 0 ? v : SYNTH_PID + (int64_t)pid;
}

/* A host_info row's time on the model clock (time_stamp(us) is
 * CLOCK_MONOTONIC; mono_offset_ns is known: host_index() checked). */
static int64_t host_ts(const struct model *m, const struct model_host *r)
{
	const int64_t lim = (int64_t)1 << 61;
	int64_t us = r->ts_us < lim / 1000 ? r->ts_us : lim / 1000;
	int64_t off = m->mono_offset_ns;

	if (off > lim || off < -lim)
		off = off > 0 ? lim : -lim;
	return us * 1000 + off;
}

static int64_t ts_of(const struct ctx *c, int s, size_t k)
{
	const struct model *m = c->m;
	size_t i = c->s[s].order ? c->s[s].order[k] : k;

	switch (s) {
	case S_EVENT:
		return m->events.v[i].ts;
	case S_COUNTER:
		return m->counters.v[i].ts;
	case S_INSTANT:
		return m->instants.v[i].ts;
	case S_FLOW:
		return m->flows.v[i].ts;
	case S_MEM:
		return m->mems.v[i].ts;
	case S_QUEUE:
		return m->queues.v[i].ts;
	case S_HOST:
		return host_ts(m, &m->host.v[i]);
	default:
		return m->samples.v[i].ts;
	}
}

struct key {
	int64_t ts;
	uint32_t idx;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* host_info rows with a time stamp, sorted by time; none when the trace's
 * monotonic clock is unknown (the rows could not be placed). */
static int host_index(struct ctx *c)
{
	const struct model *m = c->m;
	struct stream *st = &c->s[S_HOST];
	struct key *k;
	size_t n = 0;

	st->n = 0;
	if (m->mono_offset_ns == MODEL_NONE || m->host.n == 0)
		return 0;
	k = malloc(m->host.n * sizeof(*k));
	st->order = malloc(m->host.n * sizeof(*st->order));
	if (!k || !st->order) {
		free(k);
		return NNS_ENOMEM;
	}
	for (size_t i = 0; i < m->host.n; i++)
		if (m->host.v[i].ts_us > 0) {
			k[n].ts = host_ts(m, &m->host.v[i]);
			k[n++].idx = (uint32_t)i;
		}
	qsort(k, n, sizeof(*k), key_cmp);
	for (size_t i = 0; i < n; i++)
		st->order[i] = k[i].idx;
	st->n = n;
	free(k);
	return 0;
}

/* A sorted index of stream s when its rows are not in time order. */
static int index_stream(struct ctx *c, int s)
{
	struct stream *st = &c->s[s];
	struct key *k;
	int sorted = 1;

	for (size_t i = 1; i < st->n && sorted; i++)
		sorted = ts_of(c, s, i - 1) <= ts_of(c, s, i);
	if (sorted)
		return 0;
	k = malloc(st->n * sizeof(*k));
	if (!k)
		return NNS_ENOMEM;
	for (size_t i = 0; i < st->n; i++) {
		k[i].ts = ts_of(c, s, i); /* order is still NULL: row i */
		k[i].idx = (uint32_t)i;
	}
	st->order = malloc(st->n * sizeof(*st->order));
	if (!st->order) {
		free(k);
		return NNS_ENOMEM;
	}
	qsort(k, st->n, sizeof(*k), key_cmp);
	for (size_t i = 0; i < st->n; i++)
		st->order[i] = k[i].idx;
	free(k);
	return 0;
}

static double rel_us(const struct ctx *c, int64_t ts)
{
	return (double)(ts - c->t0) / 1000.0;
}

static void common(struct ctx *c, const char *ph, const char *name, uint32_t thread, int64_t ts)
{
	const struct model *m = c->m;
	struct jsonw *w = &c->w;

	jsonw_kstr(w, "ph", ph);
	jsonw_kstr(w, "name", name);
	if (thread < m->threads.n) {
		jsonw_kint(w, "pid", pid_num(m, m->threads.v[thread].pid));
		jsonw_kint(w, "tid", c->tid_num[thread]);
	} else {
		jsonw_kint(w, "pid", 0);
		jsonw_kint(w, "tid", 0);
	}
	jsonw_kdouble(w, "ts", rel_us(c, ts));
}

static void write_x(struct ctx *c, const struct model_event *e)
{
	const struct model *m = c->m;
	struct jsonw *w = &c->w;

	jsonw_obj_begin(w);
	common(c, "X", model_str(m, e->name), e->thread, e->ts);
	jsonw_kdouble(w, "dur", (double)e->dur / 1000.0);
	jsonw_kstr(w, "cat", model_event_cat(m, (uint32_t)(e - m->events.v)));
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	out_json_event_args(w, m, e);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

static void write_mem(struct ctx *c, const struct model_mem *r)
{
	struct jsonw *w = &c->w;

	jsonw_obj_begin(w);
	common(c, "i", "[memory]", r->thread, r->ts);
	jsonw_kstr(w, "s", "t");
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kint(w, "Device Type", r->device_type);
	jsonw_kint(w, "Device Id", r->device_id);
	if (r->flags & MODEL_MEM_HAS_ADDR)
		jsonw_kint(w, "Addr", r->addr);
	jsonw_kint(w, "Bytes", r->bytes);
	if (r->flags & MODEL_MEM_HAS_TOTAL_ALLOC)
		jsonw_kint(w, "Total Allocated", r->total_allocated);
	if (r->flags & MODEL_MEM_HAS_TOTAL_RESERVED)
		jsonw_kint(w, "Total Reserved", r->total_reserved);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
	if (!(r->flags & (MODEL_MEM_HAS_TOTAL_ALLOC | MODEL_MEM_HAS_TOTAL_RESERVED)))
		return;
	{
		char name[48];

		if (r->device_type == 0)
			snprintf(name, sizeof(name), "Memory CPU");
		else
			snprintf(name, sizeof(name), "Memory GPU%d", r->device_id);
		jsonw_obj_begin(w);
		common(c, "C", name, r->thread, r->ts);
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		if (r->flags & MODEL_MEM_HAS_TOTAL_ALLOC)
			jsonw_kint(w, "allocated", r->total_allocated);
		if (r->flags & MODEL_MEM_HAS_TOTAL_RESERVED)
			jsonw_kint(w, "reserved", r->total_reserved);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	}
}

static void write_sample(struct ctx *c, const struct model_sample *s)
{
	struct jsonw *w = &c->w;
	char name[64];
	uint32_t thread = s->thread;

	if (s->kind == MS_MACHINE)
		snprintf(name, sizeof(name), "CPU machine %%");
	else if (s->kind == MS_PROCESS)
		snprintf(name, sizeof(name), "CPU process %%");
	else
		snprintf(name, sizeof(name), "CPU thread %" PRId64 " %%", s->tid);
	if (thread >= c->m->threads.n)
		thread = c->m->threads.n ? 0 : MODEL_NOIDX;
	jsonw_obj_begin(w);
	common(c, "C", name, thread, s->ts);
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kdouble(w, "user", s->user);
	jsonw_kdouble(w, "sys", s->sys);
	if (s->kind == MS_MACHINE)
		jsonw_kdouble(w, "iowait", s->iowait);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

/* A host_info row: "B"/"E"/"i" of "event::stage" (cat = module) on the
 * row's pid/tid, as MindSpore's host timeline, and its VmRSS as a counter. */
static void write_host(struct ctx *c, const struct model_host *r)
{
	static const char *const ph[3] = {"B", "E", "i"};
	const struct model *m = c->m;
	struct jsonw *w = &c->w;
	int64_t ts = host_ts(m, r);
	char name[512];

	snprintf(name, sizeof(name), "%s::%s", model_str(m, r->event), model_str(m, r->stage));
	jsonw_obj_begin(w);
	jsonw_kstr(w, "ph", ph[r->start_end >= 0 && r->start_end <= 2 ? r->start_end : 2]);
	jsonw_kstr(w, "name", name);
	jsonw_kstr(w, "cat", model_str(m, r->module));
	jsonw_kint(w, "pid", r->pid);
	jsonw_kint(w, "tid", r->tid);
	jsonw_kdouble(w, "ts", rel_us(c, ts));
	if (r->start_end == 2)
		jsonw_kstr(w, "s", "t");
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kint(w, "parent_pid", r->parent_pid);
	if (r->custom)
		jsonw_kstr(w, "custom_info", model_str(m, r->custom));
	jsonw_obj_end(w);
	jsonw_obj_end(w);
	if (r->memory_kb <= 0)
		return;
	jsonw_obj_begin(w);
	jsonw_kstr(w, "ph", "C");
	jsonw_kstr(w, "name", "host_info VmRSS kB");
	jsonw_kint(w, "pid", r->pid);
	jsonw_kint(w, "tid", r->tid);
	jsonw_kdouble(w, "ts", rel_us(c, ts));
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kint(w, "kB", r->memory_kb);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

static void write_row(struct ctx *c, int s, size_t k)
{
	const struct model *m = c->m;
	struct jsonw *w = &c->w;
	size_t i = c->s[s].order ? c->s[s].order[k] : k;

	switch (s) {
	case S_EVENT:
		write_x(c, &m->events.v[i]);
		break;
	case S_COUNTER: {
		const struct model_counter *x = &m->counters.v[i];

		jsonw_obj_begin(w);
		common(c, "C", model_str(m, x->name), x->thread, x->ts);
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		jsonw_kdouble(w, "value", x->value);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
		break;
	}
	case S_INSTANT: {
		const struct model_instant *x = &m->instants.v[i];

		jsonw_obj_begin(w);
		common(c, "i", model_str(m, x->name), x->thread, x->ts);
		jsonw_kstr(w, "s", "t");
		jsonw_obj_end(w);
		break;
	}
	case S_FLOW: {
		const struct model_flow *x = &m->flows.v[i];
		const char *cat = x->kind == MF_FWDBWD ? "fwdbwd"
				  : x->kind == MF_AC2G ? "ac2g"
						       : "flow";
		char ph[2] = {x->ph, '\0'};

		jsonw_obj_begin(w);
		common(c, ph, cat, x->thread, x->ts);
		jsonw_kstr(w, "cat", cat);
		jsonw_kint(w, "id", x->id);
		if (x->ph == 'f')
			jsonw_kstr(w, "bp", "e");
		jsonw_obj_end(w);
		break;
	}
	case S_MEM:
		write_mem(c, &m->mems.v[i]);
		break;
	case S_QUEUE: {
		const struct model_queue *x = &m->queues.v[i];
		char name[300];

		snprintf(name, sizeof(name), "queue %s", model_str(m, x->name));
		jsonw_obj_begin(w);
		common(c, "C", name, x->thread, x->ts);
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		jsonw_kint(w, "size", x->size);
		if (x->capacity > 0)
			jsonw_kint(w, "capacity", x->capacity);
		jsonw_obj_end(w);
		jsonw_obj_end(w);
		break;
	}
	case S_HOST:
		write_host(c, &m->host.v[i]);
		break;
	default:
		write_sample(c, &m->samples.v[i]);
		break;
	}
}

/* Upper bound of the bytes row (s, k) takes (escaping: 6 bytes per byte). */
static int64_t estimate(const struct ctx *c, int s, size_t k)
{
	const struct model *m = c->m;
	size_t i = c->s[s].order ? c->s[s].order[k] : k, n = 0;

	if (s == S_EVENT) {
		const struct model_event *e = &m->events.v[i];

		n = strpool_len(&m->strings, e->name);
		if (!model_kind_has_dev_args(e->kind) && e->extra < m->op_args.n) {
			const struct model_op_args *a = &m->op_args.v[e->extra];

			n += strpool_len(&m->strings, a->input_dims) +
			     strpool_len(&m->strings, a->input_type) +
			     strpool_len(&m->strings, a->call_stack);
		} else if (e->extra < m->dev_args.n) {
			n += strpool_len(&m->strings, m->dev_args.v[e->extra].grid) +
			     strpool_len(&m->strings, m->dev_args.v[e->extra].block);
		}
	} else if (s == S_COUNTER) {
		n = strpool_len(&m->strings, m->counters.v[i].name);
	} else if (s == S_INSTANT) {
		n = strpool_len(&m->strings, m->instants.v[i].name);
	} else if (s == S_QUEUE) {
		n = strpool_len(&m->strings, m->queues.v[i].name);
	} else if (s == S_MEM) {
		n = 300; /* two records */
	} else if (s == S_HOST) {
		const struct model_host *r = &m->host.v[i];

		n = 300 + strpool_len(&m->strings, r->module) + strpool_len(&m->strings, r->event) +
		    strpool_len(&m->strings, r->stage) + strpool_len(&m->strings, r->custom);
	}
	return (int64_t)n * 6 + EVENT_OVERHEAD;
}

static int64_t written(const struct ctx *c)
{
	return c->cw.bytes + (int64_t)c->w.len;
}

static int metadata(struct ctx *c)
{
	const struct model *m = c->m;
	struct jsonw *w = &c->w;
	struct hmap seen;

	hmap_init(&seen);
	for (size_t t = 0; t < m->threads.n; t++) {
		const struct model_thread *th = &m->threads.v[t];
		int first_of_pid = 0;

		if (!hmap_put(&seen, th->pid, 0, &first_of_pid)) {
			hmap_release(&seen);
			return NNS_ENOMEM;
		}
		if (first_of_pid) {
			jsonw_obj_begin(w);
			jsonw_kstr(w, "ph", "M");
			jsonw_kstr(w, "name", "process_name");
			jsonw_kint(w, "pid", pid_num(m, th->pid));
			jsonw_kint(w, "tid", 0);
			jsonw_key(w, "args");
			jsonw_obj_begin(w);
			char key[240];
			const char *pn;

			snprintf(key, sizeof(key), "process_name:%s", model_str(m, th->pid));
			pn = model_meta_get(m, key); /* the trace's own name, else the pid */
			jsonw_kstr(w, "name", pn && *pn ? pn : model_str(m, th->pid));
			jsonw_obj_end(w);
			jsonw_obj_end(w);
		}
		jsonw_obj_begin(w);
		jsonw_kstr(w, "ph", "M");
		jsonw_kstr(w, "name", "thread_name");
		jsonw_kint(w, "pid", pid_num(m, th->pid));
		jsonw_kint(w, "tid", c->tid_num[t]);
		jsonw_key(w, "args");
		jsonw_obj_begin(w);
		jsonw_kstr(w, "name", model_str(m, th->name ? th->name : th->tid));
		jsonw_obj_end(w);
		jsonw_obj_end(w);
	}
	hmap_release(&seen);
	return 0;
}

static int setup(struct ctx *c)
{
	const struct model *m = c->m;
	size_t n[S_N] = {m->events.n, m->counters.n, m->instants.n, m->flows.n,
			 m->mems.n,   m->queues.n,   m->samples.n,  0};

	c->tid_num = malloc((m->threads.n + 1) * sizeof(*c->tid_num));
	if (!c->tid_num)
		return NNS_ENOMEM;
	for (size_t t = 0; t < m->threads.n; t++) {
		int64_t v;

		c->tid_num[t] = parse_num(model_str(m, m->threads.v[t].tid), &v) == 0
				    ? v
				    : SYNTH_TID + (int64_t)t;
	}
	c->t0 = INT64_MAX;
	for (int s = 0; s < S_N; s++) {
		c->s[s].n = n[s];
		if (s == S_HOST ? host_index(c) : index_stream(c, s))
			return NNS_ENOMEM;
		if (c->s[s].n && ts_of(c, s, 0) < c->t0)
			c->t0 = ts_of(c, s, 0);
	}
	if (c->t0 == INT64_MAX)
		c->t0 = 0;
	return 0;
}

/* The stream whose next row comes first, -1 when all are done. */
static int next_stream(const struct ctx *c)
{
	int best = -1;
	int64_t bts = 0;

	for (int s = 0; s < S_N; s++) {
		int64_t ts;

		if (c->s[s].i >= c->s[s].n)
			continue;
		ts = ts_of(c, s, c->s[s].i);
		if (best < 0 || ts < bts) {
			best = s;
			bts = ts;
		}
	}
	return best;
}

static void write_cut(struct ctx *c, struct out_chrome_stats *st, int64_t limit)
{
	const struct model *m = c->m;
	struct jsonw *w = &c->w;
	char msg[200];

	snprintf(msg, sizeof(msg),
		 "nnscope: timeline cut at the %lld-byte limit; %lld later events omitted",
		 (long long)limit, (long long)st->events_omitted);
	jsonw_obj_begin(w);
	jsonw_kstr(w, "ph", "i");
	jsonw_kstr(w, "name", "nnscope: timeline cut");
	jsonw_kstr(w, "s", "g");
	jsonw_kint(w, "pid", m->threads.n ? pid_num(m, m->threads.v[0].pid) : 0);
	jsonw_kint(w, "tid", m->threads.n ? c->tid_num[0] : 0);
	jsonw_kdouble(w, "ts", rel_us(c, st->cut_ts));
	jsonw_key(w, "args");
	jsonw_obj_begin(w);
	jsonw_kstr(w, "message", msg);
	jsonw_kint(w, "omitted_events", st->events_omitted);
	jsonw_kint(w, "limit_bytes", limit);
	jsonw_obj_end(w);
	jsonw_obj_end(w);
}

long out_chrome_trace_limit_mb(const struct model *m)
{
	static const char key[] = "\"timeline_limit\"";
	const char *s = model_meta_get(m, "options");
	int in_str = 0;

	if (!s)
		return 0;
	for (size_t i = 0; s[i]; i++) {
		size_t k, e;
		int64_t v;

		if (in_str) {
			if (s[i] == '\\' && s[i + 1])
				i++;
			else if (s[i] == '"')
				in_str = 0;
			continue;
		}
		if (s[i] != '"')
			continue;
		if (strncmp(s + i, key, sizeof(key) - 1) != 0) {
			in_str = 1;
			continue;
		}
		k = i + sizeof(key) - 1;
		while (s[k] == ' ')
			k++;
		if (s[k++] != ':')
			return 0;
		while (s[k] == ' ')
			k++;
		for (e = k; s[e] >= '0' && s[e] <= '9'; e++)
			;
		if (num_i64(s + k, e - k, &v, NULL) || v < 1 || v > (1 << 20))
			return 0;
		return (long)v;
	}
	return 0;
}

int out_chrome_write(FILE *f, const struct model *m, int64_t limit, struct out_chrome_stats *st,
		     struct nns_err *err)
{
	cookie_io_functions_t io = {NULL, cw_write, NULL, NULL};
	struct out_chrome_stats local;
	struct ctx c;
	FILE *cf = NULL;
	int rc = NNS_ENOMEM;

	if (!st)
		st = &local;
	memset(st, 0, sizeof(*st));
	st->cut_ts = MODEL_NONE;
	memset(&c, 0, sizeof(c));
	c.m = m;
	c.cw.out = f;
	if (setup(&c))
		goto out;
	st->t0 = c.t0;
	cf = fopencookie(&c.cw, "w", io);
	if (!cf)
		goto out;
	setvbuf(cf, NULL, _IONBF, 0);
	if (jsonw_init_file(&c.w, cf, 2))
		goto out;
	jsonw_obj_begin(&c.w);
	jsonw_kint(&c.w, "schemaVersion", 1);
	jsonw_kstr(&c.w, "displayTimeUnit", "ms");
	jsonw_kint(&c.w, "baseTimeNanoseconds", c.t0);
	jsonw_key(&c.w, "traceEvents");
	jsonw_arr_begin(&c.w);
	if (metadata(&c))
		goto out;
	for (int s; (s = next_stream(&c)) >= 0;) {
		if (limit > 0 && written(&c) + estimate(&c, s, c.s[s].i) + TAIL_RESERVE > limit) {
			st->cut_ts = ts_of(&c, s, c.s[s].i);
			for (int k = 0; k < S_N; k++)
				st->events_omitted += (int64_t)(c.s[k].n - c.s[k].i);
			break;
		}
		write_row(&c, s, c.s[s].i++);
		st->events_written++;
		if (c.w.err)
			break;
	}
	if (st->events_omitted)
		write_cut(&c, st, limit);
	jsonw_arr_end(&c.w);
	if (st->events_omitted) {
		jsonw_key(&c.w, "nnscopeCut");
		jsonw_obj_begin(&c.w);
		jsonw_kint(&c.w, "omitted_events", st->events_omitted);
		jsonw_kdouble(&c.w, "from_ts_us", rel_us(&c, st->cut_ts));
		jsonw_kint(&c.w, "limit_bytes", limit);
		jsonw_obj_end(&c.w);
	}
	jsonw_obj_end(&c.w);
	rc = jsonw_finish(&c.w, NULL);
	if (!rc && (fflush(cf) != 0 || c.cw.failed))
		rc = NNS_EIO;
	st->bytes = c.cw.bytes;
out:
	jsonw_release(&c.w);
	if (cf)
		fclose(cf);
	for (int s = 0; s < S_N; s++)
		free(c.s[s].order);
	free(c.tid_num);
	if (rc)
		return nns_err_set(err, rc, "writing the Chrome trace: %s", nns_strerror(rc));
	return NNS_OK;
}

int out_chrome_file(const char *dir, const char *name, const struct model *m, int64_t limit,
		    struct out_chrome_stats *st, struct nns_err *err)
{
	struct out_file of;
	int rc = out_file_open(&of, dir, name, err);

	if (rc)
		return rc;
	rc = out_chrome_write(of.f, m, limit, st, err);
	if (rc) {
		char msg[NNS_ERR_MSG_MAX];

		snprintf(msg, sizeof(msg), "%s", err ? err->msg : "");
		out_file_abort(&of);
		return nns_err_set(err, rc, "%s: %s", of.path, msg);
	}
	return out_file_commit(&of, err);
}
