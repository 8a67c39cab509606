/*
 * ms_raw_trace.c - a raw training_trace file into MindSpore's
 * step_trace_raw_<dev>_detail_time.csv (MindInsight StepTraceParser).
 *
 * Records are 20 bytes, little-endian {u64 tag, u16 task, u16 stream,
 * u64 syscount}. Tag 255 ends a step, 0 or > 255 starts one (the job id),
 * 1 is fp, 2 is bp, any other a reduce point of its stream. After every
 * record, once the step has an end, a row is recorded (as upstream, also
 * for a record that follows the end before the next start). Row: step_num,
 * start (the previous end, the fp point for the first step), end, total,
 * fp, bp, interval, fp_and_bp, tail, then per stream (first appearance)
 * pairs of reduce points stream_<s>_parallel_<i>_{start_point,end_point,}
 * — the columns are the first recorded row's, a later row's missing ones
 * 0. The last row averages rows 2..n (half-to-even, as Python's round of a
 * Decimal), step "-". Lines end "\r\n" (Python's csv writer).
 * Warnings (the rest is read): trailing bytes that are not a record, a
 * reduce point before the first step, a job id that changes (the record
 * still starts a step), a step without start/end/fp/bp (skipped), an odd
 * number of reduce points on a stream (that stream skipped in the row).
 */
#include "importers/ms_raw_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC 20
#define MAX_COLS 4096

struct pt {
	uint16_t stream;
	uint64_t t;
};

struct step {
	int have_start, have_end, have_fp, have_bp, start_dash;
	uint64_t start, end, fp, bp;
	VEC(struct pt) reduce;
	int open; /* a step tag was seen */
};

struct col {
	char name[64];
};

struct table {
	VEC(struct col) cols;
	VEC(int64_t) cells; /* rows x cols */
	size_t rows;
};

