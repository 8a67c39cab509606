/*
 * report.c - terminal views of one worker/span: overview, operators,
 * kernels, memory and modules (report.h). The distributed and diff views
 * are in report_dist.c.
 */
#include "output/report.h"
#include "output/report_int.h"
#include "output/schema.h"
#include "output/table.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int report_parse_views(const char *s, unsigned *views)
{
	static const struct {
		const char *name;
		unsigned bit;
	} names[] = {
	    {"overview", RV_OVERVIEW},
	    {"operators", RV_OPERATORS},
	    {"operator", RV_OPERATORS},
	    {"kernels", RV_KERNELS},
	    {"kernel", RV_KERNELS},
	    {"memory", RV_MEMORY},
	    {"modules", RV_MODULES},
	    {"module", RV_MODULES},
	    {"distributed", RV_DISTRIBUTED},
	    {"all", RV_ALL},
	    {"datapipe", RV_DATAPIPE},
	    {"data_pipeline", RV_DATAPIPE},
	    {"cpu", RV_CPU},
	    /* MindSpore (report_ms*.c): the view names of `analyse` and /api/view too */
	    {"steptrace", RV_MS_STEPTRACE},
	    {"ms_ops", RV_MS_OPS},
	    {"aicore", RV_MS_OPS},
	    {"ms_op_detail", RV_MS_OP_DETAIL},
	    {"aicore_detail", RV_MS_OP_DETAIL},
	    {"aicpu", RV_MS_AICPU},
	    {"ms_aicpu", RV_MS_AICPU},
	    {"flops", RV_MS_FLOPS},
	    {"ms_flops", RV_MS_FLOPS},
	    {"minddata", RV_MS_MINDDATA},
	    {"ms_minddata", RV_MS_MINDDATA},
	    {"dynshape", RV_MS_DYNSHAPE},
	    {"ms_dynshape", RV_MS_DYNSHAPE},
	    {"dynamic_shape", RV_MS_DYNSHAPE},
	    {"gpu_ops", RV_MS_GPU},
	    {"ms_gpu_ops", RV_MS_GPU},
	    {"cpu_ops", RV_MS_CPU},
	    {"ms_cpu_ops", RV_MS_CPU},
	    {"cluster", RV_MS_CLUSTER},
	    {"ms_memory", RV_MS_MEMORY},
	    {"device_memory", RV_MS_MEMORY},
	    {"mindspore", RV_MS_ALL},
	};
	unsigned v = 0;

	while (s && *s) {
		size_t n = strcspn(s, ",");
		int found = 0;

		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == n && strncmp(names[i].name, s, n) == 0) {
				v |= names[i].bit;
				found = 1;
			}
		if (!found)
			return -1;
		s += n;
		if (*s == ',')
			s++;
	}
	if (!v)
		return -1;
	*views = v;
	return 0;
}

/* ---- shared helpers (report_int.h) -------------------------------------- */

void rp_put_safe(FILE *f, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;

	for (size_t i = 0; i < n && u[i]; i++) {
		if (u[i] < 0x20 || u[i] == 0x7f) {
			fputc(' ', f);
		} else if (u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f) {
			fputc(' ', f); /* a C1 control: terminals may obey it */
			i++;
		} else {
			fputc(u[i], f);
		}
	}
}

void rp_heading(FILE *f, const struct report_opts *o, const char *title)
{
	fputs(o->color ? "\n\033[1;36m== " : "\n== ", f);
	rp_put_safe(f, title, strlen(title));
	fputs(o->color ? " ==\033[0m\n" : " ==\n", f);
}

void rp_section(FILE *f, const struct report_opts *o, const char *title)
{
	fputs(o->color ? "\n\033[1m" : "\n", f);
	rp_put_safe(f, title, strlen(title));
	fputs(o->color ? "\033[0m\n" : "\n", f);
}

const char *rp_str(const struct an_profile *p, uint32_t id)
{
	return p->m && id != STRPOOL_NONE ? model_str(p->m, id) : "";
}

