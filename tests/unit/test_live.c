/*
 * test_live.c - following a .nnst while it is written: the tail reader
 * hands over every chunk once, in order, however the file grows (cut
 * inside headers and payloads), reads each byte once, stops at damage and
 * at a file that shrinks; the incremental analysis gives hand-computed
 * steps, operator self times, breakdowns, memory and queues, and on a
 * random trace fed in random pieces the same steps and operator table
 * (calls, host total, host self) as `nnscope analyse`'s full analysis of
 * the same file.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "analysis/live.h"
#include "format/nnst.h"
#include "format/nnst_writer.h"
#include "importers/nnst_tail.h"
#include "server/live_follow.h"
#include "nnstb.h"
#include "testutil.h"

#define RT 1700000000000000000LL /* header start_realtime_ns */
#define MONO 1000000LL		 /* header start_mono_ns */
#define T(x) ((int64_t)(x) + RT - MONO)

/* ---- tail --------------------------------------------------------------- */

struct seen {
	uint32_t type[256];
	uint32_t len[256];
	size_t n;
};

static int collect(void *arg, uint32_t type, const uint8_t *payload, uint32_t len)
{
	struct seen *s = arg;

	(void)payload;
	if (s->n < 256) {
		s->type[s->n] = type;
		s->len[s->n] = len;
	}
	s->n++;
	return NNS_OK;
}

static void append(int fd, const uint8_t *p, size_t n)
{
	assert_int_equal(write(fd, p, n), (ssize_t)n);
}

/* A small file: strings, thread, two EVENTS chunks, clock, end. */
static void small_file(struct nb *b)
{
	struct nb ev = {0};

	nb_header(b, 10, 0, RT, MONO, 0);
	nb_string(b, 1, "aten::mm");
	nb_thread(b, 0, 11, "main");
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, 1, -1, 0, 0);
	nb_ev(&ev, 1500, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_events(b, 0, &ev);
	nb_events(b, 0, &ev);
	nb_clock(b, 0, 5000, 6000);
	nb_end(b);
	nb_free(&ev);
}

static void test_tail_pieces(void **state)
{
	static const uint32_t want[] = {NNST_CHUNK_STRINGS, NNST_CHUNK_THREAD, NNST_CHUNK_EVENTS,
					NNST_CHUNK_EVENTS,  NNST_CHUNK_CLOCK,  NNST_CHUNK_END};
	struct nb b = {0};
	char path[256];
	struct nnst_tail *t;
	struct nns_err err;
	struct seen s = {0};
	uint64_t sum = 0;
	size_t off = 0, step = 1;
	int fd;

	(void)state;
	small_file(&b);
	nb_tmpname(path, sizeof(path));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(nnst_tail_open(&t, NULL, path, &err), NNS_OK);
	/* an empty file: nothing yet, no error */
	assert_int_equal(nnst_tail_poll(t, collect, &s, &err), NNS_OK);
	assert_null(nnst_tail_header(t));
	while (off < b.n) { /* cuts of 1, 4, 7, ... bytes: inside every header and payload */
		size_t k = step < b.n - off ? step : b.n - off;

		append(fd, b.p + off, k);
		off += k;
		step += 3;
		assert_int_equal(nnst_tail_poll(t, collect, &s, &err), NNS_OK);
		assert_int_equal(nnst_tail_stats(t)->last_bytes, k); /* only the new bytes */
		sum += nnst_tail_stats(t)->last_bytes;
	}
	assert_int_equal(s.n, 6);
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(s.type[i], want[i]);
	assert_int_equal(s.len[2], 8 + 2 * 32);
	assert_int_equal(sum, b.n);
	assert_int_equal(nnst_tail_stats(t)->bytes_read, b.n);
	assert_int_equal(nnst_tail_stats(t)->offset, b.n);
	assert_true(nnst_tail_stats(t)->ended);
	assert_non_null(nnst_tail_header(t));
	assert_int_equal(nnst_tail_header(t)->pid, 10);
	/* after END nothing is read */
	append(fd, b.p + 64, 100);
	assert_int_equal(nnst_tail_poll(t, collect, &s, &err), NNS_OK);
	assert_int_equal(s.n, 6);
	assert_int_equal(nnst_tail_stats(t)->last_bytes, 0);
	nnst_tail_close(t);
	close(fd);
	unlink(path);
	nb_free(&b);
}

