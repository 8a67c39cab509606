/*
 * nnst.c - the .nnst importer's entry point (nnst.h): two passes over the
 * file's chunks. The first reads what events refer to, wherever it lies in
 * the file (strings, threads, clock calibration points, metadata, lost
 * counts, the END marker) and finds where the readable part stops; the
 * second turns EVENTS and SAMPLES chunks into model rows (nnst_events.c)
 * with the complete clock map, so an event written before the final
 * calibration point still gets interpolated time. A file that grew (or
 * changed) while read says so (changed.h).
 */
#include "nnst_internal.h"
#include "common/fs.h"
#include "importers/changed.h"
#include "common/le.h"
#include "common/num.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ni_problem(struct ni *x, const char *fmt, ...)
{
	va_list ap;

	if (x->m->diag.first_problem[0])
		return;
	va_start(ap, fmt);
	vsnprintf(x->m->diag.first_problem, sizeof(x->m->diag.first_problem), fmt, ap);
	va_end(ap);
}

uint32_t ni_str(struct ni *x, uint32_t id)
{
	uint32_t *hit;
	char buf[40];
	int n;

	if (id == 0)
		return 0;
	hit = hmap_get(&x->strs, id);
	if (hit)
		return *hit;
	/* never defined (its STRINGS chunk was lost): a visible placeholder */
	n = snprintf(buf, sizeof(buf), "<string %" PRIu32 ">", id);
	{
		uint32_t s = model_intern(x->m, buf, (size_t)n);
		uint32_t *slot;

		if (s == STRPOOL_NONE)
			return s;
		slot = hmap_put(&x->strs, id, s, NULL);
		return slot ? s : STRPOOL_NONE;
	}
}

static uint32_t intern_i64(struct ni *x, const char *prefix, int64_t v)
{
	char buf[48];
	int n = snprintf(buf, sizeof(buf), "%s%" PRId64, prefix, v);

	return model_intern(x->m, buf, (size_t)n);
}

/* Thread index idx with tid text; name may be 0. */
static struct ni_thread *define_thread(struct ni *x, uint32_t idx, uint32_t tid, uint32_t name)
{
	uint32_t *slot;
	int is_new = 0;
	struct ni_thread t;

	slot = hmap_get(&x->thr, idx);
	if (slot) {
		struct ni_thread *old = &x->threads.v[*slot];

		if (name)
			x->m->threads.v[old->mthread].name = name;
		return old;
	}
	if (x->threads.n >= NI_MAX_THREADS)
		return NULL;
	memset(&t, 0, sizeof(t));
	t.mthread = model_thread(x->m, x->pid, tid);
	t.last_ts = INT64_MIN;
	t.last_mem = -1;
	if (t.mthread == MODEL_NOIDX || vec_push(&x->threads, t))
		return NULL;
	slot = hmap_put(&x->thr, idx, (uint32_t)(x->threads.n - 1), &is_new);
	if (!slot) {
		x->threads.n--;
		return NULL;
	}
	if (name)
		x->m->threads.v[t.mthread].name = name;
	return &x->threads.v[x->threads.n - 1];
}

struct ni_thread *ni_thread(struct ni *x, uint32_t idx)
{
	uint32_t *slot = hmap_get(&x->thr, idx);
	uint32_t tid;

	if (slot)
		return &x->threads.v[*slot];
	/* events of a thread whose THREAD record was lost */
	tid = intern_i64(x, "thread ", idx);
	return tid == STRPOOL_NONE ? NULL : define_thread(x, idx, tid, 0);
}

/* Model times are kept within +-2^61 ns (+-73 years around the epoch) so
 * that ts + dur and end - start never overflow in the analyses. */
#define NI_TS_LIMIT ((int64_t)1 << 61)

static int64_t clamp_ts(int64_t ns, int64_t offset)
{
	if (ns > NI_TS_LIMIT || ns < -NI_TS_LIMIT)
		ns = ns > 0 ? NI_TS_LIMIT : -NI_TS_LIMIT;
	if (offset > NI_TS_LIMIT || offset < -NI_TS_LIMIT)
		offset = offset > 0 ? NI_TS_LIMIT : -NI_TS_LIMIT;
	ns += offset;
	return ns > NI_TS_LIMIT ? NI_TS_LIMIT : ns < -NI_TS_LIMIT ? -NI_TS_LIMIT : ns;
}