static int key_cmp(const void *a, const void *b)
{
	const struct rp_key *x = a, *y = b;

	if (x->key != y->key)
		return x->key > y->key ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void rp_sort_desc(struct rp_key *k, size_t n)
{
	qsort(k, n, sizeof(*k), key_cmp);
}

/* Prints text wrapped to width with a hanging indent. */
void rp_wrap(FILE *f, const char *text, int width, const char *first, int indent)
{
	size_t col, lim = width > indent + 20 ? (size_t)width : 100;
	const char *s = text;

	rp_put_safe(f, first, strlen(first));
	col = (size_t)indent;
	while (*s) {
		size_t wl = strcspn(s, " \n");

		if (col > (size_t)indent && col + 1 + wl > lim) {
			fprintf(f, "\n%*s", indent, "");
			col = (size_t)indent;
		} else if (col > (size_t)indent) {
			fputc(' ', f);
			col++;
		}
		rp_put_safe(f, s, wl);
		for (size_t i = 0; i < wl; i++)
			col += ((unsigned char)s[i] & 0xc0) != 0x80;
		s += wl;
		while (*s == ' ' || *s == '\n')
			s++;
	}
	fputc('\n', f);
}

/* ---- overview ------------------------------------------------------------ */

static void overview_steps(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	const struct an_overview *ov = &p->overview;
	struct tb_col cols[2 + AN_NROLES];
	const char *sel[3 + AN_NROLES];
	int role_col[AN_NROLES],
	    nc = 0, ns = 0, gpu = ov->has_runtime || ov->has_kernel || ov->has_memcpy_or_memset;
	size_t shown = ov->steps.n;
	struct table t;
	char b[48];

	sel[ns++] = "name";
	sel[ns++] = "total_us";
	for (int r = 0; r < AN_NROLES; r++) {
		int show = 1;

		if (r == AN_KERNEL || r == AN_MEMCPY || r == AN_MEMSET || r == AN_RUNTIME)
			show = gpu;
		else if (r == AN_COMM)
			show = ov->has_communication;
		role_col[r] = show;
		if (show)
			sel[ns++] = sc_steps.cols[2 + r].name; /* kernel_us ... other_us */
	}
	sel[ns] = NULL;
	nc = sc_term_cols(cols, 2 + AN_NROLES, &sc_steps, sel, TB_TRUNC_END);
	rp_section(f, o, "Step time breakdown (µs)");
	if (ov->steps.n == 0) {
		fprintf(f, "  (no steps)\n");
		return;
	}
	if (shown > (size_t)o->top * 2)
		shown = (size_t)o->top;
	tb_init(&t, cols, nc);
	for (size_t i = 0; i < shown; i++)
		sc_term_row(&t, &sc_steps, &ov->steps.v[i], NULL, sel);
	tb_rule(&t);
	tb_cell(&t, "Average");
	tb_cell(&t, "%s", tb_fmt_us(b, sizeof(b), ov->avg_total));
	for (int r = 0; r < AN_NROLES; r++)
		if (role_col[r])
			tb_cell(&t, "%s", tb_fmt_us(b, sizeof(b), ov->avg[r]));
	tb_cell(&t, "%%");
	tb_cell(&t, "%s", ov->avg_total > 0 ? "100.00%" : "-");
	for (int r = 0; r < AN_NROLES; r++)
		if (role_col[r])
			tb_cell(&t, "%s",
				ov->avg_total > 0
				    ? tb_fmt_pct(b, sizeof(b), ov->avg[r] / ov->avg_total)
				    : "-");
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (shown < ov->steps.n)
		fprintf(f, "  … %zu more steps (average over all %zu)\n", ov->steps.n - shown,
			ov->steps.n);
	if (ov->steps_dropped)
		fprintf(f, "  %d trailing step(s) without GPU work were dropped\n",
			ov->steps_dropped);
}

/* Rows of schema table t as a terminal table of the columns sel: n rows
 * in the order of k (the first n of rows when k is NULL). */
static void term_rows(FILE *f, const struct report_opts *o, const struct sc_table *t,
		      const void *rows, const struct rp_key *k, size_t n, const struct sc_ctx *x,
		      const char *const *sel, int trunc, int indent)
{
	struct sc_ctx rx = *x;
	struct tb_col cols[16];
	struct table tb;

	tb_init(&tb, cols, sc_term_cols(cols, 16, t, sel, trunc));
	for (size_t i = 0; i < n; i++) {
		rx.index = k ? k[i].idx : i;
		sc_term_row(&tb, t, sc_row(t, rows, rx.index), &rx, sel);
	}
	tb_print(&tb, f, o->width, indent, o->color);
	tb_release(&tb);
}

static void overview_gpus(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	static const char *const sel[] = {
	    "id",	   "name",	    "memory_bytes",	  "compute_capability",
	    "utilization", "sm_efficiency", "achieved_occupancy", "tensor_core_ratio",
	    NULL,
	};
	const struct sc_ctx x = {p->m, 0, NULL};

	if (p->gpus.n == 0)
		return;
	if (an_device_is_npu(p->m)) {
		/* an Ascend device: no CUDA figures (SM, occupancy, tensor cores) */
		rp_section(f, o, "NPU summary (Ascend)");
		for (size_t i = 0; i < p->gpus.n; i++)
			fprintf(f,
				"  NPU %d  busy %.2f%% of the steps (device ops and communication, "
				"%.3f s)\n",
				p->gpus.v[i].id, 100.0 * p->gpus.v[i].utilization,
				(double)p->gpus.v[i].kernel_time / 1e9);
		return;
	}
	rp_section(f, o, "GPU summary");
	term_rows(f, o, &sc_gpus, p->gpus.v, NULL, p->gpus.n, &x, sel, TB_TRUNC_END, 2);
}

static void overview(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	overview_steps(f, p, o);
	overview_gpus(f, p, o);
	rp_section(f, o, "Recommendations");
	if (p->advice.items.n == 0)
		fprintf(f, "  N/A\n");
	for (size_t i = 0; i < p->advice.items.n; i++) {
		const struct an_advice_item *a = &p->advice.items.v[i];
		char first[64];

		snprintf(first, sizeof(first), "  - [%s] ", a->id);
		rp_wrap(f, a->text ? a->text : "", o->width, first, 4);
	}
	if (p->m && (p->m->diag.events_lost || p->m->diag.ranges_closed)) {
		rp_section(f, o, "Collection problems");
		if (p->m->diag.events_lost)
			fprintf(f, "  %lld event(s) were dropped by the collector (buffers full)\n",
				(long long)p->m->diag.events_lost);
		if (p->m->diag.ranges_closed)
			fprintf(
			    f,
			    "  %lld range(s) were still open when the trace ended; closed there\n",
			    (long long)p->m->diag.ranges_closed);
	}
	if (p->m && (p->m->diag.events_skipped || p->m->diag.truncated || p->m->diag.note[0] ||
		     p->m->diag.notes)) {
		rp_section(f, o, "Input problems");
		if (p->m->diag.note[0]) {
			fputs("  ", f);
			rp_put_safe(f, p->m->diag.note, sizeof(p->m->diag.note));
			fputc('\n', f);
		}
		for (size_t i = 0; i < p->m->meta.n; i++) { /* the note's other warnings */
			const char *w = model_str(p->m, p->m->meta.v[i].value);

			if (strcmp(model_str(p->m, p->m->meta.v[i].key), "input_warning") != 0)
				continue;
			fputs("  ", f);
			rp_put_safe(f, w, strlen(w) + 1);
			fputc('\n', f);
		}
		if (p->m->diag.truncated)
			fprintf(f, "  the trace is truncated; only the events before the cut were "
				   "analysed\n");
		if (p->m->diag.events_skipped) {
			fprintf(f, "  %lld event(s) skipped%s",
				(long long)p->m->diag.events_skipped,
				p->m->diag.first_problem[0] ? "; first: " : "");
			rp_put_safe(f, p->m->diag.first_problem, sizeof(p->m->diag.first_problem));
			fputc('\n', f);
		}
		if (p->m->diag.notes) {
			fprintf(f, "  %lld odd spot(s), read without losing an event%s",
				(long long)p->m->diag.notes,
				p->m->diag.first_note[0] ? "; first: " : "");
			rp_put_safe(f, p->m->diag.first_note, sizeof(p->m->diag.first_note));
			fputc('\n', f);
		}
	}
}

/* ---- operators ------------------------------------------------------------ */

/* Prints the o->top rows of a result table with the largest `key` column
 * (an integer or µs column; ties keep row order) and how many are left. */
static void top_rows(FILE *f, const struct report_opts *o, const struct sc_table *t,
		     const void *rows, size_t n, const struct sc_ctx *x, const char *key,
		     const char *const *sel, int trunc, int indent, const char *what)
{
	const struct sc_col *kc = sc_col_find(t, key);
	struct sc_ctx rx = *x;
	struct sc_val v;
	struct rp_key *k;
	size_t shown = n < (size_t)o->top ? n : (size_t)o->top;

	k = malloc(n * sizeof(*k));
	if (!k || !kc) {
		fprintf(f, "  (out of memory)\n");
		free(k);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		rx.index = i;
		sc_get(kc, sc_row(t, rows, i), &rx, &v);
		k[i].idx = i;
		k[i].key = v.i;
	}
	rp_sort_desc(k, n);
	term_rows(f, o, t, rows, k, shown, x, sel, trunc, indent);
	free(k);
	if (shown < n)
		fprintf(f, "%*s… %zu more %s\n", indent, "", n - shown, what);
}

/* A partial result says so: device time that belongs to no operator is
 * missing from the operators' device columns. */
static void unattributed_warning(FILE *f, const struct an_attribution *a)
{
	int64_t n = a->device_no_launch + a->device_unattributed;

	if (n == 0 || a->device_ns <= 0)
		return;
	fprintf(f,
		"  warning: %" PRId64 " of %" PRId64
		" device events (%.0f µs, %.1f%% of device time) "
		"belong to no operator (%" PRId64 " without a launch, %" PRId64
		" launched outside any operator); the device columns leave them out\n",
		n, a->device_events, a->device_unattributed_ns / 1e3,
		100.0 * a->device_unattributed_ns / a->device_ns, a->device_no_launch,
		a->device_unattributed);
}

static void operators(FILE *f, const struct report_opts *o, const struct an_profile *p)
{
	static const char *const sel[] = {
	    "name",	    "calls",	     "device_self_us", "device_total_us",
	    "host_self_us", "host_total_us", "tc_eligible",    "tc_self_ratio",
	    NULL,
	};
	const struct sc_ctx x = {p->m, 0, NULL};
	const struct an_ops *ops = &p->ops;
	char title[128];

	snprintf(title, sizeof(title), "Operators (top %d by %s self time)", o->top,
		 ops->sort_by_device ? "device" : "host");
	rp_section(f, o, title);
	unattributed_warning(f, &p->tree.attr);
	if (ops->by_name.n == 0) {
		fprintf(f, "  (no operators)\n");
		return;
	}
	top_rows(f, o, &sc_operators, ops->by_name.v, ops->by_name.n, &x,
		 ops->sort_by_device ? "device_self_us" : "host_self_us", sel, TB_TRUNC_END, 2,
		 "operators");
}

/* ---- kernels -------------------------------------------------------------- */

static void kernels(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	const struct sc_ctx x = {p->m, 0, NULL};
	const struct an_kernels *kn = &p->kernels;
	char b[48], tc[48], title[160];

	if (kn->tc_used_ratio < 0) /* the devices cannot have NVIDIA tensor cores */
		snprintf(tc, sizeof(tc), "tensor cores n/a");
	else
		snprintf(tc, sizeof(tc), "%.2f%% on tensor cores", kn->tc_used_ratio * 100.0);
	snprintf(title, sizeof(title), "GPU kernels (top %d by total time; %s µs in all, %s)",
		 o->top, tb_fmt_us(b, sizeof(b), (double)kn->total_time), tc);
	rp_section(f, o, title);
	if (kn->by_name.n == 0) {
		fprintf(f, "  (no kernels)\n");
		return;
	}
	top_rows(f, o, &sc_kernels, kn->by_name.v, kn->by_name.n, &x, "total_us",
		 sc_kernel_groups[0].cols, TB_TRUNC_MIDDLE, 2, "kernels");
}

/* ---- memory --------------------------------------------------------------- */

static void memory_device(FILE *f, const struct an_profile *p, const struct an_mem_device *d,
			  const struct report_opts *o)
{
	const struct sc_ctx x = {p->m, 0, d};
	char b[48];

	/* records, not d->events: old traces have no addresses to pair */
	if (d->peak_allocated >= 0)
		fprintf(f, "  %s: peak allocated %s, %lld alloc/free events\n", d->name,
			tb_fmt_bytes(b, sizeof(b), (double)d->peak_allocated),
			(long long)d->records);
	else
		fprintf(f, "  %s: no allocator totals in the trace, %lld alloc/free events\n",
			d->name, (long long)d->records);
	if (d->ops.n)
		top_rows(f, o, &sc_memory_ops, d->ops.v, d->ops.n, &x, "alloc_size",
			 sc_memory_op_cols, TB_TRUNC_END, 4, "operators");
}

static void memory(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	char title[64];

	snprintf(title, sizeof(title), "Memory (top %d operators by allocation size)", o->top);
	rp_section(f, o, title);
	if (p->memory.devices.n == 0)
		fprintf(f, "  (no memory events)\n");
	for (size_t i = 0; i < p->memory.devices.n; i++)
		memory_device(f, p, &p->memory.devices.v[i], o);
}

/* ---- modules -------------------------------------------------------------- */

static void modules(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	/* the name cell is indented by depth here; the rest from the schema */
	static const char *const sel[] = {
	    "name",	    "occurrences",     "operators",	 "host_total_us",
	    "host_self_us", "device_total_us", "device_self_us", NULL,
	};
	const struct sc_ctx x = {p->m, 0, &p->modules};
	struct tb_col cols[7];
	const struct an_modules *md = &p->modules;
	size_t n = md->rows.n, limit = (size_t)o->top * 4, printed = 0, sp = 0;
	uint32_t *first = NULL, *next = NULL, *stack = NULL, *depth = NULL;
	struct table t;

	rp_section(f, o, "Modules");
	if (n == 0) {
		fprintf(f, "  (no module information in the trace)\n");
		return;
	}
	first = malloc(n * sizeof(*first));
	next = malloc(n * sizeof(*next));
	stack = malloc(n * sizeof(*stack));
	depth = malloc(n * sizeof(*depth));
	if (!first || !next || !stack || !depth) {
		fprintf(f, "  (out of memory)\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		first[i] = next[i] = MODEL_NOIDX;
	/* children lists in reverse row order (prepend), so that pushing them
	 * in list order pops the first child first */
	for (size_t i = 0; i < n; i++) {
		uint32_t par = md->rows.v[i].parent;

		if (par != MODEL_NOIDX && par < n && par != i) {
			next[i] = first[par];
			first[par] = (uint32_t)i;
		}
	}
	tb_init(&t, cols, sc_term_cols(cols, 7, &sc_modules, sel, TB_TRUNC_END));
	for (size_t root = 0; root < n && printed < limit; root++) {
		uint32_t par = md->rows.v[root].parent;

		if (par != MODEL_NOIDX && par < n && par != root)
			continue;
		sp = 0;
		stack[sp] = (uint32_t)root;
		depth[sp++] = 0;
		while (sp && printed < limit) {
			uint32_t i = stack[--sp], dep = depth[sp];
			const struct an_module_row *r = &md->rows.v[i];
			char name[1024];

			an_module_name(p->m, r, 1, name, sizeof(name));
			tb_cell(&t, "%*s%s", (int)(dep > 20 ? 40 : dep * 2), "", name);
			sc_term_row(&t, &sc_modules, r, &x, sel + 1);
			printed++;
			if (dep >= 64)
				continue;
			for (uint32_t c = first[i]; c != MODEL_NOIDX && sp < n; c = next[c]) {
				stack[sp] = c;
				depth[sp++] = dep + 1;
			}
		}
	}
	tb_print(&t, f, o->width, 2, o->color);
	tb_release(&t);
	if (printed < n)
		fprintf(f, "  … %zu more module rows (modules.json has them all)\n", n - printed);
out:
	free(first);
	free(next);
	free(stack);
	free(depth);
}

void report_profile(FILE *f, const struct an_profile *p, const char *title, unsigned views,
		    const struct report_opts *o)
{
	if (title)
		rp_heading(f, o, title);
	if (views & RV_OVERVIEW)
		overview(f, p, o);
	if (views & (RV_OVERVIEW | RV_OPERATORS | RV_MS_ALL))
		rp_view_mindspore(f, p, views, o);
	if (views & (RV_OVERVIEW | RV_OPERATORS))
		rp_view_ms_parallel(f, p, o);
	if (views & RV_OPERATORS)
		operators(f, o, p);
	if (views & RV_KERNELS)
		kernels(f, p, o);
	if (views & RV_MEMORY)
		memory(f, p, o);
	if (views & (RV_OVERVIEW | RV_MEMORY | RV_MS_MEMORY))
		rp_view_ms_memory(f, p, (views & RV_MS_MEMORY) != 0, o);
	if (views & RV_MODULES)
		modules(f, p, o);
	if (views & RV_DATAPIPE)
		rp_view_datapipe(f, p, o);
	if (views & RV_CPU)
		rp_view_cpu(f, p, o);
}
