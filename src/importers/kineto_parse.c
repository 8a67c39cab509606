/*
 * kineto_parse.c - the parser window and the top-level state machine.
 *
 * kp_run() repeatedly parses one unit at ps->p according to ps->stage:
 * the document start, one top-level key with its value, or one
 * traceEvents element with the separator after it. A unit that runs past
 * the window end (KP_NEED) is restarted after refill(), which moves the
 * unit's bytes to the window start and reads more input after them
 * (growing the window, up to KP_UNIT_MAX, only for a unit larger than it).
 *
 * Stopping (for parallel parsing, kineto_parallel.c): when the next
 * traceEvents element starts at an offset >= ps->limit the run stops with
 * KR_LIMIT; a speculative parser (one that started mid-file) also stops at
 * the ']' closing the events array (KR_ARRAY_END), because only the
 * parser that saw the document start knows what follows it.
 *
 * Limits (issue 20, struct klimits), checked at each refill: the JSON a
 * .gz expands to (--max-input) and its ratio to the compressed bytes
 * (--max-ratio); the memory budget: the model's bytes, plus what its
 * analysis adds per event (KP_AFTER_EVENT), may not exceed the larger of
 * --max-memory and the JSON read so far, so that a file of many tiny
 * events fails in seconds instead of taking several times its size in
 * memory. Whitespace between units is bounded too: a run longer than
 * KP_WS_MAX, or more padding than data, is an error (after the document:
 * a note, and the rest is not read). Messages give the byte offset and
 * what was expected, never the input's bytes.
 */
#include "kineto_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int kp_init(struct kparser *ps, struct model *m, struct ksrc *src, const char *name, size_t window,
	    struct kprogress *prog)
{
	memset(ps, 0, sizeof(*ps));
	ps->m = m;
	ps->src = src;
	ps->name = name;
	ps->prog = prog;
	if (window < 64)
		window = 64;
	ps->cap = window;
	ps->buf = malloc(window + KP_PAD);
	if (!ps->buf)
		return NNS_ENOMEM;
	kp_reset_at(ps, 0, KS_TOP);
	return NNS_OK;
}

void klimits_init(struct klimits *l, const struct kineto_opts *o)
{
	int64_t in = o ? o->max_input : 0, r = o ? o->max_ratio : 0, mem = o ? o->max_memory : 0;

	l->max_input = in < 0 ? INT64_MAX : in ? in : KINETO_MAX_INPUT;
	l->max_ratio = r < 0 ? 0 : r ? r : KINETO_MAX_RATIO;
	if (l->max_ratio > ((int64_t)1 << 20))
		l->max_ratio = (int64_t)1 << 20; /* deflate cannot pass ~1032x anyway */
	l->max_memory = mem < 0 ? INT64_MAX : mem ? mem : KINETO_MAX_MEMORY;
	l->ratio_from = KP_RATIO_FROM;
	atomic_init(&l->json, 0);
	atomic_init(&l->cost, 0);
	atomic_init(&l->events, 0);
}

void kp_release(struct kparser *ps)
{
	free(ps->buf);
	buf_free(&ps->tmp);
	karena_free(&ps->arena);
	kbe_release(ps);
	ps->buf = NULL;
}

void kp_reset_at(struct kparser *ps, int64_t off, int stage)
{
	ps->base = off;
	ps->len = 0;
	ps->eof = 0;
	ps->end = ps->p = ps->buf;
	memset(ps->buf, 0, KP_PAD);
	ps->stage = stage;
	ps->limit = INT64_MAX;
	ps->ws_from = -1;
}

/* ---- errors ----------------------------------------------------------------- */

int kp_fail_code(struct kparser *ps, const char *p, int code, const char *fmt, ...)
{
	va_list ap;

	if (p >= ps->end && code == NNS_EFORMAT)
		return KP_NEED; /* more input may fix it; at the end: truncated */
	ps->err_code = code;
	ps->err_eof = 0;
	ps->err_off = kp_off(ps, p < ps->end ? p : ps->end);
	va_start(ap, fmt);
	vsnprintf(ps->err_msg, sizeof(ps->err_msg), fmt, ap);
	va_end(ap);
	return KP_ERR;
}

