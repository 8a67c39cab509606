/*
 * report_ms_parallel.c - `nnscope report`'s parallel strategy and stage
 * timeline sections for a MindSpore device (analysis/ms_parallel.h): the
 * job's stages with their ranks and the operators that carry a strategy
 * (top N), and per stage of the Marey timeline its devices, operators and
 * time span. They describe the whole job, so they are printed once: under
 * the device of the first parallel strategy rank, and under the first
 * timeline device (device 0 for a saved Marey answer). Nothing for other
 * workers or directories without these files.
 */
#include "analysis/an_ms.h"
#include "analysis/analysis.h"
#include "analysis/ms_parallel.h"
#include "output/report_int.h"
#include "output/table.h"

#include <math.h>
#include <string.h>

static void strategy(FILE *f, const struct ms_par *par, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Stage", TB_RIGHT, 0},	      {"Id", TB_RIGHT, 0},
	    {"Type", TB_LEFT, TB_TRUNC_END},  {"Strategy", TB_LEFT, TB_TRUNC_END},
	    {"Group", TB_LEFT, TB_TRUNC_END}, {"Operator", TB_LEFT, TB_TRUNC_MIDDLE},
	};
	struct table tb;
	size_t shown = 0, more = 0, with = 0;
	char title[96];

	snprintf(title, sizeof(title), "MindSpore parallel strategy (%s, %zu ranks)",
		 par->parallel_type, par->set.files.n);
	rp_section(f, o, title);
	for (size_t i = 0; i < par->set.errors.n; i++)
		fprintf(f, "  (not read: %s)\n", par->set.errors.v[i]);
	for (size_t i = 0; i < par->stages.n; i++) {
		const struct ms_par_stage *s = &par->stages.v[i];

		fprintf(f, "  Stage %d: ranks", s->stage);
		for (size_t k = 0; k < s->rank_ids.n; k++)
			fprintf(f, "%s%d", k ? "," : " ", s->rank_ids.v[k]);
		fprintf(f, ", %zu operators\n", s->ops.n);
	}
	tb_init(&tb, cols, 6);
	for (size_t i = 0; i < par->stages.n; i++) {
		const struct ms_par_stage *s = &par->stages.v[i];

		for (size_t k = 0; k < s->ops.n; k++) {
			const struct ms_par_node *x = &s->ops.v[k];

			if (!x->n->strategy)
				continue;
			with++;
			if (shown >= (size_t)o->top) {
				more++;
				continue;
			}
			shown++;
			tb_cell(&tb, "%d", s->stage);
			tb_cell(&tb, "%d", x->n->topo);
			tb_cell(&tb, "%s", x->n->type);
			tb_cell(&tb, "%s", x->n->strategy);
			{
				char g[128];
				size_t used = 0;

				g[0] = 0;
				for (size_t k2 = 0; k2 < x->groups.n; k2++) {
					int n = snprintf(g + used, sizeof(g) - used, "%s%s",
							 k2 ? "," : "", x->groups.v[k2]);

					if (n < 0 || (size_t)n >= sizeof(g) - used)
						break;
					used += (size_t)n;
				}
				tb_cell(&tb, "%s", g);
			}
			tb_cell(&tb, "%s", x->n->name);
		}
	}
	if (shown) {
		fprintf(f, "  Operators with a sharding strategy: %zu\n", with);
		tb_print(&tb, f, o->width, 2, o->color);
	}
	tb_release(&tb);
	if (more)
		fprintf(f, "  … %zu more operators with a strategy\n", more);
}

static void marey(FILE *f, const struct ms_marey *m, const struct report_opts *o)
{
	static const struct tb_col cols[] = {
	    {"Stage", TB_LEFT, 0},
	    {"Devices", TB_LEFT, TB_TRUNC_END},
	    {"Operators", TB_RIGHT, 0},
	    {"Start (us from minT)", TB_RIGHT, 0},
	    {"End (us from minT)", TB_RIGHT, 0},
	    {"Span us", TB_RIGHT, 0},
	};
	struct table tb;
	char title[128], devs[256];

	snprintf(title, sizeof(title), "MindSpore stage timeline (Marey, step %d, from %s)",
		 m->step, strcmp(m->source, "file") ? "the timelines" : "a saved answer");
	rp_section(f, o, title);
	tb_init(&tb, cols, 6);
	for (size_t i = 0; i < m->stages.n; i++) {
		const struct ms_marey_stage *s = &m->stages.v[i];
		double lo = INFINITY, hi = -INFINITY;
		size_t used = 0;

		devs[0] = 0;
		for (size_t k = 0; k < s->devices.n; k++) {
			int n = snprintf(devs + used, sizeof(devs) - used, "%s%s", k ? "," : "",
					 s->devices.v[k]);

			if (n < 0 || (size_t)n >= sizeof(devs) - used)
				break;
			used += (size_t)n;
		}
		for (size_t k = 0; k < s->data.n; k++) {
			lo = fmin(lo, s->data.v[k].st_min);
			hi = fmax(hi, s->data.v[k].ed_max);
		}
		tb_cell(&tb, "%s", s->name);
		tb_cell(&tb, "%s", devs);
		tb_cell(&tb, "%zu", s->data.n);
		if (s->data.n && m->has_min) {
			tb_cell(&tb, "%.3f", lo - m->min_t);
			tb_cell(&tb, "%.3f", hi - m->min_t);
			tb_cell(&tb, "%.3f", hi - lo);
		} else {
			tb_cell(&tb, "-");
			tb_cell(&tb, "-");
			tb_cell(&tb, "-");
		}
	}
	tb_print(&tb, f, o->width, 2, o->color);
	tb_release(&tb);
}

void rp_view_ms_parallel(FILE *f, const struct an_profile *p, const struct report_opts *o)
{
	struct ms_par par;
	struct ms_marey m;
	struct nns_err err;

	if (!p->ms)
		return;
	ms_par_load(&par, &p->ms->src);
	if (par.rc == NNS_OK && par.set.files.n && par.set.files.v[0].rank == p->ms->src.dev)
		strategy(f, &par, o);
	ms_par_release(&par);
	if (!ms_marey_owner(&p->ms->src))
		return;
	nns_err_clear(&err);
	if (ms_marey_load(&p->ms->src, NULL, &m, &err) == NNS_OK) {
		if (m.stages.n)
			marey(f, &m, o);
		ms_marey_release(&m);
	}
}
