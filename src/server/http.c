/*
 * http.c - libmicrohttpd glue for `nnscope serve`: starts the daemon with
 * its limits, checks each request (method, body, size, Host header),
 * serves the embedded UI and hands /api/ requests to routes.c.
 *
 * Limits (docs/SERVER.md): GET/HEAD only (405), no body (413), request
 * line + headers within MHD's 16 KiB connection memory (MHD answers 414 /
 * 431 itself), a URI of at most 8 KiB (414) with at most 64 query
 * parameters (400), 256 connections, a 30 s inactivity timeout while
 * answering. A request must arrive in full within --request-timeout of the
 * connection's start (or of its previous answer), and the oldest waiting
 * connections are shed when fewer than 32 slots are left (conns.h).
 * When bound to a loopback address, a Host header that does not name the
 * loopback interface is refused (403), so a web page on another site
 * cannot reach the API through DNS rebinding.
 *
 * Oversized queries: MHD stores each query parameter in the connection's
 * memory while it parses the request line, before any of our code sees the
 * request; past ~220 parameters that memory runs out and MHD 0.9.7x
 * neither answers nor closes (the connection hangs until its timeout). So
 * the URI callback (called on the raw request line just before that parse)
 * counts them, and for a URI over the limits ends the query string in
 * MHD's buffer: MHD then parses no parameter and the request is answered
 * 400/414 at once. Should a libmicrohttpd parse a copy instead, the request
 * still ends at --request-timeout (the guard).
 */
#include "server/live_watch.h"
#include "server/server.h"
#include "output/jsonw.h"
#include "server/assets.h"

#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <unistd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if MHD_VERSION < 0x00097002
typedef int mhd_result;
#else
typedef enum MHD_Result mhd_result;
#endif

#define MAX_ARGS 64
#define MAX_URI (8 * 1024)
#define CONN_MEMORY (16 * 1024)
#define CONN_LIMIT 256
#define CONN_HEADROOM 32
#define MAX_LOADS_SHOWN 8

struct srv_req {
	struct MHD_Connection *c;
	struct MHD_Response *resp;
	int status;
	int head;
	int held; /* suspended (srv_hold): no answer now */
	struct server *s;
	void **con_cls;
};

/* Per-request markers (*con_cls): the request line was seen (set by the
 * URI callback), with too many parameters or too long a URI; the request
 * had a body; it was accepted for dispatch; it was held (srv_hold) and is
 * dispatched again. */
static int uri_marker;
static int args_marker;
static int long_marker;
static int body_marker;
static int nobody_marker;
static int held_marker; /* like nobody_marker, and held once already */

const char *srv_arg(struct srv_req *q, const char *name)
{
	return MHD_lookup_connection_value(q->c, MHD_GET_ARGUMENT_KIND, name);
}

static void common_headers(struct MHD_Response *r, const char *mime)
{
	MHD_add_response_header(r, "Content-Type", mime);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
}