int64_t ni_time(const struct ni *x, uint64_t ts)
{
	return clamp_ts(nnst_clockmap_ns(&x->clock, ts), x->offset);
}

int64_t ni_mono_time(const struct ni *x, int64_t mono_ns)
{
	return clamp_ts(mono_ns, x->offset);
}

/* ---- pass 1 chunks ------------------------------------------------------- */

static int strings_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	uint32_t off = 0;

	while (len - off >= 8) {
		uint32_t id = le32(p + off), n = le32(p + off + 4), s;

		if (n > len - off - 8) {
			x->m->diag.events_skipped++;
			ni_problem(x, "%s: a STRINGS record runs past its chunk", x->name);
			return 0;
		}
		s = model_intern(x->m, (const char *)p + off + 8, n);
		if (s == STRPOOL_NONE || !hmap_put(&x->strs, id, s, NULL))
			return NNS_ENOMEM;
		*hmap_get(&x->strs, id) = s; /* a redefinition wins */
		off += 8 + n;
	}
	return 0;
}

static int thread_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	uint32_t off = 0;

	while (len - off >= 16) {
		uint32_t idx = le32(p + off), n = le32(p + off + 12), name = 0, tid;
		int64_t t = (int64_t)le64(p + off + 4);

		if (n > len - off - 16) {
			x->m->diag.events_skipped++;
			ni_problem(x, "%s: a THREAD record runs past its chunk", x->name);
			return 0;
		}
		if (n) {
			name = model_intern(x->m, (const char *)p + off + 16, n);
			if (name == STRPOOL_NONE)
				return NNS_ENOMEM;
		}
		tid = intern_i64(x, "", t);
		if (tid == STRPOOL_NONE)
			return NNS_ENOMEM;
		if (!define_thread(x, idx, tid, name)) {
			if (x->threads.n >= NI_MAX_THREADS) {
				x->m->diag.events_skipped++;
				ni_problem(x, "%s: more than %d threads", x->name, NI_MAX_THREADS);
				return 0;
			}
			return NNS_ENOMEM;
		}
		off += 16 + n;
	}
	return 0;
}

static int clock_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 24; off += 24) {
		struct nnst_clock c;
		int rc;

		c.tsc = le64(p + off);
		c.mono_ns = (int64_t)le64(p + off + 8);
		c.realtime_ns = (int64_t)le64(p + off + 16);
		rc = nnst_clockmap_add(&x->clock, &c);
		if (rc == NNS_ENOMEM)
			return rc;
		if (rc)
			ni_problem(x, "%s: a clock calibration point runs backwards; ignored",
				   x->name);
	}
	return 0;
}

/* META "thread.<tid>.name" = name: the sampler names threads that have no
 * THREAD record; a THREAD record's name wins. */
static int thread_name_meta(struct ni *x, const char *k, const char *v)
{
	const char *dot;
	int64_t tid;
	uint32_t t, tids, name;

	if (strncmp(k, "thread.", 7) != 0 || !(dot = strchr(k + 7, '.')) ||
	    strcmp(dot, ".name") != 0 || !*v)
		return 0;
	if (num_i64(k + 7, (size_t)(dot - (k + 7)), &tid, NULL))
		return 0;
	tids = intern_i64(x, "", tid);
	name = model_intern(x->m, v, strlen(v));
	if (tids == STRPOOL_NONE || name == STRPOOL_NONE)
		return NNS_ENOMEM;
	t = model_thread(x->m, x->pid, tids);
	if (t == MODEL_NOIDX)
		return NNS_ENOMEM;
	if (!x->m->threads.v[t].name)
		x->m->threads.v[t].name = name;
	return 0;
}

