/*
 * ms_raw_hwts.c - a raw hwts log and the framework's tasks into MindSpore's
 * aicore_intermediate_<dev>_detail.csv and _type.csv (MindInsight
 * HWTSLogParser, OPComputeTimeParser and the integrator).
 *
 * Records are 64 bytes, little-endian: byte 0 = cnt(4 bits) | warn(1) |
 * res(0) | type(3 bits); byte 1 core id; u16 at 4 block id; u16 at 6 task
 * id; then type 0/1/2 (start/end of task, start of block) and 3 (end of
 * block): u64 syscount at 8, u32 stream at 16; type 4 (block PMU): u32
 * stream at 16, u64 syscount at 24. A record of spaces only is skipped (as
 * upstream); another type, or bytes that are not a whole record, is a
 * warning with its offset. The task key is "<stream>_<task>" below task id
 * 25000, else "<task>" (ms_raw_task_key).
 *
 * Operators: the start / end of task records whose key is a framework
 * task, in file order; a start directly followed by an end of the same op
 * is one execution, duration = end - start (10 ns counts -> ms / 1e5).
 * Per op (first appearance): total, and calls = executions whose task is
 * the op's first task. Detail rows "full_kernel_name,execution_time,
 * execution_frequency" = the op, total / calls (ms), calls, by op name
 * (upstream sorts the compute-time table by name). Type rows
 * "kernel_type,total_time,execution_frequency,percent" = per framework
 * op_type in first appearance: the ops' totals (ms), their calls, and
 * round(total / all * 100, 2).
 *
 * Timeline (optime_parser.py): every execution is a row "op_name,stream_id,
 * start_time(ms),duration(ms)" of output_timeline_data_<dev>.txt, start =
 * start count / 1e5 (as run_1's file, made from JOB3's log, has it; newer
 * MindInsight subtracts min), duration = (end - start) / 1e5, stream = the
 * stream of the op's first execution's record, rows by start (ties in
 * execution order); min = the least start count of the executions whose op
 * name does not begin with "assign", written as min_cycle_counter_<dev>.txt
 * (no execution: neither file).
 */
#include "importers/ms_raw_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REC 64

struct ev {
	int start; /* 1 start, 0 end */
	uint64_t cnt;
	long stream; /* the record's stream */
	size_t op;   /* index into fw->ops */
	size_t task; /* same: its task (ops and tasks coincide) */
};

struct acc {
	double total_ms;
	long calls;
	size_t first_task;
	long stream; /* of the first execution */
	int seen;
};

/* One execution, for the timeline. */
struct exe {
	size_t op, seq;
	uint64_t start;
	int64_t dur; /* may be < 0 in a damaged log (upstream keeps it) */
};

