// MindSpore tab: the GPU-mode and host CPU operator tables (MindInsight's
// GpuOpTypeAnalyser / GpuOpInfoAnalyser / GpuCudaActivityAnalyser and
// CpuOpTypeAnalyser / CpuOpInfoAnalyser pages). Reads ms_gpu_ops and
// ms_cpu_ops, whose tables are MindInsight's query answers
// {col_name, object, size} (src/importers/ms_optab.h lists each column and
// its source). A device without them gets a "no data" line; values
// are shown as MindInsight rounds them (no unit rescaling).
import { h, fmtNum } from '../lib/util.js';
import { createTable } from '../lib/table.js';
import { section, docErrors, noData } from './common.js';

// MindInsight's column titles (its operator page), by document column name
const TITLES = {
  op_type: 'Operator type',
  op_side: 'Side',
  op_name: 'Operator',
  op_full_name: 'Full name',
  full_op_name: 'Full name',
  total_time_us: 'Execution time (μs)',
  execution_frequency: 'Execution frequency',
  total_percent: 'Execution time ratio (%)',
  avg_time_us: 'Average execution time (μs)',
  op_occurrences: 'Occurrences',
  op_total_time_us: 'Total time (μs)',
  op_avg_time_us: 'Average time (μs)',
  proportion: 'Proportion (%)',
  cuda_activity_cost_time_us: 'CUDA activity time (μs)',
  cuda_activity_call_count: 'CUDA activity calls',
  name: 'Kernel',
  type: 'Type',
  stream_id: 'Stream',
  block_dim: 'Block dim',
  grid_dim: 'Grid dim',
  occurrences: 'Occurrences',
  total_duration_us: 'Total duration (μs)',
  avg_duration_us: 'Average duration (μs)',
  max_duration_us: 'Max duration (μs)',
  min_duration_us: 'Min duration (μs)',
  type_occurrences: 'Operators',
  total_compute_time_us: 'Compute time (μs)',
  total_time_proportion: 'Time ratio (%)',
  total_proportion: 'Time ratio (%)',
  subgraph: 'Subgraph',
};

const has = (t) => t && Array.isArray(t.col_name) && Array.isArray(t.object) && t.object.length > 0;

/** One MindInsight table ({col_name, object}) as a sortable table. */
function table(name, t) {
  const cols = t.col_name;
  const rows = t.object.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i]])));
  const numeric = cols.map((c, i) => t.object.every((r) => r[i] === null || typeof r[i] === 'number'));
  const timeCol = cols.find((c) => /total_time_us$|total_duration_us$|total_compute_time_us$/.test(c));
  return h('div', { testid: `ms-${name}`, 'data-rows': String(rows.length) },
    h('h4', null, `${name.replace(/_/g, ' ')} (${rows.length} rows)`),
    createTable({
      name: `ms-${name}-table`, rows, sortKey: timeCol || null, sortDir: 'desc', search: rows.length > 10,
      columns: cols.map((c, i) => (numeric[i]
        ? { key: c, title: TITLES[c] || c, numeric: true, fmt: (v) => (typeof v === 'number' ? (Number.isInteger(v) ? String(v) : fmtNum(v, 6)) : '–') }
        : { key: c, title: TITLES[c] || c, fmt: 'text', cls: /name/.test(c) ? 'name' : undefined })),
    }).el);
}

export async function render(el, ctx) {
  const [gpu, cpu] = await Promise.all([ctx.doc('ms_gpu_ops'), ctx.doc('ms_cpu_ops')]);
  const gpuTabs = ['gpu_op_type', 'gpu_op_detail', 'gpu_activity'].filter((k) => gpu && has(gpu[k]));
  const cpuTabs = ['cpu_op_type', 'cpu_op_detail'].filter((k) => cpu && has(cpu[k]));
  const gErr = docErrors(gpu);
  const cErr = docErrors(cpu);
  // only a device with these tables (GPU mode, host CPU ops) gets the tables
  if (!gpuTabs.length && !cpuTabs.length && !gErr && !cErr) {
    el.appendChild(section('GPU and host CPU operators', 'ms-hostops', null, noData('No GPU-mode or host CPU operator tables for this device (gpu_op_type_info_<id>.csv, gpu_op_detail_info_<id>.csv, gpu_activity_data_<id>.csv, cpu_op_type_info_<id>.csv, cpu_op_detail_info_<id>.csv).')));
    return;
  }
  if (gpuTabs.length || gErr) {
    el.appendChild(section('GPU operators', 'ms-gpu-ops', gErr,
      gpuTabs.map((k) => table(k, gpu[k]))));
  }
  if (cpuTabs.length || cErr) {
    el.appendChild(section('Host CPU operators', 'ms-cpu-ops', cErr,
      cpuTabs.map((k) => table(k, cpu[k]))));
  }
}