void srv_reply(struct srv_req *q, int status, const char *mime, char *body, size_t len)
{
	if (q->resp) {
		free(body);
		return;
	}
	q->resp = MHD_create_response_from_buffer(
	    len, body ? body : (char *)"", body ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
	if (!q->resp) {
		free(body);
		return;
	}
	common_headers(q->resp, mime);
	MHD_add_response_header(q->resp, "Cache-Control", "no-store");
	q->status = status;
}

void srv_header(struct srv_req *q, const char *name, const char *value)
{
	if (q->resp)
		MHD_add_response_header(q->resp, name, value);
}

void srv_error(struct srv_req *q, int status, const char *fmt, ...)
{
	char msg[1024], *body = NULL;
	struct jsonw w;
	size_t n = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (jsonw_init_mem(&w, 0, 0) == NNS_OK) {
		jsonw_obj_begin(&w);
		jsonw_kstr(&w, "error", msg);
		jsonw_obj_end(&w);
		if (jsonw_finish(&w, NULL) == NNS_OK)
			body = jsonw_take(&w, &n);
		jsonw_release(&w);
	}
	srv_reply(q, status, "application/json", body, n);
}

void srv_reply_json(struct srv_req *q, struct jsonw *w)
{
	struct nns_err err;
	size_t len = 0;
	char *doc;

	nns_err_clear(&err);
	if (jsonw_finish(w, &err) != NNS_OK || !(doc = jsonw_take(w, &len))) {
		jsonw_release(w);
		srv_error(q, 500, "cannot write the answer: %s", err.msg);
		return;
	}
	jsonw_release(w);
	srv_reply(q, 200, "application/json", doc, len);
}

void srv_json_load(struct jsonw *w, const struct reg_progress *pr)
{
	jsonw_kstr(w, "file", pr->file);
	jsonw_kstr(w, "phase", reg_phase_name(pr->phase));
	jsonw_kbool(w, "queued", pr->state == REG_QUEUED);
	jsonw_kint(w, "size", pr->size);
	jsonw_kint(w, "bytes_read", pr->bytes_read);
	jsonw_kint(w, "elapsed_ms", pr->elapsed_ms);
	if (pr->nevents > 0)
		jsonw_kint(w, "events", pr->nevents);
	jsonw_kbool(w, "slow", pr->slow);
	if (pr->cause[0])
		jsonw_kstr(w, "cause", pr->cause);
}

void srv_progress(struct srv_req *q, const struct reg_progress *pr)
{
	struct reg_progress *loads = calloc(MAX_LOADS_SHOWN + 1, sizeof(*loads));
	struct nns_err err;
	struct jsonw w;
	size_t n = 0, len = 0;
	char *doc;

	if (!loads || jsonw_init_mem(&w, 0, 0) != NNS_OK) {
		free(loads);
		srv_error(q, 503, "out of memory");
		return;
	}
	jsonw_obj_begin(&w);
	jsonw_kstr(&w, "state", "analysing");
	jsonw_kdouble(&w, "progress", (double)(int)(pr->progress * 1000 + 0.5) / 1000);
	if (pr->file[0])
		srv_json_load(&w, pr);
	else
		jsonw_kstr(&w, "phase", reg_phase_name(pr->phase));
	/* the other loads under way or queued: which file holds the loaders */
	n = reg_loads(&q->s->reg, loads, MAX_LOADS_SHOWN + 1);
	jsonw_key(&w, "loads");
	jsonw_arr_begin(&w);
	for (size_t i = 0; i < n; i++) {
		if (pr->file[0] && strcmp(loads[i].file, pr->file) == 0)
			continue;
		jsonw_obj_begin(&w);
		srv_json_load(&w, &loads[i]);
		jsonw_obj_end(&w);
	}
	jsonw_arr_end(&w);
	jsonw_obj_end(&w);
	free(loads);
	nns_err_clear(&err);
	if (jsonw_finish(&w, &err) != NNS_OK || !(doc = jsonw_take(&w, &len))) {
		jsonw_release(&w);
		srv_error(q, 503, "out of memory");
		return;
	}
	jsonw_release(&w);
	srv_reply(q, 202, "application/json", doc, len);
}

int srv_hold(struct srv_req *q, struct reg_entry *e, int need)
{
	const char *w = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, "X-Nnscope-Wait");
	char *end;
	long ms;

	if (!w || *q->con_cls == &held_marker)
		return 0;
	ms = strtol(w, &end, 10);
	if (end == w || *end || ms <= 0)
		return 0;
	if (!hold_add(&q->s->holds, q->c, e, need, ms))
		return 0;
	*q->con_cls = &held_marker;
	q->held = 1;
	return 1;
}