static int by_start(const void *a, const void *b)
{
	const struct exe *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* output_timeline_data and min_cycle_counter (file comment). */
static int write_timeline(const struct ms_raw_fw *fw, const struct acc *a, struct exe *x, size_t n,
			  struct buf *tl, struct buf *mincc)
{
	uint64_t min = UINT64_MAX;
	int bad = 0;

	for (size_t i = 0; i < n; i++)
		if (strncmp(fw->ops.v[x[i].op].name, "assign", 6) != 0 && x[i].start < min)
			min = x[i].start;
	if (!n || min == UINT64_MAX)
		return NNS_OK; /* upstream: inf; no base to place anything on */
	qsort(x, n, sizeof(*x), by_start);
	bad |= buf_puts(tl, "op_name, stream_id, start_time(ms), duration(ms)\n");
	for (size_t i = 0; i < n; i++)
		bad |=
		    buf_printf(tl, "%s,%ld,%.17g,%.17g\n", fw->ops.v[x[i].op].name,
			       a[x[i].op].stream, (double)x[i].start / 1e5, (double)x[i].dur / 1e5);
	bad |= buf_printf(mincc, "%llu", (unsigned long long)min);
	return bad ? NNS_ENOMEM : NNS_OK;
}

static uint64_t le(const unsigned char *p, int k)
{
	uint64_t v = 0;

	for (int i = k - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static int is_blank(const unsigned char *p)
{
	for (int i = 0; i < REC; i++)
		if (!(p[i] == ' ' || (p[i] >= '\t' && p[i] <= '\r')))
			return 0;
	return 1;
}

static int by_name(const void *a, const void *b, void *ctx)
{
	const struct ms_raw_fw *fw = ctx;

	return strcmp(fw->ops.v[*(const size_t *)a].name, fw->ops.v[*(const size_t *)b].name);
}

/* Insertion sort keeps this free of qsort_r portability issues. */
static void sort_idx(size_t *v, size_t n, const struct ms_raw_fw *fw)
{
	for (size_t i = 1; i < n; i++) {
		size_t x = v[i], j = i;

		while (j > 0 && by_name(&v[j - 1], &x, (void *)fw) > 0) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = x;
	}
}

static long find_key(const struct ms_raw_fw *fw, const char *key)
{
	for (size_t i = fw->ops.n; i-- > 0;)
		if (fw->ops.v[i].key[0] && strcmp(fw->ops.v[i].key, key) == 0)
			return (long)i;
	return -1;
}

static int write_tables(const struct ms_raw_fw *fw, struct acc *a, struct buf *detail,
			struct buf *type)
{
	size_t *idx = malloc((fw->ops.n ? fw->ops.n : 1) * sizeof(*idx)), k = 0;
	double all = 0;
	int bad = 0;

	if (!idx)
		return NNS_ENOMEM;
	for (size_t i = 0; i < fw->ops.n; i++)
		if (a[i].seen)
			idx[k++] = i;
	sort_idx(idx, k, fw);
	bad |= buf_puts(detail, "full_kernel_name,execution_time,execution_frequency\r\n");
	for (size_t i = 0; i < k; i++) {
		const struct acc *x = &a[idx[i]];
		const char *name = fw->ops.v[idx[i]].name;

		all += x->total_ms;
		bad |= buf_printf(detail, "%s%s%s,%.17g,%ld\r\n", strchr(name, ',') ? "\"" : "",
				  name, strchr(name, ',') ? "\"" : "",
				  x->total_ms / (double)x->calls, x->calls);
	}
	bad |= buf_puts(type, "kernel_type,total_time,execution_frequency,percent\r\n");
	for (size_t i = 0; i < k; i++) { /* types in first appearance (by name order) */
		const char *t = fw->ops.v[idx[i]].op_type ? fw->ops.v[idx[i]].op_type : "";
		double total = 0;
		long calls = 0;
		int dup = 0;

		for (size_t j = 0; j < i && !dup; j++) {
			const char *u = fw->ops.v[idx[j]].op_type ? fw->ops.v[idx[j]].op_type : "";
			dup = strcmp(t, u) == 0;
		}
		if (dup)
			continue;
		for (size_t j = i; j < k; j++) {
			const char *u = fw->ops.v[idx[j]].op_type ? fw->ops.v[idx[j]].op_type : "";
			if (strcmp(t, u) == 0) {
				total += a[idx[j]].total_ms;
				calls += a[idx[j]].calls;
			}
		}
		bad |= buf_printf(type, "%s,%.17g,%ld,%.2f\r\n", t, total, calls,
				  all > 0 ? round(total / all * 100 * 100) / 100 : 0.0);
	}
	free(idx);
	return bad ? NNS_ENOMEM : NNS_OK;
}

int ms_raw_hwts(const unsigned char *b, size_t n, const char *path, const struct ms_raw_fw *fw,
		struct buf *detail, struct buf *type, struct buf *tl, struct buf *mincc,
		struct ms_raw *r)
{
	VEC(struct ev) evs = {0};
	VEC(struct exe) xs = {0};
	struct acc *a = calloc(fw->ops.n ? fw->ops.n : 1, sizeof(*a));
	int rc = NNS_OK, bad_types = 0;

	if (!a)
		return NNS_ENOMEM;
	if (n % REC)
		rc = ms_raw_warn(r, path, (long long)(n - n % REC),
				 "%zu trailing bytes are not a whole %d-byte record: left out",
				 n % REC, REC);
	for (size_t pos = 0; !rc && pos + REC <= n; pos += REC) {
		const unsigned char *p = b + pos;
		unsigned t = p[0] & 7;
		char key[48];
		long op;

		if (is_blank(p))
			continue;
		if (t > 4) {
			if (!bad_types++)
				rc = ms_raw_warn(r, path, (long long)pos,
						 "record type %u is not an hwts log type: left out",
						 t);
			continue;
		}
		if (t > 1)
			continue; /* block records carry no operator time */
		ms_raw_task_key(key, sizeof(key), (long)le(p + 6, 2), (long)le(p + 16, 4));
		if ((op = find_key(fw, key)) < 0)
			continue;
		struct ev e = {t == 0, le(p + 8, 8), (long)le(p + 16, 4), (size_t)op, (size_t)op};
		if (vec_push(&evs, e))
			rc = NNS_ENOMEM;
	}
	if (!rc && bad_types > 1)
		rc = ms_raw_warn(r, path, -1, "%d records of an unknown type in all", bad_types);
	for (size_t i = 0; !rc && i + 1 < evs.n;) {
		const struct ev *s = &evs.v[i], *e = &evs.v[i + 1];

		if (s->start && !e->start && s->op == e->op) {
			struct acc *x = &a[s->op];
			double d = (double)(int64_t)(e->cnt - s->cnt) / 1e5;
			struct exe xe = {s->op, xs.n, s->cnt, (int64_t)(e->cnt - s->cnt)};

			if (vec_push(&xs, xe)) {
				rc = NNS_ENOMEM;
				break;
			}
			if (!x->seen) {
				x->seen = 1;
				x->stream = s->stream;
				x->first_task = s->task;
				x->calls = 1;
				x->total_ms = d;
			} else {
				x->total_ms += d;
				x->calls += s->task == x->first_task;
			}
			i += 2;
		} else {
			i++;
		}
	}
	if (!rc)
		rc = write_tables(fw, a, detail, type);
	if (!rc)
		rc = write_timeline(fw, a, xs.v, xs.n, tl, mincc);
	free(a);
	vec_free(&evs);
	vec_free(&xs);
	return rc;
}
