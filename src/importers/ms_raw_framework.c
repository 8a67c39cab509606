/*
 * ms_raw_framework.c - the framework files of a raw job into MindSpore's
 * framework_raw_<dev>.csv (MindInsight FrameworkParser; the columns of the
 * newer layout, as profiler/framework_raw_0.csv has them:
 * task_id,stream_id,block_dim,full_kernel_name,op_name,kernel_name,
 * kernel_type,subgraph,op_info).
 *
 * task_desc_info lines: "<full op name> <block_dim> <task_id> <stream_id>";
 * the last line of an op name wins. graph_desc_info lines: space-separated
 * "name:value" attributes: op_name, op_type, input_id / output_id (a new
 * "input_<id>" / "output_<id>" entry of op_info), {input,output}_{format,
 * data_type,shape} (shape without its quotes; data_type by name: MindSpore
 * VM numbers 26..42 for Framework.host.vm.* files, GE numbers else; format
 * by GE name in GE files, as written in VM files). subgraph = the first
 * path element when it is Default or Gradients, else empty; op_name = the
 * full name; kernel_name = its last element (VM) or the '+'-joined last
 * elements of the subgraph's parts (GE); op_info is json.dumps of the
 * entries. Each graph row takes its task's columns (empty when no task
 * names it: a warning); tasks no graph row names follow with empty graph
 * columns. A token without ':' is a warning with its byte offset.
 */
#include "importers/ms_raw_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const VM_TYPES[] = {
    "NUMBER_TYPE_BEGIN", "NUMBER_TYPE_BOOL",	"NUMBER_TYPE_INT",     "NUMBER_TYPE_INT8",
    "NUMBER_TYPE_INT16", "NUMBER_TYPE_INT32",	"NUMBER_TYPE_INT64",   "NUMBER_TYPE_UINT",
    "NUMBER_TYPE_UINT8", "NUMBER_TYPE_UINT16",	"NUMBER_TYPE_UINT32",  "NUMBER_TYPE_UINT64",
    "NUMBER_TYPE_FLOAT", "NUMBER_TYPE_FLOAT16", "NUMBER_TYPE_FLOAT32", "NUMBER_TYPE_FLOAT64",
    "NUMBER_TYPE_END"}; /* 26..42 */

static const char *const GE_TYPES[] = {
    "DT_FLOAT",		 "DT_FLOAT16",	 "DT_INT8",
    "DT_INT32",		 "DT_UINT8",	 NULL,
    "DT_INT16",		 "DT_UINT16",	 "DT_UINT32",
    "DT_INT64",		 "DT_UINT64",	 "DT_DOUBLE",
    "DT_BOOL",		 "DT_STRING",	 "DT_DUAL_SUB_INT8",
    "DT_DUAL_SUB_UINT8", "DT_COMPLEX64", "DT_COMPLEX128",
    "DT_QINT8",		 "DT_QINT16",	 "DT_QINT32",
    "DT_QUINT8",	 "DT_QUINT16",	 "DT_RESOURCE",
    "DT_STRING_REF",	 "DT_DUAL",	 "DT_UNDEFINED"}; /* 0..26 */

static const char *const GE_FORMATS[] = {"NCHW",
					 "NHWC",
					 "ND",
					 "NC1HWC0",
					 "FRACTAL_Z",
					 "NC1C0HWPAD",
					 "NHWC1C0",
					 "FSR_NCHW",
					 "FRACTAL_DECONV",
					 "C1HWNC0",
					 "FRACTAL_DECONV_TRANSPOSE",
					 "FRACTAL_DECONV_SP_STRIDE_TRANS",
					 "NC1HWC0_C04",
					 "FRACTAL_Z_C04",
					 "CHWN",
					 "FRACTAL_DECONV_SP_STRIDE8_TRANS",
					 "HWCN",
					 "NC1KHKWHWC0",
					 "BN_WEIGHT",
					 "FILTER_HWCK",
					 "HASHTABLE_LOOKUP_LOOKUPS",
					 "HASHTABLE_LOOKUP_KEYS",
					 "HASHTABLE_LOOKUP_VALUE",
					 "HASHTABLE_LOOKUP_OUTPUT",
					 "HASHTABLE_LOOKUP_HITS",
					 "C1HWNCOC0",
					 "MD",
					 "NDHWC",
					 "FRACTAL_ZZ",
					 "FRACTAL_NZ",
					 "NCDHW",
					 "DHWCN",
					 "NDC1HWC0",
					 "FRACTAL_Z_3D",
					 "CN",
					 "NC",
					 "DHWNC",
					 "FRACTAL_Z_3D_TRANSPOSE",
					 "RESERVED",
					 "ALL"}; /* 0..39, "FORMAT_" prefixed */

