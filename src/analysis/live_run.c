/*
 * live_run.c - one refresh's verdict of a whole run (live_run.h).
 */
#include "analysis/live_run.h"

#include <stdlib.h>

int live_run_check(struct live_run_trace *t, size_t n, size_t last, struct live_ranks *ranks,
		   struct live_alerts *alerts, struct nns_err *err)
{
	struct live **ls = calloc(n + 1, sizeof(*ls));
	const char **ws = calloc(n + 1, sizeof(*ws));
	uint64_t before = alerts ? alerts->fired : 0;
	size_t k = 0;
	int any_rank = 0, rc = NNS_OK;

	if (!ls || !ws) {
		rc = nns_err_set(err, NNS_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		any_rank |= t[i].l->rank >= 0;
	for (size_t i = 0; i < n; i++) {
		t[i].is_rank = !any_rank || t[i].l->rank >= 0;
		t[i].rank = n == 1 ? -1 : t[i].l->rank >= 0 ? t[i].l->rank : (int64_t)i;
		if (t[i].is_rank) {
			ls[k] = t[i].l;
			ws[k++] = t[i].worker;
		}
	}
	if ((rc = live_ranks_compute(ls, ws, k, last, ranks, err)))
		goto out;
	for (size_t i = 0; alerts && i < n && rc >= 0; i++)
		rc = live_alerts_check(alerts, t[i].l, t[i].rank, NULL);
	if (alerts && rc >= 0 && ranks->n > 1)
		rc = live_alerts_check(alerts, NULL, -1, ranks);
	if (rc < 0) {
		nns_err_set(err, NNS_ENOMEM, "out of memory");
		goto out;
	}
	rc = alerts ? (int)(alerts->fired - before) : 0;
out:
	free(ls);
	free(ws);
	return rc;
}
