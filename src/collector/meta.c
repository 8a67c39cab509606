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
 *
 * Roles (docs/ARCHITECTURE.md, "Launchers and ranks"): a process whose
 * command line is a launcher (torchrun, python -m torch.distributed.run or
 * .launch, mpirun, mpiexec, orterun, prterun, srun and their node daemons
 * orted, prted, hydra_pmi_proxy) is a "launcher": it has no rank, even one
 * an outer launcher gave it, and its trace is named <host>_launcher_<pid>.
 * A process with a rank is a "rank" (<host>_rank<R>_<pid>); a forked child
 * whose environment still holds its parent's rank (a DataLoader worker) is
 * a "helper" of that rank, not the rank itself (<host>_<pid>). The
 * analysis leaves launchers and helpers out of the cluster's rank table.
 */
#include "collector/collector.h"
#include "common/num.h"

#include <errno.h>
#include <fcntl.h>
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

/* The last path component of s[0..n). */
static const char *base_of(const char *s, size_t n, size_t *len)
{
	const char *b = s;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '/')
			b = s + i + 1;
	*len = n - (size_t)(b - s);
	return b;
}

static int is(const char *s, size_t n, const char *word)
{
	return strlen(word) == n && memcmp(s, word, n) == 0;
}

const char *nns_launcher_of(const char *cmdline, size_t n)
{
	static const char *const launchers[] = {
	    "torchrun", "mpirun", "mpiexec", "mpiexec.hydra", "orterun",
	    "prterun",	"srun",	  "orted",   "prted",	      "hydra_pmi_proxy"};
	const char *arg[64], *b;
	size_t len[64], na = 0, bl;

	for (size_t i = 0; i < n && na < 64;) { /* argv: NUL-separated */
		size_t k = i;

		while (k < n && cmdline[k])
			k++;
		arg[na] = cmdline + i;
		len[na++] = k - i;
		i = k + 1;
	}
	if (!na)
		return NULL;
	b = base_of(arg[0], len[0], &bl);
	for (size_t i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++)
		if (is(b, bl, launchers[i]))
			return launchers[i];
	if (bl < 6 || memcmp(b, "python", 6) != 0)
		return NULL;
	/* python [options] (-m module | script) ... */
	for (size_t i = 1; i < na; i++) {
		const char *a = arg[i];
		size_t l = len[i];

		if (l >= 2 && a[0] == '-' && a[1] == 'm') {
			const char *mod = l > 2 ? a + 2 : i + 1 < na ? arg[i + 1] : "";
			size_t ml = l > 2 ? l - 2 : i + 1 < na ? len[i + 1] : 0;

			return is(mod, ml, "torch.distributed.run") ||
				       is(mod, ml, "torch.distributed.launch")
				   ? "torchrun"
				   : NULL;
		}
		if (is(a, l, "-c") || (l >= 2 && a[0] == '-' && a[1] == 'c') || is(a, l, "-"))
			return NULL;
		if (is(a, l, "-W") || is(a, l, "-X")) { /* options with an argument */
			i++;
			continue;
		}
		if (l && a[0] == '-')
			continue;
		b = base_of(a, l, &bl); /* the script */
		return is(b, bl, "torchrun") ? "torchrun" : NULL;
	}
	return NULL;
}

void nns_role_of_self(struct nns_role *out, struct nns_rankinfo *r,
		      const struct nns_rankinfo *parent)
{
	char cmd[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, cmd, sizeof(cmd)) : -1;

	if (fd >= 0)
		close(fd);
	out->role = "";
	out->launcher = n > 0 ? nns_launcher_of(cmd, (size_t)n) : NULL;
	out->parent_rank = -1;
	if (out->launcher) {
		out->role = "launcher";
		r->rank = r->world_size = r->local_rank = -1;
		r->source = "";
	} else if (r->rank >= 0 && parent && parent->rank == r->rank &&
		   strcmp(parent->source, r->source) == 0) {
		out->role = "helper";
		out->parent_rank = r->rank;
		r->rank = r->world_size = r->local_rank = -1; /* source stays: its children's */
	} else if (r->rank >= 0) {
		out->role = "rank";
	}
}

void nns_trace_stem(char *dst, size_t size, const char *host, const struct nns_role *role,
		    const struct nns_rankinfo *r, long pid)
{
	if (strcmp(role->role, "launcher") == 0)
		snprintf(dst, size, "%s_launcher_%ld", host, pid);
	else if (strcmp(role->role, "rank") == 0 && r->rank >= 0)
		snprintf(dst, size, "%s_rank%ld_%ld", host, r->rank, pid);
	else
		snprintf(dst, size, "%s_%ld", host, pid);
}