static void serve_asset(struct srv_req *q, const char *path)
{
	const struct asset *a = asset_find(path);
	const char *ae, *inm;
	int gz;

	if (!a) {
		srv_error(q, 404, "no such page: /%s", path);
		return;
	}
	inm = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, "If-None-Match");
	if (inm && strcmp(inm, a->etag) == 0) {
		/* the browser's copy (and its compiled code cache) is current */
		q->resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
		if (!q->resp)
			return;
		MHD_add_response_header(q->resp, "ETag", a->etag);
		MHD_add_response_header(q->resp, "Cache-Control", "no-cache");
		q->status = 304;
		return;
	}
	ae = MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, "Accept-Encoding");
	gz = a->gz && ae && strstr(ae, "gzip");
	q->resp = MHD_create_response_from_buffer(
	    gz ? a->gz_len : a->len, (void *)(gz ? a->gz : a->data), MHD_RESPMEM_PERSISTENT);
	if (!q->resp)
		return;
	common_headers(q->resp, a->mime);
	if (gz)
		MHD_add_response_header(q->resp, "Content-Encoding", "gzip");
	MHD_add_response_header(q->resp, "Vary", "Accept-Encoding");
	MHD_add_response_header(q->resp, "Cache-Control", "no-cache");
	MHD_add_response_header(q->resp, "ETag", a->etag);
	if (strstr(a->mime, "text/html"))
		MHD_add_response_header(q->resp, "Content-Security-Policy",
					"default-src 'self'; img-src 'self' data: blob:; "
					"style-src 'self' 'unsafe-inline'; object-src 'none'; "
					"base-uri 'none'; frame-ancestors 'none'");
	q->status = 200;
}

static mhd_result count_arg(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	(void)kind;
	(void)key;
	(void)value;
	++*(int *)cls;
	return MHD_YES;
}

/* Host must be the loopback name or address, with our port (or none). */
static int host_ok(const struct server *s, const char *host)
{
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};
	char port[16];

	if (!host)
		return 1; /* HTTP/1.0 without Host: not a browser on another site */
	snprintf(port, sizeof(port), ":%d", s->port);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		if (strncasecmp(host, names[i], n) == 0 &&
		    (host[n] == 0 || strcmp(host + n, port) == 0))
			return 1;
	}
	return 0;
}

static void dispatch(struct server *s, struct srv_req *q, const char *url, const char *method)
{
	int nargs = 0;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0) {
		srv_error(q, 405, "method %.32s not allowed: the API is read-only (GET)", method);
		if (q->resp)
			MHD_add_response_header(q->resp, "Allow", "GET, HEAD");
		return;
	}
	if (s->o.loopback &&
	    !host_ok(s, MHD_lookup_connection_value(q->c, MHD_HEADER_KIND, "Host"))) {
		srv_error(q, 403, "Host header does not name this loopback server");
		return;
	}
	MHD_get_connection_values(q->c, MHD_GET_ARGUMENT_KIND, count_arg, &nargs);
	if (nargs > MAX_ARGS) {
		srv_error(q, 400, "too many query parameters (%d, at most %d)", nargs, MAX_ARGS);
		return;
	}
	if (strncmp(url, "/api/", 5) == 0) {
		routes_api(s, q, url);
		return;
	}
	if (strcmp(url, "/") == 0 || strcmp(url, "/index.html") == 0) {
		serve_asset(q, "index.html");
		return;
	}
	if (strncmp(url, "/static/", 8) == 0) {
		serve_asset(q, url + 8);
		return;
	}
	if (strcmp(url, "/favicon.ico") == 0) {
		srv_reply(q, 204, "image/x-icon", NULL, 0);
		return;
	}
	srv_error(q, 404, "no such page: %.200s", url);
}

/* The guard's slot of connection c (NULL when untracked). */
static struct conn_slot *slot_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return ci ? ci->socket_context : NULL;
}

static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	struct server *s = cls;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = ci ? cg_open(&s->guard, ci->connect_fd) : NULL;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		cg_close(&s->guard, *socket_context);
		*socket_context = NULL;
	}
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	struct server *s = cls;

	(void)con_cls;
	(void)toe;
	cg_done(&s->guard, slot_of(c));
}