static void test_tail_damage(void **state)
{
	struct nb b = {0};
	char path[256];
	struct nnst_tail *t;
	struct nns_err err;
	struct seen s = {0};
	size_t second; /* offset of the THREAD chunk */

	(void)state;
	nb_header(&b, 10, 0, RT, MONO, 0);
	nb_string(&b, 1, "aten::mm");
	second = b.n;
	nb_thread(&b, 0, 11, "main");
	b.p[b.n - 1] ^= 0x55; /* its payload: CRC mismatch */
	nb_tmpname(path, sizeof(path));
	assert_int_equal(nb_write(&b, path, b.n), 0);
	assert_int_equal(nnst_tail_open(&t, NULL, path, &err), NNS_OK);
	assert_int_equal(nnst_tail_poll(t, collect, &s, &err), NNS_ETRUNC);
	assert_int_equal(s.n, 1); /* the strings before it */
	{
		char at[64];

		snprintf(at, sizeof(at), "byte %zu: chunk CRC mismatch", second);
		assert_non_null(strstr(err.msg, at));
	}
	assert_int_equal(nnst_tail_poll(t, collect, &s, &err), NNS_ETRUNC); /* sticky */
	nnst_tail_close(t);

	/* a file that shrinks below what was read */
	nb_free(&b);
	small_file(&b);
	assert_int_equal(nb_write(&b, path, 200), 0);
	assert_int_equal(nnst_tail_open(&t, NULL, path, &err), NNS_OK);
	assert_int_equal(nnst_tail_poll(t, NULL, NULL, &err), NNS_OK);
	assert_int_equal(truncate(path, 100), 0);
	assert_int_equal(nnst_tail_poll(t, NULL, NULL, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "shrank"));
	nnst_tail_close(t);

	/* not a trace */
	assert_int_equal(truncate(path, 0), 0);
	{
		int fd = open(path, O_WRONLY);

		static const char json[65] =
		    "{\"traceEvents\": [] }  padding padding padding padding padding pad";

		append(fd, (const uint8_t *)json, 64);
		close(fd);
	}
	assert_int_equal(nnst_tail_open(&t, NULL, path, &err), NNS_OK);
	assert_int_equal(nnst_tail_poll(t, NULL, NULL, &err), NNS_EFORMAT);
	assert_non_null(strstr(err.msg, "not an nnscope trace"));
	nnst_tail_close(t);
	unlink(path);
	nb_free(&b);
}

/* ---- the incremental analysis, by hand --------------------------------- */

enum { S_MM = 1, S_ADD, S_DL, S_FWD, S_OPT, S_Q, S_KERN, S_STEP7 };