int kp_unexpected(struct kparser *ps, const char *p, const char *what)
{
	char a[32];

	if (p >= ps->end)
		return KP_NEED;
	if (kj_ws_tab[(unsigned char)*p]) { /* kj_ws() stopped in a long run */
		kp_size(a, sizeof(a), (int64_t)KP_WS_MAX);
		return kp_fail_code(ps, p, NNS_ENOMEM,
				    "more than %s of whitespace in a row (the limit): padding, not "
				    "trace data",
				    a);
	}
	return kp_fail(ps, p, "%s", what);
}

int kp_nomem(struct kparser *ps, const char *p)
{
	return kp_fail_code(ps, p, NNS_ENOMEM,
			    "out of memory (or over a size cap) while storing events");
}

void kp_skipped(struct kparser *ps, const char *at, const char *why)
{
	struct model_diag *d = &ps->m->diag;

	d->events_skipped++;
	if (!d->first_problem[0])
		snprintf(d->first_problem, sizeof(d->first_problem), "%s: byte %lld: %s", ps->name,
			 (long long)kp_off(ps, at), why);
}

void kp_note(struct kparser *ps, int64_t off, const char *what)
{
	struct model_diag *d = &ps->m->diag;

	d->notes++;
	if (!d->first_note[0])
		snprintf(d->first_note, sizeof(d->first_note), "%s: byte %lld: %s", ps->name,
			 (long long)off, what);
}

/* ---- limits --------------------------------------------------------------- */

/* The .gz limits: the JSON it expands to, and the expansion ratio. */
static int check_gz(struct kparser *ps)
{
	const struct klimits *l = ps->lim;
	int64_t json = ps->total_bytes, comp = ps->src->consumed;
	char a[32], b[32];

	if (json > l->max_input) {
		kp_size(a, sizeof(a), l->max_input);
		kp_fail_code(ps, ps->end, NNS_ENOMEM,
			     "the .gz expands to more than the --max-input limit of %s of JSON "
			     "(at compressed byte %lld): --max-input to change it",
			     a, (long long)comp);
		return -1;
	}
	if (l->max_ratio > 0 && json >= l->ratio_from &&
	    json > l->max_ratio * (comp > 0 ? comp : 1)) {
		kp_size(a, sizeof(a), json);
		kp_size(b, sizeof(b), comp);
		kp_fail_code(ps, ps->end, NNS_ENOMEM,
			     "the .gz expands more than %lldx (%s of JSON from %s; traces compress "
			     "20-30x): a compression bomb, not a trace (--max-ratio to change it)",
			     (long long)l->max_ratio, a, b);
		return -1;
	}
	return 0;
}

/* The memory budget: the model of every parser of this load, projected to
 * what it will hold once analysed, against the larger of --max-memory and
 * the JSON read so far. */
static int check_budget(struct kparser *ps)
{
	struct klimits *l = ps->lim;
	const struct model *m = ps->m;
	/* a B/E record becomes half an event once paired */
	int64_t pairs = (int64_t)ps->be.n / 2,
		events = (int64_t)m->events.n + pairs + ps->events_more;
	int64_t cost = (int64_t)model_mem_bytes(m) + (int64_t)m->events.n * KP_AFTER_EVENT +
		       (int64_t)(ps->be.n * sizeof(*ps->be.v) + ps->be_str.bytes) +
		       pairs * (int64_t)(sizeof(struct model_event) + KP_AFTER_EVENT) +
		       ps->cost_more;
	int64_t json = ps->total_bytes, total, all_json, all_events, budget;
	char a[32], b[32];

	total = atomic_fetch_add(&l->cost, cost - ps->cost_pub) + cost - ps->cost_pub;
	all_json = atomic_fetch_add(&l->json, json - ps->json_pub) + json - ps->json_pub;
	all_events =
	    atomic_fetch_add(&l->events, events - ps->events_pub) + events - ps->events_pub;
	ps->cost_pub = cost;
	ps->json_pub = json;
	ps->events_pub = events;
	budget = all_json > l->max_memory ? all_json : l->max_memory;
	if (total <= budget)
		return 0;
	kp_size(a, sizeof(a), budget);
	kp_size(b, sizeof(b), all_json);
	kp_fail_code(ps, ps->p, NNS_ENOMEM,
		     "the trace needs more than the memory budget of %s (%lld events at %lld bytes "
		     "each after %s of JSON; the budget is the larger of --max-memory and the "
		     "JSON size: --max-memory to change it)",
		     a, (long long)all_events,
		     (long long)(total / (all_events > 0 ? all_events : 1)), b);
	return -1;
}

