/*
 * kineto.c - the Kineto importer's entry points (kineto.h): opens the
 * input, picks gzip or plain and serial or parallel parsing, then turns the
 * parser's end state into a status: NNS_OK, NNS_ETRUNC (the input ended
 * early or is damaged after some events: what was read is kept and the
 * model finalized), or an error with a one-line "<file>: byte N: ..."
 * message. A large .gz is parsed by several threads as it inflates
 * (kineto_gzpar.c). A file is parsed up to the size it had when opened; one that
 * grew (or changed) meanwhile says so (changed.h) as NNS_ETRUNC.
 */
#include "kineto_internal.h"
#include "common/cpus.h"
#include "common/fs.h"
#include "importers/changed.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int thread_count(const struct kineto_opts *o)
{
	return cpus_threads(o ? o->threads : 0, KP_THREADS_MAX);
}

/* Turns the final parser state into the status and message. */
static int finish(struct kparser *ps, int r, int plain, int64_t size, struct nns_err *err)
{
	struct model *m = ps->m;
	int rc;

	if (r == KR_DONE && !ps->seen_events) {
		return nns_err_set(err, NNS_EFORMAT,
				   "%s: no \"traceEvents\" array: not a Kineto/Chrome trace",
				   ps->name);
	}
	/* a document with nothing to analyse is an error, not a 0 us report */
	if (r == KR_DONE && ps->elements == 0)
		return nns_err_set(err, NNS_EFORMAT, "%s: no events: %s", ps->name,
				   ps->form == KF_OBJECT ? "traceEvents is empty"
							 : "the JSON array is empty");
	if (r == KR_DONE && ps->non_objects == ps->elements)
		return nns_err_set(err, NNS_EFORMAT,
				   "%s: no events: %s holds %lld element(s), none of them an event "
				   "object: not a Kineto/Chrome trace",
				   ps->name,
				   ps->form == KF_OBJECT ? "traceEvents" : "the JSON array",
				   (long long)ps->elements);
	if (r == KR_DONE) {
		m->diag.bytes_read = plain ? size : ps->total_bytes;
		if ((rc = kbe_pair(ps)))
			return nns_err_set(err, rc, "%s: out of memory pairing B/E events",
					   ps->name);
		nns_err_clear(err);
		if ((rc = model_finalize(m, err)))
			return rc;
		kleg_note(m, ps->name);
		return NNS_OK;
	}
	if (ps->err_code == NNS_ENOMEM || ps->err_code == NNS_EIO || ps->err_code == 0)
		return nns_err_set(err, ps->err_code ? ps->err_code : NNS_EFORMAT,
				   "%s: byte %lld: %s", ps->name, (long long)ps->err_off,
				   ps->err_msg[0] ? ps->err_msg : "parse failed");
	/* the input ended early, or is damaged after events we could read */
	if (ps->err_eof || ps->elements > 0) {
		m->diag.truncated = 1;
		m->diag.bytes_read = ps->err_off;
		snprintf(m->diag.first_problem, sizeof(m->diag.first_problem), "%s: byte %lld: %s",
			 ps->name, (long long)ps->err_off, ps->err_msg);
		if ((rc = kbe_pair(ps)))
			return nns_err_set(err, rc, "%s: out of memory pairing B/E events",
					   ps->name);
		if ((rc = model_finalize(m, err)))
			return rc;
		kleg_note(m, ps->name);
		return nns_err_set(err, NNS_ETRUNC,
				   "%s: byte %lld: %s; kept the %lld events before it", ps->name,
				   (long long)ps->err_off, ps->err_msg, (long long)m->events.n);
	}
	return nns_err_set(err, NNS_EFORMAT, "%s: byte %lld: %s", ps->name, (long long)ps->err_off,
			   ps->err_msg);
}