/* Called on the request line before MHD parses its query (see the top of
 * this file): a URI over the limits gets its query string ended here and
 * is refused by on_request. Returns the request's marker (*con_cls). */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	char *q = strchr(uri, '?');
	size_t len = strlen(uri);
	int n = 0;

	(void)cls;
	(void)c;
	for (const char *p = q; p && *p; p++)
		n += (p == q || *p == '&') && p[1] && p[1] != '&';
	if (len <= MAX_URI && n <= MAX_ARGS)
		return &uri_marker;
	if (q && q[1])
		q[1] = 0; /* MHD's own buffer: the query it is about to parse is now empty */
	return len > MAX_URI ? &long_marker : &args_marker;
}

static mhd_result on_request(void *cls, struct MHD_Connection *c, const char *url,
			     const char *method, const char *version, const char *upload_data,
			     size_t *upload_data_size, void **con_cls)
{
	struct server *s = cls;
	struct srv_req q = {c, NULL, 500, 0, 0, s, con_cls};
	mhd_result ret;

	(void)version;
	(void)upload_data;
	if (*con_cls == NULL || *con_cls == &uri_marker || *con_cls == &args_marker ||
	    *con_cls == &long_marker) {
		const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
		const char *te =
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Transfer-Encoding");
		int refuse = *con_cls == &args_marker ? 400 : *con_cls == &long_marker ? 414 : 0;

		cg_request(&s->guard, slot_of(c)); /* read in full: being answered */
		if ((cl && strcmp(cl, "0") != 0) || te) {
			/* refused before reading it; MHD closes the connection */
			*con_cls = &body_marker;
			srv_error(&q, 413, "requests carry no body: the API is read-only (GET)");
			goto queue;
		}
		if (refuse) {
			*con_cls = &nobody_marker;
			if (refuse == 414)
				srv_error(&q, 414, "the URI is longer than %d bytes", MAX_URI);
			else
				srv_error(&q, 400, "too many query parameters (more than %d)",
					  MAX_ARGS);
			goto queue;
		}
		/* answering on the second call keeps the connection alive */
		*con_cls = &nobody_marker;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* discarded */
		return MHD_YES;
	}
	dispatch(s, &q, url, method);
	if (q.held)
		return MHD_YES; /* answered when resumed: this handler runs again */
queue:
	if (!q.resp) {
		q.resp = MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);
		if (!q.resp)
			return MHD_NO;
		q.status = 500;
	}
	ret = MHD_queue_response(c, (unsigned)q.status, q.resp);
	MHD_destroy_response(q.resp);
	return ret;
}

/* Binds and listens on addr ourselves, so that the port (for --port 0) is
 * known before the first request can arrive (host_ok reads it). Returns
 * the socket or -1 with errno set. */