void ms_raw_task_key(char *key, size_t n, long task_id, long stream_id)
{
	if (task_id < 25000)
		snprintf(key, n, "%ld_%ld", stream_id, task_id);
	else
		snprintf(key, n, "%ld", task_id);
}

static struct ms_raw_op *find_op(struct ms_raw_fw *fw, const char *name, size_t len)
{
	for (size_t i = fw->ops.n; i-- > 0;)
		if (strlen(fw->ops.v[i].name) == len && memcmp(fw->ops.v[i].name, name, len) == 0)
			return &fw->ops.v[i];
	return NULL;
}

int ms_raw_fw_tasks(struct ms_raw_fw *fw, const char *buf, size_t n, const char *path,
		    struct ms_raw *r)
{
	size_t pos = 0;

	while (pos < n) {
		const char *line = buf + pos, *nl = memchr(line, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - line) : n - pos;
		char tmp[4096], name[4096];
		long bd, task, stream;
		int rc;

		if (len && line[len - 1] == '\r')
			len--;
		if (len == 0 || len >= sizeof(tmp)) {
			if (len && (rc = ms_raw_warn(r, path, (long long)pos,
						     "line longer than %zu bytes: left out",
						     sizeof(tmp) - 1)))
				return rc;
			pos += (nl ? (size_t)(nl - line) + 1 : n - pos);
			continue;
		}
		memcpy(tmp, line, len);
		tmp[len] = 0;
		if (sscanf(tmp, "%4095s %ld %ld %ld", name, &bd, &task, &stream) != 4) {
			if ((rc = ms_raw_warn(
				 r, path, (long long)pos,
				 "not \"<op> <block_dim> <task_id> <stream_id>\": left out")))
				return rc;
		} else {
			struct ms_raw_op *o = find_op(fw, name, strlen(name)), op;

			if (!o) {
				memset(&op, 0, sizeof(op));
				if (!(op.name = strdup(name)) || vec_push(&fw->ops, op)) {
					free(op.name);
					return NNS_ENOMEM;
				}
				o = &fw->ops.v[fw->ops.n - 1];
			}
			o->block_dim = bd;
			o->task_id = task;
			o->stream_id = stream;
			ms_raw_task_key(o->key, sizeof(o->key), task, stream);
		}
		pos += nl ? (size_t)(nl - line) + 1 : n - pos;
	}
	return NNS_OK;
}

void ms_raw_fw_header(struct buf *out)
{
	buf_puts(out,
		 "task_id,stream_id,block_dim,full_kernel_name,op_name,kernel_name,kernel_type,"
		 "subgraph,op_info\r\n");
}

/* A CSV field as Python's csv writer writes it (QUOTE_MINIMAL). */
static int csv_field(struct buf *out, const char *s, size_t n)
{
	int q = 0, bad = 0;

	for (size_t i = 0; i < n; i++)
		q |= s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (!q)
		return buf_append(out, s, n);
	bad |= buf_putc(out, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			bad |= buf_putc(out, '"');
		bad |= buf_putc(out, s[i]);
	}
	return bad | buf_putc(out, '"');
}

