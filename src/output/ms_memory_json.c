/*
 * ms_memory_json.c - writes the device memory document (ms_memory_json.h)
 * from an ms_mem computed by analysis/ms_memory.c; only writes.
 */
#include "output/ms_memory_json.h"
#include "analysis/an_ms.h"
#include "output/outfile.h"
#include "output/output.h"

#include <stdio.h>
#include <stdlib.h>

#define GIB 1073741824.0

static void knode(struct jsonw *w, const char *key, int64_t v)
{
	if (v < 0)
		jsonw_knull(w, key);
	else
		jsonw_kint(w, key, v);
}

static void tensor(struct jsonw *w, const struct ms_mem_file *f, const struct ms_mem_gres *gr,
		   const struct ms_mem_trow *r, const struct ms_fw *fw)
{
	const struct ms_mem_tensor *t = &f->tensors.v[r->t];
	const struct ms_tensor *x = r->fw_tensor >= 0 ? &fw->t.v[r->fw_tensor] : NULL;
	char name[1100];

	jsonw_obj_begin(w);
	jsonw_kint(w, "tensor_id", (int64_t)t->tensor_id);
	if (r->source >= 0) {
		const char *nn = ms_mem_str(f, f->nodes.v[gr->nodes[r->source].n].name);

		snprintf(name, sizeof(name), "%.1024s:%lld", nn, (long long)r->out_idx);
		jsonw_kstr(w, "name", name);
		jsonw_kstr(w, "source_node", nn);
	} else {
		jsonw_kstr(w, "name", "");
		jsonw_knull(w, "source_node");
	}
	jsonw_kint(w, "size_bytes", (int64_t)t->size);
	jsonw_kstr(w, "type", r->source >= 0 ? "output" : ms_mem_str(f, t->type));
	jsonw_kstr(w, "proto_type", ms_mem_str(f, t->type));
	jsonw_kstr(w, "life_long", ms_mem_str(f, t->life_long));
	jsonw_kdouble(w, "life_start", (double)r->life_start); /* uint64 in the file */
	jsonw_kdouble(w, "life_end", (double)r->life_end);
	knode(w, "live_from", r->from);
	knode(w, "live_to", r->from < 0 ? -1 : r->to);
	if (x && !x->shape_null) {
		jsonw_key(w, "shape");
		jsonw_arr_begin(w);
		for (uint32_t k = 0; k < x->ndim; k++)
			jsonw_int(w, fw->dims.v[x->dim0 + k]);
		jsonw_arr_end(w);
	} else {
		jsonw_knull(w, "shape");
	}
	jsonw_kstr(w, "format", x ? ms_fw_str(fw, x->format) : NULL);
	jsonw_kstr(w, "data_type", x ? ms_fw_str(fw, x->dtype) : NULL);
	jsonw_obj_end(w);
}

