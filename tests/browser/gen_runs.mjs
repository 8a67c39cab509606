// tests/browser/gen_runs.mjs LOGDIR CONF_DIR - writes the extra runs of the
// browser tests into LOGDIR (run.sh calls it at test time; nothing is copied
// into the repository):
//   dist/worker{0,1}.pt.trace.json  tb_plugin case 10_distributed_nccl
//       (.inputs.json_content0/1, wrapped as {"schemaVersion":1,"traceEvents"}
//       exactly as tests/golden/test_tbplugin_cases.c feeds them: no
//       distributedInfo is added);
//   memory/w.pt.trace.json  tb_plugin case 08_memory_view (.input_trace_events),
//       each [memory] event given "Total Allocated"/"Total Reserved" (running
//       sum per device in ts order / its maximum so far) so that the memory
//       curve has data; the per-operator statistics do not use these totals;
//   modules/w.pt.trace.json  a hand-written module trace (always written);
//   attr/w.pt.trace.json  a hand-written GPU trace (always written): 24
//       operators with names of 90+ characters (legend truncation) and two
//       kernels, one launched inside the first operator (100 us), one with no
//       launch (300 us): 1 of 2 device events, 75 % of device time, belong to
//       no operator (ATTR_EXPECT in ui.test.mjs);
//   pair/before_fix.pt.trace.json, pair/after_fix.pt.trace.json  two workers
//       of one run whose traces start 1 s apart (before_fix first; the names
//       sort the other way), and the runs order/zz_baseline, order/aa_tuned
//       (same trace, same file time, set here a day back): the Diff view's
//       default pair (base = older trace / older run / "baseline" name).
// A case file that is missing under CONF_DIR is skipped (the tests print SKIP).
import fs from 'node:fs';
import path from 'node:path';

const [log, conf] = process.argv.slice(2);
if (!log) throw new Error('usage: gen_runs.mjs LOGDIR [CONF_DIR]');
const wrap = (evs) => JSON.stringify({ schemaVersion: 1, traceEvents: evs });
const put = (rel, text) => {
  const f = path.join(log, rel);
  fs.mkdirSync(path.dirname(f), { recursive: true });
  fs.writeFileSync(f, text);
};
const loadCase = (name) => {
  const f = conf ? path.join(conf, name) : '';
  return f && fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')) : null;
};

const dist = loadCase('10_distributed_nccl.json');
if (dist) {
  put('dist/worker0.pt.trace.json', wrap(dist.inputs.json_content0));
  put('dist/worker1.pt.trace.json', wrap(dist.inputs.json_content1));
}

const mem = loadCase('08_memory_view.json');
if (mem) {
  const evs = structuredClone(mem.input_trace_events);
  const total = new Map();
  const reserved = new Map();
  const memEvs = evs.filter((e) => e.name === '[memory]').sort((a, b) => a.ts - b.ts);
  for (const e of memEvs) {
    const k = `${e.args['Device Type']}:${e.args['Device Id']}`;
    const t = (total.get(k) || 0) + e.args.Bytes;
    total.set(k, t);
    reserved.set(k, Math.max(reserved.get(k) || 0, t));
    e.args['Total Allocated'] = t;
    e.args['Total Reserved'] = reserved.get(k);
  }
  put('memory/w.pt.trace.json', wrap(evs));
}

// Module trace: ProfilerStep#1 (user_annotation) containing
//   nn.Module: Net_0 (module id 100)
//     nn.Module: Linear_0 (101)  > aten::linear
//     nn.Module: ReLU_0   (102)  > aten::relu      (called twice)
//     nn.Module: Linear_1 (103)  > aten::linear
//     nn.Module: ReLU_0   (102)  > aten::relu
// "Python id"/"Python parent id" give the call hierarchy as PyTorch records it.
// ui.test.mjs (MODULE_EXPECT) checks the module table against this layout.
{
  const P = 4242;
  const evs = [];
  let ext = 1;
  const x = (cat, name, ts, dur, args) => evs.push({ ph: 'X', cat, name, pid: P, tid: P, ts, dur, args: args || {} });
  const mod = (name, mid, pyId, pyParent, ts, dur) =>
    x('python_function', name, ts, dur, { 'Python id': pyId, 'Python parent id': pyParent, 'Python module id': mid });
  const op = (name, ts, dur) => x('cpu_op', name, ts, dur, { 'External id': ext++, 'Input Dims': [[4, 8]], 'Input type': ['float'] });
  x('user_annotation', 'ProfilerStep#1', 1000, 2000);
  mod('nn.Module: Net_0', 100, 1, 0, 1010, 1900);
  mod('nn.Module: Linear_0', 101, 2, 1, 1020, 400);
  op('aten::linear', 1030, 300);
  mod('nn.Module: ReLU_0', 102, 3, 1, 1450, 100);
  op('aten::relu', 1460, 50);
  mod('nn.Module: Linear_1', 103, 4, 1, 1600, 500);
  op('aten::linear', 1610, 400);
  mod('nn.Module: ReLU_0', 102, 5, 1, 2200, 100);
  op('aten::relu', 2210, 60);
  put('modules/w.pt.trace.json', wrap(evs));
}

// attr: long operator names and device time that belongs to no operator
{
  const P = 100;
  const evs = [];
  const x = (cat, name, pid, tid, ts, dur, args) => evs.push({ ph: 'X', cat, name, pid, tid, ts, dur, args: args || {} });
  x('user_annotation', 'ProfilerStep#1', P, P, 1000, 20000);
  let ts = 1010;
  for (let i = 0; i < 24; i++) {
    const name = `aten::a_very_long_operator_name_number_${String(i).padStart(2, '0')}_with_template_arguments<float, 4, true, at::native::Layout>`;
    const dur = 100 + i * 10;
    x('cpu_op', name, P, P, ts, dur, { 'External id': i + 1 });
    if (i === 0) x('cuda_runtime', 'cudaLaunchKernel', P, P, ts + 10, 20, { correlation: 1, 'External id': 1 });
    ts += dur + 20;
  }
  const kargs = (corr) => ({ device: 0, stream: 7, correlation: corr, grid: [1, 1, 1], block: [32, 1, 1] });
  x('kernel', 'attributed_kernel', 0, 7, 1100, 100, kargs(1));
  x('kernel', 'kernel_without_launch', 0, 7, 5000, 300, kargs(999));
  put('attr/w.pt.trace.json', JSON.stringify({ schemaVersion: 1, deviceProperties: [{ id: 0, name: 'Test GPU' }], traceEvents: evs }));
}

// pair / order: the Diff view's default base and experiment
{
  const trace = (t0) => wrap([
    { ph: 'X', cat: 'user_annotation', name: 'ProfilerStep#1', pid: 7, tid: 7, ts: t0, dur: 1000, args: {} },
    { ph: 'X', cat: 'cpu_op', name: 'aten::mm', pid: 7, tid: 7, ts: t0 + 10, dur: 500, args: { 'External id': 1 } },
  ]);
  put('pair/after_fix.pt.trace.json', trace(2000000));
  put('pair/before_fix.pt.trace.json', trace(1000000));
  const day = new Date(Date.now() - 86400000);
  for (const r of ['order/zz_baseline', 'order/aa_tuned']) {
    put(`${r}/w.pt.trace.json`, trace(1000000));
    fs.utimesSync(path.join(log, r, 'w.pt.trace.json'), day, day);
  }
}
