/*
 * report_ms_memory.c - the device memory part of `nnscope report` for a
 * MindSpore device with a memory_usage_<dev>.pb (p->ms->mem, analysis/
 * ms_memory.h): MindInsight's summary (capacity, peak, static memory,
 * allocations), then per graph the peak with the node it is reached at, the
 * nodes that allocate most (the per-op breakdown) and the largest tensors
 * live at the peak with their lifetimes. Other workers print nothing.
 */
#include "analysis/an_ms.h"
#include "output/report_int.h"
#include "output/table.h"

#include <stdlib.h>

static void top_nodes(FILE *f, const struct ms_mem_file *mf, const struct ms_mem_gres *gr,
		      const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Node", TB_LEFT, TB_TRUNC_MIDDLE}, {"Index", TB_RIGHT, 0},
	    {"Allocates", TB_RIGHT, 0},		{"Tensors", TB_RIGHT, 0},
	    {"Usage after", TB_RIGHT, 0},
	};
	struct rp_key *k = malloc((gr->nnode ? gr->nnode : 1) * sizeof(*k));
	size_t shown = gr->nnode < (size_t)o->top ? gr->nnode : (size_t)o->top;
	struct table tb;
	char b[48];

	if (!k)
		return;
	for (size_t i = 0; i < gr->nnode; i++)
		k[i] = (struct rp_key){gr->nodes[i].size, i};
	rp_sort_desc(k, gr->nnode);
	tb_init(&tb, cols, 5);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_mem_nrow *nr = &gr->nodes[k[i].idx];

		tb_cell(&tb, "%s", ms_mem_str(mf, mf->nodes.v[nr->n].name));
		tb_cell(&tb, "%zu", k[i].idx);
		tb_cell(&tb, "%s", tb_fmt_bytes(b, sizeof(b), (double)nr->size));
		tb_cell(&tb, "%u", nr->allocations);
		tb_cell(&tb, "%s", tb_fmt_bytes(b, sizeof(b), (double)gr->lines[k[i].idx]));
	}
	tb_print(&tb, f, o->width, 4, o->color);
	tb_release(&tb);
	free(k);
}

static void peak_tensors(FILE *f, const struct ms_mem_file *mf, const struct ms_mem_gres *gr,
			 const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Tensor live at the peak", TB_LEFT, TB_TRUNC_MIDDLE},
	    {"Size", TB_RIGHT, 0},
	    {"Lifetime", TB_LEFT, 0},
	    {"Nodes", TB_RIGHT, 0},
	};
	size_t n = ms_mem_breakdown(gr, (size_t)gr->peak_node, NULL, 0), *bd, shown;
	struct rp_key *k;
	struct table tb;
	char b[48];

	if (!n)
		return;
	bd = malloc(n * sizeof(*bd));
	k = malloc(n * sizeof(*k));
	if (!bd || !k)
		goto out;
	ms_mem_breakdown(gr, (size_t)gr->peak_node, bd, n);
	for (size_t i = 0; i < n; i++)
		k[i] = (struct rp_key){(int64_t)mf->tensors.v[gr->tensors[bd[i]].t].size, bd[i]};
	rp_sort_desc(k, n);
	shown = n < (size_t)o->top ? n : (size_t)o->top;
	tb_init(&tb, cols, 4);
	for (size_t i = 0; i < shown; i++) {
		const struct ms_mem_trow *r = &gr->tensors[k[i].idx];
		const struct ms_mem_tensor *t = &mf->tensors.v[r->t];

		tb_cell(&tb, "%s:%lld", ms_mem_str(mf, mf->nodes.v[gr->nodes[r->source].n].name),
			(long long)r->out_idx);
		tb_cell(&tb, "%s", tb_fmt_bytes(b, sizeof(b), (double)t->size));
		tb_cell(&tb, "%s", ms_mem_str(mf, t->life_long));
		tb_cell(&tb, "%lld-%lld", (long long)r->from, (long long)r->to - 1);
	}
	tb_print(&tb, f, o->width, 4, o->color);
	tb_release(&tb);
	if (shown < n)
		fprintf(f, "    … %zu more tensors live there\n", n - shown);
out:
	free(bd);
	free(k);
}

void rp_view_ms_memory(FILE *f, const struct an_profile *p, int asked, const struct report_opts *o)
{
	const struct ms_mem *m = p->ms ? &p->ms->mem : NULL;
	const struct ms_mem_result *r;
	char b1[48], b2[48], b3[48];

	if (m && m->rc == NNS_ENOTFOUND && asked)
		fprintf(f, "\n(no memory_usage_%d.pb)\n", p->ms->src.dev);
	if (!m || m->rc == NNS_ENOTFOUND)
		return;
	rp_section(f, o, "MindSpore device memory (memory_usage, execution order)");
	if (m->rc) {
		fprintf(f, "  (%s)\n", m->err.msg);
		return;
	}
	r = &m->res;
	fprintf(f, "  Capacity %s, peak %s, static %s; %llu tensors allocated\n",
		tb_fmt_bytes(b1, sizeof(b1), (double)r->capacity),
		tb_fmt_bytes(b2, sizeof(b2), (double)r->peak),
		tb_fmt_bytes(b3, sizeof(b3), (double)r->static_mem),
		(unsigned long long)r->allocations);
	for (size_t i = 0; i < r->graphs.n; i++) {
		const struct ms_mem_gres *gr = &r->graphs.v[i];
		const struct ms_mem_graph *g = &m->file.graphs.v[gr->g];

		fprintf(f, "  Graph %lld: %zu nodes, %zu tensors, peak %s", (long long)g->graph_id,
			gr->nnode, gr->ntensor, tb_fmt_bytes(b1, sizeof(b1), (double)gr->peak));
		if (gr->peak_node < 0) {
			fputc('\n', f);
			continue;
		}
		fprintf(f, " at node %lld (", (long long)gr->peak_node);
		rp_put_safe(
		    f, ms_mem_str(&m->file, m->file.nodes.v[gr->nodes[gr->peak_node].n].name), 256);
		fputs(")\n", f);
		top_nodes(f, &m->file, gr, o);
		peak_tensors(f, &m->file, gr, o);
	}
}
