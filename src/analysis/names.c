/*
 * names.c - name predicates used to classify events (names.h), and the
 * profile's memo of each name's classes. The memos are filled for every
 * event name before the first pass (an_names_prepare), so passes that run
 * at the same time only read them; a name no event carries is classified
 * on first use (the same value whoever writes it).
 */
#include "names.h"
#include "analysis.h"
#include "an_tensorcore.h"

#include <stdlib.h>
#include <string.h>

static int starts(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

static int ends(const char *s, const char *p)
{
	size_t n = strlen(s), m = strlen(p);
	return n >= m && memcmp(s + n - m, p, m) == 0;
}

int an_is_step_name(const char *name, long long *num)
{
	char *end;
	long long v;

	if (!starts(name, "ProfilerStep#"))
		return 0;
	v = strtoll(name + 13, &end, 10);
	if (num)
		*num = end == name + 13 ? -1 : v;
	return 1;
}

int an_is_dataloader_name(const char *name)
{
	return (starts(name, "enumerate(DataLoader)#") && ends(name, ".__next__")) ||
	       starts(name, "enumerate(DataPipe)#");
}

int an_is_comm_name(const char *name, int *gloo)
{
	/* tb_plugin knows {nccl,gloo}:{broadcast,reduce,all_reduce,all_gather,
	 * reduce_scatter}; PyTorch 2.x adds _all_gather_base,
	 * _reduce_scatter_base, all_to_all, send, recv, coalesced variants.
	 * Any "nccl:" / "gloo:" range is a collective. */
	int g = starts(name, "gloo:");

	if (gloo)
		*gloo = g;
	return (g || starts(name, "nccl:")) && name[5] != '\0';
}

int an_is_optimizer_name(const char *name)
{
	return starts(name, "Optimizer.");
}

static unsigned classify(const char *name)
{
	unsigned f = 0;

	if (an_is_step_name(name, NULL))
		f |= AN_NAME_STEP;
	if (an_is_dataloader_name(name))
		f |= AN_NAME_DATALOADER;
	if (starts(name, "enumerate(DataLoader)#"))
		f |= AN_NAME_DL_PREFIX;
	if (an_is_comm_name(name, NULL))
		f |= AN_NAME_COMM;
	if (an_is_optimizer_name(name))
		f |= AN_NAME_OPTIMIZER;
	if (strcmp(name, "DataParallel.forward") == 0)
		f |= AN_NAME_DP;
	if (strcmp(name, "DistributedDataParallel.forward") == 0)
		f |= AN_NAME_DDP;
	if (an_tc_op_eligible(name))
		f |= AN_NAME_TC_OP;
	return f;
}

unsigned an_name_flags(struct an_profile *p, uint32_t name)
{
	const struct model *m = p->m;

	if (name >= m->strings.count)
		return 0;
	if (!p->name_flags) {
		p->name_flags = calloc(m->strings.count + 1, sizeof(*p->name_flags));
		if (!p->name_flags)
			return classify(model_str(m, name));
	}
	/* the top bit marks "computed" */
	if (!(p->name_flags[name] & 0x8000))
		p->name_flags[name] = (uint16_t)(classify(model_str(m, name)) | 0x8000);
	return p->name_flags[name] & 0x7fff;
}

int an_names_prepare(struct an_profile *p)
{
	const struct model *m = p->m;
	size_t i;
	int by_strings;

	if (p->name_flags && p->tc_cache)
		return NNS_OK;
	if (!p->name_flags &&
	    !(p->name_flags = calloc(m->strings.count + 1, sizeof(*p->name_flags))))
		return NNS_ENOMEM;
	if (!p->tc_cache && !(p->tc_cache = calloc(m->strings.count + 1, 1)))
		return NNS_ENOMEM;
	/* every string when they are far fewer than the events (flags are a
	 * function of the text: those of strings no event is named by are
	 * never read), else the names the events use; the tensor-core cache
	 * for the kernels' names */
	by_strings = m->strings.count * 4 < m->events.n;
	for (i = 0; by_strings && i < m->strings.count; i++)
		(void)an_name_flags(p, (uint32_t)i);
	if (by_strings && !(m->kinds & MODEL_KB(MK_KERNEL)))
		return NNS_OK;
	for (i = 0; i < m->events.n; i++) {
		const struct model_event *e = &m->events.v[i];
		if (e->name >= m->strings.count)
			continue;
		if (!(p->name_flags[e->name] & 0x8000))
			(void)an_name_flags(p, e->name);
		if (e->kind == MK_KERNEL && !p->tc_cache[e->name])
			(void)an_tc_kernel_id(p, e->name);
	}
	return NNS_OK;
}
