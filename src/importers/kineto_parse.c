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
	unsigned char c = (unsigned char)*p;

	if (p >= ps->end)
		return KP_NEED;
	if (c > 0x20 && c < 0x7f && c != '\'')
		return kp_fail(ps, p, "%s (got '%c')", what, c);
	return kp_fail(ps, p, "%s (got byte 0x%02x)", what, c);
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
	nns_err_clear(&e);
	while (ps->len < ps->cap) {
		size_t got = 0;
		rc = ksrc_read(ps->src, ps->buf + ps->len, ps->cap - ps->len, &got, &e);
		if (rc) {
			ps->end = ps->buf + ps->len;
			memset(ps->buf + ps->len, 0, KP_PAD);
			ps->err_code = rc;
			ps->err_eof = 0;
			ps->err_off = kp_off(ps, ps->end);
			memcpy(ps->err_msg, e.msg, sizeof(ps->err_msg));
			ps->err_msg[sizeof(ps->err_msg) - 1] = '\0';
			return -1;
		}
		if (got == 0) {
			ps->eof = 1;
			break;
		}
		ps->len += got;
		ps->total_bytes += (int64_t)got;
	}
	ps->end = ps->buf + ps->len;
	memset(ps->buf + ps->len, 0, KP_PAD);
	if (ps->prog)
		kprog_add(ps->prog, ps->src->consumed - before);
	return 0;
}

static int truncated(struct kparser *ps)
{
	static const char *const where[] = {
	    [KS_TOP] = "before the document",	       [KS_TOP_KEY] = "in the top-level object",
	    [KS_TOP_NEXT] = "in the top-level object", [KS_EV_FIRST] = "inside traceEvents",
	    [KS_EV_ELEM] = "inside traceEvents",       [KS_EV_NEXT] = "inside traceEvents",
	    [KS_TAIL] = "after the document",	       [KS_DONE] = "after the document",
	};
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
 * finish (after the document) or fail (no document at all). */
static int step_at_end(struct kparser *ps, const char *p, const char **pp)
{
	ps->p = p; /* whitespace consumed */
	if (!ps->eof)
		return KP_NEED;
	if (ps->stage == KS_TAIL) {
		ps->stage = KS_DONE;
		*pp = p;
		return KP_OK;
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

/* After the document: whitespace and NULs only; anything else is noted as
 * a problem and ignored. */
static int step_tail(struct kparser *ps, const char *p, const char **pp)
{
	while (p < ps->end && (*p == '\0' || kj_ws_tab[(unsigned char)*p]))
		p++;
	if (p < ps->end) {
		struct model_diag *d = &ps->m->diag;
		if (!d->first_problem[0])
			snprintf(d->first_problem, sizeof(d->first_problem),
				 "%s: byte %lld: data after the end of the JSON document "
				 "ignored",
				 ps->name, (long long)kp_off(ps, p));
		ps->stage = KS_DONE;
		*pp = p;
		return KP_OK;
	}
	ps->p = p;
	if (!ps->eof)
		return KP_NEED;
	ps->stage = KS_DONE;
	*pp = p;
	return KP_OK;
}

static int step(struct kparser *ps, const char **pp)
{
	const char *p = kj_ws(*pp);

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
	case KS_TAIL:
		return step_tail(ps, p, pp);
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