static void graph(struct jsonw *w, const struct ms_mem_file *f, const struct ms_mem_gres *gr,
		  const struct ms_fw *fw)
{
	const struct ms_mem_graph *g = &f->graphs.v[gr->g];
	size_t nb, *bd = NULL;

	jsonw_obj_begin(w);
	jsonw_kint(w, "graph_id", g->graph_id);
	jsonw_kint(w, "static_mem_bytes", (int64_t)g->static_mem);
	jsonw_kint(w, "node_count", (int64_t)gr->nnode);
	jsonw_kint(w, "tensor_count", (int64_t)gr->ntensor);
	knode(w, "fp_start", gr->fp_start);
	knode(w, "bp_end", gr->bp_end);
	jsonw_kint(w, "peak_bytes", gr->peak);
	knode(w, "peak_node", gr->peak_node);
	jsonw_key(w, "lines_bytes");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < gr->nnode; i++)
		jsonw_int(w, gr->lines[i]);
	jsonw_arr_end(w);
	jsonw_key(w, "nodes");
	jsonw_arr_begin(w);
	for (size_t i = 0; i < gr->nnode; i++) {
		const struct ms_mem_nrow *nr = &gr->nodes[i];
		const struct ms_mem_node *nd = &f->nodes.v[nr->n];

		jsonw_obj_begin(w);
		jsonw_kint(w, "index", (int64_t)i);
		jsonw_kdouble(w, "node_id", (double)nd->node_id);
		jsonw_kstr(w, "name", ms_mem_str(f, nd->name));
		jsonw_kstr(w, "fullname",
			   nr->fw_op >= 0 ? ms_fw_str(fw, fw->ops.v[nr->fw_op].name) : "");
		jsonw_kint(w, "allocations", nr->allocations);
		jsonw_kint(w, "size_bytes", nr->size);
		jsonw_kint(w, "allocated_bytes", nr->allocated);
		jsonw_obj_end(w);
	}
	jsonw_arr_end(w);
	jsonw_key(w, "tensors");
	jsonw_arr_begin(w);
	for (size_t k = 0; k < gr->ntensor; k++)
		tensor(w, f, gr, &gr->tensors[k], fw);
	jsonw_arr_end(w);
	jsonw_key(w, "peak_breakdown");
	jsonw_arr_begin(w);
	if (gr->peak_node >= 0) {
		nb = ms_mem_breakdown(gr, (size_t)gr->peak_node, NULL, 0);
		if (nb && (bd = malloc(nb * sizeof(*bd)))) {
			ms_mem_breakdown(gr, (size_t)gr->peak_node, bd, nb);
			for (size_t k = 0; k < nb; k++)
				jsonw_int(w, (int64_t)bd[k]);
			free(bd);
		}
	}
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_ms_memory(struct jsonw *w, const struct ms_mem *m, const struct ms_fw *fw, int dev)
{
	const struct ms_mem_result *r = &m->res;
	char src[64];

	jsonw_obj_begin(w);
	snprintf(src, sizeof(src), "memory_usage_%d.pb", dev);
	jsonw_kstr(w, "source", m->rc == NNS_ENOTFOUND ? NULL : src);
	if (m->rc == NNS_OK) {
		jsonw_key(w, "summary");
		jsonw_obj_begin(w);
		jsonw_kdouble(w, "capacity_bytes", (double)r->capacity);
		jsonw_kdouble(w, "capacity_gb", (double)r->capacity / GIB);
		jsonw_kint(w, "peak_mem_bytes", r->peak);
		jsonw_kdouble(w, "peak_mem_gb", (double)r->peak / GIB);
		jsonw_kint(w, "static_mem_bytes", r->static_mem);
		jsonw_kdouble(w, "static_mem_gb", (double)r->static_mem / GIB);
		jsonw_kint(w, "allocations", (int64_t)r->allocations);
		jsonw_kint(w, "deallocations", (int64_t)r->deallocations);
		jsonw_kint(w, "skipped_graphs", (int64_t)r->skipped);
		jsonw_obj_end(w);
	} else {
		jsonw_knull(w, "summary");
	}
	jsonw_key(w, "graphs");
	jsonw_arr_begin(w);
	for (size_t i = 0; m->rc == NNS_OK && i < r->graphs.n; i++)
		graph(w, &m->file, &r->graphs.v[i], fw);
	jsonw_arr_end(w);
	jsonw_key(w, "errors");
	jsonw_arr_begin(w);
	if (m->rc && m->rc != NNS_ENOTFOUND)
		jsonw_str(w, m->err.msg);
	jsonw_arr_end(w);
	jsonw_obj_end(w);
}

void out_json_ms_memory_view(struct jsonw *w, const struct an_profile *p)
{
	const struct ms_profile *mp = p->ms;

	if (!mp) {
		jsonw_obj_begin(w);
		jsonw_kstr(w, "error", "not a MindSpore device");
		jsonw_obj_end(w);
		return;
	}
	out_json_ms_memory(w, &mp->mem, mp->opd_rc ? NULL : &mp->opd.fw, mp->src.dev);
}

int out_write_ms_memory_csv(const char *dir, const struct an_profile *p, struct nns_err *err)
{
	const struct ms_profile *mp = p->ms;
	const struct ms_fw *fw;
	struct out_file of;
	int rc;

	if (!mp || mp->mem.rc != NNS_OK)
		return NNS_OK;
	fw = mp->opd_rc ? NULL : &mp->opd.fw;
	if ((rc = out_file_open(&of, dir, "ms_memory_nodes.csv", err)))
		return rc;
	fputs("graph_id,index,node_id,name,fullname,allocations,size_bytes,allocated_bytes,"
	      "usage_bytes\n",
	      of.f);
	for (size_t g = 0; g < mp->mem.res.graphs.n; g++) {
		const struct ms_mem_gres *gr = &mp->mem.res.graphs.v[g];
		const struct ms_mem_file *f = &mp->mem.file;

		for (size_t i = 0; i < gr->nnode; i++) {
			const struct ms_mem_nrow *nr = &gr->nodes[i];
			const struct ms_mem_node *nd = &f->nodes.v[nr->n];

			fprintf(of.f, "%lld,%zu,%llu,", (long long)f->graphs.v[gr->g].graph_id, i,
				(unsigned long long)nd->node_id);
			out_csv_field(of.f, ms_mem_str(f, nd->name));
			fputc(',', of.f);
			out_csv_field(of.f, fw && nr->fw_op >= 0
						? ms_fw_str(fw, fw->ops.v[nr->fw_op].name)
						: "");
			fprintf(of.f, ",%u,%lld,%lld,%lld\n", nr->allocations, (long long)nr->size,
				(long long)nr->allocated, (long long)gr->lines[i]);
		}
	}
	return out_file_commit(&of, err);
}
