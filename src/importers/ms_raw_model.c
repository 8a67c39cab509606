/*
 * ms_raw_model.c - a raw job's AI Core executions as the model's device
 * kernels (ms_raw.h, ms_raw_add_ops). The rows are those of the in-memory
 * output_timeline_data_<dev>.txt that ms_raw_hwts.c wrote as MindSpore's
 * OPComputeTimeParser does ("op_name, stream_id, start_time(ms),
 * duration(ms)", start = cycle count / 1e5): each is a kernel
 * (MK_KERNEL, its stream in the dev args, device dev) on thread (pid
 * "<dev>", tid "<stream>") named "Stream #<stream>" in the process "AI Core
 * Op", which is how MindInsight's timeline shows them (AscendTimelineGenerator:
 * pid = device id, tid = stream id). ts = (start ms * 1e5 - min cycle
 * counter) * 10 ns, min from min_cycle_counter_<dev>.txt, so that the step
 * trace placed from that file (ms_steps.c) lines up.
 * A row that is not four fields with numbers, or with a negative duration
 * (a damaged log), is left out.
 */
#include "importers/ms_raw.h"
#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The last comma of s[0..n) at or before n, or NULL. */
static const char *last_comma(const char *s, size_t n)
{
	while (n-- > 0)
		if (s[n] == ',')
			return s + n;
	return NULL;
}

static int num(const char *a, const char *b, double *v)
{
	char tmp[64], *end;

	if (b <= a || (size_t)(b - a) >= sizeof(tmp))
		return -1;
	memcpy(tmp, a, (size_t)(b - a));
	tmp[b - a] = 0;
	*v = strtod(tmp, &end);
	return end == tmp || *end || !isfinite(*v) ? -1 : 0;
}

/* The thread of a stream, named on first use. */
static uint32_t stream_thread(struct model *m, uint32_t pid, long stream)
{
	char b[48];
	int k = snprintf(b, sizeof(b), "%ld", stream);
	uint32_t tid = model_intern(m, b, (size_t)k), t;

	if (tid == STRPOOL_NONE || (t = model_thread(m, pid, tid)) == MODEL_NOIDX)
		return MODEL_NOIDX;
	if (!m->threads.v[t].name) {
		k = snprintf(b, sizeof(b), "Stream #%ld", stream);
		if ((m->threads.v[t].name = model_intern(m, b, (size_t)k)) == STRPOOL_NONE)
			return MODEL_NOIDX;
	}
	return t;
}

static int add_row(struct model *m, uint32_t pid, int dev, double min, const char *l, size_t len)
{
	const char *c3 = last_comma(l, len), *c2, *c1;
	double stream, start, dur;
	struct model_dev_args a;
	struct model_event ev;
	int64_t idx;

	c2 = c3 ? last_comma(l, (size_t)(c3 - l)) : NULL;
	c1 = c2 ? last_comma(l, (size_t)(c2 - l)) : NULL;
	if (!c1 || c1 == l || num(c1 + 1, c2, &stream) || num(c2 + 1, c3, &start) ||
	    num(c3 + 1, l + len, &dur) || dur < 0 || fabs(start * 1e5 - min) > 1e17 || dur > 1e12 ||
	    stream != floor(stream) || fabs(stream) > 1e9)
		return NNS_OK; /* the header, or a row left out */
	model_event_init(&ev);
	ev.kind = MK_KERNEL;
	ev.ts = llround((start * 1e5 - min) * 10.0);
	ev.dur = llround(dur * 1e6);
	ev.device = (int16_t)dev;
	ev.name = model_intern(m, l, (size_t)(c1 - l));
	ev.thread = stream_thread(m, pid, (long)stream);
	model_dev_args_init(&a);
	a.stream = (int64_t)stream;
	if (ev.name == STRPOOL_NONE || ev.thread == MODEL_NOIDX ||
	    (idx = model_add_dev_args(m, &a)) < 0)
		return NNS_ENOMEM;
	ev.extra = (uint32_t)idx;
	return model_add_event(m, &ev) < 0 ? NNS_ENOMEM : NNS_OK;
}

int ms_raw_add_ops(struct model *m, const struct ms_raw *r, int dev, size_t *added,
		   struct nns_err *err)
{
	char name[MS_RAW_NAME_MAX], b[16];
	const struct ms_raw_file *f, *mc;
	double min;
	size_t pos = 0, before = m->events.n;
	uint32_t pid;
	int k;

	*added = 0;
	snprintf(name, sizeof(name), "output_timeline_data_%d.txt", dev);
	if (!(f = ms_raw_get(r, name)))
		return NNS_OK;
	snprintf(name, sizeof(name), "min_cycle_counter_%d.txt", dev);
	if (!(mc = ms_raw_get(r, name)) || num(mc->text, mc->text + mc->len, &min))
		return NNS_OK; /* written with the rows: absent only if they are */
	snprintf(name, sizeof(name), "output_timeline_data_%d.txt", dev);
	k = snprintf(b, sizeof(b), "%d", dev);
	if ((pid = model_intern(m, b, (size_t)k)) == STRPOOL_NONE)
		goto oom;
	while (pos < f->len) {
		const char *l = f->text + pos, *nl = memchr(l, '\n', f->len - pos);
		size_t len = nl ? (size_t)(nl - l) : f->len - pos;

		pos += len + (nl ? 1 : 0);
		if (len && l[len - 1] == '\r')
			len--;
		if (len && add_row(m, pid, dev, min, l, len))
			goto oom;
	}
	*added = m->events.n - before;
	if (*added) {
		char key[32];

		snprintf(key, sizeof(key), "process_name:%d", dev);
		if (model_add_meta(m, key, "AI Core Op"))
			goto oom;
	}
	return NNS_OK;
oom:
	return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
}

int ms_raw_warn_model(struct model *m, const struct ms_raw *r)
{
	if (!r->warnings.n)
		return NNS_OK;
	if (!m->diag.note[0]) {
		char more[64] = "";

		if (r->nwarn > 1)
			snprintf(more, sizeof(more), " (and %zu more raw-file warnings)",
				 r->nwarn - 1);
		snprintf(m->diag.note, sizeof(m->diag.note), "%s%s", r->warnings.v[0], more);
	}
	for (size_t i = 1; i < r->warnings.n; i++)
		if (model_add_meta(m, "input_warning", r->warnings.v[i]))
			return NNS_ENOMEM;
	if (r->nwarn > r->warnings.n) {
		char b[128];

		snprintf(b, sizeof(b), "%zu more raw-file warnings not listed",
			 r->nwarn - r->warnings.n);
		if (model_add_meta(m, "input_warning", b))
			return NNS_ENOMEM;
	}
	return NNS_OK;
}
