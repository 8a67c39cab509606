/*
 * model_bytes.c - what one event costs in memory: loads a trace with the
 * importer the CLI uses (load_trace, default options but no memory budget),
 * computes its profile (every analysis pass) and prints one line:
 *
 *   events N model_bytes M model_B_per_event B peak_rss_bytes R rss_B_per_event E
 *
 * model_bytes is model_mem_bytes() of the finalized model (rows, strings,
 * the index); peak RSS is the process's, load and analysis together. The
 * Kineto importer's memory budget (kineto_internal.h, KP_AFTER_EVENT) is
 * built from these figures; bench/ingest prints them for its inputs.
 *
 * usage: model_bytes TRACE
 */
#include "analysis/analysis.h"
#include "importers/load.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

int main(int argc, char **argv)
{
	struct kineto_opts ko;
	struct an_profile p;
	struct nns_err err;
	struct rusage ru;
	struct model m;
	size_t bytes;
	double n;
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: model_bytes TRACE\n");
		return 2;
	}
	memset(&ko, 0, sizeof(ko));
	ko.max_memory = -1; /* measure, do not refuse */
	ko.max_ratio = -1;
	nns_err_clear(&err);
	rc = load_trace(&m, argv[1], &ko, &err);
	if (rc && rc != NNS_ETRUNC) {
		fprintf(stderr, "model_bytes: %s\n", err.msg);
		return 1;
	}
	bytes = model_mem_bytes(&m);
	memset(&p, 0, sizeof(p));
	nns_err_clear(&err);
	if (an_profile_compute(&p, &m, &err)) {
		fprintf(stderr, "model_bytes: %s\n", err.msg);
		model_release(&m);
		return 1;
	}
	getrusage(RUSAGE_SELF, &ru);
	n = m.events.n ? (double)m.events.n : 1;
	printf("events %zu model_bytes %zu model_B_per_event %.1f peak_rss_bytes %lld "
	       "rss_B_per_event %.1f\n",
	       m.events.n, bytes, (double)bytes / n, (long long)ru.ru_maxrss * 1024,
	       (double)ru.ru_maxrss * 1024 / n);
	an_profile_release(&p);
	model_release(&m);
	return 0;
}
