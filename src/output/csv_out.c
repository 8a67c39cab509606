/*
 * csv_out.c - CSV tables beside the JSON of each worker/span, for people
 * and spreadsheets: step_trace.csv (per-step breakdown, MindSpore-style
 * one row per step), op_statistics.csv, kernel_statistics.csv and
 * memory_ops.csv. RFC 4180: comma separated, CRLF-free "\n" rows, fields
 * quoted when needed with inner quotes doubled. Times are microseconds.
 */
#include "output/output.h"
#include "output/outfile.h"

#include <inttypes.h>
#include <string.h>

void out_csv_field(FILE *f, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (n == 0 || (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' && s[n - 1] != ' ')) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

static void csv_sep(FILE *f)
{
	fputc(',', f);
}

static void csv_double(FILE *f, double v)
{
	char b[40];

	if (v != v) /* NaN: empty field */
		return;
	jsonw_fmt_double(b, sizeof(b), v);
	if (strcmp(b, "null") != 0)
		fputs(b, f);
}

static void csv_us(FILE *f, int64_t ns)
{
	csv_sep(f);
	csv_double(f, (double)ns / 1000.0);
}

static void csv_int(FILE *f, int64_t v)
{
	csv_sep(f);
	fprintf(f, "%" PRId64, v);
}

static void header(FILE *f, const char *const *cols)
{
	for (size_t i = 0; cols[i]; i++) {
		if (i)
			csv_sep(f);
		out_csv_field(f, cols[i]);
	}
	fputc('\n', f);
}

static void step_trace(FILE *f, const struct an_profile *p)
{
	static const char *const cols[] = {
	    "step",	  "start_us",	   "end_us",	  "total_us",
	    "kernel_us",  "memcpy_us",	   "memset_us",	  "communication_us",
	    "runtime_us", "dataloader_us", "cpu_exec_us", "other_us",
	    NULL,
	};

	header(f, cols);
	for (size_t i = 0; i < p->overview.steps.n; i++) {
		const struct an_step *s = &p->overview.steps.v[i];

		out_csv_field(f, s->name);
		csv_us(f, s->start);
		csv_us(f, s->end);
		csv_us(f, s->end - s->start);
		for (int r = 0; r < AN_NROLES; r++)
			csv_us(f, s->cost[r]);
		fputc('\n', f);
	}
}

static void op_stats(FILE *f, const struct an_profile *p)
{
	static const char *const cols[] = {
	    "name",	      "calls",
	    "host_self_us",   "host_total_us",
	    "device_self_us", "device_total_us",
	    "tc_eligible",    "tc_self_ratio",
	    "tc_total_ratio", NULL,
	};

	header(f, cols);
	for (size_t i = 0; i < p->ops.by_name.n; i++) {
		const struct an_op_row *r = &p->ops.by_name.v[i];

		out_csv_field(f, out_str(p->m, r->name));
		csv_int(f, r->calls);
		csv_us(f, r->host_self);
		csv_us(f, r->host_total);
		csv_us(f, r->dev_self);
		csv_us(f, r->dev_total);
		csv_sep(f);
		fputs(r->tc_eligible ? "true" : "false", f);
		csv_sep(f);
		csv_double(f, r->dev_self ? (double)r->tc_self / (double)r->dev_self : 0.0);
		csv_sep(f);
		csv_double(f, r->dev_total ? (double)r->tc_total / (double)r->dev_total : 0.0);
		fputc('\n', f);
	}
}

static void kernel_stats(FILE *f, const struct an_profile *p)
{
	static const char *const cols[] = {
	    "name",	   "calls",  "total_us",	   "mean_us",
	    "min_us",	   "max_us", "mean_blocks_per_sm", "mean_occupancy",
	    "tensor_core", NULL,
	};

	header(f, cols);
	for (size_t i = 0; i < p->kernels.by_name.n; i++) {
		const struct an_kernel_row *r = &p->kernels.by_name.v[i];

		out_csv_field(f, out_str(p->m, r->name));
		csv_int(f, r->calls);
		csv_us(f, r->total);
		csv_sep(f);
		csv_double(f, r->calls ? (double)r->total / 1000.0 / (double)r->calls : 0.0);
		csv_us(f, r->min);
		csv_us(f, r->max);
		csv_sep(f);
		csv_double(f, r->mean_blocks_per_sm);
		csv_sep(f);
		csv_double(f, r->mean_occupancy);
		csv_sep(f);
		fputs(r->tensor_core ? "true" : "false", f);
		fputc('\n', f);
	}
}

static void memory_ops(FILE *f, const struct an_profile *p)
{
	static const char *const cols[] = {
	    "device",
	    "name",
	    "calls",
	    "size_increase",
	    "self_size_increase",
	    "alloc_count",
	    "self_alloc_count",
	    "alloc_size",
	    "self_alloc_size",
	    NULL,
	};

	header(f, cols);
	for (size_t d = 0; d < p->memory.devices.n; d++) {
		const struct an_mem_device *dev = &p->memory.devices.v[d];

		for (size_t i = 0; i < dev->ops.n; i++) {
			const struct an_mem_op_row *r = &dev->ops.v[i];

			out_csv_field(f, dev->name);
			csv_sep(f);
			out_csv_field(f, out_str(p->m, r->name));
			csv_int(f, r->calls);
			csv_int(f, r->size_increase);
			csv_int(f, r->self_size_increase);
			csv_int(f, r->alloc_count);
			csv_int(f, r->self_alloc_count);
			csv_int(f, r->alloc_size);
			csv_int(f, r->self_alloc_size);
			fputc('\n', f);
		}
	}
}

int out_write_csv(const char *dir, const struct an_profile *p, struct nns_err *err)
{
	static const struct {
		const char *name;
		void (*fn)(FILE *, const struct an_profile *);
	} tables[] = {
	    {"step_trace.csv", step_trace},
	    {"op_statistics.csv", op_stats},
	    {"kernel_statistics.csv", kernel_stats},
	    {"memory_ops.csv", memory_ops},
	};

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		struct out_file of;
		int rc = out_file_open(&of, dir, tables[i].name, err);

		if (rc)
			return rc;
		tables[i].fn(of.f, p);
		rc = out_file_commit(&of, err);
		if (rc)
			return rc;
	}
	return out_write_ms_csv(dir, p, err);
}