static int check_limits(struct kparser *ps)
{
	if (!ps->lim)
		return 0;
	if ((ps->src->type == KSRC_GZ || (ps->src->type == KSRC_RING && ps->src->counts)) &&
	    check_gz(ps))
		return -1;
	if (ps->lim->max_memory != INT64_MAX && check_budget(ps))
		return -1;
	return 0;
}

/* ---- window --------------------------------------------------------------- */

static int refill(struct kparser *ps)
{
	size_t keep_off = (size_t)(ps->p - ps->buf), keep = ps->len - keep_off;
	int64_t before = ps->src->consumed;
	struct nns_err e;
	int rc;

	if (ps->prog && ps->prog->cancel && atomic_load(ps->prog->cancel)) {
		kp_fail_code(ps, ps->p, NNS_EINVAL, "loading cancelled");
		return -1;
	}
	if (keep_off == 0 && ps->len == ps->cap) {
		size_t ncap = ps->cap * 2;
		char *nb;
		if (ps->cap >= KP_UNIT_MAX) {
			kp_fail_code(ps, ps->p, NNS_EFORMAT,
				     "a single JSON value is larger than %zu MiB",
				     KP_UNIT_MAX >> 20);
			return -1;
		}
		if (ncap > KP_UNIT_MAX)
			ncap = KP_UNIT_MAX;
		nb = realloc(ps->buf, ncap + KP_PAD);
		if (!nb) {
			kp_nomem(ps, ps->p);
			return -1;
		}
		ps->buf = nb;
		ps->cap = ncap;
	} else if (keep_off) {
		memmove(ps->buf, ps->buf + keep_off, keep);
	}
	ps->base += (int64_t)keep_off;
	ps->len = keep;
	ps->p = ps->buf;
	ps->src->hold = ps->base; /* a ring source may drop what lies before */
	nns_err_clear(&e);
	while (ps->len < ps->cap && !ps->eof) {
		size_t got = 0;
		rc = ksrc_read(ps->src, ps->buf + ps->len, ps->cap - ps->len, &got, &e);
		ps->len += got;
		ps->total_bytes += (int64_t)got;
		if (rc) { /* parse what came before the failure first */
			ps->src_code = rc;
			memcpy(ps->src_msg, e.msg, sizeof(ps->src_msg) - 1);
			ps->src_msg[sizeof(ps->src_msg) - 1] = '\0';
			ps->eof = 1;
		} else if (got == 0) {
			ps->eof = 1;
		}
	}
	ps->end = ps->buf + ps->len;
	memset(ps->buf + ps->len, 0, KP_PAD);
	if (ps->prog)
		kprog_add(ps->prog, ps->src->consumed - before);
	return check_limits(ps);
}

/* The input ended because the source failed: its error, at the end of
 * what it delivered. A format error (corrupt or cut gzip) after some JSON
 * is a truncation: the events before it are kept. */
static int source_failed(struct kparser *ps)
{
	ps->err_code = ps->src_code;
	ps->err_off = kp_off(ps, ps->end);
	ps->err_eof = ps->src_code == NNS_EFORMAT && ps->err_off > 0;
	snprintf(ps->err_msg, sizeof(ps->err_msg), "%s", ps->src_msg);
	return KR_ERR;
}

static int truncated(struct kparser *ps)
{
	static const char *const where[] = {
	    [KS_TOP] = "before the document",	       [KS_TOP_KEY] = "in the top-level object",
	    [KS_TOP_NEXT] = "in the top-level object", [KS_EV_FIRST] = "inside traceEvents",
	    [KS_EV_ELEM] = "inside traceEvents",       [KS_EV_NEXT] = "inside traceEvents",
	    [KS_TAIL] = "after the document",	       [KS_DONE] = "after the document",
	};
	if (ps->src_code)
		return source_failed(ps);
	ps->err_code = NNS_ETRUNC;
	ps->err_eof = 1;
	ps->err_off = kp_off(ps, ps->end);
	snprintf(ps->err_msg, sizeof(ps->err_msg),
		 "unexpected end of input %s (the file is truncated)", where[ps->stage]);
	return KR_ERR;
}