static int meta_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	uint32_t off = 0;

	while (len - off >= 8) {
		uint32_t kl = le32(p + off), vl;
		char *k, *v;
		int rc;

		if (kl > len - off - 8)
			break;
		vl = le32(p + off + 4 + kl);
		if (vl > len - off - 8 - kl)
			break;
		k = strndup((const char *)p + off + 4, kl);
		v = strndup((const char *)p + off + 8 + kl, vl);
		rc = k && v ? model_add_meta(x->m, k, v) : NNS_ENOMEM;
		if (!rc)
			rc = thread_name_meta(x, k, v);
		free(k);
		free(v);
		if (rc)
			return rc;
		off += 8 + kl + vl;
	}
	if (off != len) {
		x->m->diag.events_skipped++;
		ni_problem(x, "%s: a META record runs past its chunk", x->name);
	}
	return 0;
}

static int lost_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 12; off += 12) {
		uint32_t idx = le32(p + off);
		uint64_t n = le64(p + off + 4);
		struct ni_thread *t;

		if (idx == NNST_THREAD_PROCESS) { /* losses of no thread in particular */
			if (n > x->lost_process)
				x->lost_process = n;
			continue;
		}
		t = ni_thread(x, idx);
		if (!t)
			return NNS_ENOMEM;
		if (n > t->lost)
			t->lost = n;
	}
	return 0;
}

/* ---- pass 2: samples ---------------------------------------------------- */

static float clean_pct(float v)
{
	return isfinite(v) && v >= 0 ? v : 0;
}

static int samples_chunk(struct ni *x, const uint8_t *p, uint32_t len)
{
	for (uint32_t off = 0; len - off >= 64; off += 64) {
		const uint8_t *q = p + off;
		struct model_sample s;
		uint32_t u[4];
		float f[4];
		int64_t mono = (int64_t)le64(q);

		memset(&s, 0, sizeof(s));
		s.tid = (int64_t)le64(q + 8);
		s.kind = (uint8_t)le32(q + 16);
		for (int i = 0; i < 4; i++) {
			u[i] = le32(q + 20 + 4 * i);
			memcpy(&f[i], &u[i], sizeof(f[i]));
		}
		s.user = clean_pct(f[0]);
		s.sys = clean_pct(f[1]);
		s.idle = clean_pct(f[2]);
		s.iowait = clean_pct(f[3]);
		s.running = le32(q + 36);
		s.ctx_switches = le64(q + 40);
		s.rss_kb = le64(q + 48);
		s.thread = MODEL_NOIDX;
		if (le32(q + 16) < MS_MACHINE || le32(q + 16) > MS_THREAD) {
			x->m->diag.events_skipped++;
			continue;
		}
		s.ts = clamp_ts(mono, x->offset);
		if (s.kind == MS_THREAD) {
			uint32_t tid = intern_i64(x, "", s.tid);

			s.thread =
			    tid == STRPOOL_NONE ? MODEL_NOIDX : model_thread(x->m, x->pid, tid);
			if (s.thread == MODEL_NOIDX)
				return NNS_ENOMEM;
		}
		if (model_add_sample(x->m, &s))
			return NNS_ENOMEM;
	}
	return 0;
}

/* ---- driver --------------------------------------------------------------- */

/* Takes what the header says: pid, clock kind, the first calibration
 * point and the monotonic -> realtime offset. */
static int setup(struct ni *x, const struct nnst_header *h)
{
	struct nnst_clock c0 = {h->start_tsc, h->start_mono_ns, h->start_realtime_ns};

	x->hdr = *h;
	x->clock.tsc = (h->flags & NNST_F_TSC) != 0;
	if (x->clock.tsc && nnst_clockmap_add(&x->clock, &c0) == NNS_ENOMEM)
		return NNS_ENOMEM;
	x->offset = h->start_realtime_ns > 0 && h->start_mono_ns >= 0
			? h->start_realtime_ns - h->start_mono_ns
			: 0;
	x->m->mono_offset_ns = x->offset;
	x->m->pid = h->pid;
	x->pid = intern_i64(x, "", h->pid);
	return x->pid == STRPOOL_NONE ? NNS_ENOMEM : 0;
}

