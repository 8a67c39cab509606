/*
 * mpi_dl.c - Open MPI loaded with dlopen (mpi_dl.h): symbol lookup,
 * MPI_Init/Finalize and length-prefixed byte messages.
 */
#include "cli/mpi_dl.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MPI_DL_MAX_MSG ((size_t)1 << 30)
#define MPI_DL_SUCCESS 0

static void *sym(struct mpi_dl *m, const char *name, const char *lib, struct nns_err *err)
{
	void *p = dlsym(m->lib, name);

	if (!p)
		nns_err_set(err, NNS_ENOTFOUND,
			    "%s has no symbol %s: --mpi needs Open MPI (libmpi.so.40, "
			    "Debian's openmpi-bin)",
			    lib, name);
	return p;
}

int mpi_dl_open(struct mpi_dl *m, int *argc, char ***argv, struct nns_err *err)
{
	const char *lib = getenv("NNSCOPE_LIBMPI");
	void *p[9];
	static const char *const names[9] = {
	    "MPI_Init", "MPI_Finalize", "MPI_Comm_rank",       "MPI_Comm_size", "MPI_Barrier",
	    "MPI_Send", "MPI_Recv",	"ompi_mpi_comm_world", "ompi_mpi_char",
	};

	memset(m, 0, sizeof(*m));
	if (!lib || !*lib)
		lib = MPI_DL_DEFAULT_LIB;
	/* RTLD_GLOBAL: Open MPI's plugins resolve symbols of libmpi */
	m->lib = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
	if (!m->lib) {
		const char *why = dlerror();

		return nns_err_set(err, NNS_ENOTFOUND,
				   "--mpi: cannot load %s (%s); install Open MPI "
				   "(apt-get install openmpi-bin) or run without --mpi",
				   lib, why ? why : "not found");
	}
	for (int i = 0; i < 9; i++)
		if (!(p[i] = sym(m, names[i], lib, err))) {
			m->lib = NULL; /* never dlclose Open MPI */
			return NNS_ENOTFOUND;
		}
	/* object pointers from dlsym to function pointers: POSIX allows it */
	memcpy(&m->init, &p[0], sizeof(p[0]));
	memcpy(&m->finalize, &p[1], sizeof(p[1]));
	memcpy(&m->comm_rank, &p[2], sizeof(p[2]));
	memcpy(&m->comm_size, &p[3], sizeof(p[3]));
	memcpy(&m->barrier, &p[4], sizeof(p[4]));
	memcpy(&m->send, &p[5], sizeof(p[5]));
	memcpy(&m->recv, &p[6], sizeof(p[6]));
	m->comm_world = p[7];
	m->dt_char = p[8];
	if (m->init(argc, argv) != MPI_DL_SUCCESS)
		return nns_err_set(err, NNS_EIO, "--mpi: MPI_Init failed");
	m->inited = 1;
	if (m->comm_rank(m->comm_world, &m->rank) != MPI_DL_SUCCESS ||
	    m->comm_size(m->comm_world, &m->size) != MPI_DL_SUCCESS || m->size < 1) {
		mpi_dl_close(m);
		return nns_err_set(err, NNS_EIO, "--mpi: MPI_Comm_rank/MPI_Comm_size failed");
	}
	return NNS_OK;
}

void mpi_dl_close(struct mpi_dl *m)
{
	if (m->inited)
		m->finalize();
	m->inited = 0;
}

int mpi_dl_barrier(struct mpi_dl *m, struct nns_err *err)
{
	if (m->barrier(m->comm_world) != MPI_DL_SUCCESS)
		return nns_err_set(err, NNS_EIO, "MPI_Barrier failed");
	return NNS_OK;
}

int mpi_dl_send(struct mpi_dl *m, int dest, int tag, const void *buf, size_t n, struct nns_err *err)
{
	uint64_t len = n;

	if (n > MPI_DL_MAX_MSG)
		return nns_err_set(err, NNS_EINVAL, "MPI message of %zu bytes is over 1 GiB", n);
	if (m->send(&len, (int)sizeof(len), m->dt_char, dest, tag, m->comm_world) !=
		MPI_DL_SUCCESS ||
	    (n > 0 && m->send(buf, (int)n, m->dt_char, dest, tag, m->comm_world) != MPI_DL_SUCCESS))
		return nns_err_set(err, NNS_EIO, "MPI_Send to process %d failed", dest);
	return NNS_OK;
}

int mpi_dl_recv(struct mpi_dl *m, int src, int tag, void **buf, size_t *n, struct nns_err *err)
{
	uint64_t len = 0;

	*buf = NULL;
	*n = 0;
	/* MPI_STATUS_IGNORE is a null pointer in Open MPI */
	if (m->recv(&len, (int)sizeof(len), m->dt_char, src, tag, m->comm_world, NULL) !=
	    MPI_DL_SUCCESS)
		return nns_err_set(err, NNS_EIO, "MPI_Recv from process %d failed", src);
	if (len > MPI_DL_MAX_MSG)
		return nns_err_set(err, NNS_EFORMAT, "MPI message of %llu bytes from process %d",
				   (unsigned long long)len, src);
	if (len == 0)
		return NNS_OK;
	if (!(*buf = malloc(len)))
		return nns_err_set(err, NNS_ENOMEM, "out of memory");
	if (m->recv(*buf, (int)len, m->dt_char, src, tag, m->comm_world, NULL) != MPI_DL_SUCCESS) {
		free(*buf);
		*buf = NULL;
		return nns_err_set(err, NNS_EIO, "MPI_Recv from process %d failed", src);
	}
	*n = len;
	return NNS_OK;
}