/* json.dumps of a string (ASCII escapes). */
static void json_str(struct buf *j, const char *s, size_t n)
{
	buf_putc(j, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			buf_printf(j, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			buf_printf(j, "\\u%04x", c);
		else
			buf_putc(j, (char)c);
	}
	buf_putc(j, '"');
}

static void enum_name(struct buf *j, const char *v, size_t n, int vm, int is_type)
{
	char tmp[32];
	long k;
	char *end;
	const char *name = NULL;

	snprintf(tmp, sizeof(tmp), "%.*s", (int)(n < 31 ? n : 31), v);
	k = strtol(tmp, &end, 10);
	if (end == tmp || *end) {
		json_str(j, v, n); /* upstream's int() would fail; kept as written */
		return;
	}
	if (is_type && vm && k >= 26 && k <= 42)
		name = VM_TYPES[k - 26];
	else if (is_type && !vm && k >= 0 && k <= 26)
		name = GE_TYPES[k];
	else if (!is_type && k >= 0 && k <= 39) {
		snprintf(tmp, sizeof(tmp), "FORMAT_%s", GE_FORMATS[k]);
		json_str(j, tmp, strlen(tmp));
		return;
	}
	json_str(j, name ? name : "UNKNOWN", strlen(name ? name : "UNKNOWN"));
}

/* One graph line -> one CSV row. */
static int graph_line(struct ms_raw_fw *fw, const char *line, size_t len, long long off, int vm,
		      const char *path, struct buf *out, struct ms_raw *r)
{
	const char *name = NULL, *type = NULL;
	size_t name_n = 0, type_n = 0, pos = 0;
	struct buf j;
	int open_entry = 0, open_obj = 0, rc = NNS_OK, first_attr = 1;

	buf_init(&j, 0);
	buf_putc(&j, '{');
	while (pos < len) {
		const char *t = line + pos, *sp = memchr(t, ' ', len - pos), *colon;
		size_t tn = sp ? (size_t)(sp - t) : len - pos;

		pos += tn + 1;
		if (!tn)
			continue;
		colon = memchr(t, ':', tn);
		if (!colon) {
			rc = ms_raw_warn(r, path, off + (long long)(t - line),
					 "attribute \"%.*s\" is not name:value: left out",
					 (int)(tn > 60 ? 60 : tn), t);
			if (rc)
				break;
			continue;
		}
		size_t an = (size_t)(colon - t), vn = tn - an - 1;
		const char *v = colon + 1;

		if (an == 7 && memcmp(t, "op_name", 7) == 0) {
			name = v;
			name_n = vn;
		} else if (an == 7 && memcmp(t, "op_type", 7) == 0) {
			type = v;
			type_n = vn;
		} else if ((an == 8 && memcmp(t, "input_id", 8) == 0) ||
			   (an == 9 && memcmp(t, "output_id", 9) == 0)) {
			char key[64];

			if (open_obj)
				buf_putc(&j, '}');
			snprintf(key, sizeof(key), "%s_%.*s", t[0] == 'i' ? "input" : "output",
				 (int)(vn > 40 ? 40 : vn), v);
			buf_puts(&j, open_entry ? ", " : "");
			json_str(&j, key, strlen(key));
			buf_puts(&j, ": {");
			open_entry = open_obj = 1;
			first_attr = 1;
		} else if (open_obj && an > 6 &&
			   (memcmp(t, "input_", 6) == 0 ||
			    (an > 7 && memcmp(t, "output_", 7) == 0))) {
			const char *attr = memchr(t, '_', an) + 1;
			size_t atn = an - (size_t)(attr - t);

			if (!((atn == 6 && memcmp(attr, "format", 6) == 0) ||
			      (atn == 9 && memcmp(attr, "data_type", 9) == 0) ||
			      (atn == 5 && memcmp(attr, "shape", 5) == 0)))
				continue;
			buf_puts(&j, first_attr ? "" : ", ");
			first_attr = 0;
			json_str(&j, attr, atn);
			buf_puts(&j, ": ");
			if (atn == 5) {
				while (vn && *v == '"')
					v++, vn--;
				while (vn && v[vn - 1] == '"')
					vn--;
				json_str(&j, v, vn);
			} else if (atn == 9) {
				enum_name(&j, v, vn, vm, 1);
			} else if (!vm) {
				enum_name(&j, v, vn, vm, 0);
			} else {
				json_str(&j, v, vn);
			}
		}
	}
	if (open_obj)
		buf_putc(&j, '}');
	buf_putc(&j, '}');
	if (rc || !name) {
		if (!rc && !name)
			rc = ms_raw_warn(r, path, off, "graph line without op_name: left out");
		buf_free(&j);
		return rc;
	}
	struct ms_raw_op *o = find_op(fw, name, name_n);
	const char *sub = NULL, *slash = memchr(name, '/', name_n);
	size_t sub_n = slash ? (size_t)(slash - name) : name_n;
	int bad = 0;

	if ((sub_n == 7 && memcmp(name, "Default", 7) == 0) ||
	    (sub_n == 9 && memcmp(name, "Gradients", 9) == 0))
		sub = name;
	if (o) {
		bad |= buf_printf(out, "%ld,%ld,%ld,", o->task_id, o->stream_id, o->block_dim);
		free(o->op_type);
		o->op_type = type ? strndup(type, type_n) : NULL;
		o->graph = 1;
		if (type && !o->op_type)
			bad = 1;
	} else {
		bad |= buf_puts(out, ",,,");
		rc = ms_raw_warn(r, path, off,
				 "op %.*s has no task in the task description: no task columns",
				 (int)(name_n > 200 ? 200 : name_n), name);
	}
	bad |= csv_field(out, name, name_n);
	bad |= buf_putc(out, ',');
	bad |= csv_field(out, name, name_n);
	bad |= buf_putc(out, ',');
	if (!sub) {
		bad |= csv_field(out, name, name_n);
	} else if (vm) {
		const char *last = name + name_n;

		while (last > name && last[-1] != '/')
			last--;
		bad |= csv_field(out, last, (size_t)(name + name_n - last));
	} else { /* GE: the last element of each "<subgraph>/"-separated part, joined by '+' */
		struct buf k;
		size_t p = 0;
		int first = 1;

		buf_init(&k, 0);
		while (p < name_n) {
			const char *q = name + p, *next = NULL;

			for (size_t i = p; i + sub_n + 1 <= name_n; i++)
				if (memcmp(name + i, name, sub_n) == 0 && name[i + sub_n] == '/') {
					next = name + i;
					break;
				}
			if (next == q) {
				p += sub_n + 1;
				continue;
			}
			size_t partn = next ? (size_t)(next - q) : name_n - p;
			const char *last = q + partn;

			while (last > q && last[-1] != '/')
				last--;
			buf_puts(&k, first ? "" : "+");
			buf_append(&k, last, (size_t)(q + partn - last));
			first = 0;
			p += partn;
		}
		bad |= csv_field(out, k.p ? k.p : "", k.len);
		buf_free(&k);
	}
	bad |= buf_putc(out, ',');
	if (type)
		bad |= csv_field(out, type, type_n);
	bad |= buf_putc(out, ',');
	if (sub)
		bad |= csv_field(out, sub, sub_n);
	bad |= buf_putc(out, ',');
	bad |= csv_field(out, j.p ? j.p : "{}", j.len);
	bad |= buf_puts(out, "\r\n");
	buf_free(&j);
	return rc ? rc : bad ? NNS_ENOMEM : NNS_OK;
}

int ms_raw_fw_graph(struct ms_raw_fw *fw, const char *buf, size_t n, int vm, const char *path,
		    struct buf *out, struct ms_raw *r)
{
	size_t pos = 0;
	int rc = NNS_OK;

	while (!rc && pos < n) {
		const char *line = buf + pos, *nl = memchr(line, '\n', n - pos);
		size_t len = nl ? (size_t)(nl - line) : n - pos;

		if (len && line[len - 1] == '\r')
			len--;
		if (len)
			rc = graph_line(fw, line, len, (long long)pos, vm, path, out, r);
		pos += nl ? (size_t)(nl - line) + 1 : n - pos;
	}
	return rc;
}

int ms_raw_fw_rest(struct ms_raw_fw *fw, struct buf *out)
{
	int bad = 0;

	for (size_t i = 0; i < fw->ops.n; i++) {
		const struct ms_raw_op *o = &fw->ops.v[i];

		if (o->graph || !o->key[0])
			continue;
		bad |= buf_printf(out, "%ld,%ld,%ld,", o->task_id, o->stream_id, o->block_dim);
		bad |= csv_field(out, o->name, strlen(o->name));
		bad |= buf_puts(out, ",,,,,\r\n");
	}
	return bad ? NNS_ENOMEM : NNS_OK;
}

void ms_raw_fw_release(struct ms_raw_fw *fw)
{
	for (size_t i = 0; i < fw->ops.n; i++) {
		free(fw->ops.v[i].name);
		free(fw->ops.v[i].op_type);
	}
	vec_free(&fw->ops);
}
