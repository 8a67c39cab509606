/*
 * mpi_dl.h - the few MPI calls `nnscope analyse --mpi` needs, with Open MPI
 * (libmpi.so.40, Debian's openmpi-bin) loaded at run time by dlopen, so that
 * nnscope builds and runs without MPI. NNSCOPE_LIBMPI names another
 * library file with Open MPI's ABI (MPI_COMM_WORLD = &ompi_mpi_comm_world).
 *
 * Messages are byte buffers: mpi_dl_send() sends the length, then the
 * bytes; mpi_dl_recv() allocates the buffer (the caller frees it).
 *
 * Ownership: struct mpi_dl holds the library handle; mpi_dl_close()
 * finalizes MPI (the library stays loaded: Open MPI does not support being
 * unloaded). CLI-only code: it does not print.
 */
#ifndef NNS_CLI_MPI_DL_H
#define NNS_CLI_MPI_DL_H

#include "common/err.h"

#include <stddef.h>

#define MPI_DL_DEFAULT_LIB "libmpi.so.40"

struct mpi_dl {
	void *lib;
	int rank, size;
	int inited;
	void *comm_world; /* &ompi_mpi_comm_world */
	void *dt_char;	  /* &ompi_mpi_char */
	int (*init)(int *, char ***);
	int (*finalize)(void);
	int (*comm_rank)(void *, int *);
	int (*comm_size)(void *, int *);
	int (*barrier)(void *);
	int (*send)(const void *, int, void *, int, int, void *);
	int (*recv)(void *, int, void *, int, int, void *, void *);
};

/* Loads the library and calls MPI_Init; fills rank and size. NNS_OK, or
 * NNS_ENOTFOUND (library or symbol missing: err says which) / NNS_EIO
 * (MPI_Init failed). On error m is closed. */
int mpi_dl_open(struct mpi_dl *m, int *argc, char ***argv, struct nns_err *err);
/* MPI_Finalize when initialized. */
void mpi_dl_close(struct mpi_dl *m);

int mpi_dl_barrier(struct mpi_dl *m, struct nns_err *err);
/* Sends n bytes (n <= 1 GiB) to process dest with tag. */
int mpi_dl_send(struct mpi_dl *m, int dest, int tag, const void *buf, size_t n,
		struct nns_err *err);
/* Receives one mpi_dl_send() message from src: *buf malloc'd (NULL when
 * *n is 0). */
int mpi_dl_recv(struct mpi_dl *m, int src, int tag, void **buf, size_t *n, struct nns_err *err);

#endif