/* ---- steps ------------------------------------------------------------------ */

static int close_events(struct kparser *ps, const char **pp)
{
	const char *p = *pp;

	if (ps->speculative) {
		ps->stop = KR_ARRAY_END;
		ps->stop_off = kp_off(ps, p);
		ps->stop_stage = ps->stage;
		ps->p = p;
		return KP_STOP;
	}
	ps->stage = ps->form == KF_OBJECT ? KS_TOP_NEXT : KS_TAIL;
	*pp = p + 1;
	return KP_OK;
}

static int element(struct kparser *ps, const char **pp)
{
	int r = kev_element(ps, pp);

	if (r == KP_OK) {
		ps->elements++;
		ps->stage = KS_EV_NEXT;
	}
	return r;
}

static int top_key(struct kparser *ps, const char **pp)
{
	const char *p = *pp;
	struct kstr key;
	int r;

	if (*p == '}') {
		ps->stage = KS_TAIL;
		*pp = p + 1;
		return KP_OK;
	}
	if (*p != '"')
		return kp_unexpected(ps, p, "expected a key string or '}' in the top-level object");
	if ((r = kj_string(ps, &p, &key)) || (r = kj_colon(ps, &p)))
		return r;
	if (KJ_EQ(key, "traceEvents") && *p == '[') {
		ps->seen_events = 1;
		ps->stage = KS_EV_FIRST;
		*pp = p + 1;
		return KP_OK;
	}
	if ((r = ktop_value(ps, &p, key)))
		return r;
	ps->stage = KS_TOP_NEXT;
	*pp = p;
	return KP_OK;
}

/* step() at the end of the window: refill, or at the end of the input
 * fail when no document started (nothing, blanks, or a source that failed
 * before its first byte); else the caller reports the truncation. */
static int step_at_end(struct kparser *ps, const char *p, const char **pp)
{
	ps->p = p; /* whitespace consumed */
	if (!ps->eof)
		return KP_NEED;
	if (ps->stage == KS_TOP && ps->src_code) {
		source_failed(ps);
		return KP_ERR;
	}
	if (ps->stage == KS_TOP) {
		ps->err_code = NNS_EFORMAT;
		ps->err_off = kp_off(ps, p);
		snprintf(ps->err_msg, sizeof(ps->err_msg), "%s",
			 ps->base + (int64_t)ps->len == 0
			     ? "empty input: not a trace"
			     : "no JSON document: the input holds only whitespace");
		return KP_ERR;
	}
	return KP_NEED;
}

/* The document's first byte (after a UTF-8 BOM): '{' or '[' sets the form. */
static int step_top(struct kparser *ps, const char *p, const char **pp)
{
	if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB &&
	    (unsigned char)p[2] == 0xBF) {
		*pp = p + 3;
		return KP_OK;
	}
	if (*p == '{') {
		ps->form = KF_OBJECT;
		ps->stage = KS_TOP_KEY;
	} else if (*p == '[') {
		ps->form = KF_ARRAY;
		ps->seen_events = 1;
		ps->stage = KS_EV_FIRST;
	} else {
		return kp_unexpected(ps, p, "not a JSON trace: expected '{' or '[' at the start");
	}
	*pp = p + 1;
	return KP_OK;
}

/* After the document: whitespace and NULs only; anything else is noted and
 * ignored, and so is padding past KP_WS_MAX: the rest is not read. */
static int step_tail(struct kparser *ps, const char *p, const char **pp)
{
	const char *s = p;
	char a[32], msg[400];

	while (p < ps->end && (*p == '\0' || kj_ws_tab[(unsigned char)*p]))
		p++;
	if (p < ps->end) {
		kp_note(ps, kp_off(ps, p), "data after the end of the JSON document ignored");
		ps->stage = KS_DONE;
		*pp = p;
		return KP_OK;
	}
	if (ps->ws_from < 0)
		ps->ws_from = kp_off(ps, s);
	ps->p = p;
	if (!ps->eof && kp_off(ps, p) - ps->ws_from > (int64_t)KP_WS_MAX) {
		kp_size(a, sizeof(a), (int64_t)KP_WS_MAX);
		snprintf(msg, sizeof(msg),
			 "more than %s of padding after the JSON document: the rest of the input "
			 "is not read",
			 a);
		kp_note(ps, ps->ws_from, msg);
	} else if (!ps->eof) {
		return KP_NEED;
	} else if (ps->src_code) {
		snprintf(msg, sizeof(msg),
			 "the input after the JSON document could not be read: %s", ps->src_msg);
		kp_note(ps, kp_off(ps, p), msg);
	}
	ps->stage = KS_DONE;
	*pp = p;
	return KP_OK;
}