typedef int (*chunk_fn)(struct ni *x, const uint8_t *p, uint32_t len);

/* What each pass does with a chunk type: the first pass reads the
 * strings, threads, clocks and metadata and counts the events; the second
 * turns events, samples and GPU records into model rows. A type not listed
 * (a newer writer's chunk) is skipped. */
static const struct {
	uint32_t type;
	chunk_fn first, second;
} chunk_passes[] = {
    {NNST_CHUNK_STRINGS, strings_chunk, NULL},
    {NNST_CHUNK_THREAD, thread_chunk, NULL},
    {NNST_CHUNK_CLOCK, clock_chunk, NULL},
    {NNST_CHUNK_META, meta_chunk, NULL},
    {NNST_CHUNK_LOST, lost_chunk, NULL},
    {NNST_CHUNK_EVENTS, ni_events_scan, ni_events_chunk},
    {NNST_CHUNK_SAMPLES, NULL, samples_chunk},
    {NNST_CHUNK_GPU, ni_gpu_scan, ni_gpu_chunk},
    {NNST_CHUNK_GPUCLOCK, ni_gpuclock_chunk, NULL},
};

static int chunk_pass(struct ni *x, int second, uint32_t type, const uint8_t *p, uint32_t len)
{
	for (size_t i = 0; i < sizeof(chunk_passes) / sizeof(chunk_passes[0]); i++) {
		chunk_fn fn = second ? chunk_passes[i].second : chunk_passes[i].first;

		if (chunk_passes[i].type == type)
			return fn ? fn(x, p, len) : 0;
	}
	return 0;
}

/* Runs one pass; returns NNS_OK, NNS_ETRUNC (message in trunc), or an
 * error set in x->err. */
static int pass(struct ni *x, int fd, int second, char *trunc, size_t tsize)
{
	struct nnst_reader *r = NULL;
	char msg[300];
	int rc, dfd;

	/* both passes read the one file opened (a copy of its descriptor,
	 * from the start), never the path again */
	dfd = dup(fd);
	if (dfd < 0 || lseek(dfd, 0, SEEK_SET) != 0) {
		rc = nns_err_set(x->err, NNS_EIO, "%s: cannot read: %s", x->name, strerror(errno));
		if (dfd >= 0)
			close(dfd);
		return rc;
	}
	rc = nnst_reader_fdopen(&r, dfd, msg, sizeof(msg));
	if (rc)
		return nns_err_set(x->err, rc, "%s: %s", x->name, msg);
	if (!second && (rc = setup(x, nnst_reader_header(r)))) {
		nnst_reader_close(r);
		return nns_err_set(x->err, rc, "%s: out of memory", x->name);
	}
	for (;;) {
		const uint8_t *p;
		uint32_t type, len;

		rc = nnst_reader_next(r, &type, &p, &len, msg, sizeof(msg));
		if (rc <= 0)
			break;
		x->m->diag.bytes_read += 24 + (int64_t)len;
		if (type == NNST_CHUNK_END)
			x->seen_end = 1;
		rc = chunk_pass(x, second, type, p, len);
		if (rc) {
			nnst_reader_close(r);
			return nns_err_set(x->err, rc, "%s: out of memory", x->name);
		}
	}
	nnst_reader_close(r);
	if (rc == NNS_ETRUNC) {
		snprintf(trunc, tsize, "%s", msg);
		return NNS_ETRUNC;
	}
	if (rc < 0)
		return nns_err_set(x->err, rc, "%s: %s", x->name, msg);
	return NNS_OK;
}

static void ni_release(struct ni *x)
{
	for (size_t i = 0; i < x->threads.n; i++)
		vec_free(&x->threads.v[i].stack);
	vec_free(&x->threads);
	vec_free(&x->begins);
	vec_free(&x->bounds);
	vec_free(&x->stops_raw);
	vec_free(&x->stops);
	hmap_release(&x->strs);
	hmap_release(&x->thr);
	hmap_release(&x->begin_of);
	hmap_release(&x->end_of);
	vec_free(&x->ends);
	nnst_clockmap_release(&x->clock);
	free(x->cls);
	ni_gpu_release(x);
}

