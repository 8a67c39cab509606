/*
 * an_modules.h - the module view of a worker (AN_PASS_MODULES,
 * modules.c): nn.Module instances with their host and device times.
 */
#ifndef NNS_ANALYSIS_AN_MODULES_H
#define NNS_ANALYSIS_AN_MODULES_H

#include "common/err.h"
#include "common/vec.h"
#include "model/model.h"

struct an_profile;

struct an_module_row {
	uint32_t name;
	int64_t module_id;
	uint32_t parent; /* row index of the parent module, MODEL_NOIDX at top */
	int64_t occurrences;
	int64_t operators;
	int64_t host_self, host_total, dev_self, dev_total;
	double avg_duration; /* ns */
	int backward;	     /* 1: synthetic "<name>.backward" row built from
			      * fwdbwd flows (tb_plugin BackwardNode); name is
			      * the forward module's string id, so display it
			      * with an_module_name() */
};

struct an_modules {
	VEC(struct an_module_row) rows;
};

/* A module row's display name: its name without tb_plugin's "nn.Module: "
 * prefix (a pointer into the model's string). */
const char *an_module_label(const struct model *m, const struct an_module_row *r);
/* Writes a row's name into buf: an_module_label() when strip is non-zero,
 * else the full name, followed by ".backward" for backward rows. Returns
 * snprintf's result. */
int an_module_name(const struct model *m, const struct an_module_row *r, int strip, char *buf,
		   size_t n);

/* AN_PASS_MODULES: fills p->modules. */
int an_modules_compute(struct an_profile *p, struct nns_err *err);

#endif
