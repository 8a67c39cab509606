/*
 * csv_out.c - CSV tables beside the JSON of each worker/span, for people
 * and spreadsheets: step_trace.csv (per-step breakdown, MindSpore-style
 * one row per step), op_statistics.csv, kernel_statistics.csv and
 * memory_ops.csv. RFC 4180: comma separated, CRLF-free "\n" rows, fields
 * quoted when needed with inner quotes doubled. Times are microseconds.
 */
#include "output/ms_memory_json.h"
#include "output/output.h"
#include "output/outfile.h"
#include "output/schema.h"

#include <string.h>

/* s between quotes, its quotes doubled. */
static void csv_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

void out_csv_field(FILE *f, const char *s)
{
	size_t n;

	if (!s)
		return;
	n = strlen(s);
	if (n == 0 || (strpbrk(s, ",\"\r\n") == NULL && s[0] != ' ' && s[n - 1] != ' '))
		fputs(s, f);
	else
		csv_quoted(f, s);
}

void out_csv_field_py(FILE *f, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n"))
		fputs(s, f);
	else
		csv_quoted(f, s);
}

/* One schema table: the header of the columns cols, then n rows. */
static void csv_table(FILE *f, const struct sc_table *t, const char *const *cols, const void *rows,
		      size_t n, const struct sc_ctx *x)
{
	sc_csv_header(f, t, cols);
	sc_csv_rows(f, t, rows, n, x, cols);
}

static void step_trace(FILE *f, const struct an_profile *p)
{
#define KEY(role, name, key, title, desc) key,
	static const char *const cols[] = {
	    "name:step", "start_us", "end_us", "total_us", AN_ROLE_TABLE(KEY) NULL,
	};
#undef KEY

	csv_table(f, &sc_steps, cols, p->overview.steps.v, p->overview.steps.n, NULL);
}

/* op_statistics.csv and kernel_statistics.csv: the by-name tables */
static void op_stats(FILE *f, const struct an_profile *p)
{
	const struct sc_ctx x = {p->m, 0, NULL};

	csv_table(f, &sc_operators, sc_op_groups[0].cols, p->ops.by_name.v, p->ops.by_name.n, &x);
}

static void kernel_stats(FILE *f, const struct an_profile *p)
{
	const struct sc_ctx x = {p->m, 0, NULL};

	csv_table(f, &sc_kernels, sc_kernel_groups[0].cols, p->kernels.by_name.v,
		  p->kernels.by_name.n, &x);
}

static void memory_ops(FILE *f, const struct an_profile *p)
{
	sc_csv_header(f, &sc_memory_ops, NULL);
	for (size_t d = 0; d < p->memory.devices.n; d++) {
		const struct an_mem_device *dev = &p->memory.devices.v[d];
		const struct sc_ctx x = {p->m, 0, dev};

		sc_csv_rows(f, &sc_memory_ops, dev->ops.v, dev->ops.n, &x, NULL);
	}
}

int out_write_csv(const char *dir, const struct an_profile *p, struct nns_err *err)
{
	int rc0;
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
	if ((rc0 = out_write_ms_csv(dir, p, err)))
		return rc0;
	return out_write_ms_memory_csv(dir, p, err);
}