int kineto_parse_source(struct ksrc *src, int64_t size, int plain, const char *name,
			struct model *m, const struct kineto_opts *o, size_t window,
			int64_t par_min, struct kprogress *prog, struct nns_err *err)
{
	struct kparser ps;
	struct klimits lim;
	int nt = thread_count(o), r, rc;
	char a[32];

	if (!window) {
		/* 1/32 of the input, 256 KiB .. 4 MiB: small inputs stay small;
		 * gzip input (size unknown) gets 1 MiB */
		window = plain ? (size_t)(size / 32) : KP_WINDOW / 4;
		if (window < KP_WINDOW / 16)
			window = KP_WINDOW / 16;
		if (window > KP_WINDOW)
			window = KP_WINDOW;
		if (plain && size >= 0 && (uint64_t)size + 1 < window)
			window = (size_t)size + 1;
	}
	klimits_init(&lim, o);
	if (plain && size > lim.max_input) {
		kp_size(a, sizeof(a), lim.max_input);
		return nns_err_set(err, NNS_ENOMEM,
				   "%s: %lld bytes of JSON, more than the --max-input limit of %s "
				   "(--max-input to change it)",
				   name, (long long)size, a);
	}
	if (kp_init(&ps, m, src, name, window, prog))
		return nns_err_set(err, NNS_ENOMEM, "%s: out of memory", name);
	ps.lim = &lim;
	if (plain && nt > 1 && size >= (par_min > 0 ? par_min : (int64_t)KP_PAR_MIN))
		r = kpar_run(&ps, src, size, nt);
	else if (!plain && nt > 1 && src->type == KSRC_GZ &&
		 size >= (par_min > 0 ? par_min : (int64_t)KP_GZPAR_MIN))
		r = kgzpar_run(&ps, nt, (int64_t)window * KP_GZ_CHUNK);
	else
		r = kp_run(&ps);
	rc = finish(&ps, r, plain, size, err);

	kp_release(&ps);
	return rc;
}

int kineto_load_buffer(const char *buf, size_t len, const char *name, struct model *m,
		       const struct kineto_opts *o, struct nns_err *err)
{
	struct kprogress pg;
	struct ksrc src;
	int plain, rc;

	if (!name)
		name = "<buffer>";
	if (!m || (!buf && len))
		return nns_err_set(err, NNS_EINVAL, "%s: no buffer or model", name);
	ksrc_mem(&src, buf ? buf : "", len, 0, name);
	plain = !ksrc_is_gz((const unsigned char *)buf, len);
	if (!plain && (rc = ksrc_gz(&src, 0, err))) {
		ksrc_close(&src);
		return rc;
	}
	kprog_init(&pg, o && o->progress, name, (int64_t)len);
	pg.ext = o ? o->done_bytes : NULL;
	pg.cancel = o ? o->cancel : NULL;
	rc = kineto_parse_source(&src, (int64_t)len, plain, name, m, o, 0, 0, &pg, err);
	kprog_end(&pg);
	ksrc_close(&src);
	return rc;
}

int kineto_load_file(const char *path, struct model *m, const struct kineto_opts *o,
		     struct nns_err *err)
{
	unsigned char magic[2] = {0, 0};
	struct kprogress pg;
	struct ksrc src;
	struct stat st;
	int fd, rc, plain;
	ssize_t n;

	if (!path || !m)
		return nns_err_set(err, NNS_EINVAL, "kineto_load_file: no path or model");
	fd = fs_open_beneath(o ? o->root : NULL, path, O_RDONLY, 0);
	if (fd < 0)
		return fs_open_error(err, NNS_EIO, o ? o->root : NULL, path, errno);
	if (fstat(fd, &st)) {
		rc = nns_err_set(err, NNS_EIO, "%s: cannot stat: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return nns_err_set(err, NNS_EIO, "%s: cannot read: is a directory", path);
	}
	do
		n = pread(fd, magic, 2, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		rc = nns_err_set(err, NNS_EIO, "%s: cannot read: %s", path, strerror(errno));
		close(fd);
		return rc;
	}
	plain = !ksrc_is_gz(magic, (size_t)n);
#ifdef POSIX_FADV_SEQUENTIAL
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
	ksrc_fd(&src, fd, (int64_t)st.st_size, 0, path);
	if (!plain && (rc = ksrc_gz(&src, 1, err))) {
		ksrc_close(&src);
		close(fd);
		return rc;
	}
	kprog_init(&pg, o && o->progress, path, (int64_t)st.st_size);
	pg.ext = o ? o->done_bytes : NULL;
	pg.cancel = o ? o->cancel : NULL;
	rc = kineto_parse_source(&src, (int64_t)st.st_size, plain, path, m, o, 0, 0, &pg, err);
	kprog_end(&pg);
	ksrc_close(&src);
	{
		/* appended to (or rewritten) while read: the parse stopped at
		 * the size the file had when opened (kineto_io.c); say so */
		struct changed_stamp before, after;

		changed_stamp_stat(&before, &st);
		changed_stamp_fd(&after, fd);
		rc = changed_check(path, &before, &after, (int64_t)st.st_size, rc, m, err);
	}
	close(fd);
	return rc;
}