int nnst_load_file(const char *path, struct model *m, struct nns_err *err)
{
	return nnst_load_file_in(NULL, path, m, err);
}

int nnst_load_file_in(const struct fs_root *root, const char *path, struct model *m,
		      struct nns_err *err)
{
	struct changed_stamp before, after;
	struct ni x;
	char trunc[300] = "";
	int rc, rc2, fd;

	fd = fs_open_beneath(root, path, O_RDONLY, 0);
	if (fd < 0)
		return fs_open_error(err, errno == ENOENT ? NNS_ENOTFOUND : NNS_EIO, root, path,
				     errno);
	changed_stamp_fd(&before, fd); /* appended to while read? (below) */

	memset(&x, 0, sizeof(x));
	x.m = m;
	x.name = path;
	x.err = err;
	x.async_thread = MODEL_NOIDX;
	x.max_ts = INT64_MIN;
	hmap_init(&x.strs);
	hmap_init(&x.thr);
	hmap_init(&x.begin_of);
	hmap_init(&x.end_of);
	m->diag.bytes_read = 0;

	rc = pass(&x, fd, 0, trunc, sizeof(trunc));
	if (rc && rc != NNS_ETRUNC)
		goto out;
	m->diag.bytes_read = 0;
	if (ni_events_prepare(&x) || ni_gpu_prepare(&x)) {
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	rc2 = pass(&x, fd, 1, trunc, sizeof(trunc));
	if (rc2 && rc2 != NNS_ETRUNC) {
		rc = rc2;
		goto out;
	}
	if ((rc = ni_events_finish(&x)))
		goto out;
	if (ni_gpu_finish(&x)) {
		rc = nns_err_set(err, NNS_ENOMEM, "%s: out of memory", path);
		goto out;
	}
	for (size_t i = 0; i <= x.threads.n; i++) {
		uint64_t n = i < x.threads.n ? x.threads.v[i].lost : x.lost_process;

		if (n > (uint64_t)(INT64_MAX - m->diag.events_lost))
			m->diag.events_lost = INT64_MAX;
		else
			m->diag.events_lost += (int64_t)n;
	}
	m->diag.bytes_read += x.hdr.header_size;
	if (trunc[0] || !x.seen_end) {
		m->diag.truncated = 1;
		if (trunc[0])
			snprintf(m->diag.first_problem, sizeof(m->diag.first_problem), "%s: %s",
				 path, trunc);
		else /* the cause of any range closed at the end: it goes first */
			snprintf(m->diag.first_problem, sizeof(m->diag.first_problem),
				 "%s: no END chunk: the run did not close its trace", path);
	}
	if ((rc = model_finalize(m, err)))
		goto out;
	if (trunc[0])
		rc = nns_err_set(err, NNS_ETRUNC, "%s: %s; kept the %zu events before it", path,
				 trunc, m->events.n);
	else if (!x.seen_end)
		rc = nns_err_set(err, NNS_ETRUNC,
				 "%s: no END chunk: the run did not close its trace (crashed or "
				 "still running); kept the %zu events written",
				 path, m->events.n);
out:
	ni_release(&x);
	/* each pass reads to the end it finds: a collector still writing
	 * makes the file grow under them; the model covers what pass 2 read */
	changed_stamp_fd(&after, fd);
	close(fd);
	return changed_check(path, &before, &after, m->diag.bytes_read, rc, m, err);
}

int nnst_is_trace_file(const char *path)
{
	return nnst_is_trace_file_in(NULL, path);
}

int nnst_is_trace_file_in(const struct fs_root *root, const char *path)
{
	char b[8];
	int fd = fs_open_beneath(root, path, O_RDONLY | O_NONBLOCK, 0);
	ssize_t n;

	if (fd < 0)
		return 0;
	do
		n = pread(fd, b, sizeof(b), 0);
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == (ssize_t)sizeof(b) && memcmp(b, NNST_MAGIC, sizeof(b)) == 0;
}