static uint64_t le(const unsigned char *p, int k)
{
	uint64_t v = 0;

	for (int i = k - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int col_index(struct table *t, const char *name, int add)
{
	for (size_t i = 0; i < t->cols.n; i++)
		if (strcmp(t->cols.v[i].name, name) == 0)
			return (int)i;
	if (!add || t->cols.n >= MAX_COLS)
		return -1;
	struct col c;
	snprintf(c.name, sizeof(c.name), "%s", name);
	if (vec_push(&t->cols, c))
		return -2;
	return (int)t->cols.n - 1;
}

/* Puts value under name in the row being built (row: cells of this row). */
static int put(struct table *t, int64_t *row, const char *name, int64_t v)
{
	int k = col_index(t, name, t->rows == 0);

	if (k == -2)
		return NNS_ENOMEM;
	if (k >= 0)
		row[k] = v;
	return NNS_OK;
}

static int record(struct table *t, struct step *s, long step, const char *path, long long off,
		  struct ms_raw *r)
{
	int64_t row[MAX_COLS];
	uint16_t seen[256];
	size_t nseen = 0;
	int rc = NNS_OK;

	if (!(s->have_start && s->have_end && s->have_fp && s->have_bp) ||
	    (!s->start_dash && !s->start) || !s->end || !s->fp || !s->bp)
		return ms_raw_warn(r, path, off,
				   "step %ld lacks its start, end, fp or bp point: skipped", step);
	uint64_t start = s->start_dash ? s->fp : s->start;
	memset(row, 0, sizeof(row));
	rc = put(t, row, "step_num", step);
	rc = rc ? rc : put(t, row, "start_point", (int64_t)start);
	rc = rc ? rc : put(t, row, "end_point", (int64_t)s->end);
	rc = rc ? rc : put(t, row, "total", (int64_t)(s->end - start));
	rc = rc ? rc : put(t, row, "fp_point", (int64_t)s->fp);
	rc = rc ? rc : put(t, row, "bp_point", (int64_t)s->bp);
	rc = rc ? rc : put(t, row, "iteration_interval", (int64_t)(s->fp - start));
	rc = rc ? rc : put(t, row, "fp_and_bp", (int64_t)(s->bp - s->fp));
	rc = rc ? rc : put(t, row, "tail", (int64_t)(s->end - s->bp));
	for (size_t i = 0; !rc && i < s->reduce.n; i++) {
		uint16_t sid = s->reduce.v[i].stream;
		size_t cnt = 0, k, j;

		for (k = 0; k < nseen && seen[k] != sid; k++)
			;
		if (k < nseen)
			continue;
		if (nseen < 256)
			seen[nseen++] = sid;
		for (j = i; j < s->reduce.n; j++)
			cnt += s->reduce.v[j].stream == sid;
		if (cnt % 2) {
			rc =
			    ms_raw_warn(r, path, off,
					"step %ld: stream %u has %zu reduce points (odd): left out",
					step, sid, cnt);
			continue;
		}
		uint64_t first = 0;
		size_t idx = 0, got = 0;
		for (j = i; !rc && j < s->reduce.n; j++) {
			char f[64], g[80];

			if (s->reduce.v[j].stream != sid)
				continue;
			if (got++ % 2 == 0) {
				first = s->reduce.v[j].t;
				continue;
			}
			snprintf(f, sizeof(f), "stream_%u_parallel_%zu", sid, idx++);
			snprintf(g, sizeof(g), "%s_start_point", f);
			rc = put(t, row, g, (int64_t)first);
			snprintf(g, sizeof(g), "%s_end_point", f);
			rc = rc ? rc : put(t, row, g, (int64_t)s->reduce.v[j].t);
			rc = rc ? rc : put(t, row, f, (int64_t)(s->reduce.v[j].t - first));
		}
	}
	if (rc)
		return rc;
	if (vec_reserve(&t->cells, (t->rows + 1) * t->cols.n))
		return NNS_ENOMEM;
	memcpy(t->cells.v + t->rows * t->cols.n, row, t->cols.n * sizeof(int64_t));
	t->cells.n = (t->rows + 1) * t->cols.n;
	t->rows++;
	return NNS_OK;
}

/* Python's round(Decimal(sum) / d): the nearest integer, ties to even. */
static long long div_even(__int128 sum, long long d)
{
	__int128 q = sum / d, rem = sum % d;

	if (rem < 0) {
		rem += d;
		q--;
	}
	if (2 * rem > d || (2 * rem == d && (q & 1)))
		q++;
	return (long long)q;
}

static int write_csv(const struct table *t, struct buf *out)
{
	size_t nc = t->cols.n;
	int bad = 0;

	if (!t->rows)
		return NNS_OK; /* upstream writes no file without a row */
	for (size_t c = 0; c < nc; c++)
		bad |= buf_printf(out, "%s%s", c ? "," : "", t->cols.v[c].name);
	bad |= buf_puts(out, "\r\n");
	for (size_t i = 0; i < t->rows; i++) {
		for (size_t c = 0; c < nc; c++)
			bad |= buf_printf(out, "%s%lld", c ? "," : "",
					  (long long)t->cells.v[i * nc + c]);
		bad |= buf_puts(out, "\r\n");
	}
	for (size_t c = 0; c < nc; c++) { /* the average of rows 2..n */
		__int128 sum = 0;

		if (c == 0 && t->rows >= 2) {
			bad |= buf_puts(out, "-");
			continue;
		}
		for (size_t i = 1; i < t->rows; i++)
			sum += t->cells.v[i * nc + c];
		bad |= buf_printf(out, "%s%lld", c ? "," : "",
				  t->rows >= 2 ? div_even(sum, (long long)t->rows - 1) : 0LL);
	}
	bad |= buf_puts(out, "\r\n");
	return bad ? NNS_ENOMEM : NNS_OK;
}

int ms_raw_trace(const unsigned char *b, size_t n, const char *path, struct buf *out,
		 struct ms_raw *r)
{
	struct step s;
	struct table t;
	uint64_t job = 0;
	long step = 0;
	int rc = NNS_OK, warned_pre = 0;

	memset(&s, 0, sizeof(s));
	memset(&t, 0, sizeof(t));
	if (n % REC)
		rc = ms_raw_warn(r, path, (long long)(n - n % REC),
				 "%zu trailing bytes are not a whole %d-byte record: left out",
				 n % REC, REC);
	for (size_t pos = 0; !rc && pos + REC <= n; pos += REC) {
		uint64_t tag = le(b + pos, 8), cnt = le(b + pos + 12, 8);
		uint16_t stream = (uint16_t)le(b + pos + 10, 2);

		if (tag == 255) {
			s.end = cnt;
			s.have_end = 1;
		} else if (tag > 255 || tag == 0) {
			if (!job)
				job = tag;
			else if (job != tag)
				rc = ms_raw_warn(r, path, (long long)pos,
						 "job id %llu where the file began with %llu",
						 (unsigned long long)tag, (unsigned long long)job);
			int had = s.have_end;
			uint64_t prev = s.end;
			s.reduce.n = 0;
			s.have_fp = s.have_bp = 0;
			s.fp = s.bp = 0;
			s.have_end = 0;
			s.end = 0;
			s.have_start = 1;
			s.start_dash = !had;
			s.start = had ? prev : 0;
			s.open = 1;
		} else if (tag == 1) {
			s.fp = cnt;
			s.have_fp = 1;
		} else if (tag == 2) {
			s.bp = cnt;
			s.have_bp = 1;
		} else if (!s.open) {
			if (!warned_pre++)
				rc = ms_raw_warn(
				    r, path, (long long)pos,
				    "reduce point (tag %llu) before the first step: left out",
				    (unsigned long long)tag);
		} else {
			struct pt p = {stream, cnt};

			if (vec_push(&s.reduce, p))
				rc = NNS_ENOMEM;
		}
		if (!rc && s.have_end && s.end) {
			step++;
			rc = record(&t, &s, step, path, (long long)pos, r);
		}
	}
	if (!rc)
		rc = write_csv(&t, out);
	vec_free(&s.reduce);
	vec_free(&t.cols);
	vec_free(&t.cells);
	return rc;
}