static int listen_on(const struct sockaddr_storage *addr, socklen_t len, int *port)
{
	struct sockaddr_storage got;
	socklen_t glen = sizeof(got);
	int one = 1, fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (addr->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, (const struct sockaddr *)addr, len) != 0 || listen(fd, 256) != 0 ||
	    getsockname(fd, (struct sockaddr *)&got, &glen) != 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	*port = got.ss_family == AF_INET6 ? ntohs(((struct sockaddr_in6 *)&got)->sin6_port)
					  : ntohs(((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	const struct server *s = cls;

	if (s->o.quiet)
		return;
	fputs("nnscope serve: ", stderr);
	vfprintf(stderr, fmt, ap);
}

int srv_start(struct server *s, const struct srv_opts *o, struct nns_err *err)
{
	struct sockaddr_storage ss;
	struct addrinfo hints, *ai = NULL;
	char port[16];
	socklen_t sslen;
	unsigned flags =
	    MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME;
	struct reg_limits lim = {0};
	int rc, fd;

	memset(s, 0, sizeof(*s));
	s->o = *o;
	if (!s->o.host)
		s->o.host = "127.0.0.1";
	if (s->o.threads <= 0)
		s->o.threads = 4;
	memset(&hints, 0, sizeof(hints));
	hints.ai_flags = AI_NUMERICHOST | AI_PASSIVE;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%d", o->port);
	if ((rc = getaddrinfo(s->o.host, port, &hints, &ai)) != 0 || !ai)
		return nns_err_set(err, NNS_EINVAL,
				   "--host %s: not a numeric IPv4/IPv6 address (%s)", s->o.host,
				   gai_strerror(rc));
	memcpy(&ss, ai->ai_addr, ai->ai_addrlen);
	sslen = ai->ai_addrlen;
	if (ai->ai_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	freeaddrinfo(ai);
	/* every problem with the arguments (logdir, cache dir) is reported
	 * before the port is touched: a missing logdir must not read as "port
	 * in use" when another server holds the port */
	lim.deadline_s = o->load_timeout;
	lim.abandon_s = o->load_abandon;
	lim.live_idle_s = o->live_idle;
	lim.no_snapshots = o->no_snapshots;
	if ((rc = reg_init(&s->reg, o->logdir, o->cache_dir, &lim, err)) != NNS_OK)
		return rc;
	s->reg.limits = o->limits;
	if (mc_init(&s->marey)) {
		reg_release(&s->reg);
		return nns_err_set(err, NNS_ENOMEM, "cannot start the Marey cache");
	}
	if (cg_init(&s->guard, CONN_LIMIT - CONN_HEADROOM,
		    o->request_timeout == 0 ? 10 : o->request_timeout) != 0) {
		mc_release(&s->marey);
		reg_release(&s->reg);
		return nns_err_set(err, NNS_ENOMEM, "cannot start the connection guard");
	}
	if ((rc = live_watch_start(s, o->alerts, o->nalerts, err)) != NNS_OK) {
		cg_release(&s->guard);
		mc_release(&s->marey);
		reg_release(&s->reg);
		return rc;
	}
	if ((fd = listen_on(&ss, sslen, &s->port)) < 0) {
		int e = errno;

		live_watch_stop(s);
		cg_release(&s->guard);
		mc_release(&s->marey);
		reg_release(&s->reg);
		return nns_err_set(err, NNS_EIO, "cannot listen on %s port %d: %s%s", s->o.host,
				   o->port, strerror(e),
				   e == EADDRINUSE ? " (try another --port)" : "");
	}
	s->reg.quiet = o->quiet;
	if (o->max_loaded > 0)
		s->reg.max_loaded = (size_t)o->max_loaded;
	if (hold_start(&s->holds, &s->reg) != NNS_OK) {
		close(fd);
		live_watch_stop(s);
		cg_release(&s->guard);
		mc_release(&s->marey);
		reg_release(&s->reg);
		return nns_err_set(err, NNS_ENOMEM, "cannot start the long-poll thread");
	}
	/* the logger must be the first option (MHD prints its own otherwise) */
	s->mhd = MHD_start_daemon(
	    flags | MHD_USE_EPOLL, (uint16_t)s->port, NULL, NULL, on_request, s,
	    MHD_OPTION_EXTERNAL_LOGGER, log_mhd, s, MHD_OPTION_LISTEN_SOCKET, fd,
	    MHD_OPTION_THREAD_POOL_SIZE, (unsigned)s->o.threads, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)CONN_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY, MHD_OPTION_NOTIFY_CONNECTION,
	    on_connection, s, MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
	    MHD_OPTION_URI_LOG_CALLBACK, on_uri, s, MHD_OPTION_END);
	if (!s->mhd) {
		close(fd);
		hold_stop(&s->holds);
		live_watch_stop(s);
		cg_release(&s->guard);
		mc_release(&s->marey);
		reg_release(&s->reg);
		hold_release(&s->holds);
		return nns_err_set(err, NNS_EIO, "cannot start the HTTP server on %s port %d",
				   s->o.host, s->port);
	}
	return NNS_OK;
}

void srv_stop(struct server *s)
{
	hold_stop(&s->holds); /* a daemon must not stop with suspended connections */
	if (s->mhd)
		MHD_stop_daemon(s->mhd);
	s->mhd = NULL;
	live_watch_stop(s);    /* after the daemon, before the registry */
	cg_release(&s->guard); /* after the daemon: no connection is left */
	mc_release(&s->marey);
	reg_release(&s->reg);
	hold_release(&s->holds); /* after the registry: no loader calls its hook */
}