static void names(struct nb *b)
{
	nb_string(b, S_MM, "aten::mm");
	nb_string(b, S_ADD, "aten::add");
	nb_string(b, S_DL, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
	nb_string(b, S_FWD, "forward");
	nb_string(b, S_OPT, "Optimizer.step#SGD.step");
	nb_string(b, S_Q, "batch_queue");
	nb_string(b, S_KERN, "gemm_kernel");
	nb_string(b, S_STEP7, "ProfilerStep#7");
}

static struct live *feed_all(const struct nb *b)
{
	char path[256];
	struct live_follow *f;
	struct nns_err err;
	struct live *l;

	nb_tmpname(path, sizeof(path));
	assert_int_equal(nb_write(b, path, b->n), 0);
	assert_int_equal(live_follow_open(&f, NULL, path, &err), NNS_OK);
	assert_int_equal(live_follow_refresh(f, &err), NNS_OK);
	l = f->live;
	f->live = NULL;
	live_follow_close(f);
	unlink(path);
	return l;
}

static const struct live_op *op(const struct live *l, const char *name)
{
	for (size_t i = 0; i < l->ops.n; i++)
		if (strcmp(live_str(l, l->ops.v[i].name), name) == 0)
			return &l->ops.v[i];
	return NULL;
}

static void test_live_hand(void **state)
{
	struct nb b = {0}, ev = {0}, gpu = {0};
	struct live *l;
	struct live_step s[2];
	struct live_step_stats st;
	struct live_op *rows;
	size_t n;

	(void)state;
	nb_header(&b, 10, 0, RT, MONO, 0);
	names(&b);
	nb_thread(&b, 0, 11, "main");
	nb_ev(&ev, 1000, NNST_EV_STEP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1000, NNST_EV_PUSH, 0, S_DL, -1, 0, 0);
	nb_ev(&ev, 1300, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1300, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0); /* annotation: transparent */
	nb_ev(&ev, 1400, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_ev(&ev, 1500, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
	nb_ev(&ev, 1500, NNST_EV_PUSH, 0, S_ADD, -1, 0, 0); /* mm's child through "forward" */
	nb_ev(&ev, 1600, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1650, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 1900, NNST_EV_POP, 0, 0, -1, 0, 0); /* mm: 500, self 400 */
	nb_ev(&ev, 2000, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 2100, NNST_EV_ALLOC, 0, 0, 0, 0xa0, 4096);
	nb_ev(&ev, 2100, NNST_EV_MEMTOTAL, 0, 0, 0, 4096, 8192);
	nb_ev(&ev, 2200, NNST_EV_QUEUE, 0, S_Q, -1, 0, 4);
	nb_ev(&ev, 3000, NNST_EV_STEP, 0, 0, -1, 1, 0);
	nb_ev(&ev, 3000, NNST_EV_PUSH, 0, S_OPT, -1, 0, 0); /* a node, not an operator */
	nb_ev(&ev, 3100, NNST_EV_PUSH, 0, S_ADD, -1, 0, 0);
	nb_ev(&ev, 3300, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 3400, NNST_EV_POP, 0, 0, -1, 0, 0);
	nb_ev(&ev, 3500, NNST_EV_FREE, 0, 0, 0, 0xa0, 4096);
	nb_ev(&ev, 3600, NNST_EV_QUEUE, 0, S_Q, -1, 4, 4);
	nb_ev(&ev, 4500, NNST_EV_STEP, 0, 0, -1, 2, 0); /* step 2 stays open */
	nb_ev(&ev, 4600, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
	nb_events(&b, 0, &ev);
	/* a kernel in step 1 on the host clock */
	nb_u64(&gpu, 3150);
	nb_u64(&gpu, 3250);
	nb_u32(&gpu, S_KERN);
	gpu.p = realloc(gpu.p, gpu.n + 60);
	memset(gpu.p + gpu.n, 0, 60);
	gpu.p[gpu.n] = NNST_GPU_KERNEL;
	gpu.p[gpu.n + 1] = NNST_GPUF_HOSTCLOCK;
	gpu.n += 60;
	nb_chunk(&b, NNST_CHUNK_GPU, gpu.p, gpu.n);
	l = feed_all(&b);

	assert_int_equal(l->steps.n, 2);
	assert_int_equal(l->open_num, 2);
	live_steps_now(l, 0, s);
	assert_int_equal(s[0].num, 0);
	assert_int_equal(s[0].start, T(1000));
	assert_int_equal(s[0].end, T(3000));
	assert_int_equal(s[0].dataloader, 300);
	assert_int_equal(s[0].cpu_ops, 700); /* "forward" holds mm and add: CPU exec */
	assert_int_equal(s[0].kernel, 0);
	assert_int_equal(s[1].num, 1);
	assert_int_equal(s[1].cpu_ops, 400); /* the optimizer step, add in it */
	assert_int_equal(s[1].kernel, 100);
	assert_non_null(op(l, "aten::mm"));
	assert_int_equal(op(l, "aten::mm")->calls, 1);
	assert_int_equal(op(l, "aten::mm")->total, 500);
	assert_int_equal(op(l, "aten::mm")->self, 400);
	assert_int_equal(op(l, "aten::add")->calls, 2);
	assert_int_equal(op(l, "aten::add")->total, 300);
	assert_int_equal(op(l, "aten::add")->self, 300);
	assert_null(op(l, "Optimizer.step#SGD.step"));
	assert_null(op(l, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
	assert_int_equal(l->kernels.n, 1);
	assert_int_equal(l->kernels.v[0].total, 100);

	live_step_stats(l, 0, &st);
	assert_int_equal(st.n, 2);
	assert_int_equal(st.median, 1750); /* (2000 + 1500) / 2 */
	assert_int_equal(st.last, 1500);
	/* the last step's table: add only */
	assert_int_equal(live_top_ops(l, 1, &rows, &n), NNS_OK);
	assert_int_equal(n, 1);
	assert_string_equal(live_str(l, rows[0].name), "aten::add");
	assert_int_equal(rows[0].total, 200);
	free(rows);
	/* the run's, by self: mm 400 then add 300 */
	assert_int_equal(live_top_ops(l, 0, &rows, &n), NNS_OK);
	assert_int_equal(n, 2);
	assert_string_equal(live_str(l, rows[0].name), "aten::mm");
	free(rows);

	assert_int_equal(l->mems.n, 1);
	assert_int_equal(l->mems.v[0].device, 0);
	assert_int_equal(l->mems.v[0].peak_allocated, 4096);
	assert_int_equal(l->mems.v[0].peak_reserved, 8192);
	assert_int_equal(l->mems.v[0].allocated, 0);
	assert_int_equal(l->queues.n, 1);
	assert_int_equal(l->queues.v[0].samples, 2);
	assert_int_equal(l->queues.v[0].empty, 1);
	assert_int_equal(l->queues.v[0].full, 1);
	live_free(l);
	nb_free(&b);
	nb_free(&ev);
	nb_free(&gpu);
}

/* ---- against the full analysis ----------------------------------------- */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static const char *const opnames[] = {"aten::mm", "aten::add", "aten::relu", "aten::conv2d",
				      "aten::copy_"};

/* Nested random ranges in [t, t + span) on one thread: returns the time after. */
static uint64_t ranges(struct nb *ev, uint64_t *seed, uint64_t t, uint64_t span, int depth)
{
	uint64_t end = t + span;

	while (t + 20 < end) {
		uint64_t len = 10 + rnd(seed) % ((end - t) / 2 + 1);
		uint32_t name = (uint32_t)(rnd(seed) % 6); /* 5: the annotation */

		if (t + len > end)
			len = end - t;
		nb_ev(ev, t, NNST_EV_PUSH, 0, name == 5 ? S_FWD : 100 + name, -1, 0, 0);
		if (depth < 4 && len > 40)
			ranges(ev, seed, t + 5, len - 10, depth + 1);
		nb_ev(ev, t + len, NNST_EV_POP, 0, 0, -1, 0, 0);
		t += len + rnd(seed) % 7;
	}
	return end;
}

/* A random trace of `threads` threads (1 or 2) fed in random pieces: the
 * steps and the operator table equal the full analysis's; with one thread
 * the host step-time roles (DataLoader, CPU exec, Other) too. */
static void vs_analyse(int threads)
{
	struct nb b = {0}, ev0 = {0}, ev1 = {0};
	uint64_t seed = 88172645463325252ull, t = 1000;
	char path[256];
	struct live_follow *f;
	struct nns_err err;
	struct model m;
	struct an_profile p;
	size_t off = 0;
	int fd;

	nb_header(&b, 10, 0, RT, MONO, 0);
	names(&b);
	for (uint32_t i = 0; i < 5; i++)
		nb_string(&b, 100 + i, opnames[i]);
	nb_thread(&b, 0, 11, "main");
	nb_thread(&b, 1, 12, "backward");
	for (int step = 0; step < 300; step++) {
		uint64_t len = 2000 + rnd(&seed) % 3000;

		nb_ev(&ev0, t, NNST_EV_STEP, 0, 0, -1, (uint64_t)step, 0);
		nb_ev(&ev0, t + 1, NNST_EV_PUSH, 0, S_DL, -1, 0, 0);
		nb_ev(&ev0, t + 200, NNST_EV_POP, 0, 0, -1, 0, 0);
		ranges(&ev0, &seed, t + 210, len - 220, 0);
		if (threads > 1)
			ranges(&ev1, &seed, t + 300, len - 400, 0);
		t += len;
		if (step % 7 == 6) { /* blocks of both threads, as the writer drains them */
			nb_events(&b, 0, &ev0);
			if (ev1.n)
				nb_events(&b, 1, &ev1);
			ev0.n = ev1.n = 0;
		}
	}
	nb_ev(&ev0, t, NNST_EV_STOP, 0, 0, -1, 0, 0);
	nb_events(&b, 0, &ev0);
	if (ev1.n)
		nb_events(&b, 1, &ev1);
	nb_end(&b);

	/* the file grows in random pieces; a refresh after each */
	nb_tmpname(path, sizeof(path));
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(live_follow_open(&f, NULL, path, &err), NNS_OK);
	while (off < b.n) {
		size_t k = 1 + rnd(&seed) % 20000;

		if (k > b.n - off)
			k = b.n - off;
		append(fd, b.p + off, k);
		off += k;
		assert_int_equal(live_follow_refresh(f, &err), NNS_OK);
	}
	close(fd);
	assert_true(nnst_tail_stats(f->tail)->ended);
	assert_int_equal(nnst_tail_stats(f->tail)->bytes_read, b.n);

	assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
	assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
	/* the steps */
	assert_int_equal(f->live->steps.n, p.overview.steps.n);
	assert_int_equal(f->live->steps.n, 300);
	for (size_t i = 0; i < p.overview.steps.n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%lld", (long long)f->live->steps.v[i].num);
		assert_string_equal(name, p.overview.steps.v[i].name);
		assert_int_equal(f->live->steps.v[i].start, p.overview.steps.v[i].host_start);
		assert_int_equal(f->live->steps.v[i].end, p.overview.steps.v[i].host_end);
	}
	if (threads == 1) { /* the host roles of every step */
		struct live_step *now = malloc(f->live->steps.n * sizeof(*now));
		int64_t sum_cpu = 0;

		assert_non_null(now);
		live_steps_now(f->live, 0, now);
		for (size_t i = 0; i < p.overview.steps.n; i++) {
			const struct an_step *a = &p.overview.steps.v[i];
			int64_t other =
			    (now[i].end - now[i].start) - now[i].dataloader - now[i].cpu_ops;

			assert_int_equal(now[i].dataloader, a->cost[AN_DATALOADER]);
			assert_int_equal(now[i].cpu_ops, a->cost[AN_CPUOP]);
			assert_int_equal(other, a->cost[AN_OTHER]);
			sum_cpu += now[i].cpu_ops;
		}
		assert_true(sum_cpu > 0);
		free(now);
	}
	/* the operator table */
	assert_int_equal(f->live->ops.n, p.ops.by_name.n);
	for (size_t i = 0; i < p.ops.by_name.n; i++) {
		const struct an_op_row *r = &p.ops.by_name.v[i];
		const struct live_op *o = op(f->live, model_str(&m, r->name));

		assert_non_null(o);
		assert_int_equal(o->calls, r->calls);
		assert_int_equal(o->total, r->host_total);
		assert_int_equal(o->self, r->host_self);
	}
	/* the recent log stays bounded: only the last steps' records */
	assert_true(f->live->recent.n > 0);
	assert_true(f->live->recent.v[0].start >=
		    f->live->steps.v[f->live->steps.n - LIVE_RECENT_STEPS - 16].start);
	an_profile_release(&p);
	model_release(&m);
	live_follow_close(f);
	unlink(path);
	nb_free(&b);
	nb_free(&ev0);
	nb_free(&ev1);
}

/* The step a STOP closes is kept only when its thread began a range in it
 * (a queue sample is not one), as the importer does. */
static void test_live_stop(void **state)
{
	for (int with_range = 0; with_range < 2; with_range++) {
		struct nb b = {0}, ev = {0};
		struct live *l;
		struct model m;
		struct an_profile p;
		struct nns_err err;

		(void)state;
		nb_header(&b, 10, 0, RT, MONO, 0);
		names(&b);
		nb_meta(&b, "host", "node7");
		nb_ev(&ev, 1000, NNST_EV_STEP, 0, 0, -1, 0, 0);
		nb_ev(&ev, 1100, NNST_EV_PUSH, 0, S_MM, -1, 0, 0);
		nb_ev(&ev, 1200, NNST_EV_POP, 0, 0, -1, 0, 0);
		nb_ev(&ev, 2000, NNST_EV_STEP, 0, 0, -1, 1, 0);
		nb_ev(&ev, 2100, NNST_EV_QUEUE, 0, S_Q, -1, 1, 4);
		if (with_range) {
			nb_ev(&ev, 2200, NNST_EV_PUSH, 0, S_FWD, -1, 0, 0);
			nb_ev(&ev, 2300, NNST_EV_POP, 0, 0, -1, 0, 0);
		}
		nb_ev(&ev, 2500, NNST_EV_STOP, 0, 0, -1, 0, 0);
		nb_events(&b, 0, &ev);
		nb_end(&b);
		l = feed_all(&b);
		assert_int_equal(tu_nnst_load(b.p, b.n, &m), NNS_OK);
		assert_int_equal(an_profile_compute(&p, &m, &err), NNS_OK);
		assert_int_equal(l->steps.n, 1 + with_range);
		assert_int_equal(p.overview.steps.n, 1 + with_range);
		assert_string_equal(live_str(l, l->host), "node7");
		an_profile_release(&p);
		model_release(&m);
		live_free(l);
		nb_free(&b);
		nb_free(&ev);
	}
}

/* ProfilerStep ranges that arrive in reverse order (another thread's, or
 * a hostile file) go in their place among the steps not frozen, and the
 * cost per step stays bounded by the window: 60,000 of them all count. */
static void test_live_steps_reversed(void **state)
{
	struct nb b = {0}, ev = {0};
	struct live *l;
	const int n = 60000;

	(void)state;
	nb_header(&b, 10, 0, RT, MONO, 0);
	names(&b);
	for (int i = n; i > 0; i--) { /* each on a thread of its own: no nesting */
		nb_ev(&ev, (uint64_t)i * 1000, NNST_EV_PUSH, 0, S_STEP7, -1, 0, 0);
		nb_ev(&ev, (uint64_t)i * 1000 + 500, NNST_EV_POP, 0, 0, -1, 0, 0);
		nb_events(&b, (uint32_t)(i % 50000), &ev);
		ev.n = 0;
	}
	l = feed_all(&b);
	assert_int_equal(l->steps.n, n);
	/* the window is in order */
	for (size_t i = l->frozen + 1; i < l->steps.n; i++)
		assert_true(l->steps.v[i - 1].start <= l->steps.v[i].start);
	live_free(l);
	nb_free(&b);
	nb_free(&ev);
}

/* What a file can multiply is bounded: memory devices and queues beyond
 * the ones kept are skipped (each would cost a series and a scan per
 * record); LOST counts are the largest seen per thread and process,
 * summed, however many LOST chunks come. */
static void test_live_bounds(void **state)
{
	struct nb b = {0}, ev = {0};
	struct live *l;

	(void)state;
	nb_header(&b, 10, 0, RT, MONO, 0);
	for (uint32_t i = 0; i < 300; i++) {
		char q[32];

		snprintf(q, sizeof(q), "queue%u", i);
		nb_string(&b, 1000 + i, q);
		nb_ev(&ev, 1000 + i, NNST_EV_QUEUE, 0, 1000 + i, -1, 1, 4);
	}
	for (int d = 0; d < 100; d++)
		nb_ev(&ev, 5000 + (uint64_t)d, NNST_EV_ALLOC, 0, 0, (int16_t)d, 0xa0, 64);
	nb_events(&b, 0, &ev);
	nb_lost(&b, 0, 5);
	nb_lost(&b, NNST_THREAD_PROCESS, 7);
	nb_lost(&b, 0, 3); /* smaller: the largest stays */
	nb_lost(&b, 1, 2);
	l = feed_all(&b);
	assert_int_equal(l->queues.n, LIVE_MAX_QUEUES);
	assert_int_equal(l->mems.n, LIVE_MAX_DEVICES);
	assert_int_equal(l->skipped, (300 - LIVE_MAX_QUEUES) + (100 - LIVE_MAX_DEVICES));
	assert_int_equal(l->lost, 7 + 5 + 2);
	live_free(l);
	nb_free(&b);
	nb_free(&ev);
}

/* Beyond LIVE_EXACT_STEPS steps the run's median and p90 come from the
 * histogram: within 1 % of the exact values; min, max, mean exact. */
static void test_live_many_steps(void **state)
{
	struct nb b = {0}, ev = {0};
	struct live *l;
	struct live_step_stats st;
	uint64_t t = 1000;
	const int n = 6001; /* durations 1..6001 us: median 3001 us, p90 5401 us */

	(void)state;
	nb_header(&b, 10, 0, RT, MONO, 0);
	for (int i = 1; i <= n + 1; i++) {
		nb_ev(&ev, t, NNST_EV_STEP, 0, 0, -1, (uint64_t)i, 0);
		nb_ev(&ev, t + 1, NNST_EV_MARK, 0, 0, -1, 0, 0);
		t += (uint64_t)i * 1000;
	}
	nb_events(&b, 0, &ev);
	l = feed_all(&b);
	assert_int_equal(l->steps.n, n);
	live_step_stats(l, 0, &st);
	assert_int_equal(st.n, n);
	assert_int_equal(st.min, 1000);
	assert_int_equal(st.max, n * 1000LL);
	assert_true(st.mean > 3000999.0 && st.mean < 3001001.0);
	assert_true(st.median > 3001000 * 0.99 && st.median < 3001000 * 1.01);
	assert_true(st.p90 > 5401000 * 0.99 && st.p90 < 5401000 * 1.01);
	live_step_stats(l, 10, &st); /* the last 10: exact */
	assert_int_equal(st.n, 10);
	assert_int_equal(st.median, (5996000 + 5997000) / 2);
	live_free(l);
	nb_free(&b);
	nb_free(&ev);
}

static void test_live_vs_analyse(void **state)
{
	(void)state;
	vs_analyse(2);
	vs_analyse(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tail_pieces), cmocka_unit_test(test_tail_damage),
	    cmocka_unit_test(test_live_hand),	cmocka_unit_test(test_live_vs_analyse),
	    cmocka_unit_test(test_live_stop),	cmocka_unit_test(test_live_steps_reversed),
	    cmocka_unit_test(test_live_bounds), cmocka_unit_test(test_live_many_steps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