/* Whitespace between units, [s, p): a run longer than KP_WS_MAX (over
 * refills: ws_from) or more padding than data is an error. The blanks are
 * consumed (ps->p), so a unit restarted after a refill does not count them
 * again. */
static int padding(struct kparser *ps, const char *s, const char *p)
{
	int64_t from = ps->ws_from >= 0 ? ps->ws_from : kp_off(ps, s);
	char a[32], b[32];

	ps->pad += p - s;
	ps->p = p;
	ps->ws_from = p >= ps->end ? from : -1;
	if (kp_off(ps, p) - from > (int64_t)KP_WS_MAX) {
		kp_size(a, sizeof(a), (int64_t)KP_WS_MAX);
		return kp_fail_code(ps, s, NNS_ENOMEM,
				    "more than %s of whitespace in a row from byte %lld (the "
				    "limit): padding, not trace data",
				    a, (long long)from);
	}
	if (ps->pad > (int64_t)KP_WS_MAX && ps->pad > ps->total_bytes / 2) {
		kp_size(a, sizeof(a), ps->pad);
		kp_size(b, sizeof(b), ps->total_bytes);
		return kp_fail_code(ps, s, NNS_ENOMEM,
				    "the input is mostly padding (%s of whitespace between values "
				    "in the first %s): not trace data",
				    a, b);
	}
	return KP_OK;
}

static int step(struct kparser *ps, const char **pp)
{
	const char *p;
	int r;

	if (ps->stage == KS_TAIL)
		return step_tail(ps, *pp, pp);
	p = kj_ws(*pp);
	if ((p > *pp || ps->ws_from >= 0) && (r = padding(ps, *pp, p)))
		return r;
	if (p >= ps->end)
		return step_at_end(ps, p, pp);
	switch (ps->stage) {
	case KS_TOP:
		return step_top(ps, p, pp);
	case KS_TOP_KEY:
		*pp = p;
		return top_key(ps, pp);
	case KS_TOP_NEXT:
		if (*p == ',')
			ps->stage = KS_TOP_KEY;
		else if (*p == '}')
			ps->stage = KS_TAIL;
		else
			return kp_unexpected(ps, p, "expected ',' or '}' after a top-level value");
		*pp = p + 1;
		return KP_OK;
	case KS_EV_FIRST:
		*pp = p;
		if (*p == ']')
			return close_events(ps, pp);
		return element(ps, pp);
	case KS_EV_ELEM:
		*pp = p;
		if (kp_off(ps, p) >= ps->limit) {
			ps->stop = KR_LIMIT;
			ps->stop_off = kp_off(ps, p);
			ps->stop_stage = KS_EV_ELEM;
			ps->p = p;
			return KP_STOP;
		}
		if (*p == ']') /* lenient: trailing comma */
			return close_events(ps, pp);
		return element(ps, pp);
	case KS_EV_NEXT:
		if (*p == ',') {
			ps->stage = KS_EV_ELEM;
			*pp = p + 1;
			return KP_OK;
		}
		if (*p == ']') {
			*pp = p;
			return close_events(ps, pp);
		}
		return kp_unexpected(ps, p, "expected ',' or ']' after a traceEvents element");
	default:
		*pp = p;
		return KP_OK;
	}
}

int kp_run(struct kparser *ps)
{
	for (;;) {
		const char *p = ps->p;
		int r;

		karena_reset(&ps->arena);
		r = step(ps, &p);
		if (r == KP_OK) {
			ps->p = p;
			if (ps->stage == KS_DONE)
				return KR_DONE;
			continue;
		}
		if (r == KP_NEED) {
			if (ps->eof)
				return truncated(ps);
			if (refill(ps))
				return KR_ERR;
			continue;
		}
		if (r == KP_STOP)
			return ps->stop;
		return KR_ERR;
	}
}
