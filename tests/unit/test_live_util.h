/*
 * test_live_util.h - live states (analysis/live.h) built from hand-made
 * .nnst bytes (tests/common/nnstb.h) for the live unit tests: the bytes are
 * cut into the header and chunks as the tail reader hands them over and
 * fed to live_header / live_feed, so a test states a trace's steps and
 * checks what is computed on the live state. Header-only (static
 * functions), so each test_live*.c stays a single translation unit.
 */
#ifndef NNS_TEST_LIVE_UTIL_H
#define NNS_TEST_LIVE_UTIL_H

#include "analysis/live.h"
#include "format/nnst.h"
#include "nnstb.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LU_RT 1700000000000000000LL /* the traces' CLOCK_REALTIME at open */
#define LU_S_DATA 1		    /* string ids of the traces */
#define LU_S_FWD 2

static uint32_t lu_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Feeds the chunks of b[*off..) that are complete into l (the header
 * first when *off is 0) and advances *off; 0, or -1 for bytes that are
 * not a .nnst or a failed feed. */
static int lu_feed_from(struct live *l, const struct nb *b, size_t *off)
{
	if (*off == 0) {
		struct nnst_header h;

		if (b->n < sizeof(h) || memcmp(b->p, NNST_MAGIC, 8) != 0)
			return -1;
		memcpy(&h, b->p, sizeof(h)); /* little-endian host, as the tests run */
		if (live_header(l, &h) != NNS_OK)
			return -1;
		*off = sizeof(h);
	}
	while (*off + sizeof(struct nnst_chunk_header) <= b->n) {
		const uint8_t *c = b->p + *off;
		uint32_t type = lu_le32(c + 4), len = lu_le32(c + 8);

		if (lu_le32(c) != NNST_CHUNK_MAGIC)
			return -1;
		if (*off + sizeof(struct nnst_chunk_header) + len > b->n)
			break; /* still being written */
		if (live_feed(l, type, c + sizeof(struct nnst_chunk_header), len) != NNS_OK)
			return -1;
		*off += sizeof(struct nnst_chunk_header) + len;
	}
	return 0;
}

/* A fresh trace: header at mono ns 0, names, one thread, META rank when
 * rank >= 0. */
static void lu_begin(struct nb *b, int64_t rank)
{
	char v[32];

	nb_header(b, 1000 + (rank < 0 ? 0 : rank), 0, LU_RT, 0, 0);
	nb_string(b, LU_S_DATA, "enumerate(DataLoader)#QueueLoader.__next__");
	nb_string(b, LU_S_FWD, "forward");
	nb_thread(b, 0, 4242, "main");
	if (rank >= 0) {
		snprintf(v, sizeof(v), "%lld", (long long)rank);
		nb_meta(b, "rank", v);
		nb_meta(b, "world_size", "4");
	}
}

/* One step per EVENTS chunk: a START opening step `first` at t (when
 * start), then per step an optional DataLoader range of data[i] ns, a
 * "forward" range filling the rest, and the STEP mark that ends it after
 * dur[i] ns. Steps first .. first + n - 1 are complete afterwards (the
 * step the last mark opens stays open). Returns the time of the last mark. */
static int64_t lu_steps(struct nb *b, int start, int64_t first, int64_t t, const int64_t *dur,
			const int64_t *data, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct nb ev = {0};
		int64_t d = data ? data[i] : 0;

		if (i == 0 && start)
			nb_ev(&ev, (uint64_t)t, NNST_EV_START, 0, 0, -1, (uint64_t)first, 0);
		if (d > 0) {
			nb_ev(&ev, (uint64_t)t + 1, NNST_EV_PUSH, 0, LU_S_DATA, -1, 0, 0);
			nb_ev(&ev, (uint64_t)(t + d - 1), NNST_EV_POP, 0, 0, -1, 0, 0);
		}
		nb_ev(&ev, (uint64_t)(t + d + 1), NNST_EV_PUSH, 0, LU_S_FWD, -1, 0, 0);
		nb_ev(&ev, (uint64_t)(t + dur[i] - 1), NNST_EV_POP, 0, 0, -1, 0, 0);
		t += dur[i];
		nb_ev(&ev, (uint64_t)t, NNST_EV_STEP, 0, 0, -1, (uint64_t)(first + (int64_t)i + 1),
		      0);
		nb_events(b, 0, &ev);
		nb_free(&ev);
	}
	return t;
}

/* A live state of rank `rank`'s trace with the n steps dur[] (ns) from
 * step `first` (an END chunk after them when ended); aborts the test
 * process when it cannot be built. live_free() it. */
static struct live *lu_live(int64_t rank, int64_t first, const int64_t *dur, size_t n, int ended)
{
	struct nb b = {0};
	struct live *l = live_new();
	size_t off = 0;

	if (!l)
		abort();
	lu_begin(&b, rank);
	lu_steps(&b, 1, first, 1000000, dur, NULL, n);
	if (ended)
		nb_end(&b);
	if (lu_feed_from(l, &b, &off) || off != b.n) {
		fprintf(stderr, "test_live_util: feeding a hand-made trace failed\n");
		abort();
	}
	nb_free(&b);
	return l;
}

/* n durations of ms milliseconds each into d (ns). */
static void lu_fill(int64_t *d, size_t n, double ms)
{
	for (size_t i = 0; i < n; i++)
		d[i] = (int64_t)(ms * 1e6);
}

#endif
