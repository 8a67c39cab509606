/*
 * meta.c - what the collector learns from its environment: rank, world
 * size and local rank from the usual launcher variables, the host name,
 * and mkdir -p for the output directory.
 *
 * Launchers, first match wins: torchrun / torch.distributed (RANK,
 * WORLD_SIZE, LOCAL_RANK), Open MPI (OMPI_COMM_WORLD_RANK, _SIZE,
 * _LOCAL_RANK), MPICH / Intel MPI (PMI_RANK, PMI_SIZE, MPI_LOCALRANKID),
 * PMIx (PMIX_RANK), Slurm (SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID),
 * MindSpore (RANK_ID, RANK_SIZE, DEVICE_ID).
 */
#include "collector/collector.h"
#include "common/num.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long env_long(const char *name)
{
	const char *s = getenv(name);
	int64_t v;

	if (!s || num_i64(s, strlen(s), &v, NULL) || v < 0 || v > LONG_MAX)
		return -1;
	return (long)v;
}

void nns_rank_from_env(struct nns_rankinfo *r)
{
	static const struct {
		const char *source, *rank, *size, *local;
	} fam[] = {
	    {"torch", "RANK", "WORLD_SIZE", "LOCAL_RANK"},
	    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
	     "OMPI_COMM_WORLD_LOCAL_RANK"},
	    {"pmi", "PMI_RANK", "PMI_SIZE", "MPI_LOCALRANKID"},
	    {"pmix", "PMIX_RANK", "PMIX_SIZE", "PMIX_LOCAL_RANK"},
	    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
	    {"mindspore", "RANK_ID", "RANK_SIZE", "DEVICE_ID"},
	};

	r->rank = r->world_size = r->local_rank = -1;
	r->source = "";
	for (size_t i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
		long rank = env_long(fam[i].rank);

		if (rank < 0)
			continue;
		r->rank = rank;
		r->world_size = env_long(fam[i].size);
		r->local_rank = env_long(fam[i].local);
		r->source = fam[i].source;
		return;
	}
}

void nns_hostname(char *dst, size_t size)
{
	if (gethostname(dst, size) != 0 || !dst[0])
		snprintf(dst, size, "localhost");
	dst[size - 1] = '\0';
	for (char *c = dst; *c; c++) /* keep the file name simple */
		if (*c == '/' || *c == ' ')
			*c = '-';
}
